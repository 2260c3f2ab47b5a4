r"""Coverage of the linearisation ("influence") intervals under three designs, by simulation.

(a) **Informative sampling weights.** A finite population of 200,000 rows,
prevalence 0.05, binormal scores (negatives N(0, 1), positives N(1.5, 1)).
A sample is drawn row by row (Poisson sampling) with inclusion probability
``q = min(1, c * exp(0.7 s) * (4 if positive else 1))``: high scores and
positives are over-sampled, so the unweighted estimates are biased. Weights
``1 / q``. Truth: the population's average precision and A'. Methods:
``aucpr(df, "y", "s", by="set", weights="w", estimator="average_precision")``
with ``conf_int(method="influence")``, the weighted bootstrap
(``method="bootstrap"``) and the closed-form logit with Kish effective
counts (``method="logit"``); the unweighted logit and influence intervals
as a reference. For A': the weighted DeLong (``"delong"``, ``"logit"``) and
the weighted bootstrap; the unweighted DeLong.

(b) **Case-control at a stated prevalence**, the design of
``prevalence_coverage.py``: a cohort of prevalence ``pi``, binormal scores
N(0, 1) / N(mu, 1), ``n_pos`` cases and ``controls`` controls per case,
``prevalence=pi``. The influence interval (every data set) against the
stratified bootstrap (a subset) and the binomial logit interval.

(d) **Independent rows** with the class sizes fixed, as in the validation
report (``validation.py``): binormal mu = 1, prevalence 0.1 and 0.01, 5 to
200 positives, no stated prevalence. The influence variance treats the class
of a row as random (a cohort), so here it is somewhat conservative.

(c) **Clusters**, the design of ``cluster_coverage.py`` (150 clusters of 4
rows with a shared random effect in outcome and score): the influence
interval of average precision with ``cluster=``, against the naive
row-level influence interval; the truth is read from
``cluster_coverage.json`` (8 million independent rows).

Coverage is reported with its Monte Carlo standard error
``sqrt(p (1 - p) / n)``, with the mean width and, for the influence
variance, the ratio of its mean to the Monte Carlo variance of the estimate.

Run: ``python benchmarks/design_coverage.py [--quick]`` (about 6 minutes;
``--quick`` under a minute). Results: ``design_coverage_results.md``/``.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import aucpr, auroc
from aucpr_stats.estimators.registry import records
from aucpr_stats.tables import tie_table_from_rows
from aucpr_stats.intervals import logit_interval, percentile_interval
from aucpr_stats.intervals.closed_form import binomial_se
from aucpr_stats.intervals.linearisation import (
    average_precision_gradient,
    influence_variance,
)
from aucpr_stats.resample import bootstrap_estimates
from aucpr_stats.simulate.scenarios import Binormal
from aucpr_stats.simulate.studies import simulate_ties

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cluster_coverage import simulate as simulate_clusters  # the same generator


def coverage(lower, upper, truth) -> dict:
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    ok = ~(np.isnan(lower) | np.isnan(upper))
    covered = (lower[ok] <= truth) & (truth <= upper[ok])
    p, n = float(np.mean(covered)), int(covered.size)
    return {"coverage": p, "mc_se": float(np.sqrt(p * (1 - p) / n)), "mean_width": float(np.mean(upper[ok] - lower[ok])),
            "n_sets": n, "undefined": int((~ok).sum())}


# ----------------------------------------------------------------- (a) weights
def population(rng, size=200_000, prevalence=0.05, mu=1.5):
    y = rng.random(size) < prevalence
    s = rng.normal(size=size) + mu * y
    table = tie_table_from_rows(np.zeros(size, dtype=np.int64), s, y, 1)
    return y, s, float(records("aucpr", ["average_precision"])[0](table)[0]), \
        float(records("auroc", ["a_prime"])[0](table)[0])


def weighted_cell(rng, pop, base, n_sets, n_boot, boot_sets):
    y, s, true_ap, true_auc = pop
    q = np.minimum(1.0, base * np.exp(0.7 * s) * np.where(y, 4.0, 1.0))
    frames = []
    for k in range(n_sets):
        take = rng.random(y.size) < q
        frames.append(pl.DataFrame({"set": np.full(take.sum(), k), "y": y[take].astype(np.int8), "s": s[take],
                                    "w": 1.0 / q[take]}))
    df = pl.concat(frames)
    out = {"truth_ap": true_ap, "truth_auroc": true_auc, "mean_rows": df.height / n_sets,
           "mean_positives": float(df["y"].sum()) / n_sets, "average_precision": {}, "a_prime": {}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = aucpr(df, "y", "s", by="set", weights="w", estimator="average_precision")
        naive = aucpr(df, "y", "s", by="set", estimator="average_precision")
        est = w.estimates[:, 0]
        out["ap_bias"] = float(est.mean() - true_ap)
        out["ap_unweighted_bias"] = float(naive.estimates[:, 0].mean() - true_ap)
        frames = {"influence (weights)": w.conf_int_polars(method="influence"),
                  "logit, Kish counts (weights)": w.conf_int_polars(method="logit"),
                  "unweighted influence": naive.conf_int_polars(method="influence"),
                  "unweighted logit (binomial)": naive.conf_int_polars(method="logit")}
        for name, f in frames.items():
            out["average_precision"][name] = coverage(f["lower"], f["upper"], true_ap)
        se = frames["influence (weights)"]["se"].to_numpy()
        out["ap_variance_ratio"] = float(np.nanmean(se ** 2) / np.var(est, ddof=1))
        part = df.filter(pl.col("set") < boot_sets)
        f = aucpr(part, "y", "s", by="set", weights="w", estimator="average_precision").conf_int_polars(
            method="bootstrap", n_boot=n_boot, seed=1)
        out["average_precision"]["weighted bootstrap"] = coverage(f["lower"], f["upper"], true_ap)

        a = auroc(df, "y", "s", by="set", weights="w")
        out["auroc_bias"] = float(a.estimates[:, 0].mean() - true_auc)
        for method in ("delong", "logit"):
            f = a.conf_int_polars(method=method)
            out["a_prime"][f"weighted {method}"] = coverage(f["lower"], f["upper"], true_auc)
            if method == "delong":
                out["auroc_variance_ratio"] = float(np.nanmean(f["se"].to_numpy() ** 2) / np.var(a.estimates[:, 0], ddof=1))
        f = auroc(df, "y", "s", by="set").conf_int_polars(method="delong")
        out["a_prime"]["unweighted delong"] = coverage(f["lower"], f["upper"], true_auc)
        f = auroc(part, "y", "s", by="set", weights="w").conf_int_polars(method="bootstrap", n_boot=n_boot, seed=1)
        out["a_prime"]["weighted bootstrap"] = coverage(f["lower"], f["upper"], true_auc)
    return out


# ------------------------------------------------------------ (b) prevalence
def prevalence_cell(rng, mu, pi, n_pos, controls, n_sims, boot_sets, n_boot):
    scenario = Binormal(mu=mu)
    truth = scenario.true_aucpr(pi)
    pos, neg = scenario.sample_arrays(n_sims, n_pos, controls * n_pos, rng)
    ties = simulate_ties(pos, neg)
    gradient = average_precision_gradient(ties, "interpolate", pi)
    est = gradient.estimate
    se = influence_variance(ties, gradient).se
    out = {"mu": mu, "prevalence": pi, "n_pos": n_pos, "controls_per_case": controls, "truth": truth,
           "bias": float(est.mean() - truth), "variance_ratio": float(np.mean(se ** 2) / np.var(est, ddof=1))}
    lo, hi, _ = logit_interval(est, se, 0.95)
    out["influence"] = coverage(lo, hi, truth)
    lo, hi, _ = logit_interval(est, binomial_se(est, np.full(n_sims, n_pos)), 0.95)
    out["logit (binomial)"] = coverage(lo, hi, truth)
    record = records("aucpr", ["average_precision"], prevalence=pi)[0]
    reps = bootstrap_estimates(ties.take(np.arange(boot_sets)), record, n_boot, seed=int(rng.integers(2**31)))
    lo, hi = percentile_interval(reps, 0.95)
    out["bootstrap"] = coverage(lo, hi, truth)
    return out


# ------------------------------------------------------------------ (d) rows
def rows_cell(rng, pi, n_pos, n_sims, mu=1.0):
    """Independent rows with the class sizes fixed (the validation report's design), no stated prevalence."""
    scenario = Binormal(mu=mu)
    truth = scenario.true_aucpr(pi)
    pos, neg = scenario.sample_arrays(n_sims, n_pos, round(n_pos * (1 - pi) / pi), rng)
    ties = simulate_ties(pos, neg)
    gradient = average_precision_gradient(ties)
    est = gradient.estimate
    se = influence_variance(ties, gradient).se
    lo, hi, _ = logit_interval(est, se, 0.95)
    return {"prevalence": pi, "n_pos": n_pos, "truth": truth, "bias": float(est.mean() - truth),
            "variance_ratio": float(np.mean(se ** 2) / np.var(est, ddof=1)), "influence": coverage(lo, hi, truth)}


# -------------------------------------------------------------- (c) clusters
def cluster_cell(rng, n_sets, n_clusters=150, size=4):
    truth = json.loads((HERE / "cluster_coverage.json").read_text())["true_average_precision"]
    data_set, cluster, y, s = simulate_clusters(rng, n_sets, n_clusters, size)
    group_ties = tie_table_from_rows(data_set, s, y, n_sets)
    units = tie_table_from_rows(cluster, s, y, n_sets * n_clusters)
    unit_group = np.arange(n_sets * n_clusters) // n_clusters
    gradient = average_precision_gradient(group_ties)
    est = gradient.estimate
    clustered = influence_variance(group_ties, gradient, clusters=units, cluster_group=unit_group).se
    naive = influence_variance(group_ties, gradient).se
    out = {"truth": truth, "bias": float(est.mean() - truth),
           "variance_ratio": float(np.mean(clustered ** 2) / np.var(est, ddof=1)),
           "naive_variance_ratio": float(np.mean(naive ** 2) / np.var(est, ddof=1))}
    for name, se in (("influence (cluster=)", clustered), ("naive row influence", naive)):
        lo, hi, _ = logit_interval(est, se, 0.95)
        out[name] = coverage(lo, hi, truth)
    return out


def pct(c: dict) -> str:
    return f"{100 * c['coverage']:.1f}% ({100 * c['mc_se']:.1f})"


def markdown(result: dict) -> str:
    lines = [(f"Design coverage of the influence intervals (nominal 95%); {result['seconds']:.0f} s. "
              "Coverage (Monte Carlo SE) in percent; `var ratio` = mean estimated variance / Monte Carlo variance."), "",
             "## (a) Informative sampling weights", "",
             "| positives (mean) | rows (mean) | AP truth | AP bias, weighted / unweighted | method | AP coverage | AP width |",
             "|---:|---:|---:|---:|---|---:|---:|"]
    for cell in result["weights"]:
        for name, c in cell["average_precision"].items():
            lines.append(f"| {cell['mean_positives']:.0f} | {cell['mean_rows']:.0f} | {cell['truth_ap']:.4f} | "
                         f"{cell['ap_bias']:+.4f} / {cell['ap_unweighted_bias']:+.4f} | {name} | {pct(c)} | "
                         f"{c['mean_width']:.3f} |")
    lines += ["", "Influence var ratio (AP): " + ", ".join(f"{c['ap_variance_ratio']:.2f}" for c in result["weights"])
              + "; weighted DeLong var ratio (A'): " + ", ".join(f"{c['auroc_variance_ratio']:.2f}" for c in result["weights"]),
              "", "| positives (mean) | A' truth | A' bias | method | A' coverage | A' width |", "|---:|---:|---:|---|---:|---:|"]
    for cell in result["weights"]:
        for name, c in cell["a_prime"].items():
            lines.append(f"| {cell['mean_positives']:.0f} | {cell['truth_auroc']:.4f} | {cell['auroc_bias']:+.4f} | "
                         f"{name} | {pct(c)} | {c['mean_width']:.3f} |")
    lines += ["", "## (b) Case-control at a stated prevalence (average precision)", "",
              "| mu | prevalence | controls/case | cases | truth | bias | var ratio | influence | logit (binomial) | bootstrap |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in result["prevalence"]:
        lines.append(f"| {c['mu']:g} | {c['prevalence']:g} | {c['controls_per_case']} | {c['n_pos']} | {c['truth']:.4f} | "
                     f"{c['bias']:+.4f} | {c['variance_ratio']:.2f} | {pct(c['influence'])} | "
                     f"{pct(c['logit (binomial)'])} | {pct(c['bootstrap'])} |")
    c = result["clusters"]
    lines += ["", "## (c) 150 clusters of 4 rows (average precision)", "",
              (f"Truth {c['truth']:.4f}, bias {c['bias']:+.4f}; var ratio: cluster {c['variance_ratio']:.2f}, "
               f"naive rows {c['naive_variance_ratio']:.2f}."), "",
              "| method | coverage | width |", "|---|---:|---:|"]
    for name in ("influence (cluster=)", "naive row influence"):
        lines.append(f"| {name} | {pct(c[name])} | {c[name]['mean_width']:.3f} |")
    lines += ["", "## (d) Independent rows, class sizes fixed (binormal mu = 1, no stated prevalence)", "",
              "| prevalence | positives | truth | bias | var ratio | influence coverage | width |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for c in result["rows"]:
        lines.append(f"| {c['prevalence']:g} | {c['n_pos']} | {c['truth']:.4f} | {c['bias']:+.4f} | "
                     f"{c['variance_ratio']:.2f} | {pct(c['influence'])} | {c['influence']['mean_width']:.3f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = args.quick
    n_w, boot_w, n_boot = (60, 30, 100) if quick else (600, 300, 300)
    n_p, boot_p = (100, 30) if quick else (1000, 200)
    n_c = 100 if quick else 1000
    n_r = 100 if quick else 1000
    rng = np.random.default_rng(20261124)
    start = time.perf_counter()
    pop = population(rng)
    result = {"weights": [], "prevalence": [], "settings": {"quick": quick}}
    for base in (0.0004, 0.002, 0.008):
        result["weights"].append(weighted_cell(rng, pop, base, n_w, n_boot, boot_w))
    for mu, pi, controls, n_pos in ((1.0, 0.02, 20, 50), (1.0, 0.02, 20, 200), (1.0, 0.02, 20, 1000),
                                    (1.0, 0.02, 4, 200), (2.0, 0.005, 20, 200), (2.0, 0.02, 4, 1000)):
        result["prevalence"].append(prevalence_cell(rng, mu, pi, n_pos, controls, n_p, boot_p, n_boot))
    result["clusters"] = cluster_cell(rng, n_c)
    result["rows"] = [rows_cell(rng, pi, n_pos, n_r if pi > 0.05 else n_r // 2)
                      for pi in (0.1, 0.01) for n_pos in (5, 10, 20, 50, 100, 200)]
    result["seconds"] = time.perf_counter() - start
    suffix = "_quick" if quick else ""
    (HERE / f"design_coverage_results{suffix}.json").write_text(json.dumps(result, indent=1))
    text = markdown(result)
    (HERE / f"design_coverage_results{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
