"""Tutorial 04: reproduce the simulation study of Boyd, Eng & Page (2013), section 4.

Which AUCPR estimator should you report, and which confidence interval?
Boyd et al. answered with simulated data whose true AUCPR is known. This
script reruns their study with the very code you use on your data:

1. the three scenarios and their true PR curves (paper Figs. 2-3);
2. bias ratio (mean estimate / true AUCPR) against n + m at prevalence 0.1
   for all eight estimators (paper Fig. 4), and against prevalence at
   n + m = 1000 (paper Fig. 5);
3. coverage of 95% binomial, logit, bootstrap and cross-validation intervals
   for lower trapezoid, average precision and interpolated median at
   n + m in {200, 500, 1000, 5000, 10000} (paper Fig. 6), and their width
   against the empirically ideal width (paper Fig. 7).

Run ``python tutorials/04_boyd_reproduction.py``. With the environment
variable ``AUCPR_STATS_QUICK=1`` it runs at reduced size (CI); figures and
CSV tables go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``).
``AUCPR_STATS_PARTS=bias,coverage`` runs only some parts.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from aucpr_stats import BOYD_ESTIMATORS, PR_ESTIMATORS, SCENARIOS, bias_study, coverage_study  # noqa: E402

QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
PARTS = set(os.environ.get("AUCPR_STATS_PARTS", "curves,bias,prevalence,coverage").split(","))
SEED = 2013

# ----------------------------------------------------------------- the scale
# The paper uses 10,000 simulated data sets per cell, 1,000 bootstrap
# replicates and 10 folds. The closed-form arms are cheap at that scale; the
# resampling arms cost n_boot (or n_folds) estimator calls per data set, so
# they get fewer data sets (their Monte Carlo SE is in the table).
if QUICK:
    BIAS_N_TOTAL = [100, 300, 1000]
    BIAS_SIMS = {n: 60 for n in BIAS_N_TOTAL}
    PREV_SIMS = 40
    PREVALENCES = [0.05, 0.2, 0.5]
    CI_N_TOTAL = [200, 1000]
    CI_SIMS = {"binomial": 200, "logit": 200, "bootstrap": 20, "cross_validation": 50}
    CI_SIMS = {m: {n: k for n in CI_N_TOTAL} for m, k in CI_SIMS.items()}
    N_BOOT = 100
else:
    BIAS_N_TOTAL = [100, 200, 500, 1000, 5000, 10000]
    # the paper's 10,000 data sets per point
    BIAS_SIMS = {n: 10_000 for n in BIAS_N_TOTAL}
    PREV_SIMS = 10_000
    PREVALENCES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]
    CI_N_TOTAL = [200, 500, 1000, 5000, 10000]
    # data sets per cell, per method and n + m: bootstrap costs n_boot estimator
    # calls on a table of up to n + m rows per data set, so it gets fewer
    CI_SIMS = {
        "binomial": {n: 10_000 for n in CI_N_TOTAL},
        "logit": {n: 10_000 for n in CI_N_TOTAL},
        "bootstrap": {200: 1000, 500: 600, 1000: 400, 5000: 100, 10000: 50},
        "cross_validation": {200: 2000, 500: 2000, 1000: 2000, 5000: 1000, 10000: 1000},
    }
    N_BOOT = 1000
CI_ESTIMATORS = ["lower_trapezoid", "average_precision", "interpolated_median"]
# the paper: percentile bootstrap (1,000 replicates); 10 folds and a normal approximation
METHOD_OPTIONS = {"bootstrap": {"n_boot": N_BOOT}, "cross_validation": {"folds": 10, "quantile": "normal"}}
METHODS = ["binomial", "logit", "bootstrap", "cross_validation"]
# estimators not (yet) in the registry are skipped, and said so
ESTIMATORS = [e for e in BOYD_ESTIMATORS if e in PR_ESTIMATORS]
missing = [e for e in BOYD_ESTIMATORS if e not in PR_ESTIMATORS]
if missing:
    print(f"note: estimators not registered, skipped: {missing}")
CI_ESTIMATORS = [e for e in CI_ESTIMATORS if e in PR_ESTIMATORS]

LABELS = {
    "lower_trapezoid": "lower trapezoid", "upper_trapezoid": "upper trapezoid",
    "interpolated_max": "interp. max", "interpolated_mean": "interp. mean",
    "interpolated_median": "interp. median", "interpolated_convex": "interp. convex",
    "average_precision": "average precision", "binormal": "binormal",
    "binomial": "binomial", "logit": "logit", "bootstrap": "bootstrap", "cross_validation": "cross-validation",
}
TITLES = {"binormal": "binormal", "bibeta": "bibeta", "offset_uniform": "offset uniform"}


def timed(label, fn, **kwargs):
    start = time.perf_counter()
    out = fn(**kwargs)
    print(f"{label}: {time.perf_counter() - start:.1f} s")
    return out


# ------------------------------------------------ 1. the truth (Figs. 2-3)
if "curves" in PARTS:
    print("True AUCPR at prevalence 0.1 (Eq. 2 integrated numerically):")
    for name, scenario in SCENARIOS.items():
        print(f"  {name:15s} {scenario.true_aucpr(0.1):.6f}")
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), sharey=True)
    for ax, (name, scenario) in zip(axes, SCENARIOS.items()):
        curve = scenario.true_pr_curve(0.1, n_points=401)
        ax.plot(curve["recall"], curve["precision"], color="black", lw=2, label="true curve")
        for k in range(3):  # a few sampled empirical curves at n + m = 500, as in Fig. 3
            df = scenario.sample(500, 0.1, seed=SEED + k).sort("score", descending=True)
            y = df["outcome"].to_numpy()
            tp, fp = np.cumsum(y), np.cumsum(1 - y)
            ax.plot(np.r_[0, tp / y.sum()], np.r_[1, tp / (tp + fp)], lw=0.8, alpha=0.7)
        ax.set_title(f"{TITLES[name]}: true AUCPR {scenario.true_aucpr(0.1):.4f}")
        ax.set_xlabel("recall")
    axes[0].set_ylabel("precision")
    axes[0].legend(loc="upper right")
    fig.suptitle("True PR curves at prevalence 0.1 and sampled curves at n + m = 500 (cf. Boyd et al. Fig. 3)")
    fig.tight_layout()
    fig.savefig(OUT / "boyd_fig3_true_curves.png", dpi=120)
    plt.close(fig)

# ---------------------------------------- 2. bias ratio against n + m (Fig. 4)
if "bias" in PARTS:
    bias = pl.concat([
        timed(f"bias study (Fig. 4), n + m = {n_total} ({BIAS_SIMS[n_total]} simulations)", bias_study,
              scenarios=list(SCENARIOS), n_total=n_total, prevalence=0.1, estimators=ESTIMATORS,
              n_sims=BIAS_SIMS[n_total], seed=SEED + n_total)
        for n_total in BIAS_N_TOTAL
    ])
    bias.write_csv(OUT / "boyd_fig4_bias.csv")
    print(bias.select("scenario", "n_total", "estimator", "n_sims", "bias_ratio", "bias_ratio_se"))
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), sharey=True)
    for ax, name in zip(axes, SCENARIOS):
        for est in ESTIMATORS:
            d = bias.filter((pl.col("scenario") == name) & (pl.col("estimator") == est)).sort("n_total")
            ax.errorbar(d["n_total"], d["bias_ratio"], yerr=2 * d["bias_ratio_se"], marker="o", ms=3,
                        capsize=2, label=LABELS[est])
        ax.axhline(1.0, color="black", lw=1.5)
        ax.set_xscale("log")
        ax.set_xticks(BIAS_N_TOTAL, [str(n) for n in BIAS_N_TOTAL], fontsize=8)
        ax.minorticks_off()
        ax.set_title(TITLES[name])
        ax.set_xlabel("n + m")
    axes[0].set_ylabel("bias ratio (mean estimate / true AUCPR)")
    axes[-1].legend(fontsize=8, loc="upper right")
    sims = "-".join(str(k) for k in sorted(set(BIAS_SIMS.values())))
    fig.suptitle(f"Bias ratio at prevalence 0.1 (cf. Boyd et al. Fig. 4); {sims} simulations per point, bars ±2 MC SE",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT / "boyd_fig4_bias_ratio.png", dpi=120)
    plt.close(fig)

# ------------------------------------- bias ratio against prevalence (Fig. 5)
if "prevalence" in PARTS:
    prev = timed("bias study (Fig. 5)", bias_study, scenarios=list(SCENARIOS), n_total=1000,
                 prevalence=PREVALENCES, estimators=ESTIMATORS, n_sims=PREV_SIMS, seed=SEED + 1)
    prev.write_csv(OUT / "boyd_fig5_bias_prevalence.csv")
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), sharey=True)
    for ax, name in zip(axes, SCENARIOS):
        for est in ESTIMATORS:
            d = prev.filter((pl.col("scenario") == name) & (pl.col("estimator") == est)).sort("prevalence")
            ax.plot(d["prevalence"], d["bias_ratio"], marker="o", ms=3, label=LABELS[est])
        ax.axhline(1.0, color="black", lw=1.5)
        ax.set_xscale("log")
        ax.set_xticks(PREVALENCES, [str(p) for p in PREVALENCES], fontsize=8)
        ax.minorticks_off()
        ax.set_title(TITLES[name])
        ax.set_xlabel("prevalence")
    axes[0].set_ylabel("bias ratio")
    axes[-1].legend(fontsize=8, loc="upper right")
    fig.suptitle(f"Bias ratio at n + m = 1000, {PREV_SIMS} simulations per point (cf. Boyd et al. Fig. 5)")
    fig.tight_layout()
    fig.savefig(OUT / "boyd_fig5_bias_prevalence.png", dpi=120)
    plt.close(fig)

# ---------------------------------------------- 3. coverage (Figs. 6 and 7)
# one study per size and group of arms with the same number of simulations; the
# data sets depend only on the seed, so binomial and logit share theirs. Each
# group writes its own table, so the groups can run in separate processes
# (AUCPR_STATS_PARTS=closed_form / bootstrap / cross_validation, then plots).
ARMS = {"closed_form": ("binomial", "logit"), "bootstrap": ("bootstrap",),
        "cross_validation": ("cross_validation",)}
if CI_ESTIMATORS:
    for part, group in ARMS.items():
        if "coverage" not in PARTS and part not in PARTS:
            continue
        frames = []
        for n_total in CI_N_TOTAL:
            frames.append(timed(
                f"coverage study, {' + '.join(group)}, n + m = {n_total} ({CI_SIMS[group[0]][n_total]} simulations)",
                coverage_study, scenarios=list(SCENARIOS), n_total=n_total, prevalence=0.1,
                estimators=CI_ESTIMATORS, methods=list(group), n_sims=CI_SIMS[group[0]][n_total], level=0.95,
                seed=SEED + n_total, method_options=METHOD_OPTIONS,
            ))
            pl.concat(frames).write_csv(OUT / f"boyd_fig6_coverage_{part}.csv")  # partial results survive

tables = [OUT / f"boyd_fig6_coverage_{part}.csv" for part in ARMS]
if ("coverage" in PARTS or "plots" in PARTS) and all(t.exists() for t in tables):
    coverage = pl.concat([pl.read_csv(t) for t in tables])
    # the empirically ideal width (Fig. 7) is a quantile range of the estimates over
    # the simulations: take it from the arm with the most simulations of each cell
    cell = ["scenario", "n_total", "estimator"]
    ideal = (coverage.sort("n_sims", descending=True).group_by(cell, maintain_order=True)
             .agg(pl.col("ideal_width").first().alias("ideal_width_ref")))
    coverage = coverage.join(ideal, on=cell).with_columns(
        (pl.col("mean_width") / pl.col("ideal_width_ref")).alias("width_ratio_ref"))
    coverage.write_csv(OUT / "boyd_fig6_coverage.csv")
    print(coverage.select("scenario", "n_total", "estimator", "method", "n_sims", "coverage", "coverage_se",
                          "width_ratio_ref", "location_ratio"))

    floor = 0.75  # as in the paper, points below the floor are drawn on the bottom border
    fig, axes = plt.subplots(3, len(CI_ESTIMATORS), figsize=(4.2 * len(CI_ESTIMATORS), 9), sharex=True,
                             sharey=True, squeeze=False)
    markers = {"binomial": "o", "logit": "s", "bootstrap": "^", "cross_validation": "v"}
    for i, name in enumerate(SCENARIOS):
        for j, est in enumerate(CI_ESTIMATORS):
            ax = axes[i, j]
            for method in METHODS:
                d = coverage.filter((pl.col("scenario") == name) & (pl.col("estimator") == est)
                                    & (pl.col("method") == method)).sort("n_total")
                x, c, se = d["n_total"].to_numpy(), d["coverage"].to_numpy(), d["coverage_se"].to_numpy()
                low = c < floor
                line, = ax.plot(x, np.maximum(c, floor), marker=markers[method], ms=4, label=LABELS[method])
                ax.errorbar(x[~low], c[~low], yerr=2 * se[~low], fmt="none", ecolor=line.get_color(), capsize=2)
                ax.plot(x[low], np.full(low.sum(), floor), marker=markers[method], ms=7, ls="none",
                        mfc="white", color=line.get_color())  # below the floor: open marker on the border
            ax.axhline(0.95, color="black", lw=2)
            ax.set_xscale("log")
            ax.set_xticks(CI_N_TOTAL, [str(n) for n in CI_N_TOTAL], fontsize=8)
            ax.minorticks_off()
            ax.set_ylim(floor - 0.01, 1.0)
            if i == 0:
                ax.set_title(LABELS[est])
            if j == 0:
                ax.set_ylabel(f"{TITLES[name]}\ncoverage")
            if i == 2:
                ax.set_xlabel("n + m")
    axes[0, -1].legend(fontsize=8, loc="lower right")
    fig.suptitle("Coverage of 95% intervals at prevalence 0.1 (cf. Boyd et al. Fig. 6)\n"
                 "bars ±2 MC SE; open markers on the bottom border: coverage below 0.75", fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT / "boyd_fig6_coverage.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.5, 4.8))
    for method in METHODS:
        d = coverage.filter(pl.col("method") == method)
        ax.scatter(d["width_ratio_ref"], np.maximum(d["coverage"].to_numpy(), floor), marker=markers[method],
                   label=LABELS[method], alpha=0.7)
    ax.axhline(0.95, color="black", lw=2)
    ax.axvline(1.0, color="grey", lw=1, ls="--")
    ax.set_xlabel("mean width / empirically ideal width")
    ax.set_ylabel("coverage")
    ax.legend()
    ax.set_title("Width ratio against coverage (cf. Boyd et al. Fig. 7)")
    fig.tight_layout()
    fig.savefig(OUT / "boyd_fig7_width.png", dpi=120)
    plt.close(fig)

    # Fig. 8: where the intervals are centred (binomial and logit: the estimate)
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), sharey=True)
    for ax, name in zip(axes, SCENARIOS):
        for est in CI_ESTIMATORS:
            for method, ls in [("binomial", "-"), ("bootstrap", "--"), ("cross_validation", ":")]:
                d = coverage.filter((pl.col("scenario") == name) & (pl.col("estimator") == est)
                                    & (pl.col("method") == method)).sort("n_total")
                ax.plot(d["n_total"], d["location_ratio"], ls=ls, marker=markers[method], ms=4,
                        color=f"C{CI_ESTIMATORS.index(est)}", label=f"{LABELS[est]}, {LABELS[method]}")
        ax.axhline(1.0, color="black", lw=1.5)
        ax.set_xscale("log")
        ax.set_xticks(CI_N_TOTAL, [str(n) for n in CI_N_TOTAL], fontsize=8)
        ax.minorticks_off()
        ax.set_title(TITLES[name])
        ax.set_xlabel("n + m")
    axes[0].set_ylabel("mean interval location / true AUCPR")
    axes[-1].legend(fontsize=7, loc="upper right")
    fig.suptitle("Location of the intervals at prevalence 0.1 (cf. Boyd et al. Fig. 8)", fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT / "boyd_fig8_location.png", dpi=120)
    plt.close(fig)

print(f"figures and tables written to {OUT}")
