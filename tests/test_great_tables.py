"""PublicationTable.to_great_tables(): the GT's HTML read back with html.parser and compared with the table's cells."""

from __future__ import annotations

import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("great_tables")

from aucpr_stats import aucpr, auroc  # noqa: E402
from aucpr_stats.exceptions import InputError, InputTypeError  # noqa: E402
from aucpr_stats.report import PublicationTable  # noqa: E402
from aucpr_stats.report.cells import MARKS  # noqa: E402
from aucpr_stats.report.great_tables import spanner_runs, split_note, to_great_tables  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "breast_cancer_oof.csv"
SECTION = "\u00a7"


class GTReader(HTMLParser):
    """The parts of a great_tables HTML table: heading, column headings, body rows and groups, source notes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.heading: dict[str, str] = {}
        self.head_rows: list[list[dict]] = []
        self.body: list[tuple[str, object]] = []  # ("group", text) or ("row", [cell, ...])
        self.notes: list[str] = []
        self.section = None
        self.row: list[dict] | None = None
        self.cell: dict | None = None
        self.note: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag in ("thead", "tbody", "tfoot"):
            self.section = tag
        elif tag == "tr":
            self.row = []
            self.row_classes = classes
        elif tag in ("td", "th") and self.row is not None:
            self.cell = {"tag": tag, "text": [], "classes": classes, "style": a.get("style") or "",
                         "colspan": int(a.get("colspan") or 1), "rowspan": int(a.get("rowspan") or 1)}
            if "gt_sourcenote" in classes:
                self.note = self.cell["text"]

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"].append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.cell["text"] = "".join(self.cell["text"]).strip()
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self._end_row(self.row, self.row_classes)
            self.row = None

    def _end_row(self, row, classes):
        if self.section == "thead" and "gt_heading" in classes:
            for c in row:
                for part in ("gt_title", "gt_subtitle"):
                    if part in c["classes"]:
                        self.heading[part] = c["text"]
        elif self.section == "thead":
            self.head_rows.append(row)
        elif self.section == "tbody" and any("group_heading" in c for c in classes):
            self.body.append(("group", row[0]["text"]))
        elif self.section == "tbody":
            self.body.append(("row", row))
        elif self.section == "tfoot":
            self.notes += [c["text"] for c in row]

    # ---------------------------------------------------------------- views
    def rows(self) -> list[list[str]]:
        """Body rows as texts, stub cells merged over several rows (rowspan) repeated in each."""
        out, pending = [], {}
        for kind, row in self.body:
            if kind != "row":
                continue
            cells, it, j = [], iter(row), 0
            while True:
                if j in pending and pending[j][1] > 0:
                    cells.append(pending[j][0])
                    pending[j] = (pending[j][0], pending[j][1] - 1)
                else:
                    c = next(it, None)
                    if c is None:
                        break
                    cells.append(c["text"])
                    if c["rowspan"] > 1:
                        pending[j] = (c["text"], c["rowspan"] - 1)
                j += 1
            out.append(cells)
        return out

    def columns(self) -> list[tuple[str | None, str, list[str]]]:
        """Per column: its spanner's label (or None), its label and its classes."""
        if len(self.head_rows) == 1:
            return [(None, c["text"], c["classes"]) for c in self.head_rows[0]]
        top, labels = self.head_rows
        out, below = [], iter(labels)
        for c in top:
            if c["rowspan"] == 2:
                out.append((None, c["text"], c["classes"]))
            else:
                out += [(c["text"], d["text"], d["classes"]) for d in (next(below) for _ in range(c["colspan"]))]
        return out

    def groups(self) -> list[str]:
        return [text for kind, text in self.body if kind == "group"]


def read(gt) -> GTReader:
    reader = GTReader()
    reader.feed(gt.as_raw_html())
    return reader


def as_text(table: PublicationTable, rows=None) -> list[list[str]]:
    """The oracle: the table's cells as text, missing as "" (no negative numbers in these tables)."""
    rows = range(table.cells.height) if rows is None else rows
    return [["" if v is None else str(v) for v in table.cells.row(i)] for i in rows]


@pytest.fixture(scope="module")
def df():
    return pl.read_csv(DATA).with_columns(
        texture_band=pl.when(pl.col("texture") < 0.5).then(pl.lit("low")).otherwise(pl.lit("high")))


@pytest.fixture(scope="module")
def formula_table(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small group's SmallSampleWarning: the § mark is what is tested
        return aucpr("malignant ~ logistic + forest | size_group", data=df).table()


@pytest.fixture(scope="module")
def stacked_table(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return aucpr(df, "malignant", ["logistic"], by="size_group").table(
            aucpr(df, "malignant", ["logistic"], by="texture_band"), overall=aucpr(df, "malignant", ["logistic"]))


@pytest.fixture(scope="module")
def two_metric_table(df):
    scores = ["logistic", "forest"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return aucpr(df, "malignant", scores, by="size_group").table(
            auroc(df, "malignant", scores, by="size_group"), prevalence=True,
            overall=[aucpr(df, "malignant", scores), auroc(df, "malignant", scores)])


def test_formula_table_cells_in_order_under_their_headers(formula_table):
    t = formula_table
    assert t.cells.columns[3:] == ["logistic: AUCPR (95% CI)", "forest: AUCPR (95% CI)"]
    r = read(t.to_great_tables())
    assert r.rows() == as_text(t)
    columns = r.columns()
    assert [label for _, label, _ in columns[:3]] == ["size_group", "Positives", "Negatives"]
    # one metric, two scores side by side: the metric spans both, the scores label the columns
    assert [(s, label) for s, label, _ in columns[3:]] == [("AUCPR (95% CI)", "logistic"), ("AUCPR (95% CI)", "forest")]
    rebuilt = [label if s is None else f"{label}: {s}" for s, label, _ in columns]
    assert rebuilt == t.cells.columns
    # counts and cells right-aligned (heading and body), the stub left
    right = [("gt_right" in classes) for _, _, classes in columns]
    assert right == [c in t.numeric_columns for c in t.cells.columns]
    for _, row in (b for b in r.body if b[0] == "row"):
        assert [("gt_right" in c["classes"]) for c in row] == right
        assert row[0]["tag"] == "th" and "gt_stub" in row[0]["classes"]


def test_marks_and_note_become_source_notes(formula_table):
    t = formula_table
    assert any(SECTION in v for v in t.cells["logistic: AUCPR (95% CI)"].to_list())
    r = read(t.to_great_tables())
    explanation = f"{SECTION} {MARKS[SECTION][1]}."
    assert r.notes[-1] == explanation
    assert explanation in t.note
    assert r.notes[0] == t.note.replace(explanation, "").strip()
    assert " ".join(r.notes) in (t.note, f"{r.notes[0]} {explanation}")
    assert sum(n.count(SECTION) for n in r.notes) == 1


def test_stacked_table_blocks_become_row_groups_overall_first(stacked_table):
    t = stacked_table
    assert t.header_rows == (1, 5) and t.n_overall == 1
    r = read(t.to_great_tables(title="Table 2", subtitle="AUCPR by subgroup"))
    assert r.heading == {"gt_title": "Table 2", "gt_subtitle": "AUCPR by subgroup"}
    assert r.groups() == ["", "size_group", "texture_band"]
    # the body in order: an unlabelled group with the Overall row, then each variable and its levels
    kinds = [(k, v if k == "group" else v[0]["text"]) for k, v in r.body]
    assert kinds == [("group", ""), ("row", "Overall"), ("group", "size_group"), ("row", "1 small"),
                     ("row", "2 medium"), ("row", "3 large"), ("group", "texture_band"), ("row", "high"),
                     ("row", "low")]
    assert r.rows() == as_text(t, [0, 2, 3, 4, 6, 7])
    assert [label for _, label, _ in r.columns()] == t.cells.columns  # no ": " in the headers: no spanners
    assert all(s is None for s, _, _ in r.columns())
    assert any(n.startswith(SECTION) for n in r.notes)


def test_two_metrics_spanned_and_overall_row_ruled_off(two_metric_table):
    t = two_metric_table
    assert t.n_overall == 1 and not t.header_rows
    r = read(t.to_great_tables())
    assert r.rows() == as_text(t)
    spanned = [(s, label) for s, label, _ in r.columns() if s is not None]
    assert spanned == [("AUCPR (95% CI)", "logistic"), ("AUCPR (95% CI)", "forest"),
                       ("AUROC (95% CI)", "logistic"), ("AUROC (95% CI)", "forest")]
    assert [label if s is None else f"{label}: {s}" for s, label, _ in r.columns()] == t.cells.columns
    rows = [v for k, v in r.body if k == "row"]
    assert all("border-bottom" in c["style"] for c in rows[0])
    assert not any("border-bottom" in c["style"] for row in rows[1:] for c in row)
    assert r.groups() == []


def test_several_keys_form_a_stub_of_several_columns(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = aucpr(df, "malignant", "logistic", by=["size_group", "texture_band"]).table()
    assert len(t.key_columns) == 2
    r = read(t.to_great_tables())
    assert r.rows() == as_text(t)
    assert [label for _, label, _ in r.columns()][:2] == list(t.key_columns)


def escaped_table() -> PublicationTable:
    cells = pl.DataFrame({
        "Group <b>": ["<script>alert(1)</script>", "a & b\nc", None],
        "Positives": [3, None, 5],
        "<i>m</i>: AUCPR": ["0.50 (0.10\u20130.90)\u2020", "&amp;", "-0.20 (-0.30 to -0.10)"],
        "<i>m</i>: AUROC": ["1", "2", "3\x07"],
    })
    return PublicationTable(cells=cells, key_columns=("Group <b>",),
                            numeric_columns=("Positives", "<i>m</i>: AUCPR", "<i>m</i>: AUROC"),
                            note="Cells <script>x()</script> & more. \u2020 truncated <here>. Last.")


def test_labels_with_markup_render_escaped_as_written():
    t = escaped_table()
    gt = to_great_tables(t, title="T & <script>", subtitle="a\x00b")
    html = gt.as_raw_html()
    r = read(gt)
    assert "script" not in r.tags and "b" not in r.tags and "i" not in r.tags
    assert "<script>" not in html
    assert r.heading == {"gt_title": "T & <script>", "gt_subtitle": "a\ufffdb"}
    minus = "\u2212"
    assert r.rows() == [["<script>alert(1)</script>", "3", "0.50 (0.10\u20130.90)\u2020", "1"],
                        ["a & b\nc", "", "&amp;", "2"],
                        ["", "5", f"{minus}0.20 ({minus}0.30 to {minus}0.10)", "3\ufffd"]]
    # the score part spans both of its columns (fewer spanners than one per metric)
    assert [(s, label) for s, label, _ in r.columns()] == [(None, "Group <b>"), (None, "Positives"),
                                                           ("<i>m</i>", "AUCPR"), ("<i>m</i>", "AUROC")]
    assert r.notes == ["Cells <script>x()</script> & more. Last.", "\u2020 truncated <here>."]


def test_split_note_and_spanner_runs_on_their_own():
    dagger, ddagger = "\u2020", "\u2021"
    note = f"A (x.y). {ddagger} boundary (Wilson, 2006). {SECTION} small (docs/v.md). P: 0.3."
    assert split_note(note, [dagger, ddagger, SECTION]) == (
        "A (x.y). P: 0.3.", [f"{dagger} {MARKS[dagger][1]}.", f"{ddagger} boundary (Wilson, 2006).",
                             f"{SECTION} small (docs/v.md)."])
    assert split_note("", []) == ("", [])
    spanners, labels = spanner_runs(["n", "a: X", "b: X", "n2", "a: Y"])
    # by score: a, b, a (3 runs); by metric: X, Y (2 runs)
    assert spanners == [("X", ["a: X", "b: X"]), ("Y", ["a: Y"])]
    assert labels == {"a: X": "a", "b: X": "b", "a: Y": "a"}
    assert spanner_runs(["n"]) == ([], {})


def test_ungrouped_table_has_no_stub(df):
    t = aucpr(df, "malignant", "logistic").table()
    assert t.key_columns == ()
    r = read(t.to_great_tables())
    assert r.rows() == as_text(t)
    assert not any(c["tag"] == "th" for k, row in r.body if k == "row" for c in row)


def test_bad_arguments_say_what_is_wrong(formula_table):
    with pytest.raises(InputTypeError, match="`table` must be a PublicationTable"):
        to_great_tables(pl.DataFrame({"a": [1]}))
    with pytest.raises(InputTypeError, match="`title` must be text"):
        formula_table.to_great_tables(title=3)
    with pytest.raises(InputTypeError, match="`subtitle` must be text"):
        formula_table.to_great_tables(title="T", subtitle=["x"])
    with pytest.raises(InputError, match="`subtitle` needs a `title`"):
        formula_table.to_great_tables(subtitle="only")


def test_missing_great_tables_names_the_extra(formula_table, monkeypatch):
    monkeypatch.setitem(sys.modules, "great_tables", None)  # an import of it now fails
    with pytest.raises(ImportError, match=r"pip install 'aucpr_stats\[tables\]'"):
        formula_table.to_great_tables()
