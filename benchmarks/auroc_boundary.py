"""Coverage of the AUROC intervals from weak to near-perfect scores: the grid behind the AUROC default.

Usage::

    python benchmarks/auroc_boundary.py              # 1,000 data sets per cell, about 6 min on 2 cores
    python benchmarks/auroc_boundary.py --sims 200   # a quick look

Three families of scores, each at true AUROC 0.75, 0.90, 0.98, 0.995 and 0.999:

* ``binormal``: negatives N(0, 1), positives N(mu, 1), truth Phi(mu / sqrt 2);
* ``bibeta``: negatives Beta(1, b), positives Beta(b, 1), truth P(Y > X) by quadrature;
* ``ordinal``: the binormal score cut into 5 ordered levels at the quintiles of the 50:50 mixture
  (ties across classes in every data set), truth the trapezoid between the population ROC points
  (a tie counted half, as A' counts it).

Prevalence 0.5, 0.1 and 0.01; 5 to 1,000 positives, at most 20,000 rows per data set. Every method
of ``auroc().conf_int()`` for independent rows that has a closed form (``delong``, ``logit``,
``newcombe``, ``hanley_mcneil``) runs on the same data sets, exactly as a user calls it: one
``auroc(frame, by="sim")`` per block of data sets. Reported per cell: coverage, the share of
intervals wholly below the truth, mean width, the share flagged (small sample or near the
boundary) and the coverage of the unflagged intervals. Monte Carlo SE of a coverage of 0.95 over
1,000 data sets: 0.7 points.

Writes ``benchmarks/auroc_boundary_results.json`` and ``benchmarks/auroc_boundary_results.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's package, whatever is installed
sys.path.insert(0, str(HERE))

from _grid import cells, coverage_summary, frames, grid_parser, meta, run_jobs, write_results  # noqa: E402

METHODS = ("delong", "logit", "newcombe", "hanley_mcneil")
TARGETS = (0.75, 0.90, 0.98, 0.995, 0.999)
N_POS = (5, 10, 20, 50, 100, 200, 500, 1000)
PREVALENCES = (0.5, 0.1, 0.01)
FAMILIES = ("binormal", "bibeta", "ordinal")
MAX_ROWS, BLOCK_ROWS = 20_000, 2_000_000


def scenario(family: str, target: float):
    """(label, Scenario, true AUROC) of a family at a target AUROC (:mod:`aucpr_stats.simulate.targets`)."""
    from aucpr_stats.simulate.targets import at_auroc, true_auroc

    scen = at_auroc(family, target)
    return scen.label, scen, true_auroc(scen)


def run_family_target(family: str, target: float, n_sims: int, seed: int) -> list[dict]:
    """Every (prevalence, n_pos) cell of one scenario."""

    from aucpr_stats import auroc
    from aucpr_stats.intervals.small_sample import is_flagged

    warnings.simplefilter("ignore")
    label, scen, truth = scenario(family, target)
    rng = np.random.default_rng([seed, FAMILIES.index(family), TARGETS.index(target)])
    rows = []
    for prevalence, n_pos, n_neg in cells(PREVALENCES, N_POS, MAX_ROWS):
        start = time.perf_counter()
        parts: dict[str, list] = {m: [] for m in METHODS}
        for frame in frames(scen, rng, n_pos, n_neg, n_sims, BLOCK_ROWS):
            result = auroc(frame, "y", "s", by="sim")
            for m in METHODS:
                ci = result.conf_int(method=m)
                flagged = np.array([is_flagged(note) for note in ci["note"].to_list()], dtype=bool)
                parts[m].append(np.c_[ci["lower"].to_numpy(), ci["upper"].to_numpy(), flagged])
        row = {"family": family, "scenario": label, "target": target, "truth": truth, "prevalence": prevalence,
               "n_pos": n_pos, "n_neg": n_neg, "n_sims": n_sims}
        for m in METHODS:
            summary = coverage_summary(np.concatenate(parts[m]), truth)
            row[m] = summary.pop("coverage")
            row.update({f"{m}_{name}": value for name, value in summary.items()})
        row["seconds"] = round(time.perf_counter() - start, 2)
        rows.append(row)
    return rows


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.1f}"


def render(results: dict) -> str:
    cells = results["cells"]
    n_sims = results["meta"]["n_sims"]
    se = 100 * np.sqrt(0.95 * 0.05 / n_sims)
    lines = [
        "# AUROC intervals from weak to near-perfect scores",
        "",
        f"`python benchmarks/auroc_boundary.py` ({n_sims:,} data sets per cell; Monte Carlo SE of a coverage "
        f"near 95%: {se:.1f} points; {results['meta']['wall_seconds']:.0f} s on {results['meta']['workers']} "
        f"workers, {results['meta']['date']}). Binormal, bibeta and 5-level ordinal scores at true AUROC "
        "0.75-0.999, prevalence 0.5, 0.1 and 0.01, 5-1,000 positives (at most 20,000 rows per data set). "
        "Coverage in percent of the 95% intervals `auroc().conf_int(method=...)` gives.",
        "",
        "## Worst coverage over the grid, by the smallest number of positives",
        "",
        "| from positives | " + " | ".join(METHODS) + " |",
        "|---:|" + "---:|" * len(METHODS),
    ]
    for floor in (5, 10, 20, 50, 100):
        sub = [c for c in cells if c["n_pos"] >= floor]
        lines.append(f"| {floor} | " + " | ".join(_pct(min(c[m] for c in sub if c[m] is not None))
                                                  for m in METHODS) + " |")
    lines += ["", "Mean width over the cells with at least 50 positives: " + ", ".join(
        f"{m} {np.mean([c[m + '_width'] for c in cells if c['n_pos'] >= 50]):.4f}" for m in METHODS) + ".", "",
        "## Worst coverage of the unflagged intervals (no small-sample or boundary note)", "",
        "Over the cells where at least a fifth of the data sets get an unflagged interval (a cell's coverage "
        "of the unflagged ones is then measured on at least 200 of 1,000):", "",
        "| method | worst unflagged coverage | cells |", "|---|---:|---:|"]
    for m in METHODS:
        values = [c[m + "_unflagged"] for c in cells if c[m + "_unflagged_n"] >= 0.2 * c["n_sims"]]
        lines.append(f"| {m} | {_pct(min(values)) if values else ''} | {len(values)} |")
    lines += ["", "## Coverage by scenario and positives (prevalence 0.1)", ""]
    head = "| scenario | AUROC | positives | " + " | ".join(METHODS) + " |"
    lines += [head, "|---|---:|---:|" + "---:|" * len(METHODS)]
    for c in cells:
        if c["prevalence"] != 0.1:
            continue
        lines.append(f"| {c['scenario']} | {c['truth']:.4f} | {c['n_pos']} | "
                     + " | ".join(_pct(c[m]) for m in METHODS) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    args = grid_parser(__doc__, HERE / "auroc_boundary_results.json").parse_args(argv)
    start = time.perf_counter()
    jobs = [(f, t) for f in FAMILIES for t in TARGETS]
    cells = run_jobs(run_family_target, jobs, args.workers, args.sims, args.seed)
    write_results(args.out, {"meta": meta(start, n_sims=args.sims, seed=args.seed, workers=args.workers),
                             "cells": cells}, render)


if __name__ == "__main__":
    main()
