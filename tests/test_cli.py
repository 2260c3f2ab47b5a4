"""The command line on the shipped data, and its one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from sklearn.metrics import average_precision_score

from aucpr_stats.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "synthetic_cohort.csv"


def test_per_group_table_on_shipped_data(capsys):
    assert main([str(DATA), "--outcome", "disease", "--score", "model_a", "--by", "site",
                 "--estimator", "average_precision"]) == 0
    out = capsys.readouterr().out.splitlines()
    frame = pl.read_csv(DATA)
    rows = {line.split()[0]: line.split() for line in out[3:]}
    for site, part in frame.group_by("site"):
        expected = average_precision_score(part["disease"], part["model_a"])
        assert float(rows[site[0]][2]) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--outcome", "diseased", "--score", "model_a"], "column 'diseased' given as `outcome` is not in `data`"),
        (["--outcome", "disease", "--score", "site"], "`score` column 'site' must be numeric"),
        (["--outcome", "site", "--score", "model_a"], "pass `positive=`"),
    ],
)
def test_errors_are_one_line(capsys, args, message):
    assert main([str(DATA), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aucpr-stats: error: ") and message in err and err.count("\n") == 1


def test_missing_file(capsys):
    assert main(["no_such_file.csv", "--outcome", "y", "--score", "s"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_console_script_runs_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "aucpr_stats.cli", str(DATA), "--outcome", "disease", "--score", "nope"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
