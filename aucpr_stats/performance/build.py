"""``report()``: the performance section of a prediction-model paper from one table, in one call.

Discrimination (AUROC, AUCPR), calibration (calibration-in-the-large, slope,
O:E, Brier) and clinical utility (net benefit at stated thresholds), each with
its interval, per subgroup and overall, the tests of heterogeneity across the
subgroups, and the figures (forest plot, ROC and PR curves, calibration
curves, decision curves), each block labelled with the TRIPOD+AI item it
answers. Every number comes from the library's verbs with their defaults for
the design; nothing is computed here that a verb does not compute.
"""

from __future__ import annotations

import io
import sys
import warnings
from typing import Any, Sequence

import attrs
import numpy as np

from .. import _validate
from ..api import aucpr, auroc
from ..api_calibration import calibration
from ..api_net_benefit import net_benefit
from ..curves import pr_curve, roc_curve
from ..exceptions import InputError
from ..intervals.registry import default_method
from ..plot import forest_plot, plot_curve
from ..progress import progress_enabled, progress_iv
from ..report import publication_table
from .methods import describe
from .result import Block, Figure, PerformanceReport

__all__ = ["report", "DEFAULT_CALIBRATION", "DEFAULT_REPORT_THRESHOLDS"]

#: The calibration statistics of the report (TRIPOD+AI 12e: calibration-in-the-large, slope; O:E and Brier).
DEFAULT_CALIBRATION = ("citl", "slope", "oe_ratio", "brier")
#: Net benefit is reported at these risk thresholds unless the caller states the clinically relevant ones.
DEFAULT_REPORT_THRESHOLDS = (0.1, 0.2, 0.3)

#: The most panels (subgroups x scores) a curve figure gets; beyond it the figures show the overall curves.
MAX_PANELS = 12

#: Column labels of the report's table (the statistics as papers name them).
_LABELS = {"citl": "in the large", "slope": "slope", "oe_ratio": "O:E", "brier": "Brier"}


class _Steps:
    """Says what the report is computing, one line per step on standard error (when progress is shown)."""

    def __init__(self, progress: bool | None, total: int):
        self.show = progress is True or (progress is None and progress_enabled(None))
        self.total, self.done = total, 0

    def __call__(self, what: str) -> None:
        self.done += 1
        if self.show:
            print(f"aucpr_stats report [{self.done}/{self.total}]: {what}", file=sys.stderr, flush=True)


def _png(figure: Any) -> bytes:
    """A figure as PNG bytes (150 dpi), closed afterwards."""
    import matplotlib.pyplot as plt  # matplotlib is optional: only the figures need it

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=150, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def _figure_of(axes: Any) -> Any:
    while isinstance(axes, (tuple, list)) or hasattr(axes, "flat"):
        axes = axes[0] if isinstance(axes, (tuple, list)) else axes.flat[0]
    return getattr(axes, "figure", axes)


def report(
    data: Any,
    outcome: str,
    score: str | Sequence[str],
    by: str | Sequence[str] | None = None,
    *,
    cluster: str | None = None,
    weights: str | None = None,
    prevalence: float | None = None,
    imputation: str | None = None,
    sites: str | None = None,
    thresholds: Sequence[float] = DEFAULT_REPORT_THRESHOLDS,
    calibration_statistics: Sequence[str] = DEFAULT_CALIBRATION,
    positive: Any = None,
    missing: str = "error",
    level: float = 0.95,
    figures: bool = True,
    title: str | None = None,
    digits: int = 2,
    progress: bool | None = None,
) -> PerformanceReport:
    """The performance report of one or more models: the table, the tests across subgroups and the figures.

    Parameters
    ----------
    data : frame
        One row per case (any frame the library reads).
    outcome : str
        The binary outcome column.
    score : str or list of str
        The models' scores; predicted risks in [0, 1] for calibration and
        net benefit (scores that are not risks get discrimination only, and
        the report says so).
    by : str or list of str, optional
        Subgroup columns: one block of rows each, with an Overall row on top
        and a test of heterogeneity across the subgroups (TRIPOD+AI 23a, 23b).
    cluster, weights, prevalence
        The study design, as in :func:`aucpr_stats.aucpr`; every interval
        respects it.
    imputation : str, optional
        A column numbering multiply imputed data sets stacked in long form
        (mice's ``.imp``): every measure is pooled by Rubin's rules and the
        tests across subgroups are the pooled ones (D1); the curve figures,
        which are not pooled, are left out (the forest plot stays).
    sites : str, optional
        A column of sites (centres, countries): the AUROC and AUCPR of each
        site pooled by a random-effects meta-analysis (REML, Hartung-Knapp
        interval, the prediction interval for a new site; ``result.meta()``)
        with its tables and forest plot (TRIPOD+AI 23b).
    thresholds : list of float
        Risk thresholds for net benefit (state the clinically relevant ones).
    calibration_statistics : list of str
        Calibration statistics (default calibration-in-the-large, slope, O:E, Brier).
    positive, missing
        As in :func:`aucpr_stats.aucpr`.
    level : float
        Confidence level of every interval.
    figures : bool
        Draw the figures (needs matplotlib).
    title : str, optional
    digits : int
        Decimals of the table's cells.
    progress : bool, optional
        Say what is being computed (default: on a terminal).

    Returns
    -------
    PerformanceReport
        ``.table`` (a :class:`~aucpr_stats.PublicationTable`), ``.results``,
        ``.heterogeneity``, ``.figures``, ``.methods``; ``.to_html(path)``,
        ``.to_docx(path)``, ``.to_markdown()``, ``.to_latex()``.

    References
    ----------
    Collins, G. S. et al. (2024). TRIPOD+AI statement. BMJ 385, e078378.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        built = _build(data, outcome, score, by, cluster=cluster, weights=weights, prevalence=prevalence,
                       imputation=imputation, sites=sites,
                       thresholds=thresholds, calibration_statistics=calibration_statistics, positive=positive,
                       missing=missing, level=level, figures=figures, title=title, digits=digits, progress=progress)
    seen = {}
    for w in caught:  # each distinct warning once, and in the report's notes
        seen.setdefault(str(w.message), w.category)
    for message, category in seen.items():
        warnings.warn(message, category, stacklevel=2)
    return attrs.evolve(built, notes=tuple(dict.fromkeys([*built.notes, *seen])))


def _build(data, outcome, score, by, *, cluster, weights, prevalence, imputation, sites, thresholds,
           calibration_statistics, positive, missing, level, figures, title, digits, progress) -> PerformanceReport:
    """The report's computations (warnings collected by :func:`report`)."""
    scores = [score] if isinstance(score, str) else list(score)
    groups = [] if by is None else ([by] if isinstance(by, str) else list(by))
    level = _validate.level_iv(level)
    progress = progress_iv(progress)
    if not scores:
        raise InputError("`score` must name at least one column")
    common = dict(positive=positive, missing=missing, weights=weights, cluster=cluster, imputation=imputation)
    steps = _Steps(progress, 5 + (4 if figures else 0))
    steps("discrimination: AUROC and AUCPR per subgroup and overall")
    blocks: dict[str, list] = {"auroc": [], "aucpr": []}
    for grouping in groups or [None]:
        blocks["auroc"].append(auroc(data, outcome, scores, grouping, **common))
        blocks["aucpr"].append(aucpr(data, outcome, scores, grouping, prevalence=prevalence, **common))
    overall = [auroc(data, outcome, scores, **common), aucpr(data, outcome, scores, prevalence=prevalence, **common)]
    notes = []
    first = blocks["auroc"][0]
    risky = _not_risks(data, outcome, scores, common)
    # one table holds every score's row: calibration and net benefit only when every score is a predicted risk
    risk_scores = [] if risky else scores
    if risky:
        notes.append(f"Calibration and net benefit are not reported: {', '.join(risky)} "
                     f"{'is not a predicted risk' if len(risky) == 1 else 'are not predicted risks'} in [0, 1] "
                     "(report them for the models that give risks with a call of their own).")
    steps("calibration and net benefit")
    if risk_scores:
        for grouping in groups or [None]:
            blocks.setdefault("calibration", []).append(
                calibration(data, outcome, risk_scores, grouping, statistic=list(calibration_statistics),
                            prevalence=prevalence, **common))
            blocks.setdefault("net_benefit", []).append(
                net_benefit(data, outcome, risk_scores, grouping, thresholds=list(thresholds), prevalence=prevalence,
                            **common))
        overall += [calibration(data, outcome, risk_scores, statistic=list(calibration_statistics),
                                prevalence=prevalence, **common),
                    net_benefit(data, outcome, risk_scores, thresholds=list(thresholds), prevalence=prevalence,
                                **common)]
    steps("the performance table")
    ordered = [r for metric in ("auroc", "aucpr", "calibration", "net_benefit") for r in blocks.get(metric, [])]
    methods = {r.metric: default_method(r) for r in ordered}
    table = ordered[0].table(*ordered[1:], overall=overall if groups else None, level=level, digits=digits,
                             scores_as="rows", heterogeneity="default" if groups else None, labels=_LABELS)
    steps("tests of heterogeneity across subgroups")
    heterogeneity = []
    for result in ordered if groups else []:
        if result.metric in ("auroc", "aucpr"):
            heterogeneity.append(result.heterogeneity().to_polars())
    pooled, site_figures = _across_sites(data, outcome, scores, sites, common, prevalence, level, figures, digits)
    design = {"cluster": cluster, "weights": weights, "prevalence": prevalence, "by": groups,
              "imputation": imputation, "sites": sites}
    # one result per metric names its statistics and interval (the groupings share them)
    text, references = describe([results[0] for results in blocks.values()], methods, level, design)
    steps("the methods text")
    drawn = _figures(data, outcome, scores, groups, blocks, overall, common, level, steps) if figures else []
    if figures and imputation is not None:
        notes.append("The curve figures are not drawn with imputed data sets (curves are not pooled); the forest "
                     "plot shows the pooled estimates.")
    sections = [
        Block("12e", "Performance measures", text),
        Block("23a", "Performance with confidence intervals, overall and in key subgroups", table.note or ""),
    ]
    drawn += site_figures
    if heterogeneity or pooled:
        sections.append(Block("23b", "Heterogeneity of performance across subgroups" + (" and sites" if pooled
                                                                                        else ""),
                              "Tests that the area is the same in every level of each subgroup variable, one table "
                              "per measure and variable (Cochran's Q on DeLong variances for AUROC, an F test on "
                              "jackknife variances for AUCPR; the statistic, its degrees of freedom and p)."
                              + (f" Across the sites ({sites}): a random-effects meta-analysis of each measure, "
                                 "with tau², I² and the prediction interval for a new site." if pooled else "")))
    return PerformanceReport(
        title=title or f"Performance of {', '.join(scores)} for {outcome}",
        table=table, results=tuple(ordered), overall=tuple(overall), heterogeneity=tuple(heterogeneity),
        pooled=tuple(pooled),
        figures=tuple(drawn), blocks=tuple(sections), methods=text, references=tuple(references),
        notes=tuple(notes), frame_kind=getattr(first, "frame_kind", "polars"))


def _across_sites(data, outcome, scores, sites, common, prevalence, level, figures, digits) -> tuple[list, list]:
    """The random-effects meta-analysis of AUROC and AUCPR across ``sites``: its tables and forest plots."""
    if sites is None:
        return [], []
    if common.get("imputation") is not None:
        raise InputError("`sites=` with `imputation=` is not built: pool the imputations within each site first")
    tables, drawn = [], []
    for verb in (auroc, aucpr):
        options = dict(common) | ({"prevalence": prevalence} if verb is aucpr else {})
        meta = verb(data, outcome, scores, sites, **options).meta(level=level)
        tables.append(publication_table(meta, level=level, digits=digits))
        if figures:
            drawn.append(Figure(f"sites_{meta.metric}", "23b", f"{meta.metric.upper()} per site, pooled by random "
                                "effects, with the prediction interval for a new site", _png(_figure_of(meta.plot()))))
    return tables, drawn


def _not_risks(data: Any, outcome: str, scores: list[str], common: dict) -> list[str]:
    """The scores that are not predicted risks: the calibration verb's own check refuses them (one cheap pass)."""
    out = []
    for s in scores:
        try:
            calibration(data, outcome, s, statistic="brier", positive=common["positive"], missing=common["missing"])
        except InputError as exc:
            if "[0, 1]" in str(exc) or "probabilit" in str(exc) or "risk" in str(exc):
                out.append(s)
            else:
                raise
    return out


def _figures(data, outcome, scores, groups, blocks, overall, common, level, steps) -> list[Figure]:
    """The report's figures: forest plot, ROC and PR curves, calibration and decision curves."""
    import matplotlib  # optional dependency: only the figures need it

    matplotlib.use("Agg")
    drawn = []
    steps("figure: forest plot of AUROC and AUCPR")
    areas = [r for metric in ("auroc", "aucpr") for r in blocks[metric]] + overall[:2]
    axes = forest_plot(areas, level=level)
    drawn.append(Figure("forest", "23a", "AUROC and AUCPR with 95% intervals, overall and per subgroup",
                        _png(_figure_of(axes))))
    if common.get("imputation") is not None:  # curves are not pooled across imputations
        return drawn
    steps("figures: ROC and PR curves")
    grouping = groups[0] if groups else None
    if grouping is not None and blocks["auroc"][0].n_groups > MAX_PANELS:  # unreadable: the overall curves
        grouping = None
    curve_options = {k: common[k] for k in ("positive", "missing", "weights", "cluster")}
    for name, verb, caption in (("roc", roc_curve, "ROC curves"), ("pr", pr_curve, "Precision-recall curves")):
        curve = verb(data, outcome, scores, grouping, **curve_options)
        axes = plot_curve(curve, facet=curve.n_groups > 1)
        what = f" per {grouping}" if grouping else (" (overall: too many subgroups for one figure each)"
                                                    if groups else "")
        drawn.append(Figure(name, "12e", f"{caption}{what}", _png(_figure_of(axes))))
    steps("figures: calibration and decision curves")
    if "calibration" in blocks:
        source = blocks["calibration"][0] if grouping is not None or not groups else overall[2]
        fig = source.curve(level=level).plot()
        drawn.append(Figure("calibration", "12e", "Calibration curves with 95% pointwise bands, "
                            "and the predicted risks", _png(_figure_of(fig))))
    if "net_benefit" in blocks:
        grid = np.round(np.arange(0.01, 0.61, 0.01), 2).tolist()
        curves = net_benefit(data, outcome, scores, grouping, thresholds=grid, **common)
        drawn.append(Figure("decision", "12e", "Decision curves (net benefit over risk thresholds), with treat all "
                            "and treat none", _png(_figure_of(curves.plot()))))
    return drawn
