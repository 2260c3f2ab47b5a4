r"""Calibration of a case-control sample at a stated prevalence: bias and bootstrap coverage by controls per case.

The cohort, models and truths are those of ``benchmarks/calibration_coverage.py``
(population prevalence 0.01; ``calibrated`` and ``overfitted`` models). Each
data set keeps every case of a cohort of ``cases / 0.01`` rows and ``m``
controls per case drawn from its non-cases; ``calibration(..., prevalence=0.01)``
reweights the controls (each stands for ``99 / m`` cohort controls) and its
default interval is the bootstrap stratified by class (200 replicates).
Reported per cell: the mean estimate minus the truth (bias), and the
coverage of the 95% interval with its Monte Carlo SE, for CITL, slope,
intercept, O/E and Brier.

Run::

    python benchmarks/calibration_case_control.py --out benchmarks/calibration_case_control_results.md
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
import polars as pl

os.environ.setdefault("AUCPR_STATS_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))

from _calibration_sim import coverage_text, covered, finish  # noqa: E402
from calibration_coverage import case_control_sets, model, truths  # noqa: E402

from aucpr_stats import calibration  # noqa: E402

HERE = Path(__file__).parent
STATISTICS = ["citl", "slope", "intercept", "oe_ratio", "brier"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=HERE / "calibration_case_control_results.md")
    args = parser.parse_args(argv)
    reps = 40 if args.quick else args.reps
    rng = np.random.default_rng(args.seed)
    warnings.simplefilter("ignore")
    started = time.perf_counter()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    lines = ["# Calibration at a stated prevalence: case-control samples", "",
             f"Command: `python benchmarks/calibration_case_control.py --reps {args.reps}"
             f"{' --quick' if args.quick else ''}`; {reps} data sets per cell, the bootstrap stratified by class "
             f"with 200 replicates; commit {commit}; one core. Bias: mean estimate minus truth. Coverage in % "
             "(Monte Carlo SE), bold below 93%.", "",
             "| model | cases | controls per case | control weight | "
             + " | ".join(f"{s} bias | {s} coverage" for s in STATISTICS) + " |",
             "|---|---:|---:|---:|" + "---:|---:|" * len(STATISTICS)]
    for scenario in ("calibrated", "overfitted"):
        m = model(scenario, 0.01)
        truth = truths(m)
        for cases in (50, 200):
            for controls in (1, 4, 10):
                frame = case_control_sets(rng, m, cases, reps, controls=controls)
                result = calibration(frame, "y", "p", by="rep", statistic=STATISTICS, prevalence=0.01)
                ci = result.conf_int_polars(n_boot=200, seed=int(rng.integers(2**31)))
                parts = []
                for s in STATISTICS:
                    bias = np.nanmean(ci.filter(pl.col("estimator") == s)["estimate"].to_numpy()) - truth[s]
                    parts.append(f"{bias:+.4f} | {coverage_text(*covered(ci, s, truth[s]))}")
                lines.append(f"| {scenario} | {cases} | {controls} | {99 / controls:.1f} | " + " | ".join(parts) + " |")
                print(lines[-1], flush=True)
    finish(lines, started, args.out)


if __name__ == "__main__":
    main()
