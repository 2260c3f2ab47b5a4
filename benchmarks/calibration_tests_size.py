r"""Size of the calibration tests: heterogeneity across subgroups and the paired comparison of two models.

What is measured
----------------
* **Heterogeneity** (``calibration(...).heterogeneity()``, Cochran's Q on the
  Wald standard errors, chi-square with k - 1 df): k = 3, 5 or 10 subgroups
  of one model that is equally (mis)calibrated in every subgroup, so CITL,
  slope, O/E and Brier are the same in each; 20, 50 or 200 expected events per
  subgroup at prevalence 0.1 and 0.5. Per row ``x ~ N(0, 1)``, the true risk
  ``expit(a0 + 1.2 x)``, the prediction ``expit(c + d x)`` of an overfitted
  model (``d = 1.2 / 0.7``): the statistics are equal across groups, not at
  their ideal values.
* **Paired comparison** (``compare(..., metric="calibration")``): two models
  with the same distribution of predictions on the same rows,
  ``expit(c + d x + 0.5 e_j)`` with independent ``e_1, e_2``, so every
  statistic has the same true value for both; 20, 50, 200 and 1,000 expected
  events at prevalence 0.1 and 0.5.

Size is the share of p-values below 0.05 over 1,000 data sets per cell
(Monte Carlo SE about 0.7 points); a data set is one group of a grouped call
(all data sets of a cell in one call), so the whole study runs in minutes.

Run::

    python benchmarks/calibration_tests_size.py --out benchmarks/calibration_tests_size_results.md
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

os.environ.setdefault("AUCPR_STATS_THREADS", "1")

sys.path.insert(0, str(Path(__file__).parent))

from _calibration_sim import finish, intercept_for_mean, rejections  # noqa: E402

from aucpr_stats import calibration, compare  # noqa: E402

HERE = Path(__file__).parent
STATISTICS = ["oe_ratio", "citl", "slope", "brier"]


def _rows(rng: np.random.Generator, n: int, prevalence: float, noise: float = 0.0, models: int = 1):
    a0 = intercept_for_mean(prevalence, 1.2)
    x = rng.standard_normal(n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(a0 + 1.2 * x)))).astype(np.int8)
    d = 1.2 / 0.7
    preds = [1 / (1 + np.exp(-(a0 + d * x + noise * rng.standard_normal(n)))) for _ in range(models)]
    return y, preds


def heterogeneity_cell(rng, k: int, events: int, prevalence: float, reps: int) -> dict:
    n = int(round(events / prevalence))
    y, (p,) = _rows(rng, reps * k * n, prevalence)
    frame = pl.DataFrame({"rep": np.repeat(np.arange(reps), k * n), "g": np.tile(np.repeat(np.arange(k), n), reps),
                          "y": y, "p": p})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = calibration(frame, "y", "p", by=["rep", "g"], statistic=STATISTICS).heterogeneity(across="g")
    return rejections(test.to_polars(), STATISTICS)


def paired_cell(rng, events: int, prevalence: float, reps: int) -> dict:
    n = int(round(events / prevalence))
    y, (a, b) = _rows(rng, reps * n, prevalence, noise=0.5, models=2)
    frame = pl.DataFrame({"rep": np.repeat(np.arange(reps), n), "y": y, "a": a, "b": b})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare(frame, "y", ["a", "b"], by="rep", metric="calibration", estimator=STATISTICS).to_polars()
    return rejections(table, STATISTICS)


def _cell_text(size: float, count: int) -> str:
    se = np.sqrt(max(size * (1 - size), 1e-12) / max(count, 1))
    text = f"{100 * size:.1f} ({100 * se:.1f})"
    return f"**{text}**" if size > 0.07 else text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="100 data sets per cell")
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--out", type=Path, default=HERE / "calibration_tests_size_results.md")
    args = parser.parse_args(argv)
    reps = 100 if args.quick else args.reps
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    lines = ["# Size of the calibration tests (heterogeneity across subgroups, paired comparison)", ""]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    lines += [f"Command: `python benchmarks/calibration_tests_size.py{' --quick' if args.quick else ''}`; "
              f"{reps} data sets per cell; commit {commit}; {platform.machine()}, {os.cpu_count()} cores "
              "(AUCPR_STATS_THREADS=1). Size in % (Monte Carlo SE); bold above 7%.", "",
              "## Heterogeneity across k subgroups (Cochran's Q on Wald standard errors)", "",
              "| prevalence | events per group | k | " + " | ".join(STATISTICS) + " |",
              "|---:|---:|---:|" + "---:|" * len(STATISTICS)]
    for prevalence in (0.5, 0.1):
        for events in (20, 50, 200):
            for k in (3, 5, 10):
                cell = heterogeneity_cell(rng, k, events, prevalence, reps)
                lines.append(f"| {prevalence} | {events} | {k} | "
                             + " | ".join(_cell_text(*cell[s]) for s in STATISTICS) + " |")
                print(lines[-1], flush=True)
    lines += ["", "## Paired comparison of two equally calibrated models on the same rows (Wald)", "",
              "| prevalence | events | " + " | ".join(STATISTICS) + " |", "|---:|---:|" + "---:|" * len(STATISTICS)]
    for prevalence in (0.5, 0.1):
        for events in (20, 50, 200, 1000):
            cell = paired_cell(rng, events, prevalence, reps)
            lines.append(f"| {prevalence} | {events} | " + " | ".join(_cell_text(*cell[s]) for s in STATISTICS) + " |")
            print(lines[-1], flush=True)
    finish(lines, started, args.out)


if __name__ == "__main__":
    main()
