"""to_ard(): the long {cards} Analysis Results Data layout, read back into each result's own frame."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import polars as pl
import pytest

import aucpr_stats as a
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.report.ard import ARD_COLUMNS, to_ard

# the {cards} ARD columns, written out here from the cards documentation (not imported from the module)
CARDS_TAIL = ["variable", "variable_level", "context", "stat_name", "stat_label", "stat", "stat_text",
              "fmt_fn", "warning", "error"]
BROOM = {"lower": "conf.low", "upper": "conf.high", "se": "std.error", "p_value": "p.value", "level": "conf.level"}
IF_FREE = {"difference": "estimate", "z": "statistic"}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 800
    y = rng.integers(0, 2, n)
    return pl.DataFrame({"y": y, "s1": rng.normal(size=n) + y, "s2": rng.normal(size=n) + 0.4 * y,
                         "g": rng.choice(["a", "b"], n), "h": rng.choice(["x", "y", "z"], n)}).with_columns(
        p=1 / (1 + (-pl.col("s1")).exp()))


def _results(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr = a.aucpr(data, "y", ["s1", "s2"], by=["g", "h"])
        roc = a.auroc(data, "y", ["s1", "s2"], by=["g", "h"])
        out = {
            "aucpr": pr, "auroc": roc,
            "pr_curve": a.pr_curve(data, "y", ["s1", "s2"], by=["g", "h"]),
            "roc_curve": a.roc_curve(data, "y", ["s1", "s2"], by=["g", "h"]),
            "compare": a.compare(data, "y", ["s1", "s2"], by=["g", "h"]),
            "cutoffs": a.cutoffs(data, "y", ["s1", "s2"], by=["g", "h"]),
            "heterogeneity": roc.heterogeneity(),
            "plan": a.sample_size("auroc", auc=0.8),
            "roc_band": a.roc_curve(data, "y", "s1", by=["g", "h"]).band(n_boot=50, seed=1),
            "pr_band": a.pr_curve(data, "y", "s1", by=["g", "h"]).band(n_boot=50, seed=1),
            "calibration": a.calibration(data, "y", "p", by=["g", "h"]),
            "net_benefit": a.net_benefit(data, "y", "p", by=["g", "h"]),
            "meta": a.aucpr(data, "y", "s1", by="h").meta(),
        }
    return out


def _name(frame: pl.DataFrame, column: str) -> str:
    if column in IF_FREE and IF_FREE[column] not in frame.columns:
        return IF_FREE[column]
    return BROOM.get(column, column)


def _back(ard: pl.DataFrame, frame: pl.DataFrame, column: str) -> list:
    """One statistic read back from the ARD in the frame's row order (rows are in order, stats in column order)."""
    name = _name(frame, column)
    rows = ard.filter(pl.col("stat_name") == name)
    assert rows.height == frame.height
    numeric = frame[column].dtype.is_numeric() or frame[column].dtype == pl.Boolean
    return rows["stat"].to_list() if numeric else rows["stat_text"].to_list()


@pytest.mark.parametrize("kind", ["aucpr", "auroc", "pr_curve", "roc_curve", "compare", "cutoffs",
                                  "heterogeneity", "plan", "roc_band", "pr_band", "calibration",
                                  "net_benefit", "meta"])
def test_round_trip_every_column(data, kind):
    result = _results(data)[kind]
    frame = result.to_polars()
    ard = result.to_ard()
    keys = [k for k in (getattr(result, "by", None) or ()) if k in frame.columns]
    keys += [k for k in ("score", "score_a", "score_b") if k in frame.columns and k not in keys]
    n_groups = len(keys)
    expected_columns = [c for i in range(1, n_groups + 1) for c in (f"group{i}", f"group{i}_level")] + CARDS_TAIL
    assert ard.columns == expected_columns
    assert ard["stat"].dtype == pl.Float64 and ard["stat_text"].dtype == pl.String
    # exactly one of stat / stat_text is filled on each row of a non-null statistic
    assert not (ard["stat"].is_not_null() & ard["stat_text"].is_not_null()).any()
    # group columns name the key, levels hold its values per frame row
    for i, key in enumerate(keys, start=1):
        assert set(ard[f"group{i}"].to_list()) == {key}
    stats = [c for c in frame.columns if c not in keys and c not in ("estimator", "metric")]
    assert ard.height == frame.height * len(stats)
    first = ard.filter(pl.col("stat_name") == _name(frame, stats[0]))
    for i, key in enumerate(keys, start=1):
        assert first[f"group{i}_level"].to_list() == [None if v is None else str(v) for v in frame[key].to_list()]
    for column in stats:
        got, want = _back(ard, frame, column), frame[column].to_list()
        if frame[column].dtype.is_numeric() or frame[column].dtype == pl.Boolean:
            np.testing.assert_array_equal(np.array(got, dtype=float),
                                          np.array([np.nan if v is None else float(v) for v in want]))
        else:
            assert got == [None if v is None else str(v) for v in want]


def test_interval_stats_with_method(data):
    result = _results(data)["aucpr"]
    conf = result.conf_int_polars(method="logit", level=0.9)
    ard = result.to_ard(method="logit", level=0.9)
    names = set(ard["stat_name"].to_list())
    assert {"estimate", "conf.low", "conf.high", "conf.level", "method"} <= names
    np.testing.assert_array_equal(ard.filter(pl.col("stat_name") == "conf.low")["stat"].to_numpy(),
                                  conf["lower"].to_numpy())
    np.testing.assert_array_equal(ard.filter(pl.col("stat_name") == "conf.high")["stat"].to_numpy(),
                                  conf["upper"].to_numpy())
    assert set(ard.filter(pl.col("stat_name") == "conf.level")["stat"].to_list()) == {0.9}
    assert set(ard.filter(pl.col("stat_name") == "method")["stat_text"].to_list()) == {"logit"}
    assert set(ard["variable"].to_list()) == set(conf["estimator"].to_list())


def test_to_ard_on_a_hand_frame():
    frame = pl.DataFrame({"site": [1, 2], "estimate": [0.5, 0.75], "method": ["logit", "wald"]})
    ard = to_ard(frame, keys=["site"], variable="aucpr", context="test")
    assert ard.columns == ["group1", "group1_level", *ARD_COLUMNS]
    assert ard["group1_level"].to_list() == ["1", "1", "2", "2"]
    assert ard["stat_name"].to_list() == ["estimate", "method"] * 2
    assert ard["stat_label"].to_list()[:2] == ["Estimate", "Method"]
    assert ard["stat"].to_list() == [0.5, None, 0.75, None]
    assert ard["stat_text"].to_list() == [None, "logit", None, "wald"]
    assert set(ard["variable"].to_list()) == {"aucpr"} and set(ard["context"].to_list()) == {"test"}
    # no keys: no group columns
    assert to_ard(frame.drop("site"), variable="x").columns == list(ARD_COLUMNS)


def test_bad_input():
    with pytest.raises(InputTypeError, match="frame"):
        to_ard({"a": [1]})
    frame = pl.DataFrame({"estimate": [0.5]})
    with pytest.raises(InputError, match="keys"):
        to_ard(frame, keys=["site"])
    with pytest.raises(InputError, match="stat_columns"):
        to_ard(frame, stat_columns=["nope"])
    with pytest.raises(InputError, match="method="):
        _results_plan().to_ard(method="logit")


def _results_plan():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return a.sample_size("auroc", auc=0.8)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R not installed")
def test_r_reads_the_csv_back(data, tmp_path):
    result = _results(data)["aucpr"]
    path = tmp_path / "ard.csv"
    result.to_ard().write_csv(path)
    script = (
        f"d <- utils::read.csv('{path}', stringsAsFactors = FALSE);"
        "e <- d[d$stat_name == 'estimate', ];"
        "cat(paste(e$group1_level, e$group2_level, e$group3_level, sprintf('%.15g', e$stat), sep = '|'),"
        " sep = '\\n')"
    )
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True, timeout=60)
    got = {tuple(line.split("|")[:3]): float(line.split("|")[3]) for line in out.stdout.strip().splitlines()}
    frame = result.to_polars()
    want = {(r["g"], r["h"], r["score"]): r["estimate"] for r in frame.iter_rows(named=True)}
    assert set(got) == set(want)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-14)


def test_comparison_uses_broom_names(data):
    result = _results(data)["compare"]
    frame, ard = result.to_polars(), result.to_ard()
    names = set(ard["stat_name"].to_list())
    assert {"estimate", "conf.low", "conf.high", "p.value"} <= names
    np.testing.assert_array_equal(ard.filter(pl.col("stat_name") == "estimate")["stat"].to_numpy(),
                                  frame["difference"].to_numpy())
    np.testing.assert_array_equal(ard.filter(pl.col("stat_name") == "p.value")["stat"].to_numpy(),
                                  frame["p_value"].to_numpy())
