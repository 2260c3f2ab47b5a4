"""Time a 1,000-replicate smoothed bootstrap band (Algorithm 1) at n = 100,000 rows.

Usage::

    python benchmarks/band_timing.py [--n 100000] [--n-boot 1000] [--repeats 3]

Prints the time of ``pr_curve`` (ingest + tie table) and of ``.band()`` for each
method, best of ``--repeats``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl

from aucpr_stats.curves import pr_curve


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--prevalence", type=float, default=0.1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    y = rng.random(args.n) < args.prevalence
    df = pl.DataFrame({"y": y, "s": rng.normal(size=args.n) + y})

    def best(fn):
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - start)
        return min(times), out

    t_curve, curve = best(lambda: pr_curve(df, "y", "s"))
    print(f"n={args.n}, positives={int(y.sum())}: pr_curve {t_curve:.3f}s")
    for method in ("smoothed_bootstrap", "bootstrap", "pointwise"):
        t_band, band = best(lambda: curve.band(method=method, n_boot=args.n_boot, seed=1))
        print(f"  band method={method:<19} n_boot={args.n_boot}: {t_band:.3f}s  "
              f"(r_delta={band.r_delta[0]:.3f}, ess={band.ess[0]:.0f})")


if __name__ == "__main__":
    main()
