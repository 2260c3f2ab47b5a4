"""``--positive`` and ``--negative`` name values of the outcome column, or the command refuses (issue 37, must-hold 2).

The command line gives text; it used to be read in the column's type
without checking, so ``--positive T`` on a true/false outcome read as False
and swapped the classes (AUROC 0.24 for 0.76) with exit 0. Now text that is
no value of a true/false or numeric column is an error naming the values
present, and a value that does not occur gets the call's own message.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import roc_auc_score

from aucpr_stats.cli import main

N = 400


@pytest.fixture(scope="module")
def cohort():
    rng = np.random.default_rng(0)
    y = rng.random(N) < 0.4
    return y, rng.normal(size=N) + y


def write(tmp_path, outcome, score) -> str:
    path = tmp_path / "data.csv"
    pl.DataFrame({"y": outcome, "s": score}).write_csv(path)
    return str(path)


def auroc_printed(capsys) -> float:
    out = capsys.readouterr().out.strip().splitlines()
    return float(out[-1].split(",")[2].split(" ")[0])


@pytest.mark.parametrize("command", [[], ["cutoffs"]])
@pytest.mark.parametrize("text", ["T", "x", "yes", "2"])
def test_a_value_not_in_a_true_false_outcome_is_refused(tmp_path, capsys, cohort, command, text):
    y, s = cohort
    path = write(tmp_path, np.where(y, "true", "false"), s)
    assert main([*command, path, "--outcome", "y", "--score", "s", "--positive", text]) == 2
    err = capsys.readouterr().err
    assert f"--positive {text!r} is not a value of the true/false outcome column 'y'" in err
    assert "values present: false, true" in err


@pytest.mark.parametrize("text", ["true", "TRUE", "1"])
def test_the_true_level_of_a_true_false_outcome(tmp_path, capsys, cohort, text):
    y, s = cohort
    path = write(tmp_path, np.where(y, "true", "false"), s)
    assert main([path, "--outcome", "y", "--score", "s", "--metric", "auroc", "--positive", text,
                 "--format", "csv", "--digits", "4"]) == 0
    assert auroc_printed(capsys) == pytest.approx(roc_auc_score(y, s), abs=5e-5)


def test_false_as_positive_reverses_the_classes_on_purpose(tmp_path, capsys, cohort):
    y, s = cohort
    path = write(tmp_path, np.where(y, "true", "false"), s)
    assert main([path, "--outcome", "y", "--score", "s", "--metric", "auroc", "--positive", "false",
                 "--format", "csv", "--digits", "4"]) == 0
    assert auroc_printed(capsys) == pytest.approx(roc_auc_score(~y, s), abs=5e-5)


def test_integer_and_text_outcomes(tmp_path, capsys, cohort):
    y, s = cohort
    path = write(tmp_path, np.where(y, 2, 1), s)
    assert main([path, "--outcome", "y", "--score", "s", "--positive", "two"]) == 2
    assert "--positive 'two' is not a value of the numeric outcome column 'y' (values present: 1, 2)" in (
        capsys.readouterr().err)
    assert main([path, "--outcome", "y", "--score", "s", "--positive", "3"]) == 2
    assert "--positive 3 does not occur in `outcome` column 'y'; its levels are [1, 2]" in capsys.readouterr().err
    assert main([path, "--outcome", "y", "--score", "s", "--metric", "auroc", "--positive", "2",
                 "--format", "csv", "--digits", "4"]) == 0
    assert auroc_printed(capsys) == pytest.approx(roc_auc_score(y, s), abs=5e-5)
    path = write(tmp_path, np.where(y, "case", "control"), s)
    assert main([path, "--outcome", "y", "--score", "s", "--positive", "Case"]) == 2
    assert "--positive 'Case' does not occur in `outcome` column 'y'" in capsys.readouterr().err


def test_an_unknown_negative_level_is_refused(tmp_path, capsys, cohort):
    y, s = cohort
    path = write(tmp_path, np.where(y, "case", "control"), s)
    assert main([path, "--outcome", "y", "--score", "s", "--positive", "case", "--negative", "ctrl"]) == 2
    assert "--negative ['ctrl'] does not occur in `outcome` column 'y'" in capsys.readouterr().err


# ---------------------------------------------------------------- --output: whole, never clobbered
ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_concurrent_runs_write_one_output_and_refuse_the_others(tmp_path, cohort):
    import subprocess
    import sys

    y, s = cohort
    path = write(tmp_path, y.astype(int), s)
    out = tmp_path / "table.md"
    runs = [subprocess.Popen([sys.executable, "-m", "aucpr_stats", path, "--outcome", "y", "--score", "s",
                              "--format", "markdown", "-o", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(6)]
    codes = [run.wait(timeout=120) for run in runs]
    messages = [run.stderr.read() for run in runs]
    assert codes.count(0) == 1 and codes.count(2) == 5, (codes, messages)
    assert all("exists; pass --force to overwrite it" in m for m, c in zip(messages, codes) if c == 2)
    assert out.read_text().startswith("| Positives |")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".table.md.")] == []  # no partial file left


def test_output_never_written_through_a_symbolic_link(tmp_path, capsys, cohort):
    y, s = cohort
    path = write(tmp_path, y.astype(int), s)
    elsewhere = tmp_path / "elsewhere.md"
    link = tmp_path / "table.md"
    link.symlink_to(elsewhere)  # dangling
    assert main([path, "--outcome", "y", "--score", "s", "--format", "markdown", "-o", str(link)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert not elsewhere.exists() and link.is_symlink()
    assert main([path, "--outcome", "y", "--score", "s", "--format", "markdown", "-o", str(link), "--force"]) == 0
    assert not elsewhere.exists() and not link.is_symlink() and link.read_text().startswith("| Positives |")
    again = tmp_path / "cut.md"  # the subcommands write through the same function
    again.symlink_to(elsewhere)
    assert main(["cutoffs", path, "--outcome", "y", "--score", "s", "--format", "markdown", "-o", str(again)]) == 2
    assert not elsewhere.exists() and again.is_symlink()


# ---------------------------------------------------------------- compressed input streamed
def test_a_gzip_file_is_decompressed_to_disk_and_scanned(tmp_path):
    """A .csv.gz is decompressed block by block into a temporary file that polars scans like any CSV.

    Before, the whole decompressed text was read into memory and parsed there
    (the query plan was an in-memory frame); now the plan is a scan of a file.
    """
    import gzip

    from aucpr_stats.cli_io import read_input

    text = "y,s\n" + "1,0.5\n0,0.25\n" * 5000
    packed = tmp_path / "data.csv.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    frame = read_input(str(packed))
    plan = frame.explain()
    assert plan.startswith("Csv SCAN [") and "aucpr_stats_" in plan
    assert frame.collect().equals(pl.read_csv(__import__("io").StringIO(text)))
