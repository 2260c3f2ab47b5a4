"""Spark DataFrames as inputs (local mode): the same results as the same data in polars.

One Spark session for the whole test run (``local[2]``, four shuffle
partitions); every frame is spread round-robin over seven partitions, so
rows of one tie (and of one group) sit in several partitions. Skipped
without pyspark or without Java.
"""

from __future__ import annotations

import re
import shutil

import numpy as np
import polars as pl
import pytest

pyspark = pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java (no `java` on PATH)", allow_module_level=True)

from aucpr_stats import aucpr, auroc, compare
from aucpr_stats.exceptions import InputError, InputTypeError, MissingValueError
from aucpr_stats import sql_input
from aucpr_stats.ingest import detect
from aucpr_stats import TieTableTooLarge
from tests.backend_cases import assert_same, cohort, with_missing

#: A subset of tests/backend_cases.CASES (all of them run on DuckDB): Spark's local mode costs about a second a query.
SPARK_CASES = [
    "aucpr, every estimator, by site",
    "auroc, by two keys, DeLong and bootstrap",
    "auroc, several scores, missing dropped per score",
    "auroc, integers beyond 2**53",
    "compare, paired bootstrap of AUCPR",
]


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("aucpr_stats-tests")
               .config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "1g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def spark_frame(spark, frame: pl.DataFrame):
    return spark.createDataFrame(frame.to_arrow()).repartition(7)


@pytest.mark.parametrize("case", SPARK_CASES)
def test_results_equal_the_in_memory_path(spark, case):
    assert_same(case, lambda frame: spark_frame(spark, frame))


def test_detection_errors_and_the_limit(spark):
    frame = with_missing(cohort())
    df = spark_frame(spark, frame)
    assert detect(df).engine.name == "Spark" and not detect(df).in_memory
    for call, error in [(lambda d: aucpr(d, "y", "s"), MissingValueError),
                        (lambda d: aucpr(d, "y", "label"), InputTypeError),
                        (lambda d: aucpr(d, "y", "nope"), InputError)]:
        with pytest.raises(error) as expected:
            call(frame)
        with pytest.raises(error) as got:
            call(df)
        # the same message, except that a Spark DataFrame has no row numbers to show
        assert re.sub(r"first rows: [^)]*", "", str(got.value)) == re.sub(r"first rows: [^)]*", "", str(expected.value))
    with pytest.raises(MissingValueError, match="first rows: not numbered, Spark tables have no row order"):
        aucpr(df, "y", "s")
    with pytest.raises(TieTableTooLarge, match=r"Spark input has more than 5 rows, over max_tie_rows=5"):
        compare(sql_input(df, max_tie_rows=5), "y", ["s", "s2"], missing="drop")
    # a boolean outcome (its levels from MIN and MAX) and integer scores
    flags = pl.DataFrame({"y": [True, False, True, False, False], "s": [3, 1, 2, 2, 0]})
    assert aucpr(spark_frame(spark, flags), "y", "s").to_frame().equals(aucpr(flags, "y", "s").to_frame())
    # names and levels that need quoting (Spark escapes with backslashes and backticks)
    odd = pl.DataFrame({"out `come": ["it's", "no\\", "it's", "no\\"], "s c": [0.9, 0.1, 0.4, 0.5]})
    assert (aucpr(spark_frame(spark, odd), "out `come", "s c", positive="it's").to_frame()
            .equals(aucpr(odd, "out `come", "s c", positive="it's").to_frame()))


def test_partial_sums_in_decimal_38(spark):
    """sql_sums on Spark: windows per group, DECIMAL(38, 0) sums past 64 bits, equal to the DuckDB sums."""
    import duckdb

    from aucpr_stats import sql_sums
    from tests.test_sql_sums import assert_close

    big = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 5, "y": [1, 1, 0, 0, 1, 0, 1, 0, 0],
                        "s": [2.0, 1.0, 2.0, 1.0, 3.0, 3.0, 1.0, 0.5, float("nan")],
                        "k": [3 * 10**9, 10**9, 10**9, 4 * 10**9, 7, 5, 2, 9, 1]})
    got = sql_sums(spark_frame(spark, big), "y", "s", by="g", counts="k", missing="drop")
    assert_close(got, sql_sums(duckdb.from_arrow(big.to_arrow()), "y", "s", by="g", counts="k", missing="drop"))
    # A' = (3e9 (2 * 4e9 + 1e9) + 1e9 * 4e9) / (2 * 4e9 * 5e9), from integers past 2**63 in the engine
    assert got["a_prime"][0] == (3 * 10**9 * 9 * 10**9 + 10**9 * 4 * 10**9) / (2 * 4 * 10**9 * 5 * 10**9)
    assert got["n_pos"].to_list() == [4 * 10**9, 9] and got["n_missing"].to_list() == [0, 1]


def test_results_from_partial_sums(spark):
    """aucpr/auroc result objects from the engine's partial sums, when the collapsed table is over the limit."""
    from tests.test_engine_sums import assert_summed_road_equal

    frame = with_missing(cohort())
    assert_summed_road_equal(spark_frame(spark, frame), frame, ["site", "sex"], {"missing": "drop"},
                             "over the limit")


def test_curves_on_a_grid(spark):
    """pr_curve/roc_curve(grid=): Spark thins the cells (integer `div`) to the in-memory thinned curve."""
    from tests.test_curve_grid import assert_engine_equal

    assert_engine_equal(lambda frame: spark_frame(spark, frame), "missing values dropped, null key, several scores",
                        5)


@pytest.mark.filterwarnings("ignore")  # small groups' warnings (catch_warnings is not thread-safe)
def test_spark_frames_of_one_session_from_threads(spark):
    """Eight Spark DataFrames of one session analysed from eight threads: each call its own frame's numbers."""
    from concurrent.futures import ThreadPoolExecutor

    def frame(k: int) -> pl.DataFrame:
        rng = np.random.default_rng(k)
        y = rng.random(600) < 0.3
        return pl.DataFrame({"g": rng.integers(0, 2, 600), "y": y, "s": rng.normal(size=600) + (0.4 + 0.2 * k) * y})

    def analysis(data):
        return auroc(data, "y", "s", by="g").conf_int()["estimate"].to_list()

    inputs = [spark_frame(spark, frame(k)) for k in range(8)]
    expected = [analysis(frame(k)) for k in range(8)]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(analysis, inputs)) == expected


def test_calibration_equals_the_in_memory_path(spark):
    """calibration() on a Spark DataFrame: the cells collected, the same statistics and intervals."""
    import warnings

    from aucpr_stats import calibration

    frame = pl.read_csv("tests/reference/calibration_data.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        local = calibration(frame, "y", "p_tied", by="site").conf_int_polars(method="wald")
        remote = calibration(spark_frame(spark, frame), "y", "p_tied", by="site").conf_int_polars(method="wald")
    remote = remote.sort("site", maintain_order=True)
    local = local.sort("site", maintain_order=True)
    for column in ("estimate", "lower", "upper", "se"):
        np.testing.assert_allclose(remote[column].to_numpy(), local[column].to_numpy(), rtol=1e-12, equal_nan=True)


def test_net_benefit_equals_the_in_memory_path(spark):
    """net_benefit() on a Spark DataFrame: exact, risks tied with the thresholds included, weights too."""
    from aucpr_stats import net_benefit

    frame = pl.read_csv("tests/reference/calibration_data.csv").with_columns(pl.col("p_tied").round(2))
    thresholds = [0.05, 0.1, 0.2, 0.3, 0.5]
    local = net_benefit(frame, "y", "p_tied", by="site", thresholds=thresholds).conf_int_polars()
    remote = net_benefit(spark_frame(spark, frame), "y", "p_tied", by="site",
                         thresholds=thresholds).conf_int_polars()
    remote = remote.sort("site", "threshold", maintain_order=True)
    local = local.sort("site", "threshold", maintain_order=True)
    for column in ("estimate", "se", "treat_all"):
        assert np.array_equal(remote[column].to_numpy(), local[column].to_numpy())
