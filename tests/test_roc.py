"""ROC AUC (A') and its intervals against brute force, scikit-learn and published numbers."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

from aucpr_stats.api import auroc
from aucpr_stats.ties import TieTable
from aucpr_stats.estimators import ROC_ESTIMATORS
from aucpr_stats.estimators.roc import a_prime, delong_components, placement_values
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError
from aucpr_stats.intervals import delong_se, hanley_mcneil_se, logit_interval, normal_quantile
from aucpr_stats.results import AurocResult

from .conftest import as_polars, make_frame, random_scores, result_frame_type


# ------------------------------------------------------------------ oracles
def psi(x: float, y: float) -> float:
    """DeLong et al. (1988) kernel: 1 if the positive outscores the negative, 1/2 on a tie."""
    return 1.0 if x > y else (0.5 if x == y else 0.0)


def brute_force_a_prime(y, s) -> float:
    """The pairwise definition, O(n^2): every positive against every negative."""
    pos = [si for si, yi in zip(s, y) if yi]
    neg = [si for si, yi in zip(s, y) if not yi]
    return sum(psi(x, z) for x in pos for z in neg) / (len(pos) * len(neg))


def brute_force_delong(y, s) -> tuple[float, float]:
    """A and its DeLong SE with explicit loops, straight from the 1988 formulas."""
    pos = [si for si, yi in zip(s, y) if yi]
    neg = [si for si, yi in zip(s, y) if not yi]
    m, n = len(pos), len(neg)
    v10 = [sum(psi(x, z) for z in neg) / n for x in pos]
    v01 = [sum(psi(x, z) for x in pos) / m for z in neg]
    a = sum(v10) / m
    s10 = sum((v - a) ** 2 for v in v10) / (m - 1)
    s01 = sum((v - a) ** 2 for v in v01) / (n - 1)
    return a, (s10 / m + s01 / n) ** 0.5


def table_of(y, s) -> TieTable:
    """One-segment tie table built by hand (descending distinct scores)."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    distinct = np.unique(s)[::-1]
    return TieTable(
        score=distinct,
        pos=[int((y & (s == d)).sum()) for d in distinct],
        neg=[int((~y & (s == d)).sum()) for d in distinct],
        offsets=[0, distinct.size],
    )


def ct_ratings() -> pl.DataFrame:
    """Hanley & McNeil (1982) Table 1: CT ratings 1..5 of 58 normal and 51 abnormal cases."""
    normal, abnormal = [33, 6, 6, 11, 2], [3, 2, 2, 11, 33]
    y, s = [], []
    for rating, (n0, n1) in enumerate(zip(normal, abnormal), start=1):
        y += [0] * n0 + [1] * n1
        s += [rating] * (n0 + n1)
    return pl.DataFrame({"y": y, "rating": s})


def small_samples(rng, count=150, max_n=25, levels=4):
    for _ in range(count):
        n = int(rng.integers(4, max_n))
        y = rng.random(n) < 0.45
        y[:2] = True
        y[2:4] = False
        s = rng.integers(0, levels, n).astype(float)
        yield y, s


# ------------------------------------------------------------------ A'
def test_a_prime_matches_pairwise_brute_force_with_ties():
    rng = np.random.default_rng(11)
    for y, s in small_samples(rng):
        assert a_prime(table_of(y, s))[0] == pytest.approx(brute_force_a_prime(y, s), abs=1e-14)


@pytest.mark.parametrize("ties", [False, True])
def test_matches_sklearn_per_group(frame_kind, ties):
    rng = np.random.default_rng(5)
    n = 4000
    y, s = random_scores(rng, n, prevalence=0.25, ties=ties)
    g = rng.integers(0, 5, n)
    data = make_frame({"y": y.astype(int), "s": s, "g": g}, frame_kind)
    result = auroc(data, "y", "s", by="g")
    assert isinstance(result, AurocResult)
    frame = result.to_frame()
    assert isinstance(frame, result_frame_type(frame_kind))
    frame = as_polars(frame)
    assert list(frame.columns) == ["g", "estimator", "estimate", "n_pos", "n_neg", "prevalence", "note", "n_missing"]
    assert frame["g"].to_list() == [0, 1, 2, 3, 4]
    for k in range(5):
        assert frame["estimate"][k] == pytest.approx(roc_auc_score(y[g == k], s[g == k]), abs=1e-13)
        assert (frame["n_pos"][k], frame["n_neg"][k]) == (int(y[g == k].sum()), int((~y[g == k]).sum()))


def test_published_ct_example():
    """Hanley & McNeil (1982): A = 0.8932 and a DeLong SE near 0.0307 (issue 5, item 3); HM SE about 0.032."""
    result = auroc(ct_ratings(), "y", "rating")
    assert (int(result.n_pos[0]), int(result.n_neg[0])) == (51, 58)
    assert result.estimate == pytest.approx(0.8932, abs=5e-5)
    ci = as_polars(result.conf_int(method=["delong", "hanley_mcneil"]))
    delong, hm = ci.row(0, named=True), ci.row(1, named=True)
    assert delong["se"] == pytest.approx(0.0307, abs=5e-5)
    assert hm["se"] == pytest.approx(0.032, abs=5e-4)
    z = stats.norm.ppf(0.975)
    assert delong["lower"] == pytest.approx(result.estimate - z * delong["se"], abs=1e-12)


def test_hanley_mcneil_se_from_the_tutorial_formula():
    """The tutorial's formula written out for A = 0.893, n_P = 51, n_N = 58 (Hanley & McNeil's numbers)."""
    a, m, n = 0.893, 51, 58
    q1, q2 = a / (2 - a), 2 * a**2 / (1 + a)
    expected = np.sqrt((a * (1 - a) + (m - 1) * (q1 - a**2) + (n - 1) * (q2 - a**2)) / (m * n))
    assert hanley_mcneil_se(a, m, n) == pytest.approx(expected, rel=1e-14)
    # Hanley & McNeil (1982) quote an SE of about 0.032 for this example
    assert hanley_mcneil_se(a, m, n) == pytest.approx(0.032, abs=1e-3)


def test_exact_at_a_million_rows_and_in_bounds():
    rng = np.random.default_rng(0)
    n = 1_000_000
    y = rng.random(n) < 0.5
    s = np.round(rng.normal(size=n) + 0.3 * y, 2)  # many ties
    got = auroc(pl.DataFrame({"y": y, "s": s}), "y", "s").estimate
    # Mann-Whitney U from midranks: half-integer rank sums are exact in float64 at this size
    ranks = stats.rankdata(s)
    m, k = int(y.sum()), int((~y).sum())
    u = ranks[y].sum() - m * (m + 1) / 2
    assert got == pytest.approx(u / (m * k), abs=1e-15)
    # perfect separation at this size is exactly 1, never above
    perfect = auroc(pl.DataFrame({"y": y, "s": y.astype(float)}), "y", "s").estimate
    assert perfect == 1.0


def test_zero_count_rows_do_not_change_anything():
    rng = np.random.default_rng(3)
    y, s = next(small_samples(rng, count=1))
    t = table_of(y, s)
    padded = TieTable(
        score=np.concatenate([[99.0], t.score, [-99.0]]),
        pos=np.concatenate([[0], t.pos, [0]]),
        neg=np.concatenate([[0], t.neg, [0]]),
        offsets=[0, t.n_rows + 2],
    )
    assert a_prime(padded)[0] == a_prime(t)[0]
    np.testing.assert_allclose(delong_components(padded), delong_components(t), rtol=1e-14)


def test_multiple_segments_are_independent():
    rng = np.random.default_rng(9)
    tables = [table_of(y, s) for y, s in small_samples(rng, count=6)]
    lengths = [t.n_rows for t in tables]
    stacked = TieTable(
        score=np.concatenate([t.score for t in tables]),
        pos=np.concatenate([t.pos for t in tables]),
        neg=np.concatenate([t.neg for t in tables]),
        offsets=np.concatenate([[0], np.cumsum(lengths)]),
    )
    together = delong_se(stacked)
    for k, t in enumerate(tables):
        alone = delong_se(t)
        assert together[0][k] == alone[0][0]
        assert together[1][k] == pytest.approx(alone[1][0], rel=1e-13)


samples = st.lists(st.tuples(st.booleans(), st.integers(-6, 6)), min_size=2, max_size=50).filter(
    lambda rows: any(r[0] for r in rows) and not all(r[0] for r in rows)
)


@settings(max_examples=150, deadline=None)
@given(rows=samples)
def test_a_prime_in_bounds_and_equals_brute_force(rows):
    y = [r[0] for r in rows]
    s = [float(r[1]) for r in rows]
    value = a_prime(table_of(y, s))[0]
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(brute_force_a_prime(y, s), abs=1e-14)
    # flipping the score reflects the AUC
    assert a_prime(table_of(y, [-v for v in s]))[0] == pytest.approx(1.0 - value, abs=1e-14)


# ------------------------------------------------------------------ DeLong
def test_placement_values_match_their_definition():
    rng = np.random.default_rng(4)
    for y, s in small_samples(rng, count=30):
        t = table_of(y, s)
        v10, v01 = placement_values(t)
        neg, pos = s[~y], s[y]
        for i, d in enumerate(t.score):
            assert v10[i] == pytest.approx(np.mean([psi(d, z) for z in neg]), abs=1e-15)
            assert v01[i] == pytest.approx(np.mean([psi(x, d) for x in pos]), abs=1e-15)


def test_delong_se_matches_brute_force_with_ties():
    rng = np.random.default_rng(12)
    for y, s in small_samples(rng):
        auc, se = delong_se(table_of(y, s))
        a, expected = brute_force_delong(y, s)
        assert auc[0] == pytest.approx(a, abs=1e-14)
        assert se[0] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_delong_needs_two_cases_per_class():
    data = pl.DataFrame({"y": [1, 0, 0, 0], "s": [0.9, 0.5, 0.3, 0.1]})
    ci = as_polars(auroc(data, "y", "s").conf_int(method="delong"))
    assert np.isnan(ci["se"][0]) and np.isnan(ci["lower"][0])
    assert ci["note"][0] == "1 positive: no interval can be formed"  # issue 14: one note for every method
    data = pl.DataFrame({"y": [1, 1, 0], "s": [0.9, 0.5, 0.3]})
    ci = as_polars(auroc(data, "y", "s").conf_int(method="delong"))
    assert np.isnan(ci["se"][0]) and np.isnan(ci["lower"][0])
    assert "2 positives and >= 2 negatives" in ci["note"][0]


# ------------------------------------------------------------------ intervals
def test_logit_interval_is_the_delta_method_and_stays_inside():
    a, se = np.array([0.6, 0.97, 0.999]), np.array([0.05, 0.03, 0.01])
    lower, upper, returned = logit_interval(a, se, 0.9)
    z = normal_quantile(0.9)
    centre, half = np.log(a / (1 - a)), z * se / (a * (1 - a))
    np.testing.assert_allclose(lower, 1 / (1 + np.exp(-(centre - half))), rtol=1e-14)
    np.testing.assert_allclose(upper, 1 / (1 + np.exp(-(centre + half))), rtol=1e-14)
    assert np.all((lower > 0) & (upper < 1))
    assert returned is se or np.array_equal(returned, se)
    # the Wald interval leaves [0, 1] here, the logit interval does not
    assert a[2] + z * se[2] > 1
    # at A' = 1 the interval is its limit [0, 1] (as for AUCPR); without a standard error, NaN
    edge = logit_interval(np.array([1.0, 1.0]), np.array([0.0, np.nan]), 0.95)
    assert edge[0][0] == 0.0 and edge[1][0] == 1.0
    assert np.isnan(edge[0][1]) and np.isnan(edge[1][1])


def test_conf_int_frame_columns_and_type(frame_kind):
    rng = np.random.default_rng(2)
    y, s = random_scores(rng, 500, ties=True)
    g = np.array(["a", "b"])[rng.integers(0, 2, 500)]
    data = make_frame({"y": y, "s": s, "site": g}, frame_kind)
    ci = auroc(data, "y", "s", by="site").conf_int(method=["delong", "logit", "hanley_mcneil"], level=0.9)
    assert isinstance(ci, result_frame_type(frame_kind))
    # the layout of the AUCPR intervals: rows group-major, then estimator, then method
    assert list(ci.columns) == [
        "site", "estimator", "estimate", "method", "level", "lower", "upper", "se", "n_pos", "n_neg", "note",
    ]
    ci = as_polars(ci)
    assert ci["site"].to_list() == ["a"] * 3 + ["b"] * 3
    assert ci["method"].to_list() == ["delong", "logit", "hanley_mcneil"] * 2
    assert ci["level"].to_list() == [0.9] * 6
    z = normal_quantile(0.9)
    for row in ci.iter_rows(named=True):
        mask = g == row["site"]
        a, se = brute_force_delong_fast(y[mask], s[mask])
        if row["method"] == "delong":
            assert row["se"] == pytest.approx(se, rel=1e-10)
            assert (row["lower"], row["upper"]) == pytest.approx((a - z * se, a + z * se), rel=1e-12)
        assert row["lower"] < row["estimate"] < row["upper"]


def brute_force_delong_fast(y, s):
    """DeLong with O(n^2) numpy broadcasting (for the moderate sizes above)."""
    pos, neg = s[y][:, None], s[~y][None, :]
    kernel = (pos > neg) + 0.5 * (pos == neg)
    v10, v01 = kernel.mean(axis=1), kernel.mean(axis=0)
    return kernel.mean(), np.sqrt(v10.var(ddof=1) / v10.size + v01.var(ddof=1) / v01.size)


def test_degenerate_group_gets_nan_and_note():
    data = pl.DataFrame({"y": [1, 0, 1, 0, 1, 1], "s": [0.9, 0.1, 0.8, 0.3, 0.5, 0.4], "g": [1, 1, 1, 1, 2, 2]})
    with pytest.warns(DegenerateGroupWarning, match="no negatives"):
        result = auroc(data, "y", "s", by="g")
    ci = as_polars(result.conf_int(method=["delong", "hanley_mcneil"]))
    assert ci.filter(pl.col("g") == 2)["note"].to_list() == ["no negatives"] * 2
    assert ci.filter(pl.col("g") == 2)["lower"].is_nan().all()


def test_argument_errors():
    data = ct_ratings()
    result = auroc(data, "y", "rating")
    with pytest.raises(InputError, match=r"`method` must be one of \['delong', 'logit', 'hanley_mcneil', 'newcombe', 'bootstrap', 'obuchowski'\] or 'all'; got 'wald'"):
        result.conf_int(method="wald")
    with pytest.raises(InputError, match="`level` must be strictly between 0 and 1; got 1.5"):
        result.conf_int(level=1.5)
    with pytest.raises(InputTypeError, match=r"unexpected option \['n_boot'\]"):
        result.conf_int(method="delong", n_boot=10)
    with pytest.raises(InputError, match=r"`estimator` must be one of \['a_prime'\] or 'all'; got 'trapezoid'"):
        auroc(data, "y", "rating", estimator="trapezoid")
    with pytest.raises(InputTypeError, match="`method`"):
        result.conf_int(method=3)
    assert list(ROC_ESTIMATORS) == ["a_prime"]


# ------------------------------------------------------------------ bootstrap
def test_bootstrap_is_reproducible_and_agrees_with_delong():
    rng = np.random.default_rng(21)
    y, s = random_scores(rng, 3000, prevalence=0.3, ties=True)
    g = rng.integers(0, 2, 3000)
    result = auroc(pl.DataFrame({"y": y, "s": s, "g": g}), "y", "s", by="g")
    a = as_polars(result.conf_int(method="bootstrap", n_boot=1000, seed=5))
    b = as_polars(result.conf_int(method="bootstrap", n_boot=1000, seed=np.random.default_rng(5)))
    c = as_polars(result.conf_int(method="bootstrap", n_boot=1000, seed=6))
    assert a.equals(b)
    assert not a.equals(c)
    delong = as_polars(result.conf_int(method="delong"))
    # the bootstrap SD of A' estimates the same standard error as DeLong's components
    np.testing.assert_allclose(a["se"].to_numpy(), delong["se"].to_numpy(), rtol=0.12)
    assert (a["lower"] < a["estimate"]).all() and (a["estimate"] < a["upper"]).all()
    assert a["method"].to_list() == ["bootstrap"] * 2
    assert a["n_boot"].to_list() == [1000, 1000]
    both = as_polars(result.conf_int(method=["delong", "bootstrap"], n_boot=1000, seed=5))
    assert list(both.columns) == ["g", "estimator", "estimate", "method", "level", "lower", "upper", "se",
                                  "n_boot", "boot_mean", "boot_median", "n_pos", "n_neg", "note"]
    assert both["n_boot"].to_list() == [None, 1000, None, 1000]
    assert both.filter(pl.col("method") == "bootstrap").select("lower", "upper", "se").equals(
        a.select("lower", "upper", "se"))
