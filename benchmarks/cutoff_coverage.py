"""Coverage of the cut-off intervals of ``aucpr_stats.cutoffs`` by simulation.

Binormal scores (negatives N(0, 1), positives N(mu, 1), mu = 1: AUROC 0.76),
so the true sensitivity and specificity at any threshold t are known:
Se(t) = 1 - Phi(t - mu), Sp(t) = Phi(t). Two designs:

* cohort: ``n_total`` rows, each positive with probability 0.2; PPV and NPV
  at the observed prevalence (binomial intervals on the called positives
  and negatives), true PPV and NPV at prevalence 0.2;
* case-control: fixed ``n_pos`` and ``n_neg = n_pos``; PPV and NPV at a
  given prevalence 0.02 (Bayes' theorem, logit delta-method interval).

Two thresholds: the fixed true Youden-optimal threshold ``mu / 2``, and the
threshold chosen on the same data by Youden's index (first of tied best
thresholds), whose *true* Se and Sp are the targets. All simulated data sets
of a cell go through one grouped ``cutoffs`` call (one group per data set).

Run: ``python benchmarks/cutoff_coverage.py`` (about a minute); writes
``benchmarks/cutoff_coverage_results.json`` and prints a Markdown table.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
from scipy.stats import norm

from aucpr_stats import cutoffs

MU = 1.0
COHORT_PREVALENCE = 0.2
TARGET_PREVALENCE = 0.02
N_SIM = 4000
SIZES = (10, 30, 100)  # positives (case-control) or expected positives (cohort)


def _truth(t: np.ndarray, prevalence: float) -> dict:
    se, sp = norm.sf(t - MU), norm.cdf(t)
    np.seterr(invalid="ignore", divide="ignore")  # +-inf thresholds: a predictive value is 0/0 there
    ppv = prevalence * se / (prevalence * se + (1 - prevalence) * (1 - sp))
    npv = (1 - prevalence) * sp / ((1 - prevalence) * sp + prevalence * (1 - se))
    return {"sensitivity": se, "specificity": sp, "ppv": ppv, "npv": npv}


def _frame(rng: np.random.Generator, design: str, n: int) -> pl.DataFrame:
    if design == "cohort":
        n_total = int(round(n / COHORT_PREVALENCE))
        y = (rng.random((N_SIM, n_total)) < COHORT_PREVALENCE).astype(np.int64)
    else:
        y = np.repeat(np.array([[1] * n + [0] * n]), N_SIM, axis=0)
    s = rng.standard_normal(y.shape) + MU * y
    sim = np.repeat(np.arange(N_SIM), y.shape[1])
    return pl.DataFrame({"sim": sim, "y": y.ravel(), "s": s.ravel()})


def cell(rng, design: str, n: int, method: str) -> list[dict]:
    frame = _frame(rng, design, n)
    prevalence = None if design == "cohort" else TARGET_PREVALENCE
    rows = []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cohort data sets without a positive: their rows are NaN and dropped
        out = cutoffs(frame, "y", "s", by="sim", threshold=["youden", MU / 2], method=method,
                      prevalence=prevalence).conf_int_polars()
    for kind, label in (("youden", "chosen by Youden"), ("value", "fixed at the optimum")):
        part = out.filter(pl.col("criterion") == kind)
        t = part.filter(pl.col("measure") == "sensitivity").unique("sim", keep="first", maintain_order=True)[
            "threshold"].to_numpy()
        truth = _truth(t, COHORT_PREVALENCE if prevalence is None else prevalence)
        for name in ("sensitivity", "specificity", "ppv", "npv"):
            if name in ("ppv", "npv") and prevalence is not None and method != "wilson":
                continue  # the Bayes interval does not depend on `method`
            # the long frame: one row per threshold and measure; the first threshold of each data set
            rows_of = part.filter(pl.col("measure") == name).unique("sim", keep="first", maintain_order=True)
            est, lo, hi = (rows_of[c].to_numpy() for c in ("estimate", "lower", "upper"))
            ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(truth[name])
            covered = (lo[ok] <= truth[name][ok]) & (truth[name][ok] <= hi[ok])
            c = float(covered.mean())
            rows.append({
                "design": design, "n": n, "method": method, "threshold": label, "quantity": name,
                "interval": ("logit (Bayes)" if name in ("ppv", "npv") and prevalence is not None else method),
                "n_valid": int(ok.sum()), "coverage": c, "coverage_se": float(np.sqrt(c * (1 - c) / ok.sum())),
                "mean_width": float(np.mean(hi[ok] - lo[ok])),
            })
    return rows


def main() -> None:
    rng = np.random.default_rng(20261123)
    start = time.time()
    rows = []
    for design in ("cohort", "case_control"):
        for n in SIZES:
            for method in ("wilson", "clopper_pearson"):
                rows.extend(cell(rng, design, n, method))
    here = Path(__file__).resolve().parent
    result = {"n_sim": N_SIM, "mu": MU, "cohort_prevalence": COHORT_PREVALENCE,
              "target_prevalence": TARGET_PREVALENCE, "level": 0.95, "seconds": round(time.time() - start, 1),
              "rows": rows}
    (here / "cutoff_coverage_results.json").write_text(json.dumps(result, indent=1))
    frame = pl.DataFrame(rows)
    print(f"n_sim = {N_SIM} per cell, {result['seconds']} s", file=sys.stderr)
    table = frame.with_columns(
        (pl.col("coverage").round(3).cast(pl.String) + " ± " + pl.col("coverage_se").round(3).cast(pl.String))
        .alias("cov")).pivot(on="n", index=["design", "threshold", "quantity", "interval"], values="cov")
    cols = table.columns
    print("| " + " | ".join(cols) + " |")
    print("|" + "|".join("---" for _ in cols) + "|")
    for r in table.iter_rows():
        print("| " + " | ".join(str(v) for v in r) + " |")


if __name__ == "__main__":
    main()
