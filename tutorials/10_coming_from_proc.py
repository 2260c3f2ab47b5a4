"""Tutorial 10: coming from pROC. Three markers of one outcome, the tests pROC and Stata offer, a chosen threshold.

On data nobody here prepared: pROC's ``aSAH`` (113 patients after
aneurysmal subarachnoid haemorrhage, 41 with a poor outcome; markers s100b,
ndka and the WFNS grade) and R's ``infert`` (a 1:2 matched case-control study
of infertility after abortion, 83 matched sets), both kept as CSV files in
``tests/reference/`` by the R scripts that check the library against pROC.

1. the three markers' AUROCs, the pairwise DeLong tests and Stata roccomp's
   single test that all three are equal;
2. whole curves: Venkatraman's test, and the sensitivities at a specificity
   of 0.9 compared;
3. the best threshold of s100b (Youden's): the Wilson intervals treat it as
   fixed, the bootstrap re-chooses it in every replicate (pROC's
   ``ci.coords(x = "best")``);
4. the smoothed (binormal) ROC curve beside the empirical one, drawn;
5. planning the study that would show s100b beats ndka: pROC's
   ``power.roc.test(roc1, roc2)`` and the default here, and why they differ;
6. infert: the within-matched-set AUROC the design estimates, beside the
   unmatched AUROC.

Run ``python tutorials/10_coming_from_proc.py`` from the repository root.
Outputs go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from aucpr_stats import (compare, compare_curves, cutoffs, matched_auroc, roc_curve, sample_size,  # noqa: E402
                         smooth_roc, auroc)

QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
N_BOOT = 300 if QUICK else 2000
OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
REFERENCE = Path("tests/reference")
warnings.simplefilter("ignore", category=UserWarning)  # small-sample notes stay in the tables' note columns

asah = pl.read_csv(REFERENCE / "proc_power_asah.csv").with_columns(pl.col("wfns").cast(pl.Float64))
markers = ["s100b", "ndka", "wfns"]

# 1. three markers: pairwise DeLong tests and the one test that all are equal (Stata roccomp) ------------------
print(auroc(asah, "outcome", markers, positive="Poor").conf_int(method="delong").select(
    "score", "estimate", "lower", "upper"))
pairs = compare(asah, "outcome", markers, metric="auroc", positive="Poor", adjust="holm")
print(pairs.to_frame().select("score_a", "score_b", "difference", "p_value", "p_adjusted"))
print(pairs.equality_test())

# 2. whole curves, and a point on them ----------------------------------------------------------------------------
print(compare_curves(asah, "outcome", ["s100b", "ndka"], positive="Poor", n_boot=N_BOOT, rng=1))
print(compare_curves(asah, "outcome", ["s100b", "ndka"], positive="Poor", test="sensitivity", at=0.9,
                     n_boot=N_BOOT, rng=1))

# 3. the chosen threshold: fixed-threshold Wilson intervals against the bootstrap that re-chooses it ----------------
best = cutoffs(asah, "outcome", "s100b", positive="Poor")
print(best.conf_int().select("threshold", "measure", "estimate", "lower", "upper"))
print(best.bootstrap(N_BOOT, rng=1))

# 4. the smoothed (binormal) curve beside the empirical one --------------------------------------------------------
smooth = smooth_roc(asah, "outcome", "s100b", positive="Poor", method="binormal")
print(smooth.auc())
curve = smooth.to_frame()
empirical = roc_curve(asah, "outcome", "s100b", positive="Poor").to_frame()
fig, ax = plt.subplots(figsize=(5, 5))
area = auroc(asah, "outcome", "s100b", positive="Poor").estimate
# the empirical curve joins its points with straight lines (a tie across the classes is a diagonal), as pROC draws it
ax.plot(empirical["fpr"], empirical["tpr"], label=f"empirical (AUROC {area:.3f})")
ax.plot(1 - curve["specificity"], curve["sensitivity"], label=f"binormal (AUROC {smooth.auc()['estimate'][0]:.3f})")
ax.plot([0, 1], [0, 1], ls=":", color="grey", lw=0.8)
ax.set(xlabel="1 - specificity", ylabel="sensitivity", title="s100b: empirical and smoothed ROC curves")
ax.legend(loc="lower right")
fig.savefig(OUT / "10_smoothed_roc.png", dpi=150, bbox_inches="tight")
plt.close(fig)

# 5. planning the comparison of s100b and ndka ---------------------------------------------------------------------
pilot = compare(asah, "outcome", ["s100b", "ndka"], metric="auroc", positive="Poor")
proc = sample_size("auroc", pilot=pilot, power=0.8, null_variance="first")      # pROC: ncases 158.08
ours = sample_size("auroc", pilot=pilot, power=0.8)                             # the test as it will be run
print(f"positives for 80% power: pROC {proc.n_pos} (claims {proc.power:.3f}), here {ours.n_pos}; pROC's null "
      "variance is the better marker's, so it promises more power than DeLong's test will have")

# 6. a matched case-control study: the AUROC within the matched sets -------------------------------------------------
infert = pl.read_csv(REFERENCE / "infert.csv")
within = matched_auroc(infert, "case", ["spontaneous", "induced"], matched_set="stratum")
print(within.conf_int().to_frame().select("score", "estimate", "lower", "upper", "n_sets"))
print(auroc(infert, "case", ["spontaneous", "induced"]).to_frame().select("score", "estimate"))
print("written:", OUT / "10_smoothed_roc.png")
