"""The validation report: coverage of every interval method and size of every test, by simulation.

For both metrics (AUCPR, AUROC), every interval method registered in
``aucpr_stats.intervals.INTERVAL_METHODS`` that serves independent rows
(read at run time from the records, so a method added there is validated
without touching this script) with the default estimator of the metric, and
for AUCPR also ``average_precision``; and every comparison test of
:func:`aucpr_stats.compare` (the records of
``aucpr_stats.compare.COMPARISON_METHODS``), paired (two scores on the same
rows) and unpaired (``between=``, two independent samples). Grid: prevalence
0.1 and 0.01, 2 to 500 positives, ``n_neg = n_pos (1 - prevalence) / prevalence``.

* **Coverage** of a ``level`` interval: the share of simulated data sets whose
  interval contains the true area (``lower <= theta <= upper``), over the
  data sets where an interval was formed (finite bounds); Monte Carlo SE
  ``sqrt(c (1 - c) / n_valid)``. Also the share of NaN intervals, the mean
  width and the share of rows that carry a note.
* **Size** of a test at level ``alpha``: the share of data sets, simulated
  under a true null (two scores with equal true area), whose p-value is below
  ``alpha``; Monte Carlo SE ``sqrt(s (1 - s) / n_valid)``. Paired null: two
  exchangeable scores ``a = x + sigma e1``, ``b = x + sigma e2`` (``x`` the
  scenario's score, ``e1, e2`` independent standard normal, ``sigma`` the
  sd of the negatives' ``x``: within-class correlation about 0.5).
  Unpaired null: two independent samples of the same scenario and size.

The intervals are computed by the package's one coverage engine
(:func:`aucpr_stats.simulate.block_intervals`): the simulated data sets of a
block are the groups of one result (keyed ``sim``), and each method runs
through ``conf_int``'s own driver, exactly as ``aucpr(frame, "y", "s",
by="sim").conf_int(method=...)`` does, notes and warnings included; the tests
are ``compare(frame, "y", ["a", "b"], by="sim", ...)``, the call a user
makes. Which methods a cell runs (the designs and estimators a method
serves) and the library's threshold printed beside the measured one come
from the methods' records. Blocks run in parallel processes
(``--workers``); every block draws from its own seed sequence, so the result
does not depend on the number of workers or on the order the blocks run in.

Thresholds (the ``SmallSampleWarning`` table): for each interval method and
estimator, the smallest ``n_pos`` of the grid from which coverage stays at
least ``level - 0.02`` in every scenario and at every prevalence (for a test:
size at most ``alpha + 0.02``), judged on the point estimates.

Usage::

    python benchmarks/validation.py                # the full report (see docs/validation.md for its runtime)
    python benchmarks/validation.py --quick        # 50 data sets per cell, to /tmp: a smoke run
    python benchmarks/validation.py --render-only  # thresholds and docs/validation.md again from the JSON
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "validation_results.json"
DOC = ROOT / "docs" / "validation.md"
COMMAND = "python benchmarks/validation.py"
#: Comparison methods without resampling: cheap at any size, never capped by ``test_max_rows``.
CLOSED_FORM_TESTS = ("delong",)
SCENARIO_TEXT = {
    "binormal": "`binormal`, negatives N(0, 1) and positives N(1, 1), the main case of "
                "[the simulation study](simulation.md), a weak score",
    "bibeta": "`bibeta`, negatives Beta(2, 5) and positives Beta(5, 2), a strong score near the upper boundary",
    "offset_uniform": "`offset_uniform`, negatives U(0, 1) and positives U(0.5, 1.5)",
}
MARGIN = 0.02  # "more than 2 points" below nominal coverage / above nominal size


@dataclass(frozen=True)
class Config:
    """Everything that defines a run; stored in the JSON."""

    n_sims: int = 1000
    n_pos: tuple[int, ...] = (2, 3, 5, 10, 20, 50, 100, 200, 500)
    prevalences: tuple[float, ...] = (0.5, 0.1, 0.01)
    scenarios: tuple[str, ...] = ("binormal", "binormal@0.9", "binormal@0.98", "binormal@0.999", "bibeta@0.995",
                                  "ordinal@0.98")
    test_scenarios: tuple[str, ...] = ("binormal", "binormal@0.98", "ordinal@0.98")
    level: float = 0.95
    alpha: float = 0.05
    n_boot: int = 500
    n_boot_test: int = 200
    test_max_rows: int = 2_000
    interval_max_rows: int = 20_000
    block_rows: int = 2_000_000
    seed: int = 20140
    metrics: tuple[str, ...] = ("aucpr", "auroc")
    tests: bool = True


def n_neg_for(n_pos: int, prevalence: float) -> int:
    """``n_pos (1 - prevalence) / prevalence``, rounded to the nearest integer."""
    return int(round(n_pos * (1.0 - prevalence) / prevalence))


# ------------------------------------------------------------------ the truth
def true_values(scenario_name: str, prevalence: float) -> dict[str, float]:
    """True AUCPR (the scenario's own integral) and AUROC ``1 - int_0^1 fpr(recall) d recall``."""
    from scipy import integrate

    from aucpr_stats.simulate import get_scenario

    scenario = get_scenario(scenario_name)
    if "@" in scenario_name:  # a family at a target AUROC (aucpr_stats.simulate.targets), ordinal scores too
        from aucpr_stats.simulate.targets import true_auroc

        return {"aucpr": float(scenario.true_aucpr(prevalence)), "auroc": true_auroc(scenario)}
    area, _ = integrate.quad(lambda r: float(scenario.fpr_at_recall(r)), 0.0, 1.0, epsabs=1e-12, epsrel=1e-10,
                             limit=200)
    return {"aucpr": float(scenario.true_aucpr(prevalence)), "auroc": 1.0 - area}


# ------------------------------------------------------------------ the plan
@dataclass(frozen=True)
class Task:
    """One block of simulated data sets of one cell; ``kind`` is "interval" or "test"."""

    kind: str
    scenario: str
    prevalence: float
    n_pos: int
    n_neg: int
    block: int
    first_sim: int
    n_sims: int
    key: tuple[int, ...]
    methods: tuple[tuple[str, str], ...] = ()  # tests: (metric, method) pairs to run on this block
    cost: float = 0.0
    resample: bool = True  # intervals: also the resampling methods (those with an ``n_boot`` option)
    truth: dict = field(default_factory=dict, compare=False)


def _blocks(n_sims: int, rows_per_sim: int, block_rows: int) -> list[tuple[int, int]]:
    size = max(1, min(n_sims, block_rows // max(rows_per_sim, 1)))
    return [(start, min(size, n_sims - start)) for start in range(0, n_sims, size)]


def plan(config: Config, truth: dict | None = None) -> list[Task]:
    """The blocks of the run, most expensive first (for an even load over the workers)."""
    from aucpr_stats.compare import COMPARISON_METHODS as TEST_METHODS

    tasks = []
    for kind, scenarios in (("interval", config.scenarios), ("test", config.test_scenarios if config.tests else ())):
        for i, name in enumerate(scenarios):
            for j, prevalence in enumerate(config.prevalences):
                value = (truth or {}).get((name, prevalence)) or true_values(name, prevalence)
                for n_pos in config.n_pos:
                    n_neg = n_neg_for(n_pos, prevalence)
                    rows = n_pos + n_neg
                    methods = ()
                    if kind == "test":
                        methods = tuple((m, t) for m in config.metrics for t in TEST_METHODS[m]
                                        if t in CLOSED_FORM_TESTS or rows <= config.test_max_rows)
                    for b, (first, size) in enumerate(_blocks(config.n_sims, rows * (2 if kind == "test" else 1),
                                                              config.block_rows)):
                        resampled = sum(t not in CLOSED_FORM_TESTS for _, t in methods)
                        resample = rows <= config.interval_max_rows
                        cost = (rows * size * (resample * config.n_boot * 8e-8 + 4e-6) + 1.0 if kind == "interval"
                                else rows * size * (4.0 * resampled * config.n_boot_test * 1e-7 + 2e-6) + 0.5)
                        key = (0 if kind == "interval" else 1, i, j, n_pos, b)
                        tasks.append(Task(kind, name, prevalence, n_pos, n_neg, b, first, size, key, methods,
                                          cost, resample, value))
    return sorted(tasks, key=lambda t: -t.cost)


# ------------------------------------------------------------------ one block
def _frame(ids: np.ndarray, n_pos: int, n_neg: int, **scores: np.ndarray):
    import polars as pl

    n_sims = ids.size
    labels = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    return pl.DataFrame({"sim": np.repeat(ids, n_pos + n_neg), "y": np.tile(labels, n_sims),
                         **{k: v.ravel() for k, v in scores.items()}})


def _tally(kind: str, frame, hit: np.ndarray, valid: np.ndarray, caught: list, **extra) -> dict:
    """Additive counts of one block: data sets, formed, hits, widths, notes, warning categories."""
    from aucpr_stats.intervals.small_sample import is_flagged

    notes = [n for n in frame["note"].to_list() if n is not None]
    unflagged = ~np.array([is_flagged(n) for n in frame["note"].to_list()], dtype=bool)
    return {"n_sims": int(hit.size), "n_valid": int(valid.sum()), "hits": int((hit & valid).sum()),
            "n_valid_unflagged": int((valid & unflagged).sum()), "hits_unflagged": int((hit & valid & unflagged).sum()),
            "n_note": len(notes), "notes": dict(Counter(notes).most_common(3)),
            "warnings": sorted({w.category.__name__ for w in caught}), **extra}


def _interval_block(task: Task, config: Config, rng: np.random.Generator) -> list[dict]:
    from aucpr_stats.estimators import DEFAULT_ESTIMATOR, ESTIMATORS
    from aucpr_stats.intervals import INTERVAL_METHODS
    from aucpr_stats.simulate import block_intervals, get_scenario, simulate_ties, study_methods, tally

    pos, neg = get_scenario(task.scenario).sample_arrays(task.n_sims, task.n_pos, task.n_neg, rng)
    ids = np.arange(task.first_sim, task.first_sim + task.n_sims, dtype=np.int32)
    ties = simulate_ties(pos, neg)
    method_seed = int(rng.integers(2**62))
    out = []
    for metric in config.metrics:
        names = list(dict.fromkeys([DEFAULT_ESTIMATOR[metric], *(["average_precision"] if metric == "aucpr" else [])]))
        theta = task.truth[metric]
        for estimator in names:
            record = ESTIMATORS[metric][estimator]
            # the methods for independent rows that serve the estimator (those needing clusters have their own
            # study, benchmarks/cluster_coverage.py); a resampling method above --interval-max-rows: "not run"
            methods = [name for name in study_methods(metric, record)
                       if task.resample or "n_boot" not in INTERVAL_METHODS[metric][name].options.names()]
            options = {name: {"n_boot": config.n_boot} for name in methods
                       if "n_boot" in INTERVAL_METHODS[metric][name].options.names()}
            block = block_intervals(ties, metric, [record], methods, config.level, rng=method_seed, options=options,
                                    ids=ids)
            for name in methods:
                out.append({**tally(block[(estimator, name)], theta), "metric": metric, "method": name,
                            "estimator": estimator})
    return out


def _test_block(task: Task, config: Config, rng: np.random.Generator) -> list[dict]:
    import polars as pl

    from aucpr_stats.compare import compare
    from aucpr_stats.estimators import DEFAULT_ESTIMATOR
    from aucpr_stats.simulate import get_scenario

    scenario = get_scenario(task.scenario)
    ids = np.arange(task.first_sim, task.first_sim + task.n_sims, dtype=np.int32)
    pos, neg = scenario.sample_arrays(task.n_sims, task.n_pos, task.n_neg, rng)
    x = np.concatenate([pos, neg], axis=1)
    sigma = float(np.std(neg)) if neg.size > 1 else 1.0
    paired = _frame(ids, task.n_pos, task.n_neg, a=x + sigma * rng.standard_normal(x.shape),
                    b=x + sigma * rng.standard_normal(x.shape))
    pos2, neg2 = scenario.sample_arrays(task.n_sims, task.n_pos, task.n_neg, rng)
    unpaired = pl.concat([
        _frame(ids, task.n_pos, task.n_neg, s=x).with_columns(arm=pl.lit("A")),
        _frame(ids, task.n_pos, task.n_neg, s=np.concatenate([pos2, neg2], axis=1)).with_columns(arm=pl.lit("B")),
    ])
    method_seed = int(rng.integers(2**62))
    out = []
    for metric, method in task.methods:
        names = list(dict.fromkeys([DEFAULT_ESTIMATOR[metric], *(["average_precision"] if metric == "aucpr" else [])]))
        for design in ("paired", "unpaired"):
            args = (paired, "y", ["a", "b"]) if design == "paired" else (unpaired, "y", ["s"])
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                frame = compare(*args, by="sim", between=None if design == "paired" else "arm", metric=metric,
                                method=method, estimator=names, level=1 - config.alpha,
                                n_boot=config.n_boot_test, seed=method_seed).to_frame()
            for estimator in names:
                rows = frame.filter(pl.col("estimator") == estimator)
                p = rows["p_value"].to_numpy()
                valid = np.isfinite(p)
                with np.errstate(invalid="ignore"):
                    hit = p < config.alpha
                out.append(_tally("test", rows, hit, valid, caught, metric=metric, method=method, design=design,
                                  estimator=estimator))
    return out


def run_task(task: Task, config: Config) -> tuple[Task, list[dict], float]:
    """Simulate one block and run every method on it; returns the additive counts."""
    start = time.perf_counter()
    rng = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=task.key))
    block = (_interval_block if task.kind == "interval" else _test_block)(task, config, rng)
    return task, block, time.perf_counter() - start


# ------------------------------------------------------------------ the run
def _cell_key(task: Task, row: dict) -> tuple:
    return (task.kind, row["metric"], row.get("design", ""), row["method"], row["estimator"], task.scenario,
            task.prevalence, task.n_pos)


def _summarise(key: tuple, acc: dict, task: Task, config: Config) -> dict:
    kind, metric, design, method, estimator, scenario, prevalence, n_pos = key
    n, k = acc["n_valid"], acc["hits"]
    p = k / n if n else math.nan
    cell = {"kind": kind, "metric": metric, "design": design or None, "method": method, "estimator": estimator,
            "scenario": scenario, "prevalence": prevalence, "n_pos": n_pos, "n_neg": task.n_neg,
            "n_sims": acc["n_sims"], "n_valid": n, "nan_share": 1 - n / acc["n_sims"],
            "note_share": acc["n_note"] / acc["n_sims"], "notes": dict(acc["notes"].most_common(3)),
            "warnings": sorted(acc["warnings"])}
    se = math.sqrt(p * (1 - p) / n) if n else math.nan
    # the rows without a flag (small sample, near the boundary, ...): what a user is told nothing about
    m = acc.get("n_valid_unflagged", 0)
    cell["n_unflagged"] = m
    cell["unflagged"] = acc["hits_unflagged"] / m if m else math.nan
    if kind == "interval":
        cell.update(level=config.level, truth=task.truth[metric], coverage=p, coverage_se=se,
                    mean_width=acc["width_sum"] / n if n else math.nan,
                    flag=bool(n and p < config.level - MARGIN))
    else:
        cell.update(alpha=config.alpha, size=p, size_se=se, flag=bool(n and p > config.alpha + MARGIN))
    return cell


def _threshold(sizes: list[int], failing: list[int]) -> int | None:
    """Smallest size above the largest failing one; None when the largest size fails."""
    if not failing:
        return sizes[0]
    if failing[-1] == sizes[-1]:
        return None
    return next(n for n in sizes if n > failing[-1])


def library_minimum(kind: str, metric: str, method: str) -> float | None:
    """The minimum number of positives the library's record of the method holds (None: no such record, or inf)."""
    from aucpr_stats.compare import COMPARISON_METHODS
    from aucpr_stats.intervals import INTERVAL_METHODS

    registry = INTERVAL_METHODS if kind == "interval" else COMPARISON_METHODS
    record = registry.get(metric, {}).get(method)
    if record is None or not math.isfinite(record.min_positives):
        return None
    return record.min_positives


def thresholds(cells: list[dict], config: Config) -> list[dict]:
    """Per method (and estimator, design): the smallest n_pos from which every cell at that size or above passes.

    ``library_min_n_pos`` is the minimum the method's record holds (what
    ``conf_int`` and ``compare`` flag below), for comparison.

    ``min_n_pos`` judges the point estimates (coverage below ``level - 0.02``
    or size above ``alpha + 0.02`` fails, the rule of issue 14);
    ``min_n_pos_2se`` lets a cell fail only when it is more than two Monte
    Carlo SEs beyond that line, which is less sensitive to simulation noise.
    """
    groups: dict[tuple, list[dict]] = {}
    for c in cells:
        groups.setdefault((c["kind"], c["metric"], c["design"], c["method"], c["estimator"]), []).append(c)
    out = []
    for (kind, metric, design, method, estimator), rows in groups.items():
        stat = "coverage" if kind == "interval" else "size"
        line = config.level - MARGIN if kind == "interval" else config.alpha + MARGIN
        sign = 1.0 if kind == "interval" else -1.0  # coverage must stay above the line, size below it
        formed = [c for c in rows if c["n_valid"]]

        def beyond(c, k):
            return sign * (c[stat] + sign * k * (c[f"{stat}_se"] or 0.0) - line) < 0

        failing = sorted({c["n_pos"] for c in formed if beyond(c, 0.0)})
        failing_2se = sorted({c["n_pos"] for c in formed if beyond(c, 2.0)})
        sizes = sorted({c["n_pos"] for c in rows})
        worst = min(formed, key=lambda c: sign * c[stat]) if formed else rows[0]
        out.append({"kind": kind, "metric": metric, "design": design, "method": method, "estimator": estimator,
                    "library_min_n_pos": library_minimum(kind, metric, method),
                    "min_n_pos": _threshold(sizes, failing), "failing_n_pos": failing,
                    "min_n_pos_2se": _threshold(sizes, failing_2se), "largest_n_pos_run": sizes[-1],
                    "worst": {"n_pos": worst["n_pos"], "prevalence": worst["prevalence"],
                              "scenario": worst["scenario"], stat: worst.get(stat), f"{stat}_se": worst.get(f"{stat}_se")},
                    "rule": (f"coverage >= {line:.2f}" if kind == "interval" else f"size <= {line:.2f}")
                    + " at every n_pos >= min_n_pos, in every scenario and at every prevalence"})
    return out


def run_validation(config: Config, *, workers: int = 1, truth: dict | None = None, progress: bool = False) -> dict:
    """Run the grid and return the results as a JSON-ready dict (``meta``, ``cells``, ``thresholds``).

    ``truth`` maps ``(scenario, prevalence)`` to ``{"aucpr": ..., "auroc": ...}``
    in place of the true areas of the scenarios (a wrong truth must give a
    low coverage: the smoke test checks that coverage can fail).
    """
    start = time.perf_counter()
    tasks = plan(config, truth)
    acc: dict[tuple, dict] = {}
    first: dict[tuple, Task] = {}
    busy = 0.0
    busy_by: Counter = Counter()

    def absorb(task, rows, seconds):
        nonlocal busy
        busy += seconds
        busy_by[task.kind] += seconds
        for row in rows:
            key = _cell_key(task, row)
            first.setdefault(key, task)
            a = acc.setdefault(key, {"n_sims": 0, "n_valid": 0, "hits": 0, "n_note": 0, "width_sum": 0.0,
                                     "n_valid_unflagged": 0, "hits_unflagged": 0,
                                     "notes": Counter(), "warnings": set()})
            for k in ("n_sims", "n_valid", "hits", "n_note", "n_valid_unflagged", "hits_unflagged"):
                a[k] += row.get(k, 0)
            a["width_sum"] += row.get("width_sum", 0.0)
            a["notes"].update(row["notes"])
            a["warnings"].update(row["warnings"])

    if workers <= 1:
        for i, task in enumerate(tasks):
            absorb(*run_task(task, config))
            if progress:
                print(f"  {i + 1}/{len(tasks)} blocks, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    else:
        import multiprocessing

        os.environ.setdefault("POLARS_MAX_THREADS", "1")  # one core per worker
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(run_task, task, config) for task in tasks]
            for i, future in enumerate(as_completed(futures)):
                absorb(*future.result())
                if progress and (i % 10 == 9 or i + 1 == len(tasks)):
                    print(f"  {i + 1}/{len(tasks)} blocks, {time.perf_counter() - start:.0f} s wall, "
                          f"{busy:.0f} s CPU", file=sys.stderr)
    cells = [_summarise(key, a, first[key], config) for key, a in acc.items()]
    order = {"interval": 0, "test": 1}
    cells.sort(key=lambda c: (order[c["kind"]], c["metric"], c["design"] or "", c["method"], c["estimator"],
                              c["scenario"], -c["prevalence"], c["n_pos"]))
    meta = _meta(config, time.perf_counter() - start, busy, workers)
    meta["cpu_seconds_by_kind"] = {k: round(v, 1) for k, v in busy_by.items()}
    return {"meta": meta, "cells": cells,
            "thresholds": thresholds(cells, config)}


def _meta(config: Config, seconds: float, busy: float, workers: int) -> dict:
    import aucpr_stats

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "aucpr_stats"], cwd=ROOT, capture_output=True,
                                    text=True).stdout.strip())
    except OSError:
        commit, dirty = "", False
    return {"config": asdict(config), "command": " ".join([COMMAND, *sys.argv[1:]]) if __name__ == "__main__" else "",
            "date": time.strftime("%Y-%m-%d %H:%M"), "commit": commit, "library_changes_uncommitted": dirty,
            "version": aucpr_stats.__version__, "wall_seconds": round(seconds, 1), "cpu_seconds": round(busy, 1),
            "workers": workers, "load_average": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "numpy": np.__version__}


# ------------------------------------------------------------------ the page
def _pct(p: float | None, se: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "NaN"
    if se is None or not math.isfinite(se):
        return f"{100 * p:.1f}"
    return f"{100 * p:.1f} ± {100 * se:.1f}"


def _cell_text(c: dict | None) -> str:
    if c is None:
        return "not run"
    if not c["n_valid"]:
        return "NaN"
    stat = "coverage" if c["kind"] == "interval" else "size"
    text = _pct(c[stat], c[f"{stat}_se"])
    if c["flag"]:
        text = f"**{text}**"
    if c["nan_share"] >= 0.005:
        text += f" ({100 * c['nan_share']:.0f}% NaN)"
    return text


def _table(cells: list[dict], row_keys: list[tuple], sizes: list[int], label, value=_cell_text) -> list[str]:
    lines = ["| " + " | ".join([*label(None), *[f"{n}" for n in sizes]]) + " |",
             "|" + "---|" * len(label(None)) + "---:|" * len(sizes)]
    index = {(c["metric"], c["design"], c["method"], c["estimator"], c["scenario"], c["prevalence"], c["n_pos"]): c
             for c in cells}
    for key in row_keys:
        lines.append("| " + " | ".join([*label(key), *[value(index.get((*key, n))) for n in sizes]]) + " |")
    return lines


def _defaults(cells: list[dict]) -> str:
    from aucpr_stats.estimators import DEFAULT_ESTIMATOR

    names = {c["metric"]: c["estimator"] for c in cells if c["estimator"] != "average_precision"}
    return ", ".join(f"`{names.get(m, DEFAULT_ESTIMATOR[m])}` for {m.upper()}" for m in ("aucpr", "auroc"))


def _truths(cells: list[dict]) -> str:
    seen = {(c["scenario"], c["prevalence"], c["metric"]): c["truth"] for c in cells if c["kind"] == "interval"}
    auroc = {(s, m): v for (s, p, m), v in seen.items() if m == "auroc"}
    parts = [f"{s} AUROC {v:.4f}" for (s, _), v in sorted(auroc.items())]
    parts += [f"{s} AUCPR {v:.4f} at π = {p}" for (s, p, m), v in sorted(seen.items()) if m == "aucpr"]
    return "; ".join(parts)


def _unflagged_section(cells: list[dict], level: float, alpha: float) -> list[str]:
    """The worst coverage (size) over the grid of the rows that carry no flag: what a user is not warned about."""
    lines = ["", "## What a user is not warned about: the unflagged rows", "",
             "Per method and estimator, over every cell where at least a fifth of the data sets got a result "
             "without a flag (a note saying small sample, near the boundary, a sparse case-control sample or a "
             "biased estimator; `aucpr_stats.intervals.small_sample.FLAG_PHRASES`), the worst coverage (size) "
             "of those unflagged results and where. Below "
             f"{100 * (level - MARGIN):.0f}% (above {100 * (alpha + MARGIN):.0f}%) in bold. Cells of older runs "
             "without this count are left out. The worst of dozens of cells is the most extreme of many Monte "
             "Carlo draws: a bold value within one Monte Carlo SE of the line (and no neighbouring cell below it) "
             "is read as noise, and the rules in the records are not bent to it; a cell further off is a "
             "missing rule.", "",
             "| metric | kind | method | estimator | worst unflagged | where | cells |", "|---|---|---|---|---:|---|---:|"]
    groups: dict[tuple, list[dict]] = {}
    for c in cells:
        if c.get("n_unflagged", 0) >= 0.2 * c["n_sims"] and c.get("unflagged") == c.get("unflagged"):
            kind = "interval" if c["kind"] == "interval" else f"test ({c['design']})"
            groups.setdefault((c["metric"], kind, c["method"], c["estimator"]), []).append(c)
    for (metric, kind, method, estimator), group in sorted(groups.items()):
        interval = kind == "interval"
        worst = min(group, key=lambda c: c["unflagged"]) if interval else max(group, key=lambda c: c["unflagged"])
        value = worst["unflagged"]
        se = math.sqrt(value * (1 - value) / worst["n_unflagged"])
        text = _pct(value, se)
        if (interval and value < level - MARGIN) or (not interval and value > alpha + MARGIN):
            text = f"**{text}**"
        lines.append(f"| {metric} | {kind} | {method} | {estimator} | {text} | n_pos {worst['n_pos']}, "
                     f"π {worst['prevalence']}, {worst['scenario']} | {len(group)} |")
    return lines


def render(results: dict) -> str:
    """docs/validation.md from the results."""
    meta, cells = results["meta"], results["cells"]
    cfg = meta["config"]
    level, alpha = cfg["level"], cfg["alpha"]
    sizes = sorted({c["n_pos"] for c in cells})
    minutes = meta["wall_seconds"] / 60
    lines = [
        "# Validation report: interval coverage and test size at the edges",
        "",
        "Rerun it with one command from the repository root (the full grid; it rewrites "
        "`benchmarks/validation_results.json` and this page):",
        "",
        "```bash",
        COMMAND,
        "```",
        "",
        f"The run below took {minutes:.0f} minutes of wall time ({meta['cpu_seconds'] / 60:.0f} CPU minutes) with "
        f"{meta['workers']} worker processes on the shared 2-core machine (load average {meta['load_average'][0]} at "
        f"the end), on commit `{meta['commit']}`"
        f"{' with uncommitted library changes' if meta.get('library_changes_uncommitted') else ''}, {meta['date']}. "
        f"`{COMMAND} --quick` is a smoke run (50 data sets per cell, results to `/tmp`); "
        f"`{COMMAND} --render-only` rewrites this page from the JSON; `--help` lists the options "
        "(number of data sets, sizes, prevalences, scenarios, replicates, workers).",
        "",
        "## What is measured",
        "",
        f"- **Grid.** Positives n_pos in {{{', '.join(map(str, sizes))}}} at prevalence "
        f"{' and '.join(str(p) for p in cfg['prevalences'])}, with n_neg = n_pos (1 - π)/π negatives (fixed class "
        f"counts); {cfg['n_sims']:,} simulated data sets per cell.",
        "- **Scenarios** (`aucpr_stats.simulate.get_scenario`): "
        + "; ".join(SCENARIO_TEXT.get(name, f"`{name}`") for name in sorted({c["scenario"] for c in cells}))
        + ". True areas (AUCPR from the scenario's integral, AUROC = 1 − ∫₀¹ fpr(recall) d recall): "
        f"{_truths(cells)}. A name `family@auroc` is that family at that true AUROC "
        "(`aucpr_stats.simulate.targets.at_auroc`: binormal N(0, 1) / N(μ, 1); bibeta Beta(1, b) / Beta(b, 1); "
        "ordinal, the binormal score cut into 5 levels at the quantiles of the 50:50 mixture, ties across "
        "classes in every data set, its truth the trapezoid between the population ROC points), so the grid "
        "runs from the weak score of Boyd et al. to near-perfect models; `--scenarios` and `--test-scenarios` "
        "choose others.",
        f"- **Intervals**: every method registered for the metric in `aucpr_stats.intervals.INTERVAL_METHODS` whose "
        f"record serves independent rows and the estimator (read at run time), computed by the coverage engine "
        f"(`aucpr_stats.simulate.block_intervals`: `conf_int`'s own driver), {level:.0%} level, with the metric's "
        f"default estimator (read at run time: {_defaults(cells)}) and, for AUCPR, `average_precision` "
        "(`per_positive` and `influence` serve only the latter); options are the library's defaults "
        f"except `n_boot = {cfg['n_boot']}` (10 random stratified folds and a t quantile for cross-validation). "
        "**Coverage** = share of data sets whose interval contains the true area, among the data sets where an "
        "interval was formed; Monte Carlo SE = √(c(1 − c)/n). The share of NaN intervals is shown when it is not 0. "
        f"Resampling intervals (methods with an `n_boot` option: the bootstrap) run only where n_pos + n_neg ≤ "
        f"{cfg.get('interval_max_rows', 10**9):,} rows (\"not run\" in the tables beyond; "
        "`--interval-max-rows 50000` runs them).",
        f"- **Tests**: every method of `aucpr_stats.compare.COMPARISON_METHODS`, paired (two scores on the same rows) and "
        f"unpaired (`between=`, two independent samples), at the {alpha:.0%} level on data with a true null. "
        "Paired: two exchangeable scores a = x + σe₁ and b = x + σe₂ (x the scenario's score, e₁, e₂ independent "
        "N(0, 1), σ the sd of the negatives' x: within-class correlation about 0.5), so both have the same true "
        "area. Unpaired: two independent samples of the same scenario and size. **Size** = share of p-values "
        f"below {alpha}; Monte Carlo SE as above. Bootstrap tests use {cfg['n_boot_test']} replicates (a p-value "
        f"resolution of 0.01, enough at the 5% level) and run only where n_pos + n_neg ≤ {cfg['test_max_rows']:,} "
        "rows per sample (the paired bootstrap resamples every row, so the larger cells would take hours; "
        "\"not run\" in the tables; `--test-max-rows 50000` runs them).",
        f"- **Marks.** Bold: coverage below {100 * (level - MARGIN):.0f}% (more than 2 points under nominal) or "
        f"size above {100 * (alpha + MARGIN):.0f}%, on the point estimate. With {cfg['n_sims']:,} data sets the "
        f"Monte Carlo SE of a coverage near {level:.0%} is about {100 * math.sqrt(level * (1 - level) / cfg['n_sims']):.1f} "
        "points, so a cell within 1.5 points of the line may fall on either side in a rerun.",
        "",
        "## Thresholds for the SmallSampleWarning",
        "",
        "Per method and estimator, the smallest n_pos of the grid **from which coverage stays at least "
        f"{100 * (level - MARGIN):.0f}% (size at most {100 * (alpha + MARGIN):.0f}%) at every larger size, in every "
        "scenario and at every prevalence**. Below it a result should carry a `SmallSampleWarning` and a note "
        "(issue 14, item 5). \"none\": not reached within the grid (it fails at the largest size run); the worst "
        "cell is given with its Monte Carlo SE. The \"2 SE rule\" column lets a cell fail only when it is more than "
        "two Monte Carlo SEs beyond the line: less sensitive to simulation noise, the lower end of a sensible "
        "threshold. Tests are judged on the sizes where they ran. The same table is `thresholds` in "
        "`benchmarks/validation_results.json`. The library's minimum is on each method's record (`min_positives` "
        "of `aucpr_stats.intervals.INTERVAL_METHODS` and of `aucpr_stats.compare.COMPARISON_METHODS`), shown in "
        "the column \"library\": per method, the largest \"min n_pos\" over the estimators (\"none\": flagged at "
        "every size); the paired AUCPR bootstrap test is withheld below its minimum, which is why it shows no "
        "failing size here (`benchmarks/paired_test_size.py` measures it there).",
        "",
        "| metric | kind | method | estimator | min n_pos | library | sizes that fail | min n_pos, 2 SE rule | "
        "worst cell |",
        "|---|---|---|---|---:|---:|---|---:|---|",
    ]
    for t in results["thresholds"]:
        stat = "coverage" if t["kind"] == "interval" else "size"
        w = t["worst"]
        kind = "interval" if t["kind"] == "interval" else f"test ({t['design']})"
        n_min = "none" if t["min_n_pos"] is None else str(t["min_n_pos"])
        n_min_2se = "none" if t.get("min_n_pos_2se", -1) is None else str(t.get("min_n_pos_2se", ""))
        library = t.get("library_min_n_pos")
        library = "none" if library is None else f"{library:g}"
        lines.append(f"| {t['metric']} | {kind} | {t['method']} | {t['estimator']} | **{n_min}** | {library} | "
                     f"{', '.join(map(str, t['failing_n_pos'])) or '-'} | {n_min_2se} | "
                     f"{_pct(w[stat], w[f'{stat}_se'])}% at n_pos {w['n_pos']}, π {w['prevalence']}, "
                     f"{w['scenario']} |")
    lines += _unflagged_section(cells, level, alpha)
    for metric, title in (("aucpr", "AUCPR"), ("auroc", "AUROC")):
        mine = [c for c in cells if c["metric"] == metric]
        ivals = [c for c in mine if c["kind"] == "interval"]
        if ivals:
            lines += ["", f"## {title}: coverage of {level:.0%} intervals (%, ± Monte Carlo SE)", ""]
            keys = sorted({(metric, None, c["method"], c["estimator"], c["scenario"], c["prevalence"]) for c in ivals},
                          key=lambda k: (k[4], -k[5], k[2], k[3]))
            lines += _table(ivals, keys, sizes, lambda k: ("scenario", "π", "method", "estimator") if k is None
                            else (k[4], str(k[5]), k[2], k[3]))
            lines += ["", f"Mean width ({title}):", ""]
            lines += _table(ivals, keys, sizes, lambda k: ("scenario", "π", "method", "estimator") if k is None
                            else (k[4], str(k[5]), k[2], k[3]),
                            value=lambda c: "" if c is None or not c["n_valid"] else f"{c['mean_width']:.3f}")
        tests = [c for c in mine if c["kind"] == "test"]
        if tests:
            lines += ["", f"## {title}: size of {alpha:.0%}-level tests of equal areas (%, ± Monte Carlo SE)", ""]
            keys = sorted({(metric, c["design"], c["method"], c["estimator"], c["scenario"], c["prevalence"])
                           for c in tests}, key=lambda k: (k[4], -k[5], k[1], k[2], k[3]))
            lines += _table(tests, keys, sizes, lambda k: ("scenario", "π", "test", "estimator") if k is None
                            else (k[4], str(k[5]), f"{k[1]} {k[2]}", k[3]))
    notes = Counter()
    for c in cells:
        for text, count in c["notes"].items():
            notes[(c["kind"], c["method"], text)] += count
    warned = sorted({(c["kind"], c["method"], w) for c in cells for w in c["warnings"]})
    lines += ["", "## Notes and warnings the results carried", "",
              "The most frequent notes (summed over cells), and the warning categories raised, per method:", ""]
    lines += [f"- {kind} `{method}`: \"{text}\" ({count:,} rows)" for (kind, method, text), count in notes.most_common(12)]
    lines += [f"- {kind} `{method}` raised `{w}`" for kind, method, w in warned] or ["- no warning was raised"]
    lines += ["", "Every cell (with the share of NaN results, of rows with a note, the warnings raised and the true "
              "values) is in `benchmarks/validation_results.json`.", ""]
    lines += _heterogeneity_section()
    lines += _boundary_section()
    lines += _designs_section()
    lines += _calibration_section()
    lines += _net_benefit_section()
    lines += _pooling_section()
    lines += _multiclass_section()
    lines += _survival_section()
    lines += _proc_extras_section()
    return "\n".join(lines)


def _heterogeneity_section() -> list[str]:
    """The size of the tests across subgroups, measured by benchmarks/heterogeneity_size.py (kept on regeneration)."""
    table = ROOT / "benchmarks" / "heterogeneity_size_results.md"
    lines = ["## Tests across subgroups: heterogeneity and interaction (size, %)", "",
             "Tests that k independent subgroups have equal areas (`result.heterogeneity()`: Cochran's Q for "
             "AUROC, an F test on pooled jackknife variances for AUCPR) or equal differences "
             "(`comparison.interaction()`: DeLong's paired variances for AUROC, the paired jackknife's F test "
             "for AUCPR), measured by `python benchmarks/heterogeneity_size.py`; "
             "the assumptions and where the tests fail are in [Tests across subgroups](heterogeneity.md).", ""]
    lines += [table.read_text(encoding="utf-8")] if table.exists() else ["(not run yet)", ""]
    grid = ROOT / "benchmarks" / "heterogeneity_size_results_grid.md"
    if grid.exists():  # the default tests at 3-10 groups of 20-200 positives, with today's default estimator
        lines += ["", "### The default tests at 3, 5 and 10 groups of 20, 50 and 200 positives", "",
                  "`python benchmarks/heterogeneity_size.py --arms auroc_delong,aucpr_jackknife --ks 3,5,10 "
                  "--n-pos 20,50,200 --sims 1000 --suffix _grid` (half the data sets for the jackknife at 200 "
                  "positives). Below 50 positives per group both tests warn (`SmallSampleWarning`).", "",
                  grid.read_text(encoding="utf-8")]
    return lines


#: The study-design studies (docs/designs.md): (heading, script, results page), kept on regeneration.
DESIGN_STUDIES = (
    ("A stated prevalence: case-control samples (bias and coverage)", "prevalence_coverage.py",
     "prevalence_coverage_results.md"),
    ("Case weights, a stated prevalence and clusters: the influence and weighted intervals", "design_coverage.py",
     "design_coverage_results.md"),
    ("Case-control samples over the design grid: 2-20 controls per case, prevalence 0.01-0.1",
     "case_control_grid.py", "case_control_grid_results.md"),
    ("Several rows per patient: cluster-aware intervals", "cluster_coverage.py", "cluster_coverage.md"),
    ("Several rows per patient: coverage by the number of clusters (15-300)", "cluster_count_coverage.py",
     "cluster_count_coverage_results.md"),
    ("Several rows per patient: size of paired tests", "cluster_compare_size.py",
     "cluster_compare_size_results.md"),
    ("Cut-offs with clusters or sampling weights", "cutoff_design_coverage.py",
     "cutoff_design_coverage_results.md"),
)


#: The grids from weak to near-perfect scores for every estimator and closed-form interval (their own scripts).
BOUNDARY_STUDIES = (
    ("AUCPR: every estimator and closed-form interval", "aucpr_boundary.py", "aucpr_boundary_results.md"),
    ("AUROC: every closed-form interval", "auroc_boundary.py", "auroc_boundary_results.md"),
)


def _studies(title: str, intro: str, studies) -> list[str]:
    """Sections that quote other scripts' results pages (kept on regeneration)."""
    lines = ["", f"## {title}", "", intro, ""]
    for heading, script, page in studies:
        path = ROOT / "benchmarks" / page
        body = path.read_text(encoding="utf-8").strip() if path.exists() else "(not run yet)"
        # its own title dropped, its sections one level below this one
        body = "\n".join("#### " + line[3:] if line.startswith("## ") else line
                         for line in body.splitlines() if not line.startswith("# "))
        lines += [f"### {heading}", "", f"`python benchmarks/{script}`", "", body, ""]
    return lines


#: The calibration studies (docs/calibration.md): (heading, script, results page), kept on regeneration.
CALIBRATION_STUDIES = (
    ("Calibration: Wald, profile and bootstrap intervals; a stated prevalence; clusters",
     "calibration_coverage.py", "calibration_coverage_results.md"),
    ("Calibration: the bootstrap at a stated prevalence, by controls per case", "calibration_case_control.py",
     "calibration_case_control_results.md"),
    ("Calibration: the bootstrap intervals of ICI, E50 and E90", "calibration_ici_coverage.py",
     "calibration_ici_coverage_results.md"),
    ("Calibration: size of the heterogeneity test and of the paired comparison", "calibration_tests_size.py",
     "calibration_tests_size_results.md"),
    ("Calibration: the curve's bands, and survey weights", "calibration_band_weights.py",
     "calibration_band_weights_results.md"),
)


def _calibration_section() -> list[str]:
    """The coverage and size studies of ``calibration()`` (their own scripts)."""
    return _studies("Calibration: coverage and size",
                    "Measured by their own scripts (named below), with truths from the data-generating model; "
                    "what each statistic and interval assumes and where it fails is in "
                    "[Calibration](calibration.md).", CALIBRATION_STUDIES)


NET_BENEFIT_STUDIES = (
    ("Net benefit: Wald and bootstrap intervals across thresholds, the paired difference and its band, designs",
     "net_benefit_coverage.py", "net_benefit_coverage_results.md"),
    ("Net benefit: size of the heterogeneity test across subgroups", "net_benefit_heterogeneity_size.py",
     "net_benefit_heterogeneity_size_results.md"),
)


def _net_benefit_section() -> list[str]:
    """The coverage studies of ``net_benefit()`` and its paired comparison (their own script)."""
    return _studies("Net benefit: coverage and size", "Measured by their own scripts, with truths from the data-generating "
                    "model; what each interval assumes and where it fails is in [Net benefit](net_benefit.md).",
                    NET_BENEFIT_STUDIES)


POOLING_STUDIES = (
    ("Pooling across sites: the random-effects interval and the prediction interval, 3-30 sites",
     "meta_coverage.py", "meta_coverage_results.md"),
    ("Pooling across imputations: Rubin's rules with values missing at random", "imputation_coverage.py",
     "imputation_coverage_results.md"),
    ("Pooling across imputations: size of the pooled comparison and of the D1/D2 heterogeneity tests",
     "imputation_tests_size.py", "imputation_tests_size_results.md"),
)


#: The multiclass studies (docs/multiclass.md): (heading, script, results page), kept on regeneration.
MULTICLASS_STUDIES = (
    ("Multiclass areas: DeLong and bootstrap intervals of per-class areas and their averages, and the size of "
     "the paired comparison", "multiclass_coverage.py", "multiclass_coverage_results.md"),
)


#: The time-to-event studies (docs/time_to_event.md): (heading, script, results page), kept on regeneration.
SURVIVAL_STUDIES = (
    ("Time-to-event areas: influence-function and bootstrap intervals of AUC(t) and AP(t) under 0-60% "
     "censoring, the simultaneous band, and the size of the paired comparison", "survival_coverage.py",
     "survival_coverage_results.md"),
)


#: The studies of the tests and intervals pROC and Stata users reach for (docs/roc.md), kept on regeneration.
PROC_EXTRAS_STUDIES = (
    ("The test that k areas are equal (Stata roccomp): size", "equality_test_size.py",
     "equality_test_size_results.md"),
    ("Venkatraman's test and the test of sensitivity at a fixed specificity: size", "curve_tests_size.py",
     "curve_tests_size_results.md"),
    ("The bootstrap of a chosen threshold (pROC's ci.coords on the best point): coverage",
     "threshold_bootstrap_coverage.py", "threshold_bootstrap_coverage_results.md"),
    ("The within-matched-set AUROC of matched case-control studies: coverage", "matched_coverage.py",
     "matched_coverage_results.md"),
    ("Smoothed ROC areas (pROC's smooth): coverage of the re-smoothed bootstrap", "smooth_roc_coverage.py",
     "smooth_roc_coverage_results.md"),
)


def _proc_extras_section() -> list[str]:
    """The size and coverage studies of the pROC and Stata extras (their own scripts)."""
    return _studies("Tests and intervals from pROC and Stata", "Measured by their own scripts under nulls and "
                    "truths known from the data-generating model; what each assumes and where it fails is in "
                    "[the ROC area](roc.md), [comparing scores](compare.md), [cut-offs](cutoffs.md) and "
                    "[matched studies](matched.md).", PROC_EXTRAS_STUDIES)


def _survival_section() -> list[str]:
    """The coverage and size studies of ``time=``/``event=``/``horizon=`` (their own script)."""
    return _studies("Time-to-event areas", "Measured by their own script, with truths from a very large "
                    "uncensored sample of the data-generating model; what each method assumes and where it fails "
                    "is in [Time-to-event outcomes](time_to_event.md).", SURVIVAL_STUDIES)


def _multiclass_section() -> list[str]:
    """The coverage and size studies of ``multiclass=`` (their own script)."""
    return _studies("Multiclass areas", "Measured by their own script, with truths from very large samples of the "
                    "data-generating model; what each method assumes and where it fails is in "
                    "[Multiclass outcomes](multiclass.md).", MULTICLASS_STUDIES)


def _pooling_section() -> list[str]:
    """The coverage studies of ``result.meta()`` and ``imputation=`` (their own scripts)."""
    return _studies("Pooling: coverage across sites and imputations", "Measured by their own scripts, with truths "
                    "from the data-generating model; what each method assumes and where it fails is in "
                    "[Pooling](pooling.md).", POOLING_STUDIES)


def _designs_section() -> list[str]:
    """The coverage and size studies of ``prevalence=``, ``weights=`` and ``cluster=`` (their own scripts)."""
    return _studies("Study designs: a stated prevalence, case weights, clusters",
                    "Measured by their own scripts (named below); what each design assumes and where its intervals "
                    "fail are in [Study designs](designs.md).", DESIGN_STUDIES)


def _boundary_section() -> list[str]:
    """The finer grids from weak to near-perfect scores (every estimator, every closed form)."""
    return _studies("From weak to near-perfect scores: the finer grids",
                    "Binormal, bibeta and 5-level ordinal scores at true AUROC 0.75-0.999, prevalence 0.5-0.01, "
                    "5-1,000 positives, 1,000 data sets per cell: the evidence behind the defaults "
                    "([estimators](estimators.md#which-one-and-the-default), [intervals](intervals.md)) and the "
                    "boundary rules of the interval records.", BOUNDARY_STUDIES)


# ------------------------------------------------------------------ command line
def _json_ready(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="50 data sets per cell, results to /tmp")
    parser.add_argument("--render-only", action="store_true", help="rewrite the page from the JSON, no simulation")
    parser.add_argument("--sims", type=int, help="data sets per cell (default 1000)")
    parser.add_argument("--n-pos", help="comma-separated numbers of positives")
    parser.add_argument("--prevalences", help="comma-separated prevalences")
    parser.add_argument("--scenarios", help="scenarios of the interval cells, names or family@auroc")
    parser.add_argument("--test-scenarios", help="scenarios of the test cells, names or family@auroc")
    parser.add_argument("--n-boot", type=int, help="replicates of the bootstrap intervals (default 500)")
    parser.add_argument("--n-boot-test", type=int, help="replicates of the bootstrap tests (default 200)")
    parser.add_argument("--test-max-rows", type=int, help="largest n_pos + n_neg for resampling tests (2000)")
    parser.add_argument("--interval-max-rows", type=int,
                        help="largest n_pos + n_neg for resampling intervals, i.e. bootstrap (20000)")
    parser.add_argument("--no-tests", action="store_true", help="intervals only")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", type=Path, help=f"output JSON (default {RESULTS.relative_to(ROOT)})")
    parser.add_argument("--doc", type=Path, help=f"output page (default {DOC.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    quick_dir = Path("/tmp")
    json_path = args.json or (quick_dir / "aucpr_validation_quick.json" if args.quick else RESULTS)
    doc_path = args.doc or (quick_dir / "aucpr_validation_quick.md" if args.quick else DOC)
    if args.render_only:  # thresholds recomputed from the cells (the rule may have changed), then the page
        results = json.loads(json_path.read_text())
        cfg = results["meta"]["config"]
        config = Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in cfg.items()})
        results["thresholds"] = thresholds(results["cells"], config)
        json_path.write_text(json.dumps(_json_ready(results), indent=1) + "\n", encoding="utf-8")
        doc_path.write_text(render(results), encoding="utf-8")
        print(f"wrote {json_path} and {doc_path}")
        return
    changes: dict[str, Any] = {"n_sims": 50} if args.quick else {}
    for name, value, cast in (("n_sims", args.sims, int), ("n_pos", args.n_pos, int),
                              ("prevalences", args.prevalences, float), ("scenarios", args.scenarios, str),
                              ("test_scenarios", args.test_scenarios, str), ("n_boot", args.n_boot, int),
                              ("n_boot_test", args.n_boot_test, int), ("test_max_rows", args.test_max_rows, int),
                              ("interval_max_rows", args.interval_max_rows, int),
                              ("seed", args.seed, int)):
        if value is not None:
            changes[name] = tuple(cast(v) for v in value.split(",")) if isinstance(value, str) else value
    if args.no_tests:
        changes["tests"] = False
    config = replace(Config(), **changes)
    tasks = plan(config)
    print(f"{len(tasks)} blocks on {args.workers} workers; {config.n_sims} data sets per cell", file=sys.stderr)
    results = run_validation(config, workers=args.workers, progress=True)
    json_path.write_text(json.dumps(_json_ready(results), indent=1) + "\n", encoding="utf-8")
    doc_path.write_text(render(results), encoding="utf-8")
    meta = results["meta"]
    print(f"wrote {json_path} and {doc_path}: {meta['wall_seconds']:.0f} s wall, {meta['cpu_seconds']:.0f} s CPU")


if __name__ == "__main__":
    main()
