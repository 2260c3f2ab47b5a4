"""Clémençon & Vayatis bands: the fast replicate kernel against a literal Algorithm 1, the pieces
against independent oracles, and the band's machinery (containment, 1/sqrt(n) widths, seeds, ESS)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import special

from aucpr_stats.curves import bands
from aucpr_stats.curves.bands import bootstrap_sups
from aucpr_stats.curves.smoothing import (
    ClassSample,
    default_bandwidth,
    default_p_tilde,
    pointwise_variance,
    smoothed_cdf_table,
    weighted_quantile,
)
from aucpr_stats.exceptions import LowEffectiveSampleSizeWarning
from aucpr_stats.tables import tie_table_from_sorted
from aucpr_stats.resample import Streams
from aucpr_stats.curves import pr_curve, pr_step
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.simulate import Binormal

from .conftest import as_polars, make_frame, result_frame_type


def class_sample(x) -> ClassSample:
    values, counts = np.unique(x, return_counts=True)
    return ClassSample(values, counts)


def eq3(pos, neg, beta):
    """Eq. (3) on raw arrays, from a full sort (the oracle of the replicate kernel)."""
    asc = np.sort(pos)
    n_pos, n_neg = pos.size, neg.size
    rank = n_pos - np.floor(n_pos * beta + 1e-9).astype(int)  # ceil(n_pos (1 - beta)), ascending
    t = np.where(rank > 0, asc[np.maximum(rank - 1, 0)], -np.inf)
    alpha = 1.0 - np.searchsorted(np.sort(neg), t, side="right") / n_neg
    return n_pos * beta / (n_pos * beta + n_neg * alpha)


def literal_algorithm_1(pos, neg, grid, h_pos, h_neg, p_tilde, n_boot, rng, smoothed=True):
    """Algorithm 1 step by step: draw n pairs (class ~ p_tilde), resample within the class, add
    N(0, h^2) noise (Remark 4), recompute Eq. (3) from the sorted sample, sup |R*|, weights gamma_n."""
    n = pos.size + neg.size
    p_hat = pos.size / n
    estimate = eq3(pos, neg, grid)
    sups, log_w = np.full(n_boot, np.nan), np.full(n_boot, -np.inf)
    for b in range(n_boot):
        k = rng.binomial(n, p_tilde) if smoothed else pos.size
        if k == 0 or k == n:
            continue
        p_star = rng.choice(pos, k) + (h_pos * rng.standard_normal(k) if smoothed else 0.0)
        n_star = rng.choice(neg, n - k) + (h_neg * rng.standard_normal(n - k) if smoothed else 0.0)
        sups[b] = math.sqrt(n) * np.max(np.abs(eq3(p_star, n_star, grid) - estimate))
        log_w[b] = k * math.log(p_hat / p_tilde) + (n - k) * math.log((1 - p_hat) / (1 - p_tilde))
    return sups, log_w, estimate


def weighted_cdf_distance(a, wa, b, wb):
    """Largest gap between two weighted empirical cdfs (the two-sample KS statistic).

    Values are rounded to 9 digits first: atoms computed along two routes differ in the last bits."""
    a, b = np.round(a, 9), np.round(b, 9)
    grid = np.unique(np.concatenate([a[wa > 0], b[wb > 0]]))

    def cdf(v, w):
        order = np.argsort(v)
        cum = np.concatenate([[0.0], np.cumsum(w[order])]) / w.sum()
        return cum[np.searchsorted(v[order], grid, side="right")]

    return float(np.max(np.abs(cdf(a, wa) - cdf(b, wb))))


def weights(log_w):
    w = np.zeros(log_w.size)
    ok = np.isfinite(log_w)
    w[ok] = np.exp(log_w[ok] - log_w[ok].max())
    return w


def binormal_frame(n, prevalence=0.1, seed=0):
    return Binormal(mu=1.0).sample(n, prevalence, seed=seed)


# ----------------------------------------------------- pieces vs oracles
def test_smoothed_cdf_table_matches_the_exact_kernel_sum():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(size=3000), np.round(rng.normal(2, 0.5, 500), 1), [9.0, -7.5]])
    sample = class_sample(x)
    h = default_bandwidth(sample)
    table = smoothed_cdf_table(sample.values, sample.counts, h)
    t = np.concatenate([rng.uniform(-9, 11, 1500), x[:300]])
    exact = (special.ndtr((t[:, None] - sample.values[None, :]) / h) @ sample.counts) / sample.n
    assert np.max(np.abs(table(t) - exact)) < 1e-4
    # the inverse lands where the exact cdf takes the requested value
    u = rng.uniform(0.001, 0.999, 500)
    q = table.inverse(u)
    back = (special.ndtr((q[:, None] - sample.values[None, :]) / h) @ sample.counts) / sample.n
    assert np.max(np.abs(back - u)) < 2e-4


def test_default_bandwidth_is_silvermans_rule():
    rng = np.random.default_rng(2)
    x = rng.gamma(2.0, size=777)
    q1, q3 = np.quantile(x, [0.25, 0.75], method="inverted_cdf")
    expected = 0.9 * min(np.std(x, ddof=1), (q3 - q1) / 1.349) * 777 ** (-0.2)
    assert default_bandwidth(class_sample(x)) == pytest.approx(expected, rel=1e-12)
    # no spread in the class: the pooled scale stands in; none at all: no smoothing
    assert default_bandwidth(class_sample(np.ones(10)), pooled_scale=2.0) == pytest.approx(0.9 * 2 * 10 ** -0.2)
    assert default_bandwidth(class_sample(np.ones(10))) == 0.0


def test_weighted_quantile_against_definitions():
    rng = np.random.default_rng(3)
    v = rng.normal(size=101)
    for q in (0.5, 0.9, 0.95):
        assert weighted_quantile(v, np.ones(101), q) == np.quantile(v, q, method="inverted_cdf")
    # integer weights are repeats
    w = rng.integers(0, 4, 101)
    for q in (0.3, 0.95):
        assert weighted_quantile(v, w.astype(float), q) == np.quantile(np.repeat(v, w), q, method="inverted_cdf")


def test_expected_ess_formula_matches_monte_carlo():
    n, n_pos = 300, 2
    p_tilde, predicted = default_p_tilde(n, n_pos)
    p_hat = n_pos / n
    assert p_tilde > p_hat  # with 2 positives in 300, replicates without one are common
    assert predicted > 1 - (1 - p_hat) ** n  # it beats p_tilde = p_hat
    rng = np.random.default_rng(4)
    k = rng.binomial(n, p_tilde, 200_000)
    log_w = k * math.log(p_hat / p_tilde) + (n - k) * math.log((1 - p_hat) / (1 - p_tilde))
    log_w[(k == 0) | (k == n)] = -np.inf
    w = weights(log_w)
    assert w.sum() ** 2 / np.dot(w, w) / k.size == pytest.approx(predicted, rel=0.03)
    # plenty of positives: the observed proportion, no weights
    assert default_p_tilde(100_000, 10_000) == (0.1, pytest.approx(1.0))


# ------------------------------------------------ replicate kernel vs literal
@pytest.mark.parametrize("smoothed", [True, False])
def test_fast_replicates_match_literal_algorithm_1(smoothed):
    rng = np.random.default_rng(5)
    pos, neg = rng.normal(1, 1, 40), rng.normal(0, 1, 260)
    grid = np.linspace(0.05, 0.95, 19)
    n_boot = 3000
    lit, lit_w, estimate = literal_algorithm_1(pos, neg, grid, 0.3, 0.2, 40 / 300, n_boot,
                                               np.random.default_rng(6), smoothed)
    fast, fast_w = bootstrap_sups(class_sample(pos), class_sample(neg), grid, estimate, smoothed=smoothed,
                                   h_pos=0.3, h_neg=0.2, p_tilde=40 / 300, n_boot=n_boot,
                                   rng=np.random.default_rng(7))
    # the sup has atoms (few positives near recall eps), so compare whole cdfs: the KS distance of two
    # independent samples of 3000 stays below 0.045 with probability > 0.99 when the laws agree
    lit_ok = np.isfinite(lit)
    assert weighted_cdf_distance(lit[lit_ok], weights(lit_w)[lit_ok], fast, weights(fast_w)) < 0.045


def test_importance_sampling_recovers_the_target_distribution():
    # sampling classes with p_tilde = 0.125 and reweighting by gamma_n gives the law under p_hat = 0.1
    rng = np.random.default_rng(8)
    pos, neg = rng.normal(1, 1, 40), rng.normal(0, 1, 360)
    grid = np.linspace(0.05, 0.95, 19)
    estimate = eq3(pos, neg, grid)
    common = dict(smoothed=True, h_pos=0.3, h_neg=0.2, n_boot=40_000)
    plain, plain_w = bootstrap_sups(class_sample(pos), class_sample(neg), grid, estimate, p_tilde=0.1,
                                     rng=np.random.default_rng(9), **common)
    tilted, tilted_w = bootstrap_sups(class_sample(pos), class_sample(neg), grid, estimate, p_tilde=0.125,
                                       rng=np.random.default_rng(10), **common)
    assert np.all(plain_w == 0)  # p_tilde = p_hat: gamma_n = 1
    w = weights(tilted_w)
    ess = w.sum() ** 2 / np.dot(w, w)
    # KS distance of the weighted law (effective size ess) to the target: well below 2 / sqrt(ess)
    assert weighted_cdf_distance(plain, np.ones(plain.size), tilted, w) < 2 / math.sqrt(ess)
    # without the weights the tilted replicates have another law
    assert weighted_cdf_distance(plain, np.ones(plain.size), tilted, np.ones(tilted.size)) > 4 / math.sqrt(ess)


def test_degenerate_weights_are_computed_in_log_space_and_warn():
    curve = pr_curve(binormal_frame(20_000), "outcome", "score")
    with pytest.warns(LowEffectiveSampleSizeWarning, match="effective sample size"):
        band = curve.band(p_tilde=0.5, n_boot=300, seed=1)
    # gamma_n spans thousands of orders of magnitude: still finite, a handful of replicates carry it
    assert np.isfinite(band.r_delta[0]) and 1.0 <= band.ess[0] < 10


# ------------------------------------------------------------ band machinery
@pytest.mark.parametrize("method", bands.BAND_METHODS)
def test_band_contains_the_empirical_curve(method, frame_kind):
    df = binormal_frame(1500, seed=2)
    site = np.where(np.arange(1500) % 3 == 0, "a", "b")
    frame = make_frame({"y": df["outcome"].to_numpy(), "s": df["score"].to_numpy(), "site": site}, frame_kind)
    curve = pr_curve(frame, "y", "s", by="site")
    band = curve.band(method=method, n_boot=200, seed=3, grid=41)
    out = band.to_frame()
    assert isinstance(out, result_frame_type(frame_kind))
    out = as_polars(out)
    assert out.columns == ["site", "method", "level", "recall", "estimate", "lower", "upper"]
    assert out.height == 2 * 41
    est, lo, hi = (out[c].to_numpy() for c in ("estimate", "lower", "upper"))
    assert np.all((lo <= est) & (est <= hi)) and np.all((lo >= 0) & (hi <= 1))
    assert np.all(hi > lo)
    # the estimate is Eq. (3) on the grid
    evaluated = as_polars(curve.evaluate(band.recall, method="step"))
    np.testing.assert_array_equal(est, evaluated["precision"].to_numpy())
    groups = as_polars(band.groups_frame())
    assert groups["site"].to_list() == ["a", "b"]
    if method == "pointwise":
        assert groups["r_delta"].is_nan().all() and groups["ess"].is_nan().all()
    else:
        # a sup-norm band has a constant half-width r(delta)/sqrt(n) wherever it is not clipped
        for k, site in enumerate(["a", "b"]):
            sub = out.filter(pl.col("site") == site)
            free = (sub["upper"] < 1) & (sub["lower"] > 0)
            half = (sub["upper"] - sub["estimate"]).filter(free).to_numpy()
            np.testing.assert_allclose(half, groups["half_width"][k], rtol=1e-9)
            assert groups["half_width"][k] == pytest.approx(band.r_delta[k] / math.sqrt(groups["n_pos"][k] + groups["n_neg"][k]))
        assert np.all(groups["ess"].to_numpy() == 200)  # p_tilde = p_hat (and none for the plain bootstrap)


@pytest.mark.parametrize("method", bands.BAND_METHODS)
def test_widths_shrink_like_one_over_root_n(method):
    half = []
    for n in (2000, 8000):
        frame = pl.concat([binormal_frame(n, seed=s).with_columns(sim=pl.lit(s)) for s in range(4)])
        band = pr_curve(frame, "outcome", "score", by="sim").band(method=method, n_boot=400, seed=n, grid=61)
        mid = slice(20, 41)  # recall 0.35..0.65, away from clipping
        half.append(np.mean((band.upper - band.lower)[:, mid]) / 2)
    assert 1.6 < half[0] / half[1] < 2.5  # sqrt(4) = 2


def test_same_seed_same_band_and_generators_accepted():
    curve = pr_curve(binormal_frame(800, seed=4), "outcome", "score")
    a = curve.band(n_boot=300, seed=11)
    b = curve.band(n_boot=300, seed=11)
    c = curve.band(n_boot=300, seed=np.random.default_rng(11))
    d = curve.band(n_boot=300, seed=12)
    np.testing.assert_array_equal(a.lower, b.lower)
    np.testing.assert_array_equal(a.lower, c.lower)
    assert a.r_delta[0] != d.r_delta[0]


def test_rare_positives_use_a_raised_p_tilde():
    rng = np.random.default_rng(12)
    y = np.zeros(400, bool)
    y[:2] = True
    s = rng.normal(size=400) + 2 * y
    band = pr_curve(pl.DataFrame({"y": y, "s": s}), "y", "s").band(n_boot=2000, seed=1)
    assert band.p_tilde[0] == default_p_tilde(400, 2)[0] > 2 / 400
    # P(no positive) = (1 - 1/200)^400 = 0.13 at p_hat; the raised p_tilde keeps more than that
    assert 0.87 * 2000 < band.ess[0] < 2000


def test_degenerate_group_gets_nan_band():
    df = pl.DataFrame({"y": [1, 0, 1, 0, 0, 0], "s": [0.9, 0.1, 0.8, 0.3, 0.2, 0.4], "g": [1, 1, 1, 1, 2, 2]})
    with pytest.warns(UserWarning):
        curve = pr_curve(df, "y", "s", by="g")
    band = curve.band(n_boot=50, seed=1)
    assert np.isnan(band.lower[1]).all() and np.isfinite(band.lower[0]).all()


def test_band_argument_validation():
    curve = pr_curve(binormal_frame(300), "outcome", "score")
    with pytest.raises(InputError, match="`method`"):
        curve.band(method="naive")
    with pytest.raises(InputError, match="`p_tilde` applies"):
        curve.band(method="bootstrap", p_tilde=0.5)
    with pytest.raises(InputError, match="`p_tilde` must be in"):
        curve.band(p_tilde=1.5)
    with pytest.raises(InputError, match=r"`grid` recalls must lie in \[eps, 1 - eps\]"):
        curve.band(grid=[0.01, 0.5])
    with pytest.raises(InputError, match="`eps`"):
        curve.band(eps=0.6)
    with pytest.raises(InputTypeError, match="`n_boot`"):
        curve.band(n_boot=10.5)
    with pytest.raises(InputError, match="`bandwidth`"):
        curve.band(bandwidth=-1.0)
    with pytest.raises(InputError, match="`level`"):
        curve.band(level=95)


# ------------------------------------------------------- pointwise (Eq. 9)
def _binormal_truth(beta, p, mu=1.0):
    t = mu + special.ndtri(1 - beta)  # G^{-1}(1 - beta) for positives N(mu, 1)
    alpha = special.ndtr(-t)
    precision = p * beta / (p * beta + (1 - p) * alpha)
    slope = np.exp(-0.5 * t**2) / np.exp(-0.5 * (t - mu) ** 2)  # h(t) / g(t)
    return alpha, precision, slope


def test_corrected_eq9_matches_the_simulated_variance():
    n, sims, p = 4000, 1500, 0.1
    beta = np.array([0.2, 0.5, 0.8])
    rng = np.random.default_rng(13)
    y = rng.random((sims, n)) < p  # i.i.d. rows: the number of positives varies, as in the paper
    s = rng.standard_normal((sims, n)) + y
    order = np.argsort(-s, axis=1)
    rows = np.arange(sims)[:, None]
    ties = tie_table_from_sorted(np.repeat(np.arange(sims), n), s[rows, order].ravel(), y[rows, order].ravel(), sims)
    estimate, _ = pr_step(ties, beta)
    simulated = n * estimate.var(axis=0, ddof=1)
    alpha, precision, slope = _binormal_truth(beta, p)
    predicted = pointwise_variance(beta, precision, alpha, p, slope)
    np.testing.assert_allclose(simulated, predicted, rtol=0.12)
    # Eq. (9) as printed (first term only carrying PR^4 / beta^2) is far off
    printed = ((1 - p) * precision**4 * alpha**2 / (beta**2 * p**3)
               + (1 - p) ** 2 * beta * (1 - beta) * slope**2 / p**3 + (1 - p) * alpha * (1 - alpha) / p**2)
    assert np.all(printed > 1.4 * simulated)


def test_pointwise_half_width_matches_the_true_standard_error():
    n, p = 40_000, 0.1
    curve = pr_curve(binormal_frame(n, p, seed=5), "outcome", "score")
    band = curve.band(method="pointwise", grid=[0.3, 0.5, 0.7])
    alpha, precision, slope = _binormal_truth(band.recall, p)
    true_half = 1.959964 * np.sqrt(pointwise_variance(band.recall, precision, alpha, p, slope) / n)
    np.testing.assert_allclose((band.upper - band.lower)[0] / 2, true_half, rtol=0.15)


# ------------------------------------------------ studentised band (extension)
def test_studentized_band_from_the_bootstrap_process():
    df = binormal_frame(3000, seed=6)
    curve = pr_curve(df, "outcome", "score")
    band = curve.band(n_boot=400, seed=21, grid=51, studentize=True)
    assert band.studentized and np.isnan(band.groups_frame()["half_width"][0])
    # rebuild it from the replicates' process with plain numpy (all weights are 1 at p_tilde = p_hat)
    pos = df.filter(pl.col("outcome") == 1)["score"].to_numpy()
    neg = df.filter(pl.col("outcome") == 0)["score"].to_numpy()
    p_s, n_s = class_sample(pos), class_sample(neg)
    _, log_w, process = bootstrap_sups(p_s, n_s, band.recall, band.estimate[0], smoothed=True,
                                        h_pos=band.bandwidth_pos[0], h_neg=band.bandwidth_neg[0],
                                        p_tilde=band.p_tilde[0], n_boot=400,
                                        rng=Streams.for_keys(21, curve.keys, curve.by, "band")[0], keep_process=True)
    assert np.all(log_w == 0)
    sigma = process.std(axis=0)
    r = np.quantile(np.max(np.abs(process) / sigma, axis=1), 0.95, method="inverted_cdf")
    assert band.r_delta[0] == pytest.approx(r, rel=1e-12)
    expected = np.clip(band.estimate[0] + r * sigma / math.sqrt(3000), 0, 1)
    np.testing.assert_allclose(band.upper[0], expected, rtol=1e-12)
    # the width follows the curve's variability: narrower at high recall than at low recall
    width = band.upper[0] - band.lower[0]
    assert width[-5:].mean() < 0.5 * width[:5].mean()
    plain = curve.band(n_boot=400, seed=21, grid=51)
    assert np.all(width[25:] < (plain.upper - plain.lower)[0][25:])


def test_studentize_is_for_bootstrap_methods():
    curve = pr_curve(binormal_frame(300), "outcome", "score")
    with pytest.raises(InputError, match="`studentize`"):
        curve.band(method="pointwise", studentize=True)
    with pytest.raises(InputTypeError, match="`studentize`"):
        curve.band(studentize="yes")


def test_scores_near_the_float_limit_band_without_smoothing_or_refuse_smoothing_clearly():
    import warnings as _warnings

    from aucpr_stats.exceptions import InputError as _InputError

    rng = np.random.default_rng(1)
    n = 200
    y = rng.random(n) < 0.3
    s = rng.normal(size=n) + y
    s[:5], s[5:10] = 1e308, -1e308
    curve = pr_curve(pl.DataFrame({"y": y, "s": s}), "y", "s")
    with _warnings.catch_warnings():
        _warnings.simplefilter("error", RuntimeWarning)  # no overflow anywhere
        band = curve.band(method="bootstrap", n_boot=100, seed=1, grid=11)
        assert np.isfinite(band.lower).all() and np.isfinite(band.upper).all()
        for method in ("smoothed_bootstrap", "pointwise"):
            with pytest.raises(_InputError, match=r"score 's' spreads wider than floating point allows"):
                curve.band(method=method, n_boot=100, seed=1, grid=11)
        # wide but representable: smoothing works
        wide = pr_curve(pl.DataFrame({"y": y, "s": (rng.normal(size=n) + y) * 1e300}), "y", "s")
        assert np.isfinite(wide.band(n_boot=100, seed=1, grid=11).upper).all()
