"""The architecture a machine checks: layers, no import cycles, small modules, tests on the public seams.

* the layer contract of ``pyproject.toml`` (``[tool.importlinter]``) holds:
  ``lint-imports`` (import-linter) finds no import from a layer to one above
  it, nor between the independent modules of one layer;
* no import cycle between the package's modules, counting the imports inside
  functions, which are only for optional dependencies (matplotlib, docx,
  DuckDB, pyspark, tqdm) or a lazy load a comment documents;
* no module over 500 lines;
* the tests reach the package through its seams: no ``importorskip`` of the
  package's own modules (a rename would turn them into silent skips), no
  monkeypatching of a module constant or a private name.
"""

from __future__ import annotations

import ast
import collections
import re
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "aucpr_stats"

#: Third-party modules a function may import on use: optional dependencies of the package.
OPTIONAL = ("matplotlib", "docx", "duckdb", "pyspark", "tqdm")


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_layer_contract_holds():
    importlinter_cli = pytest.importorskip("importlinter.cli")
    code = importlinter_cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    assert code == importlinter_cli.EXIT_STATUS_SUCCESS, "lint-imports reports a broken layer contract"


def _cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph = collections.defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in list(graph):
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_no_import_cycles_counting_imports_inside_functions():
    graph = grimp.build_graph("aucpr_stats", include_external_packages=False)
    edges = {(module, imported) for module in graph.modules
             for imported in graph.find_modules_directly_imported_by(module)}
    assert _cycles(edges) == []


def test_imports_inside_functions_are_optional_dependencies_or_documented_lazy_loads():
    found = []
    for path in _modules():
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if not isinstance(inner, (ast.Import, ast.ImportFrom)):
                    continue
                names = [inner.module or ""] if isinstance(inner, ast.ImportFrom) else [a.name for a in inner.names]
                relative = isinstance(inner, ast.ImportFrom) and inner.level > 0
                optional = not relative and all(name.split(".")[0] in OPTIONAL for name in names)
                documented = "lazy" in lines[inner.lineno - 1]
                if relative or not (optional or documented):
                    found.append(f"{path.relative_to(ROOT)}:{inner.lineno}: {lines[inner.lineno - 1].strip()}")
    assert found == []


def test_no_module_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text().splitlines())) > 500}
    assert long == {}


def test_tests_reach_the_package_through_its_seams():
    own_skip = re.compile(r"importorskip\(\s*[\"']aucpr_stats")
    patched = re.compile(r"monkeypatch\.setattr\(\s*\w+\s*,\s*[\"']([A-Z_][A-Z0-9_]*|_\w+)[\"']")
    # the reader and the table factory are reached through their packages (read, detect, the builders)
    inside = re.compile(r"^\s*(from|import) aucpr_stats\.(ingest|tables)\.\w+")
    found = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.name == Path(__file__).name:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if own_skip.search(line) or patched.search(line) or inside.search(line):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert found == []
