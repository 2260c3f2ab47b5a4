"""DuckDB relations and Parquet files as inputs: the same results as the same data in polars, exactly.

The oracle is the in-memory path (itself checked against scikit-learn, pROC
and brute force elsewhere): every column of every result frame, the
intervals with a seed (the bootstrap draws on the tie table, so an identical
tie table gives identical replicates) and the warnings must be equal.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import polars as pl
import pytest

duckdb = pytest.importorskip("duckdb")

from aucpr_stats import aucpr, auroc, compare
from aucpr_stats.exceptions import InputError, InputTypeError, MissingValueError, OutcomeError
from aucpr_stats import sql_input
from aucpr_stats.ingest import detect, is_data
from aucpr_stats import TieTableTooLarge
from tests.backend_cases import CASES, assert_same, cohort, with_missing


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    yield connection
    connection.close()


def relation(con, frame: pl.DataFrame):
    return con.from_arrow(frame.to_arrow())


@pytest.mark.parametrize("case", list(CASES))
def test_every_result_equals_the_in_memory_path(con, case):
    assert_same(case, lambda frame: relation(con, frame))


def test_parquet_paths_globs_and_the_formula_interface(tmp_path):
    frame = cohort()
    frame[:150].write_parquet(tmp_path / "part1.parquet")
    frame[150:].write_parquet(tmp_path / "part2.parquet")
    with pytest.warns(UserWarning):  # site 'c' has no negatives
        expected = aucpr(frame, "y", "s", by="site").to_frame()
    glob = str(tmp_path / "*.parquet")
    with pytest.warns(UserWarning):
        assert aucpr(glob, "y", "s", by="site").to_frame().equals(expected)
    with pytest.warns(UserWarning):
        assert aucpr("y ~ s | site", data=glob).to_frame().equals(expected)
    one = tmp_path / "one.parquet"
    frame.write_parquet(one)
    with pytest.warns(UserWarning):
        assert aucpr(one, "y", "s", by="site").to_frame().equals(expected)  # a pathlib.Path
    with pytest.raises(InputError, match="could not be read as Parquet"):
        aucpr(str(tmp_path / "absent.parquet"), "y", "s")


def test_detected_once_and_read_by_the_engine(con):
    source = detect(con.sql("SELECT 1 AS y"))
    assert (source.backend, source.in_memory, source.engine.name) == ("duckdb", False, "DuckDB")
    assert is_data("data/part-*.PARQUET") and not is_data("y ~ s") and is_data(cohort())
    assert detect(cohort()).in_memory and detect(cohort().lazy()).in_memory


def test_detecting_a_frame_imports_no_engine():
    # narwhals recognises DuckDB, Spark, ibis and dask objects only once their library is loaded
    code = ("import sys, polars as pl, aucpr_stats\n"
            "aucpr_stats.auroc(pl.DataFrame({'y': [0, 1, 0, 1], 's': [0.1, 0.4, 0.35, 0.8]}), 'y', 's')\n"
            "print(sorted(m for m in ('duckdb', 'pyspark', 'ibis', 'dask') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_ties_across_classes_follow_the_default_tie_rule(con):
    """One score shared by both classes: interpolated AP and A' = 1/2 on a constant score."""
    frame = pl.DataFrame({"y": [1, 0, 1, 0, 0], "s": [0.5] * 5})
    for metric in (aucpr, auroc):
        got = metric(relation(con, frame), "y", "s", estimator="all").to_frame()
        assert got.equals(metric(frame, "y", "s", estimator="all").to_frame())
    assert auroc(relation(con, frame), "y", "s").to_frame()["estimate"][0] == 0.5
    ap = aucpr(relation(con, frame), "y", "s", estimator="average_precision").to_frame()["estimate"][0]
    assert ap == pytest.approx(0.4)  # the prevalence


def test_wide_integers_and_decimals_keep_their_order(con):
    """2**53 and 2**53 + 1 are one float64: grouped on in their own type they stay two scores (A' = 1)."""
    rel = con.sql("SELECT * FROM (VALUES (1, 9007199254740993::BIGINT, 9007199254740993::HUGEINT, 0.10000000000000001::DECIMAL(38,17)),"
                  " (0, 9007199254740992::BIGINT, 9007199254740992::HUGEINT, 0.1::DECIMAL(38,17))) t(y, b, h, d)")
    for column in ("b", "h", "d"):
        assert auroc(rel, "y", column).to_frame()["estimate"][0] == 1.0


def test_errors_have_the_messages_of_the_polars_path(con):
    frame = with_missing(cohort())
    bad = frame.with_columns(pl.col("s").cast(pl.String).alias("text"),
                             pl.when(pl.int_range(pl.len()) == 5).then(float("inf")).otherwise(pl.col("s2"))
                             .alias("inf"))
    calls = [
        (lambda d: aucpr(d, "y", "s"), MissingValueError),
        (lambda d: aucpr(d, "y", "text", missing="drop"), InputTypeError),
        (lambda d: aucpr(d, "y", "nope"), InputError),
        (lambda d: aucpr(d, "y", "inf", missing="drop"), InputError),
        (lambda d: aucpr(d, "label", "s2"), OutcomeError),
        (lambda d: aucpr(d, "label", "s2", positive="case"), OutcomeError),
        (lambda d: aucpr(d, "label", "s2", positive=1), OutcomeError),
        (lambda d: aucpr(d, "label", "s2", positive="case", negative="nope"), OutcomeError),
        (lambda d: aucpr(d, "label", "s2", positive="case", negative="control"), MissingValueError),
    ]
    for call, error in calls:
        with pytest.raises(error) as expected:
            call(bad)
        with pytest.raises(error) as got:
            call(relation(con, bad))
        assert str(got.value) == str(expected.value)


def test_no_rows(con):
    empty = pl.DataFrame({"y": [], "s": []}, schema={"y": pl.String, "s": pl.String})
    with pytest.raises(InputError, match="no rows"):
        aucpr(relation(con, empty), "y", "s")
    with pytest.raises(InputError, match="no rows"):
        aucpr(relation(con, cohort()[:0]), "y", "s")


def test_a_tie_table_over_the_limit_is_refused(con):
    rel = relation(con, cohort())  # about 60 distinct scores
    with pytest.raises(TieTableTooLarge, match=r"more than 10 rows, over max_tie_rows=10: refused"):
        aucpr(sql_input(rel, max_tie_rows=10), "y", "s", estimator="interpolated_median")  # reads every row
    # the default (average precision) is a sum over tie rows: over the limit the engine's partial sums answer
    summed = aucpr(sql_input(rel, max_tie_rows=10), "y", "s").to_frame()
    assert summed["estimate"][0] == pytest.approx(aucpr(cohort(), "y", "s").estimate, rel=1e-12)
    with pytest.raises(TieTableTooLarge, match="paired rows"):
        compare(sql_input(rel, max_tie_rows=10), "y", ["s", "s2"])


def test_the_limit_is_exact(con):
    """One cell over the limit is refused (the query is cut at the limit + 1 rows); at the limit, collected."""
    n_cells = cohort()["s"].n_unique()
    with pytest.raises(TieTableTooLarge, match=f"more than {n_cells - 1:,} rows, over max_tie_rows"):
        aucpr(sql_input(relation(con, cohort()), max_tie_rows=n_cells - 1), "y", "s", estimator="interpolated_median")
    exactly = aucpr(sql_input(relation(con, cohort()), max_tie_rows=n_cells), "y", "s",
                    estimator="interpolated_median").to_frame()
    assert exactly.equals(aucpr(cohort(), "y", "s", estimator="interpolated_median").to_frame())


def test_a_table_within_the_limit_and_the_option_checks(con):
    rel = relation(con, cohort())
    with pytest.warns(UserWarning):
        fine = aucpr(sql_input(rel, max_tie_rows=1000), "y", "s", by="site").to_frame()
    with pytest.warns(UserWarning):
        assert fine.equals(aucpr(cohort(), "y", "s", by="site").to_frame())
    with pytest.raises(InputError, match="max_tie_rows"):
        sql_input(rel, max_tie_rows=0)
    with pytest.raises(TypeError, match="DuckDB relation"):
        sql_input(cohort())


def test_scores_and_keys_of_many_types(con):
    """Float32, small integers, booleans as scores; integer and null keys; nulls sorted last."""
    rng = np.random.default_rng(3)
    n = 200
    frame = pl.DataFrame({"y": rng.random(n) < 0.4, "f32": rng.normal(size=n).astype(np.float32),
                          "i16": rng.integers(-5, 5, n).astype(np.int16), "flag": rng.random(n) < 0.5,
                          "k": pl.Series(rng.choice([1, 2, None], n).tolist(), dtype=pl.Int32)})
    for score in ("f32", "i16", "flag"):
        with pytest.warns(UserWarning):
            expected = auroc(frame, "y", score, by="k").to_frame()
        with pytest.warns(UserWarning):
            assert auroc(relation(con, frame), "y", score, by="k").to_frame().equals(expected)


def test_names_and_levels_that_need_quoting(con):
    """Column names with spaces and quotes, an outcome level with a quote: quoted, not interpolated."""
    frame = pl.DataFrame({"out come": ["it's", "no", "it's", "no", "no", "it's"],
                          'sc"ore': [0.9, 0.1, 0.4, 0.5, 0.2, 0.8], "si te": ["a", "a", "b", "b", "a", "b"]})
    expected = auroc(frame, "out come", 'sc"ore', by="si te", positive="it's").to_frame()
    got = auroc(relation(con, frame), "out come", 'sc"ore', by="si te", positive="it's").to_frame()
    assert got.equals(expected)
    assert auroc('`out come` ~ `sc"ore` | `si te`', data=relation(con, frame), positive="it's").to_frame().equals(expected)


def test_duckdb_enum_keys_keep_their_declared_levels_and_order():
    import warnings

    import duckdb
    import numpy as np
    import polars as pl

    from aucpr_stats import aucpr

    con = duckdb.connect()
    con.execute("CREATE TYPE band AS ENUM ('low', 'mid', 'high', 'extra')")
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"y": rng.random(300) < 0.3, "s": rng.normal(size=300),
                       "b": rng.choice(["low", "mid", "high"], 300)})
    con.register("df", df)
    relation = con.sql("SELECT y, s, b::band AS b FROM df")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        via_sql = aucpr(relation, "y", "s", by="b").to_polars()
        memory = aucpr(df.with_columns(pl.col("b").cast(pl.Enum(["low", "mid", "high", "extra"]))), "y", "s",
                       by="b").to_polars()
    assert via_sql["b"].to_list() == ["low", "mid", "high", "extra"]
    assert via_sql.schema["b"] == pl.Enum(["low", "mid", "high", "extra"])
    assert via_sql["note"][3] == "no rows: level not in the data"
    np.testing.assert_array_equal(via_sql["estimate"].to_numpy(), memory["estimate"].to_numpy())


def test_collapsed_runs_of_negatives_give_the_in_memory_numbers_and_respect_the_limit():
    import warnings

    import duckdb
    import numpy as np
    import polars as pl
    import pytest

    from aucpr_stats import aucpr, auroc
    from aucpr_stats import sql_input

    rng = np.random.default_rng(3)
    n = 6000
    y = rng.random(n) < 0.03
    df = pl.DataFrame({"y": y, "s": np.round(rng.normal(size=n) + 1.5 * y, 2),  # ties, also across classes
                       "s2": rng.normal(size=n) + y, "g": rng.choice(["a", "b", "c"], n)})
    df = df.with_columns(pl.col("g").replace("c", None))  # a missing key: its own group
    df = df.with_columns(pl.when(pl.int_range(pl.len()) % 97 == 0).then(None).otherwise(pl.col("s")).alias("s"))
    relation = duckdb.sql("SELECT * FROM df")
    names = ["average_precision", "lower_trapezoid", "upper_trapezoid", "interpolated_max", "interpolated_convex",
             "threshold_trapezoid", "expected_average_precision"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for direction in ("higher", "lower"):
            via_sql = aucpr(relation, "y", ["s", "s2"], by="g", estimator=names, missing="drop", direction=direction)
            memory = aucpr(df, "y", ["s", "s2"], by="g", estimator=names, missing="drop", direction=direction)
            assert via_sql.ties.n_rows < memory.ties.n_rows / 5  # the runs were collapsed by the engine
            np.testing.assert_allclose(via_sql.estimates, memory.estimates, rtol=1e-12)
            assert via_sql.to_polars()["n_missing"].to_list() == memory.to_polars()["n_missing"].to_list()
        a, b = auroc(relation, "y", "s2", by="g").conf_int_polars(), auroc(df, "y", "s2", by="g").conf_int_polars()
        np.testing.assert_allclose(a.select("estimate", "lower", "upper", "se").to_numpy(),
                                   b.select("estimate", "lower", "upper", "se").to_numpy(), rtol=1e-12)
        limited = sql_input(relation, max_tie_rows=1500)
        assert aucpr(limited, "y", "s2", estimator="average_precision").estimate == pytest.approx(
            aucpr(df, "y", "s2", estimator="average_precision").estimate, rel=1e-12)
        with pytest.raises(TieTableTooLarge, match="collapsed"):  # the interpolated median reads every row
            aucpr(limited, "y", "s2", estimator="interpolated_median")
        with pytest.raises(TieTableTooLarge, match="with runs of negatives collapsed"):
            aucpr(sql_input(relation, max_tie_rows=50, partial_sums="never"), "y", "s2",
                  estimator="average_precision")
        # over the limit, the default road gives the same estimate from the engine's partial sums
        summed = aucpr(sql_input(relation, max_tie_rows=50), "y", "s2", estimator="average_precision")
        assert summed.ties.stored_sums
        assert summed.estimate == pytest.approx(aucpr(df, "y", "s2", estimator="average_precision").estimate,
                                                rel=1e-12)


def test_a_table_cut_at_the_limit_does_not_hang():
    """DuckDB 2.0 stopped responding when a query reading a CTE twice was cut short by LIMIT (10^5 rows).

    The collapsed and the thinned queries read each CTE once; run in a child process with a timeout.
    (The old collapsed query hangs on the alternating table below with LIMIT 50,001.)
    """
    import subprocess
    import sys

    code = (
        "import duckdb, pytest\n"
        "from aucpr_stats import aucpr, pr_curve\n"
        "from aucpr_stats import sql_input\n"
        "from aucpr_stats import TieTableTooLarge\n"
        "rel = duckdb.sql('SELECT (random() < 0.3)::INT AS y, random() AS s FROM range(100000)')\n"
        # 5e4 cells holding a positive, 1e5 collapsed rows: under the estimate's threshold, over the LIMIT
        "alternating = duckdb.sql('SELECT (i % 2 = 0)::INT AS y, i::DOUBLE AS s FROM range(100000) t(i)')\n"
        "with pytest.raises(TieTableTooLarge, match='collapsed.*more than 50,000 rows'):\n"
        "    aucpr(sql_input(alternating, max_tie_rows=50_000, partial_sums='never'), 'y', 's',\n"
        "          estimator='average_precision')\n"
        "with pytest.raises(TieTableTooLarge, match='grid=100'):\n"
        "    pr_curve(sql_input(rel, max_tie_rows=10), 'y', 's', grid=100)\n"
        "print('done')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
