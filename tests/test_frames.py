"""Frame conversion at the boundary, including the path for users without pyarrow."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from aucpr_stats import _frames, aucpr
from aucpr_stats.ingest import detect


def _no_pyarrow(*args, **kwargs):
    raise ImportError("pyarrow is required (simulated)")


def pandas_frame():
    return pd.DataFrame({
        "y": pd.array([1, 0, 1, None, 0, 1, 0, 0], dtype="Int64"),
        "s": pd.array([0.9, 0.8, None, 0.5, 0.4, 0.3, 0.2, 0.1], dtype="Float64"),
        "site": pd.Series(["a", "a", "b", "b", None, "a", "b", "a"], dtype="category"),
        "label": pd.array(["x", "y", None, "x", "y", "x", "y", "x"], dtype="string"),
        "flag": pd.array([True, False, None, True, False, True, False, True], dtype="boolean"),
    })


def test_fallback_matches_pyarrow_conversion(monkeypatch):
    frame = pandas_frame()
    expected = pl.from_pandas(frame)
    monkeypatch.setattr(pl, "from_pandas", _no_pyarrow)
    source = detect(frame)
    got = source.frame(list(frame.columns)).to_native().collect()
    assert source.output == "pandas"
    for name in frame.columns:
        assert got[name].cast(pl.String).to_list() == expected[name].cast(pl.String).to_list(), name
    assert got["y"].null_count() == 1 and got["s"].null_count() == 1 and got["site"].null_count() == 1


def test_aucpr_without_pyarrow_equals_with(monkeypatch):
    frame = pandas_frame()
    with pytest.warns(UserWarning):
        expected = aucpr(frame, "y", "s", by="site", estimator="average_precision", missing="drop").to_frame()
    monkeypatch.setattr(pl, "from_pandas", _no_pyarrow)
    with pytest.warns(UserWarning):
        got = aucpr(frame, "y", "s", by="site", estimator="average_precision", missing="drop").to_frame()
    pd.testing.assert_frame_equal(got.astype({"site": str}), expected.astype({"site": str}))


def test_to_caller_types():
    frame = pl.DataFrame({"a": [1, 2], "b": ["x", None]})
    assert _frames.to_caller(frame, "polars") is frame
    out = _frames.to_caller(frame, "pandas")
    assert isinstance(out, pd.DataFrame) and out["a"].tolist() == [1, 2]
    assert np.asarray(out["b"].isna()).tolist() == [False, True]
