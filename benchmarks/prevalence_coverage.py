"""Estimates at a stated prevalence from case-control samples: bias and interval coverage, by simulation.

A cohort with prevalence ``pi`` (0.02 or 0.005) has binormal scores
(negatives N(0, 1), positives N(mu, 1), mu in {1, 2}); its true AUCPR is the
area under the true PR curve at ``pi`` (:meth:`Scenario.true_aucpr`). A
(nested) case-control study takes ``n_pos`` cases (50, 200 or 1,000) and
``controls`` controls per case (4 or 20), sample prevalence 0.2 or 0.048: its unweighted
AUCPR estimates the area at 0.2, not the cohort's. For each cell, 1,000
samples; every estimator is computed with ``prevalence=pi`` (the negatives
reweighted, :mod:`aucpr_stats.estimators.prevalence`) and compared with the
cohort's true area: mean bias, and the coverage of the logit interval (the
default) and of the stratified bootstrap percentile interval (200 samples
per cell, 400 replicates), each with its Monte Carlo standard error
``sqrt(p (1 - p) / n)``. The unweighted estimate's bias is reported beside.

Run: ``python benchmarks/prevalence_coverage.py [--quick]`` (about 10 minutes;
``--quick`` about 1 minute). Results: ``prevalence_coverage_results.md``/``.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from aucpr_stats.estimators.registry import records
from aucpr_stats.intervals.bootstrap import percentile_interval
from aucpr_stats.intervals.closed_form import binomial_se, logit_interval
from aucpr_stats.resample import bootstrap_estimates
from aucpr_stats.simulate.scenarios import Binormal
from aucpr_stats.simulate.studies import simulate_ties

HERE = Path(__file__).resolve().parent
ESTIMATORS = ("interpolated_median", "average_precision")


def _cell(rng, mu, pi, n_pos, controls, n_sims, n_boot_sims, n_boot):
    scenario = Binormal(mu=mu)
    truth = scenario.true_aucpr(pi)
    pos, neg = scenario.sample_arrays(n_sims, n_pos, controls * n_pos, rng)
    ties = simulate_ties(pos, neg)
    weighted = records("aucpr", list(ESTIMATORS), prevalence=pi)
    plain = records("aucpr", list(ESTIMATORS))
    rows = []
    for j, name in enumerate(ESTIMATORS):
        est = weighted[j](ties)
        raw = plain[j](ties)
        lower, upper, _ = logit_interval(est, binomial_se(est, np.full(n_sims, n_pos)), 0.95)
        logit_cover = np.mean((lower <= truth) & (truth <= upper))
        part = ties.take(np.arange(n_boot_sims))
        reps = bootstrap_estimates(part, weighted[j], n_boot, seed=int(rng.integers(2**31)))
        b_lo, b_hi = percentile_interval(reps, 0.95)
        boot_cover = np.mean((b_lo <= truth) & (truth <= b_hi))
        rows.append({
            "mu": mu, "prevalence": pi, "n_pos": n_pos, "controls_per_case": controls, "estimator": name,
            "truth": truth, "mean_estimate": float(est.mean()), "bias": float(est.mean() - truth),
            "bias_mc_se": float(est.std(ddof=1) / np.sqrt(n_sims)),
            "unweighted_bias": float(raw.mean() - truth),
            "logit_coverage": float(logit_cover), "logit_mc_se": float(np.sqrt(logit_cover * (1 - logit_cover) / n_sims)),
            "n_sims": n_sims,
            "bootstrap_coverage": float(boot_cover),
            "bootstrap_mc_se": float(np.sqrt(boot_cover * (1 - boot_cover) / n_boot_sims)),
            "n_boot_sims": n_boot_sims,
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_sims, n_boot_sims, n_boot = (100, 40, 100) if args.quick else (1000, 200, 400)
    rng = np.random.default_rng(20261123)
    start = time.perf_counter()
    rows = []
    for mu in (1.0, 2.0):
        for pi in (0.02, 0.005):
            for controls in (4, 20):
                for n_pos in (50, 200, 1000):
                    rows += _cell(rng, mu, pi, n_pos, controls, n_sims, n_boot_sims, n_boot)
    seconds = time.perf_counter() - start
    suffix = "_quick" if args.quick else ""
    (HERE / f"prevalence_coverage_results{suffix}.json").write_text(json.dumps({"rows": rows, "seconds": seconds},
                                                                                 indent=1))
    lines = [f"Case-control samples estimated at the cohort prevalence; {seconds:.0f} s.", "",
             "| mu | cohort prevalence | controls per case | cases | estimator | true AUCPR | bias (MC se) | unweighted bias | "
             "logit coverage (MC se) | bootstrap coverage (MC se) |",
             "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['mu']:g} | {r['prevalence']:g} | {r['controls_per_case']} | {r['n_pos']} | {r['estimator']} | {r['truth']:.4f} | "
                     f"{r['bias']:+.4f} ({r['bias_mc_se']:.4f}) | {r['unweighted_bias']:+.4f} | "
                     f"{100 * r['logit_coverage']:.1f}% ({100 * r['logit_mc_se']:.1f}) | "
                     f"{100 * r['bootstrap_coverage']:.1f}% ({100 * r['bootstrap_mc_se']:.1f}) |")
    (HERE / f"prevalence_coverage_results{suffix}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
