"""Publication tables: cells are the numbers of to_frame()/conf_int(), formatted; renders are well formed."""

from __future__ import annotations

import html.parser
import re

import attrs
import numpy as np
import polars as pl
import pytest

from aucpr_stats import compare
from aucpr_stats.api import aucpr, auroc
from aucpr_stats.exceptions import InputError
from aucpr_stats.report import PublicationTable, format_cell, publication_table
from aucpr_stats.results import AucprResult

from .conftest import as_polars, make_frame, random_scores

AP = "average_precision"
DASH = "\u2013"


def cohort(kind="polars", n=400, seed=3):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n)
    cols = {"y": y.astype(int), "s1": s, "s2": s + rng.normal(size=n), "site": rng.choice(["b", "a", "c"], n)}
    return make_frame(cols, kind)


@attrs.frozen(eq=False, repr=False)
class StubIntervals(AucprResult):
    """An AUCPR result whose conf_int returns made-up bounds (estimate -/+ 0.1 * level), to test formatting."""

    def conf_int_polars(self, method="logit", level=0.95, **options):
        frame = self.to_polars()
        keys = list(self.by)
        return frame.select(
            *keys, "estimator", "estimate",
            pl.lit(method).alias("method"), pl.lit(level).alias("level"),
            (pl.col("estimate") - 0.1 * level).alias("lower"), (pl.col("estimate") + 0.1 * level).alias("upper"),
        )


def stub(result):
    return StubIntervals(**{f.name: getattr(result, f.name) for f in attrs.fields(AucprResult)})


def test_point_estimate_cells_and_counts(frame_kind):
    r = aucpr(cohort(frame_kind), "y", "s1", by="site", estimator=AP)
    table = r.table(digits=3, method=None)
    assert isinstance(table, PublicationTable)
    cells = as_polars(table.to_frame())
    frame = as_polars(r.to_frame())
    assert cells.columns == ["site", "Positives", "Negatives", "AUCPR"]
    assert cells["site"].to_list() == frame["site"].to_list() == ["a", "b", "c"]
    assert cells["Positives"].to_list() == frame["n_pos"].to_list()
    assert cells["Negatives"].to_list() == frame["n_neg"].to_list()
    assert cells["AUCPR"].to_list() == [f"{v:.3f}" for v in frame["estimate"]]
    assert type(table.to_frame()).__name__ == type(r.to_frame()).__name__


def test_interval_cells_equal_conf_int_numbers():
    r = auroc(cohort(), "y", "s1", by="site")
    for level, digits in [(0.95, 2), (0.9, 4)]:
        table = publication_table(r, method="delong", level=level, digits=digits)
        ci = as_polars(r.conf_int(method="delong", level=level))
        header = f"AUROC ({level * 100:g}% CI)"
        # a DeLong interval below its validated number of positives carries the small-sample mark
        expected = [f"{e:.{digits}f} ({lo:.{digits}f}{DASH}{hi:.{digits}f})" + ("\u00a7" if note and "small sample"
                                                                               in note else "")
                    for e, lo, hi, note in ci.select("estimate", "lower", "upper", "note").iter_rows()]
        assert table.cells[header].to_list() == expected


def test_stub_intervals_several_estimators_methods_and_results():
    base = aucpr(cohort(), "y", ["s1", "s2"], by="site", estimator=AP)
    r = stub(base)
    roc = auroc(cohort(), "y", ["s1", "s2"], by="site")
    table = publication_table([r, roc], method={"aucpr": ["logit", "binomial"], "auroc": "delong"},
                              labels={"s1": "Model 1", "s2": "Model 2", "site": "Site"})
    cols = table.cells.columns
    assert cols[:3] == ["Site", "Positives", "Negatives"]
    assert "Model 1: AUCPR (95% CI, logit)" in cols and "Model 2: AUCPR (95% CI, binomial)" in cols
    assert "Model 2: AUROC (95% CI)" in cols
    frame = as_polars(base.to_frame()).filter(pl.col("score") == "s2")
    expected = [f"{e:.2f} ({e - 0.095:.2f}{DASH}{e + 0.095:.2f})" for e in frame["estimate"]]
    assert table.cells["Model 2: AUCPR (95% CI, binomial)"].to_list() == expected
    # scores as rows: one row per (site, score)
    rows = publication_table([r, roc], method=None, scores_as="rows")
    assert rows.cells.columns == ["site", "Score", "Positives", "Negatives", "AUCPR", "AUROC"]
    assert rows.cells.height == 6
    assert "AUCPR: point estimate; estimator average precision." in rows.note


def test_degenerate_group_shows_na():
    df = pl.DataFrame({"y": [1, 0, 1, 1, 1], "s": [0.9, 0.2, 0.5, 0.4, 0.3], "g": ["a", "a", "a", "b", "b"]})
    with pytest.warns(Warning):
        r = aucpr(df, "y", "s", by="g", estimator=AP)
    table = publication_table(stub(r), method="logit", na="--")
    assert table.cells["AUCPR (95% CI)"].to_list()[1] == "--"
    assert table.cells["Negatives"].to_list() == [1, 0]


def test_format_cell():
    assert format_cell(0.7312, 0.63, 0.829, digits=2) == f"0.73 (0.63{DASH}0.83)"
    assert format_cell(float("nan"), 0.1, 0.2) == "NA"
    assert format_cell(0.5, None, 0.6, na="-") == "0.50 (-)"
    assert format_cell(0.5, 0.4, 0.6, interval=False, digits=1) == "0.5"
    assert format_cell(0.5, 0.4, 0.6, sep=", ") == "0.50 (0.40, 0.60)"


def test_markdown_structure():
    r = aucpr(cohort(), "y", "s1", by="site", estimator=AP)
    md = r.table(labels={"site": "Site|code"}, method=None).to_markdown().split("\n\n")[0].splitlines()
    assert md[0] == "| Site\\|code | Positives | Negatives | AUCPR |"
    assert md[1] == "| :--- | ---: | ---: | ---: |"
    assert len(md) == 2 + 3 and all(line.startswith("| ") and line.endswith(" |") for line in md)
    assert all(line.count(" | ") == 3 for line in md[2:])


def test_latex_structure():
    r = stub(aucpr(cohort(), "y", "s1", by="site", estimator=AP))
    tex = r.table(method="logit", labels={"site": "Site & 50%_x"}).to_latex(caption="Table 2", label="tab:aucpr")
    lines = tex.splitlines()
    assert lines[0] == r"\begin{table}[htbp]" and lines[-1] == r"\end{table}"
    assert r"\begin{tabular}{lrrr}" in lines and r"\toprule" in lines and r"\bottomrule" in lines
    assert r"\caption{Table 2}" in lines and r"\label{tab:aucpr}" in lines
    header = lines[lines.index(r"\toprule") + 1]
    assert header == r"Site \& 50\%\_x & Positives & Negatives & AUCPR (95\% CI) \\"
    body = lines[lines.index(r"\midrule") + 1: lines.index(r"\bottomrule")]
    assert len(body) == 3 and all(row.count(" & ") == 3 and row.endswith(r" \\") for row in body)
    assert all(re.search(r"\d\.\d\d \(\d\.\d\d--\d\.\d\d\)", row) for row in body)
    assert DASH not in tex


def test_html_structure():
    r = stub(aucpr(cohort(), "y", "s1", by="site", estimator=AP))
    page = r.table(method="logit", labels={"site": "<Site>"}).to_html(caption="Table 2")

    class Parser(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.stack, self.rows, self.errors = [], [], []

        def handle_starttag(self, tag, attrs_):
            self.stack.append(tag)
            if tag == "tr":
                self.rows.append([])

        def handle_endtag(self, tag):
            if not self.stack or self.stack.pop() != tag:
                self.errors.append(tag)

        def handle_data(self, data):
            if self.stack and self.stack[-1] in ("td", "th"):
                self.rows[-1].append(data)

    p = Parser()
    p.feed(page)
    assert not p.errors and not p.stack
    assert p.rows[0] == ["<Site>", "Positives", "Negatives", "AUCPR (95% CI)"]
    assert "&lt;Site&gt;" in page and "<caption>Table 2</caption>" in page
    assert [len(row) for row in p.rows[1:4]] == [4, 4, 4]
    assert p.rows[1][0] == "a"


def test_text_and_csv_and_render():
    r = aucpr(cohort(), "y", "s1", by="site", estimator=AP)
    table = r.table(method=None)
    assert table.render("text") == str(table) and table.render("csv").startswith("site,Positives,Negatives,AUCPR\n")
    with pytest.raises(InputError, match="`format` must be one of"):
        table.render("docx")


def test_errors():
    r = aucpr(cohort(), "y", "s1", by="site", estimator=AP)
    other = aucpr(cohort(), "y", "s1", estimator=AP)
    with pytest.raises(InputError, match="same metrics, estimators"):  # stacked blocks need the same columns
        publication_table([r, auroc(cohort(), "y", "s1")])
    publication_table([r, other])  # an ungrouped result with a grouped one: the Overall row of a stacked table
    with pytest.raises(InputError, match="different rows"):
        publication_table([r, aucpr(cohort(seed=4), "y", "s1", by="site", estimator=AP)])
    with pytest.raises(InputError, match="`digits`"):
        publication_table(r, digits=-1)
    with pytest.raises(InputError, match="share a header"):
        publication_table([r, auroc(cohort(), "y", "s1", by="site")], labels={"AUROC": "AUCPR"}, method=None)


def test_comparison_table_cells_equal_compare_numbers():
    from aucpr_stats.compare import compare
    from aucpr_stats.report import comparison_table, format_p

    df = cohort(n=600)
    result = compare(df, "y", ["s1", "s2"], by="site", metric="auroc")
    table = comparison_table(result, digits=3, labels={"site": "Site"})
    frame = as_polars(result.to_frame())
    assert table.cells.columns == ["Site", "Positives", "Negatives", "AUROC s1", "AUROC s2",
                                   "Difference (95% CI)", "p"]
    assert table.cells["AUROC s1"].to_list() == [f"{v:.3f}" for v in frame["estimate_a"]]
    for cell, (d, lo, hi) in zip(table.cells["Difference (95% CI)"], frame.select("difference", "lower", "upper").iter_rows()):
        sep = " to " if min(lo, hi) < 0 and f"{min(lo, hi):.3f}" != "-0.000" else DASH
        assert cell == f"{d:.3f} ({lo:.3f}{sep}{hi:.3f})".replace("-0.000", "0.000")
    assert table.cells["p"].to_list() == [format_p(p) for p in frame["p_value"]]
    assert publication_table(result).cells.columns == comparison_table(result).cells.columns
    # several pairs: a Comparison column; unpaired: counts of both groups
    three = comparison_table(compare(df, "y", ["s1"], between="site", metric="auroc"))
    assert three.cells.columns[0] == "Comparison" and three.cells["Comparison"].to_list()[0] == "a vs b"
    assert re.fullmatch(r"\d+ / \d+", three.cells["Positives"][0])


def test_format_p_and_negative_bounds():
    from aucpr_stats.report import format_p

    assert format_p(0.0004) == "<0.001" and format_p(0.0123) == "0.012" and format_p(float("nan")) == "NA"
    assert format_p(0.04, digits=1) == "<0.1"
    assert format_cell(-0.17, -0.22, -0.13) == "-0.17 (-0.22 to -0.13)"
    assert format_cell(0.004, -0.001, 0.01) == f"0.00 (0.00{DASH}0.01)"


def test_overall_row_and_ungrouped_several_scores():
    df = cohort(n=500)
    grouped = aucpr(df, "y", ["s1", "s2"], by="site", estimator=AP)
    whole = aucpr(df, "y", ["s1", "s2"], estimator=AP)
    plain = publication_table(whole, method=None)      # ungrouped, two scores as columns
    assert plain.cells.columns == ["Positives", "Negatives", "s1: AUCPR", "s2: AUCPR"]
    frame = as_polars(whole.to_frame())
    assert plain.cells.row(0) == (frame["n_pos"][0], frame["n_neg"][0], *[f"{v:.2f}" for v in frame["estimate"]])
    table = publication_table(grouped, overall=whole, overall_label="All sites", method=None)
    assert table.cells["site"].to_list() == ["All sites", "a", "b", "c"]
    assert table.cells.row(0)[1:] == plain.cells.row(0)
    assert table.cells.slice(1).equals(publication_table(grouped, method=None).cells)
    rows = publication_table(grouped, scores_as="rows", overall=whole)
    assert rows.cells.select("site", "Score").rows()[:2] == [("Overall", "s1"), ("Overall", "s2")]
    with pytest.raises(InputError, match="`overall` must hold the same"):
        publication_table(grouped, overall=aucpr(df, "y", "s1", estimator=AP))
    with pytest.raises(InputError, match="without `by`"):
        publication_table(grouped, overall=grouped)


def test_latex_sets_off_the_overall_row():
    df = cohort(n=300)
    table = publication_table(aucpr(df, "y", "s1", by="site", estimator=AP),
                              overall=aucpr(df, "y", "s1", estimator=AP))
    lines = table.to_latex(note=False).splitlines()
    start = lines.index(r"\midrule")
    assert lines[start + 1].startswith("Overall & ") and lines[start + 2] == r"\midrule"
    assert [line.split(" & ")[0] for line in lines[start + 3: start + 6]] == ["a", "b", "c"]


# ---------------------------------------------------------------- a random result without a seed says so
def _two_scores() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    y = rng.random(800) < 0.3
    return pl.DataFrame({"y": y, "a": rng.normal(size=800) + y, "b": rng.normal(size=800) + 0.5 * y,
                         "f": np.arange(800) % 5})


def test_an_interval_drawn_without_a_seed_says_so_and_a_seeded_one_does_not():
    import warnings

    result = aucpr(_two_scores(), "y", "a", fold="f")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unseeded = result.conf_int(method="bootstrap", n_boot=50)["note"][0]
        seeded = result.conf_int(method="bootstrap", n_boot=50, rng=1)["note"][0]
        aliased = result.conf_int(method="bootstrap", n_boot=50, seed=1)["note"][0]
        random_folds = result.conf_int(method="cross_validation", folds=5)["note"][0]
        own_folds = result.conf_int(method="cross_validation", folds="column")["note"][0]
        closed_form = result.conf_int(method="logit")["note"][0]
    assert "no seed set (rng=None)" in unseeded
    assert "no seed set (rng=None)" in random_folds
    for note in (seeded, aliased, own_folds, closed_form):
        assert note is None or "no seed" not in note
    assert "no seed set" in result.table(method="bootstrap").note
    assert "seed 7" in result.table(method="bootstrap", rng=7).note


def test_a_bootstrap_comparison_without_a_seed_says_so_in_its_note_and_footnote():
    unseeded = compare(_two_scores(), "y", ["a", "b"], n_boot=100)
    seeded = compare(_two_scores(), "y", ["a", "b"], n_boot=100, rng=3)
    delong = compare(_two_scores(), "y", ["a", "b"], metric="auroc")
    assert "no seed set" in unseeded.frame["note"][0]
    assert "no seed set: rerunning gives other limits and p-values" in unseeded.table().note
    assert seeded.frame["note"][0] is None and "seed 3" in seeded.table().note
    assert delong.frame["note"][0] is None and "seed" not in delong.table().note


def test_a_comparison_of_partial_areas_is_labelled_partial_with_its_range():
    frame = _two_scores()
    raw = compare(frame, "y", ["a", "b"], metric="auroc", specificity=(0.9, 1), n_boot=50, rng=1).table()
    assert raw.cells.columns[2:4] == ["Partial AUROC a", "Partial AUROC b"]
    assert "Partial area over specificity 0.9\u20131, which lies in [0, 0.1]." in raw.note
    standardized = compare(frame, "y", ["a", "b"], metric="auroc", specificity=(0.9, 1), standardized=True,
                           n_boot=50, rng=1).table()
    assert "Standardised partial area (McClish) over specificity 0.9\u20131, which lies in [0.5, 1]." in (
        standardized.note)
    recall = compare(frame, "y", ["a", "b"], recall=(0, 0.5), n_boot=50, rng=1).table()
    assert recall.cells.columns[2] == "Partial AUCPR a" and "which lies in [0, 0.5]" in recall.note
    full = compare(frame, "y", ["a", "b"], metric="auroc").table()
    assert full.cells.columns[2] == "AUROC a" and "Partial" not in full.note


def test_the_prevalence_column_shows_the_stated_prevalence_the_estimates_are_at():
    import warnings

    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(2), 400)
    y = rng.random(g.size) < 0.3
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + y})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stated = publication_table(aucpr(frame, "y", "s", by="g", prevalence=0.05), method="logit", prevalence=True)
        sample = publication_table(aucpr(frame, "y", "s", by="g"), method="logit", prevalence=True)
    assert stated.cells["Stated prevalence (%)"].to_list() == ["5.0", "5.0"]
    assert sample.cells["Prevalence (%)"].to_list() == [f"{100 * y[g == k].mean():.1f}" for k in range(2)]
