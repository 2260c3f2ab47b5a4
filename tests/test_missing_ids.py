"""Issue 37: a NaN id in a floating-point grouping, cluster or fold column is a missing id for every frame type.

Before, polars kept NaN as a level (or cluster) of its own while pandas read it
as missing: one data set, two answers. Now a NaN key forms the missing-key
group (sorted last, with a MissingKeyWarning) and a NaN cluster or fold id is
refused, naming the column and the rows, whatever the input.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

from aucpr_stats import InputError, MissingKeyWarning, aucpr, auroc


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    n = 200
    y = rng.random(n) < 0.4
    ids = np.repeat(np.arange(50), 4).astype(float)
    ids[:8] = np.nan
    return pl.DataFrame({"y": y, "s": rng.normal(size=n) + y, "c": ids})


def _inputs(frame: pl.DataFrame):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("t", frame.to_arrow())
    return {"polars": frame, "lazy": frame.lazy(), "pandas": frame.to_pandas(), "pyarrow": frame.to_arrow(),
            "duckdb": con.table("t")}


@pytest.mark.parametrize("kind", ["polars", "lazy", "pandas", "pyarrow", "duckdb"])
def test_nan_cluster_id_is_refused_for_every_input(kind):
    data = _inputs(_frame())[kind]
    with pytest.raises(InputError, match=r"`cluster` column 'c' has 8 missing \(null or NaN\) values"):
        auroc(data, "y", "s", cluster="c")


@pytest.mark.parametrize("kind", ["polars", "lazy", "pandas", "pyarrow", "duckdb"])
def test_nan_key_is_the_missing_key_group_for_every_input(kind):
    frame = _frame()
    with pytest.warns(MissingKeyWarning, match="8 rows have a missing value in `by` column 'c'"):
        result = aucpr(_inputs(frame)[kind], "y", "s", by="c")
    out = result.to_polars()
    assert out.height == 49 and out["c"][-1] is None  # 48 ids (ids 0 and 1 were all NaN) and the missing one
    # the missing-key group is exactly the NaN rows, estimated on them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = aucpr(frame.filter(pl.col("c").is_nan()), "y", "s").estimate
    assert out["estimate"][-1] == pytest.approx(alone, abs=1e-15)


def test_unsigned_128_bit_scores_keep_their_order_or_are_refused():
    """Issue 37: DuckDB hands UHUGEINT values of 2**127 and more to Arrow as wrapped decimals; refused clearly."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()

    def table(base: str) -> object:
        con.execute(f"create or replace table t as select (i % 2 = 0) as y, "
                    f"({base}::UHUGEINT + ((i % 2 = 0)::INTEGER * i)::UHUGEINT) as s from range(20) r(i)")
        return con.table("t")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # below 2**127: exact, the positives' offsets 0, 2, ..., 18 over the negatives' 0 (one tie)
        assert auroc(table("1000000000000000000000000000"), "y", "s").estimate == pytest.approx(0.95)
        assert auroc(table("170141183460469000000000000000000000000"), "y", "s").estimate == pytest.approx(0.95)
    with pytest.raises(InputError, match=r"score column 's' \(unsigned 128-bit\) has 20 values of 2\*\*127"):
        auroc(table("340282366920938463463374607431768211000"), "y", "s")
