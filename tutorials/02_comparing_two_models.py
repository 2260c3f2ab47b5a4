"""Tutorial 02: is model A better than model B? A paired comparison.

Two models scored on the same patients are correlated: a case that is hard
for one is usually hard for the other. Comparing their two confidence
intervals ("they overlap, so no difference") ignores that correlation and
throws information away. This script, on the REAL breast-cancer data shipped
in ``data/`` (out-of-fold scores, see ``data/README.md``):

1. puts the two models' AUROCs side by side with separate intervals;
2. compares them with the paired DeLong test (DeLong, DeLong &
   Clarke-Pearson 1988) and shows how much the correlation narrows the
   interval of the difference;
3. compares AUCPR with the paired stratified bootstrap (same resampled rows
   for both scores; seeded, so reproducible);
4. repeats the comparison per lesion-size subgroup, with a figure of the
   differences;
5. compares one model between two independent groups (unpaired, ``between=``)
   on the synthetic multi-site cohort.

Run ``python tutorials/02_comparing_two_models.py`` from the repository root.
Outputs go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``);
``AUCPR_STATS_QUICK=1`` uses fewer bootstrap replicates (CI).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from aucpr_stats import aucpr, auroc, compare, comparison_table  # noqa: E402

QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
ROOT = Path(__file__).resolve().parents[1]
N_BOOT = 300 if QUICK else 2000
SEED = 2013

df = pl.read_csv(ROOT / "data" / "breast_cancer_oof.csv")
print(f"{df.height} cases, {df['malignant'].sum()} malignant\n")

# ------------------------------------------------- 1. two separate intervals
# "forest" (random forest) and "logistic" use the same ten features.
separate = auroc("malignant ~ logistic + forest", data=df).conf_int(method="delong")
print("Separate 95% DeLong intervals:")
print(separate.select("score", "estimate", "lower", "upper", "se"), "\n")

# ------------------------------------------------------ 2. the paired test
paired = compare("malignant ~ logistic + forest", data=df, metric="auroc", method="delong")
print(paired.summary(), "\n")
row = pl.from_dataframe(paired.to_frame()).row(0, named=True)
se_a, se_b = separate["se"].to_list()
naive_se = math.sqrt(se_a**2 + se_b**2)  # what ignoring the pairing would assume
print(f"correlation of the two AUROCs: {row['correlation']:.2f}")
print(f"SE of the difference, paired: {row['se']:.4f}; if the models were independent: {naive_se:.4f} "
      f"({naive_se / row['se']:.1f} times wider)\n")

# A weaker model, for contrast: texture features only.
versus_texture = compare("malignant ~ logistic + texture", data=df, metric="auroc")
print(versus_texture.summary(), "\n")

# --------------------------------------- 3. AUCPR: paired stratified bootstrap
pr_paired = compare("malignant ~ logistic + texture", data=df, metric="aucpr", method="bootstrap",
                    n_boot=N_BOOT, seed=SEED)
print(pr_paired.summary(), "\n")
again = compare("malignant ~ logistic + texture", data=df, metric="aucpr", method="bootstrap",
                n_boot=N_BOOT, seed=SEED)
assert pl.from_dataframe(again.to_frame()).equals(pl.from_dataframe(pr_paired.to_frame())), "same seed, same result"
print("AUCPR point estimates for reference:")
print(aucpr("malignant ~ logistic + texture", data=df).to_frame().select("score", "estimate", "n_pos"), "\n")

# ------------------------------------------------------ 4. per subgroup
by_size = compare("malignant ~ logistic + texture | size_group", data=df, metric="auroc")
table = pl.from_dataframe(by_size.to_frame())
print(by_size.summary(), "\n")
(OUT / "comparison_by_size.csv").write_text(table.write_csv(), encoding="utf-8")

# The same comparison as a publication table (Markdown, LaTeX, HTML, frame).
publication = comparison_table(by_size, digits=2, labels={"size_group": "Lesion size", "logistic": "Logistic",
                                                          "texture": "Texture"})
print(publication, "\n")
(OUT / "comparison_by_size.md").write_text(publication.to_markdown() + "\n", encoding="utf-8")
(OUT / "comparison_by_size.tex").write_text(publication.to_latex(caption="Logistic vs texture model") + "\n",
                                            encoding="utf-8")

fig, ax = plt.subplots(figsize=(7.5, 2.8), layout="constrained")
y = np.arange(table.height)[::-1]
diff = table["difference"].to_numpy()
ax.errorbar(diff, y, xerr=[diff - table["lower"].to_numpy(), table["upper"].to_numpy() - diff],
            fmt="s", color="C0", ecolor="0.2", capsize=4)
ax.axvline(0, color="C3", linestyle="--", linewidth=1, label="no difference")
ax.set_yticks(y, [f"{g}  (n={p + q}, {p} pos)" for g, p, q in table.select("size_group", "n_pos", "n_neg").iter_rows()])
ax.set_xlabel("AUROC(logistic) - AUROC(texture), paired DeLong 95% CI")
for yi, (d, p) in zip(y, table.select("difference", "p_value").iter_rows()):
    ax.annotate(f"{d:+.3f}, p = {p:.3f}", xy=(1.0, yi), xycoords=("axes fraction", "data"), xytext=(6, 0),
                textcoords="offset points", va="center", fontsize=9)
ax.set_ylim(-0.6, table.height - 0.4)
ax.set_title("Paired comparison by lesion size (6 malignant small lesions: DeLong is approximate)")
ax.legend(loc="lower right", fontsize=8, frameon=False)
fig.savefig(OUT / "comparison_by_size.png", dpi=120)
plt.close(fig)

# --------------------------------------- 5. unpaired: one model, two sites
cohort = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv")  # SYNTHETIC data
sites = cohort.filter(pl.col("site").is_in(["A", "C"]))
unpaired = compare(sites, "disease", ["model_a"], between="site", metric="auroc")
print(unpaired.summary(), "\n")
print(f"wrote comparison_by_size.csv and comparison_by_size.png to {OUT}")
