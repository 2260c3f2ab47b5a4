"""Regenerate docs/api.md from the docstrings (run from the repository root).

``python docs/make_api.py`` lists every name in ``__all__`` of the public
modules, with its signature and the first paragraph of its docstring, so the
reference cannot fall behind the code; ``tests/test_docs.py`` checks that
every public name has an entry.
"""

from __future__ import annotations

import importlib
import inspect
import textwrap
from pathlib import Path

#: (module, heading, introduction) in reading order.
SECTIONS = [
    ("aucpr_stats", "Top level: `import aucpr_stats`",
     "The names most users need, importable from the package itself."),
    ("aucpr_stats.api", "Areas per group: `aucpr_stats.api`",
     "Each takes a frame and column names, or an R-style formula with `data=`; several scores add a "
     "`score` key column. Results keep the tie tables and compute intervals on request."),
    ("aucpr_stats.compare", "Comparing scores: `aucpr_stats.compare`",
     "Paired comparisons of scores on the same rows (DeLong for AUROC, stratified bootstrap for any "
     "metric) and unpaired comparisons between groups (`between=`)."),
    ("aucpr_stats.curves", "Curves: `aucpr_stats.curves`",
     "Empirical PR and ROC curves per group and score."),
    ("aucpr_stats.curves.bands", "Confidence bands: `aucpr_stats.curves.bands`",
     "Clémençon & Vayatis (2009) bands for the PR curve."),
    ("aucpr_stats.results", "Result objects: `aucpr_stats.results`",
     "Frozen result classes returned by the entry points."),
    ("aucpr_stats.report", "Publication tables: `aucpr_stats.report`",
     "One row per group, counts of positives and negatives, \"estimate (lower–upper)\" cells; "
     "frame, text, CSV, Markdown, LaTeX and HTML."),
    ("aucpr_stats.formula", "Formulas: `aucpr_stats.formula`",
     "`\"outcome ~ score1 + score2 | group1 + group2\"`, with backticks for names with spaces."),
    ("aucpr_stats.plot", "Plots: `aucpr_stats.plot`",
     "matplotlib (the `plot` extra), imported only when a function is called."),
    ("aucpr_stats.ties", "The tie table: `aucpr_stats.ties`",
     "The contract between the inputs and the kernels: every backend produces a `TieTable`, every "
     "statistic takes one."),
    ("aucpr_stats.estimators", "Estimators: `aucpr_stats.estimators`",
     "Pure functions of a tie table, vectorised over groups; `PR_ESTIMATORS` and `ROC_ESTIMATORS` map "
     "the names accepted by `estimator=` to their registry records."),
    ("aucpr_stats.estimators.roc", "ROC estimators: `aucpr_stats.estimators.roc`",
     "A' and the placement values behind DeLong's variance."),
    ("aucpr_stats.intervals", "Intervals: `aucpr_stats.intervals`",
     "`result.conf_int(method=...)` dispatches here, for every metric; the array-level kernels are "
     "callable on their own."),
    ("aucpr_stats.resample", "Resampling: `aucpr_stats.resample`",
     "Every random draw: per-group streams, the stratified bootstrap on tie-table counts, random folds."),
    ("aucpr_stats.simulate", "Simulation: `aucpr_stats.simulate`",
     "The scenarios of Boyd et al. (2013) with true curves and areas; bias and coverage studies."),
    ("aucpr_stats.exceptions", "Errors and warnings: `aucpr_stats.exceptions`",
     "Every input error subclasses `ValueError` or `TypeError` and names the argument or column."),
]

CLI = """\
## Command line: `aucpr-stats`

`aucpr-stats FILE [options]` reads a CSV, TSV or Parquet file and prints a
publication table (`aucpr_stats.cli.main`; `aucpr-stats --help` for every
option). Columns: `--outcome`, `--score` (one or more), `--by`, or
`--formula`; `--positive`, `--negative`, `--direction`, `--missing`,
`--unused-levels`, `--weights`, `--cluster`. Statistics: `--metric aucpr|auroc`
(repeatable), `--estimator`, `--method` (repeatable; `default`, `none` or a
method; `--interval` is its earlier spelling), `--level`, `--seed`, `--n-boot`. Output: `--format
text|csv|markdown|latex|html`, `--output FILE`, `--digits`, `--scores-as`,
`--raw` (the unrounded long frame). Bad input: one line on stderr, exit
status 2.
"""


def _summary(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    first = doc.split("\n\n")[0].strip()
    return " ".join(first.split())


def _signature(name: str, obj) -> str | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    # names and defaults only: the types are in the docstrings
    empty = inspect.Parameter.empty
    sig = str(sig.replace(parameters=[p.replace(annotation=empty) for p in sig.parameters.values()],
                          return_annotation=empty))
    text = f"{name}{sig}"
    return "\n".join(textwrap.wrap(text, 100, subsequent_indent="    ", break_long_words=False)) if len(text) > 100 else text


def _entry(module_name: str, name: str, obj) -> list[str]:
    lines = [f"### `{name}`", ""]
    if inspect.isclass(obj) or inspect.isfunction(obj) or callable(obj) and not isinstance(obj, dict):
        kind = "class" if inspect.isclass(obj) else "function"
        sig = _signature(name, obj) if not (inspect.isclass(obj) and issubclass(obj, BaseException)) else None
        if sig:
            lines += ["```", sig, "```", ""]
        summary = _summary(obj)
        lines.append(f"*{kind}* `{module_name}.{name}`. {summary}".rstrip())
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            methods = [
                (m, f) for m, f in inspect.getmembers(obj)
                if not m.startswith("_") and (inspect.isfunction(f) or isinstance(f, property))
                and m in vars(obj) | {k: v for base in obj.__mro__[1:-1] for k, v in vars(base).items()}
            ]
            if methods:
                lines += ["", "Methods and properties:", ""]
                for m, f in methods:
                    target = f.fget if isinstance(f, property) else f
                    lines.append(f"- `.{m}`: {_summary(target) or '(no docstring)'}")
    elif inspect.ismodule(obj):  # a submodule exported by name: its docstring, never its file path
        lines.append(f"*module* `{obj.__name__}`. {_summary(obj)}".rstrip())
    else:
        value = repr(obj)
        if len(value) > 160:
            value = value[:157] + "..."
        if isinstance(obj, dict):
            value = "{" + ", ".join(repr(k) for k in obj) + "}" if len(obj) < 20 else f"dict with {len(obj)} keys"
        lines.append(f"*constant* `{module_name}.{name}` = `{value}`")
    lines.append("")
    return lines


def build() -> str:
    out = [
        "# API reference",
        "",
        "Every public name, with its signature and the first paragraph of its docstring",
        "(generated by `python docs/make_api.py`; the full docstrings, with parameters,",
        "references and examples, are in the code and in `help(...)`).",
        "See the [getting started guide](getting_started.md) for a tour.",
        "",
    ]
    for module_name, heading, intro in SECTIONS:
        module = importlib.import_module(module_name)
        out += [f"## {heading}", ""]
        if intro:
            out += [intro, ""]
        for name in getattr(module, "__all__", []):
            if name == "__version__":
                out += ["### `__version__`", "", f"*constant* the package version, `{module.__version__}`.", ""]
                continue
            out += _entry(module_name, name, getattr(module, name))
    out.append(CLI)
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    path = Path(__file__).with_name("api.md")
    path.write_text(build(), encoding="utf-8")
    print(f"wrote {path}")
