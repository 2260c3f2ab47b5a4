"""Coverage of the bootstrap of a chosen threshold (``CutoffResult.bootstrap``) and of the fixed-threshold Wilson
interval it replaces, for Youden's threshold on binormal data.

Model: controls score N(0, 1), cases N(mu, 1), mu = sqrt(2) Phi^-1(AUC). Youden's index Se + Sp - 1 is
largest at c* = mu / 2, where the true sensitivity and specificity both equal Phi(mu / 2). Each data set
chooses its own Youden threshold; the intervals are checked against c* (the threshold's interval) and
against Phi(mu / 2) (the sensitivity's and specificity's): the population point the procedure estimates.
The Wilson interval at the chosen threshold treats it as fixed in advance (its target is the same point).

Each cell: ``--reps`` data sets (300 by default) from the stream ``[seed, cell]``, ``--n-boot`` replicates
(500) each. The Monte Carlo standard error of a coverage p is sqrt(p (1 - p) / reps).

Usage::

    python benchmarks/threshold_bootstrap_coverage.py --reps 300 --out benchmarks/threshold_bootstrap_coverage_results.md
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import cutoffs
from aucpr_stats.distributions import normal_cdf, normal_quantile

CELLS = [(n_pos, n_neg, auc) for auc in (0.75, 0.9) for n_pos, n_neg in ((30, 60), (100, 100), (300, 300))]


def _cell(n_pos: int, n_neg: int, auc: float, reps: int, n_boot: int, seed: int, index: int) -> dict:
    gen = np.random.default_rng([seed, index])
    mu = math.sqrt(2.0) * float(normal_quantile(auc))
    c_star, p_star = mu / 2.0, float(normal_cdf(mu / 2.0))
    hits = {key: 0 for key in ("threshold", "sensitivity", "specificity", "wilson_sensitivity",
                               "wilson_specificity")}
    widths = {"boot": [], "wilson": []}
    for _ in range(reps):
        y = np.repeat([1, 0], [n_pos, n_neg])
        s = gen.normal(size=n_pos + n_neg) + mu * y
        result = cutoffs(pl.DataFrame({"y": y, "s": s}), "y", "s")
        boot = result.bootstrap(n_boot, rng=int(gen.integers(2**31))).to_polars()
        wilson = result.conf_int().filter(pl.col("threshold") == pl.col("threshold").first())
        for measure, target in (("threshold", c_star), ("sensitivity", p_star), ("specificity", p_star)):
            row = boot.filter(pl.col("measure") == measure).row(0, named=True)
            hits[measure] += row["lower"] <= target <= row["upper"]
            if measure == "sensitivity":
                widths["boot"].append(row["upper"] - row["lower"])
        for measure in ("sensitivity", "specificity"):
            row = wilson.filter(pl.col("measure") == measure).row(0, named=True)
            hits[f"wilson_{measure}"] += row["lower"] <= p_star <= row["upper"]
            if measure == "sensitivity":
                widths["wilson"].append(row["upper"] - row["lower"])
    out = {"n_pos": n_pos, "n_neg": n_neg, "auc": auc, "reps": reps}
    for key, count in hits.items():
        out[key] = count / reps
    out["width_boot"] = float(np.mean(widths["boot"]))
    out["width_wilson"] = float(np.mean(widths["wilson"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2038)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = [_cell(*cell, args.reps, args.n_boot, args.seed, i) for i, cell in enumerate(CELLS)]
    elapsed = time.perf_counter() - start
    lines = ["# Coverage of the bootstrap of Youden's threshold (95% intervals)", "",
             f"{args.reps} binormal data sets per cell, {args.n_boot} stratified replicates each; targets: the "
             "population Youden threshold c* = mu/2 and the sensitivity = specificity Phi(mu/2) there. "
             f"Monte Carlo SE of a coverage near 0.95: {math.sqrt(0.95 * 0.05 / args.reps):.3f}. "
             f"Run time {elapsed:.0f} s (`python benchmarks/threshold_bootstrap_coverage.py`).", "",
             "| n_pos | n_neg | AUC | threshold | Se (bootstrap) | Sp (bootstrap) | Se (Wilson, fixed) | "
             "Sp (Wilson, fixed) | width Se bootstrap | width Se Wilson |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['n_pos']} | {r['n_neg']} | {r['auc']} | {r['threshold']:.3f} | {r['sensitivity']:.3f} | "
                     f"{r['specificity']:.3f} | {r['wilson_sensitivity']:.3f} | {r['wilson_specificity']:.3f} | "
                     f"{r['width_boot']:.3f} | {r['width_wilson']:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
