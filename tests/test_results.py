"""Typed results: stable columns, the caller's frame type, text output."""

from __future__ import annotations

import warnings

import attrs
import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.metrics import average_precision_score

from aucpr_stats import AucprResult, aucpr, auroc

from .conftest import as_polars, make_frame, random_scores, result_frame_type


def grouped(kind):
    rng = np.random.default_rng(3)
    y, s = random_scores(rng, 600)
    site = np.array(["north", "south", "east"])[rng.integers(0, 3, 600)]
    sex = np.array(["F", "M"])[rng.integers(0, 2, 600)]
    return make_frame({"y": y, "s": s, "site": site, "sex": sex}, kind), y, s, site, sex


def test_frame_type_and_columns(frame_kind):
    data, y, s, site, sex = grouped(frame_kind)
    result = aucpr(data, "y", "s", by=["sex", "site"], estimator="average_precision")
    frame = result.to_frame()
    assert isinstance(frame, result_frame_type(frame_kind))
    assert list(frame.columns) == ["sex", "site", "estimator", "estimate", "n_pos", "n_neg", "prevalence", "note", "n_missing"]
    frame = as_polars(frame)
    assert frame.height == 6
    assert frame.select("sex", "site").rows() == sorted(frame.select("sex", "site").rows())
    for row in frame.iter_rows(named=True):
        mask = (sex == row["sex"]) & (site == row["site"])
        assert row["estimate"] == pytest.approx(average_precision_score(y[mask], s[mask]), abs=1e-12)
        assert (row["n_pos"], row["n_neg"]) == (int(y[mask].sum()), int((~y[mask]).sum()))


def test_ungrouped_estimate_is_float_and_grouped_refuses(frame_kind):
    data, y, s, *_ = grouped(frame_kind)
    result = aucpr(data, "y", "s", estimator="average_precision")
    assert isinstance(result.estimate, float)
    assert result.estimate == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert repr(result) == f"AucprResult(average_precision={result.estimate:.4f}, n_pos={int(y.sum())}, n_neg={int((~y).sum())})"
    grouped_result = aucpr(data, "y", "s", by="site", estimator="average_precision")
    with pytest.raises(AttributeError, match=r"grouped by \['site'\]: use `.to_frame\(\)`"):
        grouped_result.estimate
    assert repr(grouped_result).startswith("AucprResult(estimators=['average_precision'], by=['site'], groups=3")


def test_summary_is_a_readable_table():
    data, y, s, site, _ = grouped("polars")
    text = aucpr(data, "y", "s", by="site", estimator="average_precision").summary(digits=3)
    lines = text.splitlines()
    assert lines[0] == "AUCPR of s for outcome y, by site"
    assert lines[1].split() == ["site", "estimator", "estimate", "n_pos", "n_neg", "prevalence"]
    east = average_precision_score(y[site == "east"], s[site == "east"])
    assert lines[3].split()[:3] == ["east", "average_precision", f"{east:.3f}"]


def test_result_is_frozen():
    data, *_ = grouped("polars")
    result = aucpr(data, "y", "s", estimator="average_precision")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        result.by = ("x",)
    assert isinstance(result, AucprResult)


def test_lazy_input_returns_polars_dataframe():
    data, *_ = grouped("lazy")
    assert isinstance(aucpr(data, "y", "s", estimator="average_precision").to_frame(), pl.DataFrame)


def test_pandas_nullable_and_categorical_columns():
    data, y, s, site, _ = grouped("pandas")
    data = data.assign(y=pd.array(y.astype(int), dtype="Int64"), site=data["site"].astype("category"))
    frame = aucpr(data, "y", "s", by="site", estimator="average_precision").to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert sorted(frame["site"].astype(str)) == ["east", "north", "south"]


# ---------------------------------------------------------------- every NaN has a note
def _degenerate_frame() -> pl.DataFrame:
    groups = {
        "constant": ([1, 0, 0, 1, 0, 0], [1.0] * 6),                 # every score tied: sigma_x = 0
        "one_positive": ([1, 0, 0, 0], [0.9, 0.1, 0.2, 0.3]),        # a class of one row: no sample sd
        "negatives_tied": ([1, 1, 0, 0, 0], [2.0, 3.0, 1.0, 1.0, 1.0]),
        "fitted": ([1, 1, 0, 0, 0, 0], [5.0, 3.5, 4.0, 2.0, 1.0, 0.0]),
        "no_positive": ([0, 0, 0], [1.0, 2.0, 3.0]),
    }
    rows = [(name, bool(y), s) for name, (ys, ss) in groups.items() for y, s in zip(ys, ss)]
    return pl.DataFrame(rows, schema=["g", "y", "s"], orient="row")


def test_an_undefined_estimate_says_why_in_every_frame_and_warns_once():
    from aucpr_stats.exceptions import DegenerateGroupWarning

    with pytest.warns(DegenerateGroupWarning) as caught:
        result = aucpr(_degenerate_frame(), "y", "s", by="g", estimator=["binormal", "average_precision"])
    undefined = [w for w in caught if "undefined in groups holding both classes" in str(w.message)]
    assert len(undefined) == 1 and "3 estimates" in str(undefined[0].message)
    frame = result.to_polars()
    binormal = frame.filter(pl.col("estimator") == "binormal").sort("g")
    nan = binormal.filter(pl.col("estimate").is_nan())
    assert sorted(nan["g"].to_list()) == ["constant", "negatives_tied", "no_positive", "one_positive"]
    assert nan.filter(pl.col("g") == "no_positive")["note"].to_list() == ["no positives"]
    assert all(note.startswith("no binormal fit") for note in nan.filter(pl.col("g") != "no_positive")["note"])
    # every NaN estimate has a note; a defined one in a group holding both classes has none
    assert frame.filter(pl.col("estimate").is_nan())["note"].null_count() == 0
    assert frame.filter(pl.col("estimate").is_not_nan())["note"].null_count() == frame.filter(
        pl.col("estimate").is_not_nan()).height
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = result.conf_int(method="logit")
    ci_nan = ci.filter(pl.col("estimate").is_nan() & (pl.col("estimator") == "binormal")).sort("g")
    assert ci_nan["note"].to_list() == nan.sort("g")["note"].to_list()


def test_a_standardized_partial_auroc_below_the_diagonal_says_so():
    from aucpr_stats.exceptions import DegenerateGroupWarning

    rng = np.random.default_rng(2)
    y = rng.random(60) < 0.5
    frame = pl.DataFrame({"y": y, "s": rng.normal(size=60) - 1.0 * y})  # a score pointing the wrong way
    with pytest.warns(DegenerateGroupWarning, match="below the diagonal"):
        result = auroc(frame, "y", "s", specificity=(0.8, 1), standardized=True)
    assert np.isnan(result.estimate)
    assert "below the diagonal" in result.to_polars()["note"][0]
