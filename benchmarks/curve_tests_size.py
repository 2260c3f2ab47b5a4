"""The size of the tests of two ROC curves (``compare_curves``) under the null: equal binormal curves.

For each design (paired: two scores on the same rows; unpaired: one score in
two independent samples), test (Venkatraman's permutation test; the
sensitivity at specificity 0.9 with the bootstrap z test), sample size and
AUROC, ``--reps`` data sets are simulated with the two curves equal and the
share with p < alpha is the estimated size, printed as a markdown table with
its Monte Carlo standard error sqrt(a (1 - a) / reps).

Data: prevalence 0.4; a score is ``mu * y + e`` with standard normal ``e``,
``mu = sqrt(2) * Phi^-1(AUC)`` (the binormal curve with equal variances).
Paired scores share the outcome and have errors correlated 0.5. Unpaired:
two samples of ``n`` rows each.

All data sets of one configuration are stacked and run in one call with
``by="dataset"`` (each data set its own random stream).

Run:  python benchmarks/curve_tests_size.py --reps 500 --n-boot 500 > benchmarks/curve_tests_size_results.md
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import polars as pl

from aucpr_stats.compare.curve_tests_verb import compare_curves
from aucpr_stats.distributions import normal_quantile


def simulate(design: str, n: int, auc: float, reps: int, gen: np.random.Generator) -> pl.DataFrame:
    mu = math.sqrt(2.0) * float(normal_quantile(auc))
    rows = reps * n * (1 if design == "paired" else 2)
    y = gen.random(rows) < 0.4
    e1 = gen.normal(size=rows)
    frame = {"dataset": np.repeat(np.arange(reps), rows // reps), "y": y, "a": mu * y + e1}
    if design == "paired":
        frame["b"] = mu * y + 0.5 * e1 + math.sqrt(0.75) * gen.normal(size=rows)
    else:
        frame["sample"] = np.tile(np.repeat(["one", "two"], n), reps)
    return pl.DataFrame(frame)


def size(design: str, test: str, n: int, auc: float, reps: int, n_boot: int, alpha: float, seed: int):
    data = simulate(design, n, auc, reps, np.random.default_rng([seed, n, int(auc * 100), design == "paired"]))
    options = {"test": test, "n_boot": n_boot, "rng": seed}
    if test == "sensitivity":
        options["at"] = 0.9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if design == "paired":
            result = compare_curves(data, "y", ["a", "b"], "dataset", **options)
        else:
            result = compare_curves(data, "y", "a", "dataset", between="sample", **options)
    p = result.to_polars()["p_value"].to_numpy()
    done = p[np.isfinite(p)]
    return float(np.mean(done < alpha)), done.size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"Size of compare_curves' tests at alpha = {args.alpha} under equal binormal curves "
          f"({args.reps} data sets per row, {args.n_boot} permutations / bootstrap replicates each; "
          f"prevalence 0.4; sensitivity test at specificity 0.9).\n")
    print("| design | test | n | AUROC | size | MC SE | data sets | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for design in ("paired", "unpaired"):
        for test in ("venkatraman", "sensitivity"):
            for n in (100, 300):
                for auc in (0.75, 0.95):
                    start = time.perf_counter()
                    estimate, count = size(design, test, n, auc, args.reps, args.n_boot, args.alpha, args.seed)
                    se = math.sqrt(estimate * (1 - estimate) / max(count, 1))
                    print(f"| {design} | {test} | {n} | {auc} | {estimate:.3f} | {se:.3f} | {count} | "
                          f"{time.perf_counter() - start:.1f} |", flush=True)
    print("\nn: rows of the data set (paired) or of each of the two samples (unpaired). MC SE: the binomial "
          "standard error of the estimated size.")


if __name__ == "__main__":
    main()
