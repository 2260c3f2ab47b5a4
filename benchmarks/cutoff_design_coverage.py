"""Coverage of cut-off intervals with several rows per patient and with sampling weights, by simulation.

Clusters: 150 patients of 4 rows, a shared N(0, 1) patient effect u in the
outcome (logit -1 + 2u) and the score ((1 + u) y + u + N(0, 1)), as in
``benchmarks/cluster_coverage.py``. Weights: independent rows, sampled with
probability 0.25 + 0.75 * (score > 0.5) among negatives (weights their
inverse). For each data set, sensitivity, specificity, PPV and NPV at the
threshold 0.5 with the Wilson interval, with and without the design
(``cutoffs(..., cluster=)`` / ``weights=``). Truth from 4,000,000 rows of the
population. Coverage with its Monte Carlo SE sqrt(p (1 - p) / n).

Run: ``python benchmarks/cutoff_design_coverage.py`` (about 20 s).
Results: ``cutoff_design_coverage_results.md``.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import cutoffs

HERE = Path(__file__).resolve().parent
T = 0.5
N_SIMS = 1000


def clustered(rng, n_sims, n_patients=150, rows=4):
    patient = np.repeat(np.arange(n_sims * n_patients), rows)
    u = rng.normal(size=n_sims * n_patients)[patient]
    y = rng.random(patient.size) < 1 / (1 + np.exp(1 - 2 * u))
    s = (1 + u) * y + u + rng.normal(size=y.size)
    return pl.DataFrame({"sim": patient // n_patients, "patient": patient, "y": y, "s": s})


def weighted(rng, n_sims, n=600):
    y = rng.random(n_sims * n) < 0.3
    s = rng.normal(size=y.size) + y
    p = np.where(y, 1.0, 0.25 + 0.75 * (s > T))
    keep = rng.random(y.size) < p
    sim = np.repeat(np.arange(n_sims), n)
    return pl.DataFrame({"sim": sim[keep], "y": y[keep], "s": s[keep], "w": 1 / p[keep]})


def truths(frame: pl.DataFrame, weight: str | None = None) -> dict:
    w = frame[weight].to_numpy() if weight else np.ones(frame.height)
    y, called = frame["y"].to_numpy(), frame["s"].to_numpy() >= T
    return {"sensitivity": np.sum(w * (y & called)) / np.sum(w * y),
            "specificity": np.sum(w * (~y & ~called)) / np.sum(w * ~y),
            "ppv": np.sum(w * (y & called)) / np.sum(w * called),
            "npv": np.sum(w * (~y & ~called)) / np.sum(w * ~called)}


def coverage(frame: pl.DataFrame, truth: dict) -> dict:
    out = {}
    for name, value in truth.items():
        lower, upper = frame[f"{name}_lower"].to_numpy(), frame[f"{name}_upper"].to_numpy()
        rate = float(np.mean((lower <= float(value)) & (float(value) <= upper)))
        out[name] = (rate, float(np.sqrt(rate * (1 - rate) / frame.height)))
    return out


def main() -> None:
    rng = np.random.default_rng(20261123)
    start = time.perf_counter()
    warnings.simplefilter("ignore")
    rows = []
    population = clustered(rng, 1, n_patients=1_000_000)
    truth = truths(population)
    data = clustered(rng, N_SIMS)
    for label, kwargs in (("clusters: cluster=", {"cluster": "patient"}), ("clusters: rows as independent", {})):
        rows.append((label, coverage(cutoffs(data, "y", "s", by="sim", threshold=[T], **kwargs).to_polars(), truth)))
    big = weighted(rng, 1, n=4_000_000)
    truth = truths(big, "w")
    data = weighted(rng, N_SIMS)
    for label, kwargs in (("sampling weights: weights=", {"weights": "w"}),):
        rows.append((label, coverage(cutoffs(data, "y", "s", by="sim", threshold=[T], **kwargs).to_polars(), truth)))
    seconds = time.perf_counter() - start
    names = ["sensitivity", "specificity", "ppv", "npv"]
    lines = [f"Wilson 95% intervals at the threshold {T}, {N_SIMS} data sets per design; {seconds:.0f} s.", "",
             "| design | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    lines += [f"| {label} | " + " | ".join(f"{100 * c[n][0]:.1f}% ({100 * c[n][1]:.1f})" for n in names) + " |"
              for label, c in rows]
    (HERE / "cutoff_design_coverage_results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
