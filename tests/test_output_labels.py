"""Every output format stays well-formed whatever a group label holds (issue 37, must-hold 3, first part).

Labels drawn by hypothesis from text with pipes, line breaks, blank lines,
backslashes, LaTeX and Markdown specials and ``<script>``: the Markdown table
keeps one line per row and one cell per column and no HTML; the LaTeX
tabular keeps one ``&``-separated row per line, no blank line, balanced
braces; the HTML parses to the same rows with no script element; the CSV
reads back to the same labels; the Word document opens with python-docx and
holds every label (whitespace aside); LaTeX passes a tokenizer that allows only
the escapes and commands the writer uses; no format carries a control code
(issue 37, must-hold 3, second part).
"""

from __future__ import annotations

import html.parser
import io
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aucpr_stats import aucpr, publication_table
from aucpr_stats.report.cells import printable

pytestmark = pytest.mark.filterwarnings("ignore")

SPECIAL = list("|\\*_`[]<>&%$#{}~^\n\r\t ") + ["\n\n", "<script>alert(1)</script>", "\r\n", "\u2028", "$-$",
                                                 "\x00", "\x1b", "\x0b", "\x0c", "\x7f", "\x85", "\ufffe"]
LABELS = st.lists(st.one_of(st.sampled_from(SPECIAL), st.text(max_size=3)), min_size=1, max_size=5).map("".join)


def table_with(labels: list[str]):
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(len(labels)), 60)
    y = np.tile(np.arange(60) % 3 == 0, len(labels))
    frame = pl.DataFrame({"g": [labels[k] for k in g], "y": y, "s": rng.normal(size=g.size) + y})
    return publication_table(aucpr(frame, "y", "s", by="g"))


def markdown_cells(line: str) -> list[str]:
    """The cells of a pipe-table line: split on pipes not escaped by a backslash."""
    assert line.startswith("| ") and line.endswith(" |")
    cells, current, escaped = [], "", False
    for ch in line[2:-2]:
        if ch == "|" and not escaped:
            cells.append(current)
            current = ""
        else:
            current += ch
        escaped = ch == "\\" and not escaped
    return cells + [current]


class _Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.tags = 0, []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.rows += tag == "tr"


@settings(max_examples=200, deadline=None)
@given(st.lists(LABELS, min_size=2, max_size=3, unique=True))
@example(["|", "<\n\n?"])  # a "<" at the end of a line, before the <br> that replaces the break (found by CI)
def test_every_format_is_well_formed_for_any_label(labels):
    table = table_with(labels)
    n_cols, n_rows = len(table.cells.columns), table.cells.height

    markdown = table.to_markdown(note=False).split("\n")
    assert len(markdown) == n_rows + 2
    assert all(len(markdown_cells(line)) == n_cols for line in markdown)
    assert re.search(r"<[A-Za-z/!?]", table.to_markdown(note=False).replace("<br>", "")) is None  # no HTML tag

    latex = table.to_latex(note=False)
    body = latex[latex.index(r"\midrule") + len(r"\midrule"): latex.index(r"\bottomrule")].strip("\n").split("\n")
    assert len(body) == n_rows and "\n\n" not in latex
    for line in body:
        assert line.endswith(r" \\") and len(re.findall(r"(?<!\\)&", line)) == n_cols - 1
    depth = 0
    for piece in re.sub(r"\\[{}]", "", latex):
        depth += (piece == "{") - (piece == "}")
        assert depth >= 0
    assert depth == 0

    parser = _Rows()
    parser.feed(table.to_html(note=False))
    assert parser.rows == n_rows + 1 and "script" not in parser.tags

    back = pl.read_csv(io.StringIO(table.to_csv()))
    assert sorted(back[back.columns[0]].to_list()) == sorted(table.cells[table.cells.columns[0]].to_list())


#: The control sequences the LaTeX writer may emit: its escapes and its table commands.
LATEX_COMMANDS = {"textless", "textgreater", "textbar", "textbackslash", "textasciitilde", "textasciicircum",
                  "&", "%", "$", "#", "_", "{", "}", "\\", "toprule", "midrule", "bottomrule", "begin", "end",
                  "centering", "multicolumn", "textit", "caption", "label", "par", "smallskip", "footnotesize"}
LATEX_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\$-\$)|(.)", re.S)
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]")


def latex_tokens_ok(latex: str, labels: list[str]) -> None:
    """Every control sequence is one the writer emits; no bare special character is left; no control code, and
    no U+FFFD but the labels' own (pdflatex has no glyph for it: the writer puts "?" for a control code)."""
    assert CONTROL.search(latex) is None
    assert latex.count("\ufffd") == sum(label.count("\ufffd") for label in labels)
    for command, math_minus, char in LATEX_TOKEN.findall(latex):
        if command:
            assert command in LATEX_COMMANDS, command
        elif char:
            assert char not in "%$#_^~\\", (char, latex)


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(LABELS, min_size=2, max_size=3, unique=True))
@example(labels=["a\x00b", "c\x0bd\n\ne\x0c"])  # a NUL and a vertical tab: python-docx refused them (issue 37)
@example(labels=["|", "\ufffd"])  # a label's own replacement character stays (found by CI)
def test_word_latex_and_html_carry_any_label(tmp_path_factory, labels):
    docx = pytest.importorskip("docx")
    table = table_with(labels)
    path = tmp_path_factory.mktemp("docx") / "table.docx"
    table.to_docx(path)
    grid = docx.Document(str(path)).tables[0]
    assert len(grid.rows) == table.cells.height + 1
    shown = sorted(re.sub(r"\s+", " ", cell.text).strip() for cell in grid.columns[0].cells[1:])
    wanted = sorted(re.sub(r"\s+", " ", printable(label)).strip() for label in table.cells[table.cells.columns[0]])
    assert shown == wanted
    latex_tokens_ok(table.to_latex(caption="A caption & 50%_x", note=True), labels)
    html = table.to_html(note=True)
    assert CONTROL.search(html) is None
    assert CONTROL.search(table.to_markdown(note=True)) is None
