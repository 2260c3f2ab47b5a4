"""Time-to-event areas: AUC(t) and AP(t) with censoring weights, their intervals, comparisons and bad input."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats import aucpr, auroc
from aucpr_stats.cli import main
from aucpr_stats.exceptions import (ColumnNotFoundError, DegenerateGroupWarning, InputError, MissingValueError,
                                    OutcomeError, SmallSampleWarning)
from aucpr_stats.formula import FormulaError

from .survival_oracle import area, jackknife_terms

sksurv_metrics = pytest.importorskip("sksurv.metrics")


def simulated(n: int, seed: int, *, round_time: int | None = None, round_marker: int | None = None,
              groups: bool = False, censoring: float = 1.5) -> pl.DataFrame:
    """Exponential event times with rate exp(x), markers x + noise, exponential censoring."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    event_time = rng.exponential(np.exp(-x))
    censor_time = rng.exponential(censoring, size=n)
    t = np.minimum(event_time, censor_time)
    m1, m2 = x + rng.normal(size=n), 0.5 * x + rng.normal(size=n)
    if round_time is not None:
        t = np.round(t, round_time) + 10.0 ** -(round_time + 1)  # no zero times
    if round_marker is not None:
        m1, m2 = np.round(m1, round_marker), np.round(m2, round_marker)
    frame = pl.DataFrame({"t": t, "d": (event_time <= censor_time).astype(np.int64), "m1": m1, "m2": m2,
                          "w": rng.uniform(0.5, 2.0, n), "stratum": rng.choice(["s1", "s2"], n),
                          "id": np.arange(n)})
    if groups:
        frame = frame.with_columns(g=pl.Series(rng.choice(["a", "b", "c"], n)))
    return frame


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        return function(*args, **kwargs)


# -- point values --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed, round_marker", [(1, None), (2, 1), (3, 0)])
def test_auc_equals_scikit_survival(seed, round_marker):
    frame = simulated(300, seed, round_marker=round_marker)
    horizons = np.quantile(frame["t"].to_numpy(), [0.2, 0.5, 0.8])
    structured = np.array(list(zip(frame["d"].to_numpy().astype(bool), frame["t"].to_numpy())),
                          dtype=[("event", bool), ("time", float)])
    result = auroc(frame, score=["m1", "m2"], time="t", event="d", horizon=horizons)
    for k, marker in enumerate(["m1", "m2"]):
        expected, _ = sksurv_metrics.cumulative_dynamic_auc(structured, structured, frame[marker].to_numpy(),
                                                            horizons)
        np.testing.assert_allclose(result.estimates[0, k], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("metric", ["auroc", "aucpr"])
@pytest.mark.parametrize("weighted", [False, True])
def test_areas_equal_the_brute_force_oracle_with_tied_times(metric, weighted):
    frame = simulated(90, 5, round_time=1, groups=True)
    horizons = [0.3, 0.8]
    verb = auroc if metric == "auroc" else aucpr
    options = {"ties": "published"} if metric == "aucpr" else {}
    result = verb(frame, score="m1", time="t", event="d", horizon=horizons, by="g",
                  weights="w" if weighted else None, **options)
    got = result.to_polars()
    for row in got.iter_rows(named=True):
        part = frame.filter(pl.col("g") == row["g"])
        w = part["w"].to_numpy() if weighted else np.ones(part.height)
        expected = area(part["t"].to_numpy(), part["d"].to_numpy(), part["m1"].to_numpy(), w, row["horizon"], metric)
        assert row["estimate"] == pytest.approx(expected, abs=1e-12)


def test_censoring_strata_fit_the_censoring_within_each_stratum():
    frame = simulated(120, 8, round_time=2)
    result = aucpr(frame, score="m1", time="t", event="d", horizon=[0.4, 1.0], censoring_strata="stratum",
                   ties="published")
    strata = frame["stratum"].to_numpy()
    for h, horizon in enumerate([0.4, 1.0]):
        expected = area(frame["t"].to_numpy(), frame["d"].to_numpy(), frame["m1"].to_numpy(),
                        np.ones(frame.height), horizon, "aucpr", strata=strata)
        assert result.estimates[0, 0, h] == pytest.approx(expected, abs=1e-12)
    plain = aucpr(frame, score="m1", time="t", event="d", horizon=[0.4, 1.0], ties="published")
    assert not np.allclose(plain.estimates, result.estimates)


def test_default_average_precision_equals_published_without_case_control_ties():
    frame = simulated(200, 9)
    default = aucpr(frame, score="m1", time="t", event="d", horizon=[0.5, 1.0])
    published = aucpr(frame, score="m1", time="t", event="d", horizon=[0.5, 1.0], ties="published")
    np.testing.assert_array_equal(default.estimates, published.estimates)


def test_without_censoring_the_areas_are_the_binary_areas():
    frame = simulated(150, 10).with_columns(d=pl.lit(1))
    horizon = float(np.median(frame["t"].to_numpy()))
    binary = frame.with_columns(y=(pl.col("t") <= horizon).cast(pl.Int64))
    for verb in (auroc, aucpr):
        timed = verb(frame, score="m1", time="t", event="d", horizon=horizon).estimate
        assert timed == pytest.approx(verb(binary, "y", "m1").estimate, abs=1e-14)
    frame_out = auroc(frame, score="m1", time="t", event="d", horizon=horizon).to_polars()
    assert frame_out["prevalence"][0] == pytest.approx(binary["y"].mean(), abs=1e-14)


# -- the influence-function variance ----------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["auroc", "aucpr"])
@pytest.mark.parametrize("weighted", [False, True])
def test_influence_variance_equals_the_infinitesimal_jackknife(metric, weighted):
    frame = simulated(50, 11, round_time=1)
    horizon = 0.6
    verb = auroc if metric == "auroc" else aucpr
    options = {"ties": "published"} if metric == "aucpr" else {}
    result = verb(frame, score="m1", time="t", event="d", horizon=horizon, weights="w" if weighted else None,
                  **options)
    se = quiet(result.conf_int).to_polars()["se"][0]
    w = frame["w"].to_numpy() if weighted else np.ones(frame.height)
    terms = jackknife_terms(frame["t"].to_numpy(), frame["d"].to_numpy(), frame["m1"].to_numpy(), w, horizon, metric)
    n = frame.height
    assert se ** 2 == pytest.approx(n / (n - 1) * np.sum(terms ** 2), rel=1e-6)


def test_cluster_variance_sums_the_terms_of_each_cluster():
    frame = simulated(60, 12, round_time=1).with_columns(patient=pl.col("id") // 3)
    result = auroc(frame, score="m1", time="t", event="d", horizon=0.6, cluster="patient")
    se = quiet(result.conf_int).to_polars()["se"][0]
    terms = jackknife_terms(frame["t"].to_numpy(), frame["d"].to_numpy(), frame["m1"].to_numpy(),
                            np.ones(frame.height), 0.6)
    per_cluster = np.bincount(frame["patient"].to_numpy(), weights=terms)
    k = per_cluster.size
    assert se ** 2 == pytest.approx(k / (k - 1) * np.sum(per_cluster ** 2), rel=1e-6)
    singletons = auroc(frame, score="m1", time="t", event="d", horizon=0.6, cluster="id")
    plain = auroc(frame, score="m1", time="t", event="d", horizon=0.6)
    assert quiet(singletons.conf_int).to_polars()["se"][0] == pytest.approx(
        quiet(plain.conf_int).to_polars()["se"][0], rel=1e-12)


def test_paired_difference_variance_is_the_jackknife_of_the_difference():
    frame = simulated(50, 13, round_time=1)
    result = auroc(frame, score=["m1", "m2"], time="t", event="d", horizon=0.6)
    compared = quiet(result.compare).to_polars()
    args = (frame["t"].to_numpy(), frame["d"].to_numpy())
    terms = jackknife_terms(*args, frame["m1"].to_numpy(), np.ones(50), 0.6) - \
        jackknife_terms(*args, frame["m2"].to_numpy(), np.ones(50), 0.6)
    assert compared["se"][0] ** 2 == pytest.approx(50 / 49 * np.sum(terms ** 2), rel=1e-6)
    assert compared["difference"][0] == pytest.approx(result.estimates[0, 0, 0] - result.estimates[0, 1, 0])
    z = compared["difference"][0] / compared["se"][0]
    assert compared["z"][0] == pytest.approx(z)


def test_conservative_variance_leaves_out_the_censoring_fit():
    frame = simulated(400, 14)
    result = auroc(frame, score="m1", time="t", event="d", horizon=[0.5, 1.0])
    full = result.conf_int().to_polars()["se"].to_numpy()
    conservative = result.conf_int(conservative=True).to_polars()["se"].to_numpy()
    assert np.all(conservative != full)
    no_censoring = auroc(frame.with_columns(d=pl.lit(1)), score="m1", time="t", event="d", horizon=[0.5, 1.0])
    np.testing.assert_allclose(no_censoring.conf_int().to_polars()["se"].to_numpy(),
                               no_censoring.conf_int(conservative=True).to_polars()["se"].to_numpy(), rtol=1e-12)


def test_influence_and_bootstrap_standard_errors_agree():
    frame = simulated(500, 15)
    result = aucpr(frame, score="m1", time="t", event="d", horizon=[0.5, 1.0])
    influence = result.conf_int().to_polars()["se"].to_numpy()
    boot = result.conf_int("bootstrap", n_boot=600, seed=1).to_polars()["se"].to_numpy()
    np.testing.assert_allclose(boot, influence, rtol=0.15)


@settings(max_examples=25, deadline=None)
@given(scale=st.floats(min_value=1e-300, max_value=1e300), seed=st.integers(0, 50))
def test_estimates_and_intervals_ignore_the_scale_of_the_weights(scale, seed):
    frame = simulated(60, seed, round_time=1)
    base = auroc(frame, score="m1", time="t", event="d", horizon=0.6, weights="w")
    scaled = auroc(frame.with_columns(w=pl.col("w") * scale), score="m1", time="t", event="d", horizon=0.6,
                   weights="w")
    a, b = quiet(base.conf_int).to_polars(), quiet(scaled.conf_int).to_polars()
    for column in ("estimate", "se", "lower", "upper"):
        assert b[column][0] == pytest.approx(a[column][0], rel=1e-9, abs=1e-12)


# -- bands, bootstrap reproducibility, inputs ---------------------------------------------------------------


def test_simultaneous_band_is_wider_than_the_pointwise_interval():
    frame = simulated(400, 16)
    horizons = np.linspace(0.2, 1.4, 7)
    intervals = auroc(frame, score="m1", time="t", event="d", horizon=horizons).conf_int(
        band=True, seed=3).to_polars()
    assert (intervals["band_lower"] < intervals["lower"]).all()
    assert (intervals["band_upper"] > intervals["upper"]).all()
    # the band's multiplier lies between the pointwise 1.96 and Bonferroni's over 7 horizons (2.69)
    from scipy.special import logit
    est, lo, blo = (intervals[c].to_numpy() for c in ("estimate", "lower", "band_lower"))
    ratio = (logit(est) - logit(blo)) / (logit(est) - logit(lo))
    assert np.allclose(ratio, ratio[0]) and 1.0 < ratio[0] < 2.69 / 1.959964
    again = auroc(frame, score="m1", time="t", event="d", horizon=horizons).conf_int(band=True, seed=3).to_polars()
    assert again.equals(intervals)


def test_bootstrap_is_reproducible_whatever_the_row_order_frame_type_or_other_groups():
    frame = simulated(240, 17, groups=True)
    options = dict(score=["m1", "m2"], time="t", event="d", horizon=[0.4, 0.9], by="g")
    first = auroc(frame, **options).conf_int("bootstrap", n_boot=150, seed=5).to_polars()
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=1).to_pandas()
    second = auroc(shuffled, **options).conf_int("bootstrap", n_boot=150, seed=5).to_frame()
    assert isinstance(second, pd.DataFrame)
    assert pl.from_pandas(second).equals(first)
    alone = auroc(frame.filter(pl.col("g") == "b"), **options).conf_int("bootstrap", n_boot=150, seed=5).to_polars()
    assert alone.equals(first.filter(pl.col("g") == "b"))
    lazy = auroc(frame.lazy(), **options).conf_int("bootstrap", n_boot=150, seed=5).to_polars()
    assert lazy.equals(first)


def test_formula_equals_the_column_arguments():
    frame = simulated(150, 18, groups=True)
    by_formula = aucpr("Surv(t, d) ~ m1 + m2 | g", data=frame, horizon=[0.5, 1.0]).to_polars()
    by_columns = aucpr(frame, score=["m1", "m2"], by="g", time="t", event="d", horizon=[0.5, 1.0]).to_polars()
    assert by_formula.equals(by_columns)
    formula_first = aucpr(frame, "Surv(t, d) ~ m1", horizon=0.5).to_polars()  # the formula in outcome's place
    assert formula_first.equals(aucpr(frame, score="m1", time="t", event="d", horizon=0.5).to_polars())


def test_frame_has_one_row_per_group_score_and_horizon():
    frame = simulated(150, 19, groups=True)
    out = auroc(frame, score=["m1", "m2"], by="g", time="t", event="d", horizon=[1.0, 0.5]).to_polars()
    assert out.columns[:4] == ["g", "score", "horizon", "estimator"]
    assert out.height == 3 * 2 * 2
    assert out.filter(pl.col("g") == "a")["horizon"].to_list() == [0.5, 1.0, 0.5, 1.0]
    assert {"n_pos", "n_neg", "n_censored", "prevalence", "note"} <= set(out.columns)
    n = out["n"].to_numpy()
    assert np.all(out["n_pos"].to_numpy() + out["n_neg"].to_numpy() + out["n_censored"].to_numpy() == n)


# -- edges and bad input ------------------------------------------------------------------------------------


def test_horizon_without_cases_gives_a_note_and_a_warning():
    frame = simulated(100, 20)
    early = float(frame.filter(pl.col("d") == 1)["t"].min()) / 2
    with pytest.warns(DegenerateGroupWarning, match="no events by the horizon"):
        result = auroc(frame, score="m1", time="t", event="d", horizon=[early, 0.5])
    out = result.to_polars()
    assert np.isnan(out["estimate"][0]) and "no events" in out["note"][0]
    assert np.isfinite(out["estimate"][1])


def test_horizon_after_the_last_time_is_refused_or_noted():
    frame = simulated(100, 21, groups=True)
    last = float(frame["t"].max())
    with pytest.raises(InputError, match="last observed time"):
        auroc(frame, score="m1", time="t", event="d", horizon=last + 1)
    group_last = float(frame.filter(pl.col("g") == "a")["t"].max())
    if group_last < last:
        with pytest.warns(DegenerateGroupWarning):
            out = auroc(frame, score="m1", time="t", event="d", horizon=[0.3, group_last], by="g").to_polars()
        assert "nobody known event-free" in out.filter(pl.col("g") == "a")["note"][1]


@pytest.mark.parametrize("change, error, message", [
    (lambda f: f.with_columns(t=pl.when(pl.col("id") == 3).then(-1.0).otherwise(pl.col("t"))), InputError,
     "time column 't' holds 1 negative"),
    (lambda f: f.with_columns(t=pl.when(pl.col("id") == 3).then(None).otherwise(pl.col("t"))), MissingValueError,
     "column 't' holds 1 missing value"),
    (lambda f: f.with_columns(d=pl.when(pl.col("id") < 4).then(2).otherwise(pl.col("d"))), OutcomeError,
     "competing-risk"),
    (lambda f: f.with_columns(d=pl.lit("yes")), Exception, "event column 'd' must be numeric"),
    (lambda f: f.with_columns(m1=pl.when(pl.col("id") == 0).then(float("inf")).otherwise(pl.col("m1"))),
     InputError, "infinite"),
])
def test_bad_columns_get_clear_errors(change, error, message):
    frame = change(simulated(80, 22))
    with pytest.raises(error, match=message):
        auroc(frame, score="m1", time="t", event="d", horizon=0.5)


def test_missing_rows_can_be_dropped_and_counted():
    frame = simulated(80, 23).with_columns(t=pl.when(pl.col("id") < 3).then(None).otherwise(pl.col("t")))
    out = auroc(frame, score="m1", time="t", event="d", horizon=0.5, missing="drop").to_polars()
    assert out["n_missing"][0] == 3 and out["n"][0] == 77


@pytest.mark.parametrize("kwargs, message", [
    (dict(horizon=None), "needs `horizon=`"),
    (dict(horizon=0), "finite and > 0"),
    (dict(horizon=[0.5, float("nan")]), "finite and > 0"),
    (dict(horizon="soon"), "`horizon` must be"),
    (dict(positive=1), "`positive` is not defined for a time-to-event outcome"),
    (dict(estimator="interpolated_median"), "estimated with 'average_precision'"),
    (dict(event=None), "needs both `time` and `event`"),
    (dict(time="nope"), "nope"),
])
def test_bad_arguments_get_clear_errors(kwargs, message):
    frame = simulated(80, 24)
    options = dict(score="m1", time="t", event="d", horizon=0.5)
    options.update(kwargs)
    with pytest.raises((InputError, ColumnNotFoundError, TypeError), match=message):
        aucpr(frame, **options)


def test_outcome_and_time_together_and_survival_formula_elsewhere_are_refused():
    frame = simulated(80, 25)
    with pytest.raises(InputError, match="leave `outcome` out"):
        auroc(frame, "d", "m1", time="t", event="d", horizon=0.5)
    with pytest.raises(InputError, match="`horizon` belongs to a time-to-event outcome"):
        auroc(frame, "d", "m1", horizon=0.5)
    from aucpr_stats import calibration
    with pytest.raises(FormulaError, match="time-to-event outcome"):
        calibration("Surv(t, d) ~ m1", data=frame)


def test_single_values_and_plots_need_the_right_shape():
    frame = simulated(200, 26)
    result = auroc(frame, score="m1", time="t", event="d", horizon=[0.5, 1.0])
    with pytest.raises(InputError, match="one horizon"):
        result.estimate
    with pytest.raises(InputError, match="two or more horizons"):
        auroc(frame, score="m1", time="t", event="d", horizon=0.5).plot()
    with pytest.raises(InputError, match="compare two different"):
        auroc(frame, score=["m1", "m2"], time="t", event="d", horizon=0.5).compare("m1", "m1")


def test_plot_draws_the_curve_and_both_bands():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    frame = simulated(300, 27, groups=True)
    fig = aucpr(frame, score="m1", by="g", time="t", event="d", horizon=np.linspace(0.2, 1.2, 6)).plot(seed=1)
    axis = fig.axes[0]
    assert len(axis.collections) == 3  # one shaded pointwise band per group
    assert len(axis.lines) == 3 * 4  # estimate, the two band edges and the incidence per group
    assert axis.get_ylabel() == "AP(t)"


def test_command_line(tmp_path, capsys):
    frame = simulated(200, 28)
    path = tmp_path / "surv.csv"
    frame.write_csv(path)
    assert main([str(path), "--time", "t", "--event", "d", "--score", "m1", "--horizon", "0.5", "1",
                 "--metric", "auroc", "--format", "csv"]) == 0
    out = pl.read_csv(io.StringIO(capsys.readouterr().out))
    expected = auroc(frame, score="m1", time="t", event="d", horizon=[0.5, 1]).conf_int().to_polars()
    np.testing.assert_allclose(out["estimate"].to_numpy(), expected["estimate"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(out["upper"].to_numpy(), expected["upper"].to_numpy(), rtol=1e-12)
    assert main([str(path), "--formula", "Surv(t, d) ~ m1 + m2", "--horizon", "0.5", "--compare",
                 "--format", "csv"]) == 0
    compared = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert compared["score_a"][0] == "m1" and "p_value" in compared.columns
    assert main([str(path), "--time", "t", "--event", "d", "--score", "m1", "--horizon", "0.5",
                 "--positive", "1"]) != 0
    assert "--positive is not defined for a time-to-event outcome" in capsys.readouterr().err


def test_undefined_areas_have_no_interval_or_spread():
    frame = simulated(100, 29)
    early = float(frame.filter(pl.col("d") == 1)["t"].min()) / 2
    with pytest.warns(DegenerateGroupWarning):
        result = auroc(frame, score=["m1", "m2"], time="t", event="d", horizon=[early, 0.5])
    early_rows = quiet(result.conf_int).to_polars().filter(pl.col("horizon") == early)
    for column in ("lower", "upper", "se"):
        assert np.isnan(early_rows[column].to_numpy()).all()
    compared = quiet(result.compare).to_polars()
    assert np.isnan(compared["se"][0]) and np.isnan(compared["p_value"][0]) and np.isfinite(compared["se"][1])


def test_a_large_group_is_resampled_in_blocks_with_the_same_numbers_as_alone():
    big = simulated(2500, 30).with_columns(g=pl.lit("big"))  # 2,500 rows x 2 horizons x 700 > one chunk
    small = simulated(300, 31, groups=True).select(big.columns)
    options = dict(score="m1", time="t", event="d", horizon=[0.4, 0.9], by="g")
    together = auroc(pl.concat([big, small]), **options).conf_int("bootstrap", n_boot=700, seed=4).to_polars()
    alone_big = auroc(big, **options).conf_int("bootstrap", n_boot=700, seed=4).to_polars()
    alone_small = auroc(small, **options).conf_int("bootstrap", n_boot=700, seed=4).to_polars()
    assert together.filter(pl.col("g") == "big").equals(alone_big)
    assert together.filter(pl.col("g") != "big").equals(alone_small)
    influence = auroc(big, **options).conf_int().to_polars()
    np.testing.assert_allclose(alone_big["se"].to_numpy(), influence["se"].to_numpy(), rtol=0.15)


def test_a_group_without_usable_rows_keeps_its_row_and_says_why():
    frame = simulated(300, 32, groups=True)
    frame = frame.with_columns(t=pl.when(pl.col("g") == "a").then(None).otherwise(pl.col("t")))
    with pytest.warns(DegenerateGroupWarning):
        result = auroc(frame, score="m1", time="t", event="d", horizon=[0.4, 0.9], by="g", missing="drop")
    for intervals in (result.conf_int(), result.conf_int("bootstrap", n_boot=50, seed=1)):
        rows = intervals.to_polars().filter(pl.col("g") == "a")
        assert rows["note"][0].startswith("no rows") and np.isnan(rows["lower"].to_numpy()).all()


def test_every_input_type_gives_the_same_numbers():
    frame = simulated(200, 33, groups=True)
    options = dict(score=["m1", "m2"], time="t", event="d", horizon=[0.4, 0.9], by="g")
    expected = auroc(frame, **options).conf_int().to_polars()
    inputs = [frame.to_pandas(), frame.lazy(), frame.to_arrow()]
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    inputs.append(connection.from_arrow(frame.to_arrow()))
    for data in inputs:
        got = auroc(data, **options).conf_int()
        got = got.to_polars()
        assert got.equals(expected), type(data)


REFERENCE = __import__("pathlib").Path(__file__).with_name("reference")


@pytest.mark.parametrize("name", ["continuous", "tied"])
def test_values_equal_risk_regression(name):
    """riskRegression's Score(metrics = "auc", cens.model = "km") (tests/reference/survival_reference.R)."""
    reference = __import__("json").loads((REFERENCE / "survival_reference.json").read_text())
    data = pl.read_csv(REFERENCE / f"survival_rr_{name}.csv")
    result = auroc(data, score=["m1", "m2"], time="t", event="d", horizon=reference["horizons"])
    # without tied times the standard errors agree to rounding; with events and censorings tied,
    # riskRegression's censoring term (its C++ code) differs from the jackknife-exact one by < 1e-3 relative
    se_tolerance = 1e-10 if name == "continuous" else 1e-3
    checked = 0
    for record in (r for r in reference["records"] if r["file"] == name):
        if "-" in record["marker"]:
            first, second = record["marker"].split("-")
            row = result.compare(first, second, conservative=record["conservative"]).to_polars().filter(
                pl.col("horizon") == record["horizon"])
            assert row["difference"][0] == pytest.approx(record["estimate"], abs=1e-12)
            assert row["p_value"][0] == pytest.approx(record["p_value"], rel=10 * se_tolerance, abs=1e-12)
        else:
            row = result.conf_int(scale="identity", conservative=record["conservative"]).to_polars().filter(
                (pl.col("score") == record["marker"]) & (pl.col("horizon") == record["horizon"]))
            assert row["estimate"][0] == pytest.approx(record["estimate"], abs=1e-12)
        assert row["se"][0] == pytest.approx(record["se"], rel=se_tolerance)
        checked += 1
    assert checked == 12


def test_influence_variance_with_censoring_strata_equals_the_jackknife():
    frame = simulated(60, 34, round_time=1)
    result = aucpr(frame, score="m1", time="t", event="d", horizon=0.6, censoring_strata="stratum",
                   ties="published")
    se = quiet(result.conf_int).to_polars()["se"][0]
    terms = jackknife_terms(frame["t"].to_numpy(), frame["d"].to_numpy(), frame["m1"].to_numpy(),
                            np.ones(frame.height), 0.6, "aucpr", strata=frame["stratum"].to_numpy())
    assert se ** 2 == pytest.approx(60 / 59 * np.sum(terms ** 2), rel=1e-6)


def test_interpolated_average_precision_variance_equals_its_numerical_derivative():
    """Tie blocks holding both classes (ties="interpolate"): the analytic terms against central differences of
    the estimate itself, each row's weight nudged (the censoring fit redone by the library's own reading)."""
    frame = simulated(40, 35, round_time=1, round_marker=0).with_columns(w=pl.lit(1.0))
    options = dict(score="m1", time="t", event="d", horizon=0.7, weights="w")
    se = quiet(aucpr(frame, **options).conf_int).to_polars()["se"][0]
    eps, terms = 1e-6, []
    weights = frame["w"].to_numpy()
    for i in range(frame.height):
        values = []
        for step in (eps, -eps):
            nudged = weights.copy()
            nudged[i] += step
            values.append(aucpr(frame.with_columns(w=pl.Series(nudged)), **options).estimate)
        terms.append((values[0] - values[1]) / (2 * eps))
    kaplan_meier = np.array(terms)
    # the numerical derivative differentiates the Kaplan-Meier product; the analytic terms its Nelson-Aalen
    # form, which differs by O(dLambda): equal to a few per cent here, and exactly without censoring
    assert se ** 2 == pytest.approx(40 / 39 * np.sum(kaplan_meier ** 2), rel=0.05)
    uncensored = frame.with_columns(d=pl.lit(1))
    se0 = quiet(aucpr(uncensored, **options).conf_int).to_polars()["se"][0]
    terms0 = []
    for i in range(frame.height):
        values = []
        for step in (eps, -eps):
            nudged = weights.copy()
            nudged[i] += step
            values.append(aucpr(uncensored.with_columns(w=pl.Series(nudged)), **options).estimate)
        terms0.append((values[0] - values[1]) / (2 * eps))
    assert se0 ** 2 == pytest.approx(40 / 39 * np.sum(np.array(terms0) ** 2), rel=1e-6)


@pytest.mark.parametrize("name", ["tied", "continuous"])
def test_groups_equal_risk_regression_on_each_subset(name):
    """riskRegression's Score on the whole data and on each group's rows alone (survival_score_reference.R)."""
    reference = __import__("json").loads((REFERENCE / "survival_score_reference.json").read_text())
    spec = reference["files"][name]
    data = pl.read_csv(REFERENCE / spec["csv"])
    options = dict(score=["m1", "m2"], time="time", event="event", horizon=spec["horizons"])
    results = {"all": auroc(data, **options), "groups": auroc(data, by="group", **options)}
    se_tolerance = 1e-12 if name == "continuous" else 5e-4  # measured: 1.8e-15 and 2.6e-4
    checked = 0
    for record in (r for r in reference["records"] if r["file"] == name):
        result = results["all" if record["subset"] == "all" else "groups"]
        keep = pl.col("horizon") == record["horizon"]
        if record["subset"] != "all":
            keep = keep & (pl.col("group") == record["subset"])
        if "-" in record["marker"]:
            row = quiet(result.compare, "m1", "m2", conservative=record["conservative"]).to_polars().filter(keep)
            assert row["difference"][0] == pytest.approx(record["estimate"], abs=1e-12)
        else:
            row = quiet(result.conf_int, scale="identity", conservative=record["conservative"]).to_polars().filter(
                keep & (pl.col("score") == record["marker"]))
            assert row["estimate"][0] == pytest.approx(record["estimate"], abs=1e-12)
        assert row["se"][0] == pytest.approx(record["se"], rel=se_tolerance)
        checked += 1
    assert checked == 54


def test_horizons_below_the_validated_counts_are_noted_and_warned():
    frame = simulated(300, 36)
    late = float(np.quantile(frame["t"].to_numpy(), 0.97))
    for verb, minimum in ((auroc, 20), (aucpr, 50)):
        result = verb(frame, score=["m1", "m2"], time="t", event="d", horizon=[0.5, late])
        counts = result.to_polars()
        fewest = np.minimum(counts["n_pos"].to_numpy(), counts["n_neg"].to_numpy())
        with pytest.warns(SmallSampleWarning, match=f"fewer than {minimum} cases or controls"):
            notes = result.conf_int().to_polars()["note"].to_list()
        assert [n is not None and f"fewer than {minimum}" in n for n in notes] == list(fewest < minimum)
        with pytest.warns(SmallSampleWarning):
            compared = result.compare().to_polars()
        assert compared["note"][1] is not None and compared["note"][0] is None


def test_a_perfect_score_has_an_estimate_of_one_and_a_noted_interval():
    frame = simulated(200, 37)
    horizon = 0.5
    perfect = frame.with_columns(m1=pl.when((pl.col("t") <= horizon) & (pl.col("d") == 1)).then(pl.col("m1") + 100)
                                 .otherwise(pl.col("m1")))
    result = auroc(perfect, score="m1", time="t", event="d", horizon=horizon)
    assert result.estimate == 1.0
    logit = quiet(result.conf_int).to_polars()
    assert np.isnan(logit["lower"][0]) and "no logit interval" in logit["note"][0]
    identity = quiet(result.conf_int, scale="identity").to_polars()
    assert identity["upper"][0] == 1.0 and identity["se"][0] >= 0
