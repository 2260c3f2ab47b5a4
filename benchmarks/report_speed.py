"""Time of the whole performance report (``report()``) on a large table: 10^6 rows, 20 subgroups, two models.

Scores are predicted risks from two logistic models of a binormal latent score (so calibration and net
benefit apply); the outcome's prevalence is 0.1; the subgroup is a 20-level column. The report is timed with
and without its figures, and each step's share is printed (``progress=True`` says what is being computed).

Usage::

    python benchmarks/report_speed.py --rows 1000000 --groups 20 --out benchmarks/report_speed_results.md
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import report


def data(rows: int, groups: int, seed: int = 36) -> pl.DataFrame:
    gen = np.random.default_rng(seed)
    y = gen.random(rows) < 0.1
    latent = gen.normal(size=rows) + 1.5 * y
    first = 1 / (1 + np.exp(-(-2.4 + 1.2 * latent)))
    second = 1 / (1 + np.exp(-(-2.3 + 0.8 * (latent + gen.normal(size=rows)))))
    return pl.DataFrame({"y": y, "first": np.round(first, 4), "second": np.round(second, 4),
                         "group": gen.integers(0, groups, rows).astype(str)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    frame = data(args.rows, args.groups)
    timings = {}
    for figures in (False, True):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = report(frame, "y", ["first", "second"], by="group", figures=figures, progress=True)
        timings[figures] = time.perf_counter() - start
        html = result.to_html()
    text = (f"# Time of report() on {args.rows:,} rows, {args.groups} subgroups, two models\n\n"
            f"`python benchmarks/report_speed.py --rows {args.rows} --groups {args.groups}` (2-core machine)\n\n"
            "| figures | seconds |\n|---|---:|\n"
            f"| no | {timings[False]:.1f} |\n| yes (forest, ROC, PR, calibration, decision curves) | "
            f"{timings[True]:.1f} |\n\nThe HTML page with the figures: {len(html) / 1e6:.1f} MB.\n")
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
