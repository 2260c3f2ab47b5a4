"""The bias study behind the default AUCPR estimator (issue: honest numbers at the edges, item 2).

Boyd, Eng & Page (2013) recommend three AUCPR estimators: the lower
trapezoid, average precision and the interpolated median. This script reruns
their bias study (bias ratio = mean estimate / true AUCPR) on continuous and
ordinal (10-, 5- and 3-level) scores, at prevalence 0.01, 0.1 and 0.5 and
n + m from 100 to 10,000, for both ``ties=`` conventions, and picks the
estimator with the smallest worst-case ``|bias ratio - 1|`` under the default
``ties="interpolate"``. It writes ``benchmarks/default_estimator_results.json``
and the markdown table pasted into ``docs/estimators.md``.

Run: ``python benchmarks/default_estimator.py`` (about 10 minutes on 2 cores;
``--n-sims 100`` for a quick look).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import polars as pl

from aucpr_stats.simulate import SCENARIOS, bias_study
from aucpr_stats.simulate.scenarios import Binormal, Discretized

CANDIDATES = ("lower_trapezoid", "average_precision", "interpolated_median")
N_TOTAL = (100, 500, 1000, 5000, 10000)
PREVALENCE = (0.01, 0.1, 0.5)
HERE = Path(__file__).parent


def scenarios():
    """Boyd et al.'s binormal and bibeta, and a well-separated binormal (true AUCPR near 1), each continuous
    and cut into 10, 5 and 3 levels."""
    out = []
    for base in (SCENARIOS["binormal"], SCENARIOS["bibeta"], Binormal(mu=3.0)):
        out.append(base)
        out.extend(Discretized(base, levels) for levels in (10, 5, 3))
    return out


def run(n_sims: int, seed: int = 2013) -> pl.DataFrame:
    frames = []
    for ties in ("interpolate", "published"):
        frame = bias_study(scenarios(), n_total=N_TOTAL, prevalence=PREVALENCE, estimators=list(CANDIDATES),
                           n_sims=n_sims, seed=seed, ties=ties)
        frames.append(frame.with_columns(pl.lit(ties).alias("ties")))
    return pl.concat(frames)


def worst_case(frame: pl.DataFrame) -> pl.DataFrame:
    """Per ties convention and estimator: the worst |bias ratio - 1| over every cell, and where."""
    scored = frame.filter(pl.col("n_valid") > 0).with_columns((pl.col("bias_ratio") - 1).abs().alias("error"))
    worst = scored.sort("error", descending=True).group_by(["ties", "estimator"], maintain_order=True).first()
    return worst.select("ties", "estimator", "error", "bias_ratio", "bias_ratio_se", "scenario", "n_total",
                        "prevalence", "n_pos").sort(["ties", "error"])


def markdown(frame: pl.DataFrame, worst: pl.DataFrame, n_sims: int) -> str:
    lines = [f"Bias ratio (mean estimate / true AUCPR), {n_sims} data sets per cell, `ties=\"interpolate\"`; "
             "rows: scenario and prevalence, columns: n + m (each cell: LT / AP / IM).", ""]
    sizes = sorted(frame["n_total"].unique().to_list())
    lines.append("| scenario | prevalence | " + " | ".join(str(n) for n in sizes) + " |")
    lines.append("|---|---|" + "---|" * len(sizes))
    inter = frame.filter(pl.col("ties") == "interpolate")
    for (scenario, prevalence), part in inter.group_by(["scenario", "prevalence"], maintain_order=True):
        cells = []
        for n in sizes:
            sub = part.filter(pl.col("n_total") == n)
            values = [sub.filter(pl.col("estimator") == e)["bias_ratio"] for e in CANDIDATES]
            cells.append(" / ".join(f"{v[0]:.3f}" if len(v) and v[0] == v[0] else "NA" for v in values))
        lines.append(f"| {scenario} | {prevalence} | " + " | ".join(cells) + " |")
    lines += ["", "Worst case over all cells, `|bias ratio - 1|` (Monte Carlo SE of the ratio in brackets):", "",
              "| ties | estimator | worst | bias ratio | where |", "|---|---|---|---|---|"]
    for row in worst.iter_rows(named=True):
        lines.append(f"| {row['ties']} | {row['estimator']} | {row['error']:.3f} | {row['bias_ratio']:.3f} "
                     f"({row['bias_ratio_se']:.3f}) | {row['scenario']}, prevalence {row['prevalence']}, "
                     f"n + m = {row['n_total']} ({row['n_pos']} positives) |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-sims", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=HERE / "default_estimator_results.json")
    args = parser.parse_args()
    start = time.perf_counter()
    frame = run(args.n_sims)
    worst = worst_case(frame)
    elapsed = time.perf_counter() - start
    args.out.write_text(json.dumps({"n_sims": args.n_sims, "seconds": round(elapsed, 1),
                                    "cells": frame.to_dicts(), "worst": worst.to_dicts()}, indent=1))
    print(markdown(frame, worst, args.n_sims))
    print(f"{elapsed:.0f} s")


if __name__ == "__main__":
    main()
