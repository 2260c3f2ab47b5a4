"""The bootstrap of a chosen threshold (issue 38): pROC's ci.coords(x = "best") and ci.thresholds.

pROC 1.18 was run with 2,000 replicates under eight seeds (tests/reference/proc_threshold_bootstrap.R); the
library's percentiles must fall among pROC's, widened by one step of the quantity (1/n for a proportion, the
next distinct threshold for a threshold): the Monte Carlo spread of the two programs' draws.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from aucpr_stats import InputError, cutoffs
from aucpr_stats.thresholds.bootstrap import percentile_type7

REFERENCE = Path(__file__).parent / "reference"
PROC = json.loads((REFERENCE / "proc_threshold_bootstrap.json").read_text())
CRITERION = {"youden": "youden", "closest.topleft": "closest_topleft", "value": "value"}


@pytest.fixture(scope="module")
def asah() -> pl.DataFrame:
    return pl.read_csv(REFERENCE / "proc_power_asah.csv").with_columns(pl.col("wfns").cast(pl.Float64))


def _thresholds(scores: np.ndarray) -> np.ndarray:
    distinct = np.unique(scores)
    return np.concatenate(([-np.inf], (distinct[1:] + distinct[:-1]) / 2, [np.inf]))


def _within(value: float, seeds: list[float], grid: np.ndarray) -> bool:
    """``value`` between pROC's smallest and largest over the seeds, widened by one step of ``grid``."""
    low, high = min(seeds), max(seeds)
    below = grid[grid < low]
    above = grid[grid > high]
    low = below.max() if below.size else low
    high = above.min() if above.size else high
    return low - 1e-12 <= value <= high + 1e-12


@pytest.mark.parametrize("case", PROC, ids=lambda c: f"{c['score']}-{c['criterion']}")
def test_percentiles_agree_with_proc(asah, case):
    score = case["score"]
    threshold = case["threshold"] if case["criterion"] == "value" else CRITERION[case["criterion"]]
    result = cutoffs(asah, "outcome", score, positive="Poor", threshold=threshold)
    boot = result.bootstrap(2000, rng=38).to_polars()
    n_pos, n_neg = int((asah["outcome"] == "Poor").sum()), int((asah["outcome"] == "Good").sum())
    grids = {"sensitivity": np.arange(n_pos + 1) / n_pos, "specificity": np.arange(n_neg + 1) / n_neg,
             "threshold": _thresholds(asah[score].to_numpy())}
    if case["kind"] == "coords":  # the estimate is pROC's best point
        row = boot.filter(pl.col("measure") == "threshold").row(0, named=True)
        assert row["estimate"] == pytest.approx(case["best"]["threshold"], abs=1e-12)
    for measure in ("threshold", "sensitivity", "specificity"):
        if case["kind"] == "thresholds" and measure == "threshold":
            assert boot.filter(pl.col("measure") == "threshold").height == 0  # a given threshold is fixed
            continue
        row = boot.filter(pl.col("measure") == measure).row(0, named=True)
        for k, column in enumerate(("lower", "median", "upper")):
            seeds = [s[measure][k] for s in case["seeds"]]
            assert _within(row[column], seeds, grids[measure]), (measure, column, row[column], seeds)
        assert row["n_used"] == 2000


def test_the_chosen_thresholds_interval_is_wider_than_the_fixed_one(asah):
    # the example: ndka's sensitivity at Youden's threshold, 0.56-0.82 by Wilson, 0.27-0.90 in pROC
    result = cutoffs(asah, "outcome", "ndka", positive="Poor")
    wilson = result.conf_int().filter(pl.col("measure") == "sensitivity").row(0, named=True)
    boot = result.bootstrap(2000, rng=1).to_polars().filter(pl.col("measure") == "sensitivity").row(0, named=True)
    assert boot["upper"] - boot["lower"] > 1.5 * (wilson["upper"] - wilson["lower"])


def test_same_seed_same_numbers_whatever_the_other_groups_and_the_frame(asah):
    two = asah.with_columns(site=pl.Series(np.arange(asah.height) % 2))
    alone = cutoffs(two.filter(pl.col("site") == 1), "outcome", "s100b", by="site",
                    positive="Poor").bootstrap(300, rng=4)
    grouped = cutoffs(two, "outcome", "s100b", by="site", positive="Poor").bootstrap(300, rng=4)
    left = alone.to_polars().drop("note")
    right = grouped.to_polars().filter(pl.col("site") == 1).drop("note")
    assert left.equals(right)
    from_pandas = cutoffs(two.to_pandas(), "outcome", "s100b", by="site", positive="Poor").bootstrap(300, rng=4)
    assert pl.from_pandas(from_pandas.to_frame()).drop("note").equals(grouped.to_polars().drop("note"))


def test_direction_lower_reports_thresholds_on_the_callers_scale(asah):
    flipped = asah.with_columns(neg=-pl.col("s100b"))
    up = cutoffs(asah, "outcome", "s100b", positive="Poor").bootstrap(500, rng=2).to_polars()
    down = cutoffs(flipped, "outcome", "neg", positive="Poor", direction="lower").bootstrap(500, rng=2).to_polars()
    a, b = up.filter(pl.col("measure") == "threshold"), down.filter(pl.col("measure") == "threshold")
    assert b["estimate"][0] == pytest.approx(-a["estimate"][0])
    assert b["lower"][0] == pytest.approx(-a["upper"][0]) and b["upper"][0] == pytest.approx(-a["lower"][0])
    for measure in ("sensitivity", "specificity"):
        assert (up.filter(pl.col("measure") == measure).select("lower", "median", "upper")
                .equals(down.filter(pl.col("measure") == measure).select("lower", "median", "upper")))


def test_type7_percentiles_equal_numpy_and_keep_infinities():
    gen = np.random.default_rng(1)
    values = gen.normal(size=(4, 101))
    values[1, :7] = np.nan
    for q in (0.025, 0.5, 0.975):
        expected = np.array([np.quantile(v[np.isfinite(v)], q) for v in values])
        assert np.allclose(percentile_type7(values, q), expected, rtol=0, atol=1e-14)
    assert percentile_type7(np.array([1.0, np.inf, np.inf]), 0.975) == np.inf
    assert percentile_type7(np.array([-np.inf, 1.0, 2.0]), 0.1) == -np.inf
    assert np.isnan(percentile_type7(np.array([np.nan, np.nan]), 0.5))


def test_ties_omit_drops_replicates_with_several_best_thresholds():
    frame = pl.DataFrame({"y": [0, 0, 1, 1, 0, 1, 0, 1], "s": [1.0, 2, 2, 3, 4, 4, 5, 6]})
    result = cutoffs(frame, "y", "s")
    omitted = result.bootstrap(400, rng=3, ties="omit").to_polars()
    kept = result.bootstrap(400, rng=3).to_polars()
    assert (omitted["n_used"] < 400).all() and (kept["n_used"] == 400).all()
    assert "without a single best threshold" in omitted["note"][0]


def test_bad_input(asah):
    with pytest.raises(InputError, match="threshold='all'"):
        cutoffs(asah, "outcome", "s100b", positive="Poor", threshold="all").bootstrap(100)
    with pytest.raises(InputError, match="`ties`"):
        cutoffs(asah, "outcome", "s100b", positive="Poor").bootstrap(100, ties="stop")
    weighted = asah.with_columns(w=pl.lit(2.0))
    with pytest.raises(InputError, match="`weights=` or `cluster=`"):
        cutoffs(weighted, "outcome", "s100b", positive="Poor", weights="w").bootstrap(100)
    with pytest.raises(InputError, match="n_boot"):
        cutoffs(asah, "outcome", "s100b", positive="Poor").bootstrap(0)


def test_few_positives_are_flagged(asah):
    from aucpr_stats import SmallSampleWarning

    with pytest.warns(SmallSampleWarning, match="fewer than 50 positives or negatives"):
        boot = cutoffs(asah, "outcome", "s100b", positive="Poor").bootstrap(200, rng=1).to_polars()
    assert boot["note"].str.contains("may under-cover").all()  # 41 positives
    gen = np.random.default_rng(5)
    y = np.repeat([1, 0], [120, 150])
    big = pl.DataFrame({"y": y, "s": gen.normal(size=270) + y})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        assert cutoffs(big, "y", "s").bootstrap(200, rng=1).to_polars()["note"].is_null().all()


@pytest.mark.parametrize("target", ["sensitivity>=0.9", "specificity>=0.95", "sensitivity>=0.5", "sensitivity>=1"])
def test_target_criteria_equal_a_brute_force_search(target):
    gen = np.random.default_rng(9)
    y = (gen.random(150) < 0.4).astype(np.int64)
    s = np.round(gen.normal(size=150) + y, 1)  # ties within and across classes
    result = cutoffs(pl.DataFrame({"y": y, "s": s}), "y", "s", threshold=target).to_polars()
    measure, value = target.split(">=")
    distinct = np.unique(s)
    candidates = np.concatenate(([-np.inf], (distinct[1:] + distinct[:-1]) / 2, [np.inf]))
    best, found = -1.0, []
    for t in candidates:  # every threshold of the data, pROC's list
        se, sp = np.mean(s[y == 1] >= t), np.mean(s[y == 0] < t)
        reached, other = (se, sp) if measure == "sensitivity" else (sp, se)
        if reached >= float(value) - 1e-12:
            if other > best + 1e-12:
                best, found = other, [t]
            elif abs(other - best) <= 1e-12:
                found.append(t)
    assert sorted(result["threshold"].to_list()) == pytest.approx(sorted(found))
    assert result["criterion"][0] == target
    other = "specificity" if measure == "sensitivity" else "sensitivity"
    assert result[other][0] == pytest.approx(best)


def test_a_target_threshold_is_rechosen_in_every_replicate(asah):
    boot = cutoffs(asah, "outcome", "s100b", positive="Poor", threshold="sensitivity>=0.9").bootstrap(
        400, rng=2).to_polars()
    sensitivity = boot.filter(pl.col("measure") == "sensitivity").row(0, named=True)
    assert sensitivity["lower"] >= 0.9 - 1e-12  # every replicate's chosen threshold reaches the target
    threshold = boot.filter(pl.col("measure") == "threshold").row(0, named=True)
    assert threshold["lower"] < threshold["estimate"] < threshold["upper"]


def test_bad_targets_are_refused(asah):
    with pytest.raises(InputError, match="the target must be in"):
        cutoffs(asah, "outcome", "s100b", positive="Poor", threshold="sensitivity>=1.5")
    with pytest.raises(InputError, match="'sensitivity>=0.9'"):
        cutoffs(asah, "outcome", "s100b", positive="Poor", threshold="sensitivity=0.9")
