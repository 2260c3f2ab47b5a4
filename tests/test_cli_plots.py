"""``--plot`` and ``--plot-curves`` of the command line (issue 38): image files, written like every output."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from aucpr_stats.cli import main  # noqa: E402

DATA = str(Path(__file__).parents[1] / "data" / "breast_cancer_oof.csv")
FORMULA = "malignant ~ logistic + forest | size_group"
PNG = b"\x89PNG\r\n\x1a\n"


def _image_size(path: Path) -> tuple[int, int]:
    import matplotlib.image as mpimg

    return mpimg.imread(path).shape[:2]


def test_forest_and_curves_are_written(tmp_path, capsys):
    forest, curves = tmp_path / "forest.png", tmp_path / "curves.svg"
    status = main([DATA, "--formula", FORMULA, "--metric", "aucpr", "--metric", "auroc",
                   "--plot", str(forest), "--plot-curves", str(curves)])
    assert status == 0
    assert forest.read_bytes()[:8] == PNG
    height, width = _image_size(forest)
    assert width > 1.5 * height  # two panels side by side (AUCPR, AUROC), six rows
    assert curves.read_text().lstrip().startswith("<?xml") and "<svg" in curves.read_text()[:1000]
    assert "size_group" in capsys.readouterr().out  # the table is still printed


def test_an_existing_figure_is_not_overwritten_without_force(tmp_path, capsys):
    forest = tmp_path / "forest.png"
    forest.write_bytes(b"keep me")
    assert main([DATA, "--formula", FORMULA, "--plot", str(forest)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert forest.read_bytes() == b"keep me"
    assert main([DATA, "--formula", FORMULA, "--plot", str(forest), "--force"]) == 0
    assert forest.read_bytes()[:8] == PNG
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_a_figure_gets_the_mode_of_any_new_file(tmp_path):
    forest = tmp_path / "forest.png"
    old = os.umask(0o022)
    try:
        assert main([DATA, "--formula", FORMULA, "--plot", str(forest)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(forest.stat().st_mode) == 0o644


@pytest.mark.parametrize("argv, message", [
    (["--plot", "forest.txt"], "give an image file name ending in one of .png"),
    (["--plot", "same.png", "--plot-curves", "same.png"], "must name different files"),
    (["--plot", "same.png", "--output", "same.png", "--format", "markdown"], "must name different files"),
    (["--plot", "f.png", "--compare"], "not with --compare"),
])
def test_bad_figure_options_are_one_line_errors(tmp_path, capsys, argv, message):
    argv = [str(tmp_path / a) if a.endswith((".png", ".txt")) else a for a in argv]
    assert main([DATA, "--formula", FORMULA, *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not list(tmp_path.iterdir())
