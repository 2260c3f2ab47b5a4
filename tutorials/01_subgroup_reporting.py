"""Tutorial 01: subgroup reporting, from a CSV to Table 2 and a forest plot.

The question a reviewer asks: "does the model work as well in every
subgroup?" This script answers it on REAL data shipped with the package: the
Breast Cancer Wisconsin (Diagnostic) data with out-of-fold scores from three
models and lesion-size subgroups (see ``data/README.md``).

1. AUCPR and AUROC per lesion-size group for two models, with the numbers of
   positives and negatives;
2. why the two areas tell different stories (prevalence differs by subgroup);
3. a publication table with 95% confidence intervals, written as Markdown,
   LaTeX, HTML and CSV;
4. forest plots of the subgroups, AUCPR and AUROC side by side;
5. Table 2 with a block per variable (site, age band) under an Overall row,
   as Markdown and as a Word document, and the same as a figure.

Run ``python tutorials/01_subgroup_reporting.py`` from the repository root.
Outputs go to ``AUCPR_STATS_OUTPUT`` (default ``tutorials/output``);
``AUCPR_STATS_QUICK=1`` uses fewer bootstrap replicates (CI).
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from aucpr_stats import aucpr, auroc, forest_plot, publication_table  # noqa: E402

QUICK = os.environ.get("AUCPR_STATS_QUICK") == "1"
OUT = Path(os.environ.get("AUCPR_STATS_OUTPUT", "tutorials/output"))
OUT.mkdir(parents=True, exist_ok=True)
ROOT = Path(__file__).resolve().parents[1]
N_BOOT = 200 if QUICK else 2000

LABELS = {"size_group": "Lesion size", "logistic": "Logistic (10 features)",
          "texture": "Texture model (4 features)", "1 small": "Small", "2 medium": "Medium", "3 large": "Large"}

# ---------------------------------------------------------------- 1. the data
df = pl.read_csv(ROOT / "data" / "breast_cancer_oof.csv")
print(f"{df.height} fine-needle aspirates, {df['malignant'].sum()} malignant "
      f"(prevalence {df['malignant'].mean():.2f})\n")

# One call per metric computes every (subgroup, score) pair from one tie
# table per pair; the formula is "outcome ~ scores | groups".
formula = "malignant ~ logistic + texture | size_group"
pr = aucpr(formula, data=df, estimator="average_precision")   # Boyd et al. (2013), Eq. 9
roc = auroc(formula, data=df)                       # A', ties count one half (Radcliffe 2013)
print(pr.summary(), "\n")
print(roc.summary(), "\n")

# ------------------------------------------- 2. two areas, two different stories
# A score that carries no information has AUROC 0.5 in every subgroup but
# AUCPR equal to the subgroup's prevalence. Small lesions are rarely malignant
# (6 of 190), so a good ranking (high AUROC) still gives poor precision.
both = (
    pl.from_dataframe(pr.to_frame()).select("size_group", "score", "prevalence", pl.col("estimate").alias("aucpr"))
    .join(pl.from_dataframe(roc.to_frame()).select("size_group", "score", pl.col("estimate").alias("auroc")),
          on=["size_group", "score"])
)
print("AUCPR against its no-information baseline (the prevalence):")
print(both.with_columns((pl.col("aucpr") / pl.col("prevalence")).alias("aucpr_over_prevalence")), "\n")


# ------------------------------------------------------ 3. the publication table
# Intervals: logit for AUCPR (valid coverage in Boyd et al. 2013, Fig. 6, and
# bounds inside [0, 1]); DeLong for AUROC. See docs/methods_guide.md.
method = {"aucpr": "logit", "auroc": "delong"}
# The whole cohort goes in a first row ("Overall"), as epidemiology tables show it.
whole = [aucpr("malignant ~ logistic + texture", data=df, estimator="average_precision"),
         auroc("malignant ~ logistic + texture", data=df)]
table = publication_table([pr, roc], method=method, level=0.95, digits=2, labels=LABELS, overall=whole)
print(table, "\n")

(OUT / "table2.md").write_text(table.to_markdown() + "\n", encoding="utf-8")
(OUT / "table2.tex").write_text(table.to_latex(caption="Discrimination by lesion size", label="tab:size") + "\n",
                                encoding="utf-8")
(OUT / "table2.html").write_text(table.to_html(caption="Discrimination by lesion size") + "\n", encoding="utf-8")
(OUT / "table2.csv").write_text(table.to_csv(), encoding="utf-8")

# The cells are exactly the numbers of conf_int(), rounded for display; footnote marks
# († truncated, ‡ boundary fallback, § small sample) follow what the `note` column says.
ci = pl.from_dataframe(roc.conf_int(method="delong"))
first = ci.row(0, named=True)
assert table.cells[1, table.cells.columns.index(f"{LABELS['logistic']}: AUROC (95% CI)")] == (
    f"{first['estimate']:.2f} ({first['lower']:.2f}\u2013{first['upper']:.2f})\u2020\u00a7")

# A bootstrap column next to DeLong: same data, a resampling interval (seeded).
boot = publication_table(roc, method=["delong", "bootstrap"], digits=3, labels=LABELS,
                         method_options={"bootstrap": {"n_boot": N_BOOT, "seed": 2013}})
print(boot, "\n")

# ---------------------------------------------------------------- 4. forest plots
# One panel per metric sharing the rows; each panel has its reference (the
# prevalence for AUCPR, 0.5 for AUROC) and its values under a header.
axes = forest_plot([pr, roc], method=method, labels=LABELS, title="Discrimination by lesion size")
axes[0].figure.savefig(OUT / "forest_both.png", dpi=120)
plt.close(axes[0].figure)
ax = forest_plot(roc, method="delong", labels=LABELS, title="AUROC by lesion size (DeLong 95% CI)")
ax.figure.savefig(OUT / "forest_auroc.png", dpi=120)
plt.close(ax.figure)

# ------------------------------------------- 5. Table 2: a block per variable
# Results with different groupings stack as blocks (a header row per variable,
# its levels below); the ungrouped results give the Overall row on top. The
# synthetic cohort has two subgroup variables (it is synthetic: see data/README.md).
# A polars Enum (or an ordered pandas Categorical) keeps its declared order of levels in
# tables and figures; a plain text column sorts as text ("50-69" before "<50").
cohort = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv").with_columns(
    pl.col("age_band").cast(pl.Enum(["<50", "50-69", "70+"])))
blocks = []
for by in (None, "site", "age_band"):
    blocks += [aucpr(cohort, "disease", "model_a", by=by), auroc(cohort, "disease", "model_a", by=by)]
labels2 = {"site": "Site", "age_band": "Age band"}
table2 = publication_table(blocks, labels=labels2, prevalence=True)   # intervals on: each metric's default
print(table2, "\n")
assert table2.cells["Subgroup"].to_list()[:3] == ["Overall", "Site", "A"]
(OUT / "table2_blocks.md").write_text(table2.to_markdown() + "\n", encoding="utf-8")
try:
    table2.to_docx(OUT / "table2_blocks.docx", caption="Table 2. Discrimination of model A by subgroup")
except Exception as exc:  # python-docx is an optional extra ("docx")
    print(f"no Word file: {exc}")
axes = forest_plot(blocks, labels=labels2, title="Model A by subgroup")
axes[0].figure.savefig(OUT / "forest_blocks.png", dpi=120)
plt.close(axes[0].figure)
print(f"wrote table2.md/.tex/.html/.csv, table2_blocks.md/.docx and forest_both.png, forest_auroc.png, "
      f"forest_blocks.png to {OUT}")
