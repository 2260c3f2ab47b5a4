"""The publication table of a multiclass result: one row per class (or pair) and average, one column per model."""

from __future__ import annotations

from typing import Any, Sequence

import polars as pl

from .cells import format_cell, marks_footnote, note_marks
from .table import PublicationTable

__all__ = ["multiclass_table", "AVERAGE_NAMES"]

#: How an average's row is labelled in a table.
AVERAGE_NAMES = {"macro": "Macro average", "weighted": "Weighted average", "micro": "Micro average"}

_METRIC = {"aucpr": "AUCPR", "auroc": "AUROC"}
_METHOD = {"delong": "DeLong (multivariate)", "bootstrap": "class-stratified bootstrap, percentile"}


def multiclass_table(frame: pl.DataFrame, *, metric: str, scheme: str, by: Sequence[str], digits: int = 2,
                     frame_kind: Any = "polars") -> PublicationTable:
    """Cells ``"estimate (lower–upper)"`` from a multiclass interval frame (``MulticlassIntervals.to_polars()``).

    Rows: each group's classes (or pairs), then its averages; columns: the
    group keys, the class, its cases, then one column per model. Footnote
    marks flag rows whose interval has a note (small sample, truncation,
    boundary fallback).
    """
    level = float(frame["level"][0])
    method = str(frame["method"][0])
    heading = f"{_METRIC[metric]} ({level:.0%} CI)"
    models = frame["score"].unique(maintain_order=True).to_list() if "score" in frame.columns else [None]
    cells = frame.with_columns(
        pl.struct("estimate", "lower", "upper", "note").map_elements(
            lambda r: format_cell(r["estimate"], r["lower"], r["upper"], digits=digits) + note_marks(r["note"]),
            return_dtype=pl.String).alias("cell"),
        pl.col("class").replace(AVERAGE_NAMES).alias("Class"))
    keys = [*by, "Class"]
    if models != [None]:
        wide = cells.pivot(on="score", index=[*by, "class", "Class", "n_pos"], values="cell",
                           maintain_order=True).drop("class")
        wide = wide.rename({m: f"{m}: {heading}" for m in models})
    else:
        wide = cells.select(*by, "Class", "n_pos", pl.col("cell").alias(heading))
    wide = wide.rename({"n_pos": "Cases"}).with_columns(pl.col("Cases").cast(pl.Int64))
    used = "".join(note_marks(n) for n in frame["note"].to_list() if n)
    scheme_text = {"ovr": "one-vs-rest", "ovo": "one-vs-one pairs", "hand_till": "Hand & Till pairs"}[scheme]
    note = (f"Multiclass {_METRIC[metric]}, {scheme_text}; {level:.0%} confidence intervals by "
            f"{_METHOD.get(method, method)}. {marks_footnote(used)}").strip()
    numeric = tuple(c for c in wide.columns if c not in keys)
    return PublicationTable(wide, tuple(keys), numeric, note, frame_kind)
