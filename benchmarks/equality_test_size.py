"""Size of the test that three or more areas are equal (``ComparisonResult.equality_test()``, Stata roccomp).

Model: k = 3 or 5 scores on the same rows, binormal with equal means (so equal AUROC and AUCPR: the null
holds) and correlation 0.5 between scores within each class; AUROC 0.75 or 0.95; prevalence 0.3; 30, 100
or 300 positives. AUROC by DeLong's covariance (the default); AUCPR by the paired jackknife's covariance (the
default) and by the paired bootstrap's (200 replicates). Each cell: ``--reps`` data sets (1000 by default; 300
for the bootstrap) from the stream ``[seed, cell]``.
The Monte Carlo standard error of a size near 0.05 is sqrt(0.05 * 0.95 / reps).

Usage::

    python benchmarks/equality_test_size.py --out benchmarks/equality_test_size_results.md
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import compare
from aucpr_stats.distributions import normal_quantile


def _data(gen, k: int, auc: float, n_pos: int, prevalence: float = 0.3) -> pl.DataFrame:
    n = int(round(n_pos / prevalence))
    mu = math.sqrt(2.0) * float(normal_quantile(auc))
    y = np.zeros(n, dtype=bool)
    y[:n_pos] = True
    cov = np.full((k, k), 0.5) + 0.5 * np.eye(k)
    scores = gen.multivariate_normal(np.zeros(k), cov, size=n) + mu * y[:, None]
    return pl.DataFrame({"y": y, **{f"s{i}": scores[:, i] for i in range(k)}})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--boot-reps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=3801)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    arms = (("auroc", "delong"), ("aucpr", "jackknife"), ("aucpr", "bootstrap"))
    cells = [(metric, source, k, auc, n_pos) for metric, source in arms for k in (3, 5) for auc in (0.75, 0.95)
             for n_pos in (30, 100, 300)]
    rows, start = [], time.perf_counter()
    for index, (metric, source, k, auc, n_pos) in enumerate(cells):
        gen = np.random.default_rng([args.seed, index])
        reps = args.boot_reps if source == "bootstrap" else args.reps
        rejected, tested = 0, 0
        for _ in range(reps):
            data = _data(gen, k, auc, n_pos)
            options = {"metric": "auroc"} if metric == "auroc" else {
                "n_boot": 200 if source == "bootstrap" else 20, "rng": int(gen.integers(2**31))}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = compare(data, "y", [f"s{i}" for i in range(k)], **options)
                test = result.equality_test(source).to_polars()
            p = test["p_value"][0]
            if p == p:
                tested += 1
                rejected += p < 0.05
        size = rejected / max(tested, 1)
        rows.append((metric, source, k, auc, n_pos, tested, size, math.sqrt(0.05 * 0.95 / max(tested, 1))))
    elapsed = time.perf_counter() - start
    lines = ["# Size of the k-sample equality test (nominal 5%)", "",
             f"Run time {elapsed:.0f} s. AUROC: DeLong covariance; AUCPR (average precision): the paired "
             "jackknife's covariance (the default) and the paired bootstrap's (200 replicates). Scores correlated "
             "0.5 within each class, prevalence 0.3.", "",
             "| metric | covariance | k | AUROC | positives | data sets | size | MC SE |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {m} | {v} | {k} | {a} | {n} | {t} | {s:.3f} | {e:.3f} |" for m, v, k, a, n, t, s, e in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
