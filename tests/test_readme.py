"""The README's commands are the ones CI runs, and its Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_blocks(language: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_ci_runs_the_readme_test_command():
    test_command = next(b.strip() for b in readme_blocks("bash") if "pytest" in b)
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_python_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for block in readme_blocks("python"):
        exec(compile(block, "README.md", "exec"), {})
