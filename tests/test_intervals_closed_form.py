"""Binomial and logit intervals (Boyd et al. 2013, section 3.2) against direct calculations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from aucpr_stats.intervals.closed_form import binomial_interval, binomial_se, logit_interval, normal_quantile, t_quantile


def binomial_logit(estimate, n_pos, level):
    """Boyd et al.'s logit interval: the logit interval with the binomial standard error."""
    return logit_interval(estimate, binomial_se(estimate, n_pos), level)


def test_normal_quantile_is_the_two_sided_quantile():
    assert normal_quantile(0.95) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_quantile(0.90) == pytest.approx(1.6448536269514722, abs=1e-12)
    assert t_quantile(0.95, 9) == pytest.approx(2.262157162798205, abs=1e-9)
    assert np.isnan(t_quantile(0.95, 0))


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_binomial_matches_statsmodels_normal_proportion_interval(level):
    theta = np.array([0.05, 0.3, 0.5, 0.77, 0.999])
    n_pos = np.array([20, 7, 100, 33, 1000])
    lower, upper, se = binomial_interval(theta, n_pos, level)
    ref_lower, ref_upper = proportion_confint(theta * n_pos, n_pos, alpha=1 - level, method="normal")
    # statsmodels clips to [0, 1]; ours does not (Boyd et al. do not either)
    np.testing.assert_allclose(np.clip(lower, 0, 1), ref_lower, rtol=1e-12)
    np.testing.assert_allclose(np.clip(upper, 0, 1), ref_upper, rtol=1e-12)
    np.testing.assert_allclose(se, np.sqrt(theta * (1 - theta) / n_pos), rtol=1e-12)


def test_binomial_is_not_clipped_to_the_unit_interval():
    lower, upper, _ = binomial_interval([0.97, 0.02], [5, 5], 0.95)
    assert upper[0] > 1.0
    assert lower[1] < 0.0


def _expit(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def _logit_direct(theta: float, n: int, level: float) -> tuple[float, float]:
    """The paper's formula written out with the math module."""
    z = norm.ppf(1 - (1 - level) / 2)
    eta = math.log(theta / (1 - theta))
    tau = (n * theta * (1 - theta)) ** -0.5
    return _expit(eta - z * tau), _expit(eta + z * tau)


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_logit_matches_the_direct_formula(level):
    thetas = [0.01, 0.2, 0.5, 0.64, 0.93, 0.9999]
    ns = [500, 12, 40, 3, 77, 10000]
    lower, upper, se = binomial_logit(thetas, ns, level)
    for i, (theta, n) in enumerate(zip(thetas, ns)):
        lo, hi = _logit_direct(theta, n, level)
        assert lower[i] == pytest.approx(lo, rel=1e-10, abs=1e-14)
        assert upper[i] == pytest.approx(hi, rel=1e-10, abs=1e-14)
        assert se[i] == pytest.approx(math.sqrt(theta * (1 - theta) / n), rel=1e-12)


def test_logit_at_zero_and_one_is_the_limit_zero_one():
    lower, upper, se = binomial_logit([0.0, 1.0], [50, 50], 0.95)
    np.testing.assert_array_equal(lower, [0.0, 0.0])
    np.testing.assert_array_equal(upper, [1.0, 1.0])
    np.testing.assert_array_equal(se, [0.0, 0.0])
    # the limit: an estimate very close to 1 already gives nearly [0, 1]
    lo, hi = _logit_direct(1 - 1e-12, 50, 0.95)
    assert lo < 1e-6 and hi > 1 - 1e-9


def test_missing_inputs_give_nan():
    for kernel in (binomial_interval, binomial_logit):
        lower, upper, se = kernel([np.nan, 0.5], [10, 0], 0.95)
        assert np.isnan(lower).all() and np.isnan(upper).all() and np.isnan(se).all()


def test_kernels_broadcast_and_keep_shape():
    theta = np.full((3, 2), 0.4)
    n = np.array([[10], [20], [30]])
    for kernel in (binomial_interval, binomial_logit):
        lower, upper, se = kernel(theta, n, 0.95)
        assert lower.shape == upper.shape == se.shape == (3, 2)
        assert (np.diff(upper - lower, axis=0) < 0).all()  # more positives, narrower


@settings(max_examples=200, deadline=None)
@given(theta=st.floats(0.0, 1.0), n=st.integers(1, 10**6), level=st.floats(0.5, 0.999))
def test_logit_bounds_stay_in_unit_interval_and_cover_the_estimate(theta, n, level):
    lower, upper, _ = binomial_logit([theta], [n], level)
    assert 0.0 <= lower[0] <= theta <= upper[0] <= 1.0
    b_lower, b_upper, _ = binomial_interval([theta], [n], level)
    assert b_lower[0] <= theta <= b_upper[0]
    assert b_upper[0] - theta == pytest.approx(theta - b_lower[0], abs=1e-12)  # symmetric
