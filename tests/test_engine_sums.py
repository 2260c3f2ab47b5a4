"""Result objects from an engine's partial sums (aucpr_stats.tables.EngineSums) against the in-memory path.

When the collapsed tie table is over ``max_tie_rows`` (or ``partial_sums="always"``),
``aucpr(estimator="average_precision" / "lower_trapezoid")`` and ``auroc`` on a
DuckDB relation return results built from one row of sums per group. Oracle:
the same call on the polars frame (the tie-table road, itself checked against
scikit-learn and pROC): every column of ``to_frame()`` and of every interval
the sums serve, to 1e-12, with the same NaN pattern, notes and warnings.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

duckdb = pytest.importorskip("duckdb")

from aucpr_stats import aucpr, auroc, pr_curve
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats import sql_input
from aucpr_stats import TieTableTooLarge
from tests.backend_cases import cohort, with_missing

TOL = 1e-12
PR = ["average_precision", "lower_trapezoid"]
PR_METHODS = ["logit", "binomial", "wilson"]
ROC_METHODS = ["delong", "logit", "hanley_mcneil", "newcombe"]


def assert_frames_close(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Every column: floats to 1e-12 with the same NaN pattern, the rest (keys, counts, notes) equal."""
    assert got.columns == want.columns
    assert got.schema == want.schema
    for name in got.columns:
        a, b = got[name], want[name]
        if a.dtype == pl.Float64:
            x, y = a.to_numpy(), b.to_numpy()
            np.testing.assert_array_equal(np.isnan(x), np.isnan(y), err_msg=name)
            np.testing.assert_allclose(x, y, rtol=TOL, atol=TOL, err_msg=name)
        else:
            assert a.to_list() == b.to_list(), name


def _calls(data, by, kw):
    """Every frame the summed road gives, and the warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        score = kw.pop("score", "s")
        pr = aucpr(data, "y", score, by=by, estimator=PR, **kw)
        roc = auroc(data, "y", score, by=by, **{k: v for k, v in kw.items() if k != "ties"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-sample warnings (their notes are compared)
        frames = [pr.to_frame(), pr.conf_int(method=PR_METHODS), roc.to_frame(), roc.conf_int(method=ROC_METHODS)]
    return frames, sorted(str(w.message) for w in caught), [pr.ties, roc.ties]


SCENARIOS = {
    "ties across classes, a group with one class": (cohort, "site", {}),
    "missing dropped, null key": (lambda: with_missing(cohort()), "site", {"missing": "drop"}),
    "direction lower, two keys": (cohort, ["site", "sex"], {"direction": "lower"}),
    "published tie rule": (cohort, "sex", {"ties": "published"}),
    "constant score (estimates at the prevalence, A' = 1/2)": (
        lambda: cohort().with_columns(s=pl.lit(0.5)), "sex", {}),
    "perfect separation (boundary intervals)": (
        lambda: cohort().with_columns(s=pl.col("y").cast(pl.Float64) + pl.col("s2") / 100), None, {}),
    "one to ten positives per group": (
        lambda: cohort().with_columns(y=(pl.int_range(pl.len()) % 40 < pl.col("fold") + 1).cast(pl.Int64),
                                      grp=pl.col("fold")), "grp", {}),
    "several scores, missing judged per score": (
        lambda: with_missing(cohort()), "sex", {"missing": "drop", "score": ["s2", "s"]}),
    "string outcome with negative=": (
        lambda: cohort().with_columns(y=pl.col("label")), None,
        {"positive": "case", "negative": "control", "missing": "drop"}),
}


def assert_summed_road_equal(engine_table, frame: pl.DataFrame, by, kw: dict, road: str) -> None:
    """The calls on ``engine_table`` (the frame in an engine) by partial sums equal the calls on the frame."""
    engine = sql_input(engine_table, **({"max_tie_rows": 1} if road == "over the limit"
                                        else {"partial_sums": "always"}))
    got, got_warnings, tables = _calls(engine, by, dict(kw))
    want, want_warnings, _ = _calls(frame, by, dict(kw))
    assert all(t.stored_sums for t in tables)  # the road was taken: nothing per score value was collected
    assert got_warnings == want_warnings
    for have, expected in zip(got, want):
        assert_frames_close(have, expected)


@pytest.mark.parametrize("road", ["over the limit", "always"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_equal_to_the_in_memory_path(name, road):
    make, by, kw = SCENARIOS[name]
    frame = make()
    assert_summed_road_equal(duckdb.from_arrow(frame.to_arrow()), frame, by, kw, road)


def test_enum_keys_keep_and_drop_unused_levels():
    """An ENUM key with a level absent from the data: a row with its note (keep), or no row (drop)."""
    frame = cohort().with_columns(site=pl.col("site").cast(pl.Enum(["a", "z", "b", "c"])))
    con = duckdb.connect()
    con.execute("CREATE TYPE site_t AS ENUM ('a', 'z', 'b', 'c')")
    con.register("frame", frame.with_columns(pl.col("site").cast(pl.String)).to_arrow())
    rel = con.sql("SELECT y, s, CAST(site AS site_t) AS site FROM frame")
    for unused in ("keep", "drop"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = aucpr(sql_input(rel, partial_sums="always"), "y", "s", by="site", estimator=PR,
                        unused_levels=unused)
            want = aucpr(frame.select("y", "s", "site"), "y", "s", by="site", estimator=PR, unused_levels=unused)
        assert got.ties.stored_sums
        assert_frames_close(got.to_frame(), want.to_frame())
        assert_frames_close(got.conf_int(), want.conf_int())
        assert ("z" in got.to_frame()["site"].to_list()) == (unused == "keep")


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6), st.integers(0, 2)), min_size=2, max_size=40))
def test_random_small_tables(rows):
    """Scores with many ties, up to three groups (some with one class, one case or no negatives)."""
    frame = pl.DataFrame(rows, schema={"y": pl.Boolean, "s": pl.Int64, "g": pl.Int64}, orient="row")
    if frame["y"].n_unique() < 2:
        return  # one outcome level: both roads refuse
    engine = sql_input(duckdb.from_arrow(frame.to_arrow()), partial_sums="always")
    got, got_warnings, tables = _calls(engine, "g", {})
    want, want_warnings, _ = _calls(frame, "g", {})
    assert got_warnings == want_warnings
    for have, expected in zip(got, want):
        assert_frames_close(have, expected)


def test_what_needs_the_rows_is_refused_with_a_reason():
    frame = cohort()
    engine = sql_input(duckdb.from_arrow(frame.to_arrow()), max_tie_rows=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = aucpr(engine, "y", "s", by="site", estimator="average_precision")
        roc = auroc(engine, "y", "s", by="site")
    with pytest.raises(TieTableTooLarge, match=r"method 'bootstrap' needs the rows of the tie table.*"
                                               r"max_tie_rows=1.*\['logit', 'binomial', 'wilson'\]"):
        result.conf_int(method="bootstrap")
    with pytest.raises(TieTableTooLarge, match="method 'influence'"):
        result.conf_int(method=["logit", "influence"])
    with pytest.raises(TieTableTooLarge, match="'delong', 'logit', 'hanley_mcneil', 'newcombe'"):
        roc.conf_int(method="bootstrap")
    # "all": every method the sums serve, and only those
    assert roc.conf_int(method="all")["method"].unique(maintain_order=True).to_list() == [
        "delong", "logit", "hanley_mcneil", "newcombe"]
    # a statistic that reads the rows, asked of the table itself
    with pytest.raises(TieTableTooLarge, match="holds only the engine's partial sums"):
        result.ties.score
    # estimators that are not sums: the tie table's refusal, which names the ones that are
    with pytest.raises(TieTableTooLarge, match="average_precision, lower_trapezoid and a_prime come from"):
        aucpr(engine, "y", "s", estimator=["average_precision", "interpolated_median"])
    # a partial area is not a sum of the same kind
    with pytest.raises(TieTableTooLarge):
        aucpr(engine, "y", "s", estimator="average_precision", recall=(0.2, 0.8))
    with pytest.raises(TieTableTooLarge):
        aucpr(sql_input(duckdb.from_arrow(frame.to_arrow()), max_tie_rows=1, partial_sums="never"), "y", "s",
              estimator="average_precision")


def test_partial_sums_option():
    frame = cohort()
    rel = duckdb.from_arrow(frame.to_arrow())
    always = sql_input(rel, partial_sums="always")
    with pytest.raises(InputError, match="partial_sums='always'.*serves only statistics that are sums"):
        aucpr(always, "y", "s", estimator="interpolated_median")  # not a sum
    with pytest.raises(InputError, match="partial_sums='always'"):
        pr_curve(always, "y", "s")
    with pytest.raises(InputError, match="partial_sums='always'"):
        auroc(always, "y", "s", by="sex", cluster="site")
    with pytest.raises(InputError, match=r"`partial_sums` must be one of \['auto', 'always', 'never'\]"):
        sql_input(rel, partial_sums="sometimes")
    with pytest.raises(InputTypeError, match="`partial_sums` must be a string"):
        sql_input(rel, partial_sums=True)
    # under the limit, "auto" collects the table (every method available)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collected = aucpr(rel, "y", "s", by="site", estimator="average_precision")
    assert not collected.ties.stored_sums
    assert collected.conf_int(method="bootstrap", n_boot=20, seed=1).height == 3


def test_the_table_is_found_too_large_by_its_counts_or_by_the_limit():
    """More positives than the limit: the sums first, which count the cells holding positives (a collapsed
    table has a row for each); the collapsed table only if they fit. Fewer: the collapsed query's LIMIT decides."""
    frame = pl.DataFrame({"y": [i % 2 for i in range(200)], "s": list(range(200))})  # 100 positive cells, 100 runs
    rel = duckdb.from_arrow(frame.to_arrow())
    want = aucpr(frame, "y", "s", estimator="average_precision").estimate
    near = aucpr(sql_input(rel, max_tie_rows=150), "y", "s", estimator="average_precision")
    far = aucpr(sql_input(rel, max_tie_rows=20), "y", "s", estimator="average_precision")
    assert near.ties.stored_sums and "more than max_tie_rows=150 rows" in near.ties.source.reason
    assert far.ties.stored_sums and "more than max_tie_rows=20 rows" in far.ties.source.reason
    assert near.estimate == pytest.approx(want, rel=TOL) and far.estimate == pytest.approx(want, rel=TOL)
    # 100 positives over 5 distinct scores: the sums find 5 positive cells, and the collapsed table is collected
    coarse = pl.DataFrame({"y": [i % 2 for i in range(200)], "s": [i % 5 for i in range(200)]})
    few_cells = aucpr(sql_input(duckdb.from_arrow(coarse.to_arrow()), max_tie_rows=20), "y", "s",
                      estimator="average_precision")
    assert not few_cells.ties.stored_sums
    assert few_cells.to_frame().equals(aucpr(coarse, "y", "s", estimator="average_precision").to_frame())
    assert not aucpr(sql_input(rel, max_tie_rows=250), "y", "s", estimator="average_precision").ties.stored_sums
