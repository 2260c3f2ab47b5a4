"""Intervals at the edges (issue 14, items 3-5): truncation, boundary fallbacks, one positive, small samples."""

from __future__ import annotations

import warnings

import attrs
import numpy as np
import polars as pl
import pytest
from statsmodels.stats.proportion import proportion_confint

from aucpr_stats import aucpr, auroc
from aucpr_stats.exceptions import SmallSampleWarning
from aucpr_stats.intervals import INTERVAL_METHODS
from aucpr_stats.intervals.boundaries import join_notes, newcombe_interval, newcombe_variance, truncate, wilson_interval

Z95 = 1.959963984540054


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        return call()


# ------------------------------------------------------------------ Wilson
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_wilson_matches_statsmodels_for_counts(level):
    n = np.array([1, 2, 5, 20, 40, 40, 40, 100, 7])
    k = np.array([0, 1, 5, 13, 40, 0, 39, 97, 3])
    lower, upper, se = wilson_interval(k / n, n, level)
    ref_lo, ref_hi = proportion_confint(k, n, alpha=1 - level, method="wilson")
    np.testing.assert_allclose(lower, ref_lo, atol=1e-12)
    np.testing.assert_allclose(upper, ref_hi, atol=1e-12)
    np.testing.assert_allclose(se, np.sqrt(k / n * (1 - k / n) / n), atol=1e-15)


def test_wilson_at_one_is_n_over_n_plus_z_squared():
    lower, upper, _ = wilson_interval([1.0, 0.0], [40, 40])
    assert lower[0] == pytest.approx(40 / (40 + Z95**2), abs=1e-14) and upper[0] == 1.0
    assert lower[1] == 0.0 and upper[1] == pytest.approx(Z95**2 / (40 + Z95**2), abs=1e-14)
    assert 0.91 < lower[0] < 0.92  # "never [0, 1] for 40 positives"


# ---------------------------------------------------------------- Newcombe
def _newcombe_by_quartic(theta, m, n, level=0.95):
    """Oracle: the real roots in [0, 1] of m n (θ̂-θ)²(2-θ)(1+θ) - z² θ(1-θ)[(2-θ)(1+θ) + n*(1+2θ-2θ²)]."""
    z2 = (Z95 if level == 0.95 else None) ** 2
    n_star = (m + n) / 2 - 1
    P = np.polynomial.Polynomial
    t = P([0, 1])
    poly = m * n * (theta - t) ** 2 * (2 - t) * (1 + t) - z2 * t * (1 - t) * ((2 - t) * (1 + t) + n_star * (1 + 2 * t - 2 * t**2))
    roots = poly.roots()
    real = np.sort(roots[np.abs(roots.imag) < 1e-9].real)
    inside = real[(real >= -1e-12) & (real <= 1 + 1e-12)]
    return inside.min(), inside.max()


@pytest.mark.parametrize("theta,m,n", [(1.0, 40, 60), (1.0, 5, 95), (0.5, 20, 80), (0.9, 20, 80), (0.97, 100, 900),
                                       (0.0, 10, 10), (0.73, 3, 4), (0.999, 6, 500)])
def test_newcombe_bounds_are_the_roots_of_the_quartic(theta, m, n):
    lower, upper, se = newcombe_interval([theta], [m], [n])
    lo, hi = _newcombe_by_quartic(theta, m, n)
    assert lower[0] == pytest.approx(lo, abs=1e-10) and upper[0] == pytest.approx(hi, abs=1e-10)
    assert se[0] == pytest.approx(np.sqrt(newcombe_variance(theta, m, n)), abs=1e-15)
    assert 0.0 <= lower[0] < upper[0] <= 1.0  # never of zero width


def test_newcombe_variance_is_hanley_mcneil_with_the_mean_class_size():
    from aucpr_stats.intervals import hanley_mcneil_se

    a, m = np.array([0.6, 0.8, 0.95]), 30
    # with equal class sizes n* = m - 1, Newcombe's variance is Hanley & McNeil's
    np.testing.assert_allclose(newcombe_variance(a, m, m), hanley_mcneil_se(a, m, m) ** 2, rtol=1e-12)


def test_newcombe_is_symmetric_under_label_swap_and_vectorised():
    theta = np.array([0.2, 0.5, 0.8, 1.0])
    lower, upper, _ = newcombe_interval(theta, 12, 30)
    lower2, upper2, _ = newcombe_interval(1 - theta, 12, 30)
    np.testing.assert_allclose(lower, 1 - upper2, atol=1e-12)
    np.testing.assert_allclose(upper, 1 - lower2, atol=1e-12)
    assert np.isnan(newcombe_interval([np.nan], [5], [5])[0][0])


# ---------------------------------------------------------------- helpers
def test_truncate_and_join_notes():
    lower, upper, flagged = truncate([-0.2, 0.1, np.nan, 0.3], [0.5, 1.2, np.nan, 0.9])
    np.testing.assert_array_equal(lower, [0.0, 0.1, np.nan, 0.3])
    np.testing.assert_array_equal(upper, [0.5, 1.0, np.nan, 0.9])
    assert flagged.tolist() == [True, True, False, False]
    notes = join_notes(np.array([None, "a", "b", None], dtype=object), np.array([None, None, "c", "d"], dtype=object))
    assert notes.tolist() == [None, "a", "b; c", "d"]


# ---------------------------------------------------------- through conf_int
def _separated(n_pos=40, n_neg=60):
    return pl.DataFrame({"y": [1] * n_pos + [0] * n_neg,
                         "s": np.r_[np.linspace(2, 3, n_pos), np.linspace(0, 1, n_neg)]})


def test_perfect_separation_40_positives_aucpr_every_method_gets_wilson():
    ci = aucpr(_separated(), "y", "s", estimator="average_precision").conf_int(method="all", n_boot=200, seed=1)
    expected = 40 / (40 + Z95**2)  # Wilson at an estimate of 1: [n/(n + z^2), 1]
    for row in ci.iter_rows(named=True):
        assert row["estimate"] == 1.0 and row["upper"] == 1.0
        assert row["lower"] == pytest.approx(expected, abs=1e-12), row["method"]
        if row["method"] != "wilson":
            assert row["note"].startswith("boundary fallback: an estimate of 1, so the wilson score interval")


def test_perfect_separation_auroc_every_method_gets_newcombe():
    ci = auroc(_separated(), "y", "s").conf_int(method="all", n_boot=200, seed=1)
    lo, _ = _newcombe_by_quartic(1.0, 40, 60)
    assert (ci["lower"] - lo).abs().max() < 1e-10 and (ci["upper"] == 1.0).all()
    assert 0.9 < lo < 1.0  # "1.00 (1.00-1.00)" no more
    notes = ci.filter(pl.col("method") != "newcombe")["note"].to_list()
    assert all(n.startswith("boundary fallback: an estimate of 1, so the newcombe score interval") for n in notes)


def test_all_scores_tied_auroc_gets_a_newcombe_interval_around_one_half():
    df = pl.DataFrame({"y": [1] * 30 + [0] * 70, "s": [1.0] * 100})
    ci = auroc(df, "y", "s").conf_int(method=["delong", "logit", "hanley_mcneil"])
    lo, hi = _newcombe_by_quartic(0.5, 30, 70)
    assert (ci["estimate"] == 0.5).all() and (ci["se"] == 0.0).sum() >= 2  # DeLong's SE is 0
    delong = ci.row(0, named=True)
    assert delong["lower"] == pytest.approx(lo, abs=1e-10) and delong["upper"] == pytest.approx(hi, abs=1e-10)
    assert delong["note"] == "boundary fallback: a standard error of 0, so the newcombe score interval"


def test_zero_width_bootstrap_falls_back_to_wilson():
    df = pl.DataFrame({"y": [1] * 30 + [0] * 70, "s": [1.0] * 100})
    result = aucpr(df, "y", "s")
    ci = result.conf_int(method="bootstrap", n_boot=100, seed=3)
    lower, upper, _ = wilson_interval(result.estimates[0, 0], 30)
    assert ci["lower"][0] == pytest.approx(float(lower), abs=1e-12) and ci["upper"][0] == pytest.approx(float(upper), abs=1e-12)
    assert ci["lower"][0] < ci["upper"][0]
    # the replicates are all equal: a standard error of 0 up to rounding, an interval of zero width
    assert ci["note"][0].startswith("boundary fallback: ") and ci["note"][0].endswith("the wilson score interval")


def test_wald_intervals_past_a_bound_are_truncated_and_say_so():
    # 5 positives, A' close to 1: DeLong's A' + z se passes 1
    df = pl.DataFrame({"y": [1, 1, 1, 1, 1] + [0] * 20, "s": np.r_[9.0, 8, 7, 6, 4.6, np.linspace(0, 5, 20)]})
    ci = _quiet(lambda: auroc(df, "y", "s").conf_int(method="delong"))
    row = ci.row(0, named=True)
    assert row["estimate"] == pytest.approx((4 * 20 + 18) / 100, abs=1e-14)  # the low positive beats 18 of 20
    assert row["lower"] == pytest.approx(row["estimate"] - Z95 * row["se"], abs=1e-12)
    assert row["estimate"] + Z95 * row["se"] > 1 and row["upper"] == 1.0
    assert row["note"].startswith("truncated to [0, 1]")
    binomial = _quiet(lambda: aucpr(df, "y", "s").conf_int(method="binomial")).row(0, named=True)
    assert 0.0 <= binomial["lower"] and binomial["upper"] <= 1.0


@pytest.mark.parametrize("metric", ["aucpr", "auroc"])
def test_every_interval_lies_in_the_unit_interval(metric):
    rng = np.random.default_rng(7)
    n = 400
    g = rng.integers(0, 40, n)
    y = rng.random(n) < 0.15 + 0.02 * (g % 5)
    s = rng.normal(size=n) + 3.0 * y * (g % 3 == 0) + rng.integers(0, 2, n) * (g % 4 == 0)
    df = pl.DataFrame({"y": y, "s": np.round(s, 1), "g": g})
    fn = aucpr if metric == "aucpr" else auroc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = fn(df, "y", "s", by="g").conf_int(method="all", n_boot=100, seed=1)
    ok = ci.filter(pl.col("lower").is_not_nan())
    assert ok.height > 0.3 * ci.height  # cross-validation is NaN wherever a fold lacks positives
    assert (ok["lower"] >= 0).all() and (ok["upper"] <= 1).all() and (ok["lower"] <= ok["upper"]).all()
    assert (ok["upper"] > ok["lower"]).all()  # never of zero width


# -------------------------------------------------------- cannot be formed
def test_one_positive_gives_nan_with_a_note_for_every_method():
    df = pl.DataFrame({"y": [1, 0, 0, 0, 0, 0, 0, 0], "s": [5.0, 6, 4, 3, 2, 1, 0, -1]})
    for result in (aucpr(df, "y", "s", estimator="average_precision"), auroc(df, "y", "s")):
        ci = result.conf_int(method="all", n_boot=200, seed=1)
        assert ci["lower"].is_nan().all() and ci["upper"].is_nan().all()
        assert set(ci["note"]) == {"1 positive: no interval can be formed"}


def test_cross_validation_with_two_positives_is_nan_not_minus_four():
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"y": [1, 1] + [0] * 48, "s": rng.normal(size=50)})
    ci = _quiet(lambda: aucpr(df, "y", "s").conf_int(method="cross_validation", seed=1))
    assert np.isnan(ci["lower"][0]) and np.isnan(ci["upper"][0])
    assert ci["note"][0].startswith("8 of 10 folds lack a class: no cross-validation interval")


# ------------------------------------------------------------ small samples
def _with_minimum(monkeypatch, metric: str, method: str, **minimum) -> None:
    """The method's record with another minimum (``min_positives=`` or ``min_clusters=``), for this test."""
    monkeypatch.setitem(INTERVAL_METHODS[metric], method, attrs.evolve(INTERVAL_METHODS[metric][method], **minimum))


def test_small_sample_warning_and_note_below_the_record_minimum(monkeypatch):
    rng = np.random.default_rng(1)
    df = pl.DataFrame({"y": np.r_[np.ones(8), np.zeros(40)].astype(bool), "s": rng.normal(size=48),
                       "g": ["a"] * 4 + ["b"] * 4 + ["a"] * 20 + ["b"] * 20})
    df = df.with_columns(pl.when(pl.col("g") == "b").then(pl.col("s")).otherwise(pl.col("s") + 0.5 * pl.col("y")))
    # the positives' rule alone (the boundary rule, min(P, N)(1 - A') < 10, is tested on its own below)
    _with_minimum(monkeypatch, "auroc", "delong", min_positives=5, min_boundary_count=None)
    big = pl.concat([df, df.with_columns(pl.lit("c").alias("g")), df.filter(pl.col("g") == "a").with_columns(
        pl.lit("c").alias("g"))])
    with pytest.warns(SmallSampleWarning, match=r"delong \(2 rows\)") as caught:
        ci = auroc(big, "y", "s", by="g").conf_int(method="delong")
    assert caught[0].filename == __file__  # points at the caller's line
    notes = dict(zip(ci["g"], ci["note"]))
    expected = "small sample: fewer than 5 positives, the delong interval may under-cover (docs/validation.md)"
    assert notes["a"].endswith(expected) and notes["b"].endswith(expected)
    assert notes["c"] is None  # 12 positives
    _with_minimum(monkeypatch, "auroc", "delong", min_positives=4, min_boundary_count=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        auroc(big, "y", "s", by="g").conf_int(method="delong")  # no warning at the minimum


def test_every_method_has_a_minimum_and_the_fallbacks_are_registered():
    from aucpr_stats.intervals.edges import BOUNDARY_METHOD

    for metric, methods in INTERVAL_METHODS.items():
        for name, record in methods.items():
            assert record.min_positives >= 2, (metric, name)  # no interval is formed below 2 positives anyway
            # a minimum of clusters only where a coverage study measured one (cluster_count_coverage.py)
            assert record.min_clusters is None or (metric, name) in {("auroc", "obuchowski"), ("aucpr", "bootstrap"),
                                                                         ("calibration", "bootstrap")}
        if metric in ("calibration", "net_benefit"):  # no bounded score interval: nothing falls back
            assert metric not in BOUNDARY_METHOD and not any(m.fallback for m in methods.values())
            continue
        assert BOUNDARY_METHOD[metric] in methods and not methods[BOUNDARY_METHOD[metric]].fallback


def test_a_minimum_number_of_clusters_flags_the_groups_below_it(monkeypatch):
    """``min_clusters`` on a record: groups with fewer clusters get a note, and the warning says clusters."""
    rng = np.random.default_rng(4)
    patient = np.repeat(np.arange(60), 4)
    y = np.repeat(rng.random(60) < 0.4, 4)
    df = pl.DataFrame({"y": y, "s": rng.normal(size=240) + y, "patient": patient,
                       "g": np.where(patient < 12, "few", "many")})
    result = auroc(df, "y", "s", by="g", cluster="patient")
    ci = _quiet(lambda: result.conf_int(method="obuchowski"))
    minimum = INTERVAL_METHODS["auroc"]["obuchowski"].min_clusters  # 50: both groups (12 and 48 patients) below it
    assert all(f"fewer than {minimum} clusters" in note for note in ci["note"])
    _with_minimum(monkeypatch, "auroc", "obuchowski", min_clusters=20)
    with pytest.warns(SmallSampleWarning, match="positives or clusters"):
        ci = result.conf_int(method="obuchowski")
    notes = dict(zip(ci["g"], ci["note"]))
    assert "fewer than 20 clusters, the obuchowski interval may under-cover" in notes["few"]  # 12 patients
    assert notes["many"] is None or "clusters" not in notes["many"]  # 48 patients


def test_perfect_separation_gives_the_wilson_interval_of_one_whatever_the_estimator():
    # the interpolated median stays below 1 under perfect separation (its last recall run holds the
    # trailing negatives), so the fallback is triggered by the data, not by the estimate
    n_pos, n_neg = 5, 20
    df = pl.DataFrame({"y": [1] * n_pos + [0] * n_neg, "s": np.r_[np.arange(n_pos) + 100.0, np.arange(n_neg)]})
    result = aucpr(df, "y", "s", estimator=["interpolated_median", "lower_trapezoid"])
    frame = _quiet(lambda: result.conf_int(method=["logit", "binomial", "bootstrap"], seed=1))
    median = frame.filter(pl.col("estimator") == "interpolated_median")
    assert (median["estimate"] < 0.95).all()
    assert median["lower"].to_list() == pytest.approx([n_pos / (n_pos + Z95**2)] * 3, abs=1e-12)
    assert (median["upper"] == 1.0).all()
    assert all("perfect separation" in note for note in median["note"])
    # one negative above a positive: no separation, no fallback
    df2 = df.with_columns(pl.when(pl.col("s") == 100.0).then(-1.0).otherwise(pl.col("s")).alias("s"))
    frame2 = _quiet(lambda: aucpr(df2, "y", "s", estimator="interpolated_median").conf_int(method="logit"))
    assert frame2["note"][0] is None or "perfect separation" not in frame2["note"][0]


# ---------------------------------------------------------------- partial areas: their own attainable range
def _separated_groups(seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(40), 300)
    y = rng.random(g.size) < 0.2
    return pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + 3.5 * y})


def test_a_partial_auroc_interval_stays_below_the_largest_partial_area():
    """Over specificity 0.9-1 the area is at most 0.1: DeLong's Wald interval is cut there, with its note."""
    from scipy.stats import norm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        ci = auroc(_separated_groups(), "y", "s", by="g", specificity=(0.9, 1)).conf_int(method="delong")
    width = 1.0 - 0.9
    z = norm.ppf(0.975)
    raw_upper = ci["estimate"].to_numpy() + z * ci["se"].to_numpy()
    crossed = raw_upper > width
    assert crossed.sum() >= 5  # well separated groups cross the maximum (the test can fail)
    upper, notes = ci["upper"].to_numpy(), ci["note"].fill_null("").to_list()
    assert (upper <= width).all()
    np.testing.assert_allclose(upper[crossed], width)
    np.testing.assert_allclose(upper[~crossed], raw_upper[~crossed], rtol=1e-12)
    assert all(("truncated to [0, 0.1]" in note) == bool(c) for note, c in zip(notes, crossed))


def test_a_standardized_partial_auroc_interval_stays_in_half_to_one():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        rng = np.random.default_rng(3)
        g = np.repeat(np.arange(30), 60)
        y = rng.random(g.size) < 0.3
        frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + 0.4 * y})
        ci = auroc(frame, "y", "s", by="g", specificity=(0.8, 1), standardized=True).conf_int(method="delong")
    formed = ci.filter(pl.col("lower").is_not_nan())
    assert (formed["lower"] >= 0.5).all() and (formed["upper"] <= 1.0).all()
    cut = formed.filter(pl.col("note").fill_null("").str.contains("truncated to [0.5, 1]", literal=True))
    assert cut.height >= 1


def test_the_attainable_range_of_each_partial_window():
    from aucpr_stats.estimators.partial import PartialRange

    assert PartialRange("specificity", 0.8, 1.0).attainable() == (0.0, pytest.approx(0.2))
    assert PartialRange("sensitivity", 0.9, 1.0, standardized=True).attainable() == (0.5, 1.0)
    assert PartialRange("recall", 0.0, 0.5).attainable() == (0.0, 0.5)
    assert PartialRange("recall", 0.0, 0.5, standardized=True).attainable() == (0.0, 1.0)


# ---------------------------------------------------------------- AUROC near 1: the boundary rule of the record
def test_a_wald_auroc_interval_near_one_is_flagged_by_its_record_rule():
    """min(P, N) (1 - A') below the record's min_boundary_count: a note, a warning; the score interval is not."""
    rng = np.random.default_rng(1)
    g = np.repeat([0, 1], 1000)
    y = rng.random(g.size) < 0.1
    shift = np.where(g == 0, 4.0, 1.0)  # group 0 near-perfect (AUROC ~0.998), group 1 weak (~0.76)
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + shift * y})
    result = auroc(frame, "y", "s", by="g")
    estimate = result.to_polars().sort("g")["estimate"].to_numpy()
    n_pos = np.array([y[g == k].sum() for k in (0, 1)])
    n_neg = 1000 - n_pos
    count = np.minimum(n_pos, n_neg) * (1 - estimate)
    for name in ("delong", "logit"):
        rule = INTERVAL_METHODS["auroc"][name].min_boundary_count
        expected = count < rule
        assert expected.tolist() == [True, False]  # the data put one group on each side (the test can fail)
        with pytest.warns(SmallSampleWarning, match="distance from 1"):
            notes = result.conf_int(method=name).sort("g")["note"].fill_null("").to_list()
        assert [("near the boundary" in note) for note in notes] == expected.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        newcombe = result.conf_int(method="newcombe")
    assert newcombe["note"].fill_null("").str.contains("near the boundary").sum() == 0


def test_the_influence_interval_near_an_aucpr_of_one_is_flagged_by_its_record_rule():
    """min(P, N) (1 - AP) below the influence record's min_boundary_count: a note naming logit, a warning;
    the logit interval (which holds there) is not flagged."""
    rng = np.random.default_rng(3)
    g = np.repeat([0, 1], 1500)
    y = np.tile(np.r_[np.ones(150, bool), np.zeros(1350, bool)], 2)
    shift = np.where(g == 0, 5.0, 1.0)  # group 0 near-perfect, group 1 weak
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + shift * y})
    result = aucpr(frame, "y", "s", by="g", estimator="average_precision")
    estimate = result.to_polars().sort("g")["estimate"].to_numpy()
    count = 150 * (1 - estimate)
    rule = INTERVAL_METHODS["aucpr"]["influence"].min_boundary_count
    assert (count < rule).tolist() == [True, False]  # one group on each side of the rule
    with pytest.warns(SmallSampleWarning, match="distance from 1"):
        notes = result.conf_int(method="influence").sort("g")["note"].fill_null("").to_list()
    assert ["near the boundary" in note and "logit holds there" in note for note in notes] == [True, False]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        logit = result.conf_int(method="logit")
    assert logit["note"].fill_null("").str.contains("near the boundary").sum() == 0


def test_an_estimator_with_a_coverage_caveat_notes_every_interval_and_warns_once():
    """The caveat of the record (intervals that under-cover whatever the size) reaches every formed interval
    of that estimator, whatever the method; the default estimator's intervals carry none."""
    from aucpr_stats.estimators import ESTIMATORS
    from aucpr_stats.exceptions import BiasedEstimatorWarning

    caveated = [name for name, record in ESTIMATORS["aucpr"].items() if record.coverage_caveat]
    assert set(caveated) == {"upper_trapezoid", "interpolated_max", "interpolated_convex"}
    rng = np.random.default_rng(4)
    y = rng.random(2000) < 0.1
    frame = pl.DataFrame({"y": y, "s": rng.normal(size=y.size) + 1.5 * y})
    result = aucpr(frame, "y", "s", estimator=["average_precision", *caveated])
    for method in ("logit", "wilson"):
        with pytest.warns(BiasedEstimatorWarning) as caught:
            ci = result.conf_int(method=method)
        assert sum(w.category is BiasedEstimatorWarning for w in caught) == 1
        notes = dict(zip(ci["estimator"], ci["note"].fill_null("")))
        assert notes["average_precision"] == ""
        for name in caveated:
            assert notes[name].startswith(name) and "aucpr_boundary_results.md" in notes[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", BiasedEstimatorWarning)
        aucpr(frame, "y", "s").conf_int()


@pytest.mark.parametrize("metric,rule", [("auroc", 10), ("aucpr", 20)])
def test_the_bootstrap_near_one_is_flagged_by_its_record_rule(metric, rule):
    """The percentile bootstrap under-covers near 1 (docs/validation.md): min(P, N)(1 - estimate) below the
    record's count gets the boundary note; a weak score with the same counts does not."""
    assert INTERVAL_METHODS[metric]["bootstrap"].min_boundary_count == rule
    rng = np.random.default_rng(6)
    n_pos = 400  # above both bootstraps' minimum of positives
    assert INTERVAL_METHODS[metric]["bootstrap"].min_positives <= n_pos
    g = np.repeat([0, 1], 10 * n_pos)
    y = np.tile(np.r_[np.ones(n_pos, bool), np.zeros(9 * n_pos, bool)], 2)
    shift = np.where(g == 0, 4.5, 1.0)
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + shift * y})
    result = (aucpr if metric == "aucpr" else auroc)(frame, "y", "s", by="g")
    estimate = result.to_polars().sort("g")["estimate"].to_numpy()
    assert (n_pos * (1 - estimate) < rule).tolist() == [True, False]
    with pytest.warns(SmallSampleWarning, match="distance from 1"):
        ci = result.conf_int(method="bootstrap", n_boot=200, rng=1).sort("g")
    assert ["near the boundary" in note for note in ci["note"].fill_null("").to_list()] == [True, False]
