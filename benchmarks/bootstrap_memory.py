"""Peak memory of a bootstrap over many groups (issue 15, item 4): 10^5 groups x 1,000 replicates within 1 GB.

Builds ``--groups`` groups of ``--rows`` rows each (prevalence 0.3, continuous
scores), then runs ``aucpr(...).conf_int(method="bootstrap", n_boot=...)``
with the chosen estimator, and prints the wall time and the process's peak
resident memory (``ru_maxrss``) before and after the bootstrap. The
replicates are held in batches of groups (``aucpr_stats.resample.budget``),
so the peak does not grow with groups x n_boot.

Run: ``python benchmarks/bootstrap_memory.py`` (defaults: 100,000 groups of
20 rows, 1,000 replicates, the default estimator; several minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np
import polars as pl

from aucpr_stats import aucpr
from aucpr_stats.estimators import DEFAULT_PR_ESTIMATOR


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=100_000)
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--estimator", default=DEFAULT_PR_ESTIMATOR)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    n = args.groups * args.rows
    y = rng.random(n) < 0.3
    frame = pl.DataFrame({"g": np.repeat(np.arange(args.groups), args.rows), "y": y, "s": rng.normal(size=n) + y})
    result = aucpr(frame, "y", "s", by="g", estimator=args.estimator)
    before = peak_mb()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = result.conf_int(method="bootstrap", n_boot=args.n_boot, seed=1)
    elapsed = time.perf_counter() - start
    print(f"{args.groups:,} groups x {args.rows} rows, {args.n_boot:,} replicates, {args.estimator}: "
          f"{elapsed:.0f} s; peak RSS {before:.0f} MB before the bootstrap, {peak_mb():.0f} MB after; "
          f"groups x n_boot x 8 bytes would be {args.groups * args.n_boot * 8 / 2**20:.0f} MB; "
          f"{int(ci['lower'].is_finite().sum()):,} finite intervals")


if __name__ == "__main__":
    main()
