"""Tie blocks holding both classes: against averages over every order of the tied rows.

Oracles: the exact mean over all distinct orders of the rows of every tie
block (small inputs), a Monte Carlo mean over random tie-breaks (larger
inputs), ``scipy.integrate.quad`` for the crossing's mean precision, and the
prevalence for a constant score.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from aucpr_stats import aucpr, pr_curve
from aucpr_stats.estimators import PR_ESTIMATORS
from aucpr_stats.estimators.tie_blocks import crossing_precision, expected_average_precision, harmonic_difference
from aucpr_stats.exceptions import InputError
from aucpr_stats.tables import tie_table_from_sorted

NONPARAMETRIC = [name for name in PR_ESTIMATORS if name not in ("binormal", "expected_average_precision")]


def table(y, s):
    y, s = np.asarray(y, dtype=bool), np.asarray(s, dtype=float)
    order = np.lexsort((y, -s))
    return tie_table_from_sorted(np.zeros(y.size, dtype=np.int64), s[order], y[order], 1)


def every_order(y, s):
    """Each distinct order of the labels within every tie block, ties then broken (equally likely)."""
    y, s = np.asarray(y, dtype=bool), np.asarray(s, dtype=float)
    blocks = [sorted(set(itertools.permutations(y[s == v].tolist()))) for v in sorted(set(s), reverse=True)]
    for combo in itertools.product(*blocks):
        labels = [label for block in combo for label in block]
        yield np.array(labels), -np.arange(len(labels), dtype=float)


small_samples = st.lists(st.tuples(st.booleans(), st.integers(0, 2)), min_size=2, max_size=8).filter(
    lambda rows: any(r[0] for r in rows) and not all(r[0] for r in rows))


@settings(max_examples=120, deadline=None)
@given(rows=small_samples)
def test_expected_average_precision_is_the_mean_over_every_order_of_the_ties(rows):
    y = [r[0] for r in rows]
    s = [float(r[1]) for r in rows]
    published = PR_ESTIMATORS["average_precision"].under("published")
    brute = np.mean([published(table(yy, ss))[0] for yy, ss in every_order(y, s)])
    assert expected_average_precision(table(y, s))[0] == pytest.approx(brute, abs=1e-12)


def test_expected_average_precision_of_a_constant_score_is_the_random_ranking_baseline():
    # n positives among N rows in one block: (n-1)/(N-1) + H_N (N-n) / (N (N-1))
    for n, big_n in ((1, 2), (3, 10), (10, 100), (50, 5000)):
        t = table([True] * n + [False] * (big_n - n), [0.0] * big_n)
        h = sum(1 / i for i in range(1, big_n + 1))
        expected = (n - 1) / (big_n - 1) + h * (big_n - n) / (big_n * (big_n - 1))
        assert expected_average_precision(t)[0] == pytest.approx(expected, rel=1e-12)


def test_harmonic_difference_is_exact_far_from_the_origin():
    from fractions import Fraction

    for c in (0, 1, 63, 64, 10**3, 10**6, 10**9):
        for d in (1, 2, 50):
            exact = float(sum(Fraction(1, c + i) for i in range(1, d + 1)))
            assert harmonic_difference(c, d) == pytest.approx(exact, rel=1e-14)


@pytest.mark.parametrize("a,f,b,n", [(3, 2, 4, 5), (0, 5, 2, 3), (100, 1000, 1, 1), (10**6, 10**6, 3, 4),
                                     (1, 0, 1, 1000), (5, 5, 10**6, 10**6)])
def test_crossing_precision_is_the_mean_precision_along_the_straight_roc_segment(a, f, b, n):
    quad = integrate.quad(lambda t: (a + b * t) / (a + f + (b + n) * t), 0, 1, epsabs=0, epsrel=1e-13)[0]
    assert crossing_precision(a, f, b, n) == pytest.approx(quad, rel=1e-12)
    assert crossing_precision(0, 0, b, n) == b / (b + n)  # a block at the top: its own precision


@pytest.mark.parametrize("prevalence", [0.02, 0.1, 0.5])
def test_a_constant_score_gives_the_prevalence_for_every_nonparametric_estimator(prevalence):
    n_pos = max(1, round(500 * prevalence))
    df = pl.DataFrame({"y": [1] * n_pos + [0] * (500 - n_pos), "s": [3.0] * 500})
    frame = aucpr(df, "y", "s", estimator=NONPARAMETRIC).to_frame()
    for name, value in zip(frame["estimator"], frame["estimate"]):
        assert value == pytest.approx(n_pos / 500, abs=1e-15), name


def test_without_ties_across_classes_interpolate_and_published_agree():
    rng = np.random.default_rng(5)
    for trial in range(40):
        n = int(rng.integers(3, 300))
        y = rng.random(n) < rng.uniform(0.05, 0.7)
        y[:2] = [True, False]
        s = np.round(rng.normal(size=n) + y, 1)
        # move every negative off the positives' values: ties stay within a class
        s = np.where(y, s, s + 0.05)
        t = table(y, s)
        assert not ((t.pos > 0) & (t.neg > 0)).any()
        for name in PR_ESTIMATORS:
            record = PR_ESTIMATORS[name]
            assert record(t)[0] == record.under("published")(t)[0], name


def test_a_mixed_top_block_starts_the_curve_at_its_precision():
    # the top block holds 1 positive and 3 negatives, then 2 positives alone
    y = [True, False, False, False, True, True, False]
    s = [5.0, 5, 5, 5, 4, 4, 1]
    t = table(y, s)
    # first piece: recall 0 -> 1/3 at precision 1/4 (a rectangle); then the pure-positive block as published
    p1, p2 = 1 / 4, 3 / 6
    lower = PR_ESTIMATORS["lower_trapezoid"]
    assert lower(t)[0] == pytest.approx(p1 / 3 + (p1 + p2) / 2 * (2 / 3), abs=1e-15)
    assert lower.under("published")(t)[0] == pytest.approx((1 + p1) / 2 / 3 + (p1 + p2) / 2 * (2 / 3), abs=1e-15)
    curve = pr_curve(pl.DataFrame({"y": y, "s": s}), "y", "s")
    start = curve.evaluate([0.0, 0.1], method="interpolated")["precision"].to_list()
    assert start == pytest.approx([p1, p1], abs=1e-15)


def _random_tie_break_mean(record, y, s, rng, draws=100):
    return np.mean([record(table(y, s + rng.random(s.size) * 1e-3))[0] for _ in range(draws)])


def test_interpolated_ties_approach_the_mean_over_random_orders_and_published_ones_do_not():
    """An ordinal (5-level) score: measured |interpolate - random-order mean| shrinks like 1/n_pos.

    At 400 positives it is below 0.01 for the trapezoids, average precision and
    the threshold trapezoid (docs/estimators.md has the table), while the
    published lower trapezoid stays about 0.07 above.
    """
    rng = np.random.default_rng(1)
    n_pos, n = 400, 2000
    y = np.zeros(n, dtype=bool)
    y[:n_pos] = True
    s = np.floor(np.clip(rng.normal(size=n) + 0.8 * y, -2, 2) + 2.5)
    t = table(y, s)
    for name in ("lower_trapezoid", "upper_trapezoid", "average_precision", "threshold_trapezoid",
                 "interpolated_median"):
        brute = _random_tie_break_mean(PR_ESTIMATORS[name].under("published"), y, s, rng, draws=40)
        assert abs(PR_ESTIMATORS[name](t)[0] - brute) < 0.01, name
    brute = _random_tie_break_mean(PR_ESTIMATORS["lower_trapezoid"].under("published"), y, s, rng, draws=40)
    assert PR_ESTIMATORS["lower_trapezoid"].under("published")(t)[0] - brute > 0.04


def test_ties_option_is_checked_and_kept_for_intervals():
    df = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [2.0, 2, 1, 1, 1, 0]})
    with pytest.raises(InputError, match=r"`ties` must be one of \['interpolate', 'published'\]; got 'random'"):
        aucpr(df, "y", "s", ties="random")
    published = aucpr(df, "y", "s", estimator="average_precision", ties="published")
    interpolated = aucpr(df, "y", "s", estimator="average_precision")
    assert published.estimate != interpolated.estimate
    # per_positive reads the contributions of the same convention as the estimate
    for result in (published, interpolated):
        ci = pl.from_pandas(result.conf_int(method="per_positive")) if not isinstance(
            result.conf_int(method="per_positive"), pl.DataFrame) else result.conf_int(method="per_positive")
        assert ci["estimate"][0] == result.estimate


def split_tie_oracle(y, s, beta):
    """Precision at recall beta on the straight ROC path across each tie block (a loop over distinct scores)."""
    y, s = np.asarray(y, dtype=bool), np.asarray(s, dtype=float)
    n_pos = int(y.sum())
    target = n_pos * beta
    tp = fp = 0
    for value in sorted(set(s), reverse=True):
        b, n = int((y & (s == value)).sum()), int((~y & (s == value)).sum())
        if b and tp + b >= target:
            share = (target - tp) / b
            if target == 0:
                return b / (b + n) if fp == 0 else 0.0
            return target / (target + fp + share * n)
        tp, fp = tp + b, fp + n
    return n_pos / len(y)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(4, 40), seed=st.integers(0, 10_000), levels=st.integers(1, 6),
       beta=st.lists(st.one_of(st.just(0.0), st.floats(1e-9, 1)), min_size=1, max_size=6))
def test_interpolated_ties_curve_follows_the_straight_roc_path_across_blocks(n, seed, levels, beta):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    y[0], y[1] = True, False
    s = rng.integers(0, levels, n).astype(float)
    curve = pr_curve(pl.DataFrame({"y": y, "s": s}), "y", "s")
    beta = np.array(beta)
    expected = [split_tie_oracle(y, s, b) for b in beta]
    for method in ("step", "interpolated"):
        got = curve.evaluate(beta, method=method)["precision"].to_numpy()
        if method == "step":  # at a jump Eq. (3) reads the next step (right-continuous); elsewhere the same
            # (within 1e-9 of a jump counts as the jump: step_quantile_rank's tolerance)
            inside = [abs(y.sum() * b - round(y.sum() * b)) > 1e-8 or levels == 1 for b in beta]
            got, want = got[inside], np.array(expected)[inside]
        else:
            want = np.array(expected)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_a_constant_scores_curve_and_band_read_the_prevalence():
    df = pl.DataFrame({"y": [1] * 30 + [0] * 270, "s": [0.5] * 300})
    curve = pr_curve(df, "y", "s")
    for method in ("step", "interpolated"):
        values = curve.evaluate(np.linspace(0, 1, 11), method=method)["precision"].to_numpy()
        np.testing.assert_allclose(values, 0.1, rtol=1e-12)
    for method in ("bootstrap", "smoothed_bootstrap"):
        band = curve.band(method=method, n_boot=300, seed=1, grid=21).to_polars()
        assert (band["lower"] <= 0.1).all() and (band["upper"] >= 0.1).all(), method
        assert (band["upper"] < 1).all(), method
    published = pr_curve(df, "y", "s", ties="published").band(method="bootstrap", n_boot=300, seed=1).to_polars()
    assert (published["lower"] == 1).all()  # the literal Eq. (3): tied negatives never counted
