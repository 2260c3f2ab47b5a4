"""Coverage of the clustered defaults by the number of clusters: the evidence behind ``min_clusters``.

Usage::

    python benchmarks/cluster_count_coverage.py             # 1,000 data sets per cell, a few minutes
    python benchmarks/cluster_count_coverage.py --sims 200  # a quick look

The data are those of ``benchmarks/cluster_coverage.py`` (a random effect per cluster in the
outcome and the score, 4 rows per cluster, prevalence about 0.35, strong within-cluster
dependence), with 15 to 300 clusters per data set. Every data set goes through the public
calls a user makes, ``auroc(frame, ..., by="sim", cluster="cluster").conf_int()`` (Obuchowski's
cluster-robust interval, the AUROC default with clusters) and
``aucpr(..., estimator="average_precision", cluster="cluster").conf_int(n_boot=...)`` (the
cluster bootstrap, the AUCPR default with clusters); the truths are those of the rows' marginal
law (one sample of 8 million independent rows). Reported per cell: coverage with its Monte Carlo
SE, the share of intervals flagged (small sample, few clusters) and the coverage of the
unflagged ones.

Writes ``benchmarks/cluster_count_coverage_results.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's package, whatever is installed
sys.path.insert(0, str(HERE))

CLUSTERS = (15, 30, 50, 100, 200, 300)


def cell(rng: np.random.Generator, n_sims: int, n_clusters: int, truths: dict, n_boot: int, seed: int) -> dict:
    import polars as pl

    from aucpr_stats import aucpr, auroc
    from cluster_coverage import simulate

    data_set, cluster, y, s = simulate(rng, n_sims, n_clusters, 4)
    frame = pl.DataFrame({"sim": data_set, "cluster": cluster, "y": y, "s": s})
    row: dict = {"clusters": n_clusters, "rows": 4 * n_clusters, "n_sims": n_sims,
                 "mean_positives": float(y.sum() / n_sims)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        calls = {"auroc obuchowski": (auroc(frame, "y", "s", by="sim", cluster="cluster").conf_int(), "a_prime"),
                 "aucpr cluster bootstrap": (
                     aucpr(frame, "y", "s", by="sim", cluster="cluster", estimator="average_precision")
                     .conf_int(n_boot=n_boot, rng=seed), "average_precision")}
    for name, (ci, truth_key) in calls.items():
        lo, hi = ci["lower"].to_numpy(), ci["upper"].to_numpy()
        truth = truths[truth_key]
        ok = np.isfinite(lo) & np.isfinite(hi)
        hit = (lo <= truth) & (truth <= hi)
        flagged = ci["note"].fill_null("").str.contains("small sample").to_numpy()
        cov = float(hit[ok].mean())
        row[name] = {"coverage": cov, "mc_se": float(np.sqrt(cov * (1 - cov) / ok.sum())),
                     "flagged": float(flagged.mean()),
                     "unflagged_coverage": float(hit[ok & ~flagged].mean()) if (ok & ~flagged).any() else None,
                     "mean_width": float((hi[ok] - lo[ok]).mean())}
    return row


def render(results: dict) -> str:
    meta = results["meta"]
    lines = ["# Coverage of the clustered defaults by the number of clusters", "",
             f"`python benchmarks/cluster_count_coverage.py` ({meta['n_sims']:,} data sets per cell, "
             f"{meta['n_boot']} bootstrap replicates, {meta['wall_seconds']:.0f} s, {meta['date']}); the data of "
             "`benchmarks/cluster_coverage.py` (4 rows per cluster, a shared random effect in outcome and score, "
             f"prevalence about 0.35). True A' {meta['truths']['a_prime']:.4f}, average precision "
             f"{meta['truths']['average_precision']:.4f}.", "",
             "| clusters | positives (mean) | AUROC, Obuchowski: coverage (SE) | flagged | AUCPR, cluster bootstrap: "
             "coverage (SE) | flagged |", "|---:|---:|---:|---:|---:|---:|"]
    for c in results["cells"]:
        a, b = c["auroc obuchowski"], c["aucpr cluster bootstrap"]
        lines.append(f"| {c['clusters']} | {c['mean_positives']:.0f} | {100 * a['coverage']:.1f} "
                     f"({100 * a['mc_se']:.1f}) | {100 * a['flagged']:.0f}% | {100 * b['coverage']:.1f} "
                     f"({100 * b['mc_se']:.1f}) | {100 * b['flagged']:.0f}% |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2029)
    parser.add_argument("--out", type=Path, default=HERE / "cluster_count_coverage_results.json")
    args = parser.parse_args(argv)
    from aucpr_stats.estimators.registry import records
    from cluster_coverage import truth

    start = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    a_rec = records("auroc", ["a_prime"], "interpolate")[0]
    ap_rec = records("aucpr", ["average_precision"], "interpolate")[0]
    true_a, true_ap = truth(rng, 8_000_000, [a_rec, ap_rec])
    truths = {"a_prime": true_a, "average_precision": true_ap}
    cells = []
    for n_clusters in CLUSTERS:
        cells.append(cell(rng, args.sims, n_clusters, truths, args.n_boot, args.seed))
        print(json.dumps(cells[-1]), flush=True)
    results = {"meta": {"n_sims": args.sims, "n_boot": args.n_boot, "seed": args.seed, "truths": truths,
                        "wall_seconds": time.perf_counter() - start, "date": time.strftime("%Y-%m-%d")},
               "cells": cells}
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(render(results))
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
