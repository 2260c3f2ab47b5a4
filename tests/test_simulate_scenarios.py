"""Scenarios of Boyd et al. (2013) section 4: true curves, true areas, sampling.

Oracles: the areas published in the issue (from the paper's set-up), the
closed form of the offset-uniform area, an integral over thresholds built
from scipy.stats distributions (not from our survival functions), Monte
Carlo estimates, and scikit-learn's average precision on a very large sample.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import integrate, stats
from sklearn.metrics import average_precision_score

from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.simulate import SCENARIOS, Bibeta, Binormal, OffsetUniform, class_counts, get_scenario

# (negative distribution, positive distribution) from scipy.stats, written from the paper's text
REFERENCE = {
    "binormal": (stats.norm(0, 1), stats.norm(1, 1)),
    "bibeta": (stats.beta(2, 5), stats.beta(5, 2)),
    "offset_uniform": (stats.uniform(0, 1), stats.uniform(0.5, 1)),
}
PUBLISHED = {"binormal": 0.2928, "bibeta": 0.8096, "offset_uniform": 0.6579}


def reference_precision(name, c, prevalence):
    neg, pos = REFERENCE[name]
    tp = prevalence * pos.sf(c)
    return tp / (tp + (1 - prevalence) * neg.sf(c))


def reference_area(name, prevalence):
    """Eq. (2) integrated over the threshold c against the density of Y."""
    neg, pos = REFERENCE[name]
    lo, hi = pos.support()
    if name == "binormal":  # finite range: the density beyond |c - 1| > 12 is below 1e-31
        lo, hi = -11.0, 13.0
    f = lambda c: reference_precision(name, c, prevalence) * pos.pdf(c)  # noqa: E731
    if name == "offset_uniform":  # kink where X's support ends (c = 1)
        return sum(integrate.quad(f, a, b, epsabs=1e-13, epsrel=1e-12, limit=500)[0] for a, b in [(lo, 1.0), (1.0, hi)])
    return integrate.quad(f, lo, hi, epsabs=1e-13, epsrel=1e-12, limit=500)[0]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_true_area_matches_published_value(name):
    assert SCENARIOS[name].true_aucpr(0.1) == pytest.approx(PUBLISHED[name], abs=5e-5)


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("prevalence", [0.01, 0.1, 0.3, 0.5, 0.9])
def test_true_area_matches_integral_over_thresholds(name, prevalence):
    assert abs(SCENARIOS[name].true_aucpr(prevalence) - reference_area(name, prevalence)) < 1e-9


@pytest.mark.parametrize("prevalence", [0.05, 0.1, 0.5])
@pytest.mark.parametrize("gamma", [0.2, 0.5, 0.9])
def test_offset_uniform_area_closed_form(prevalence, gamma):
    # Prec = 1 for r < gamma; for r > gamma Prec = p r / (r - (1-p) gamma), integrated by hand
    p = prevalence
    k = (1 - p) * gamma
    exact = gamma + p * ((1 - gamma) + k * math.log((1 - k) / (gamma - k)))
    assert abs(OffsetUniform(gamma=gamma).true_aucpr(prevalence) - exact) < 1e-10


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_true_area_matches_monte_carlo_over_thresholds(name):
    # theta = E[Prec(c)], c ~ Y: importance-sampling reading of Eq. (2)
    rng = np.random.default_rng(7)
    c = REFERENCE[name][1].rvs(size=400_000, random_state=rng)
    values = reference_precision(name, c, 0.1)
    se = values.std() / math.sqrt(values.size)
    assert abs(values.mean() - SCENARIOS[name].true_aucpr(0.1)) < 4 * se


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_true_area_matches_average_precision_of_a_huge_sample(name):
    # average precision is consistent (Boyd et al. Fig. 4); at n = 400,000 its error is ~1e-3
    df = SCENARIOS[name].sample(400_000, 0.1, seed=3)
    ap = average_precision_score(df["outcome"].to_numpy(), df["score"].to_numpy())
    assert ap == pytest.approx(SCENARIOS[name].true_aucpr(0.1), abs=4e-3)


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("prevalence", [0.1, 0.4])
def test_true_curve_matches_threshold_parametrisation(name, prevalence):
    neg, pos = REFERENCE[name]
    lo, hi = pos.support()
    c = np.linspace(max(lo, -6), min(hi, 7), 301)[1:-1]
    recall = pos.sf(c)
    keep = recall > 1e-12
    expected = reference_precision(name, c[keep], prevalence)
    got = SCENARIOS[name].precision_at_recall(recall[keep], prevalence)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_true_curve_end_points_and_frame(name):
    curve = SCENARIOS[name].true_pr_curve(0.1, n_points=11)
    assert curve.columns == ["recall", "precision"]
    assert curve["precision"][0] == 1.0  # limit at recall 0
    # at recall 1 the threshold is the bottom of Y's support: X.sf there negatives are admitted
    x_admitted = REFERENCE[name][0].sf(REFERENCE[name][1].support()[0])
    assert curve["precision"][-1] == pytest.approx(0.1 / (0.1 + 0.9 * x_admitted))
    assert curve["precision"].is_sorted(descending=True)  # monotone likelihood ratio in all three


def test_true_curve_fpr_is_roc_curve():
    # binormal ROC: TPR = Phi(mu + Phi^{-1}(FPR))  <=>  FPR = Phi(Phi^{-1}(TPR) - mu)
    r = np.linspace(0.01, 0.99, 50)
    np.testing.assert_allclose(Binormal(mu=1.3).fpr_at_recall(r), stats.norm.cdf(stats.norm.ppf(r) - 1.3), rtol=1e-12)


def test_class_counts_round_half_up():
    assert class_counts(100, 0.1) == (10, 90)
    assert class_counts(1000, 0.1) == (100, 900)
    assert class_counts(25, 0.1) == (3, 22)  # 2.5 rounds up
    assert class_counts(15, 0.1) == (2, 13)  # 1.5 rounds up (not to even)
    with pytest.raises(InputError, match="both classes"):
        class_counts(4, 0.1)
    with pytest.raises(InputError, match="`prevalence`"):
        class_counts(100, 1.0)
    with pytest.raises(InputTypeError, match="`n_total`"):
        class_counts(100.0, 0.1)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_sample_counts_and_reproducibility(name):
    s = SCENARIOS[name]
    a = s.sample(250, 0.2, seed=11)
    b = s.sample(250, 0.2, seed=11)
    c = s.sample(250, 0.2, seed=12)
    assert isinstance(a, pl.DataFrame) and a.columns == ["outcome", "score"]
    assert a.height == 250 and int(a["outcome"].sum()) == 50
    assert a.equals(b) and not a.equals(c)
    g = np.random.default_rng(5)
    assert s.sample(50, 0.2, seed=g).height == 50  # a Generator is accepted


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_sample_arrays_shapes_and_distributions(name):
    s = SCENARIOS[name]
    pos, neg = s.sample_arrays(40, 500, 700, np.random.default_rng(2))
    assert pos.shape == (40, 500) and neg.shape == (40, 700)
    negd, posd = REFERENCE[name]
    assert stats.kstest(pos.ravel(), posd.cdf).pvalue > 1e-3
    assert stats.kstest(neg.ravel(), negd.cdf).pvalue > 1e-3
    again = s.sample_arrays(40, 500, 700, np.random.default_rng(2))
    np.testing.assert_array_equal(pos, again[0])


def test_parameters_are_validated():
    with pytest.raises(InputError, match="0 < a < b"):
        Bibeta(a=5, b=2)
    with pytest.raises(InputError, match="`mu`"):
        Binormal(mu=0)
    with pytest.raises(InputError, match="`gamma`"):
        OffsetUniform(gamma=-1)
    with pytest.raises(InputError, match="`scenario`"):
        get_scenario("normal")
    with pytest.raises(InputError, match="`recall`"):
        SCENARIOS["binormal"].precision_at_recall([1.5], 0.1)
    assert get_scenario("bibeta") is SCENARIOS["bibeta"]


def test_other_parameters_change_the_truth():
    # larger separation, larger area; and the paper's defaults are the defaults
    assert Binormal(mu=2).true_aucpr(0.1) > Binormal().true_aucpr(0.1)
    assert Binormal().mu == 1 and (Bibeta().a, Bibeta().b) == (2, 5) and OffsetUniform().gamma == 0.5


import warnings  # noqa: E402

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(["binormal", "bibeta", "offset_uniform"]),
       u=st.floats(0.05, 0.95), v=st.floats(0.05, 0.95), prevalence=st.floats(0.01, 0.9))
@example(kind="bibeta", u=0.05, v=0.05, prevalence=0.01)  # both densities singular, barely separated
@example(kind="offset_uniform", u=0.95, v=0.5, prevalence=0.5)  # gamma > 1: perfect separation, area 1
def test_true_area_for_any_parameters_matches_threshold_integral(kind, u, v, prevalence):
    # any valid parameters: the recall-domain quadrature equals an integral over thresholds
    # written with scipy.stats, and the area lies between the prevalence and 1
    if kind == "binormal":
        scenario, neg, pos = Binormal(mu=4 * u), stats.norm(0, 1), stats.norm(4 * u, 1)
        lo, hi, kinks = 4 * u - 13, 4 * u + 13, []
    elif kind == "bibeta":
        a, b = 0.5 + 3 * min(u, v), 0.5 + 3 * max(u, v) + 0.1
        scenario, neg, pos = Bibeta(a=a, b=b), stats.beta(a, b), stats.beta(b, a)
        lo, hi, kinks = 0.0, 1.0, []
    else:
        gamma = 1.2 * u
        scenario, neg, pos = OffsetUniform(gamma=gamma), stats.uniform(0, 1), stats.uniform(gamma, 1)
        lo, hi, kinks = gamma, 1 + gamma, [1.0] if gamma < 1 else []

    def f(c):
        tp = prevalence * pos.sf(c)
        fp = (1 - prevalence) * neg.sf(c)
        return (tp / (tp + fp) if tp + fp > 0 else 1.0) * pos.pdf(c)

    edges = [lo, *kinks, hi]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        reference = sum(integrate.quad(f, x, y, epsabs=1e-12, epsrel=1e-11, limit=500)[0]
                        for x, y in zip(edges[:-1], edges[1:]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no accuracy warning from our quadrature
        area = scenario.true_aucpr(prevalence)
    assert prevalence - 1e-12 <= area <= 1 + 1e-12
    assert abs(area - reference) < 1e-8
