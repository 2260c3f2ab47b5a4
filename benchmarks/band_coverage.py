"""Simultaneous coverage of the true binormal PR curve by the three band methods.

Scenario (Clémençon & Vayatis 2009 setting, Boyd et al. 2013 binormal):
negatives N(0, 1), positives N(1, 1), prevalence 0.1. Each simulated data set
has n i.i.d. rows, so the number of positives is Binomial(n, 0.1) (the
sampling model of the paper; ``--fixed-counts`` fixes it at 0.1 n instead).
A band covers when the true curve lies inside it at every grid recall in
[eps, 1 - eps] (201 evenly spaced recalls, eps = 0.05). A method name with the
suffix ``+studentized`` runs that bootstrap with ``studentize=True``.

The data sets of each sample size come from their own random stream
(``[seed, n]``) and each method's replicates from another (``[seed, n, k]``),
so the methods are compared on the same data sets and any subset of methods
reproduces the same numbers.

Usage::

    python benchmarks/band_coverage.py --sims 500 --n-boot 1000 --out docs/band_coverage.json

The simulated data sets of one sample size are the segments of one tie table,
and the bands are computed by the library (``PrCurveResult.band``, :mod:`aucpr_stats.curves.bands`),
exactly as ``pr_curve(...).band(...)`` does.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings

import numpy as np
import polars as pl

from aucpr_stats.curves import BAND_METHODS, PrCurveResult
from aucpr_stats.tables import tie_table_from_sorted
from aucpr_stats.simulate import Binormal

ALL_METHODS = (*BAND_METHODS, "smoothed_bootstrap+studentized", "bootstrap+studentized")


def simulate_ties(n: int, sims: int, prevalence: float, rng: np.random.Generator, fixed_counts: bool):
    """Tie table with one segment per simulated data set."""
    scenario = Binormal(mu=1.0)
    if fixed_counts:
        n_pos = np.full(sims, int(math.floor(prevalence * n + 0.5)))
    else:
        n_pos = rng.binomial(n, prevalence, size=sims)
    n_pos = np.clip(n_pos, 1, n - 1)  # a data set needs both classes (P(no positive) < 1e-22 here)
    groups, scores, labels = [], [], []
    for k in range(sims):
        pos, neg = scenario.sample_arrays(1, int(n_pos[k]), int(n - n_pos[k]), rng)
        s = np.concatenate([pos[0], neg[0]])
        y = np.concatenate([np.ones(pos.shape[1], bool), np.zeros(neg.shape[1], bool)])
        order = np.argsort(-s, kind="stable")
        groups.append(np.full(n, k))
        scores.append(s[order])
        labels.append(y[order])
    return tie_table_from_sorted(np.concatenate(groups), np.concatenate(scores), np.concatenate(labels), sims)


def run(sizes, sims, n_boot, prevalence, eps, n_grid, seed, fixed_counts, methods):
    grid = np.linspace(eps, 1 - eps, n_grid)
    truth = Binormal(mu=1.0).precision_at_recall(grid, prevalence)
    rows = []
    for n in sizes:
        ties = simulate_ties(n, sims, prevalence, np.random.default_rng([seed, n]), fixed_counts)
        keys = pl.DataFrame({"sim": np.arange(sims), "n_missing": np.zeros(sims, dtype=np.int64)})
        curve = PrCurveResult(ties=ties, keys=keys, by=("sim",), notes=(None,) * sims, frame_kind="polars",
                              outcome="y", score="s")
        for name in methods:
            method, _, variant = name.partition("+")
            root = np.random.SeedSequence([seed, n, ALL_METHODS.index(name)])  # each simulated set its own stream
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                band = curve.band(level=0.95, method=method, n_boot=n_boot, eps=eps, grid=grid, seed=root,
                                  studentize=variant == "studentized")
            elapsed = time.perf_counter() - start
            inside = (band.lower <= truth[None, :] + 1e-12) & (truth[None, :] <= band.upper + 1e-12)
            covered = inside.all(axis=1)
            cover = float(covered.mean())
            se = math.sqrt(cover * (1 - cover) / sims)
            width = float(np.mean(band.upper - band.lower))
            pointwise_cover = float(inside.mean())
            rows.append({
                "n": n, "method": name, "sims": sims, "n_boot": n_boot if method != "pointwise" else 0,
                "coverage": cover, "coverage_se": se, "mean_width": width,
                "pointwise_coverage": pointwise_cover,
                "mean_ess": float(np.nanmean(band.ess)) if method != "pointwise" else None,
                "seconds": elapsed,
            })
            print(f"n={n:>6} {name:<31} coverage={cover:.3f} (se {se:.3f})  mean width={width:.4f}  "
                  f"pointwise={pointwise_cover:.3f}  {elapsed:.1f}s", flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 10000])
    parser.add_argument("--sims", type=int, default=500)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--prevalence", type=float, default=0.1)
    parser.add_argument("--eps", type=float, default=0.05)
    parser.add_argument("--grid", type=int, default=201)
    parser.add_argument("--seed", type=int, default=20090614)
    parser.add_argument("--fixed-counts", action="store_true")
    parser.add_argument("--methods", nargs="+", default=list(ALL_METHODS), choices=ALL_METHODS)
    parser.add_argument("--out", default=None, help="write the table as JSON here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = run(args.sizes, args.sims, args.n_boot, args.prevalence, args.eps, args.grid, args.seed,
               args.fixed_counts, args.methods)
    meta = {"scenario": "binormal mu=1", "prevalence": args.prevalence, "eps": args.eps, "grid": args.grid,
            "fixed_counts": args.fixed_counts, "seed": args.seed, "total_seconds": time.perf_counter() - start}
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"meta": meta, "rows": rows}, fh, indent=1)
    print(f"total {meta['total_seconds']:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
