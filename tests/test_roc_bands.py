"""ROC bands and pointwise intervals: pROC's coords and ci.se/ci.sp, an independent bootstrap, the result."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.metrics import roc_curve as sk_roc_curve

from aucpr_stats import roc_curve
from aucpr_stats.curves.roc_band import (
    RocBandResult,
    sensitivity_at_specificity,
    specificity_at_sensitivity,
)
from aucpr_stats.exceptions import InputError
from aucpr_stats.ties import TieTable

REFERENCE = json.loads((pathlib.Path(__file__).parent / "reference" / "partial_auc.json").read_text())


def table_of(y, s) -> TieTable:
    y, s = np.asarray(y, bool), np.asarray(s, float)
    distinct = np.unique(s)[::-1]
    return TieTable(score=distinct, pos=[int((y & (s == d)).sum()) for d in distinct],
                    neg=[int((~y & (s == d)).sum()) for d in distinct], offsets=[0, distinct.size])


@pytest.fixture(scope="module")
def binormal():
    data = REFERENCE["binormal"]
    return pl.DataFrame({"y": data["y"], "s": [float(v) for v in data["s"]]})


# ------------------------------------------------------------------ point readings: pROC's coords
def test_readings_equal_proc_coords():
    """Sensitivity at specificity and the reverse, where the curve is vertical or horizontal too."""
    at = np.array([0, 1 / 6, 1 / 4, 1 / 3, 1 / 2, 0.6, 2 / 3, 5 / 6, 0.9, 1])  # the R script's grid, exactly
    for case in REFERENCE["coords_edges"].values():
        t = table_of(case["y"], case["s"])
        assert sensitivity_at_specificity(t, at)[0] == pytest.approx(case["se"], abs=1e-12)
        assert specificity_at_sensitivity(t, at)[0] == pytest.approx(case["sp"], abs=1e-12)
    data = REFERENCE["binormal"]
    t = table_of(data["y"], data["s"])
    assert sensitivity_at_specificity(t, REFERENCE["ci_se"]["at"])[0] == pytest.approx(REFERENCE["coords_se"], abs=1e-12)
    assert specificity_at_sensitivity(t, REFERENCE["ci_sp"]["at"])[0] == pytest.approx(REFERENCE["coords_sp"], abs=1e-12)


def read_sklearn(y, s, grid) -> np.ndarray:
    """TPR at each FPR of the straight-line curve through scikit-learn's points, with a loop.

    At an FPR of the curve, the highest TPR there; between two, the line from
    the top of the left one to the bottom of the right one.
    """
    fpr, tpr, _ = sk_roc_curve(y, s, drop_intermediate=False)
    xs = np.unique(fpr)
    out = []
    for q in grid:
        if q in xs:
            out.append(tpr[fpr == q].max())
            continue
        k = np.searchsorted(xs, q) - 1
        x0, x1 = xs[k], xs[k + 1]
        y0, y1 = tpr[fpr == x0].max(), tpr[fpr == x1].min()
        out.append(y0 + (y1 - y0) * (q - x0) / (x1 - x0))
    return np.array(out)


@pytest.mark.parametrize("rounding", [None, 1])
def test_readings_against_sklearn(rounding):
    """Against scikit-learn's points read by a loop, with and without ties across classes."""
    rng = np.random.default_rng(5)
    y = rng.random(200) < 0.3
    s = rng.normal(size=200) + y
    s = s if rounding is None else np.round(s, rounding)
    grid = np.linspace(0, 1, 37)
    got = sensitivity_at_specificity(table_of(y, s), 1 - grid)[0]
    assert got == pytest.approx(read_sklearn(y, s, grid), abs=1e-12)


# ------------------------------------------------------------------ ci.se / ci.sp in distribution
def test_pointwise_intervals_agree_with_proc(binormal):
    """2000 replicates each: limits within Monte Carlo error of pROC's (different random streams)."""
    curve = roc_curve(binormal, "y", "s")
    se = curve.intervals(specificity=REFERENCE["ci_se"]["at"], n_boot=2000, seed=11)
    sp = curve.intervals(sensitivity=REFERENCE["ci_sp"]["at"], n_boot=2000, seed=11)
    for ours, ref in ((se, REFERENCE["ci_se"]), (sp, REFERENCE["ci_sp"])):
        # a 2.5% quantile of 2000 replicates of a proportion near 90 positives: Monte Carlo sd about 0.01
        assert ours.lower[0] == pytest.approx(ref["lower"], abs=0.035)
        assert ours.upper[0] == pytest.approx(ref["upper"], abs=0.035)
        assert ours.boot_median[0] == pytest.approx(ref["median"], abs=0.02)


# ------------------------------------------------------------------ the band
def independent_band_half_width(y, s, grid, n_boot, level, rng) -> float:
    """Resample the rows of each class with numpy, read scikit-learn's curve by numpy.interp, take the sup."""
    y = np.asarray(y, bool)
    s = np.asarray(s, float)
    pos, neg = s[y], s[~y]

    def reading(p, n):
        return read_sklearn(np.r_[np.ones(p.size, bool), np.zeros(n.size, bool)], np.r_[p, n], grid)

    estimate = reading(pos, neg)
    sups = [np.max(np.abs(reading(rng.choice(pos, pos.size), rng.choice(neg, neg.size)) - estimate))
            for _ in range(n_boot)]
    return float(np.quantile(sups, level))


def test_band_half_width_matches_an_independent_bootstrap(binormal):
    y, s = binormal["y"].to_numpy(), binormal["s"].to_numpy()
    grid = np.linspace(0, 1, 51)
    band = roc_curve(binormal, "y", "s").band(n_boot=1500, grid=grid, seed=3)
    oracle = independent_band_half_width(y, s, grid, 1500, 0.95, np.random.default_rng(4))
    assert band.half_width[0] == pytest.approx(oracle, rel=0.08)
    inside = (band.lower[0] <= band.estimate[0]) & (band.estimate[0] <= band.upper[0])
    assert inside.all()
    unclipped = (band.lower[0] > 0) & (band.upper[0] < 1)
    assert np.allclose((band.upper[0] - band.lower[0])[unclipped], 2 * band.half_width[0])


def test_groups_draw_their_own_streams():
    rng = np.random.default_rng(2)
    df = pl.DataFrame({"y": rng.random(400) < 0.4, "s": rng.normal(size=400), "g": rng.integers(0, 3, 400)})
    df = df.with_columns(s=pl.col("s") + pl.col("y"))
    both = roc_curve(df, "y", "s", by="g").band(n_boot=200, seed=9)
    alone = roc_curve(df.filter(pl.col("g") == 1), "y", "s", by="g").band(n_boot=200, seed=9)
    assert np.array_equal(both.upper[1], alone.upper[0])
    ci = roc_curve(df, "y", "s", by="g").intervals(specificity=[0.9], n_boot=200, seed=9)
    assert ci.to_frame().columns == ["g", "method", "level", "specificity", "estimate", "lower", "upper",
                                     "boot_median"]


def test_degenerate_group_and_pandas(binormal):
    df = pd.DataFrame({"y": [1, 0, 1, 0, 1, 1], "s": [0.9, 0.2, 0.8, 0.4, 0.1, 0.5], "g": ["a"] * 4 + ["b"] * 2})
    with pytest.warns(Warning):
        curve = roc_curve(df, "y", "s", by="g")
    band = curve.band(n_boot=50, seed=1)
    frame = band.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.loc[frame["g"] == "b", "lower"].isna().all()
    assert isinstance(band, RocBandResult) and "RocBandResult" in repr(band)
    assert "<p><b>" in band._repr_html_()


def test_plot_runs(binormal):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    curve = roc_curve(binormal, "y", "s")
    assert curve.band(n_boot=50, seed=1).plot() is not None
    assert curve.intervals(specificity=[0.8, 0.9], n_boot=50, seed=1).plot() is not None
    assert curve.intervals(sensitivity=[0.8, 0.9], n_boot=50, seed=1).plot() is not None


def test_bad_arguments(binormal):
    curve = roc_curve(binormal, "y", "s")
    with pytest.raises(InputError, match="give one of"):
        curve.intervals()
    with pytest.raises(InputError, match="give one of"):
        curve.intervals(specificity=[0.9], sensitivity=[0.9])
    with pytest.raises(InputError, match="specificity"):
        curve.intervals(specificity=[1.2])
    with pytest.raises(InputError, match="level"):
        curve.band(level=95)
    with pytest.raises(InputError, match="grid"):
        curve.band(grid=1)
