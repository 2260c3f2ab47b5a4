"""Tutorial 03: the PR curve with a confidence band (Clémençon & Vayatis 2009).

A single AUCPR hides *where* a model fails. This script draws the whole
precision-recall curve of each subgroup with an honest simultaneous band, from
one test set:

1. the empirical PR curve per site, read on a recall grid two ways (the
   paper's step function, Eq. 3, and the Davis-Goadrich interpolation);
2. 95% bands per site with the smoothed, importance-sampled bootstrap
   (Algorithm 1), with the radius r(delta) and the effective sample size;
3. the three band methods side by side (smoothed bootstrap, plain
   bootstrap, pointwise intervals from Eq. 9);
4. why the instrumental class proportion p_tilde defaults to the observed
   one: with p_tilde = 1/2 the importance weights collapse;
5. a small simulation: does the band cover the true binormal curve?
6. real data with rare positives (small breast lesions: 6 malignant of 190).

Run ``python tutorials/03_curves_with_bands.py`` from the repository root.
Outputs go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``);
``AUCPR_STATS_QUICK=1`` uses fewer replicates and simulations (CI).
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from aucpr_stats import Binormal, LowEffectiveSampleSizeWarning, pr_curve  # noqa: E402

QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
ROOT = Path(__file__).resolve().parents[1]
N_BOOT = 300 if QUICK else 2000
N_SIMS = 30 if QUICK else 300
pl.Config.set_tbl_rows(20)
pl.Config.set_tbl_cols(12)

# ------------------------------------------------ 1. the curve, read two ways
cohort = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv")  # SYNTHETIC: binormal scores at four sites
curve = pr_curve(cohort, "disease", "model_a", by="site")
print(curve)
print(curve.to_frame().head(4))  # the empirical points: threshold, tp, fp, recall, precision

grid = [0.1, 0.25, 0.5, 0.75, 0.9]
step = curve.evaluate(grid, method="step")
interpolated = curve.evaluate(grid, method="interpolated")
table = step.select("site", "recall", pl.col("precision").alias("step_eq3")).with_columns(
    interpolated=interpolated["precision"]
)
print("\nPrecision at fixed recalls, step function (Eq. 3) and Davis-Goadrich interpolation:")
print(table.filter(pl.col("site").is_in(["A", "C"])))
# The two readings differ by at most a step: Eq. 3 uses the negatives ranked
# above the next positive, the interpolation walks the ROC segment between points.

# ------------------------------------------------------ 2. bands for every site
start = time.perf_counter()
band = curve.band(level=0.95, n_boot=N_BOOT, seed=2009)
print(f"\n95% smoothed-bootstrap bands for 4 sites, {N_BOOT} replicates each: "
      f"{time.perf_counter() - start:.2f}s")
print(band.groups_frame().select("site", "n_pos", "n_neg", "r_delta", "half_width", "ess", "p_tilde",
                                 "bandwidth_pos", "bandwidth_neg"))
# The band is the empirical curve +- r(delta)/sqrt(n) on recall [0.05, 0.95]:
# a constant half-width, widest where positives are fewest (site C: 29).
ax = band.plot()
ax.figure.savefig(OUT / "03_bands_by_site.png", dpi=110, bbox_inches="tight")
plt.close(ax.figure)
# Two sites read better in one figure (this is the figure of docs/curves_and_bands.md):
two_sites = pr_curve(cohort.filter(pl.col("site").is_in(["A", "B"])), "disease", "model_a", by="site")
ax = two_sites.band(n_boot=N_BOOT, seed=2009).plot(title="model_a: 95% smoothed bootstrap bands, sites A and B")
ax.figure.savefig(OUT / "pr_bands_two_sites.png", dpi=110, bbox_inches="tight")
plt.close(ax.figure)

# ----------------------------------------------------- 3. three methods compared
site_a = pr_curve(cohort.filter(pl.col("site") == "A"), "disease", "model_a")
fig, axes = plt.subplots(1, 4, figsize=(18, 4.2), sharey=True)
rows = []
variants = [("smoothed_bootstrap", False), ("bootstrap", False), ("pointwise", False), ("smoothed_bootstrap", True)]
for ax, (method, studentize) in zip(axes, variants):
    b = site_a.band(method=method, n_boot=N_BOOT, seed=7, studentize=studentize)
    name = method.replace("_", " ") + (", studentised" if studentize else "")
    b.plot(ax=ax, title=f"Site A: {name}")
    frame = b.to_frame().with_columns(method=pl.lit(name), width=pl.col("upper") - pl.col("lower"))
    at = frame.filter(pl.col("recall").is_in(frame["recall"].gather([20, 100, 180]).to_list()))
    rows.append(at.select("method", pl.col("recall").round(3), pl.col("width").round(3)))
fig.tight_layout()
fig.savefig(OUT / "pr_band_methods.png", dpi=100)
plt.close(fig)
print("\nWidth of the band at three recalls, site A:")
print(pl.concat(rows).pivot(on="recall", index="method", values="width"))
# Sup-norm bands (bootstrap methods) hold for all recalls at once; the
# pointwise intervals are narrower but each holds at one recall only. The
# paper's band has one radius everywhere, set by the noisy low recalls; the
# studentised variant (an extension) follows the curve's variability.

# ------------------------------------------- 4. importance weights can degenerate
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    half = site_a.band(p_tilde=0.5, n_boot=N_BOOT, seed=7)
default = site_a.band(n_boot=N_BOOT, seed=7)
print(f"\nSite A has p_hat = {default.prevalence[0]:.3f}. Effective sample size of {N_BOOT} replicates:"
      f" p_tilde = p_hat: {default.ess[0]:.0f};  p_tilde = 0.5: {half.ess[0]:.2f}")
print("warning raised:", any(issubclass(w.category, LowEffectiveSampleSizeWarning) for w in caught))
# gamma_n = (p_hat/p_tilde)^n+* ((1-p_hat)/(1-p_tilde))^n-* spans hundreds of
# orders of magnitude when p_tilde is far from p_hat: one replicate carries the band.

# ------------------------------------------------ 5. coverage of the true curve
n, prevalence = 1000, 0.1
truth_model = Binormal(mu=1.0)
sims = pl.concat([
    truth_model.sample(n, prevalence, seed=s).with_columns(sim=pl.lit(s)) for s in range(N_SIMS)
])
sim_curves = pr_curve(sims, "outcome", "score", by="sim")
print(f"\nCoverage of the true binormal PR curve on recall [0.05, 0.95], n = {n}, {N_SIMS} data sets:")
for method in ["smoothed_bootstrap", "bootstrap", "pointwise"]:
    b = sim_curves.band(method=method, n_boot=N_BOOT, seed=11, grid=101)
    truth = truth_model.precision_at_recall(b.recall, prevalence)
    covered = np.all((b.lower <= truth) & (truth <= b.upper), axis=1)
    print(f"  {method:<19} simultaneous coverage {covered.mean():.2f}")
# See docs/curves_and_bands.md for the full study (500 data sets per cell).

# -------------------------------------------- 6. real data with rare positives
cancer = pl.read_csv(ROOT / "data" / "breast_cancer_oof.csv")  # REAL: Breast Cancer Wisconsin, out-of-fold scores
small = cancer.filter(pl.col("size_group") == "1 small")
real = pr_curve("malignant ~ logistic + texture", data=small)
real_band = real.band(n_boot=N_BOOT, seed=3)
print("\nSmall lesions (6 malignant of 190): bands for two models")
print(real_band.groups_frame().select("score", "n_pos", "r_delta", "half_width", "ess", "p_tilde"))
# With 6 positives a bootstrap replicate without any is rare (1 in 430):
# p_tilde stays at the observed 0.032, every weight is 1. The band is wide:
# six positives cannot pin down a PR curve, and the band says so.
ax = real_band.plot(title="Small lesions: 95% smoothed bootstrap bands")
ax.figure.savefig(OUT / "03_small_lesions.png", dpi=110, bbox_inches="tight")
plt.close(ax.figure)
print(f"\nfigures written to {OUT}")
