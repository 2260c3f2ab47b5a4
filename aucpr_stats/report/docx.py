"""Word (.docx) output of publication tables, through python-docx (the ``docx`` extra).

python-docx is imported on use, so ``import aucpr_stats`` never needs it.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import InputError
from .cells import printable

__all__ = ["write_docx", "add_table", "new_document", "save_document"]


def _python_docx():
    try:
        import docx
    except ImportError as exc:
        raise InputError('Word output needs python-docx: pip install "aucpr_stats[docx]"') from exc
    return docx


def new_document() -> Any:
    """An empty python-docx ``Document`` (the ``docx`` extra, imported on use)."""
    return _python_docx().Document()


def save_document(document: Any, path: Any) -> None:
    """Save ``document`` at ``path``; an unwritable path is the caller's error, said so."""
    try:
        document.save(path)
    except OSError as exc:
        raise InputError(f"could not write the Word document {str(path)!r}: {exc}") from exc


def write_docx(table: Any, path: Any, *, caption: str | None = None, note: bool = True) -> None:
    """Write ``table`` (a :class:`~aucpr_stats.report.PublicationTable`) as a Word document at ``path``.

    The typeset cells are used (true minus signs, en dashes); the header row
    and the variable rows of a stacked table are bold, level rows indented,
    counts and cells right-aligned, the footnote in 8 pt below the table.
    """
    document = new_document()
    add_table(document, table, caption=caption, note=note)
    save_document(document, path)


def add_table(document: Any, table: Any, *, caption: str | None = None, note: bool = True) -> None:
    """Append ``table`` to a python-docx ``document`` (as :func:`write_docx` lays it out)."""
    _python_docx()
    from docx.enum.text import WD_ALIGN_PARAGRAPH  # python-docx is optional: imported on use
    from docx.shared import Pt  # optional dependency, as above

    if caption:
        document.add_paragraph(printable(caption)).runs[0].bold = True
    headers = table.cells.columns
    grid = document.add_table(rows=1, cols=len(headers))
    grid.style = "Table Grid"
    right = [h in table.numeric_columns for h in headers]

    def fill(cell: Any, text: str, *, bold: bool = False, align_right: bool = False, indent: bool = False) -> None:
        paragraph = cell.paragraphs[0]
        run = paragraph.add_run(printable(text))  # XML refuses NULs and control codes
        run.bold = bold
        run.font.size = Pt(9)
        if align_right:
            paragraph.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        if indent:
            paragraph.paragraph_format.left_indent = Pt(10)

    for cell, header, is_right in zip(grid.rows[0].cells, headers, right):
        fill(cell, header, bold=True, align_right=is_right)
    for i, (row, in_block) in enumerate(zip(table._rows(), table._in_block())):
        cells = grid.add_row().cells
        if i in table.header_rows:
            merged = cells[0].merge(cells[-1]) if len(cells) > 1 else cells[0]
            fill(merged, row[0], bold=True)
            continue
        for j, (cell, text, is_right) in enumerate(zip(cells, row, right)):
            fill(cell, text, align_right=is_right, indent=in_block and j == 0)
    if note and table.note:
        paragraph = document.add_paragraph()
        run = paragraph.add_run(printable(table.note))
        run.font.size = Pt(8)
