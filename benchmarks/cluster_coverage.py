r"""Coverage of cluster-aware and naive intervals for A' and average precision, with correlated rows.

Each data set has 150 clusters (patients) of 4 rows. Cluster ``c`` has a
random effect :math:`u_c \sim N(0, 1)` that enters both the outcome and the
score of its rows:

.. math::

    P(y = 1 \mid u) = \mathrm{expit}(\alpha + \beta u), \qquad
    s = (\mu + \delta u) y + \gamma u + \varepsilon, \quad \varepsilon \sim N(0, 1),

with ``alpha = -1``, ``beta = 2``, ``mu = 1``, ``delta = 1``, ``gamma = 1``
(prevalence about 0.35). Rows of a cluster share their outcome propensity,
part of their score and, for positives, how far they stand out, so a
row-level interval treats 600 correlated rows as independent and is too
narrow. (A shared shift of every score alone, ``delta = 0``, inflates the
variance of A' little: the positives' and the negatives' placements of a
cluster move in opposite directions and the covariance term cancels much
of it.)

The true values are those of the rows' marginal law (the limit of the
estimators as the number of clusters grows): A' and average precision of
one very large sample of independent rows (8 million by default; Monte
Carlo error about 1e-4).

For each data set (1,000 by default): the naive DeLong interval
(:func:`aucpr_stats.intervals.delong_se`), Obuchowski's cluster-robust
interval (:func:`aucpr_stats.intervals.obuchowski_components`), both as
``A' ± z SE`` and on the logit scale; the naive logit interval of average
precision with the binomial SE (the package default); and percentile
intervals of the cluster bootstrap
(:class:`aucpr_stats.resample.ClusterUnits`, with ``strata="none"`` and
``strata="composition"``) and of the naive stratified
row bootstrap (:func:`aucpr_stats.resample.bootstrap_estimates`), 500
replicates each, for A' and for average precision. Coverage is reported with
its Monte Carlo standard error ``sqrt(p (1 - p) / n)``, with the mean width.

Run: ``python benchmarks/cluster_coverage.py`` (about 2 minutes on one
thread; ``--quick``: 100 data sets, 200 replicates, about 10 seconds).
Results: ``cluster_coverage.md`` and ``cluster_coverage.json`` (``_quick``
suffix for the quick run).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from aucpr_stats.estimators.registry import records
from aucpr_stats.tables import tie_table_from_rows
from aucpr_stats.intervals import (
    delong_se,
    logit_interval,
    obuchowski_components,
    percentile_interval,
)
from aucpr_stats.intervals.closed_form import binomial_se, normal_quantile
from aucpr_stats.resample import (
    ClusterUnits,
    Streams,
    bootstrap_estimates,
    design_bootstrap_estimates,
)

HERE = Path(__file__).resolve().parent
ALPHA, BETA, MU, GAMMA, DELTA = -1.0, 2.0, 1.0, 1.0, 1.0


def simulate(rng: np.random.Generator, n_sets: int, n_clusters: int, size: int):
    """Rows of ``n_sets`` data sets: (data set, global cluster, outcome, score)."""
    n = n_sets * n_clusters * size
    cluster = np.repeat(np.arange(n_sets * n_clusters), size)
    u = rng.normal(size=n_sets * n_clusters)[cluster]
    y = rng.random(n) < 1.0 / (1.0 + np.exp(-(ALPHA + BETA * u)))
    s = (MU + DELTA * u) * y + GAMMA * u + rng.normal(size=n)
    return cluster // n_clusters, cluster, y, s


def truth(rng: np.random.Generator, n_rows: int, estimators) -> list[float]:
    """A' and average precision of one very large sample of independent rows (clusters of one)."""
    _, _, y, s = simulate(rng, 1, n_rows, 1)
    table = tie_table_from_rows(np.zeros(n_rows, dtype=np.int64), s, y, 1)
    return [float(fn(table)[0]) for fn in estimators]


def coverage(lower, upper, true_value) -> dict:
    covered = (lower <= true_value) & (true_value <= upper)
    p, n = float(np.mean(covered)), covered.size
    return {"coverage": p, "mc_se": float(np.sqrt(p * (1 - p) / n)), "mean_width": float(np.mean(upper - lower)),
            "n_sets": n}


def run(n_sets: int, n_boot: int, n_truth: int, seed: int, threads: int, n_clusters: int = 150,
        size: int = 4) -> dict:
    rng = np.random.default_rng(seed)
    a_rec = records("auroc", ["a_prime"], "interpolate")[0]
    ap_rec = records("aucpr", ["average_precision"], "interpolate")[0]
    true_a, true_ap = truth(rng, n_truth, [a_rec, ap_rec])

    data_set, cluster, y, s = simulate(rng, n_sets, n_clusters, size)
    group_ties = tie_table_from_rows(data_set, s, y, n_sets)
    units = tie_table_from_rows(cluster, s, y, n_sets * n_clusters)
    unit_group = np.arange(n_sets * n_clusters) // n_clusters
    z = normal_quantile(0.95)
    out: dict = {"true_a_prime": true_a, "true_average_precision": true_ap, "a_prime": {}, "average_precision": {}}

    auc, se = delong_se(group_ties)
    out["a_prime"]["naive DeLong (A' ± z SE)"] = coverage(auc - z * se, auc + z * se, true_a)
    lo, hi, _ = logit_interval(auc, se, 0.95)
    out["a_prime"]["naive DeLong, logit"] = coverage(lo, hi, true_a)
    ob = obuchowski_components(group_ties, units, unit_group)
    out["a_prime"]["Obuchowski (A' ± z SE)"] = coverage(auc - z * ob.se, auc + z * ob.se, true_a)
    lo, hi, _ = logit_interval(auc, ob.se, 0.95)
    out["a_prime"]["Obuchowski, logit"] = coverage(lo, hi, true_a)
    out["se_ratio_obuchowski_to_delong"] = float(np.mean(ob.se / se))

    ap = ap_rec(group_ties)
    lo, hi, _ = logit_interval(ap, binomial_se(ap, group_ties.n_pos), 0.95)
    out["average_precision"]["naive logit (binomial SE)"] = coverage(lo, hi, true_ap)

    for strata in ("none", "composition"):
        start = time.perf_counter()
        design = ClusterUnits(group_ties, units, unit_group, strata)
        reps = design_bootstrap_estimates(design, [a_rec, ap_rec], n_boot,
                                          Streams.for_segments(seed, n_sets, "bootstrap"), threads=threads)
        out[f"cluster_bootstrap_{strata}_seconds"] = time.perf_counter() - start
        key = f"cluster bootstrap (strata={strata!r}), percentile"
        for name, true_value, r in (("a_prime", true_a, reps[0]), ("average_precision", true_ap, reps[1])):
            lo, hi = percentile_interval(r, 0.95)
            out[name][key] = coverage(lo, hi, true_value)
        if strata == "none":
            out["sd_ratio_cluster_bootstrap_to_obuchowski"] = float(np.mean(np.nanstd(reps[0], axis=1) / ob.se))
    start = time.perf_counter()
    naive = bootstrap_estimates(group_ties, [a_rec, ap_rec], n_boot, streams=Streams.for_segments(seed, n_sets, "naive"),
                                threads=threads)
    out["row_bootstrap_seconds"] = time.perf_counter() - start
    for name, true_value, r in (("a_prime", true_a, naive[0]), ("average_precision", true_ap, naive[1])):
        lo, hi = percentile_interval(r, 0.95)
        out[name]["naive stratified row bootstrap, percentile"] = coverage(lo, hi, true_value)
    out["settings"] = {"n_sets": n_sets, "n_boot": n_boot, "n_truth_rows": n_truth, "seed": seed,
                       "clusters": n_clusters, "rows_per_cluster": size, "alpha": ALPHA, "beta": BETA, "mu": MU,
                       "gamma": GAMMA, "delta": DELTA, "mean_prevalence": float(np.mean(y))}
    return out


def markdown(result: dict, seconds: float) -> str:
    st = result["settings"]
    lines = [
        "# Cluster-aware intervals with correlated rows (benchmarks/cluster_coverage.py)",
        "",
        (f"{st['n_sets']} data sets of {st['clusters']} clusters x {st['rows_per_cluster']} rows; a shared "
        f"N(0, 1) cluster effect u in the outcome (logit {st['alpha']} + {st['beta']} u) and the score "
        f"(({st['mu']} + {st['delta']} u) y + {st['gamma']} u + N(0, 1)); mean prevalence {st['mean_prevalence']:.3f}. "
        f"Bootstraps: {st['n_boot']} replicates. True values from {st['n_truth_rows']:,} independent rows: "
        f"A' = {result['true_a_prime']:.4f}, average precision = {result['true_average_precision']:.4f}. "
        f"Nominal level 95%; MC SE = sqrt(p(1 - p)/n). Obuchowski's SE is on average "
        f"{result['se_ratio_obuchowski_to_delong']:.2f} times DeLong's; the cluster bootstrap's SD "
        f"(strata='none') {result['sd_ratio_cluster_bootstrap_to_obuchowski']:.2f} times Obuchowski's SE."),
        "",
        "| statistic | interval | coverage | MC SE | mean width |",
        "|---|---|---|---|---|",
    ]
    for stat in ("a_prime", "average_precision"):
        for name, row in result[stat].items():
            lines.append(f"| {stat} | {name} | {row['coverage']:.3f} | {row['mc_se']:.3f} | {row['mean_width']:.4f} |")
    lines += ["", ("Cluster-aware: Obuchowski's variance and the cluster bootstrap. `strata='none'` (the default of "
              "`ClusterUnits`) draws all clusters of a data set together; `strata='composition'` draws within "
              "the clusters holding positives only, negatives only and both, which fixes how many of each kind a "
              "replicate holds although that number goes with the cluster effect here, so it under-covers. The "
              "naive logit interval of average precision uses the binomial SE sqrt(AP (1 - AP) / n_pos) of Boyd "
              "et al., which does not model the rows' dependence but is wide enough here."),
              "", (f"Cluster bootstrap: {result['cluster_bootstrap_none_seconds']:.1f} s (strata='none'), "
              f"{result['cluster_bootstrap_composition_seconds']:.1f} s (strata='composition'); row bootstrap: "
              f"{result['row_bootstrap_seconds']:.1f} s (both estimators, all data sets); total {seconds:.0f} s."), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 data sets, 200 replicates")
    parser.add_argument("--n-sets", type=int, default=1000)
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--n-truth", type=int, default=8_000_000)
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    n_sets, n_boot, n_truth = (100, 200, 2_000_000) if args.quick else (args.n_sets, args.n_boot, args.n_truth)
    start = time.perf_counter()
    result = run(n_sets, n_boot, n_truth, args.seed, args.threads)
    seconds = time.perf_counter() - start
    result["seconds"] = seconds
    suffix = "_quick" if args.quick else ""
    (HERE / f"cluster_coverage{suffix}.json").write_text(json.dumps(result, indent=2) + "\n")
    text = markdown(result, seconds)
    (HERE / f"cluster_coverage{suffix}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
