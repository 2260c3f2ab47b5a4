"""Smoothed ROC curves (pROC's smooth()): against pROC, brute-force oracles, and on edge cases and bad input.

The pROC values are in tests/reference/proc_smooth.json, written by
tests/reference/proc_smooth.R (pROC 1.18, R 4.2) with the data sets beside it.
"""

from __future__ import annotations

import json
import math
import pathlib
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats

from aucpr_stats.curves.smooth_roc import smooth_roc
from aucpr_stats.curves.smooth_roc_fit import smooth_tables
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError
from aucpr_stats.resample import Streams, stratified_counts
from aucpr_stats.ties import TieTable

REFERENCE = pathlib.Path(__file__).parent / "reference"
PROC = json.loads((REFERENCE / "proc_smooth.json").read_text())
DATA = {
    "asah": (pd.read_csv(REFERENCE / "proc_smooth_asah.csv"), "outcome", "Poor"),
    "infert": (pd.read_csv(REFERENCE / "proc_smooth_infert.csv"), "case", 1),
    "sim": (pd.read_csv(REFERENCE / "proc_smooth_sim.csv"), "y", 1),
}


def _options(case: dict) -> dict:
    """The smooth_roc arguments of one pROC call in the reference file."""
    options = {"method": case["method"], "n": case["n"], "direction": "lower" if case["direction"] == ">" else "higher"}
    if "bw" in case:
        options["bandwidth"] = case["bw"]
    for name in ("adjust", "kernel"):
        if name in case:
            options[name] = case[name]
    if case["method"] == "fitdistr":
        both = case.get("density", "normal")
        options["distributions"] = (case.get("density.controls", both), case.get("density.cases", both))
    return options


# ------------------------------------------------------------------ pROC
@pytest.mark.parametrize("case", PROC["curves"], ids=lambda c: f"{c['data']}-{c['score']}-{c['direction']}-"
                                                          f"{c['method']}-{c['n']}-{c.get('kernel', '')}")
def test_every_point_and_area_match_proc(case):
    frame, outcome, positive = DATA[case["data"]]
    result = smooth_roc(frame, outcome, case["score"], positive=positive, **_options(case))
    points = result.to_frame()
    assert isinstance(points, pd.DataFrame)
    assert len(points) == case["n"] + 2
    np.testing.assert_allclose(points["sensitivity"], case["sensitivity"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(points["specificity"], case["specificity"], rtol=0, atol=1e-10)
    assert abs(result.auc()["estimate"].iloc[0] - case["auc"]) < 1e-10


def _ci_cases():
    grouped = {}
    for c in PROC["ci"]:
        grouped.setdefault((c["data"], c["score"], c["method"]), []).append(c)
    return list(grouped.items())


@pytest.mark.parametrize("key,cases", _ci_cases(), ids=lambda v: "-".join(v) if isinstance(v, tuple) else "")
def test_bootstrap_interval_within_monte_carlo_error_of_proc(key, cases):
    data, score, method = key
    frame, outcome, positive = DATA[data]
    result = smooth_roc(frame, outcome, score, positive=positive, method=method)
    ours = result.conf_int(level=0.95, n_boot=2000, rng=7)
    proc = np.array([[c["lower"], c["upper"]] for c in cases])
    # pROC's bounds over 4 seeds spread by about 0.003 (sd); a percentile bound of 2000 replicates
    # has a Monte Carlo sd of that order, so two independent runs differ by more than 0.015 with
    # probability far below 1e-4
    assert abs(ours["lower"].iloc[0] - proc[:, 0].mean()) < 0.015
    assert abs(ours["upper"].iloc[0] - proc[:, 1].mean()) < 0.015
    assert ours["estimate"].iloc[0] == pytest.approx(cases[0]["auc"], abs=1e-10)
    assert ours["n_failed"].iloc[0] == 0


# ------------------------------------------------------------------ brute-force oracles
def _roc_points(y: np.ndarray, s: np.ndarray):
    """pROC's empirical points: at every threshold between distinct scores, case positive when score >= threshold."""
    values = np.unique(s)
    thresholds = np.concatenate([[-np.inf], (values[1:] + values[:-1]) / 2, [np.inf]])
    se = np.array([np.mean(s[y] >= t) for t in thresholds])
    sp = np.array([np.mean(s[~y] < t) for t in thresholds])
    return se, sp


def binormal_oracle(y, s, n):
    se, sp = _roc_points(y, s)
    zse, zsp = stats.norm.ppf(se), stats.norm.ppf(sp)
    keep = np.isfinite(zse) & np.isfinite(zsp)
    slope, intercept = np.polyfit(zse[keep], zsp[keep], 1)
    z = stats.norm.ppf(np.linspace(0, 1, n))
    curve_se, curve_sp = stats.norm.cdf(z), stats.norm.cdf(intercept + slope * z)
    return curve_se, curve_sp, stats.norm.cdf(intercept / math.sqrt(1 + slope ** 2))


def fitdistr_normal_oracle(y, s, n):
    """pROC's fitdistr smoothing read literally: densities at a grid, sums over the grid at each grid score."""
    x = np.linspace(s.min(), s.max(), n)
    cases = stats.norm.pdf(x, s[y].mean(), s[y].std())
    controls = stats.norm.pdf(x, s[~y].mean(), s[~y].std())
    se = np.array([cases[x >= t].sum() for t in x]) / cases.sum()
    sp = np.array([controls[x < t].sum() for t in x]) / controls.sum()
    se, sp = np.r_[1, se, 0], np.r_[0, sp, 1]
    return se, sp, float(np.sum(np.diff(sp) * (se[1:] + se[:-1]) / 2))


def _random_data(seed, n_pos=30, n_neg=40, decimals=1):
    rng = np.random.default_rng(seed)
    s = np.round(np.r_[rng.normal(1, 1.5, n_pos), rng.normal(0, 1, n_neg)], decimals)
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    return y, s


@pytest.mark.parametrize("seed", range(5))
def test_binormal_matches_a_loop_over_thresholds(seed):
    y, s = _random_data(seed)  # ties within and across classes
    result = smooth_roc(pl.DataFrame({"y": y, "s": s}), "y", "s", n=64)
    se, sp, auc = binormal_oracle(y, s, 64)
    points = result.to_frame()
    assert isinstance(points, pl.DataFrame)
    order = np.argsort(sp, kind="stable")
    np.testing.assert_allclose(points["sensitivity"].to_numpy()[1:-1], se[order], atol=1e-9)
    np.testing.assert_allclose(points["specificity"].to_numpy()[1:-1], sp[order], atol=1e-9)
    assert result.auc()["estimate"][0] == pytest.approx(auc, abs=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_fitdistr_normal_matches_the_definition(seed):
    y, s = _random_data(seed, 12, 9, 2)
    result = smooth_roc(pl.DataFrame({"y": y, "s": s}), "y", "s", method="fitdistr", n=40)
    se, sp, auc = fitdistr_normal_oracle(y, s, 40)
    np.testing.assert_allclose(result.to_frame()["sensitivity"].to_numpy(), se, atol=1e-12)
    np.testing.assert_allclose(result.to_frame()["specificity"].to_numpy(), sp, atol=1e-12)
    assert result.auc()["estimate"][0] == pytest.approx(auc, abs=1e-12)


def test_density_near_the_exact_kernel_sum():
    """Without binning and FFT: Gaussian kernels summed exactly at the grid (differs only by the binning error)."""
    y, s = _random_data(11, 50, 60, 3)
    result = smooth_roc(pl.DataFrame({"y": y, "s": s}), "y", "s", method="density")
    # Silverman's pooled bandwidth, written from its formula
    iqr = np.subtract(*np.percentile(s, [75, 25]))
    h = 0.9 * min(s.std(ddof=1), iqr / 1.34) * s.size ** -0.2
    assert result.parameters["bandwidth"][0] == pytest.approx(h, rel=1e-13)
    x = np.linspace(s.min() - 3 * h, s.max() + 3 * h, 512)
    cases = stats.norm.pdf((x[:, None] - s[y][None, :]) / h).sum(axis=1)
    controls = stats.norm.pdf((x[:, None] - s[~y][None, :]) / h).sum(axis=1)
    se = np.r_[1, np.cumsum(cases[::-1])[::-1] / cases.sum(), 0]
    sp = np.r_[0, 0, np.cumsum(controls)[:-1] / controls.sum(), 1]
    auc = np.sum(np.diff(sp) * (se[1:] + se[:-1]) / 2)
    np.testing.assert_allclose(result.to_frame()["sensitivity"].to_numpy(), se, atol=2e-3)
    assert result.auc()["estimate"][0] == pytest.approx(auc, abs=1e-3)


@pytest.mark.parametrize("method", ["binormal", "density", "fitdistr"])
def test_rows_without_counts_change_nothing(method):
    y, s = _random_data(3)
    values, inverse = np.unique(-s, return_inverse=True)
    pos = np.bincount(inverse, weights=y).astype(np.int64)
    neg = np.bincount(inverse, weights=~y).astype(np.int64)
    plain = TieTable(-values, pos, neg, [0, values.size])
    padded_scores = np.sort(np.r_[values, values[:-1] + 1e-3 * np.diff(values)])
    at = np.searchsorted(padded_scores, values)
    p, q = np.zeros(padded_scores.size, np.int64), np.zeros(padded_scores.size, np.int64)
    p[at], q[at] = pos, neg
    padded = TieTable(-padded_scores, p, q, [0, padded_scores.size])
    a, b = smooth_tables(plain, method, 100), smooth_tables(padded, method, 100)
    np.testing.assert_allclose(a.sensitivity, b.sensitivity, atol=1e-14)
    np.testing.assert_allclose(a.auc, b.auc, atol=1e-14)


def test_bootstrap_equals_smoothing_each_resampled_data_set():
    """Replicate by replicate: the same counts expanded to rows, smoothed by the oracle, the type 7 quantiles."""
    y, s = _random_data(5, 15, 20)
    frame = pl.DataFrame({"y": y, "s": s})
    result = smooth_roc(frame, "y", "s", n=32)
    ours = result.conf_int(level=0.9, n_boot=60, rng=123)
    replicates = stratified_counts(result.ties, 60, streams=Streams.for_keys(123, result.keys, result.by,
                                                                            "smooth_roc"))
    areas = []
    for b in range(60):
        lo, hi = replicates.offsets[b], replicates.offsets[b + 1]
        score = replicates.score[lo:hi]
        rows = np.r_[np.repeat(score, replicates.pos[lo:hi]), np.repeat(score, replicates.neg[lo:hi])]
        labels = np.r_[np.ones(replicates.pos[lo:hi].sum(), bool), np.zeros(replicates.neg[lo:hi].sum(), bool)]
        areas.append(binormal_oracle(labels, rows, 32)[2])
    assert ours["lower"][0] == pytest.approx(np.quantile(areas, 0.05), abs=1e-10)
    assert ours["upper"][0] == pytest.approx(np.quantile(areas, 0.95), abs=1e-10)


def test_interval_reproducible_and_groups_independent():
    y, s = _random_data(8, 25, 25)
    frame = pl.DataFrame({"y": np.r_[y, y], "s": np.r_[s, s + 0.3 * (s > 0)], "g": ["a"] * 50 + ["b"] * 50})
    both = smooth_roc(frame, "y", "s", by="g", method="density")
    first = both.conf_int(n_boot=200, rng=5)
    assert first.equals(both.conf_int(n_boot=200, seed=5))
    assert not first.equals(both.conf_int(n_boot=200, rng=6))
    alone = smooth_roc(frame.filter(pl.col("g") == "a"), "y", "s", by="g", method="density")
    assert alone.conf_int(n_boot=200, rng=5)["lower"][0] == first["lower"][0]
    # a group's curve does not depend on the other groups
    np.testing.assert_array_equal(alone.auc()["estimate"].to_numpy(), both.auc()["estimate"].to_numpy()[:1])


# ------------------------------------------------------------------ edge cases
def test_perfect_separation():
    frame = pl.DataFrame({"y": [1, 1, 1, 0, 0, 0], "s": [6.0, 5, 4, 3, 2, 1]})
    with pytest.warns(DegenerateGroupWarning, match="cannot be smoothed"):
        binormal = smooth_roc(frame, "y", "s")
    assert math.isnan(binormal.auc()["estimate"][0])
    assert "not smoothable" in binormal.auc()["note"][0]
    assert binormal.conf_int(n_boot=20, rng=1)["lower"].is_nan()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        density = smooth_roc(frame, "y", "s", method="density")
    assert 0.5 < density.auc()["estimate"][0] < 1.0


def test_constant_scores():
    frame = pl.DataFrame({"y": [1, 0, 1, 0, 1], "s": [2.0] * 5})
    with pytest.warns(DegenerateGroupWarning):
        assert math.isnan(smooth_roc(frame, "y", "s").auc()["estimate"][0])
    with pytest.warns(DegenerateGroupWarning):
        assert "fewer than two distinct" in smooth_roc(frame, "y", "s", method="fitdistr").auc()["note"][0]
    # the same kernel density in both classes (Silverman's fallback bandwidth |score|): the diagonal
    density = smooth_roc(frame, "y", "s", method="density")
    assert density.auc()["estimate"][0] == pytest.approx(0.5, abs=1e-12)


def test_one_to_three_cases():
    y, s = np.array([1, 0, 1, 0, 1, 0, 0], bool), np.array([4.0, 3.5, 3, 2.5, 2, 2, 1])  # a tie across the classes
    result = smooth_roc(pl.DataFrame({"y": y, "s": s}), "y", "s")  # three points inside the square
    auc = binormal_oracle(y, s, 512)[2]
    assert result.auc()["estimate"][0] == pytest.approx(auc, abs=1e-12)
    one = pl.DataFrame({"y": [1, 0, 0], "s": [3.0, 1.0, 2.0]})
    with pytest.warns(DegenerateGroupWarning):
        assert math.isnan(smooth_roc(one, "y", "s").auc()["estimate"][0])
    assert np.isfinite(smooth_roc(one, "y", "s", method="density").auc()["estimate"][0])


def test_group_without_a_class():
    frame = pl.DataFrame({"y": [1, 0, 1, 0, 1, 1], "s": [3.0, 1, 2, 2.5, 4, 5], "g": [1, 1, 1, 1, 2, 2]})
    with pytest.warns(DegenerateGroupWarning):
        result = smooth_roc(frame, "y", "s", by="g", method="density")
    areas = result.auc()
    assert np.isfinite(areas["estimate"][0]) and math.isnan(areas["estimate"][1])
    assert areas["note"][1] is not None
    assert result.to_frame().filter(pl.col("g") == 2)["sensitivity"].is_nan().all()


def test_lognormal_needs_positive_scores():
    frame = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [3.0, -1, 2, 2.5, 4, 0.5]})
    with pytest.warns(DegenerateGroupWarning, match="support"):
        result = smooth_roc(frame, "y", "s", method="fitdistr", distributions="lognormal")
    assert math.isnan(result.auc()["estimate"][0])


def test_several_scores_and_frame_types():
    frame, outcome, positive = DATA["asah"]
    result = smooth_roc(frame, outcome, ["s100b", "ndka"], positive=positive, method="fitdistr")
    areas = result.auc()
    assert isinstance(areas, pd.DataFrame) and list(areas["score"]) == ["s100b", "ndka"]
    expected = {c["score"]: c["auc"] for c in PROC["curves"]
                if c["data"] == "asah" and c["method"] == "fitdistr" and c["direction"] == "<" and c["n"] == 512
                and not {"density", "density.controls"} & set(c)}
    np.testing.assert_allclose(areas["estimate"], [expected["s100b"], expected["ndka"]], atol=1e-10)
    assert "fitdistr" in result.summary()
    assert isinstance(result.conf_int(n_boot=50, rng=1), pd.DataFrame)
    formula = smooth_roc(f"{outcome} ~ s100b", data=frame, positive=positive)
    assert formula.auc()["estimate"].iloc[0] == pytest.approx(
        next(c["auc"] for c in PROC["curves"] if c["score"] == "s100b" and c["method"] == "binormal"), abs=1e-10)


# ------------------------------------------------------------------ bad input
FRAME = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [3.0, 1, 2, 2.5, 4, 0.5]})


@pytest.mark.parametrize("arguments,error,message", [
    ({"method": "spline"}, InputError, "`method`"),
    ({"method": "logcondens"}, InputError, "not offered"),
    ({"method": 3}, InputTypeError, "`method`"),
    ({"n": 1}, InputError, "`n`"),
    ({"n": 2.5}, InputTypeError, "`n`"),
    ({"n": True}, InputTypeError, "`n`"),
    ({"adjust": 0}, InputError, "`adjust`"),
    ({"adjust": -1.0}, InputError, "`adjust`"),
    ({"adjust": float("nan")}, InputError, "`adjust`"),
    ({"bandwidth": "ucv"}, InputError, "`bandwidth`"),
    ({"bandwidth": -0.1}, InputError, "`bandwidth`"),
    ({"bandwidth": [1]}, InputTypeError, "`bandwidth`"),
    ({"kernel": "box"}, InputError, "`kernel`"),
    ({"distributions": "gamma"}, InputError, "`distributions`"),
    ({"distributions": ("normal",)}, InputTypeError, "`distributions`"),
])
def test_bad_arguments(arguments, error, message):
    with pytest.raises(error, match=message):
        smooth_roc(FRAME, "y", "s", **arguments)


def test_bad_interval_arguments():
    result = smooth_roc(FRAME, "y", "s", method="density")
    with pytest.raises(InputError, match="`level`"):
        result.conf_int(level=1.5)
    with pytest.raises(InputTypeError, match="`n_boot`"):
        result.conf_int(n_boot=10.5)
    with pytest.raises(InputError, match="once"):
        result.conf_int(rng=1, seed=2)


def test_interval_notes_carry_the_coverage_studys_caveats():
    import polars as pl
    from aucpr_stats.curves.smooth_roc import smooth_roc as verb

    gen = np.random.default_rng(12)
    y = np.repeat([1, 0], [60, 90])
    frame = pl.DataFrame({"y": y, "s": gen.normal(size=150) + 1.2 * y})
    notes = {m: verb(frame, "y", "s", method=m).conf_int(n_boot=100, rng=1)["note"][0]
             for m in ("binormal", "density", "fitdistr")}
    assert notes["binormal"] is None
    assert "biased toward 0.5" in notes["density"] and "17-94%" in notes["density"]
    assert "families must hold" in notes["fitdistr"]
