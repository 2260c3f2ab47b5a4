"""Regenerate the PNG figures shown in docs/ (run from the repository root).

``python docs/make_figures.py`` writes ``docs/images/*.png``.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from aucpr_stats.api import aucpr, auroc  # noqa: E402
from aucpr_stats.plot import forest_plot  # noqa: E402

OUT = Path(__file__).with_name("images")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    cohort = pl.read_csv("data/synthetic_cohort.csv")
    ax = forest_plot(aucpr("disease ~ model_a + model_b | site", data=cohort), title="AUCPR by site")
    ax.figure.savefig(OUT / "forest_aucpr_by_site.png", dpi=110)
    cancer = pl.read_csv("data/breast_cancer_oof.csv")
    ax = forest_plot(auroc("malignant ~ logistic + texture | size_group", data=cancer), method="delong",
                     title="AUROC by lesion size")
    ax.figure.savefig(OUT / "forest_auroc_by_size.png", dpi=110)
    # Table 2 as a figure: the whole cohort, then a block per variable; AUCPR and AUROC side by side
    results = []
    for by in (None, "site", "age_band"):
        results += [aucpr(cohort, "disease", "model_a", by=by), auroc(cohort, "disease", "model_a", by=by)]
    axes = forest_plot(results, labels={"site": "Site", "age_band": "Age band"},
                       title="Model A by subgroup (synthetic cohort)")
    axes[0].figure.savefig(OUT / "forest_subgroups_two_metrics.png", dpi=110)
    from aucpr_stats.curves import pr_curve

    ax = pr_curve("disease ~ model_a | site", data=cohort).plot()
    ax.set_title("PR curves of model_a by site (synthetic cohort)")
    ax.figure.savefig(OUT / "pr_curves_by_site.png", dpi=110)
    axes = pr_curve("malignant ~ logistic | size_group", data=cancer).plot(
        facet=True, title="PR curves of the logistic model by lesion size (breast cancer, out of fold)")
    axes[0].figure.savefig(OUT / "pr_curves_facets.png", dpi=110)
    from aucpr_stats import calibration

    curve = calibration(cancer, "malignant", "logistic", by="size_group", statistic="ici").curve()
    curve.plot(title="Calibration of the logistic model by lesion size (breast cancer, out of fold)").savefig(
        OUT / "calibration_curves_by_size.png", dpi=110)
    axes = forest_plot([auroc(cancer, "malignant", "logistic", by="size_group"),
                        calibration(cancer, "malignant", "logistic", by="size_group", statistic=["citl", "slope"])],
                       title="Discrimination and calibration by lesion size")
    axes[0].figure.savefig(OUT / "forest_discrimination_calibration.png", dpi=110)
    from aucpr_stats import net_benefit

    thresholds = [round(0.01 * i, 2) for i in range(1, 61)]
    curves = net_benefit(cancer, "malignant", ["logistic", "forest"], by="size_group", thresholds=thresholds)
    curves.plot(title="Decision curves of two models by lesion size (breast cancer, out of fold)").savefig(
        OUT / "decision_curves_by_size.png", dpi=110)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # four sites: the note says the intervals were checked from five
        meta = auroc(cohort, "disease", ["model_a", "model_b"], by="site").meta()
    ax = meta.plot(title="AUROC of two models across four sites, random effects (synthetic cohort)")
    ax.figure.savefig(OUT / "meta_forest_by_site.png", dpi=110, bbox_inches="tight")
    wine = pl.read_csv("data/wine_oof.csv")
    models = {"full": "full_{level}", "short": "short_{level}"}
    auroc(wine, "cultivar", models, multiclass="ovr").plot(
        title="One-vs-rest ROC curves of two models of the cultivar (wine, out of fold)").savefig(
        OUT / "multiclass_roc_curves.png", dpi=110)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small classes: the notes say so
        intervals = auroc(wine, "cultivar", "short_{level}", by="colour", multiclass="ovr",
                          average=["macro", "micro"]).conf_int()
    intervals.plot(title="AUROC of the short model per cultivar and colour band (wine, out of fold)").savefig(
        OUT / "multiclass_forest.png", dpi=110, bbox_inches="tight")
    gbsg2 = pl.read_csv("data/gbsg2_risk.csv")
    horizons = np.round(np.linspace(0.5, 6, 12), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the first horizon has few cases: its note says so
        auroc(gbsg2, score=["cox_risk", "positive_nodes"], time="years", event="recurrence",
              horizon=horizons).plot(seed=1, title="AUC(t) of two scores of recurrence (GBSG2)").savefig(
            OUT / "time_dependent_auc.png", dpi=110)
        aucpr(gbsg2, score="cox_risk", by="menopause", time="years", event="recurrence",
              horizon=horizons).plot(seed=1, title="AP(t) of the Cox model by menopausal status (GBSG2)").savefig(
            OUT / "time_dependent_ap.png", dpi=110)
    print(f"wrote figures to {OUT}")


if __name__ == "__main__":
    main()
