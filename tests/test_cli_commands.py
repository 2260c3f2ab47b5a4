"""The ``cutoffs`` and ``plan`` subcommands of ``aucpr-stats``."""

from __future__ import annotations

import polars as pl
import pytest

from aucpr_stats import cli, cutoffs, sample_size

DATA = "data/synthetic_cohort.csv"


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch, request):
    monkeypatch.chdir(request.config.rootpath)


def test_cutoffs_csv_equals_the_library(capsys):
    assert cli.main(["cutoffs", DATA, "--outcome", "disease", "--score", "model_a", "--by", "site",
                     "--threshold", "youden", "0.5", "--format", "csv", "--raw"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = cutoffs(pl.read_csv(DATA), "disease", "model_a", "site", threshold=["youden", 0.5]).conf_int()
    assert printed.columns == expected.columns
    assert printed["threshold"].to_list() == pytest.approx(expected["threshold"].to_list())
    assert printed["measure"].to_list() == expected["measure"].to_list()
    for column in ("estimate", "lower", "upper"):
        assert printed[column].to_list() == pytest.approx(expected[column].to_list(), nan_ok=True)


def test_cutoffs_text_markdown_file_and_options(tmp_path, capsys):
    assert cli.main(["cutoffs", DATA, "--outcome", "disease", "--score", "model_a", "--prevalence", "0.02",
                     "--method", "clopper_pearson", "--direction", "<"]) == 0
    out = capsys.readouterr().out
    assert "Clopper-Pearson 95% intervals; PPV and NPV at prevalence 0.02" in out
    target = tmp_path / "cut.md"
    assert cli.main(["cutoffs", DATA, "--outcome", "disease", "--score", "model_a", "-o", str(target)]) == 0
    assert target.read_text().startswith("| Criterion | Threshold | TP | FP | TN | FN | Sensitivity (95% CI) |")
    assert cli.main(["cutoffs", DATA, "--outcome", "disease", "--score", "model_a", "-o", str(target)]) == 2
    assert "--force" in capsys.readouterr().err


@pytest.mark.parametrize("argv,text", [
    (["--score", "nope"], "column 'nope' given as `score`"),
    (["--score", "model_a", "--threshold", "best"], "`threshold` must be a number, one of"),
    (["--score", "model_a", "--prevalence", "2"], "`prevalence`"),
])
def test_cutoffs_errors_are_one_line_with_status_2(argv, text, capsys):
    assert cli.main(["cutoffs", DATA, "--outcome", "disease", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("aucpr-stats cutoffs: error:") and text in err[0]


def test_plan_sample_size_and_power(capsys):
    assert cli.main(["plan", "--metric", "auroc", "--auc", "0.8", "--power", "0.9", "--ratio", "2",
                     "--format", "csv"]) == 0
    row = pl.read_csv(capsys.readouterr().out.encode()).row(0, named=True)
    plan = sample_size("auroc", auc=0.8, power=0.9, ratio=2)
    assert row["n_pos_exact"] == pytest.approx(plan.n_pos_exact) and row["n_pos"] == 13 and row["n_neg"] == 26
    assert cli.main(["plan", "--metric", "auroc", "--auc", "0.65", "--n-pos", "30", "--n-neg", "90"]) == 0
    assert "0.716" in capsys.readouterr().out  # pROC: 0.716048881441216


def test_plan_aucpr_by_simulation(capsys):
    assert cli.main(["plan", "--metric", "aucpr", "--prevalence", "0.2", "--half-width", "0.1", "--n-sim", "40",
                     "--seed", "1"]) == 0
    assert "Simulated sizes" in capsys.readouterr().out


@pytest.mark.parametrize("argv,text", [
    (["--metric", "auroc", "--auc", "0.8", "--n-pos", "10"], "--n-pos and --n-neg"),
    (["--metric", "auroc", "--auc", "0.4", "--auc0", "0.4"], "must differ"),
    (["--metric", "aucpr", "--prevalence", "0.1"], "one target"),
])
def test_plan_errors(argv, text, capsys):
    assert cli.main(["plan", *argv]) == 2
    assert text in capsys.readouterr().err
