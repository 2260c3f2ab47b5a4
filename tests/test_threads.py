"""Every entry point is safe to call from threads, on every input type (issue "Reliability", must-hold 1).

Eight frames with different data are analysed from eight threads at once and
the results compared with the same calls made one after the other: grouped
AUROC with its default interval, and a seeded AUCPR bootstrap (the random
streams of a call are its own). A DuckDB connection shared by threads is
refused with a message that says what to do (``con.cursor()``), never a raw
DuckDB exception; the Spark case lives in ``tests/test_spark_source.py``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl
import pytest

from aucpr_stats import InputError, aucpr, auroc

N_THREADS = 8

# the warnings of small groups are beside the point here (and catch_warnings is not thread-safe)
pytestmark = pytest.mark.filterwarnings("ignore")


def frames(n: int = 1500) -> list[pl.DataFrame]:
    out = []
    for k in range(N_THREADS):
        rng = np.random.default_rng(k)
        y = rng.random(n) < 0.3
        out.append(pl.DataFrame({"g": rng.integers(0, 3, n), "y": y, "s": rng.normal(size=n) + (0.4 + 0.2 * k) * y}))
    return out


def analysis(data) -> tuple:
    """The numbers of one call: comparable across frame types (polars frames of the result)."""
    roc = auroc(data, "y", "s", by="g").conf_int()
    boot = aucpr(data, "y", "s", by="g").conf_int(method="bootstrap", n_boot=200, rng=3)
    roc, boot = (pl.from_dataframe(f) if not isinstance(f, pl.DataFrame) else f for f in (roc, boot))
    return tuple(roc[c].to_list() for c in ("estimate", "lower", "upper")) + (boot["upper"].to_list(),)


def same_from_threads(inputs: list) -> None:
    sequential = [analysis(data) for data in inputs]
    with ThreadPoolExecutor(N_THREADS) as pool:
        parallel = list(pool.map(analysis, inputs))
    assert parallel == sequential
    assert len({result[0][0] for result in sequential}) == N_THREADS  # the frames do differ


CONVERSIONS = {
    "polars": lambda f: f,
    "lazy": lambda f: f.lazy(),
    "pandas": lambda f: f.to_pandas(),
    "pandas categorical keys": lambda f: f.to_pandas().astype({"g": "category"}),
    "pyarrow": lambda f: f.to_arrow(),
}


@pytest.mark.parametrize("kind", list(CONVERSIONS))
def test_in_memory_frames_from_threads(kind):
    same_from_threads([CONVERSIONS[kind](f) for f in frames()])


def test_pandas_categorical_keys_of_one_result_not_changed_by_later_calls():
    first = frames()[0].to_pandas().astype({"g": "category"})
    result = auroc(first, "y", "s", by="g").conf_int()
    before = result["g"].dtype
    other = frames()[1].to_pandas()
    other["g"] = other["g"].astype(str).astype("category")
    auroc(other, "y", "s", by="g").conf_int()
    assert result["g"].dtype == before and auroc(first, "y", "s", by="g").conf_int()["g"].dtype == before


def test_duckdb_relations_of_their_own_connections_from_threads():
    duckdb = pytest.importorskip("duckdb")
    same_from_threads([duckdb.connect().from_arrow(f.to_arrow()) for f in frames()])


def test_duckdb_connection_shared_by_threads_is_refused_clearly():
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    inputs = [connection.from_arrow(f.to_arrow()) for f in frames(20_000)]
    expected = [analysis(connection.cursor().from_arrow(f.to_arrow())) for f in frames(20_000)]

    def attempt(data):
        try:
            return analysis(data)
        except InputError as exc:
            return exc

    with ThreadPoolExecutor(N_THREADS) as pool:
        outcomes = list(pool.map(attempt, inputs))
    for outcome, wanted in zip(outcomes, expected):
        if isinstance(outcome, InputError):  # refused: a message that says what to do
            assert "con.cursor()" in str(outcome) and "`data`" in str(outcome)
        else:  # this call found the connection free: its own numbers
            assert outcome == wanted
