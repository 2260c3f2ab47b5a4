"""Inputs read through narwhals with no code of their own: pyarrow Tables, ibis tables, dask DataFrames.

Every case of tests/backend_cases.py (estimates, intervals with a seed, curves,
paired and unpaired comparisons, missing values, folds, several scores, wide
integers, string outcomes, both directions) gives the frames the same data
gives as a polars frame, and the same warnings:

* a pyarrow Table is read by polars in memory: bit for bit, frames handed back as pyarrow Tables;
* an ibis table (its DuckDB backend) and a dask DataFrame are engines: the engine reduces the rows to
  cells, and every result equals the in-memory one (bit for bit but where a sum runs over rows in the
  engine's order, to 1e-12); the engine's partial sums on ibis to 1e-12.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc, pr_curve, sql_input, sql_sums
from aucpr_stats.exceptions import InputError
from aucpr_stats.ingest import detect
from tests.backend_cases import CASES, assert_same, cohort

pa = pytest.importorskip("pyarrow")


def arrow_as_polars(frame):
    return pl.from_arrow(frame) if isinstance(frame, pa.Table) else frame


@pytest.mark.parametrize("case", list(CASES))
def test_pyarrow_table_every_case(case):
    assert_same(case, lambda frame: frame.to_arrow(), as_polars=arrow_as_polars)


def test_pyarrow_results_come_back_as_pyarrow_tables():
    result = aucpr(cohort().to_arrow(), "y", "s", by="sex")
    assert detect(cohort().to_arrow()).in_memory
    assert isinstance(result.to_frame(), pa.Table) and isinstance(result.conf_int(), pa.Table)
    assert isinstance(result.to_polars(), pl.DataFrame)


# ------------------------------------------------------------------ ibis on DuckDB
@pytest.fixture(scope="module")
def ibis():
    module = pytest.importorskip("ibis")
    pytest.importorskip("duckdb")
    return module


@pytest.mark.parametrize("case", list(CASES))
def test_ibis_table_every_case(ibis, case):
    assert_same(case, lambda frame: ibis.memtable(frame.to_arrow()))


def test_ibis_is_an_engine_with_partial_sums_and_thinned_curves(ibis):
    rng = np.random.default_rng(3)
    n = 4000
    y = rng.random(n) < 0.3
    frame = pl.DataFrame({"y": y.astype(np.int64), "s": rng.normal(size=n) + y, "site": rng.choice(["a", "b"], n)})
    table = ibis.memtable(frame.to_arrow())
    source = detect(table)
    assert (source.backend, source.in_memory) == ("ibis", False)
    # every score distinct: the collapsed table is over a limit of 100 rows, so the engine sums
    summed = aucpr(sql_input(table, max_tie_rows=100), "y", "s", by="site", estimator="average_precision")
    memory = aucpr(frame, "y", "s", by="site", estimator="average_precision")
    assert summed.ties.stored_sums
    np.testing.assert_allclose(summed.estimates, memory.estimates, rtol=1e-12)
    np.testing.assert_allclose(summed.conf_int_polars()["upper"], memory.conf_int_polars()["upper"], rtol=1e-12)
    roc = auroc(sql_input(table, partial_sums="always"), "y", "s", by="site").conf_int_polars()
    want = auroc(frame, "y", "s", by="site").conf_int_polars()
    for column in ("estimate", "lower", "upper", "se"):
        np.testing.assert_allclose(roc[column], want[column], rtol=1e-12)
    sums = sql_sums(table, "y", "s", by="site")
    np.testing.assert_allclose(sums["a_prime"], want["estimate"], rtol=1e-12)
    grid = pr_curve(sql_input(table, max_tie_rows=500), "y", "s", by="site", grid=20)
    assert grid.evaluate([0.25, 0.5]).equals(pr_curve(frame, "y", "s", by="site").evaluate([0.25, 0.5]))


# ------------------------------------------------------------------ dask
@pytest.fixture(scope="module")
def dd():
    return pytest.importorskip("dask.dataframe")


#: dask's median is approximate: ``direction="auto"`` reports other medians (tested on its own below).
DASK_CASES = [case for case in CASES if case != "auroc, direction auto"]


@pytest.mark.parametrize("case", DASK_CASES)
def test_dask_frame_every_case(dd, case):
    assert_same(case, lambda frame: dd.from_pandas(frame.to_pandas(), npartitions=3))


def test_dask_has_no_ordered_windows_so_cells_only(dd):
    frame = cohort()
    data = dd.from_pandas(frame.to_pandas(), npartitions=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = auroc(data, "y", "s", direction="auto")
        assert got.to_frame().equals(auroc(frame, "y", "s", direction="auto").to_frame())
        # the runs of negatives cannot be collapsed in dask: the full tie table comes, under the limit
        collected = auroc(sql_input(data, max_tie_rows=200), "y", "s")
        assert not collected.ties.stored_sums
        with pytest.raises(InputError, match="dask has no ordered window sums"):
            auroc(sql_input(data, partial_sums="always"), "y", "s")


# ------------------------------------------------------------------ names that need quoting
def test_names_with_dots_backticks_and_quotes_on_every_engine(ibis, dd):
    """The reader names columns internally: a caller's name may hold anything an engine would parse."""
    duckdb = pytest.importorskip("duckdb")
    frame = pl.DataFrame({"out.come": [1, 0, 1, 0, 1, 0], 'sc "o` re': [0.9, 0.8, 0.7, 0.2, 0.7, 0.1],
                          "site.a": ["x", "x", "y", "y", "x", "y"]})
    expected = aucpr(frame, "out.come", 'sc "o` re', by="site.a", estimator="all").to_frame()
    for data in (frame.to_arrow(), duckdb.from_arrow(frame.to_arrow()), ibis.memtable(frame.to_arrow()),
                 dd.from_pandas(frame.to_pandas(), npartitions=2)):
        got = aucpr(data, "out.come", 'sc "o` re', by="site.a", estimator="all").to_frame()
        assert arrow_as_polars(got).equals(expected), type(data).__name__
    with pytest.raises(InputError, match="`score` column 'sc \"o` re': 1; first rows: \\[5\\]"):
        aucpr(duckdb.from_arrow(frame.with_columns(pl.col('sc "o` re').replace(0.1, None)).to_arrow()),
              "out.come", 'sc "o` re')
