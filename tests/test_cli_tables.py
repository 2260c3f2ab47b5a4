"""The command line's subgroup tables: a block per --by column, --cross, --show-prevalence, Word output."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from aucpr_stats import aucpr
from aucpr_stats.cli import main
from aucpr_stats.report import publication_table

DATA = "data/synthetic_cohort.csv"


def run(capsys, *argv):
    status = main([DATA, "--outcome", "disease", "--score", "model_a", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_several_by_columns_give_blocks_equal_to_the_python_table(capsys):
    status, out, _ = run(capsys, "--by", "site", "--by", "age_band", "--overall", "--show-prevalence",
                         "--format", "csv")
    assert status == 0
    df = pl.read_csv(DATA)
    expected = publication_table([aucpr(df, "disease", "model_a"), aucpr(df, "disease", "model_a", by="site"),
                                  aucpr(df, "disease", "model_a", by="age_band")], prevalence=True)
    assert out.strip() == expected.to_csv().strip()
    assert out.splitlines()[0].startswith("Subgroup,Positives,Negatives,Prevalence (%),AUCPR (95% CI)")


def test_cross_groups_by_combinations(capsys):
    status, out, _ = run(capsys, "--by", "site", "age_band", "--cross", "--format", "csv", "--interval", "none")
    assert status == 0
    df = pl.read_csv(DATA)
    expected = publication_table(aucpr(df, "disease", "model_a", by=["site", "age_band"]), method=None)
    assert out.strip() == expected.to_csv().strip()
    status, out, _ = run(capsys, "--by", "site", "--format", "text", "--interval", "none")
    assert "by site (" in out.splitlines()[0]


def test_word_output_and_its_errors(capsys, tmp_path):
    docx = pytest.importorskip("docx")
    path = tmp_path / "table2.docx"
    status, _, err = run(capsys, "--by", "site", "age_band", "-o", str(path))
    assert status == 0 and "wrote" in err
    rows = [[c.text for c in row.cells] for row in docx.Document(str(path)).tables[0].rows]
    assert rows[0][0] == "Subgroup" and rows[1][0] == "site" and rows[2][0] == "A"
    status, _, err = run(capsys, "--format", "docx")
    assert status == 2 and "give --output FILE.docx" in err
    status, _, err = run(capsys, "--score", "model_b", "--compare", "-o", str(tmp_path / "c.docx"))
    assert status == 2 and "drop --raw and --compare" in err


def test_compare_with_blocks_asks_for_cross(capsys):
    status, _, err = run(capsys, "--score", "model_b", "--by", "site", "age_band", "--compare", "--metric", "auroc")
    assert status == 2 and "add --cross" in err


def test_broken_pipe_is_quiet():
    script = ("import sys; from aucpr_stats.cli import main; "
              f"sys.exit(main(['{DATA}', '--outcome', 'disease', '--score', 'model_a', '--by', 'site']))")
    proc = subprocess.run(f'{sys.executable} -c "{script}" | head -c 10', shell=True, capture_output=True,
                          text=True)
    assert "Broken pipe" not in proc.stderr and "Error" not in proc.stderr


def test_heterogeneity_footnote(capsys):
    status, out, _ = run(capsys, "--by", "site", "--by", "age_band", "--heterogeneity", "--metric", "auroc",
                         "--format", "markdown")
    assert status == 0
    df = pl.read_csv(DATA)
    from aucpr_stats import auroc
    from aucpr_stats.report import format_p

    for column in ("site", "age_band"):
        test = auroc(df, "disease", "model_a", by=column).heterogeneity()
        note = test.to_polars()["note"][0]  # groups below the test's minimum travel with its p
        assert f"P for heterogeneity across {column} (AUROC; Wald test, DeLong variances, natural scale): " \
               f"{format_p(test.p_value)}{f' ({note})' if note else ''}." in out
