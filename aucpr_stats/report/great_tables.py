"""great_tables output of publication tables (the ``tables`` extra).

:func:`to_great_tables` turns a :class:`~aucpr_stats.report.PublicationTable`
into a ``great_tables.GT``: the key columns as the row stub, the blocks of a
stacked table as row groups, spanners over the columns of one score or
metric, counts and cells right-aligned, the table's note and the
explanation of each footnote mark (§, †, ‡ ...) as source notes. great_tables
is imported on use, so ``import aucpr_stats`` never needs it.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from ..exceptions import InputError, InputTypeError
from .cells import MARKS, printable, true_minus

__all__ = ["to_great_tables", "split_note", "spanner_runs"]


def _great_tables() -> Any:
    """The great_tables package, or an ImportError that says how to install it."""
    try:
        import great_tables  # optional dependency (the `tables` extra): a lazy import, on use only
    except ImportError as exc:
        raise ImportError("PublicationTable.to_great_tables() needs great_tables: "
                          "pip install 'aucpr_stats[tables]'") from exc
    return great_tables


def to_great_tables(table: Any, *, title: str | None = None, subtitle: str | None = None) -> Any:
    """A ``great_tables.GT`` holding a publication table, ready for ``.as_raw_html()`` or a notebook.

    Parameters
    ----------
    table : PublicationTable
        The table (``result.table()``, :func:`~aucpr_stats.report.publication_table`).
    title, subtitle : str, optional
        The heading above the column labels; a subtitle needs a title.

    Returns
    -------
    great_tables.GT
        * the key columns form the row stub (two or more keys: a stub of
          several columns, repeated outer values merged), their names the
          stubhead;
        * in a stacked table each variable's header row becomes the label of
          a row group holding its levels; the Overall rows come first, in an
          unlabelled group; in an unstacked table a rule sets the Overall
          rows off;
        * headers ``"score: metric"`` (e.g. ``"logistic: AUCPR (95% CI)"``)
          are split at ``": "`` and a spanner put over each run of adjacent
          columns sharing one part: the part that makes the fewer spanners
          (the score when tied), the other part as the column label, so
          ``"AUCPR (95% CI)"`` spans ``logistic`` and ``forest`` when those
          sit side by side; the columns keep the table's order and columns
          without ``": "`` (counts) have no spanner;
        * counts and cells right-aligned, negative numbers with a true minus
          sign, missing values empty;
        * source notes: the table's note, then one line per footnote mark
          used in the cells (``"§ fewer positives than ..."``).

        Every text is set as plain text (great_tables escapes it): a label
        holding ``<script>`` or ``&`` reads as written.

    Raises
    ------
    ImportError
        great_tables is not installed (``pip install 'aucpr_stats[tables]'``).
    InputTypeError
        ``table`` is not a publication table, or a title that is not text.
    InputError
        A subtitle without a title.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import aucpr
    >>> df = pl.read_csv("data/breast_cancer_oof.csv")
    >>> gt = aucpr("malignant ~ logistic + forest | size_group", data=df).table().to_great_tables(
    ...     title="Table 2")  # doctest: +SKIP
    >>> html = gt.as_raw_html()  # doctest: +SKIP
    """
    if not all(hasattr(table, a) for a in ("cells", "key_columns", "numeric_columns", "note", "header_rows")):
        raise InputTypeError(f"`table` must be a PublicationTable; got {type(table).__name__}")
    for name, value in (("title", title), ("subtitle", subtitle)):
        if value is not None and not isinstance(value, str):
            raise InputTypeError(f"`{name}` must be text or None; got {type(value).__name__}")
    if subtitle is not None and title is None:
        raise InputError("`subtitle` needs a `title`: great_tables sets the subtitle under the title")
    gt_module = _great_tables()

    keys = list(table.key_columns)
    frame = _typeset(table)
    group_col = _free_name("__group", frame.columns)
    groups = _row_groups(table)
    headers = set(table.header_rows)
    rows = [i for i in range(frame.height) if i not in headers]
    data = frame.with_columns(pl.Series(group_col, groups, dtype=pl.String))[rows]
    stacked = bool(table.header_rows)
    if not stacked:
        data = data.drop(group_col)

    stub: str | list[str] | None = None if not keys else keys[0] if len(keys) == 1 else keys
    gt = gt_module.GT(data, rowname_col=stub, groupname_col=group_col if stacked else None, auto_align=False)
    if keys:
        labels = [printable(k) for k in keys]
        gt = gt.tab_stubhead(labels[0] if len(labels) == 1 else labels)
    if stacked:  # the Overall rows (no group) first, then the blocks in the table's order
        gt = gt.row_group_order(list(dict.fromkeys(groups[i] for i in rows)))

    values = [c for c in frame.columns if c not in keys]
    spanners, col_labels = spanner_runs(values)
    gt = gt.cols_label({c: printable(col_labels.get(c, c)) for c in values}) if values else gt
    for k, (label, columns) in enumerate(spanners):
        gt = gt.tab_spanner(printable(label), columns=columns, id=f"aucpr-spanner-{k}", gather=False)
    right = [c for c in values if c in table.numeric_columns]
    left = [c for c in values if c not in table.numeric_columns]
    if right:
        gt = gt.cols_align("right", columns=right)
    if left:
        gt = gt.cols_align("left", columns=left)
    n_overall = getattr(table, "n_overall", 0)
    if not stacked and 0 < n_overall < data.height:  # a rule under the Overall rows (LaTeX's \midrule)
        rule = gt_module.style.borders(sides="bottom", color="#666666", weight="2px")
        places = [gt_module.loc.body(rows=[n_overall - 1])] + ([gt_module.loc.stub(rows=[n_overall - 1])] if keys
                                                                else [])
        gt = gt.tab_style(rule, places)

    if title is not None:
        gt = gt.tab_header(printable(title), None if subtitle is None else printable(subtitle))
    note, explained = split_note(table.note, _marks_used(frame, right))
    for text in ([note] if note else []) + explained:
        gt = gt.tab_source_note(printable(text))
    return gt


def _typeset(table: Any) -> pl.DataFrame:
    """Every cell as the other renderings print it: text, true minus signs in the value cells, ``""`` for missing."""
    cells = table.cells
    text = [c for c in table.numeric_columns if c in cells.columns and cells.schema[c] == pl.String]
    frame = cells.with_columns(true_minus(pl.col(c)) for c in text) if text else cells
    frame = frame.with_columns(pl.all().cast(pl.String).fill_null(""))
    # a display table (tens of rows): characters no output can carry, replaced as in to_html
    return pl.DataFrame({c: [printable(v) for v in frame[c].to_list()] for c in frame.columns},
                        schema={c: pl.String for c in frame.columns})


def _free_name(base: str, taken: list[str]) -> str:
    """``base``, or ``base`` with underscores appended until it names no column of ``taken``."""
    while base in taken:
        base += "_"
    return base


def _row_groups(table: Any) -> list[str | None]:
    """Per row: the text of the variable header above it (None above the first header: the Overall rows)."""
    current: str | None = None
    key = table.key_columns[0] if table.key_columns else None
    headers = set(table.header_rows)
    groups = []
    for i in range(table.cells.height):
        if i in headers and key is not None:
            value = table.cells[key][i]
            current = printable("" if value is None else str(value))
        groups.append(current)
    return groups


def spanner_runs(columns: list[str]) -> tuple[list[tuple[str, list[str]]], dict[str, str]]:
    """Spanners over the ``"score: metric"`` headers of ``columns``, and each spanned column's label.

    Each header with ``": "`` splits into a first part (the score) and a
    second (the metric and interval). Runs of adjacent headers sharing a part
    get a spanner with that part as its label, the other part labelling the
    columns; of the two parts the one that makes the fewer runs is used (the
    first when tied). Headers without ``": "`` break runs and keep their text.

    Examples
    --------
    >>> spanner_runs(["Positives", "a: AUCPR", "b: AUCPR", "a: AUROC", "b: AUROC"])[0]
    [('AUCPR', ['a: AUCPR', 'b: AUCPR']), ('AUROC', ['a: AUROC', 'b: AUROC'])]
    >>> spanner_runs(["Positives", "a: AUCPR", "a: AUROC"])
    ([('a', ['a: AUCPR', 'a: AUROC'])], {'a: AUCPR': 'AUCPR', 'a: AUROC': 'AUROC'})
    """
    parts = {c: tuple(c.split(": ", 1)) for c in columns if ": " in c}

    def runs(side: int) -> list[tuple[str, list[str]]]:
        out: list[tuple[str, list[str]]] = []
        previous = None
        for c in columns:
            part = parts[c][side] if c in parts else None
            if part is not None and part == previous:
                out[-1][1].append(c)
            elif part is not None:
                out.append((part, [c]))
            previous = part
        return out

    first, second = runs(0), runs(1)
    side = 0 if len(first) <= len(second) else 1
    return (first if side == 0 else second), {c: p[1 - side] for c, p in parts.items()}


def _marks_used(frame: pl.DataFrame, columns: list[str]) -> list[str]:
    """The footnote marks found in the cells of ``columns``, in :data:`~aucpr_stats.report.cells.MARKS` order."""
    text = "".join("".join(frame[c].to_list()) for c in columns)
    return [mark for mark in MARKS if mark in text]


def split_note(note: str, marks: list[str]) -> tuple[str, list[str]]:
    """``note`` without the sentences that explain ``marks``, and those sentences (one per mark, in order).

    A table's note ends its description of the cells with one sentence per
    mark (``"§ fewer positives than ... (docs/validation.md)."``); each is
    taken out to stand as its own source note. A mark the note does not
    explain gets the explanation of :data:`~aucpr_stats.report.cells.MARKS`.

    Examples
    --------
    >>> split_note("AUCPR: logit. \u00a7 small groups. P for heterogeneity: 0.3.", ["\u00a7"])
    ('AUCPR: logit. P for heterogeneity: 0.3.', ['\u00a7 small groups.'])
    """
    explained = []
    for mark in marks:
        # the mark at the start of a sentence, up to the first full stop that ends it
        sentence = re.compile(rf"(?:^|(?<=\s)){re.escape(mark)} .+?\.(?=\s|$)", re.DOTALL)
        found = sentence.search(note or "")
        if found:
            explained.append(found.group())
            note = note[:found.start()] + note[found.end():]
        else:
            explained.append(f"{mark} {MARKS[mark][1]}.")
    return " ".join((note or "").split()), explained
