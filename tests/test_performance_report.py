"""The whole performance report in one call (issue 36): the table, the tests, the figures, HTML and Word.

Oracles: the report's table equals the publication table built by hand from the verbs it runs; the HTML page
parses (html.parser) into the same cells and one image per figure, each a PNG; the Word document opens with
python-docx and holds the table and the figures; the page renders in headless Chromium without overflowing.
"""

from __future__ import annotations

import base64
import re
import html.parser
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from aucpr_stats import auroc, aucpr, calibration, net_benefit, publication_table, report


def true_minus(text: str) -> str:
    """The typeset form of a cell: the hyphen of a negative number as the minus sign (U+2212)."""
    return re.sub(r"(^|[\s(])-(\d)", "\\1\u2212\\2", text)

pytest.importorskip("matplotlib")
DATA = Path(__file__).parents[1] / "data" / "breast_cancer_oof.csv"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    return pl.read_csv(DATA)


@pytest.fixture(scope="module")
def full(df):
    with pytest.warns(Warning):
        return report(df, "malignant", ["logistic", "forest"], by="size_group", thresholds=[0.1, 0.3])


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.cells, self.images, self.sections, self._in_cell = [], [], [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag in ("td", "th"):
            self._in_cell = True
            self.cells.append("")
        if tag == "img":
            self.images.append(attrs["src"])
        if tag == "section":
            self.sections.append(attrs.get("id"))

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data):
        if self._in_cell:
            self.cells[-1] += data


def test_the_table_is_the_one_the_verbs_give(df, full):
    scores, common = ["logistic", "forest"], {}
    by = "size_group"
    results = [auroc(df, "malignant", scores, by), aucpr(df, "malignant", scores, by),
               calibration(df, "malignant", scores, by, statistic=["citl", "slope", "oe_ratio", "brier"]),
               net_benefit(df, "malignant", scores, by, thresholds=[0.1, 0.3])]
    overall = [auroc(df, "malignant", scores), aucpr(df, "malignant", scores),
               calibration(df, "malignant", scores, statistic=["citl", "slope", "oe_ratio", "brier"]),
               net_benefit(df, "malignant", scores, thresholds=[0.1, 0.3])]
    by_hand = publication_table(results, overall=overall, scores_as="rows", heterogeneity="default",
                                labels={"citl": "in the large", "slope": "slope", "oe_ratio": "O:E",
                                        "brier": "Brier"}, **common)
    assert full.table.cells.equals(by_hand.cells)
    assert full.table.note == by_hand.note
    assert full.table.cells.height == 2 + 6  # two overall rows, three sizes x two scores


def test_blocks_methods_and_references(full):
    assert [b.item for b in full.blocks] == ["12e", "23a", "23b"]
    assert "average precision" in full.methods and "Newcombe" in full.methods and "Vickers & Elkin 2006" in full.methods
    assert any(r.startswith("Boyd, K., Eng, K. H., Page, C. D. (2013)") for r in full.references)
    assert len(full.heterogeneity) == 2  # AUROC and AUCPR across size_group
    assert [f.name for f in full.figures] == ["forest", "roc", "pr", "calibration", "decision"]
    assert all(f.png[:8] == PNG for f in full.figures)


def test_html_page_holds_the_table_and_every_figure(full, tmp_path):
    page = full.to_html(tmp_path / "report.html")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == page
    parsed = _Page()
    parsed.feed(page)
    assert "script" not in parsed.tags
    assert {"tripod-12e", "tripod-23a", "tripod-23b", "figures"} <= set(parsed.sections)
    flat = [c.replace("\u00a0", " ").strip() for c in parsed.cells]  # an interval is kept on one line
    for row in full.table.cells.iter_rows():
        for value in row:  # the page typesets minus signs as the Word and LaTeX forms do
            assert true_minus(str(value)).strip() in flat
    assert len(parsed.images) == len(full.figures)
    for src in parsed.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG


def test_word_document_holds_the_table_and_the_figures(full, tmp_path):
    docx = pytest.importorskip("docx")
    full.to_docx(tmp_path / "report.docx")
    document = docx.Document(str(tmp_path / "report.docx"))
    assert len(document.inline_shapes) == len(full.figures)
    first = document.tables[0]
    texts = [[c.text for c in row.cells] for row in first.rows]
    assert texts[0] == list(full.table.cells.columns)
    body = {t for row in texts[1:] for t in row}
    assert {true_minus(c) for c in full.table.cells["Calibration, in the large (95% CI)"].to_list()} <= body
    assert len(document.tables) == 1 + len(full.heterogeneity)
    headings = [p.text for p in document.paragraphs if p.style.name.startswith("Heading")]
    assert any("TRIPOD+AI 23a" in h for h in headings)


def test_markdown_and_latex(full):
    text = full.to_markdown()
    assert text.startswith("# Performance of logistic, forest for malignant")
    assert "(TRIPOD+AI 23b)" in text and full.table.to_markdown() in text
    assert r"\begin{table}" in full.to_latex()


def test_scores_that_are_not_risks_get_discrimination_only(df):
    scored = df.with_columns(logit=(pl.col("logistic").clip(1e-6, 1 - 1e-6) / (1 - pl.col("logistic").clip(
        1e-6, 1 - 1e-6))).log())
    with pytest.warns(Warning):
        result = report(scored, "malignant", ["logit", "forest"], figures=False)
    assert any("Calibration and net benefit are not reported: logit is not a predicted risk" in n
               for n in result.notes)
    assert [r.metric for r in result.results] == ["auroc", "aucpr"]
    assert [c for c in result.table.cells.columns if "Calibration" in c or "Net benefit" in c] == []
    assert [b.item for b in result.blocks] == ["12e", "23a"]  # no subgroups, no 23b


def test_hostile_labels_are_escaped(df, tmp_path):
    hostile = df.with_columns(pl.col("size_group").replace({"1 small": "<script>alert(1)</script>"}))
    with pytest.warns(Warning):
        result = report(hostile, "malignant", "logistic", by="size_group", figures=False,
                        title="A & B <b>bold</b>")
    page = result.to_html()
    parsed = _Page()
    parsed.feed(page)
    assert "script" not in parsed.tags and "b" not in parsed.tags
    assert "&lt;script&gt;" in page and "A &amp; B" in page


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
_CHECK = """<script>
window.addEventListener('load', function () {
  var images = Array.from(document.images);
  var loaded = images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var wide = document.documentElement.scrollWidth > window.innerWidth + 1;
  var tables = document.querySelectorAll('table.aucpr-stats-table').length;
  document.body.setAttribute('data-check', 'images=' + images.length + ';loaded=' + loaded + ';overflow=' + wide
                             + ';tables=' + tables);
});
</script></body>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")
def test_the_page_renders_in_a_browser_without_overflow(full, tmp_path):
    page = full.to_html().replace("</body>", _CHECK)  # the check runs in a copy: the report holds no script
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,1800",
              "--virtual-time-budget=5000"]
    dom = subprocess.run([*common, "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120).stdout
    check = dom.split('data-check="', 1)[1].split('"', 1)[0]
    assert check == f"images={len(full.figures)};loaded={len(full.figures)};overflow=false;tables=3"
    shot = tmp_path / "report.png"
    subprocess.run([*common, f"--screenshot={shot}", path.as_uri()], capture_output=True, timeout=120)
    assert shot.read_bytes()[:8] == PNG
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[1] == 1400 and np.std(pixels) > 0.05  # a page with content, not a blank screen


def test_results_with_different_scores_are_refused_clearly(df):
    from aucpr_stats import InputError

    both = auroc(df, "malignant", ["logistic", "forest"])
    with pytest.raises(InputError, match="every result must have several scores, or none"):
        both.table(calibration(df, "malignant", "forest"), scores_as="rows")


def test_the_command_line_writes_the_page_and_the_word_file(tmp_path, capsys):
    from aucpr_stats.cli import main

    common = [str(DATA), "--formula", "malignant ~ logistic + forest | size_group", "--no-figures"]
    assert main(["report", *common, "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'id="tripod-23a"' in page
    assert main(["report", *common, "-o", str(tmp_path / "r.docx")]) == 0
    assert (tmp_path / "r.docx").read_bytes()[:2] == b"PK"  # a zip: the Word format
    capsys.readouterr()
    assert main(["report", *common, "-o", str(tmp_path / "r.pdf")]) == 2
    assert "write .html, .docx, .md, .tex or .txt" in capsys.readouterr().err
    assert main(["report", *common, "-o", str(tmp_path / "r.html")]) == 2  # exists: not without --force


def test_imputed_data_sets_are_pooled_by_rubins_rules():
    gen = np.random.default_rng(36)
    n = 300
    base = pl.DataFrame({"y": gen.random(n) < 0.3, "g": gen.integers(0, 2, n).astype(str)})
    frames = []
    for m in range(4):
        risk = 1 / (1 + np.exp(-(-1 + 1.5 * base["y"].to_numpy() + gen.normal(size=n))))
        frames.append(base.with_columns(p=risk, q=np.clip(risk + 0.05 * gen.normal(size=n), 0.001, 0.999),
                                        imp=pl.lit(m + 1)))
    df = pl.concat(frames)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small subgroups get notes; the numbers are what is checked here
        result = report(df, "y", ["p", "q"], by="g", imputation="imp", thresholds=[0.2])
    scores, stats = ["p", "q"], ["citl", "slope", "oe_ratio", "brier"]
    pooled = [auroc(df, "y", scores, "g", imputation="imp"), aucpr(df, "y", scores, "g", imputation="imp"),
              calibration(df, "y", scores, "g", statistic=stats, imputation="imp"),
              net_benefit(df, "y", scores, "g", thresholds=[0.2], imputation="imp")]
    overall = [auroc(df, "y", scores, imputation="imp"), aucpr(df, "y", scores, imputation="imp"),
               calibration(df, "y", scores, statistic=stats, imputation="imp"),
               net_benefit(df, "y", scores, thresholds=[0.2], imputation="imp")]
    by_hand = publication_table(pooled, overall=overall, scores_as="rows", heterogeneity="default",
                                labels={"citl": "in the large", "slope": "slope", "oe_ratio": "O:E", "brier": "Brier"})
    assert result.table.cells.equals(by_hand.cells)
    assert [f.name for f in result.figures] == ["forest"]
    assert "Rubin's rules (Rubin 1987)" in result.methods
    assert any("not pooled" in n for n in result.notes)


def test_sites_are_pooled_by_a_random_effects_meta_analysis(tmp_path):
    import warnings

    cohort = pl.read_csv(Path(__file__).parents[1] / "data" / "synthetic_cohort.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = report(cohort, "disease", ["model_a", "model_b"], by="age_band", sites="site")
        by_hand = [publication_table(auroc(cohort, "disease", ["model_a", "model_b"], "site").meta()),
                   publication_table(aucpr(cohort, "disease", ["model_a", "model_b"], "site").meta())]
    assert [t.cells.equals(h.cells) for t, h in zip(result.pooled, by_hand)] == [True, True]
    assert [f.name for f in result.figures if f.item == "23b"] == ["sites_auroc", "sites_aucpr"]
    assert "random-effects meta-analysis" in result.methods and "Riley, Higgins & Deeks 2011" in result.methods
    page = result.to_html()
    parsed = _Page()
    parsed.feed(page)
    assert "Random effects (REML, HKSJ)" in [c.strip() for c in parsed.cells]
    assert len(parsed.images) == len(result.figures)
    docx = pytest.importorskip("docx")
    result.to_docx(tmp_path / "sites.docx")
    document = docx.Document(str(tmp_path / "sites.docx"))
    assert len(document.tables) == 1 + len(result.heterogeneity) + 2
    assert len(document.inline_shapes) == len(result.figures)
