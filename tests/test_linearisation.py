"""Linearisation (influence-function) variances: gradients against numerical derivatives of the package's
estimators, variances against DeLong, Obuchowski, a row-level brute force and simulation, and the API."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aucpr_stats import aucpr, auroc
from aucpr_stats.estimators import average_precision
from aucpr_stats.estimators.prevalence import at_prevalence
from aucpr_stats.estimators.roc import a_prime
from aucpr_stats.exceptions import InputError
from aucpr_stats.tables import tie_table_from_rows
from aucpr_stats.intervals import delong_se, obuchowski_components
from aucpr_stats.intervals.linearisation import (
    a_prime_gradient,
    average_precision_gradient,
    influence_variance,
)
from aucpr_stats.simulate.scenarios import Binormal
from aucpr_stats.simulate.studies import simulate_ties
from aucpr_stats.ties import TieTable


pytestmark = pytest.mark.filterwarnings("ignore::aucpr_stats.exceptions.SmallSampleWarning")


def _random_table(rng, rows=10, weighted=True, top_mixed=True):
    pos = rng.integers(0, 4, rows).astype(float)
    neg = rng.integers(0, 4, rows).astype(float)
    if top_mixed:
        pos[0], neg[0] = 2, 3
    if weighted:
        pos, neg = pos * rng.uniform(0.5, 2, rows), neg * rng.uniform(0.5, 2, rows)
    pos[-1] += 1.0
    neg[-2] += 1.0
    return pos, neg


def _numerical_gradient(function, pos, neg, eps=1e-6):
    """Central differences of ``function(pos, neg)`` in every nonzero count."""
    out = {"pos": np.full(pos.size, np.nan), "neg": np.full(neg.size, np.nan)}
    for name in ("pos", "neg"):
        counts = pos if name == "pos" else neg
        for k in np.flatnonzero(counts > 0):
            up, down = [pos.copy(), neg.copy()], [pos.copy(), neg.copy()]
            j = 0 if name == "pos" else 1
            up[j][k] += eps
            down[j][k] -= eps
            out[name][k] = (function(*up) - function(*down)) / (2 * eps)
    return out


@pytest.mark.parametrize("tie_blocks", ["interpolate", "published"])
@pytest.mark.parametrize("prevalence", [None, 0.03])
def test_ap_gradient_is_the_numerical_derivative_of_the_estimator(tie_blocks, prevalence):
    rng = np.random.default_rng(7)
    pos, neg = _random_table(rng, 12)
    score = np.arange(12, 0, -1.0)

    def ap(p, n):
        t = TieTable(score, p, n, [0, 12])
        if prevalence is not None:
            t = at_prevalence(t, prevalence)
        return average_precision(t, tie_blocks)[0]

    gradient = average_precision_gradient(TieTable(score, pos, neg, [0, 12]), tie_blocks, prevalence)
    assert gradient.estimate[0] == pytest.approx(ap(pos, neg), rel=1e-13)
    numeric = _numerical_gradient(ap, pos, neg)
    for name in ("pos", "neg"):
        held = ~np.isnan(numeric[name])
        np.testing.assert_allclose(getattr(gradient, name)[held], numeric[name][held], atol=1e-8)


def test_ap_gradient_in_the_series_region_of_the_crossing():
    # a small mixed block under many rows: u = d / c < 0.05, where the closed forms of I_1, I_2 cancel
    score = np.array([3.0, 2.0, 1.0])
    pos, neg = np.array([400.0, 1.0, 2.0]), np.array([600.0, 2.0, 1.0])
    numeric = _numerical_gradient(lambda p, n: average_precision(TieTable(score, p, n, [0, 3]))[0], pos, neg,
                                  eps=1e-4)
    gradient = average_precision_gradient(TieTable(score, pos, neg, [0, 3]))
    np.testing.assert_allclose(gradient.pos, numeric["pos"], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(gradient.neg, numeric["neg"], rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("u", [1e-4, 0.01, 0.0499, 0.0501, 0.5, 40.0])
def test_crossing_partials_against_quadrature(u):
    # one positive-only row (a positives) over a mixed row (b, n): g_neg of the mixed row is
    # b * dP/dn / (a + b) with dP/dn = -int_0^1 t (a + b t) / (c + d t)^2 dt, here by quadrature
    from scipy.integrate import quad

    a, b = 50.0, 3.0
    n = u * a - b
    if n <= 0:
        a = (b + 1.0) / u
        n = 1.0
    dp_dn = -quad(lambda t: t * (a + b * t) / (a + (b + n) * t) ** 2, 0, 1, epsabs=0, epsrel=1e-13)[0]
    dp_db = quad(lambda t: t * n * t / (a + (b + n) * t) ** 2, 0, 1, epsabs=0, epsrel=1e-13)[0]
    table = TieTable([2.0, 1.0], [a, b], [0.0, n], [0, 2])
    g = average_precision_gradient(table)
    assert g.neg[1] == pytest.approx(b * dp_dn / (a + b), rel=1e-10)
    precision = average_precision(table)[0] * (a + b) - a  # b times the mixed row's precision
    assert g.pos[1] == pytest.approx((precision / b + b * dp_db - g.estimate[0]) / (a + b), rel=1e-10)


def test_a_prime_gradient_is_the_numerical_derivative():
    rng = np.random.default_rng(8)
    pos, neg = _random_table(rng, 9)
    score = np.arange(9, 0, -1.0)
    numeric = _numerical_gradient(lambda p, n: a_prime(TieTable(score, p, n, [0, 9]))[0], pos, neg)
    gradient = a_prime_gradient(TieTable(score, pos, neg, [0, 9]))
    for name in ("pos", "neg"):
        held = ~np.isnan(numeric[name])
        np.testing.assert_allclose(getattr(gradient, name)[held], numeric[name][held], atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=12),
       st.sampled_from(["interpolate", "published"]), st.sampled_from([None, 0.1]))
# an empty row over a mixed block at the top: the reweighted running sum of the negatives must not carry
# the rounding of the group before it (a tiny count above the block, where d/da of the crossing diverges)
@example(counts=[(0, 0), (1, 1)], tie_blocks="interpolate", prevalence=0.1)
def test_unit_terms_add_up_to_zero_and_segments_are_independent(counts, tie_blocks, prevalence):
    pos = np.array([c[0] for c in counts] + [1, 0], dtype=float)
    neg = np.array([c[1] for c in counts] + [0, 1], dtype=float)
    n = pos.size
    # the estimate is unchanged by scaling every count (and, at a stated prevalence, each class): Euler
    table = TieTable(np.arange(n, 0, -1.0), pos, neg, [0, n])
    g = average_precision_gradient(table, tie_blocks, prevalence)
    total = np.sum(pos * g.pos) + np.sum(neg * g.neg)
    assert total == pytest.approx(0.0, abs=1e-10)
    if prevalence is not None:
        assert np.sum(pos * g.pos) == pytest.approx(0.0, abs=1e-10)
    # the same table twice in one CSR table, after another group: the same gradient
    two = TieTable(np.r_[[5.0, 4.0], table.score], np.r_[[1.0, 0.0], pos], np.r_[[2.0, 1.0], neg], [0, 2, n + 2])
    g2 = average_precision_gradient(two, tie_blocks, prevalence)
    np.testing.assert_allclose(g2.pos[2:], g.pos, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g2.neg[2:], g.neg, rtol=1e-10, atol=1e-12)


_COUNT = st.sampled_from([0.0, 0.1, 0.3, 0.7, 1.0, 2.0, 2.5, 1e6 / 3, 1e10 / 7])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.tuples(_COUNT, _COUNT), min_size=1, max_size=8), min_size=2, max_size=4),
       st.booleans())
def test_each_group_gets_the_bits_it_gets_alone(groups, integers):
    # estimators and gradients evaluate each segment on its own rows: the same bits alone or among groups
    def table(rows_of_groups):
        pos = np.array([p for rows in rows_of_groups for p, _ in rows])
        neg = np.array([n for rows in rows_of_groups for _, n in rows])
        if integers:
            pos, neg = np.rint(pos * 3).astype(np.int64), np.rint(neg * 3).astype(np.int64)
        score = np.concatenate([np.arange(len(rows), 0, -1.0) for rows in rows_of_groups])
        return TieTable(score, pos, neg, np.r_[0, np.cumsum([len(rows) for rows in rows_of_groups])])

    together = table(groups)
    at = together.offsets
    for k, rows in enumerate(groups):
        alone = table([rows])
        for tie_blocks in ("interpolate", "published"):
            estimate = average_precision(together, tie_blocks)[k]
            np.testing.assert_array_equal(estimate, average_precision(alone, tie_blocks)[0])
            for prevalence in (None, 0.1):
                g = average_precision_gradient(together, tie_blocks, prevalence)
                g1 = average_precision_gradient(alone, tie_blocks, prevalence)
                np.testing.assert_array_equal(g.pos[at[k]:at[k + 1]], g1.pos)
                np.testing.assert_array_equal(g.neg[at[k]:at[k + 1]], g1.neg)
        np.testing.assert_array_equal(a_prime(together)[k], a_prime(alone)[0])


@pytest.mark.parametrize("big", [1.0, 1e10, 1e14])
def test_a_weighted_group_is_not_touched_by_the_rounding_of_the_group_before_it(big):
    # weighted counts after a group of large weights: the estimates and the gradient of the second
    # group are the bits it gets alone (each segment's running sums start at its own first row)
    score = np.array([4.0, 3.0, 2.0, 1.0])
    pos, neg = np.array([0.0, 1.0, 0.3, 1.0]), np.array([0.0, 0.7, 1.0, 0.2])
    one = TieTable(score, pos, neg, [0, 4])
    two = TieTable(np.r_[[6.0, 5.0], score], np.r_[[big, 0.1], pos], np.r_[[0.3 * big, big], neg], [0, 2, 6])
    for tie_blocks in ("interpolate", "published"):
        assert average_precision(two, tie_blocks)[1] == average_precision(one, tie_blocks)[0]
        for prevalence in (None, 0.1):
            alone = average_precision_gradient(one, tie_blocks, prevalence)
            after = average_precision_gradient(two, tie_blocks, prevalence)
            np.testing.assert_allclose(after.pos[2:], alone.pos, rtol=1e-13, atol=1e-15)
            np.testing.assert_allclose(after.neg[2:], alone.neg, rtol=1e-13, atol=1e-15)
    assert a_prime(two)[1] == a_prime(one)[0]
    g_one, g_two = a_prime_gradient(one), a_prime_gradient(two)
    np.testing.assert_array_equal(g_two.pos[2:], g_one.pos)
    np.testing.assert_array_equal(g_two.neg[2:], g_one.neg)


def _frame(seed, n=240, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = rng.normal(size=n) + 1.2 * y
    return pd.DataFrame({"y": y.astype(int), "s": np.round(s, 1) if ties else s,
                         "w": rng.choice([0.5, 1.0, 2.5, 4.0], n), "c": np.arange(n) // 3, "one": 1.0})


def _brute_force_se(df, prevalence=None, cluster=None):
    """Row-level oracle: each row's term w_r * d(AP)/d(w_r), by central differences of the package
    estimator on a table built from the rows; squared (summed per cluster first) with the factors."""
    order = np.argsort(-df["s"].to_numpy(), kind="stable")
    s, y, w = df["s"].to_numpy()[order], df["y"].to_numpy()[order], df["w"].to_numpy()[order]
    distinct, row = np.unique(-s, return_inverse=True)

    def ap(weights):
        t = TieTable(-distinct, np.bincount(row, weights * y, distinct.size),
                     np.bincount(row, weights * (1 - y), distinct.size), [0, distinct.size])
        return average_precision(at_prevalence(t, prevalence) if prevalence else t)[0]

    eps = 1e-6
    terms = np.empty(w.size)
    for r in range(w.size):
        up, down = w.copy(), w.copy()
        up[r] *= 1 + eps
        down[r] *= 1 - eps
        terms[r] = (ap(up) - ap(down)) / (2 * eps)  # = w_r * dAP/dw_r
    if cluster is None:
        var = 0.0
        for cls in (0, 1):
            t = terms[y == cls]
            var += t.size / (t.size - 1) * np.sum(t ** 2)
        return np.sqrt(var)
    c = df[cluster].to_numpy()[order]
    ids, inverse = np.unique(c, return_inverse=True)
    a = np.bincount(inverse, terms * (y == 1), ids.size)
    b = np.bincount(inverse, terms * (y == 0), ids.size)
    i10, i01 = np.bincount(inverse, y == 1, ids.size) > 0, np.bincount(inverse, y == 0, ids.size) > 0
    i10, i01, i = i10.sum(), i01.sum(), (i10 | i01).sum()
    var = (i10 / (i10 - 1) * np.sum(a ** 2) + i01 / (i01 - 1) * np.sum(b ** 2)
           + 2 * i / (i - 1) * np.sum(a * b))
    return np.sqrt(var)


@pytest.mark.parametrize("design", [{"weights": "w"}, {"weights": "w", "prevalence": 0.05},
                                    {"weights": "w", "cluster": "c"},
                                    {"weights": "one", "cluster": "c", "prevalence": 0.1}])
def test_influence_se_matches_the_row_level_brute_force(design):
    df = _frame(3, n=150)
    result = aucpr(df, "y", "s", estimator="average_precision", **design)
    frame = result.conf_int(method="influence")
    oracle = _brute_force_se(df.assign(w=df[design["weights"]]), design.get("prevalence"), design.get("cluster"))
    assert frame["se"].iloc[0] == pytest.approx(oracle, rel=1e-6)
    lo, hi = frame["lower"].iloc[0], frame["upper"].iloc[0]
    assert 0 < lo < result.estimate < hi < 1


def test_unit_weights_give_the_row_variance_and_delong():
    df = _frame(4)
    plain = aucpr(df, "y", "s", estimator="average_precision").conf_int(method="influence")
    unit = aucpr(df, "y", "s", estimator="average_precision", weights="one").conf_int(method="influence")
    assert unit["se"].iloc[0] == pytest.approx(plain["se"].iloc[0], rel=1e-12)
    # A': the weighted DeLong with unit weights is DeLong's variance
    d = auroc(df, "y", "s").conf_int(method=["delong", "logit"])
    w = auroc(df, "y", "s", weights="one").conf_int(method=["delong", "logit"])
    np.testing.assert_allclose(w["se"], d["se"], rtol=1e-12)
    np.testing.assert_allclose(w[["lower", "upper"]], d[["lower", "upper"]], rtol=1e-12)
    table = aucpr(df, "y", "s").ties
    assert d["se"].iloc[0] == pytest.approx(delong_se(table)[1][0], rel=1e-15)  # rows: unchanged


def test_weighted_a_prime_with_clusters_is_obuchowski():
    df = _frame(5)
    for weights in (None, "w"):
        result = auroc(df, "y", "s", cluster="c", weights=weights)
        g = a_prime_gradient(result.ties)
        ours = influence_variance(result.ties, g, clusters=result.clusters.ties,
                                  cluster_group=result.clusters.group).variance
        theirs = obuchowski_components(result.ties, result.clusters.ties, result.clusters.group).variance
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_clusters_of_one_row_give_the_row_variance():
    rng = np.random.default_rng(6)
    n = 200
    y, s = rng.random(n) < 0.3, np.round(rng.normal(size=n), 1)
    group = tie_table_from_rows(np.zeros(n, dtype=np.int64), s, y, 1)
    units = tie_table_from_rows(np.arange(n), s, y, n)
    g = average_precision_gradient(group)
    rows = influence_variance(group, g).variance
    clusters = influence_variance(group, g, clusters=units, cluster_group=np.zeros(n, dtype=np.int64)).variance
    # the cross term of one-row clusters is zero; the factors are n_c/(n_c - 1) in both
    assert clusters[0] == pytest.approx(rows[0], rel=1e-12)


def test_influence_variance_matches_the_simulated_variance():
    # case-control at a stated prevalence (class sizes fixed), 1,500 data sets in one vectorised call;
    # the linearisation is first order: it under-states the variance by about 5-10% at 200 cases
    rng = np.random.default_rng(11)
    pos, neg = Binormal(mu=1.5).sample_arrays(1500, 200, 800, rng)
    ties = simulate_ties(pos, neg)
    g = average_precision_gradient(ties, "interpolate", 0.1)
    ratio = np.mean(influence_variance(ties, g).variance) / np.var(g.estimate, ddof=1)
    assert 0.8 < ratio < 1.1  # Monte Carlo SE of the ratio about 0.04
    # a cohort (class sizes random, ties): the variance includes that of the sample prevalence
    n_sets, n = 1500, 400
    y = rng.random(n_sets * n) < 0.25
    s = np.round(rng.normal(size=n_sets * n) + 1.2 * y, 1)
    table = tie_table_from_rows(np.repeat(np.arange(n_sets), n), s, y, n_sets)
    g = average_precision_gradient(table)
    variance = influence_variance(table, g).variance
    ratio = np.mean(variance) / np.var(g.estimate, ddof=1)
    assert 0.88 < ratio < 1.12
    # ... which a variance centred within each class (class sizes held fixed) leaves out
    per_row = table.segment_ids()
    centred = np.zeros(n_sets)
    for counts, grad, size in ((table.pos, g.pos, table.n_pos), (table.neg, g.neg, table.n_neg)):
        mean = table.segment_sum(counts * grad) / size
        centred += size / (size - 1) * table.segment_sum(counts * (grad - mean[per_row]) ** 2)
    assert np.mean(centred) < 0.85 * np.mean(variance)


def test_undefined_variance_has_a_note_and_methods_are_checked():
    # two positives, both in cluster 0: one cluster holds positives
    df = pd.DataFrame({"y": [1, 1, 0, 0, 0, 0], "s": [3.0, 2.0, 1.0, 0.5, 0.2, 0.1], "c": [0, 0, 0, 1, 2, 2],
                       "w": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = aucpr(df, "y", "s", estimator="average_precision", cluster="c").conf_int(method="influence")
    assert frame["se"].isna().all()
    assert "influence variance needs >= 2 clusters holding positives" in frame["note"].iloc[0]
    with pytest.raises(InputError, match="average precision"):
        aucpr(df, "y", "s", estimator="lower_trapezoid").conf_int(method="influence")
    clustered = aucpr(df, "y", "s", estimator="average_precision", cluster="c")
    assert "influence" in set(clustered.conf_int(method="all")["method"])
    with pytest.raises(InputError, match="cluster"):
        auroc(df, "y", "s", cluster="c").conf_int(method="delong")
