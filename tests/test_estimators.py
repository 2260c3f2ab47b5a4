"""The eight AUCPR estimators of Boyd, Eng & Page (2013) against brute-force oracles.

Every oracle here works on the raw rows with explicit Python loops over
thresholds, written straight from section 3.1 of the paper, in exact rational
arithmetic (``fractions.Fraction``) with the logarithms of the closed-form
integral taken in 50-digit ``decimal`` arithmetic, so the oracle itself has no
rounding error worth speaking of. The binormal oracle is ``scipy.integrate.quad``
of Eq. (10) with numpy moments of the raw rows.
"""

from __future__ import annotations

import decimal
import statistics
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from aucpr_stats import aucpr
from aucpr_stats.ties import TieTable
from aucpr_stats.estimators import DEFAULT_PR_ESTIMATOR, PR_ESTIMATORS

BOYD = (
    "lower_trapezoid",
    "upper_trapezoid",
    "average_precision",
    "interpolated_max",
    "interpolated_mean",
    "interpolated_median",
    "interpolated_convex",
    "binormal",
)
RANK_BASED = tuple(name for name in BOYD if name != "binormal")


# --------------------------------------------------------------- oracles
def empirical_points(y, s) -> list[tuple[Fraction, Fraction, int, int]]:
    """(recall, precision, TP, FP): the start point, then one per distinct score, highest first."""
    n_pos = sum(y)
    points = [(Fraction(0), Fraction(1), 0, 0)]
    for c in sorted(set(s), reverse=True):
        tp = sum(1 for yi, si in zip(y, s) if si >= c and yi)
        fp = sum(1 for yi, si in zip(y, s) if si >= c and not yi)
        points.append((Fraction(tp, n_pos), Fraction(tp, tp + fp), tp, fp))
    return points


def by_recall(points) -> dict[Fraction, list[Fraction]]:
    groups: dict[Fraction, list[Fraction]] = {}
    for r, p, *_ in points:
        groups.setdefault(r, []).append(p)
    return groups


def trapezoid_oracle(y, s, lower: bool) -> float:
    """Eq. (3) / (4) over the distinct recalls, the start point counting at recall 0."""
    groups = by_recall(empirical_points(y, s))
    recalls = sorted(groups)
    total = Fraction(0)
    for i in range(len(recalls) - 1):
        r1, r2 = recalls[i], recalls[i + 1]
        left = min(groups[r1]) if lower else max(groups[r1])
        total += (left + max(groups[r2])) / 2 * (r2 - r1)
    return float(total)


def _ln(x: Fraction) -> decimal.Decimal:
    return (decimal.Decimal(x.numerator) / decimal.Decimal(x.denominator)).ln()


def _dec(x: Fraction) -> decimal.Decimal:
    return decimal.Decimal(x.numerator) / decimal.Decimal(x.denominator)


def theorem1_area(r1: Fraction, p1: Fraction, r2: Fraction, p2: Fraction) -> decimal.Decimal:
    """The corrected integral below Theorem 1 with a, b of Theorem 1, exactly."""
    a = 1 + (1 - p2) * r2 / (p2 * (r2 - r1)) - (1 - p1) * r1 / (p1 * (r2 - r1))
    b = (1 - p1) * r1 / p1 - (1 - p2) * r1 * r2 / (p2 * (r2 - r1)) + (1 - p1) * r1**2 / (p1 * (r2 - r1))
    if a == 0:  # p' = r'/b: a straight line through the origin
        return _dec((r2**2 - r1**2) / (2 * b))
    return (_dec(a * r2) - _dec(b) * _ln(a * r2 + b) - _dec(a * r1) + _dec(b) * _ln(a * r1 + b)) / _dec(a * a)


def interpolated_oracle_from(points_by_recall: dict[Fraction, Fraction]) -> float:
    """Sum of Theorem 1 areas between consecutive recalls; a rectangle from recall 0."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        recalls = sorted(points_by_recall)
        total = decimal.Decimal(0)
        for i in range(len(recalls) - 1):
            r1, r2 = recalls[i], recalls[i + 1]
            p1, p2 = points_by_recall[r1], points_by_recall[r2]
            if r1 == 0:
                total += _dec(p2 * r2)
            else:
                total += theorem1_area(r1, p1, r2, p2)
        return float(total)


def interpolated_oracle(y, s, summary) -> float:
    groups = by_recall(empirical_points(y, s))
    return interpolated_oracle_from({r: summary(ps) for r, ps in groups.items()})


def convex_oracle(y, s) -> float:
    """ROC points with (0,0) and (1,1), Andrew's monotone chain for the upper hull, then PR space."""
    n_pos, n_neg = sum(y), len(y) - sum(y)
    roc = [(Fraction(fp, n_neg), Fraction(tp, n_pos), tp, fp) for _, _, tp, fp in empirical_points(y, s)]
    assert roc[0][:2] == (0, 0) and roc[-1][:2] == (1, 1)
    hull: list = []
    for point in roc:
        while len(hull) >= 2:
            (x1, y1, *_), (x2, y2, *_) = hull[-2], hull[-1]
            # pop the last vertex unless the chain turns right (clockwise) at it
            if (x2 - x1) * (point[1] - y1) - (y2 - y1) * (point[0] - x1) >= 0:
                hull.pop()
            else:
                break
        hull.append(point)
    pr: dict[Fraction, Fraction] = {}
    for fpr, tpr, tp, fp in hull:
        # PR space with the sample prevalence pi = n_pos / (n_pos + n_neg)
        pi = Fraction(n_pos, n_pos + n_neg)
        precision = Fraction(1) if tp + fp == 0 else pi * tpr / (pi * tpr + (1 - pi) * fpr)
        pr[tpr] = max(pr.get(tpr, Fraction(0)), precision)
    return interpolated_oracle_from(pr)


def average_precision_oracle(y, s) -> float:
    """Eq. (9): the mean over positives of the precision at a threshold admitting that positive."""
    precisions = []
    for yi, si in zip(y, s):
        if yi:
            admitted = [yj for yj, sj in zip(y, s) if sj >= si]
            precisions.append(Fraction(sum(admitted), len(admitted)))
    return float(sum(precisions) / len(precisions))


def binormal_oracle(y, s) -> float:
    """Eq. (10) by scipy quad, moments of the raw rows by numpy (sample sd, n - 1).

    The sign of the shift follows from Eq. (2); see test_binormal_sign_follows_eq2.
    """
    y, s = np.asarray(y, bool), np.asarray(s, float)
    mu_x, mu_y = s[~y].mean(), s[y].mean()
    sd_x, sd_y = s[~y].std(ddof=1), s[y].std(ddof=1)
    pi = y.mean()

    def integrand(t):
        fpr = special.ndtr(sd_y / sd_x * special.ndtri(t) - (mu_y - mu_x) / sd_x)
        return pi * t / (pi * t + (1 - pi) * fpr)

    return integrate.quad(integrand, 0, 1, epsabs=1e-13, epsrel=1e-12, limit=500)[0]


ORACLES = {
    "lower_trapezoid": lambda y, s: trapezoid_oracle(y, s, lower=True),
    "upper_trapezoid": lambda y, s: trapezoid_oracle(y, s, lower=False),
    "average_precision": average_precision_oracle,
    "interpolated_max": lambda y, s: interpolated_oracle(y, s, max),
    "interpolated_mean": lambda y, s: interpolated_oracle(y, s, statistics.mean),
    "interpolated_median": lambda y, s: interpolated_oracle(y, s, statistics.median),
    "interpolated_convex": convex_oracle,
    "binormal": binormal_oracle,
}


# ------------------------------------------------------------- helpers
def table_of(samples) -> TieTable:
    """A tie table with one segment per (y, s) sample, built by hand (not by the library)."""
    score, pos, neg, offsets = [], [], [], [0]
    for y, s in samples:
        for c in sorted(set(s), reverse=True):
            score.append(c)
            pos.append(sum(1 for yi, si in zip(y, s) if si == c and yi))
            neg.append(sum(1 for yi, si in zip(y, s) if si == c and not yi))
        offsets.append(len(score))
    return TieTable(score, pos, neg, offsets)


def random_sample(rng, heavy_ties: bool):
    n = int(rng.integers(2, 36))
    y = rng.random(n) < rng.uniform(0.15, 0.7)
    y[rng.choice(n, 2, replace=False)] = [True, False]
    shift = rng.uniform(-0.5, 2.0)
    if heavy_ties:
        s = np.round(rng.normal(size=n) + shift * y).astype(float)
    else:
        s = np.round(rng.normal(size=n) + shift * y, 6)
    return [bool(v) for v in y], [float(v) for v in s]


def samples(seed: int, count: int, heavy_ties: bool):
    rng = np.random.default_rng(seed)
    return [random_sample(rng, heavy_ties) for _ in range(count)]


# --------------------------------------------------------------- tests
def test_registry_has_the_eight_and_default():
    assert set(BOYD) <= set(PR_ESTIMATORS)
    assert DEFAULT_PR_ESTIMATOR in ("lower_trapezoid", "average_precision", "interpolated_median")


@pytest.mark.parametrize("heavy_ties", [False, True])
@pytest.mark.parametrize("name", RANK_BASED)
def test_matches_brute_force(name, heavy_ties):
    """The oracles are the literal conventions of section 3.1: ``ties="published"``."""
    data = samples(11 + heavy_ties, 120, heavy_ties)
    got = PR_ESTIMATORS[name].under("published")(table_of(data))  # all samples at once, one segment each
    expected = [ORACLES[name](y, s) for y, s in data]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("heavy_ties", [False, True])
def test_binormal_matches_quad_of_eq10(heavy_ties):
    data = [(y, s) for y, s in samples(5 + heavy_ties, 40, heavy_ties)
            if sum(y) >= 2 and len(y) - sum(y) >= 2 and np.std([v for v, t in zip(s, y) if not t]) > 0]
    got = PR_ESTIMATORS["binormal"](table_of(data))
    expected = [binormal_oracle(y, s) for y, s in data]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-8)


def test_binormal_sign_follows_eq2():
    """Eq. (10) must equal Eq. (2), theta = int Prec(c) dP(Y <= c), for the fitted normals."""
    from aucpr_stats.estimators.binormal import binormal_area

    for mu_y, sd_y, pi in [(1.0, 1.0, 0.1), (2.5, 0.5, 0.3), (0.3, 2.0, 0.5), (-0.5, 1.5, 0.2)]:
        def integrand(c):
            recall, fpr = stats.norm.sf(c, mu_y, sd_y), stats.norm.sf(c)
            if recall == 0:
                return 0.0
            return pi * recall / (pi * recall + (1 - pi) * fpr) * stats.norm.pdf(c, mu_y, sd_y)

        eq2 = integrate.quad(integrand, mu_y - 12 * sd_y, mu_y + 12 * sd_y, epsabs=1e-13, limit=500)[0]
        assert binormal_area(mu_y, sd_y, pi) == pytest.approx(eq2, abs=1e-8)


def test_binormal_area_accuracy_against_quad():
    """The quadrature is accurate to 1e-8 over sd ratios 0.001-1000, shifts -4..10, prevalences 0.005-0.99."""
    from scipy.special import expit, log_ndtr, logit

    from aucpr_stats.estimators.binormal import binormal_area

    rng = np.random.default_rng(3)
    d = rng.uniform(-4, 10, 100)
    k = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), 100))
    pi = np.exp(rng.uniform(np.log(0.005), np.log(0.99), 100))
    d, k, pi = np.append(d, [0, 2, 1]), np.append(k, [1, 0, 50]), np.append(pi, [0.5, 0.3, 0.01])
    got = binormal_area(d, k, pi)
    for i in range(d.size):
        # Eq. (10) after t = Phi(z), in log space so that no tail underflows
        def f(z):
            density = np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
            return density * expit(logit(pi[i]) + log_ndtr(z) - log_ndtr(k[i] * z - d[i]))

        # quad on pieces cut where either normal term changes (z, and k z - d)
        cuts = np.linspace(-8, 8, 17)
        if k[i] > 0:
            cuts = np.concatenate([cuts, (np.linspace(-8, 8, 17) + d[i]) / k[i]])
        edges = np.unique(np.clip(np.concatenate([[-40, 40], cuts]), -40, 40))
        expected = sum(integrate.quad(f, lo, hi, epsabs=1e-16, epsrel=1e-13, limit=200)[0]
                       for lo, hi in zip(edges[:-1], edges[1:]))
        assert got[i] == pytest.approx(expected, abs=1e-8), (d[i], k[i], pi[i])
    assert got[-3] == pytest.approx(0.5, abs=1e-12)  # identical classes: precision pi throughout


def test_binormal_is_nan_without_a_fitted_model():
    # one positive (no sample sd), and negatives all tied (sd_x = 0)
    t = TieTable([3.0, 2.0, 1.0, 5.0, 4.0, 1.0], [1, 0, 0, 1, 1, 0], [0, 2, 1, 0, 0, 3], [0, 3, 6])
    assert np.isnan(PR_ESTIMATORS["binormal"](t)).all()


def test_perfect_separation_and_constant_scores():
    perfect = pl.DataFrame({"y": [1, 1, 0, 0, 0], "s": [5.0, 4, 3, 2, 1]})
    frame = aucpr(perfect, "y", "s", estimator=list(BOYD)).to_frame()
    got = dict(zip(frame["estimator"], frame["estimate"]))
    for name in ("lower_trapezoid", "upper_trapezoid", "average_precision", "interpolated_max",
                 "interpolated_convex"):
        assert got[name] == 1.0
    constant = pl.DataFrame({"y": [1, 0, 0, 1, 0], "s": [1.0] * 5})
    frame = aucpr(constant, "y", "s", estimator=list(RANK_BASED), ties="published").to_frame()
    got = dict(zip(frame["estimator"], frame["estimate"]))
    assert got["average_precision"] == pytest.approx(0.4, abs=1e-15)
    # published: one threshold, points (0, 1) and (1, 0.4) joined by a straight line
    assert got["lower_trapezoid"] == pytest.approx(0.7, abs=1e-15)
    assert got["interpolated_max"] == pytest.approx(0.4, abs=1e-15)
    # interpolated ties (the default): every nonparametric estimator gives the prevalence
    frame = aucpr(constant, "y", "s", estimator=[n for n in PR_ESTIMATORS if n not in ("binormal",
                                                                                       "expected_average_precision")]
                  ).to_frame()
    for name, value in zip(frame["estimator"], frame["estimate"]):
        assert value == pytest.approx(0.4, abs=1e-15), name


def test_negatives_on_top_give_points_at_zero():
    # scores: a negative on top, so the curve has (0, 1) then (0, 0)
    y, s = [False, True, False, True], [4.0, 3.0, 2.0, 1.0]
    t = table_of([(y, s)])
    assert PR_ESTIMATORS["lower_trapezoid"](t)[0] == pytest.approx(trapezoid_oracle(y, s, True), abs=1e-15)
    # p_min at recall 0 is 0: the first trapezoid is (0 + 1/2)/2 * 1/2, then (1/3 + 1/2)/2 * 1/2
    assert trapezoid_oracle(y, s, True) == pytest.approx(1 / 8 + (1 / 3 + 1 / 2) / 4)


def test_all_segments_at_once_equal_each_alone():
    data = samples(21, 60, heavy_ties=True) + samples(22, 60, heavy_ties=False)
    table = table_of(data)
    for name in BOYD:
        together = PR_ESTIMATORS[name](table)
        alone = np.array([PR_ESTIMATORS[name](table.segment(k))[0] for k in range(table.n_segments)])
        np.testing.assert_allclose(together, alone, rtol=0, atol=1e-15)


def test_zero_count_rows_change_nothing():
    rng = np.random.default_rng(8)
    data = samples(31, 50, heavy_ties=True)
    table = table_of(data)
    # insert rows with pos = neg = 0 (as a bootstrap draw makes them): at random
    # places, including first and last rows of segments
    score, pos, neg, offsets = [], [], [], [0]
    for k in range(table.n_segments):
        rows = range(table.offsets[k], table.offsets[k + 1])
        for i in rows:
            if rng.random() < 0.5 or i == rows[0]:
                score.append(table.score[i] + 0.5)
                pos.append(0)
                neg.append(0)
            score.append(table.score[i])
            pos.append(table.pos[i])
            neg.append(table.neg[i])
        score.append(table.score[rows[-1]] - 0.5)
        pos.append(0)
        neg.append(0)
        offsets.append(len(score))
    padded = TieTable(score, pos, neg, offsets)
    for name in BOYD:
        np.testing.assert_allclose(PR_ESTIMATORS[name](padded), PR_ESTIMATORS[name](table), rtol=0, atol=1e-15)


def test_all_gives_one_row_per_group_and_estimator(frame_kind):
    from .conftest import as_polars, make_frame

    rng = np.random.default_rng(4)
    n = 300
    y = rng.random(n) < 0.3
    s = np.round(rng.normal(size=n) + y, 1)
    g = rng.integers(0, 3, n)
    frame = as_polars(aucpr(make_frame({"y": y, "s": s, "g": g}, frame_kind), "y", "s", by="g",
                            estimator="all", ties="published").to_frame())
    assert frame.height == 3 * len(PR_ESTIMATORS)
    assert frame.select("g", "estimator").unique().height == frame.height
    for k in range(3):
        sub = frame.filter(pl.col("g") == k)
        yk, sk = [bool(v) for v in y[g == k]], [float(v) for v in s[g == k]]
        for name in BOYD:
            got = sub.filter(pl.col("estimator") == name)["estimate"][0]
            assert got == pytest.approx(ORACLES[name](yk, sk), abs=1e-8 if name == "binormal" else 1e-12)


rows_strategy = st.lists(st.tuples(st.booleans(), st.integers(-6, 6)), min_size=2, max_size=40).filter(
    lambda rows: any(r[0] for r in rows) and not all(r[0] for r in rows)
)


@settings(max_examples=60, deadline=None)
@given(rows=rows_strategy, seed=st.integers(0, 2**32 - 1))
def test_row_order_and_monotone_transforms_change_nothing(rows, seed):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float)
    perm = np.random.default_rng(seed).permutation(len(rows))
    base = aucpr(pl.DataFrame({"y": y, "s": s}), "y", "s", estimator=list(BOYD)).estimates[0]
    shuffled = aucpr(pl.DataFrame({"y": y[perm], "s": s[perm]}), "y", "s", estimator=list(BOYD)).estimates[0]
    np.testing.assert_array_equal(base, shuffled)  # NaN (binormal unfitted) equals NaN here
    for transform in (lambda x: np.exp(x / 3.0), lambda x: x**3 + 2 * x, lambda x: np.arctan(x) * 10 - 3):
        moved = aucpr(pl.DataFrame({"y": y, "s": transform(s)}), "y", "s", estimator=list(RANK_BASED)).estimates[0]
        np.testing.assert_allclose(moved, base[: len(RANK_BASED)], rtol=0, atol=1e-14)


def test_binormal_area_equals_true_aucpr_of_the_binormal_scenario():
    """Eq. (10) at the true parameters is the scenario's true AUCPR (issue 7's Eq. 2 integral)."""
    from aucpr_stats.estimators.binormal import binormal_area
    from aucpr_stats.simulate import scenarios as simulate

    for mu, pi in [(1.0, 0.1), (2.0, 0.3), (0.5, 0.5), (1.0, 0.02)]:
        assert float(binormal_area(mu, 1.0, pi)) == pytest.approx(simulate.Binormal(mu=mu).true_aucpr(pi), abs=1e-9)
