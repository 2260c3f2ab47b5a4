"""Bad input gets a clear error naming the column, the problem and the rows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from aucpr_stats import (
    ColumnNotFoundError,
    DegenerateGroupWarning,
    InputError,
    InputTypeError,
    MissingValueError,
    OutcomeError,
    aucpr,
)

from .conftest import as_polars, make_frame

AP = "average_precision"


def base(kind, **overrides):
    cols = {"y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.2, 0.1], "g": ["a", "a", "a", "b", "b", "b"]}
    cols.update(overrides)
    return make_frame(cols, kind)


def test_missing_column_named_with_available(frame_kind):
    with pytest.raises(ColumnNotFoundError, match=r"column 'score' given as `score` is not in `data`; available columns: \['y', 's', 'g'\]"):
        aucpr(base(frame_kind), outcome="y", score="score", estimator=AP)
    with pytest.raises(KeyError):  # also a KeyError, as pandas users expect
        aucpr(base(frame_kind), outcome="y", score="s", by=["g", "site"], estimator=AP)


def test_non_numeric_score(frame_kind):
    data = base(frame_kind, s=["high", "low", "high", "low", "mid", "low"])
    with pytest.raises(InputTypeError, match=r"`score` column 's' must be numeric; got type String"):
        aucpr(data, outcome="y", score="s", estimator=AP)


def test_missing_values_error_counts_rows(frame_kind):
    data = base(frame_kind, s=[0.9, None, 0.7, np.nan, 0.2, 0.1], y=[1, 0, None, 0, 1, 0])
    with pytest.raises(MissingValueError, match=r"3 of 6 rows have a missing .*`outcome` column 'y': 1; `score` column 's': 2; first rows: \[1, 2, 3\]\).*missing='drop'"):
        aucpr(data, outcome="y", score="s", estimator=AP)


def test_missing_drop_records_per_group(frame_kind):
    data = base(frame_kind, s=[0.9, None, 0.7, np.nan, 0.2, 0.1])
    with pytest.warns(DegenerateGroupWarning, match="no negatives"):
        result = aucpr(data, outcome="y", score="s", by="g", estimator=AP, missing="drop")
    frame = as_polars(result.to_frame())
    assert frame["n_missing"].to_list() == [1, 1]
    assert frame["n_pos"].to_list() == [2, 1] and frame["n_neg"].to_list() == [0, 1]
    # group a lost its only negative: degenerate, NaN, noted
    assert np.isnan(frame["estimate"][0]) and frame["note"][0] == "no negatives"


def test_infinite_scores(frame_kind):
    data = base(frame_kind, s=[0.9, np.inf, 0.7, -np.inf, 0.2, 0.1])
    with pytest.raises(InputError, match=r"`score` column 's' has 2 infinite values \(first rows: \[1, 3\]\)"):
        aucpr(data, outcome="y", score="s", estimator=AP)


def test_outcome_one_level(frame_kind):
    data = base(frame_kind, y=[1] * 6)
    with pytest.raises(OutcomeError, match=r"`outcome` column 'y' has a single level \[1\]"):
        aucpr(data, outcome="y", score="s", estimator=AP)


def test_outcome_many_levels_without_positive(frame_kind):
    data = base(frame_kind, y=["flu", "cold", "covid", "flu", "cold", "flu"])
    with pytest.raises(OutcomeError, match=r"has type String; pass `positive=`"):
        aucpr(data, outcome="y", score="s", estimator=AP)
    data = base(frame_kind, y=[0, 1, 2, 0, 1, 2])
    with pytest.raises(OutcomeError, match=r"has 3 levels \[0, 1, 2\]; pass `positive=`"):
        aucpr(data, outcome="y", score="s", estimator=AP)
    data = base(frame_kind, y=[1, 2, 1, 2, 1, 2])
    with pytest.raises(OutcomeError, match=r"has levels \[1, 2\], not 0/1"):
        aucpr(data, outcome="y", score="s", estimator=AP)


def test_positive_level_absent(frame_kind):
    data = base(frame_kind, y=["case", "control"] * 3)
    with pytest.raises(OutcomeError, match=r"`positive`='Case' does not occur in `outcome` column 'y'; its levels are \['case', 'control'\]"):
        aucpr(data, outcome="y", score="s", estimator=AP, positive="Case")
    with pytest.raises(OutcomeError, match=r"`positive`=1 \(int\) cannot name a level"):
        aucpr(data, outcome="y", score="s", estimator=AP, positive=1)


def test_positive_level_with_more_levels_is_one_vs_rest(frame_kind):
    # issue 16: a third level no longer counts as negative silently; `negative=` says which levels are
    data = base(frame_kind, y=["flu", "cold", "flu", "covid", "flu", "cold"])
    with pytest.raises(OutcomeError, match=r"has 3 levels: 'cold' \(2 rows\), 'covid' \(1 row\), 'flu' \(3 rows\)"):
        aucpr(data, outcome="y", score="s", estimator=AP, positive="flu")
    result = aucpr(data, outcome="y", score="s", estimator=AP, positive="flu", negative=["cold", "covid"])
    assert result.n_pos.tolist() == [3] and result.n_neg.tolist() == [3]
    reference = aucpr(base(frame_kind), outcome="y", score="s", estimator=AP)
    assert result.estimate == pytest.approx(reference.estimate, abs=1e-15)


def test_boolean_and_float_outcomes(frame_kind):
    as_bool = aucpr(base(frame_kind, y=[True, False] * 3), outcome="y", score="s", estimator=AP)
    as_float = aucpr(base(frame_kind, y=[1.0, 0.0] * 3), outcome="y", score="s", estimator=AP)
    assert as_bool.estimate == as_float.estimate


def test_empty_data(frame_kind):
    data = make_frame({"y": np.array([], dtype=np.int64), "s": np.array([], dtype=float)}, frame_kind)
    with pytest.raises(InputError, match=r"`data` has no rows"):
        aucpr(data, outcome="y", score="s", estimator=AP)


def test_all_rows_missing_after_drop(frame_kind):
    data = base(frame_kind, s=[np.nan] * 6)
    with pytest.raises(InputError, match=r"no rows left after dropping 6 rows"):
        aucpr(data, outcome="y", score="s", estimator=AP, missing="drop")


def test_argument_errors(frame_kind):
    data = base(frame_kind)
    with pytest.raises(InputError, match=r"`estimator` must be one of \[.*'average_precision'.*\] or 'all'; got 'trapezoid'"):
        aucpr(data, outcome="y", score="s", estimator="trapezoid")
    with pytest.raises(InputError, match=r"`missing` must be one of \['error', 'drop'\]; got 'ignore'"):
        aucpr(data, outcome="y", score="s", estimator=AP, missing="ignore")
    with pytest.raises(InputTypeError, match=r"`score` must be a column name"):
        aucpr(data, outcome="y", score=3, estimator=AP)
    with pytest.raises(InputError, match=r"`by` must not contain the outcome or score column; got 'y'"):
        aucpr(data, outcome="y", score="s", by="y", estimator=AP)
    with pytest.raises(InputTypeError, match=r"`data` must be a pandas or polars DataFrame, a polars LazyFrame, .*; got dict"):
        aucpr({"y": [1]}, outcome="y", score="s", estimator=AP)


def test_degenerate_group_keeps_others(frame_kind):
    data = base(frame_kind, y=[1, 0, 1, 0, 0, 0])
    with pytest.warns(DegenerateGroupWarning, match=r"1 group without both classes; their estimate is NaN: g='b' \(no positives\)") as record:
        result = aucpr(data, outcome="y", score="s", by="g", estimator=AP)
    assert record[0].filename == __file__  # the warning points at the caller's line
    frame = as_polars(result.to_frame())
    assert frame["note"].to_list() == [None, "no positives"]
    assert frame["estimate"][0] == pytest.approx((1 + 2 / 3) / 2)
    assert np.isnan(frame["estimate"][1])


def test_no_warning_when_all_groups_fine(frame_kind):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aucpr(base(frame_kind, y=[1, 0, 1, 0, 1, 0]), outcome="y", score="s", by="g", estimator=AP)
