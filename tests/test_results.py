"""Typed results: stable columns, the caller's frame type, text output."""

from __future__ import annotations

import attrs
import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.metrics import average_precision_score

from aucpr_stats import AucprResult, aucpr

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
