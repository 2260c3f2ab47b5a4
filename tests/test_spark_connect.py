"""Spark Connect DataFrames as inputs: the same results as the same data in polars.

A local Spark Connect server (``SparkSession.builder.remote("local[2]")``),
one per module, stopped before the classic-session tests of
``test_spark_source.py`` start theirs. A Connect DataFrame is another class
(``pyspark.sql.connect.dataframe.DataFrame``) with the same calls; these
tests check that it is recognised without importing the engine and queried
to the same numbers. Skipped without pyspark's Connect client (``grpcio``)
or without Java.
"""

from __future__ import annotations

import shutil
import warnings

import polars as pl
import pytest

pytest.importorskip("pyspark")
pytest.importorskip("grpc")  # the Connect client (pip install "pyspark[connect]")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java (no `java` on PATH)", allow_module_level=True)

from aucpr_stats import auroc
from aucpr_stats.exceptions import MissingValueError
from aucpr_stats.ingest import detect
from tests.backend_cases import assert_same, cohort, with_missing

#: The Connect path is the same SQL as the classic one: a few cases, each a different road.
CONNECT_CASES = [
    "auroc, by two keys, DeLong and bootstrap",
    "aucpr, several scores",
    "compare, paired bootstrap of AUCPR",
]


@pytest.fixture(scope="module")
def connect():
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():  # pyspark's notices about pandas versions and fixed configs
        warnings.simplefilter("ignore")
        session = SparkSession.builder.remote("local[2]").getOrCreate()
    yield session
    session.stop()


def connect_frame(session, frame: pl.DataFrame):
    return session.createDataFrame(frame.to_arrow()).repartition(5)


def test_a_connect_frame_is_a_spark_input(connect):
    df = connect_frame(connect, cohort())
    assert type(df).__module__.startswith("pyspark.sql.connect")
    assert detect(df).engine.name == "Spark" and not detect(df).in_memory
    with pytest.raises(MissingValueError, match="not numbered, Spark tables have no row order"):
        auroc(connect_frame(connect, with_missing(cohort())), "y", "s")


@pytest.mark.parametrize("case", CONNECT_CASES)
def test_results_equal_the_in_memory_path(connect, case):
    assert_same(case, lambda frame: connect_frame(connect, frame))


def test_partial_sums_on_connect(connect):
    import duckdb

    from aucpr_stats import sql_sums
    from tests.test_sql_sums import assert_close

    frame = cohort()
    got = sql_sums(connect_frame(connect, frame), "y", "s", by="site", missing="drop")
    assert_close(got, sql_sums(duckdb.from_arrow(frame.to_arrow()), "y", "s", by="site", missing="drop"))


def test_results_from_partial_sums_on_connect(connect):
    """aucpr/auroc result objects from the engine's partial sums, on a Connect frame."""
    from tests.test_engine_sums import assert_summed_road_equal

    frame = with_missing(cohort())
    assert_summed_road_equal(connect_frame(connect, frame), frame, "site", {"missing": "drop"}, "always")


def test_curves_on_a_grid_on_connect(connect):
    from tests.test_curve_grid import assert_engine_equal

    assert_engine_equal(lambda frame: connect_frame(connect, frame), "two keys", 7)
