"""AUCPR estimators and intervals from weak to near-perfect scores: the grid behind the AUCPR defaults.

Usage::

    python benchmarks/aucpr_boundary.py              # 1,000 data sets per cell (see the results' header for the time)
    python benchmarks/aucpr_boundary.py --sims 100   # a quick look

The scenarios of :func:`aucpr_stats.simulate.targets.at_auroc`: binormal, bibeta and 5-level ordinal
scores at true AUROC 0.75, 0.90, 0.98, 0.995 and 0.999; prevalence 0.5, 0.1 and 0.01; 5 to 1,000
positives, at most 20,000 rows per data set. Every AUCPR estimator that reads the tie table
(:data:`aucpr_stats.estimators.ESTIMATORS`, the binormal fit aside) runs on the same data sets, each with
every closed-form interval (``logit``, ``binomial``, ``wilson``) and, for average precision, the
``influence`` interval: one ``aucpr(frame, by="sim", estimator=[...])`` per block of data sets, exactly as
a user calls it. Truth: the scenario's true AUCPR at the population prevalence (Boyd et al.'s Eq. 2,
by quadrature; for ordinal scores the Davis-Goadrich crossing of each level, the estimand of
``ties="interpolate"``).

Reported per cell: each estimator's bias and root mean squared error; each interval's coverage, the share
of intervals wholly below the truth, the mean width, the share flagged (a small-sample or boundary note)
and the coverage of the unflagged ones. Monte Carlo SE of a coverage near 0.95 over 1,000 data sets: 0.7
points. ``--raw DIR`` also keeps every data set's estimates and bounds (``.npz`` per scenario) to try flag
rules without rerunning.

Writes ``benchmarks/aucpr_boundary_results.json`` and ``benchmarks/aucpr_boundary_results.md``.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's package, whatever is installed
sys.path.insert(0, str(HERE))

from _grid import cells, coverage_summary, frames, grid_parser, meta, run_jobs, write_results  # noqa: E402

METHODS = ("logit", "binomial", "wilson")
TARGETS = (0.75, 0.90, 0.98, 0.995, 0.999)
N_POS = (5, 10, 20, 50, 100, 200, 500, 1000)
PREVALENCES = (0.5, 0.1, 0.01)
MAX_ROWS, BLOCK_ROWS = 20_000, 2_000_000


def estimators() -> list[str]:
    from aucpr_stats.estimators import ESTIMATORS

    return [name for name in ESTIMATORS["aucpr"] if name != "binormal"]


def arms() -> list[tuple[str, str]]:
    """(estimator, method) pairs: every closed form for every estimator, the influence interval for AP."""
    return [(e, m) for e in estimators() for m in METHODS] + [("average_precision", "influence")]


def _block(frame, names: list[str]) -> tuple[dict, dict]:
    """Estimates per estimator and (lower, upper, flagged) per arm of one block of data sets."""
    from aucpr_stats import aucpr

    result = aucpr(frame, "y", "s", by="sim", estimator=names)
    table = result.to_frame()
    estimates = {e: table.filter(table["estimator"] == e)["estimate"].to_numpy() for e in names}
    bounds = {}
    for method in METHODS:
        ci = result.conf_int(method=method)
        for e in names:
            bounds[(e, method)] = _bounds(ci.filter(ci["estimator"] == e))
    ap = aucpr(frame, "y", "s", by="sim", estimator="average_precision")
    bounds[("average_precision", "influence")] = _bounds(ap.conf_int(method="influence"))
    return estimates, bounds


def _bounds(ci) -> np.ndarray:
    """(lower, upper, flagged) per data set; flagged: a note the library marks (``FLAG_PHRASES``)."""
    from aucpr_stats.intervals.small_sample import is_flagged

    flagged = np.array([is_flagged(note) for note in ci["note"].to_list()], dtype=bool)
    return np.c_[ci["lower"].to_numpy(), ci["upper"].to_numpy(), flagged]


def run_family_target(family: str, target: float, n_sims: int, seed: int, raw: str | None) -> list[dict]:
    """Every (prevalence, n_pos) cell of one scenario."""

    from aucpr_stats.simulate.targets import FAMILIES, at_auroc, true_auroc

    warnings.simplefilter("ignore")
    scen = at_auroc(family, target)
    rng = np.random.default_rng([seed, FAMILIES.index(family), TARGETS.index(target)])
    names, pairs = estimators(), arms()
    rows, kept = [], {}
    for prevalence, n_pos, n_neg in cells(PREVALENCES, N_POS, MAX_ROWS):
        truth = scen.true_aucpr(prevalence)
        start = time.perf_counter()
        est = {e: [] for e in names}
        bnd = {a: [] for a in pairs}
        for frame in frames(scen, rng, n_pos, n_neg, n_sims, BLOCK_ROWS):
            estimates, bounds = _block(frame, names)
            for e in names:
                est[e].append(estimates[e])
            for a in pairs:
                bnd[a].append(bounds[a])
        row = {"family": family, "scenario": scen.label, "target": target, "auroc": true_auroc(scen),
               "truth": truth, "prevalence": prevalence, "n_pos": n_pos, "n_neg": n_neg, "n_sims": n_sims}
        for e in names:
            values = np.concatenate(est[e])
            ok = np.isfinite(values)
            row[f"{e}|mean"] = float(values[ok].mean()) if ok.any() else None
            row[f"{e}|rmse"] = float(np.sqrt(np.mean((values[ok] - truth) ** 2))) if ok.any() else None
            row[f"{e}|nan"] = float((~ok).mean())
            if raw:
                kept[f"{prevalence}|{n_pos}|{e}"] = values
        for e, m in pairs:
            a = np.concatenate(bnd[(e, m)])
            key = f"{e}|{m}"
            summary = coverage_summary(a, truth)
            row[key] = summary.pop("coverage")
            row.update({f"{key}|{name}": value for name, value in summary.items()})
            if raw:
                kept[f"{prevalence}|{n_pos}|{key}"] = a
        row["seconds"] = round(time.perf_counter() - start, 2)
        rows.append(row)
    if raw:
        np.savez_compressed(Path(raw) / f"{family}_{target}.npz", **kept)
    return rows


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.1f}"


def worst(cells: list[dict], key: str, floor: int = 5) -> float | None:
    values = [c[key] for c in cells if c["n_pos"] >= floor and c.get(key) is not None]
    return min(values) if values else None


def worst_bias(cells: list[dict], estimator: str, floor: int = 5) -> tuple[float, dict] | None:
    """The largest |mean / truth - 1| over the cells with at least ``floor`` positives, and where."""
    scored = [(abs(c[f"{estimator}|mean"] / c["truth"] - 1), c) for c in cells
              if c["n_pos"] >= floor and c.get(f"{estimator}|mean") is not None]
    return max(scored, key=lambda t: t[0]) if scored else None


def render(results: dict) -> str:
    cells, meta = results["cells"], results["meta"]
    names = sorted({k.split("|")[0] for c in cells for k in c if k.endswith("|mean")})
    pairs = [tuple(k.split("|")) for k in cells[0] if k.count("|") == 1 and not k.endswith(("|mean", "|rmse", "|nan"))]
    se = 100 * np.sqrt(0.95 * 0.05 / meta["n_sims"])
    lines = [
        "# AUCPR estimators and intervals from weak to near-perfect scores", "",
        f"`python benchmarks/aucpr_boundary.py` ({meta['n_sims']:,} data sets per cell; Monte Carlo SE of a "
        f"coverage near 95%: {se:.1f} points; {meta['wall_seconds']:.0f} s on {meta['workers']} workers, "
        f"{meta['date']}). Binormal, bibeta and 5-level ordinal scores at true AUROC 0.75-0.999, prevalence "
        "0.5, 0.1 and 0.01, 5-1,000 positives (at most 20,000 rows per data set): "
        f"{len(cells)} cells.", "",
        "## Estimators: worst relative bias and root mean squared error", "",
        "Worst `|mean estimate / truth - 1|` over the cells with at least 5 and at least 20 positives, and the "
        "mean RMSE over all cells (relative to the best estimator's in each cell, averaged):", "",
        "| estimator | worst bias, 5+ positives | where | worst bias, 20+ | mean relative RMSE |",
        "|---|---:|---|---:|---:|"]
    best_rmse = [min(c[f"{e}|rmse"] for e in names if c.get(f"{e}|rmse") is not None) for c in cells]
    for e in names:
        w5, w20 = worst_bias(cells, e), worst_bias(cells, e, 20)
        rel = np.mean([c[f"{e}|rmse"] / b for c, b in zip(cells, best_rmse) if c.get(f"{e}|rmse") and b > 0])
        where = (f"{w5[1]['scenario']}, pi {w5[1]['prevalence']}, {w5[1]['n_pos']} positives "
                 f"(truth {w5[1]['truth']:.4f}, mean {w5[1][e + '|mean']:.4f})")
        lines.append(f"| {e} | {100 * w5[0]:.1f}% | {where} | {100 * w20[0]:.1f}% | {rel:.3f} |")
    lines += ["", "## Intervals: worst coverage over the grid, by the smallest number of positives", "",
              "| estimator | method | " + " | ".join(f"{f}+" for f in (5, 10, 20, 50, 100)) + " | worst unflagged |"
              " mean width (50+) |", "|---|---|" + "---:|" * 7]
    for e, m in pairs:
        key = f"{e}|{m}"
        unflagged = [c[key + "|unflagged"] for c in cells
                     if c[key + "|unflagged_n"] >= 0.2 * c["n_sims"] and c[key + "|unflagged"] is not None]
        widths = [c[key + "|width"] for c in cells if c["n_pos"] >= 50 and c[key + "|width"] is not None]
        lines.append(f"| {e} | {m} | " + " | ".join(_pct(worst(cells, key, f)) for f in (5, 10, 20, 50, 100))
                     + f" | {_pct(min(unflagged)) if unflagged else ''} | {np.mean(widths):.4f} |")
    lines += ["", "Worst unflagged: over the cells where at least a fifth of the data sets get an interval "
              "without a flag (small sample, near the boundary, a biased estimator).", ""]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = grid_parser(__doc__, HERE / "aucpr_boundary_results.json")
    parser.add_argument("--raw", default=None, help="a folder for every data set's estimates and bounds")
    parser.add_argument("--render-only", action="store_true")
    args = parser.parse_args(argv)
    if args.render_only:
        args.out.with_suffix(".md").write_text(render(json.loads(args.out.read_text())))
        return
    from aucpr_stats.simulate.targets import FAMILIES

    start = time.perf_counter()
    jobs = [(f, t) for t in TARGETS[::-1] for f in FAMILIES]
    cells = run_jobs(run_family_target, jobs, args.workers, args.sims, args.seed, args.raw)
    write_results(args.out, {"meta": meta(start, n_sims=args.sims, seed=args.seed, workers=args.workers),
                             "cells": cells}, render)


if __name__ == "__main__":
    main()
