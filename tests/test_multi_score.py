"""Several scores in one call equal one call per score, with a `score` key column after `by`."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from aucpr_stats.api import aucpr, auroc
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError, MissingValueError

from .conftest import as_polars, make_frame, random_scores


def assert_same(part: pl.DataFrame, single: pl.DataFrame) -> None:
    """Equal frames; estimates to 1e-12 (segment position in the flat arrays changes rounding)."""
    assert part.columns == single.columns
    assert part.drop("estimate").equals(single.drop("estimate"))
    np.testing.assert_allclose(part["estimate"].to_numpy(), single["estimate"].to_numpy(), rtol=1e-12)

AP = "average_precision"


def cohort(kind, n=300, seed=0):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n, ties=False)
    cols = {
        "y": y.astype(np.int64),
        "s1": s,
        "s2": np.round(s + rng.normal(size=n), 1),       # ties
        "s3": rng.integers(0, 5, size=n),                  # integer score
        "site": rng.choice(["b", "a", "c"], n),
        "sex": rng.choice(["F", "M"], n),
    }
    return cols, make_frame(cols, kind)


@pytest.mark.parametrize("by", [None, "site", ["site", "sex"]])
@pytest.mark.parametrize("fn", [aucpr, auroc])
def test_multi_score_equals_single_calls(frame_kind, by, fn):
    _, df = cohort(frame_kind)
    scores = ["s2", "s1", "s3"]                           # not alphabetical: order is kept
    multi = as_polars(fn(df, "y", scores, by=by).to_frame())
    keys = [] if by is None else ([by] if isinstance(by, str) else by)
    assert multi.columns[: len(keys) + 1] == [*keys, "score"]
    for name in scores:
        single = as_polars(fn(df, "y", name, by=by).to_frame())
        part = multi.filter(pl.col("score") == name).drop("score")
        assert_same(part, single)
    # by keys first (sorted), then the scores in the order given
    expected_order = (
        multi.select(keys).unique(maintain_order=True).height if keys else 1
    )
    assert multi.height == expected_order * len(scores)
    first_group = multi.head(len(scores))
    assert first_group["score"].to_list() == scores


def test_single_score_list_keeps_single_columns(frame_kind):
    _, df = cohort(frame_kind)
    a = as_polars(aucpr(df, "y", ["s1"], by="site", estimator=AP).to_frame())
    b = as_polars(aucpr(df, "y", "s1", by="site", estimator=AP).to_frame())
    assert a.equals(b) and "score" not in a.columns


def test_multi_score_result_api():
    _, df = cohort("polars")
    r = aucpr(df, "y", ["s1", "s2"], estimator=AP)
    assert r.by == ("score",) and r.score == ("s1", "s2")
    with pytest.raises(AttributeError, match="use `.to_frame\\(\\)`"):
        r.estimate
    assert r.summary().splitlines()[0] == "AUCPR of s1, s2 for outcome y"
    r = aucpr(df, "y", ["s1", "s2"], by="site", estimator=AP)
    assert r.summary().splitlines()[0] == "AUCPR of s1, s2 for outcome y, by site"


def test_missing_drop_is_per_score(frame_kind):
    cols, _ = cohort("polars", n=60)
    s2 = cols["s2"].astype(float)
    s2[[0, 1, 2]] = np.nan
    cols = dict(cols, s2=s2)
    df = make_frame(cols, frame_kind)
    with pytest.raises(MissingValueError, match=r"`score` column 's2': 3"):
        aucpr(df, "y", ["s1", "s2"], estimator=AP)
    multi = as_polars(aucpr(df, "y", ["s1", "s2"], estimator=AP, missing="drop").to_frame())
    assert multi["n_missing"].to_list() == [0, 3]
    assert multi["n_pos"].sum() + multi["n_neg"].sum() == 60 + 57
    single = as_polars(aucpr(df, "y", "s2", estimator=AP, missing="drop").to_frame())
    assert_same(multi.filter(pl.col("score") == "s2").drop("score"), single)


def test_errors_name_the_score_column(frame_kind):
    cols, _ = cohort("polars", n=20)
    bad = dict(cols, s2=["x"] * 20)
    with pytest.raises(InputTypeError, match=r"`score` column 's2' must be numeric"):
        aucpr(make_frame(bad, frame_kind), "y", ["s1", "s2"], estimator=AP)
    inf = dict(cols, s3=np.where(np.arange(20) == 4, np.inf, 1.0))
    with pytest.raises(InputError, match=r"`score` column 's3' has 1 infinite value \(first rows: \[4\]\)"):
        aucpr(make_frame(inf, frame_kind), "y", ["s1", "s3"], estimator=AP)
    with pytest.raises(InputError, match=r"column 'nope' given as `score` is not in `data`"):
        aucpr(make_frame(cols, frame_kind), "y", ["s1", "nope"], estimator=AP)
    with pytest.raises(InputError, match=r"`score` names a column more than once: \['s1'\]"):
        aucpr(make_frame(cols, frame_kind), "y", ["s1", "s1"], estimator=AP)
    with pytest.raises(InputError, match=r"at least one column"):
        aucpr(make_frame(cols, frame_kind), "y", [], estimator=AP)
    with pytest.raises(InputError, match=r"`outcome` and `score` name the same column 'y'"):
        aucpr(make_frame(cols, frame_kind), "y", ["s1", "y"], estimator=AP)
    clash = dict(cols, score=cols["site"])
    with pytest.raises(InputError, match=r"`by` contains a column named 'score'"):
        aucpr(make_frame(clash, frame_kind), "y", ["s1", "s2"], by="score", estimator=AP)
    allnan = dict(cols, s2=np.full(20, np.nan))
    with pytest.raises(InputError, match=r"`score` column 's2' has no rows left"):
        aucpr(make_frame(allnan, frame_kind), "y", ["s1", "s2"], estimator=AP, missing="drop")


def test_degenerate_warning_names_score():
    df = pl.DataFrame({"y": [1, 0, 1, 1], "s1": [0.1, 0.2, 0.3, 0.4], "s2": [0.5, None, 0.2, 0.1],
                       "g": ["a", "a", "b", "b"]})
    with pytest.warns(DegenerateGroupWarning, match=r"g='a', score='s2' \(no negatives\)"):
        aucpr(df, "y", ["s1", "s2"], by="g", estimator=AP, missing="drop")


def test_nan_outcome_is_dropped_not_negative():
    # a NaN outcome is missing: with missing="drop" it must not count as a negative
    df = pl.DataFrame({"y": [1.0, 0.0, np.nan, 1.0, 0.0], "s": [0.9, 0.8, 0.7, 0.6, 0.1]})
    frame = aucpr(df, "y", "s", estimator=AP, missing="drop").to_frame()
    assert frame["n_neg"].to_list() == [2] and frame["n_missing"].to_list() == [1]
