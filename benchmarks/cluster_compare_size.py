"""Size of paired comparisons on clustered rows: cluster-aware tests against naive ones, by simulation.

Each data set has 150 patients of 4 rows. A shared N(0, 1) patient effect u
enters the outcome (logit -1 + 2u) and both scores; the two scores have the
same distribution given (u, y) (s = (1 + u) y + u + v + e, with a patient
effect v of each score, N(0, 0.8^2), and independent noise e per row), so their AUROCs and AUCPRs are equal (the null). For
each data set: the paired AUROC test with Obuchowski's covariance
(``compare(..., cluster="patient")``) and the naive paired DeLong test
(rows as independent); the paired AUCPR cluster bootstrap and the naive
paired row bootstrap (average precision, 300 replicates). Reported: the
share of p-values below 0.05 with its Monte Carlo SE sqrt(p (1 - p) / n).

All data sets of a run go through one call per test (``by="sim"``).
Run: ``python benchmarks/cluster_compare_size.py [--quick]`` (about 3 minutes;
``--quick`` 30 s). Results: ``cluster_compare_size_results.md``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats.compare import compare

HERE = Path(__file__).resolve().parent


def simulate(rng: np.random.Generator, n_sims: int, n_patients: int = 150, rows: int = 4) -> pl.DataFrame:
    sim = np.repeat(np.arange(n_sims), n_patients * rows)
    patient = np.repeat(np.arange(n_sims * n_patients), rows)
    u = rng.normal(size=n_sims * n_patients)[patient]
    y = rng.random(patient.size) < 1 / (1 + np.exp(1 - 2 * u))
    signal = (1 + u) * y + u
    # each score also reads each patient its own way (v_a, v_b): the difference is correlated within patients
    v_a, v_b = (rng.normal(scale=0.8, size=n_sims * n_patients)[patient] for _ in range(2))
    return pl.DataFrame({"sim": sim, "patient": patient, "y": y, "a": signal + v_a + rng.normal(size=y.size),
                         "b": signal + v_b + rng.normal(size=y.size)})


def _size(p: np.ndarray) -> tuple[float, float, int]:
    p = p[np.isfinite(p)]
    rate = float(np.mean(p < 0.05))
    return rate, float(np.sqrt(rate * (1 - rate) / p.size)), int(p.size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_sims, n_boot_sims, n_boot = (200, 40, 200) if args.quick else (2000, 400, 300)
    rng = np.random.default_rng(20261123)
    start = time.perf_counter()
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = simulate(rng, n_sims)
        for label, kwargs in (("Obuchowski (cluster-robust)", {"cluster": "patient"}), ("DeLong, rows as independent", {})):
            p = compare(df, "y", ["a", "b"], by="sim", metric="auroc", **kwargs).to_polars()["p_value"].to_numpy()
            rows.append(("AUROC", label, *_size(p)))
        small = df.filter(pl.col("sim") < n_boot_sims)
        for label, kwargs in (("cluster bootstrap", {"cluster": "patient"}), ("row bootstrap", {})):
            p = compare(small, "y", ["a", "b"], by="sim", metric="aucpr", estimator="average_precision",
                        n_boot=n_boot, seed=1, **kwargs).to_polars()["p_value"].to_numpy()
            rows.append(("AUCPR (average precision)", label, *_size(p)))
    seconds = time.perf_counter() - start
    lines = [f"Paired tests of equal areas on 150 patients x 4 rows (null true); nominal 5%; {seconds:.0f} s.", "",
             "| area | test | size | MC SE | data sets |", "|---|---|---:|---:|---:|"]
    lines += [f"| {a} | {t} | {100 * s:.1f}% | {100 * se:.1f} | {n} |" for a, t, s, se, n in rows]
    suffix = "_quick" if args.quick else ""
    (HERE / f"cluster_compare_size_results{suffix}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
