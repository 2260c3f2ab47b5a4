"""Every ```python block in README.md, data/README.md and docs/*.md runs as written, from the repository root.

Each block runs on its own (a fresh namespace), so every example is
self-contained. A block fenced as ```python no-run is shown but not run;
use it only for code that cannot run in CI (none at the time of writing).
Figures use matplotlib's Agg backend and are closed after each block.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "data" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python[ \t]*(?P<flags>[^\n]*)\n(?P<code>.*?)^```", flags=re.S | re.M)


def blocks(page: Path) -> list[tuple[int, str]]:
    """(line number, code) of each runnable python block of a page."""
    text = page.read_text(encoding="utf-8")
    out = []
    for match in FENCE.finditer(text):
        if "no-run" in match.group("flags"):
            continue
        out.append((text.count("\n", 0, match.start()) + 1, match.group("code")))
    return out


CASES = [(page, line, code) for page in PAGES for line, code in blocks(page)]


def test_every_page_is_collected():
    assert (ROOT / "docs").is_dir()
    assert any(page.name == "README.md" for page, _, _ in CASES)


@pytest.mark.parametrize("page, line, code", CASES,
                         ids=[f"{p.relative_to(ROOT)}:{line}" for p, line, _ in CASES])
def test_block_runs(page, line, code, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # degenerate-group notes are part of some examples
            exec(compile(code, f"{page.relative_to(ROOT)}:{line}", "exec"), {"__name__": "__docs__"})
    finally:
        plt.close("all")


def test_api_reference_lists_every_public_name():
    import importlib
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_api", ROOT / "docs" / "make_api.py")
    make_api = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_api)
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    missing = [
        f"{module}.{name}"
        for module, _, _ in make_api.SECTIONS
        for name in getattr(importlib.import_module(module), "__all__", [])
        if f"### `{name}`" not in text
    ]
    assert not missing, f"docs/api.md lacks {missing}: run `python docs/make_api.py`"
    # nothing of the machine it was built on (a module's repr holds its file path)
    assert str(ROOT) not in text and " from '/" not in text


def test_readme_table_is_what_its_example_prints():
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(code for line, code in blocks(ROOT / "README.md") if "table.to_markdown()" in code)
    shown = re.search(r"```\n\n(\| Lesion size.*?)\n\n", text[text.index(block):], flags=re.S).group(1)
    namespace: dict = {}
    import contextlib
    import io
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, "README.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert namespace["table"].to_markdown(note=False) == shown
