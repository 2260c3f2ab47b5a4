"""Coverage of the within-matched-set AUROC's intervals (logit, wald, jackknife) in simulated matched studies.

Model: matched set k has a set effect b_k ~ N(0, sd_set^2) shifting every
member (the matching factor moves cases and controls alike); a control scores
b_k + e, a case b_k + mu + e, e ~ N(0, 1). The conditional (within-set) AUROC
is Phi(mu / sqrt(2)) whatever the set effect, so mu = sqrt(2) Phi^-1(theta)
gives the target theta exactly (continuous scores: no ties). The unmatched
AUROC of the same data is Phi(mu / sqrt(2 + 2 sd_set^2)), smaller: it is
shown for contrast, it is not what the intervals aim at.

Designs: 1:1, 1:2, 1:4 (one case and m controls per set) and "1:1-4" (1 to 4
controls per set, uniform: unequal set weights); 30, 100 and 300 sets; theta
0.7 and 0.9. Each cell has ``--reps`` data sets (1000 by default), from the
stream ``[seed, cell index]``. Every data set of a cell is one group of the
library's kernels (:mod:`aucpr_stats.matched.estimate`), so a cell is a few
numpy calls: the same code :func:`aucpr_stats.matched.matched_auroc` runs.

An interval that does not exist (an estimate of exactly 0 or 1 has no logit
interval) counts as not covering; ``edge`` is the share of such data sets.
The Monte Carlo standard error of a coverage p is sqrt(p (1 - p) / reps).

Usage::

    python benchmarks/matched_coverage.py --reps 1000 --out benchmarks/matched_coverage_results.md
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from aucpr_stats.distributions import normal_cdf, normal_quantile
from aucpr_stats.matched import (jackknife_variance, matched_estimate, matched_interval, sandwich_variance,
                                 set_counts)

DESIGNS = {"1:1": (1, 1), "1:2": (2, 2), "1:4": (4, 4), "1:1-4": (1, 4)}
N_SETS = (30, 100, 300)
THETAS = (0.7, 0.9)
METHODS = {"logit": ("sandwich", "logit"), "wald": ("sandwich", "identity"), "jackknife": ("jackknife", "logit")}


def simulate(rng: np.random.Generator, reps: int, n_sets: int, controls: tuple[int, int], theta: float,
             sd_set: float):
    """Rows of ``reps`` matched studies: set code (unique over studies), case flag, score; sets per study."""
    total = reps * n_sets
    m = rng.integers(controls[0], controls[1] + 1, total)
    size = m + 1
    set_code = np.repeat(np.arange(total), size)
    first = np.r_[0, np.cumsum(size)[:-1]]
    case = np.zeros(set_code.size, dtype=bool)
    case[first] = True
    mu = math.sqrt(2.0) * float(normal_quantile(theta))
    score = rng.normal(0.0, sd_set, total)[set_code] + mu * case + rng.normal(size=set_code.size)
    return set_code, case, score, mu


def run_cell(rng, reps, n_sets, controls, theta, sd_set, level):
    set_code, case, score, mu = simulate(rng, reps, n_sets, controls, theta, sd_set)
    counts = set_counts(set_code, case, score)
    study = np.arange(reps * n_sets) // n_sets
    wins, pairs = counts.wins, counts.pairs
    estimate = matched_estimate(wins, pairs, study, reps)
    variances = {"sandwich": sandwich_variance(wins, pairs, study, reps),
                 "jackknife": jackknife_variance(wins, pairs, study, reps)}
    row = {"bias": float(np.mean(estimate) - theta), "sd": float(np.std(estimate, ddof=1)),
           "mean_se": float(np.mean(np.sqrt(variances["sandwich"]))),
           "edge": float(np.mean((estimate == 0) | (estimate == 1))),
           "unmatched": float(normal_cdf(mu / math.sqrt(2 + 2 * sd_set ** 2)))}
    for method, (variance, scale) in METHODS.items():
        lower, upper = matched_interval(estimate, np.sqrt(variances[variance]), level, scale)
        covered = (lower <= theta) & (theta <= upper)  # NaN bounds compare False: not covered
        row[method] = float(np.mean(covered))
        row[method + "_below"] = float(np.mean(upper < theta))  # the interval misses low
        row[method + "_width"] = float(np.nanmean(upper - lower))
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--sd-set", type=float, default=1.0)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    start = time.time()
    lines = [f"# Coverage of the matched AUROC's {args.level:.0%} intervals", "",
             f"Command: `python benchmarks/matched_coverage.py --reps {args.reps} --seed {args.seed} "
             f"--sd-set {args.sd_set} --level {args.level}`", "",
             f"{args.reps} simulated studies per cell; set effect sd {args.sd_set} (shifts cases and controls "
             "alike); scores binormal within a set, so the conditional AUROC is exactly theta. Coverage of "
             "theta (a missing interval counts as a miss) with its Monte Carlo standard error; `below`: the "
             "share of intervals wholly below theta; `edge`: studies with an estimate of 0 or 1 (no logit "
             "interval); `sd`: the estimate's spread over studies, `mean se`: the sandwich standard error's "
             "mean; `unmatched`: the pooled (unmatched) AUROC of the same population, for contrast.", "",
             "| design | sets | theta | bias | sd | mean se | edge | logit | (below) | wald | (below) | jackknife | "
             "(below) | width logit | width wald | unmatched |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    index = 0
    for theta in THETAS:
        for name, controls in DESIGNS.items():
            for n_sets in N_SETS:
                rng = np.random.default_rng([args.seed, index])
                index += 1
                r = run_cell(rng, args.reps, n_sets, controls, theta, args.sd_set, args.level)

                def cov(p):
                    return f"{p:.3f} ± {math.sqrt(p * (1 - p) / args.reps):.3f}"

                line = (f"| {name} | {n_sets} | {theta} | {r['bias']:+.4f} | {r['sd']:.4f} | {r['mean_se']:.4f} | "
                        f"{r['edge']:.3f} | {cov(r['logit'])} | {r['logit_below']:.3f} | {cov(r['wald'])} | "
                        f"{r['wald_below']:.3f} | {cov(r['jackknife'])} | {r['jackknife_below']:.3f} | "
                        f"{r['logit_width']:.3f} | {r['wald_width']:.3f} | {r['unmatched']:.3f} |")
                lines.append(line)
                print(line, flush=True)
    lines += ["", f"Run time: {time.time() - start:.1f} s."]
    text = "\n".join(lines) + "\n"
    if args.out is not None:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
