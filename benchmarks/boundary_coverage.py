"""Coverage of every interval method at and near the boundary (issue 14, item 4).

Binormal scenarios with a large separation (negatives N(0, 1), positives
N(mu, 1)), so the true areas are at least 0.97: ``mu = 3.5`` (near the
boundary: true AUCPR 0.978, AUROC 0.993) and ``mu = 5`` (at it: true AUCPR
0.9992, AUROC 0.9998, perfect separation in most small samples). AUCPR with
average precision (which is 1 under perfect separation) and with the
default estimator. Prevalence 0.2 (4 negatives per
positive); 5, 20 and 100 positives; ``--sims`` data sets per cell (1,000 by
default). Every data set is one group of one ``aucpr()`` / ``auroc()`` call,
so the intervals are exactly those of ``result.conf_int()``: with the
truncation, the boundary fallback (Wilson for AUCPR, Newcombe for AUROC) and
NaN where no interval can be formed. A NaN interval counts as not covering.

Writes ``benchmarks/boundary_coverage_results.md`` (the table of
``docs/intervals.md``, with Monte Carlo standard errors) and ``.json``.

    python benchmarks/boundary_coverage.py --sims 1000 --n-boot 500
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl
from scipy.special import ndtr

from aucpr_stats import aucpr, auroc
from aucpr_stats.simulate import Binormal

HERE = Path(__file__).parent
PREVALENCE = 0.2
SEPARATIONS = (3.5, 5.0)
ESTIMATORS = {"aucpr": ["average_precision", "interpolated_median"], "auroc": ["a_prime"]}
N_POS = (5, 20, 100)
METHODS = {"aucpr": ["logit", "binomial", "wilson", "bootstrap", "cross_validation"],
           "auroc": ["delong", "logit", "hanley_mcneil", "newcombe", "bootstrap"]}


def simulate(mu: float, n_pos: int, n_sims: int, rng: np.random.Generator) -> pl.DataFrame:
    n_neg = 4 * n_pos
    scenario = Binormal(mu=mu)
    pos, neg = scenario.sample_arrays(n_sims, n_pos, n_neg, rng)
    return pl.DataFrame({
        "sim": np.r_[np.repeat(np.arange(n_sims), n_pos), np.repeat(np.arange(n_sims), n_neg)],
        "y": np.r_[np.ones(n_sims * n_pos, dtype=bool), np.zeros(n_sims * n_neg, dtype=bool)],
        "s": np.r_[pos.ravel(), neg.ravel()],
    })


def cell(metric: str, mu: float, n_pos: int, n_sims: int, n_boot: int, seed: int) -> list[dict]:
    rng = np.random.default_rng([seed, int(mu * 10), n_pos, metric == "auroc"])
    data = simulate(mu, n_pos, n_sims, rng)
    truth = Binormal(mu=mu).true_aucpr(PREVALENCE) if metric == "aucpr" else float(ndtr(mu / math.sqrt(2.0)))
    fn = aucpr if metric == "aucpr" else auroc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fn(data, "y", "s", by="sim", estimator=ESTIMATORS[metric])
        options = {"folds": 5} if metric == "aucpr" else {}
        ci = result.conf_int_polars(method=METHODS[metric], n_boot=n_boot, seed=seed, **options)
    rows = []
    for (estimator, method), part in ci.group_by(["estimator", "method"], maintain_order=True):
        j = result.estimators.index(estimator)
        lower, upper = part["lower"].to_numpy(), part["upper"].to_numpy()
        with np.errstate(invalid="ignore"):
            covered = (lower <= truth) & (truth <= upper)
        note = part["note"].fill_null("")
        p = covered.mean()
        rows.append({
            "metric": metric, "mu": mu, "truth": truth, "n_pos": n_pos, "n_neg": 4 * n_pos, "method": method,
            "estimator": estimator, "sims": n_sims, "coverage": float(p),
            "mc_se": float(math.sqrt(p * (1 - p) / n_sims)),
            "nan": float(np.isnan(lower).mean()),
            "fallback": float(note.str.contains("boundary fallback").mean()),
            "truncated": float(note.str.contains("truncated").mean()),
            "width": float(np.nanmean(upper - lower)),
            "estimate_at_1": float((result.estimates[:, j] == 1.0).mean()),
        })
    return rows


def markdown(rows: list[dict]) -> str:
    out = []
    for metric, estimator in [("aucpr", e) for e in ESTIMATORS["aucpr"]] + [("auroc", "a_prime")]:
        sub = [r for r in rows if r["metric"] == metric and r["estimator"] == estimator]
        methods = METHODS[metric]
        out.append(f"**{metric.upper()}** (estimator `{estimator}`; coverage % (MC SE); "
                   "fb = share of data sets on the boundary fallback)\n")
        out.append("| true area | positives | estimate = 1 | " + " | ".join(f"`{m}`" for m in methods) + " |")
        out.append("| ---: | ---: | ---: | " + " | ".join("---:" for _ in methods) + " |")
        for mu in SEPARATIONS:
            for n_pos in N_POS:
                here = {r["method"]: r for r in sub if r["mu"] == mu and r["n_pos"] == n_pos}
                first = next(iter(here.values()))
                cells = []
                for m in methods:
                    r = here[m]
                    text = f"{100 * r['coverage']:.1f} ({100 * r['mc_se']:.1f})"
                    if r["fallback"] > 0.005 and m not in ("wilson", "newcombe"):
                        text += f" fb {100 * r['fallback']:.0f}%"
                    if r["nan"] > 0.005:
                        text += f" NaN {100 * r['nan']:.0f}%"
                    cells.append(text)
                out.append(f"| {first['truth']:.4f} | {n_pos} | {100 * first['estimate_at_1']:.0f}% | "
                           + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rows, start = [], time.time()
    for metric in ("aucpr", "auroc"):
        for mu in SEPARATIONS:
            for n_pos in N_POS:
                rows += cell(metric, mu, n_pos, args.sims, args.n_boot, args.seed)
                print(f"{metric} mu={mu} n_pos={n_pos}: {time.time() - start:.0f} s", flush=True)
    (HERE / "boundary_coverage_results.json").write_text(json.dumps(rows, indent=1) + "\n")
    table = markdown(rows)
    header = (f"Coverage of nominal 95% intervals, {args.sims} simulated data sets per cell, bootstrap "
              f"{args.n_boot} replicates, cross-validation 5 folds; binormal, prevalence {PREVALENCE}. "
              f"`python benchmarks/boundary_coverage.py --sims {args.sims} --n-boot {args.n_boot}`\n\n")
    (HERE / "boundary_coverage_results.md").write_text(header + table + "\n")
    print(table)


if __name__ == "__main__":
    main()
