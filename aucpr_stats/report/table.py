"""The publication table object and its renderings: frame, text, CSV, Markdown, LaTeX, HTML."""

from __future__ import annotations

import re
import html as _html
from typing import Any

import attrs
import polars as pl

from .. import _frames
from ..exceptions import InputError
from .cells import printable, true_minus
from .docx import write_docx
from .great_tables import to_great_tables
from .text import text_table

__all__ = ["PublicationTable", "FORMATS", "latex_escape", "markdown_escape"]

#: Output formats of :meth:`PublicationTable.render`.
FORMATS = ("text", "csv", "markdown", "latex", "html")



@attrs.frozen(eq=False)
class PublicationTable:
    """A publication table: one row per group, cells ``"estimate (lower–upper)"``.

    Attributes
    ----------
    cells : polars.DataFrame
        Display frame: key columns, counts (integers), then one text column
        per (score, metric, estimator, interval method), headers already labelled.
    key_columns : tuple of str
        The labelled key columns at the left.
    numeric_columns : tuple of str
        Columns aligned right (counts and cells).
    note : str
        What the cells hold (estimator, interval, level), for a footnote.
    frame_kind : {"pandas", "polars"}
        The type ``to_frame()`` returns.
    n_overall : int
        Leading whole-cohort rows (``overall=``), set off by a rule in LaTeX.
    header_rows : tuple of int
        In a stacked table, the rows that name a variable above its levels
        (bold in Markdown and Word, italic in LaTeX, row-group headers in
        HTML); the level rows below them are indented when typeset.
    """

    cells: pl.DataFrame
    key_columns: tuple[str, ...]
    numeric_columns: tuple[str, ...]
    note: str
    frame_kind: str = "polars"
    n_overall: int = 0
    header_rows: tuple[int, ...] = ()

    # --------------------------------------------------------------- frames
    def to_frame(self):
        """The table as a frame of the caller's type (text cells, integer counts)."""
        return _frames.to_caller(self.cells, self.frame_kind)

    def to_polars(self) -> pl.DataFrame:
        """The table as a polars DataFrame (text cells, integer counts), whatever the caller's frame type."""
        return self.cells

    def summary(self, note: bool = True) -> str:
        """The aligned text table with its footnote: :meth:`to_text`, under the name every result shares."""
        return self.to_text(note=note)

    # -------------------------------------------------------------- renders
    def _display(self) -> pl.DataFrame:
        """The cells as typeset: negative numbers of the value columns with a true minus sign (U+2212).

        Text, Markdown, HTML and LaTeX show this; CSV and ``to_frame()`` keep
        the hyphen a program reads as a number. Key columns (group labels) are
        the caller's text and are never changed.
        """
        text = [c for c in self.numeric_columns if c in self.cells.columns and self.cells.schema[c] == pl.String]
        return self.cells.with_columns(true_minus(pl.col(c)) for c in text) if text else self.cells

    def _rows(self) -> list[list[str]]:
        return [["" if v is None else str(v) for v in row] for row in self._display().iter_rows()]

    def _in_block(self) -> list[bool]:
        """Per row: True for a level row under a variable header of a stacked table (indented when typeset)."""
        first = min(self.header_rows, default=self.cells.height)
        return [i >= first and i not in self.header_rows for i in range(self.cells.height)]

    def to_text(self, note: bool = True) -> str:
        """An aligned monospace table (what the command line prints)."""
        display = self._display()
        if self.header_rows:  # level rows indented under their variable
            key = self.key_columns[0]
            indent = pl.Series([("  " if b else "") for b in self._in_block()], dtype=pl.String)
            display = display.with_columns((indent + pl.col(key).fill_null("")).alias(key))
        body = text_table(display, right_align=self.numeric_columns)
        return f"{body}\n\n{self.note}" if note and self.note else body

    def to_csv(self) -> str:
        """Comma-separated values with a header line (cells as text)."""
        return self.cells.write_csv()

    def to_markdown(self, note: bool = True) -> str:
        """A GitHub/pandoc pipe table; counts and cells right-aligned.

        Every label reads as written, whatever it holds (:func:`markdown_escape`):
        a pipe, a line break or ``<script>`` cannot break the table.
        """
        headers = self.cells.columns
        align = ["---:" if h in self.numeric_columns else ":---" for h in headers]
        lines = ["| " + " | ".join(markdown_escape(h) for h in headers) + " |", "| " + " | ".join(align) + " |"]
        rows = [[markdown_escape(c) for c in row] for row in self._rows()]
        for i in self.header_rows:  # a variable's header row in bold
            rows[i][0] = f"**{rows[i][0]}**"
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        out = "\n".join(lines)
        return f"{out}\n\n{self.note}" if note and self.note else out

    def to_latex(self, caption: str | None = None, label: str | None = None, note: bool = True) -> str:
        r"""A LaTeX ``table`` with a booktabs ``tabular`` (needs ``\usepackage{booktabs}``).

        Every special character of the headers, cells, caption and note is
        escaped (``\ & % $ # _ { } ~ ^`` and ``< > |``, which the default
        font encoding would print as other glyphs); the en dash of the
        intervals becomes ``--`` and the minus sign ``$-$``.
        """
        headers = self.cells.columns
        spec = "".join("r" if h in self.numeric_columns else "l" for h in headers)
        lines = [r"\begin{table}[htbp]", r"\centering"]
        if caption:
            lines.append(rf"\caption{{{latex_escape(caption)}}}")
        if label:
            lines.append(rf"\label{{{label}}}")
        lines += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                  " & ".join(latex_escape(h) for h in headers) + r" \\", r"\midrule"]
        body = []
        for i, (row, in_block) in enumerate(zip(self._rows(), self._in_block())):
            if i in self.header_rows:  # a variable's header across the table, in italics
                body.append(rf"\multicolumn{{{len(headers)}}}{{l}}{{\textit{{{latex_escape(row[0])}}}}} \\")
                continue
            cells = [latex_escape(c) for c in row]
            if in_block:
                cells[0] = rf"\quad {cells[0]}"
            body.append(" & ".join(cells) + r" \\")
        if 0 < self.n_overall < len(body):
            body.insert(self.n_overall, r"\midrule")
        lines += body
        lines += [r"\bottomrule", r"\end{tabular}"]
        if note and self.note:
            lines.append(rf"\par\smallskip{{\footnotesize {latex_escape(self.note)}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines)

    def to_html(self, caption: str | None = None, note: bool = True) -> str:
        """An HTML ``<table>`` (escaped; counts and cells right-aligned)."""
        headers = self.cells.columns

        def cell(tag: str, text: str, header: str) -> str:
            style = ' style="text-align: right"' if header in self.numeric_columns else ""
            return f"<{tag}{style}>{_html.escape(printable(text))}</{tag}>"

        lines = ['<table class="aucpr-stats-table">']
        if caption:
            lines.append(f"<caption>{_html.escape(printable(caption))}</caption>")
        lines.append("<thead>")
        lines.append("<tr>" + "".join(cell("th", h, h) for h in headers) + "</tr>")
        lines.append("</thead>")
        lines.append("<tbody>")
        for i, (row, in_block) in enumerate(zip(self._rows(), self._in_block())):
            if i in self.header_rows:
                lines.append(f'<tr><th colspan="{len(headers)}" scope="rowgroup" style="text-align: left">'
                             f"{_html.escape(printable(row[0]))}</th></tr>")
                continue
            first = cell("td", row[0], headers[0])
            if in_block:
                first = first.replace("<td>", '<td style="padding-left: 1.5em">', 1)
            lines.append("<tr>" + first + "".join(cell("td", c, h) for c, h in zip(row[1:], headers[1:])) + "</tr>")
        lines.append("</tbody>")
        if note and self.note:
            lines.append(f'<tfoot><tr><td colspan="{len(headers)}">{_html.escape(printable(self.note))}</td></tr>'
                         "</tfoot>")
        lines.append("</table>")
        return "\n".join(lines)

    def to_docx(self, path: Any, caption: str | None = None, note: bool = True) -> None:
        """Write a Word document holding the table (needs the ``docx`` extra: ``python-docx``).

        Many journals take tables only as Word files. The caption comes
        first, then the table (header row bold, counts and cells
        right-aligned, variable rows of a stacked table bold and their
        levels indented), then the footnote in a smaller font.
        """
        write_docx(self, path, caption=caption, note=note)

    def to_great_tables(self, title: str | None = None, subtitle: str | None = None) -> Any:
        """A ``great_tables.GT`` of the table: stub, row groups, spanners, source notes (the ``tables`` extra).

        great_tables is optional: :func:`aucpr_stats.report.great_tables.to_great_tables` imports it on use.
        """
        return to_great_tables(self, title=title, subtitle=subtitle)

    def render(self, format: str = "text", **options: Any) -> str:
        """Render as ``"text"``, ``"csv"``, ``"markdown"``, ``"latex"`` or ``"html"``."""
        renderers = {"text": self.to_text, "csv": self.to_csv, "markdown": self.to_markdown,
                     "latex": self.to_latex, "html": self.to_html}
        if format not in renderers:
            raise InputError(f"`format` must be one of {list(renderers)}; got {format!r}")
        return renderers[format](**options)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"PublicationTable(rows={self.cells.height}, columns={self.cells.columns})"



_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    # OT1, LaTeX's default font encoding, prints "<" as "¡", ">" as "¿" and "|" as an em dash
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    "\u2013": "--", "\u2014": "---", "\u2212": "$-$",
}



def latex_escape(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped (en and em dashes as ``--`` and ``---``).

    Line breaks (and the blank lines that would end a paragraph inside a
    table) become single spaces.

    Examples
    --------
    >>> print(latex_escape("<=22 & 50%_x {a} ~^\\ #$ \u2212"))
    \textless{}=22 \& 50\%\_x \{a\} \textasciitilde{}\textasciicircum{}\textbackslash{} \#\$ $-$
    """
    text = printable(_LINE_BREAKS.sub(" ", text), "?")  # pdflatex has no glyph for U+FFFD
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


#: Runs of line breaks (and the spaces between them), read as one space in a table cell.
_LINE_BREAKS = re.compile(r"\s*[\r\n\v\f\u2028\u2029\x85]+\s*")

#: What a Markdown cell escapes: the characters that would end the cell or format its text.
_MARKDOWN_SPECIAL = {"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "[": "\\[", "]": "\\]"}

#: A ``<`` that would open an HTML tag, comment or declaration, and an ``&`` that would start an entity.
_MARKDOWN_HTML = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)")


def markdown_escape(text: str) -> str:
    r"""``text`` as one cell of a pipe table that renders as written.

    Pipes, backslashes and the characters of emphasis, code and links are
    backslash-escaped; a ``<`` that would open an HTML tag and an ``&`` that
    would start an entity become ``&lt;`` and ``&amp;`` (no HTML reaches the
    page; ``<0.001`` stays as it is); line breaks become ``<br>`` (a table
    row is one line).

    Examples
    --------
    >>> print(markdown_escape("a|b_c <script> <0.001\nx"))
    a\|b\_c &lt;script> <0.001<br>x
    """
    def one_line(line: str) -> str:
        line = _MARKDOWN_HTML.sub(lambda m: "&lt;" if m.group() == "<" else "&amp;", line)
        if line.endswith("<"):  # the <br> joined after it would make "<<br>": escaped too, as a tag opener
            line = line[:-1] + "&lt;"
        return "".join(_MARKDOWN_SPECIAL.get(ch, ch) for ch in line)

    lines = re.split(r"\r\n|[\r\n\v\f\u2028\u2029\x85]", text)
    return "<br>".join(one_line(printable(line)) for line in lines)

