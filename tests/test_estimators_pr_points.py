"""PR points, Davis-Goadrich interpolation and area, and the vectorised ROC hull."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

from aucpr_stats.ties import TieTable
from aucpr_stats.estimators import convex
from aucpr_stats.estimators.pr_points import dg_area, dg_interpolate, pr_point_counts, pr_points


def theorem1(r1, p1, r2, p2, r):
    """Eq. (5) with a and b exactly as printed in Theorem 1."""
    a = 1 + (1 - p2) * r2 / (p2 * (r2 - r1)) - (1 - p1) * r1 / (p1 * (r2 - r1))
    b = (1 - p1) * r1 / p1 - (1 - p2) * r1 * r2 / (p2 * (r2 - r1)) + (1 - p1) * r1**2 / (p1 * (r2 - r1))
    return r / (a * r + b)


def quad_area(r1, p1, r2, p2):
    return integrate.quad(lambda r: float(dg_interpolate(r1, p1, r2, p2, r)), r1, r2,
                          epsabs=1e-14, epsrel=1e-13, limit=200)[0]


def test_pr_points_match_thresholds_between_distinct_scores():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(2, 25))
        y = rng.random(n) < 0.4
        y[:2] = [True, False]
        s = rng.integers(0, 5, n).astype(float)
        distinct = sorted(set(s), reverse=True)
        t = TieTable(distinct, [int(np.sum(y & (s == c))) for c in distinct],
                     [int(np.sum(~y & (s == c))) for c in distinct], [0, len(distinct)])
        recall, precision, offsets = pr_points(t)
        expected_r, expected_p = [0.0], [1.0]
        for c in distinct:
            admitted = s >= c
            expected_r.append(np.sum(y & admitted) / y.sum())
            expected_p.append(np.sum(y & admitted) / admitted.sum())
        assert offsets.tolist() == [0, len(distinct) + 1]
        np.testing.assert_allclose(recall, expected_r, rtol=0, atol=1e-15)
        np.testing.assert_allclose(precision, expected_p, rtol=0, atol=1e-15)


def test_pr_points_zero_rows_and_points_at_zero():
    t = TieTable([9.0, 5.0, 4.0, 3.0, 2.0, 7.0, 6.0], [0, 0, 0, 1, 0, 1, 0], [0, 2, 0, 1, 0, 0, 3], [0, 5, 7])
    recall, precision, offsets = pr_points(t)
    assert offsets.tolist() == [0, 3, 6]  # the zero rows 9.0, 4.0 and 2.0 create no point
    assert recall.tolist() == [0.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    assert precision.tolist() == [1.0, 0.0, 1 / 4, 1.0, 1.0, 0.25]
    tp, fp, _ = pr_point_counts(t)
    with pytest.raises(ValueError):
        tp[0] = 5  # shared between estimators, so read-only


def test_interpolation_equals_theorem1_and_hits_end_points():
    rng = np.random.default_rng(1)
    r1, r2 = np.sort(rng.uniform(0.01, 1, (2, 500)), axis=0)
    p1, p2 = rng.uniform(0.01, 1, (2, 500))
    r = r1 + rng.random(500) * (r2 - r1)
    np.testing.assert_allclose(dg_interpolate(r1, p1, r2, p2, r), theorem1(r1, p1, r2, p2, r), rtol=1e-10)
    np.testing.assert_array_equal(dg_interpolate(r1, p1, r2, p2, r1), p1)
    np.testing.assert_array_equal(dg_interpolate(r1, p1, r2, p2, r2), p2)


def test_interpolation_is_a_straight_line_in_roc_space():
    # exact ROC points (fpr, tpr) at prevalence 0.2, in fractions
    pi = Fraction(1, 5)
    (s1, t1), (s2, t2) = (Fraction(1, 10), Fraction(3, 10)), (Fraction(1, 2), Fraction(9, 10))

    def to_pr(s, t):
        return t, pi * t / (pi * t + (1 - pi) * s)

    (r1, p1), (r2, p2) = to_pr(s1, t1), to_pr(s2, t2)
    for w in (Fraction(1, 4), Fraction(1, 2), Fraction(5, 6)):
        r, p = to_pr(s1 + w * (s2 - s1), t1 + w * (t2 - t1))
        assert float(dg_interpolate(float(r1), float(p1), float(r2), float(p2), float(r))) == \
            pytest.approx(float(p), abs=1e-15)


@pytest.mark.parametrize("case", [
    (0.2, 0.5, 0.6, 0.5),          # equal precisions
    (0.2, 0.4, 0.6, 1.2 * 0.4),    # a = 0: r/p constant, straight line through the origin
    (0.2, 0.4, 0.6, 1.2 * 0.4 * (1 + 1e-9)),  # a tiny
    (0.0, 0.3, 0.5, 0.7),          # r1 = 0: rectangle at p2
    (0.0, 0.0, 0.5, 0.7),          # r1 = 0 and p1 = 0 (negatives on top)
    (0.1, 0.9, 1.0, 0.1),
    (1e-12, 0.9, 0.5, 0.2),        # r1 tiny
    (0.3, 0.5, 0.3 + 1e-9, 0.5000001),
    (0.1, 0.0, 0.5, 0.5),          # precision 0 at the left end
    (0.1, 0.5, 0.5, 0.0),          # precision 0 at the right end
    (0.2, 0.5, 0.4, 1.0),          # precision rising
    (0.4, 0.5, 0.4, 0.3),          # no width
])
def test_area_special_cases_against_quadrature(case):
    with np.errstate(all="raise"):
        area = float(dg_area(*case))
    assert np.isfinite(area)
    assert area == pytest.approx(quad_area(*case), abs=1e-13)


def test_area_closed_forms():
    assert float(dg_area(0.0, 0.0, 0.5, 0.8)) == 0.5 * 0.8
    assert float(dg_area(0.25, 0.6, 0.75, 0.6)) == pytest.approx(0.5 * 0.6, abs=1e-16)
    # a = 0: p = r / b, area (r2^2 - r1^2) / (2 b) with b = r1 / p1
    assert float(dg_area(0.2, 0.4, 0.6, 1.2)) == pytest.approx((0.36 - 0.04) / (2 * 0.5), abs=1e-15)


def test_area_against_quadrature_random():
    rng = np.random.default_rng(2)
    r1, r2 = np.sort(rng.random((2, 300)), axis=0)
    p1, p2 = rng.random((2, 300))
    got = dg_area(r1, p1, r2, p2)
    for i in range(300):
        assert got[i] == pytest.approx(quad_area(r1[i], p1[i], r2[i], p2[i]), abs=1e-13)


def hull_oracle(points):
    """Andrew's monotone chain, upper hull, popping on or below the chord."""
    hull = []
    for p in points:
        while len(hull) >= 2 and ((hull[-1][0] - hull[-2][0]) * (p[1] - hull[-2][1])
                                  - (hull[-1][1] - hull[-2][1]) * (p[0] - hull[-2][0])) >= 0:
            hull.pop()
        hull.append(p)
    return hull


def random_chains(rng, count):
    xs, ys, offsets = [], [], [0]
    for _ in range(count):
        n = int(rng.integers(1, 40))
        steps = rng.integers(0, 3, (n, 2))
        steps[steps.sum(axis=1) == 0] = [1, 0]
        x, y = np.cumsum(steps[:, 0]), np.cumsum(steps[:, 1])
        xs.append(np.append(0, x))
        ys.append(np.append(0, y))
        offsets.append(offsets[-1] + n + 1)
    return np.concatenate(xs), np.concatenate(ys), np.array(offsets)


@pytest.mark.parametrize("max_rounds", [64, 1, 2])
def test_upper_hull_matches_monotone_chain(max_rounds):
    # max_rounds 1 and 2 force the sequential finish on most segments
    rng = np.random.default_rng(3)
    x, y, offsets = random_chains(rng, 300)
    got = convex.upper_hull(x, y, offsets, max_rounds=max_rounds)
    expected = []
    for k in range(offsets.size - 1):
        lo, hi = offsets[k], offsets[k + 1]
        points = [(int(x[i]), int(y[i]), i) for i in range(lo, hi)]
        expected += [p[2] for p in hull_oracle(points)]
    assert got.tolist() == expected


def test_upper_hull_long_run_under_an_edge():
    # a concave arc lying under the chord to a final steep jump is peeled one
    # point per round; the sequential finish must give the exact hull
    n = 3000
    x = np.arange(n + 1, dtype=np.int64)
    y = (np.sqrt(x) * 100).astype(np.int64)
    x = np.append(x, n + 1)
    y = np.append(y, y[-1] + 10**6)
    points = [(int(a), int(b), i) for i, (a, b) in enumerate(zip(x, y))]
    got = convex.upper_hull(x, y, np.array([0, x.size]))
    assert got.tolist() == [p[2] for p in hull_oracle(points)]


def test_shared_points_follow_the_table():
    """Estimators on one table share its PR points; another table never gets them."""
    import gc
    import weakref

    from aucpr_stats.estimators import PR_ESTIMATORS

    a = TieTable([2.0, 1.0], [1, 0], [0, 1], [0, 2])            # perfect separation
    b = TieTable([2.0, 1.0], [0, 1], [1, 0], [0, 2])            # reversed
    for _ in range(2):
        assert PR_ESTIMATORS["lower_trapezoid"](a)[0] == 1.0
        assert PR_ESTIMATORS["lower_trapezoid"](b)[0] == pytest.approx((0 + 0.5) / 2)  # p_min(0) = 0
    # a copy with equal contents is another table: computed afresh, same value
    c = TieTable(a.score, a.pos, a.neg, a.offsets)
    assert PR_ESTIMATORS["interpolated_max"](c)[0] == PR_ESTIMATORS["interpolated_max"](a)[0]
    # the memo holds no strong reference: the table can be collected
    ref = weakref.ref(c)
    del c
    gc.collect()
    assert ref() is None
