"""Forest plot of per-group estimates with their confidence intervals, as journals print subgroup figures.

One row per group (and score, estimator, method), one panel per metric
(AUCPR, AUROC) sharing the rows, a reference in each panel (each group's
prevalence for AUCPR, 0.5 for AUROC), the values printed under a header at
the right of each panel. Results with different groupings (by sex, by age
band) stack as blocks under a header row per variable, with the ungrouped
results as an Overall row on top (a diamond), like
:func:`~aucpr_stats.report.publication_table`.

matplotlib is imported inside the function, so ``import aucpr_stats`` never
needs it (install the ``plot`` extra: ``pip install "aucpr_stats[plot]"``).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import polars as pl

from .._validate import SCORE_KEY, level_iv
from ..exceptions import InputError, InputTypeError
from ..intervals.driver import accepted_options
from ..report import format_cell, pretty_name
from ..report.cells import Labels, level_text
from ..report.publication import grouping, record_names

__all__ = ["forest_plot", "forest_data"]

_METRIC_NAMES = {"aucpr": "AUCPR", "auroc": "AUROC"}

#: A calibration result draws one panel per statistic: its name, and the value of perfect calibration.
_CALIBRATION_PANELS = {"oe_ratio": ("Observed/expected", 1.0), "citl": ("Calibration-in-the-large", 0.0),
                       "slope": ("Calibration slope", 1.0), "intercept": ("Calibration intercept", 0.0),
                       "brier": ("Brier score", None), "scaled_brier": ("Scaled Brier score", 0.0),
                       "ici": ("ICI", 0.0), "e50": ("E50", 0.0), "e90": ("E90", 0.0), "emax": ("Emax", 0.0),
                       "spiegelhalter_z": ("Spiegelhalter z", 0.0), "spiegelhalter_p": ("Spiegelhalter p", None)}


def _panel_of(metric: str, estimator: str) -> str:
    """The panel of a row: its metric, or for calibration ``"calibration:<statistic>"`` (scales differ), for net
    benefit ``"net_benefit:<statistic>@<threshold>"``."""
    return f"{metric}:{estimator}" if metric in ("calibration", "net_benefit") else metric


def _net_benefit_name(estimator: str) -> str:
    """``"net_benefit@0.1"`` as ``"Net benefit at 10%"``."""
    base, _, at = estimator.partition("@")
    return f"{pretty_name(base).capitalize()} at {100 * float(at):g}%"


def _frame(result: Any, method: Any, level: float, options: Mapping[str, Any]) -> pl.DataFrame:
    """Estimates (and bounds) of one result with its counts, one row per (group, score, estimator, method)."""
    if _is_meta(result):  # the sites with the intervals the meta-analysis read (its variances, pooling scale)
        point = record_names(result.result.to_polars())
        keys = list(result.by)
        at = pl.col("stated_prevalence") if "stated_prevalence" in point.columns else pl.col("prevalence")
        counts = point.select(*keys, "estimator", "n_pos", "n_neg", at.alias("prevalence"))
        sites = record_names(result.sites.select(*keys, "estimator", "estimate", "lower", "upper")).with_columns(
            method=pl.lit(result.variance_method))
        return sites.join(counts, on=[*keys, "estimator"], how="left", nulls_equal=True, maintain_order="left")
    m = method.get(result.metric) if isinstance(method, Mapping) else method
    point = record_names(result.to_polars())
    if m is None:
        return point.with_columns(lower=pl.lit(None, dtype=pl.Float64), upper=pl.lit(None, dtype=pl.Float64),
                                  method=pl.lit(None, dtype=pl.String))
    # one set of options for every result: each method gets those it takes (a seed only where it resamples)
    frame = record_names(result.conf_int_polars(method=None if m == "default" else m, level=level,
                                                **accepted_options(result, m, dict(options))))
    keys = list(result.by)
    # the baseline of each AUCPR: the prevalence it is at (stated, else the group's own)
    at = pl.col("stated_prevalence") if "stated_prevalence" in point.columns else pl.col("prevalence")
    counts = point.select(*keys, "estimator", "n_pos", "n_neg", at.alias("prevalence"))
    frame = frame.drop([c for c in ("n_pos", "n_neg", "prevalence") if c in frame.columns])
    return frame.join(counts, on=[*keys, "estimator"], how="left", nulls_equal=True, maintain_order="left")


def _is_meta(result: Any) -> bool:
    """A meta-analysis (``result.meta()``): its sites are drawn, then the pooled rows."""
    return hasattr(result, "sites_frame") and hasattr(result, "leave_one_out")


def _pooled_rows(r: Any, block: tuple, several_scores: bool, per_metric: dict, labels: Mapping[str, str],
                 rows: list, values: dict) -> None:
    """The pooled diamond of each analysis of a meta result, and its prediction-interval row."""
    name = labels.get("random_effects", f"Random effects ({r.method}, {r.ci.upper().replace('_ADHOC', ' ad hoc')})")
    for row in record_names(r.table).iter_rows(named=True):
        panel = _panel_of(r.metric, row["estimator"])
        names = per_metric[panel]
        parts = [str(labels.get(str(row[k]), row[k])) for k in r.split if k != SCORE_KEY]
        if several_scores:
            parts.append(str(labels.get(str(row[SCORE_KEY]), row[SCORE_KEY])))
        if len(names["estimator"]) > 1:
            parts.append(labels.get(str(row["estimator"]), pretty_name(str(row["estimator"]))))
        key = ("pooled", block, tuple(row[k] for k in r.split), row["estimator"])
        rows.append({"id": key, "text": name + (f" \u00b7 {', '.join(parts)}" if parts else ""),
                     "kind": "pooled", "n_pos": None, "n_neg": None})
        values.setdefault(panel, {})[key] = (row["estimate"], row["lower"], row["upper"], None)
        if r.prediction_interval:
            pi_key = ("prediction", *key[1:])
            rows.append({"id": pi_key, "text": labels.get("prediction_interval", "Prediction interval"),
                         "kind": "prediction", "n_pos": None, "n_neg": None})
            values[panel][pi_key] = (None, row["pi_lower"], row["pi_upper"], None)


def _results_iv(results: Any) -> list:
    """``results`` as a non-empty list of the library's results (one result is a list of one)."""
    if not isinstance(results, (list, tuple)):
        results = [results]
    if not results:
        raise InputError("`results` must hold at least one result")
    for r in results:
        if not hasattr(r, "to_polars") or not hasattr(r, "by") or not hasattr(r, "metric"):
            raise InputTypeError(f"`results` must hold aucpr_stats results; got {type(r).__name__}")
    return list(results)


def _layout(results: Sequence[Any], method: Any, level: float, labels: Mapping[str, str],
            options: Mapping[str, Any], overall_label: str):
    """The rows of the figure and, per metric, the numbers of each row.

    Returns ``rows`` (dicts with ``id``, ``text``, ``kind`` in ``"overall"``,
    ``"header"``, ``"level"``, and counts), and ``values[metric][id]`` =
    (estimate, lower, upper, prevalence).
    """
    blocks: dict[tuple, list] = {}
    for r in results:
        blocks.setdefault(grouping(r), []).append(r)
    stacked = len(blocks) > 1
    frames = {id(r): _frame(r, method, level, options) for r in results}
    several_scores = len({s for r in results for s in (r.score if isinstance(r.score, tuple) else (r.score,))}) > 1
    # estimators and methods vary by metric (interpolated median / logit for AUCPR, A' / DeLong for AUROC):
    # the panels share a row when they share the group and score; names show only where a metric has several
    per_metric: dict[str, dict] = {}
    for r in results:
        for row in frames[id(r)].select("estimator", "method").iter_rows(named=True):
            names = per_metric.setdefault(_panel_of(r.metric, row["estimator"]), {"estimator": [], "method": []})
            for c in ("estimator", "method"):
                if row[c] not in names[c]:
                    names[c].append(row[c])
    rows: list[dict] = []
    seen: set = set()
    values: dict[str, dict] = {}
    order = sorted(blocks, key=lambda g: g != ())  # the ungrouped (Overall) block first
    for block in order:
        kind = "overall" if block == () and stacked else "level"
        if block and stacked:
            rows.append({"id": ("header", block), "text": " \u00d7 ".join(labels.get(c, c) for c in block),
                         "kind": "header", "n_pos": None, "n_neg": None})
        for r in blocks[block]:
            for row in frames[id(r)].iter_rows(named=True):
                panel = _panel_of(r.metric, row["estimator"])
                names = per_metric[panel]
                parts = [str(labels.get(str(row[k]), "Missing" if row[k] is None else row[k])) for k in block]
                extra = [str(labels.get(str(row[SCORE_KEY]), row[SCORE_KEY]))] if several_scores else []
                extra += [labels.get(str(row[c]), pretty_name(str(row[c]))) for c in ("estimator", "method")
                          if len(names[c]) > 1]
                key = (block, tuple(row[k] for k in block), row.get(SCORE_KEY) if several_scores else None,
                       *(names[c].index(row[c]) for c in ("estimator", "method")))
                if key not in seen:
                    seen.add(key)
                    head = ", ".join(parts) if parts else (overall_label if stacked else "All")
                    rows.append({"id": key, "text": head + (f" \u00b7 {', '.join(extra)}" if extra else ""),
                                 "kind": kind, "n_pos": row["n_pos"], "n_neg": row["n_neg"]})
                values.setdefault(panel, {})[key] = (row["estimate"], row.get("lower"), row.get("upper"),
                                                     row["prevalence"])
            if _is_meta(r):
                _pooled_rows(r, block, several_scores, per_metric, labels, rows, values)
    return rows, values, per_metric


def forest_plot(
    results: Any,
    *,
    method: Any = "default",
    level: float = 0.95,
    ax: Any = None,
    labels: Mapping[str, str] | None = None,
    reference: Any = "auto",
    counts: bool = True,
    values: bool = True,
    digits: int = 2,
    title: str | None = None,
    xlim: tuple[float, float] | None = None,
    overall_label: str = "Overall",
    **conf_int_options: Any,
):
    """Forest plot: one row per group with the estimate and its confidence interval, one panel per metric.

    Parameters
    ----------
    results : result or list of results
        :class:`~aucpr_stats.results.AucprResult` or
        :class:`~aucpr_stats.results.AurocResult` (grouped or not, one or
        several scores and estimators). Every (group, score, estimator,
        method) combination is one row. AUCPR and AUROC results go to
        panels side by side that share the rows. Results with different
        groupings stack as blocks, each under a header row naming its
        variable; ungrouped results among them give the Overall row on top,
        drawn as a diamond.
    method : "default", None, str or dict
        Interval method passed to ``result.conf_int``; ``"default"`` uses
        each result's default, None plots point estimates only, a dict maps
        a metric (``"aucpr"``, ``"auroc"``) to its method.
    level : float
        Confidence level.
    ax : matplotlib Axes or sequence of Axes, optional
        Where to draw: one Axes per metric; a new figure when omitted.
    labels : dict, optional
        Display labels for grouping variables, group values, scores,
        metrics, estimators and methods.
    reference : "auto", None or float
        "auto" marks each group's prevalence in the AUCPR panel (the AUCPR of
        a score that carries no information; Boyd et al. 2013) and draws a
        line at 0.5 in the AUROC panel. A float draws a vertical line there
        in every panel; None draws nothing.
    counts : bool
        Add "(n=..., ... pos)" to each row label.
    values : bool
        Print "estimate (lower–upper)" at the right of each panel, under a
        header naming the metric and the interval.
    digits : int
        Decimals of the printed values.
    title : str, optional
        Title of the figure.
    xlim : (float, float), optional
        Horizontal limits of every panel; default (0, 1) widened if needed.
    overall_label : str
        Label of the Overall row of a stacked figure.
    **conf_int_options
        Passed to ``conf_int`` (e.g. ``n_boot=``, ``seed=``).

    Returns
    -------
    matplotlib.axes.Axes or tuple of Axes
        The Axes of the panel, or one per metric (in the order the metrics
        first appear) when there are several.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import polars as pl
    >>> from aucpr_stats import aucpr, auroc, forest_plot
    >>> df = pl.read_csv("data/synthetic_cohort.csv")
    >>> axes = forest_plot([aucpr(df, "disease", "model_a", by="site"), auroc(df, "disease", "model_a", by="site")])
    >>> [a.get_xlabel() for a in axes]
    ['AUCPR (average precision; logit interval)', "AUROC (A' (Mann-Whitney); Newcombe score interval)"]
    """
    import matplotlib.pyplot as plt

    results = _results_iv(results)
    level = level_iv(level)
    labels = Labels(labels).names  # the tables' default names too ("DeLong", "A' (Mann-Whitney)")
    rows, numbers, names = _layout(list(results), method, level, labels, conf_int_options, overall_label)
    metrics = list(numbers)
    n = len(rows)

    if ax is None:
        width = 4.2 + 4.6 * len(metrics)
        _, axes = plt.subplots(1, len(metrics), figsize=(width, 1.9 + 0.36 * n), sharey=True, squeeze=False,
                               layout="constrained")
        axes = list(axes[0])
    else:
        axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
        if len(axes) != len(metrics):
            raise InputError(f"`ax` must hold one Axes per metric ({len(metrics)}: {metrics}); got {len(axes)}")
    y = np.arange(n)[::-1].astype(float)  # first row on top
    for axis, metric in zip(axes, metrics):
        _panel(axis, metric, rows, numbers[metric], y, level=level, labels=labels, reference=reference,
               values=values, digits=digits, xlim=xlim, names=names[metric])

    tick_labels = []
    for row in rows:
        text = row["text"]
        if counts and row["n_pos"] is not None:
            text += f"  (n={row['n_pos'] + row['n_neg']}, {row['n_pos']} pos)"
        tick_labels.append(text)
    first = axes[0]
    first.set_yticks(y, tick_labels)
    if values:  # a header over the labels, level with the value headers
        groupings = {row["id"][0] for row in rows if row["kind"] == "level"}
        stacked = any(row["kind"] == "header" for row in rows)
        one = next(iter(groupings)) if len(groupings) == 1 else ()
        header = labels.get("subgroup", "Subgroup") if stacked else " \u00d7 ".join(labels.get(c, c) for c in one)
        first.annotate(header,
                       xy=(0.0, 1.0), xycoords="axes fraction", xytext=(-8, 4), textcoords="offset points",
                       va="bottom", ha="right", fontsize=9, fontweight="bold")
    first.set_ylim(-0.7, n - 0.3)
    for tick, row in zip(first.get_yticklabels(), rows):
        if row["kind"] in ("header", "overall", "pooled"):
            tick.set_fontweight("bold")
    for axis in axes[1:]:
        axis.tick_params(axis="y", left=False, labelleft=False)
    if title and len(axes) == 1:
        first.set_title(title, pad=20 if values else 6)
    elif title:
        first.figure.suptitle(title)
    return axes[0] if len(axes) == 1 else tuple(axes)


def forest_data(results: Any, *, method: Any = "default", level: float = 0.95,
                labels: Mapping[str, str] | None = None, overall_label: str = "Overall",
                **conf_int_options: Any) -> pl.DataFrame:
    """The rows :func:`forest_plot` draws, as a tidy frame for plotnine, altair or plotly.

    Same arguments as :func:`forest_plot` (no matplotlib needed). One row per
    drawn row and panel: ``row`` (0 on top), ``label``, ``kind``
    (``"level"``, ``"overall"``, ``"header"``, ``"prediction"`` ...),
    ``metric`` (the panel: ``"aucpr"``, ``"auroc"``, ``"calibration:slope"``),
    ``estimate``, ``lower``, ``upper``, ``n_pos``, ``n_neg`` and
    ``reference``: the value of the panel's reference mark (the row's
    prevalence for AUCPR, the AUCPR of an uninformative score, Boyd et al.
    2013; 0.5 for AUROC; perfect calibration for a calibration statistic).
    Header rows have one row with null metric and values.
    """
    results = _results_iv(results)
    level = level_iv(level)
    names = Labels(labels).names
    rows, numbers, _ = _layout(list(results), method, level, names, conf_int_options, overall_label)
    out: dict[str, list] = {c: [] for c in ("row", "label", "kind", "metric", "estimate", "lower", "upper",
                                            "n_pos", "n_neg", "reference")}
    for i, row in enumerate(rows):
        panels = [m for m in numbers if row["id"] in numbers[m]] or [None]
        for metric in panels:
            estimate, lower, upper, prevalence = numbers[metric][row["id"]] if metric else (None,) * 4
            if metric == "aucpr":
                reference = prevalence
            elif metric == "auroc":
                reference = 0.5
            else:
                reference = _CALIBRATION_PANELS.get(str(metric).partition(":")[2], (None, None))[1]
            for column, value in zip(out, (i, row["text"], row["kind"], metric, estimate, lower, upper,
                                           row["n_pos"], row["n_neg"], reference)):
                out[column].append(value)
    floats = {c: pl.Float64 for c in ("estimate", "lower", "upper", "reference")}
    return pl.DataFrame(out, schema_overrides={"row": pl.Int64, "n_pos": pl.Int64, "n_neg": pl.Int64,
                                               "label": pl.String, "kind": pl.String, "metric": pl.String,
                                               **floats})


def _panel(ax: Any, metric: str, rows: list[dict], numbers: dict, y: np.ndarray, *, level: float,
           labels: Mapping[str, str], reference: Any, values: bool, digits: int, xlim: Any,
           names: Mapping[str, list]) -> None:
    """Draw one metric's markers, bars, reference and value column on ``ax``."""
    def column(i: int) -> np.ndarray:
        return np.array([_float(numbers.get(row["id"], (None,) * 4)[i]) for row in rows])

    est, lo, hi, prev = column(0), column(1), column(2), column(3)
    kinds = np.array([row["kind"] for row in rows])
    diamond = kinds == "overall"
    pooled, predicted = kinds == "pooled", kinds == "prediction"
    for i in np.flatnonzero(pooled & np.isfinite(est) & np.isfinite(lo) & np.isfinite(hi)):
        # the pooled value: a diamond spanning its interval (Lewis & Clarke 2001)
        ax.fill([lo[i], est[i], hi[i], est[i]], [y[i], y[i] + 0.32, y[i], y[i] - 0.32], color="C0", zorder=3,
                label="pooled (random effects)" if i == np.flatnonzero(pooled)[0] else None)
    shown = predicted & np.isfinite(lo) & np.isfinite(hi)
    if shown.any():  # the prediction interval: where the value at a new site is expected
        ax.hlines(y[shown], lo[shown], hi[shown], color="C1", linewidth=4, zorder=2,
                  label=f"{level_text(level)} prediction interval")
    has_ci = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(est) & ~pooled
    if has_ci.any():
        ax.hlines(y[has_ci], lo[has_ci], hi[has_ci], color="0.2", linewidth=1.6, zorder=2)
        ax.plot(np.c_[lo[has_ci], hi[has_ci]].T, np.c_[y[has_ci], y[has_ci]].T, "|", color="0.2",
                markersize=7, zorder=2)
    square = np.isfinite(est) & ~diamond & ~pooled
    ax.plot(est[square], y[square], "s", color="C0", markersize=7, zorder=3,
            label="estimate" + (f" ({level_text(level)} CI)" if has_ci.any() else ""))
    if (np.isfinite(est) & diamond).any():
        ax.plot(est[diamond], y[diamond], "D", color="C0", markersize=9, zorder=3, label="overall")

    if reference == "auto" and metric == "aucpr":
        mask = np.isfinite(prev)
        ax.plot(prev[mask], y[mask], "|", color="C3", markersize=13, markeredgewidth=2, zorder=2,
                label="prevalence the AUCPR is at (that of an uninformative score)")
    elif reference == "auto" and metric == "auroc":
        ax.axvline(0.5, color="C3", linestyle="--", linewidth=1, label="0.5 (uninformative score)")
    elif reference == "auto" and metric.startswith("calibration:"):
        perfect = _CALIBRATION_PANELS.get(metric.split(":", 1)[1], ("", None))[1]
        if perfect is not None:
            ax.axvline(perfect, color="C3", linestyle="--", linewidth=1, label=f"{perfect:g} (perfect calibration)")
    elif reference == "auto" and metric.startswith("net_benefit:"):
        ax.axvline(0.0, color="C3", linestyle="--", linewidth=1, label="0 (treat none)")
    elif reference not in ("auto", None):
        ax.axvline(float(reference), color="C3", linestyle="--", linewidth=1)
    for row, yi in zip(rows, y):
        if row["kind"] == "header":
            ax.axhspan(yi - 0.5, yi + 0.5, color="0.95", zorder=0)

    drawn = has_ci | shown | pooled
    finite = np.concatenate([est[np.isfinite(est)], lo[drawn & np.isfinite(lo)], hi[drawn & np.isfinite(hi)]])
    left = min(0.0, float(finite.min())) if finite.size else 0.0
    right = max(1.0, float(finite.max())) if finite.size else 1.0
    pad = 0.025 * (right - left)  # room for markers and end caps at the limits
    ax.set_xlim(xlim if xlim is not None else (left - pad, right + pad))
    ax.grid(axis="x", color="0.9", zorder=0)
    ax.set_axisbelow(True)
    statistic = metric.split(":", 1)[1] if metric.startswith(("calibration:", "net_benefit:")) else None
    default = (_net_benefit_name(statistic) if metric.startswith("net_benefit:")
               else _CALIBRATION_PANELS.get(statistic, (None,))[0] if statistic
               else _METRIC_NAMES.get(metric, metric.upper()))
    name = labels.get(statistic or metric, default)
    if statistic:  # the panel is the statistic: its axis names only the interval
        names = {"estimator": [], "method": names["method"]}
    # the axis says which estimator and interval the panel shows when its rows do not
    said = [labels.get(str(v), pretty_name(str(v))) + (" interval" if c == "method" else "")
            for c in ("estimator", "method") if len(names[c]) == 1 and names[c][0] is not None for v in names[c]]
    ax.set_xlabel(name + (f" ({'; '.join(said)})" if said else ""))
    if values:
        header = name + (f" ({level_text(level)} CI)" if has_ci.any() else "")
        ax.annotate(header, xy=(1.0, 1.0), xycoords="axes fraction", xytext=(8, 4), textcoords="offset points",
                    va="bottom", ha="left", fontsize=9, fontweight="bold")
        for yi, row, e, a, b in zip(y, rows, est, lo, hi):
            if row["kind"] == "header":
                continue
            if row["kind"] == "prediction":
                text = "(" + format_cell(a, digits=digits, interval=False) + "\u2013" + format_cell(
                    b, digits=digits, interval=False) + ")"
            else:
                text = format_cell(e, a, b, digits=digits, interval=bool(np.isfinite(a) and np.isfinite(b)))
            ax.annotate(text, xy=(1.0, yi), xycoords=("axes fraction", "data"), xytext=(8, 0),
                        textcoords="offset points", va="center", ha="left", fontsize=9)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.6 / max(1.0, 0.36 * len(rows) + 0.6)), ncols=2,
              frameon=False, fontsize=8)


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)
