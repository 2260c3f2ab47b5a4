"""The one pass of the data checks: counts of rows, missing and infinite values, the outcome's levels.

:func:`stats_query` is one aggregate query over the caller's data (run by
whatever engine holds it); :func:`read_stats` turns its row into the
``stats`` dict :func:`~aucpr_stats.ingest.checks.check_stats` reads, and
decides ``direction="auto"`` from the class medians of each score.

The outcome's levels come from the same pass without counting distinct
values (a hash of every outcome): among the valid outcomes, the positives
are counted and the other outcomes' minimum and maximum are read; when
those differ, the outcome has more than two levels and one more query lists
them (an error, unless ``negative=`` names several levels).
"""

from __future__ import annotations

from typing import Any

import narwhals as nw

from .._validate import ColumnSpec
from .coding import Coding, indicator

__all__ = ["stats_query", "read_stats", "exact_levels", "level_counts"]


def stats_query(lf: nw.LazyFrame, spec: ColumnSpec, coding: Coding, as_float: dict, bounds: list[str]
                ) -> nw.LazyFrame:
    """The aggregate query of the checks (one row), with class medians for ``direction="auto"``.

    ``as_float`` holds each score's float64 expression (for the medians);
    ``bounds`` the integer score columns whose minimum and maximum decide
    whether their cast to float64 is exact (:mod:`.exact_scores`). Each row's
    marks (missing, positive, usable ...) are computed once, as 0/1 columns,
    and the counts are their sums.
    """
    y = nw.col(spec.outcome)
    valid = ~coding.y_missing
    positive = coding.positive.fill_null(False)
    marks = {"y_missing": coding.y_missing, "row_missing": coding.row_missing, "n_positive": positive & valid}
    if coding.y_neither is not None:
        marks["y_neither"] = coding.y_neither
    if coding.negative is not None:
        marks["n_negative"] = coding.negative.fill_null(False) & valid
    if coding.boolean_outcome:
        marks["n_true"] = y.fill_null(False) & valid
    for i, name in enumerate(spec.scores):
        marks[f"s_missing_{i}"] = coding.s_missing[name]
        marks[f"s_usable_{i}"] = coding.usable(name)
        if coding.s_infinite[name] is not None:
            marks[f"s_infinite_{i}"] = coding.s_infinite[name]
    marks |= coding.w_masks
    column = {key: f"__aucpr_mark_{k}" for k, key in enumerate(marks)}
    rows = lf.with_columns(*[indicator(expr).alias(column[key]) for key, expr in marks.items()])
    on = (lambda key: nw.col(column[key]) == 1)
    items = {"n_rows": nw.len(), "y_neither": nw.lit(0, dtype=nw.Int64)}
    items |= {key: nw.col(name).sum() for key, name in column.items()}
    if not coding.boolean_outcome:  # the levels other than the positive one: their least and greatest
        other = nw.when(~on("y_missing") & ~on("n_positive")).then(y)
        items["other_min"], items["other_max"] = other.min(), other.max()
    for i, name in enumerate(spec.scores):
        items.setdefault(f"s_infinite_{i}", nw.lit(0, dtype=nw.Int64))
        if spec.direction == "auto":  # the class medians among the score's usable rows
            usable = on(f"s_usable_{i}")
            for kind, cls in (("neg", ~on("n_positive")), ("pos", on("n_positive"))):
                items[f"{kind}_{i}"] = nw.when(usable & cls).then(as_float[name]).median()
    for i, name in enumerate(bounds):
        items[f"min_{i}"], items[f"max_{i}"] = nw.col(name).min(), nw.col(name).max()
    return rows.select(**{key: expr.alias(key) for key, expr in items.items()})


def _as_int(value: Any) -> int:
    return 0 if value is None else int(value)


def read_stats(row: dict, spec: ColumnSpec, coding: Coding, bounds: list[str]) -> tuple[dict, dict, dict]:
    """(stats for :func:`~.checks.check_stats`, directions by score, (min, max) by bounded column).

    ``stats["levels"]`` is None when the outcome has more than two levels:
    :func:`exact_levels` then lists them.
    """
    counts = ("n_rows", "y_missing", "y_neither", "row_missing", "n_positive", "n_negative",
              "w_missing", "w_negative", "w_infinite")
    stats = {key: _as_int(value) for key, value in row.items()
             if key in counts or key.startswith(("s_missing_", "s_infinite_", "s_usable_"))}
    valid = stats["n_rows"] - stats["y_missing"]
    n_positive = stats["n_positive"]
    if coding.boolean_outcome:
        n_true = _as_int(row["n_true"])
        stats["levels"] = [level for level, count in ((False, valid - n_true), (True, n_true)) if count]
    else:
        low, high = row["other_min"], row["other_max"]
        if low is not None and low != high:
            stats["levels"] = None  # more than one level besides the positive one
        else:
            present = ([coding.positive_level] if n_positive else []) + ([] if low is None else [low])
            stats["levels"] = sorted(set(present))
    if stats["levels"] is not None:
        stats["n_levels"] = len(stats["levels"])
    directions: dict = {name: spec.direction for name in spec.scores}
    if spec.direction == "auto":
        shown = {}
        for i, name in enumerate(spec.scores):
            neg, pos = row[f"neg_{i}"], row[f"pos_{i}"]
            # pROC: "<" (controls < cases, larger = positive) when median(controls) <= median(cases)
            directions[name] = "lower" if neg is not None and pos is not None and neg > pos else "higher"
            shown[name] = (neg, pos)
        directions["__medians"] = shown
    extremes = {name: (row[f"min_{i}"], row[f"max_{i}"]) for i, name in enumerate(bounds)}
    return stats, directions, extremes


def exact_levels(lf: nw.LazyFrame, collect, spec: ColumnSpec, coding: Coding) -> dict:
    """The outcome's levels (at most 12, sorted) and their number, by one more query."""
    y = nw.col(spec.outcome)
    valid = lf.filter(~coding.y_missing)
    levels, number = collect([valid.select(y).unique().sort(spec.outcome).head(12),
                              valid.select(y.n_unique().alias("n"))])
    return {"levels": levels[spec.outcome].to_list(), "n_levels": int(number["n"][0])}


def level_counts(lf: nw.LazyFrame, collect, spec: ColumnSpec, coding: Coding, which: str) -> list[tuple]:
    """(level, rows) of the outcome's levels (``"all"``) or of those neither positive nor negative, at most 12."""
    mask = ~coding.y_null if which == "all" else (coding.y_neither if coding.y_neither is not None else nw.lit(False))
    counts = collect([lf.filter(mask).group_by(spec.outcome).agg(nw.len().alias("n"))
                      .sort(spec.outcome).head(12)])[0]
    return [(level, int(n)) for level, n in counts.iter_rows()]
