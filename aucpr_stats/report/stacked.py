"""Stacked publication tables (Table 2 as journals print it) and the heterogeneity footnote.

A subgroup table reports one model in several partitions of the same cohort:
an Overall row, then a block per variable (sex, age band, site) with a
header row naming the variable and one row per level below it. Each block is
the ordinary one-grouping table of :func:`~aucpr_stats.report.publication_table`;
:func:`stack_tables` puts them under one ``Subgroup`` column.
"""

from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from ..exceptions import InputError
from .cells import Labels, format_p, one_separator, pretty_name
from .table import PublicationTable

__all__ = ["stack_tables", "heterogeneity_footnote", "with_overall_rows"]


def _row_labels(table: PublicationTable, prefix: str | None = None) -> list[str]:
    """One label per row of ``table``: its key values joined by commas (after ``prefix``)."""
    keys = list(table.key_columns)
    labels = []
    for row in table.cells.select(keys).iter_rows() if keys else [()] * table.cells.height:
        parts = ([prefix] if prefix else []) + ["" if v is None else str(v) for v in row]
        labels.append(", ".join(p for p in parts if p))
    return labels


def stack_tables(blocks: list[PublicationTable], *, overall: PublicationTable | None = None,
                 overall_label: str = "Overall", label: Labels | None = None,
                 sep: str = "\u2013") -> PublicationTable:
    """Stack one-grouping tables as blocks under a ``Subgroup`` column, with an optional Overall row on top.

    Parameters
    ----------
    blocks : list of PublicationTable
        One table per grouping (by sex, by age band, ...), all with the same
        value columns (counts and cells).
    overall : PublicationTable, optional
        The ungrouped table (same value columns): its rows come first,
        labelled ``overall_label``.
    overall_label : str
    label : Labels, optional
        Display labels; ``"subgroup"`` names the key column.
    sep : str
        The interval separator of the cells (one style for the whole table).

    Returns
    -------
    PublicationTable
        ``header_rows`` marks the variable rows (typeset in italics in LaTeX,
        bold in Markdown, as row-group headers in HTML); ``n_overall`` the
        Overall rows.
    """
    label = label or Labels(None)
    body = [c for c in blocks[0].cells.columns if c not in blocks[0].key_columns]
    for table in [*blocks[1:], *([overall] if overall is not None else [])]:
        other = [c for c in table.cells.columns if c not in table.key_columns]
        if other != body:
            raise InputError(
                "results stacked as blocks (different groupings) must hold the same metrics, estimators, "
                f"scores and methods; one block has columns {other}, another {body}"
            )
    key = label("subgroup", "Subgroup")
    if key in body:
        raise InputError(f"the stacked table's key column {key!r} clashes with a value column; pass "
                         "labels={'subgroup': ...} to rename it")
    parts: list[pl.DataFrame] = []
    header_rows: list[int] = []
    n_rows = 0
    n_overall = 0
    if overall is not None:
        names = _row_labels(overall, overall_label)
        parts.append(overall.cells.select(body).with_columns(pl.Series(key, names, dtype=pl.String)))
        n_rows = n_overall = overall.cells.height
    for table in blocks:
        header = pl.DataFrame({key: [" \u00d7 ".join(table.key_columns)]}, schema={key: pl.String})
        parts.append(header)
        header_rows.append(n_rows)
        parts.append(table.cells.select(body).with_columns(pl.Series(key, _row_labels(table), dtype=pl.String)))
        n_rows += 1 + table.cells.height
    cells = pl.concat(parts, how="diagonal_relaxed").select(key, *body)
    notes = [t.note for t in [*([overall] if overall is not None else []), *blocks] if t.note]
    return PublicationTable(
        cells=one_separator(cells, body, sep), key_columns=(key,), numeric_columns=tuple(body),
        note=_merge_notes(notes), frame_kind=blocks[0].frame_kind, n_overall=n_overall,
        header_rows=tuple(header_rows),
    )


def _merge_notes(notes: list[str]) -> str:
    """The footnotes of several blocks as one: each sentence once, in order of first appearance."""
    sentences: dict[str, None] = {}
    for note in notes:
        for sentence in note.replace(". ", ".\n").splitlines():
            if sentence.strip():
                sentences.setdefault(sentence.strip(), None)
    return " ".join(sentences)


def heterogeneity_footnote(results: list, heterogeneity: Any, level: float, label: Labels) -> str:
    """``"P for heterogeneity ..."``: the test across the groups of each grouped result, or ``""``.

    ``heterogeneity`` is None (no footnote), ``"default"`` (each metric's
    default method), a method name, or a dict from metric to method.
    """
    if heterogeneity is None:
        return ""
    texts = []
    for r in results:
        if not [c for c in getattr(r, "by", ()) if c != "score"] or not hasattr(r, "heterogeneity"):
            continue  # ungrouped (several scores give only a `score` key): nothing to test across
        method = heterogeneity.get(r.metric) if isinstance(heterogeneity, Mapping) else heterogeneity
        if method is None:
            continue
        test = r.heterogeneity(method=None if method == "default" else method)
        frame = test.to_polars()
        varying = [c for c in (*split_columns(r), "estimator") if c in frame.columns and frame[c].n_unique() > 1]
        values = []
        for row in frame.iter_rows(named=True):
            what = ", ".join(label(str(row[c]), pretty_name(str(row[c]))) for c in varying if row[c] is not None)
            # the test's own note (groups below its minimum, prevalences that differ) travels with its p
            note = f" ({row['note']})" if row.get("note") else ""
            values.append(f"{what + ' ' if what else ''}{format_p(row['p_value'])}{note}")
        groups = " \u00d7 ".join(label(c) for c in test.across)
        how = f"{label(test.method, pretty_name(test.method))} variances, {test.scale} scale"
        test_name = {"pooled": "F test", "welch": "Welch's F test"}.get(getattr(test, "reference", "chi2"),
                                                                        "Wald test")
        texts.append(f"P for heterogeneity across {groups} ({label(r.metric, r.metric_label)}; {test_name}, "
                     f"{how}): {'; '.join(values)}.")
    return " ".join(texts)


def split_columns(result: Any) -> list[str]:
    """The key columns that split a heterogeneity test into several (``score``, when several are given)."""
    return [c for c in result.by if c == "score"]


def with_overall_rows(table: pl.DataFrame, key_labels: tuple[str, ...], top: PublicationTable,
                      label: str, below: bool = False) -> pl.DataFrame:
    """Put the rows of an ungrouped table above a grouped one (or ``below`` it), keyed ``label``."""
    body = [c for c in table.columns if c not in key_labels]
    top_body = [c for c in top.cells.columns if c not in top.key_columns]
    if top_body != body:
        raise InputError(
            "`overall` must hold the same metrics, estimators, scores and methods as `results`, "
            f"computed without `by`; its columns are {top_body}, the table's are {body}"
        )
    extra = [c for c in top.key_columns if c not in key_labels]
    if extra:
        raise InputError(f"`overall` has key columns {extra} that the grouped results lack")
    missing = [c for c in key_labels if c not in top.key_columns]
    if not missing:
        raise InputError("`overall` must be computed without `by`")
    filled = top.cells.with_columns(
        [pl.lit(label if i == 0 else "").alias(c) for i, c in enumerate(missing)]
    ).select(table.columns)
    parts = [table, filled.cast(table.schema)] if below else [filled.cast(table.schema), table]
    return pl.concat(parts, how="vertical")

