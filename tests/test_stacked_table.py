"""Stacked publication tables (Table 2 with a block per variable), the prevalence column, footnotes, Word output."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc
from aucpr_stats.exceptions import InputError
from aucpr_stats.report import format_p, publication_table

from .conftest import as_polars, random_scores


def cohort(n=900, seed=11):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n)
    return pl.DataFrame({"y": y.astype(int), "s": s, "site": rng.choice(["b", "a", "c"], n),
                         "sex": rng.choice(["M", "F"], n)})


def results(df, metric=aucpr):
    return [metric(df, "y", "s"), metric(df, "y", "s", by="site"), metric(df, "y", "s", by="sex")]


def test_blocks_are_the_one_grouping_tables_under_variable_headers():
    df = cohort()
    whole, by_site, by_sex = results(df)
    table = publication_table([by_site, whole, by_sex], labels={"sex": "Sex"})
    cells = table.cells
    assert cells.columns[0] == "Subgroup"
    assert cells["Subgroup"].to_list() == ["Overall", "site", "a", "b", "c", "Sex", "F", "M"]
    assert table.header_rows == (1, 5) and table.n_overall == 1
    # each block equals the table of its own grouping (same cells, same counts)
    for block, rows in ((by_site, slice(2, 5)), (by_sex, slice(6, 8))):
        alone = publication_table(block, labels={"sex": "Sex"}).cells
        assert cells[rows].drop("Subgroup").rows() == alone.drop(alone.columns[0]).rows()
    top = publication_table(whole).cells
    assert cells.row(0)[1:] == top.row(0)
    # header rows carry no numbers
    assert all(v is None for v in cells.row(1)[1:]) and all(v is None for v in cells.row(5)[1:])
    # counts are the results' own
    frame = as_polars(by_site.to_frame())
    assert cells["Positives"][2:5].to_list() == frame["n_pos"].to_list()


def test_stacked_renderings():
    df = cohort()
    table = publication_table(results(df), method=None, labels={"sex": "Sex"})
    text = table.to_text().splitlines()
    assert text[3].startswith("site") and text[4].startswith("  a ")  # levels indented under their variable
    md = table.to_markdown()
    assert "| **site** |" in md and "| **Sex** |" in md
    latex = table.to_latex()
    assert r"\multicolumn{4}{l}{\textit{site}} \\" in latex and r"\quad a &" in latex
    assert latex.index(r"\midrule", latex.index("Overall")) < latex.index(r"\textit{site}")
    html = table.to_html()
    assert '<th colspan="4" scope="rowgroup" style="text-align: left">Sex</th>' in html
    assert '<td style="padding-left: 1.5em">F</td>' in html


def test_both_metrics_side_by_side_in_every_block_and_errors():
    df = cohort()
    table = publication_table([*results(df), *results(df, auroc)])
    assert table.cells.columns == ["Subgroup", "Positives", "Negatives", "AUCPR (95% CI)", "AUROC (95% CI)"]
    roc = as_polars(auroc(df, "y", "s", by="sex").conf_int())
    expected = [f"{e:.2f} ({lo:.2f}\u2013{hi:.2f})" for e, lo, hi in roc.select("estimate", "lower", "upper").rows()]
    assert table.cells["AUROC (95% CI)"][6:8].to_list() == expected
    with pytest.raises(InputError, match="same metrics, estimators, scores and methods"):
        publication_table([aucpr(df, "y", "s", by="site"), auroc(df, "y", "s", by="sex")])
    with pytest.raises(InputError, match="clashes with a value column"):
        publication_table(results(df), labels={"subgroup": "Positives"})


def test_prevalence_column_and_footnote_with_replicates_and_seed():
    df = cohort()
    r = aucpr(df, "y", "s", by="site")
    frame = as_polars(r.to_frame())
    table = publication_table(r, prevalence=True, method="bootstrap", method_options={"bootstrap": {"n_boot": 200,
                                                                                                     "seed": 7}})
    assert table.cells["Prevalence (%)"].to_list() == [f"{100 * p:.1f}" for p in frame["prevalence"]]
    assert "bootstrap, 200 replicates, seed 7" in table.note
    unseeded = publication_table(r, method="bootstrap", n_boot=100)
    assert "100 replicates, no seed set" in unseeded.note
    default = publication_table(r)  # intervals on by default: the method conf_int() uses
    assert default.cells.columns[-1] == "AUCPR (95% CI)"
    assert "logit" in default.note and "average precision" in default.note
    assert default.cells["AUCPR (95% CI)"].to_list() == r.table().cells["AUCPR (95% CI)"].to_list()


def test_missing_group_key_prints_as_missing():
    df = cohort().with_columns(pl.when(pl.col("site") == "c").then(None).otherwise(pl.col("site")).alias("site"))
    with pytest.warns(UserWarning):
        r = aucpr(df, "y", "s", by="site")
    assert publication_table(r, method=None).cells["site"].to_list()[-1] == "Missing"


def test_word_document(tmp_path):
    docx = pytest.importorskip("docx")
    df = cohort()
    table = publication_table(results(df), labels={"sex": "Sex"})
    path = tmp_path / "table2.docx"
    table.to_docx(path, caption="Table 2. AUCPR by subgroup")
    document = docx.Document(str(path))
    assert document.paragraphs[0].text == "Table 2. AUCPR by subgroup"
    grid = document.tables[0]
    read = [[cell.text for cell in row.cells] for row in grid.rows]
    assert read[0] == list(table.cells.columns)
    shown = table._rows()
    for i, row in enumerate(read[1:]):
        if i in table.header_rows:  # merged across the row, bold
            assert set(row) == {shown[i][0]}
            assert grid.rows[i + 1].cells[0].paragraphs[0].runs[0].bold
        else:
            assert row == shown[i]
    assert document.paragraphs[-1].text == table.note


def test_heterogeneity_footnote_is_the_test_of_each_block():
    df = cohort()
    whole, by_site, by_sex = results(df, auroc)
    table = publication_table([whole, by_site, by_sex], heterogeneity="default")
    for r in (by_site, by_sex):
        test = r.heterogeneity()
        column = r.by[0]
        assert (f"P for heterogeneity across {column} (AUROC; Wald test, DeLong variances, natural scale): "
                f"{format_p(test.p_value)}.") in table.note
    assert "heterogeneity" not in publication_table([whole, by_site, by_sex]).note


def test_partial_area_named_in_the_header_and_footnote():
    df = cohort()
    r = auroc(df, "y", "s", by="site", specificity=(0.8, 1))
    table = publication_table(r, method_options={"bootstrap": {"n_boot": 50, "seed": 1}})
    assert table.cells.columns[-1] == "Partial AUROC, specificity 0.8-1 (95% CI)"
    assert "estimator A' (Mann-Whitney), specificity 0.8-1." in table.note


def test_heterogeneity_footnote_with_several_scores_and_an_overall_row():
    df = cohort().with_columns(t=pl.col("s") + pl.Series(np.random.default_rng(1).normal(size=900)))
    table = publication_table([auroc(df, "y", ["s", "t"]), auroc(df, "y", ["s", "t"], by="site")],
                              heterogeneity="default")
    test = auroc(df, "y", ["s", "t"], by="site").heterogeneity().to_polars()
    p = dict(zip(test["score"].to_list(), test["p_value"].to_list()))
    assert f"s {format_p(p['s'])}; t {format_p(p['t'])}." in table.note
