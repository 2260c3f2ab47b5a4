r"""Coverage of the bootstrap intervals of ICI, E50 and E90 (the flexible calibration curve's summaries).

What is measured
----------------
Per row ``x ~ N(0, 1)``, the true risk ``pi(x) = expit(a0 + 1.2 x)`` (``a0``
for the prevalence), the prediction ``p = expit(c + d x)``; the true
calibration curve ``P(y = 1 | p)`` is then logistic in ``logit p``, which the
restricted cubic spline holds exactly (its linear part), so the population
values of the summaries are those of ``|pi(x) - p(x)|`` over ``x``: ICI its
mean (Gauss-Hermite quadrature, 200 nodes), E50 and E90 its median and 90th
percentile (over 10^7 draws of ``x``). Models: ``overfitted`` (``d = 1.2 / 0.7``,
``c`` for the right mean), ``underfitted`` (``d = 1.2 / 1.3``, ``c = a0 + 0.4``)
and ``calibrated`` (``c = a0, d = 1.2``: every summary 0, at the edge of its
range, where no interval of a non-negative estimate can cover from above).

Prevalence 0.5 and 0.1; 50, 200 and 1,000 expected events; the cohort
bootstrap (``method="bootstrap"``, 200 replicates), 200 data sets per cell
(Monte Carlo SE about 1.5 points); all data sets of a cell in one grouped call.

Run::

    python benchmarks/calibration_ici_coverage.py --out benchmarks/calibration_ici_coverage_results.md
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("AUCPR_STATS_THREADS", "1")

sys.path.insert(0, str(Path(__file__).parent))

from _calibration_sim import coverage_text, covered, data_sets, expit, finish, model  # noqa: E402

from aucpr_stats import calibration  # noqa: E402

HERE = Path(__file__).parent
STATISTICS = ["ici", "e50", "e90"]


def truths(a0: float, c: float, d: float, rng: np.random.Generator) -> dict:
    nodes, weights = np.polynomial.hermite_e.hermegauss(200)
    weights = weights / weights.sum()
    gap = np.abs(expit(a0 + 1.2 * nodes) - expit(c + d * nodes))
    x = rng.standard_normal(10**7)
    draws = np.abs(expit(a0 + 1.2 * x) - expit(c + d * x))
    return {"ici": float(np.sum(weights * gap)), "e50": float(np.quantile(draws, 0.5)),
            "e90": float(np.quantile(draws, 0.9))}


def cell(rng, a0, c, d, events, prevalence, reps, n_boot) -> dict:
    frame = data_sets(rng, a0, c, d, int(round(events / prevalence)), reps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = calibration(frame, "y", "p", by="rep", statistic=STATISTICS)
        return result.conf_int_polars(method="bootstrap", n_boot=n_boot, seed=int(rng.integers(2**31)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--models", default="overfitted,underfitted,calibrated",
                        help="comma-separated: overfitted, underfitted, calibrated")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--out", type=Path, default=HERE / "calibration_ici_coverage_results.md")
    args = parser.parse_args(argv)
    reps = 30 if args.quick else args.reps
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    lines = ["# Coverage of the bootstrap intervals of ICI, E50 and E90", "",
             f"Command: `python benchmarks/calibration_ici_coverage.py --reps {args.reps} --models {args.models}"
             f"{' --quick' if args.quick else ''}`; {reps} data "
             f"sets per cell, {args.n_boot} bootstrap replicates; commit {commit}; one core. Coverage in % of the "
             "finite intervals (Monte Carlo SE); bold below 93%; the truth after the model's name.", "",
             "| model | prevalence | events | " + " | ".join(STATISTICS) + " |", "|---|---:|---:|" + "---:|" * 3]
    for name in args.models.split(","):
        for prevalence in (0.5, 0.1):
            a0, c, d = model(name, prevalence)
            truth = truths(a0, c, d, rng)
            for events in (50, 200, 1000):
                if events == 1000 and prevalence == 0.1 and not args.quick:
                    reps_here = max(reps // 2, 20)
                else:
                    reps_here = reps
                frame = cell(rng, a0, c, d, events, prevalence, reps_here, args.n_boot)
                parts = [coverage_text(*covered(frame, s, truth[s])) for s in STATISTICS]
                label = f"{name} (ICI {truth['ici']:.4f}, E50 {truth['e50']:.4f}, E90 {truth['e90']:.4f})"
                lines.append(f"| {label} | {prevalence} | {events} | " + " | ".join(parts) + " |")
                print(lines[-1], flush=True)
    finish(lines, started, args.out)


if __name__ == "__main__":
    main()
