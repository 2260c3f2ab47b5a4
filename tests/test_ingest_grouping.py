"""Grouped ingest: integer-like keys (coded in numpy) agree with the general polars sort path.

Integer, boolean and enum key columns take the numpy path (``_group_index`` +
``tie_table_from_rows``); string keys take the polars multi-column sort. Casting
the same keys to strings must give the same tie tables in the same key order
(after mapping the string order back), and both must match a brute force. A
LazyFrame scanning a file takes the streaming path (cell counts per key and score).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import polars as pl
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from aucpr_stats.ingest import detect, read
from aucpr_stats.front_door import front_door


def ingest(data, by):
    """The tables of the groups present in the data (the reader's seam), missing scores dropped."""
    return read(front_door("aucpr", data, None, "y", "s", by, missing="drop", unused_levels=None))

_key = st.one_of(st.none(), st.integers(-2, 2))
_row = st.tuples(_key, st.booleans(), st.sampled_from([None, 0.5, 0.1, 0.1, -0.0, 0.0, 2.0]), st.booleans())


def _tables(ingested):
    ties = ingested.ties
    return [
        list(zip(ties.score[a:b].tolist(), ties.pos[a:b].tolist(), ties.neg[a:b].tolist()))
        for a, b in zip(ties.offsets[:-1], ties.offsets[1:])
    ]


def _brute_force(frame: pl.DataFrame, by: list[str]) -> dict:
    out = {}
    for row in frame.iter_rows(named=True):
        if row["s"] is None:
            continue
        key = tuple(row[c] for c in by)
        out.setdefault(key, Counter())[(row["s"], row["y"])] += 1
    return {
        key: [(s, c[(s, True)], c[(s, False)]) for s in sorted({s for s, _ in c}, reverse=True)]
        for key, c in out.items()
    }


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(_row, min_size=2, max_size=40))
def test_integer_keys_match_string_keys_and_brute_force(rows):
    frame = pl.DataFrame(
        {
            "k": [r[0] for r in rows],
            "b": [r[1] for r in rows],
            "s": [r[2] for r in rows],
            "y": [r[3] for r in rows],
        },
        schema={"k": pl.Int16, "b": pl.Boolean, "s": pl.Float64, "y": pl.Boolean},
    )
    frame = frame.with_columns(e=pl.col("k").cast(pl.String).cast(pl.Enum(["2", "1", "0", "-1", "-2"])))
    assume(frame["y"].n_unique() == 2 and frame["s"].null_count() < frame.height)
    workdir = tempfile.TemporaryDirectory()
    parquet = Path(workdir.name) / "rows.parquet"
    frame.write_parquet(parquet)
    assert not detect(pl.scan_parquet(parquet)).in_memory and detect(frame.lazy()).in_memory
    for by in (["k"], ["k", "b"], ["e", "k"], ["b"]):
        numeric = ingest(frame, by)
        as_text = frame.with_columns(pl.col(c).cast(pl.String) for c in by)
        keys = numeric.keys.select(by)
        expected = _brute_force(frame, by)
        for i, key in enumerate(keys.iter_rows()):
            assert _tables(numeric)[i] == expected.get(key, []), (by, key)
        # the general path, keyed by strings (its own key order)
        text = ingest(as_text, by)
        text_tables = dict(zip(text.keys.select(by).iter_rows(), _tables(text)))
        for i, key in enumerate(keys.iter_rows()):
            text_key = tuple(None if v is None else str(v).lower() if isinstance(v, bool) else str(v) for v in key)
            assert _tables(numeric)[i] == text_tables[text_key]
        # a LazyFrame reading a file goes through the streaming (keys, score) cell counts;
        # one over in-memory data takes the in-memory path: all three agree
        for lazy_frame in (pl.scan_parquet(parquet), frame.lazy()):
            lazy = ingest(lazy_frame, by)
            assert _tables(lazy) == _tables(numeric)
            assert lazy.keys.equals(numeric.keys)
        # keys sorted ascending (enum by category order), nulls last
        assert keys.equals(keys.sort(by, nulls_last=True, maintain_order=True))
