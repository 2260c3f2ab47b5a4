"""Any column name works as outcome, score or group, or is refused before any work (issue 15, item 2)."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from aucpr_stats import aucpr, auroc, compare
from aucpr_stats.exceptions import InputError
from aucpr_stats.ingest import RESULT_COLUMNS

NAMES = sorted(RESULT_COLUMNS) + ["__aucpr_s", "__aucpr_y", "__aucpr_g", "__row", "__group", "site", "y2", "s"]

BASE = pl.DataFrame({
    "y": [0, 1, 0, 1, 1, 0, 1, 0],
    "s": [0.1, 0.9, 0.3, 0.4, 0.8, 0.2, 0.6, 0.7],
    "g": [1, 1, 1, 1, 2, 2, 2, 2],
})


def _expected(frame: pl.DataFrame) -> list[float]:
    return [roc_auc_score(part["y"].to_list(), part["s"].to_list())
            for _, part in frame.group_by("g", maintain_order=True)]


def _unique(frame) -> None:
    assert len(set(frame.columns)) == len(frame.columns)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.sampled_from(["outcome", "score", "by"]))
def test_any_name_gives_a_result_or_a_clear_refusal(name, role):
    column = {"outcome": "y", "score": "s", "by": "g"}[role]
    if name in BASE.columns and name != column:
        return
    data = BASE.rename({column: name})
    names = {"outcome": "y", "score": "s", "by": "g"} | {role: name}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = auroc(data, names["outcome"], names["score"], by=names["by"])
    except InputError as error:
        assert role == "by"
        assert repr(name) in str(error) and "Rename" in str(error)
        return
    frame = result.to_frame()
    _unique(frame)
    _unique(result.conf_int(method="all", n_boot=20, seed=1))
    _unique(aucpr(data, names["outcome"], names["score"], by=names["by"]).conf_int())
    assert frame["estimate"].to_list() == pytest.approx(_expected(BASE))
    assert frame.columns[0] == names["by"]


@pytest.mark.parametrize("name", ["estimate", "note", "n_pos", "n_neg", "estimator", "prevalence", "n_missing",
                                  "lower", "upper", "level", "method", "se", "score", "difference", "p_value"])
def test_result_column_names_as_group_are_refused_before_work(name):
    data = BASE.rename({"g": name})
    for call in (lambda: aucpr(data, "y", "s", by=name), lambda: auroc(data.lazy(), "y", "s", by=name),
                 lambda: aucpr(data.to_pandas(), "y", "s", by=name),
                 lambda: compare(data.with_columns(s2=pl.col("s") ** 2), "y", ["s", "s2"], by=name)):
        with pytest.raises(InputError, match=f"(?i)`by`.*'{name}'.*rename"):
            call()


def test_result_column_names_as_between_and_fold_are_refused():
    data = BASE.with_columns(method=pl.col("g"), estimate=pl.Series([0, 1] * 4))
    with pytest.raises(InputError, match="`between` column 'method'"):
        compare(data, "y", "s", between="method")
    with pytest.raises(InputError, match="`fold` column '__aucpr_s'"):
        aucpr(data.with_columns(__aucpr_s=pl.col("g")), "y", "s", fold="__aucpr_s")
    with pytest.raises(InputError, match="g_a"):
        compare(data.with_columns(g_a=pl.col("g")), "y", "s", by="g_a", between="g")


def test_outcome_and_score_named_like_result_columns():
    data = BASE.rename({"y": "estimate", "s": "method"})
    frame = aucpr(data, "estimate", "method", by="g").conf_int()
    _unique(frame)
    table = aucpr(data, "estimate", "method", by="g").table()
    assert "NA" not in str(table)
    several = BASE.with_columns(score=pl.col("s"), n_pos=1 - pl.col("s"))
    frame = auroc(several, "y", ["score", "n_pos"], by="g").to_frame()
    _unique(frame)
    assert frame["estimate"].to_list()[:2] == pytest.approx([_expected(BASE)[0], 1 - _expected(BASE)[0]])


def test_wide_integer_group_keys_with_nulls():
    keys = [2**63 - 1, 2**63 - 1, -(2**63), -(2**63), None, None, 7, 7]
    data = BASE.with_columns(g=pl.Series(keys, dtype=pl.Int64))
    frame = auroc(data, "y", "s", by="g").to_frame()
    assert frame["g"].to_list() == [-(2**63), 7, 2**63 - 1, None]
    assert frame["n_pos"].to_list() == [1, 1, 1, 1]
    unsigned = BASE.with_columns(g=pl.Series([2**64 - 1] * 4 + [2**63] * 4, dtype=pl.UInt64))
    for data in (unsigned, unsigned.to_pandas(), unsigned.lazy()):
        frame = pl.from_pandas(auroc(data, "y", "s", by="g").to_frame()) if not isinstance(
            data, (pl.DataFrame, pl.LazyFrame)) else auroc(data, "y", "s", by="g").to_frame()
        assert [int(v) for v in frame["g"].to_list()] == [2**63, 2**64 - 1]
        assert frame["estimate"].to_list() == pytest.approx(_expected(BASE)[::-1])
    with_null = BASE.with_columns(g=pl.Series([2**64 - 1] * 4 + [None] * 4, dtype=pl.UInt64))
    assert auroc(with_null, "y", "s", by="g").to_frame()["estimate"].to_list() == pytest.approx(_expected(BASE))
