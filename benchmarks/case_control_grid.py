"""Case-control samples at a stated prevalence: the default estimate and intervals over the design grid.

Usage::

    python benchmarks/case_control_grid.py             # 1,000 data sets per cell (the header gives the time)
    python benchmarks/case_control_grid.py --sims 100  # a quick look

A cohort of prevalence ``pi`` in {0.01, 0.02, 0.05, 0.1} has binormal scores (negatives N(0, 1), positives
N(mu, 1), mu 1 and 2: AUROC 0.76 and 0.92); a case-control study takes ``n_pos`` cases (50, 200, 1,000) and
``controls`` in {2, 4, 10, 20} controls per case. Every data set goes through the call a user makes,
``aucpr(frame, "y", "s", by="sim", prevalence=pi)``: the default estimator (average precision) at the
cohort's prevalence, its default interval there (the stratified bootstrap percentile interval, 500
replicates here), and ``method="logit"`` and ``"influence"`` beside it. The truth is the cohort's true AUCPR
at ``pi`` (:meth:`Scenario.true_aucpr`). From the bootstrap's own output (the ``boot_mean`` column) two
bias-corrected variants are measured as candidates: the percentile interval shifted down by twice the
bootstrap's estimate of the bias (``boot_mean - estimate``), and the basic (reflected) interval
``[2 estimate - upper, 2 estimate - lower]``.

Reported per cell: the control weight (cohort controls each sampled control stands for,
``(1 - pi) / pi / controls``), the estimate's bias, each interval's coverage with its Monte Carlo SE, and
whether the library's rule flags the cell (control weight at or above ``max_control_weight`` of the interval
records, read when the page is rendered; the rule is a function of the design alone). Writes
``benchmarks/case_control_grid_results.json`` and ``.md``.
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

from _grid import draw_block, grid_parser, meta, run_jobs, write_results  # noqa: E402

PREVALENCES = (0.01, 0.02, 0.05, 0.1)
CONTROLS = (2, 4, 10, 20)
CASES = (50, 200, 1000)
MUS = (1.0, 2.0)
ARMS = ("bootstrap", "logit", "influence", "shifted", "basic")
BLOCK_ROWS = 1_000_000


def run_cell(mu: float, pi: float, controls: int, n_pos: int, n_sims: int, n_boot: int, seed: int) -> dict:
    import polars as pl

    from aucpr_stats import aucpr
    from aucpr_stats.simulate.scenarios import Binormal

    warnings.simplefilter("ignore")
    scenario = Binormal(mu)
    truth = scenario.true_aucpr(pi)
    rng = np.random.default_rng([seed, int(mu * 10), int(pi * 1000), controls, n_pos])
    n_neg = controls * n_pos
    size = n_pos + n_neg
    per_block = max(1, min(n_sims, BLOCK_ROWS // size))
    parts: dict[str, list] = {arm: [] for arm in ARMS}
    estimates = []
    for first in range(0, n_sims, per_block):
        k = min(per_block, n_sims - first)
        y, s = draw_block(scenario, rng, n_pos, n_neg, k)
        frame = pl.DataFrame({"sim": np.repeat(np.arange(first, first + k), size), "y": y, "s": s})
        result = aucpr(frame, "y", "s", by="sim", prevalence=pi)
        boot = result.conf_int(n_boot=n_boot, rng=int(rng.integers(2**31))).sort("sim")
        estimate = boot["estimate"].to_numpy()
        lo, hi, mean = boot["lower"].to_numpy(), boot["upper"].to_numpy(), boot["boot_mean"].to_numpy()
        estimates.append(estimate)
        parts["bootstrap"].append(np.c_[lo, hi])
        shift = 2.0 * (mean - estimate)
        parts["shifted"].append(np.c_[np.clip(lo - shift, 0, 1), np.clip(hi - shift, 0, 1)])
        parts["basic"].append(np.c_[np.clip(2 * estimate - hi, 0, 1), np.clip(2 * estimate - lo, 0, 1)])
        for method in ("logit", "influence"):
            ci = result.conf_int(method=method).sort("sim")
            parts[method].append(np.c_[ci["lower"].to_numpy(), ci["upper"].to_numpy()])
    estimate = np.concatenate(estimates)
    row = {"mu": mu, "prevalence": pi, "controls": controls, "n_pos": n_pos, "n_sims": n_sims,
           "control_weight": (1 - pi) / pi / controls, "truth": truth,
           "bias": float(np.nanmean(estimate) - truth),
           "bias_se": float(np.nanstd(estimate, ddof=1) / np.sqrt(n_sims))}
    for arm in ARMS:
        a = np.concatenate(parts[arm])
        ok = np.isfinite(a[:, 0]) & np.isfinite(a[:, 1])
        hit = (a[:, 0] <= truth) & (truth <= a[:, 1])
        row[arm] = float(hit[ok].mean()) if ok.any() else None
        row[f"{arm}_width"] = float((a[ok, 1] - a[ok, 0]).mean()) if ok.any() else None
    return row


def render(results: dict) -> str:
    from aucpr_stats.intervals import INTERVAL_METHODS

    meta, rows = results["meta"], results["rows"]
    rule = INTERVAL_METHODS["aucpr"]["bootstrap"].max_control_weight
    minimum = INTERVAL_METHODS["aucpr"]["bootstrap"].min_positives
    unflagged = [r for r in rows if r["control_weight"] < rule and r["n_pos"] >= minimum]
    se = 100 * np.sqrt(0.95 * 0.05 / meta["n_sims"])
    lines = ["# Case-control samples at a stated prevalence", "",
             f"`python benchmarks/case_control_grid.py` ({meta['n_sims']:,} data sets per cell, {meta['n_boot']} "
             f"bootstrap replicates; Monte Carlo SE near 95%: {se:.1f} points; {meta['wall_seconds']:.0f} s on "
             f"{meta['workers']} workers, {meta['date']}). Coverage (%) of 95% intervals of the default estimator "
             "(average precision) at the cohort prevalence; `shifted` and `basic` are bias-corrected "
             "bootstrap candidates computed from the default interval's output.", "",
             "## Worst coverage by control weight (cohort controls per sampled control)", "",
             "| control weight below | cells | " + " | ".join(ARMS) + " |", "|---:|---:|" + "---:|" * len(ARMS)]
    for bound in (1.0, 2.5, 5.0, 10.0, 25.0, 100.0):
        sub = [r for r in rows if r["control_weight"] < bound]
        if sub:
            lines.append(f"| {bound:g} | {len(sub)} | " + " | ".join(
                f"{100 * min(r[a] for r in sub if r[a] is not None):.1f}" for a in ARMS) + " |")
    lines += ["", f"Unflagged cells (control weight below the rule's {rule:g}, at least {minimum:g} cases, the "
              f"bootstrap's minimum): {len(unflagged)}; worst coverage " + ", ".join(
                  f"{a} {100 * min(r[a] for r in unflagged):.1f}" for a in ARMS) + ".", "",
              "## Every cell", "",
              "| mu | prevalence | controls per case | cases | control weight | truth | bias | flagged | "
              + " | ".join(ARMS) + " |", "|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(ARMS)]
    for r in rows:
        lines.append(f"| {r['mu']:g} | {r['prevalence']:g} | {r['controls']} | {r['n_pos']} | "
                     f"{r['control_weight']:.2f} | {r['truth']:.4f} | {r['bias']:+.4f} | {'yes' if r['control_weight'] >= rule else 'no'} | "
                     + " | ".join(f"{100 * r[a]:.1f}" if r[a] is not None else "" for a in ARMS) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = grid_parser(__doc__, HERE / "case_control_grid_results.json")
    parser.add_argument("--n-boot", type=int, default=500)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    cells = [(mu, pi, c, n) for mu in MUS for pi in PREVALENCES for c in CONTROLS for n in CASES]
    cells.sort(key=lambda cell: -cell[2] * cell[3])  # the largest first, for an even load
    rows = run_jobs(run_cell, cells, args.workers, args.sims, args.n_boot, args.seed)
    rows.sort(key=lambda r: (r["mu"], r["prevalence"], r["controls"], r["n_pos"]))
    write_results(args.out, {"meta": meta(start, n_sims=args.sims, n_boot=args.n_boot, seed=args.seed,
                                          workers=args.workers), "rows": rows}, render)


if __name__ == "__main__":
    main()
