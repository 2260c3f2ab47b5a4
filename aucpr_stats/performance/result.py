"""The performance report: its blocks, figures and renderings (a self-contained HTML page, Word, Markdown, LaTeX).

The HTML page holds everything in one file (styles inline, figures as PNG
data URIs), so it can be mailed or attached to a submission; every text is
escaped. The Word document holds the same blocks with the table as a Word
table and the figures embedded (python-docx, the ``docx`` extra).
"""

from __future__ import annotations

import base64
import html
import io
import re
from pathlib import Path
from typing import Any

import attrs

from ..report.cells import printable
from ..report.docx import add_table, new_document, save_document

__all__ = ["Block", "Figure", "PerformanceReport", "TRIPOD_ITEMS"]

#: The TRIPOD+AI items the report answers (Collins et al. 2024).
TRIPOD_ITEMS = {
    "12e": "Specify all measures and plots used to evaluate model performance",
    "23a": "Report model performance estimates with confidence intervals, including for any key subgroups",
    "23b": "If examined, report results of any heterogeneity in model performance across clusters",
}

_STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1400px;
       padding: 0 1.5em; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
.tripod { display: inline-block; font-size: 0.75em; font-weight: 600; color: #fff; background: #3465a4;
          border-radius: 3px; padding: 0.1em 0.5em; margin-right: 0.6em; vertical-align: middle; }
.item { font-size: 0.85em; color: #555; margin-top: -0.6em; }
.scroll { overflow-x: auto; max-width: 100%; }
table.aucpr-stats-table { border-collapse: collapse; font-size: 0.75em; margin: 0.8em 0; }
table.aucpr-stats-table th, table.aucpr-stats-table td { border-bottom: 1px solid #ddd; padding: 0.3em 0.35em;
                                                       vertical-align: top; }
table.aucpr-stats-table tbody td:first-child { white-space: nowrap; }
table.aucpr-stats-table thead th { border-bottom: 2px solid #444; white-space: normal; vertical-align: bottom; }
table.aucpr-stats-table tfoot td { white-space: normal; font-size: 0.9em; color: #444; border: none; }
figure { margin: 1.5em 0; }
figure img { max-width: min(100%, 1100px); height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #333; margin-top: 0.4em; }
.notes li, .refs li { font-size: 0.85em; }
"""


@attrs.frozen
class Block:
    """A section of the report: the TRIPOD+AI item it answers, a heading and its text."""

    item: str
    heading: str
    text: str


@attrs.frozen(eq=False)
class Figure:
    """A figure of the report: a name, the TRIPOD+AI item, a caption and the PNG image."""

    name: str
    item: str
    caption: str
    png: bytes = attrs.field(repr=False)


@attrs.frozen(eq=False, repr=False)
class PerformanceReport:
    """Discrimination, calibration and clinical utility of models, per subgroup and overall, with figures.

    Returned by :func:`aucpr_stats.report`. ``table`` is the publication
    table (``.to_markdown()``, ``.to_latex()``, ``.to_docx()``...);
    ``results`` the results behind it; ``heterogeneity`` the tests across
    subgroups (one frame per metric and grouping); ``figures`` the PNG
    figures; ``methods`` the methods paragraph written from the registry
    records, with ``references``.
    """

    title: str
    table: Any
    results: tuple
    overall: tuple
    heterogeneity: tuple
    figures: tuple
    blocks: tuple
    methods: str
    references: tuple
    notes: tuple
    frame_kind: str = "polars"
    pooled: tuple = ()

    # ------------------------------------------------------------------ text forms
    def to_markdown(self) -> str:
        """The title, the methods, the table (Markdown) and the notes; figures are listed by caption."""
        parts = [f"# {printable(self.title)}", ""]
        for block in self.blocks:
            parts += [f"## {block.heading} (TRIPOD+AI {block.item})", ""]
            if block.item == "12e":
                parts += [block.text, ""]
            elif block.item == "23a":
                parts += [self.table.to_markdown(), ""]
            else:
                parts += [block.text, ""] + [_markdown_frame(frame) for frame in self.heterogeneity] + [""]
                parts += [t for table in self.pooled for t in (table.to_markdown(), "")]
        if self.figures:
            parts += ["## Figures", ""] + [f"- Figure {i}: {f.caption} (TRIPOD+AI {f.item})"
                                           for i, f in enumerate(self.figures, 1)] + [""]
        parts += _listed("Notes", self.notes) + _listed("References", self.references)
        return "\n".join(parts)

    def to_latex(self) -> str:
        """The table as LaTeX (a ``table`` environment with its caption)."""
        return self.table.to_latex(caption=self.title)

    def summary(self) -> str:
        """The title, the table as text and the notes."""
        lines = [self.title, "", self.table.to_text()]
        if self.notes:
            lines += ["", *[f"- {n}" for n in self.notes]]
        return "\n".join(lines)

    __str__ = summary

    def __repr__(self) -> str:
        return (f"PerformanceReport({self.title!r}, rows={self.table.cells.height}, figures={len(self.figures)}, "
                f"tests={len(self.heterogeneity)})")

    # ------------------------------------------------------------------ HTML
    def to_html(self, path: Any = None) -> str:
        """A self-contained HTML page (styles inline, figures as data URIs); written to ``path`` if given."""
        esc = lambda text: html.escape(printable(str(text)))  # noqa: E731 - every text of the page passes here
        body = [f"<h1>{esc(self.title)}</h1>"]
        for block in self.blocks:
            body.append(f'<section id="tripod-{esc(block.item)}">')
            body.append(f'<h2><span class="tripod">TRIPOD+AI {esc(block.item)}</span>{esc(block.heading)}</h2>')
            body.append(f'<p class="item">{esc(TRIPOD_ITEMS.get(block.item, ""))}</p>')
            if block.item == "23a":
                table = _NO_BREAK_IN_INTERVAL.sub(lambda m: m.group(0).replace(" to ", "\u00a0to\u00a0"),
                                                  self.table.to_html(caption=self.title))
                body.append(f'<div class="scroll">{table}</div>')
                body += [self._figure_html(i, f) for i, f in enumerate(self.figures, 1) if f.item == "23a"]
            elif block.item == "23b":
                body.append(f"<p>{esc(block.text)}</p>")
                body += [f'<div class="scroll">{_html_frame(frame)}</div>' for frame in self.heterogeneity]
                body += [f'<div class="scroll">{table.to_html()}</div>' for table in self.pooled]
                body += [self._figure_html(i, f) for i, f in enumerate(self.figures, 1) if f.item == "23b"]
            else:
                body.append(f"<p>{esc(block.text)}</p>")
            body.append("</section>")
        plots = [(i, f) for i, f in enumerate(self.figures, 1) if f.item == "12e"]
        if plots:  # after the numbers: the plots item 12e names
            body.append('<section id="figures"><h2><span class="tripod">TRIPOD+AI 12e</span>Plots of model '
                        "performance</h2>")
            body += [self._figure_html(i, f) for i, f in plots]
            body.append("</section>")
        if self.notes:
            body.append('<h2>Notes</h2><ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in self.notes)
                        + "</ul>")
        if self.references:
            body.append('<h2>References</h2><ol class="refs">' + "".join(f"<li>{esc(r)}</li>"
                                                                         for r in self.references) + "</ol>")
        page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{esc(self.title)}"
                f"</title><style>{_STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

    def _figure_html(self, number: int, figure: Figure) -> str:
        data = base64.b64encode(figure.png).decode("ascii")
        caption = html.escape(printable(figure.caption))
        return (f'<figure id="figure-{html.escape(figure.name)}"><img alt="{caption}" src="data:image/png;base64,'
                f'{data}"><figcaption>Figure {number}. {caption}</figcaption></figure>')

    # ------------------------------------------------------------------ Word
    def to_docx(self, path: Any) -> None:
        """A Word document: the blocks, the table as a Word table, the figures embedded (the ``docx`` extra)."""
        document = new_document()
        from docx.shared import Inches  # python-docx is optional: new_document() has checked it is there

        document.add_heading(printable(self.title), level=1)
        for block in self.blocks:
            document.add_heading(printable(f"{block.heading} (TRIPOD+AI {block.item})"), level=2)
            if block.item == "23a":
                add_table(document, self.table, caption=self.title)
            else:
                document.add_paragraph(printable(block.text))
            if block.item == "23b":
                for frame in self.heterogeneity:
                    _docx_frame(document, frame)
                for table in self.pooled:
                    add_table(document, table)
            for i, figure in enumerate(self.figures, 1):
                if figure.item == block.item and block.item != "12e":
                    document.add_picture(io.BytesIO(figure.png), width=Inches(6.3))
                    document.add_paragraph(printable(f"Figure {i}. {figure.caption}"))
        plots = [(i, f) for i, f in enumerate(self.figures, 1) if f.item == "12e"]
        if plots:
            document.add_heading("Plots of model performance (TRIPOD+AI 12e)", level=2)
            for i, figure in plots:
                document.add_picture(io.BytesIO(figure.png), width=Inches(6.3))
                document.add_paragraph(printable(f"Figure {i}. {figure.caption}"))
        for heading, items in (("Notes", self.notes), ("References", self.references)):
            if items:
                document.add_heading(heading, level=2)
                for item in items:
                    document.add_paragraph(printable(item), style="List Bullet")
        save_document(document, path)


def _listed(heading: str, items: tuple) -> list[str]:
    return [f"## {heading}", "", *[f"- {printable(i)}" for i in items], ""] if items else []


#: An interval in a cell, "(0.98 to 1.00)": kept on one line, so a narrow cell breaks only before it.
_NO_BREAK_IN_INTERVAL = re.compile(r"\([^()<>]* to [^()<>]*\)")

_HETEROGENEITY_COLUMNS = ("estimator", "score", "statistic", "df", "p_value", "i2", "k", "method", "note")


def _shown(frame: Any) -> list[str]:
    return [c for c in frame.columns if c in _HETEROGENEITY_COLUMNS or c not in ("scale", "level", "df2")]


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "" if value != value else f"{value:.4g}"
    return "" if value is None else str(value)


def _markdown_frame(frame: Any) -> str:
    columns = _shown(frame)
    escape = lambda text: printable(text).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(escape(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(escape(_cell(row[c])) for c in columns) + " |" for row in frame.iter_rows(named=True)]
    return "\n".join(lines) + "\n"


def _html_frame(frame: Any) -> str:
    columns = _shown(frame)
    esc = lambda text: html.escape(printable(text))  # noqa: E731
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    rows = "".join("<tr>" + "".join(f"<td>{esc(_cell(row[c]))}</td>" for c in columns) + "</tr>"
                   for row in frame.iter_rows(named=True))
    return f'<table class="aucpr-stats-table"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _docx_frame(document: Any, frame: Any) -> None:
    columns = _shown(frame)
    grid = document.add_table(rows=1, cols=len(columns))
    grid.style = "Table Grid"
    for cell, name in zip(grid.rows[0].cells, columns):
        cell.text = printable(name)
    for row in frame.iter_rows(named=True):
        for cell, name in zip(grid.add_row().cells, columns):
            cell.text = printable(_cell(row[name]))
