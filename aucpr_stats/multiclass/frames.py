"""The columns every multiclass frame shares: the keys of each (group, model, row) and its counts."""

from __future__ import annotations

import numpy as np
import polars as pl

from .rows import Rows
from .statistics import Layout

__all__ = ["key_columns", "row_counts"]


def key_columns(rows: Rows, layout: Layout, n_models: int) -> pl.DataFrame:
    """The key columns of every (group, model, reported row), in that nesting order."""
    n_rows = layout.n_rows
    repeat = n_models * n_rows
    keys = rows.keys
    frame = keys[np.repeat(np.arange(keys.height), repeat)] if rows.by else pl.DataFrame()
    columns = {}
    if n_models > 1:
        columns["score"] = np.tile(np.repeat(np.array(rows.models.names, dtype=object), n_rows), rows.n_groups)
    columns["class"] = np.tile(np.array(layout.labels, dtype=object), rows.n_groups * n_models)
    extra = pl.DataFrame({k: pl.Series(k, list(v), dtype=pl.String) for k, v in columns.items()})
    return pl.concat([frame, extra], how="horizontal") if rows.by else extra


def row_counts(rows: Rows, layout: Layout, shape: tuple) -> dict[str, np.ndarray]:
    """Per (group, model, row): the rows ``n``, the cases ``n_pos`` and the controls ``n_neg``.

    A class's row counts its class against the rest, a pair's its two classes;
    an average has NaN cases and controls (it is not one split of the rows).
    """
    counts = rows.class_counts().astype(np.float64)
    n = counts.sum(axis=1)
    first, second = layout.first, layout.second
    n_pos = np.where(first >= 0, counts[:, np.maximum(first, 0)], np.nan)
    other = np.where(second >= 0, counts[:, np.maximum(second, 0)], n[:, None] - n_pos)
    n_neg = np.where(first >= 0, other, np.nan)
    return {"n": np.broadcast_to(n[:, None, None], shape), "n_pos": np.broadcast_to(n_pos[:, None, :], shape),
            "n_neg": np.broadcast_to(n_neg[:, None, :], shape)}
