"""Forest plot of per-group estimates with their confidence intervals.

matplotlib is imported inside the function, so ``import aucpr_stats`` never
needs it (install the ``plot`` extra: ``pip install "aucpr_stats[plot]"``).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import polars as pl

from .._validate import level_iv
from ..exceptions import InputError, InputTypeError
from ..report import format_cell, pretty_name

__all__ = ["forest_plot"]


def _rows(results: Sequence[Any], method: Any, level: float, labels: Mapping[str, str],
          options: Mapping[str, Any]) -> list[dict]:
    """One dict per plotted row: label parts, estimate, bounds, counts, metric."""
    several = len(results) > 1
    rows: list[dict] = []
    for r in results:
        m = method.get(r.metric) if isinstance(method, Mapping) else method
        point = r.to_polars()
        if m is None:
            frame = point.with_columns(lower=pl.lit(None, dtype=pl.Float64), upper=pl.lit(None, dtype=pl.Float64))
        else:
            frame = r.conf_int_polars(method=None if m == "default" else m, level=level, **options)
        keys = list(r.by)
        counts = point.select(*keys, "estimator", "n_pos", "n_neg", "prevalence")
        frame = frame.drop([c for c in ("n_pos", "n_neg", "prevalence") if c in frame.columns])
        frame = frame.join(counts, on=[*keys, "estimator"], how="left", nulls_equal=True, maintain_order="left")
        n_est = len(r.estimators)
        n_methods = frame["method"].n_unique() if "method" in frame.columns else 1
        for row in frame.iter_rows(named=True):
            parts = [str(labels.get(str(row[k]), row[k])) for k in keys]
            extra = []
            if several:
                extra.append(labels.get(r.metric, r.metric_label))
            if n_est > 1:
                extra.append(labels.get(row["estimator"], pretty_name(row["estimator"])))
            if n_methods > 1:
                extra.append(labels.get(row["method"], pretty_name(row["method"])))
            rows.append({
                "label": ", ".join(parts) if parts else "All",
                "extra": ", ".join(extra),
                "estimate": row["estimate"],
                "lower": row.get("lower"),
                "upper": row.get("upper"),
                "n_pos": row["n_pos"],
                "n_neg": row["n_neg"],
                "prevalence": row["prevalence"],
                "metric": r.metric,
            })
    return rows


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
    **conf_int_options: Any,
):
    """Forest plot: one row per group with the estimate and its confidence interval.

    Parameters
    ----------
    results : result or list of results
        :class:`~aucpr_stats.results.AucprResult` or
        :class:`~aucpr_stats.results.AurocResult` (grouped or not, one or
        several scores and estimators). Every (group, score, estimator,
        method) combination is one row.
    method : "default", None, str or dict
        Interval method passed to ``result.conf_int``; ``"default"`` uses
        each result's default, None plots point estimates only, a dict maps
        a metric (``"aucpr"``, ``"auroc"``) to its method.
    level : float
        Confidence level.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made when omitted.
    labels : dict, optional
        Display labels for group values, metrics, estimators and methods.
    reference : "auto", None or float
        "auto" marks each group's prevalence for AUCPR (the AUCPR of a score
        that carries no information; Boyd et al. 2013) and a line at 0.5 for
        AUROC. A float draws a vertical line there; None draws nothing.
    counts : bool
        Add "n=..., ... pos" to each row label.
    values : bool
        Print "estimate (lower–upper)" at the right of each row.
    digits : int
        Decimals of the printed values.
    title : str, optional
    xlim : (float, float), optional
        Horizontal limits; default (0, 1) widened if needed.
    **conf_int_options
        Passed to ``conf_int`` (e.g. ``n_boot=``, ``seed=``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import polars as pl
    >>> from aucpr_stats import aucpr
    >>> from aucpr_stats.plot import forest_plot
    >>> df = pl.read_csv("data/synthetic_cohort.csv")
    >>> ax = forest_plot(aucpr(df, "disease", "model_a", by="site"), method=None)
    """
    import matplotlib.pyplot as plt

    if not isinstance(results, (list, tuple)):
        results = [results]
    if not results:
        raise InputError("`results` must hold at least one result")
    for r in results:
        if not hasattr(r, "to_polars") or not hasattr(r, "by"):
            raise InputTypeError(f"`results` must hold aucpr_stats results; got {type(r).__name__}")
    level = level_iv(level)
    labels = dict(labels or {})
    rows = _rows(list(results), method, level, labels, conf_int_options)
    n = len(rows)

    if ax is None:
        _, ax = plt.subplots(figsize=(9.0, 1.2 + 0.38 * n), layout="constrained")
    y = np.arange(n)[::-1].astype(float)  # first row on top
    est = np.array([np.nan if r["estimate"] is None else r["estimate"] for r in rows], dtype=float)
    lo = np.array([np.nan if r["lower"] is None else r["lower"] for r in rows], dtype=float)
    hi = np.array([np.nan if r["upper"] is None else r["upper"] for r in rows], dtype=float)

    has_ci = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(est)
    if has_ci.any():
        ax.hlines(y[has_ci], lo[has_ci], hi[has_ci], color="0.2", linewidth=1.6, zorder=2)
        ax.plot(np.c_[lo[has_ci], hi[has_ci]].T, np.c_[y[has_ci], y[has_ci]].T, "|", color="0.2",
                markersize=7, zorder=2)
    ok = np.isfinite(est)
    ax.plot(est[ok], y[ok], "s", color="C0", markersize=7, zorder=3,
            label="estimate" + (f" ({level * 100:g}% CI)" if has_ci.any() else ""))

    metrics = {r["metric"] for r in rows}
    if reference == "auto":
        if "aucpr" in metrics:
            prev = np.array([r["prevalence"] if r["metric"] == "aucpr" else np.nan for r in rows], dtype=float)
            mask = np.isfinite(prev)
            ax.plot(prev[mask], y[mask], "D", markerfacecolor="white", markeredgecolor="C3", markersize=6,
                    zorder=2, label="prevalence (uninformative score)")
        if metrics == {"auroc"}:
            ax.axvline(0.5, color="C3", linestyle="--", linewidth=1, label="0.5 (uninformative score)")
    elif reference is not None:
        ax.axvline(float(reference), color="C3", linestyle="--", linewidth=1)

    tick_labels = []
    for r in rows:
        text = r["label"] + (f" \u00b7 {r['extra']}" if r["extra"] else "")
        if counts and r["n_pos"] is not None:
            text += f"  (n={r['n_pos'] + r['n_neg']}, {r['n_pos']} pos)"
        tick_labels.append(text)
    ax.set_yticks(y, tick_labels)
    ax.set_ylim(-0.7, n - 0.3)
    finite = np.concatenate([est[ok], lo[has_ci], hi[has_ci]])
    left = min(0.0, float(finite.min())) if finite.size else 0.0
    right = max(1.0, float(finite.max())) if finite.size else 1.0
    pad = 0.025 * (right - left)  # room for markers and end caps at the limits
    left, right = left - pad, right + pad
    ax.set_xlim(xlim if xlim is not None else (left, right))
    ax.grid(axis="x", color="0.9", zorder=0)
    ax.set_axisbelow(True)
    metric_names = sorted({labels.get(r["metric"], "AUCPR" if r["metric"] == "aucpr" else r["metric"].upper())
                           for r in rows})
    ax.set_xlabel(" / ".join(metric_names))
    if values:
        for yi, r in zip(y, rows):
            text = format_cell(r["estimate"], r["lower"], r["upper"], digits=digits,
                               interval=r["lower"] is not None and not _nan(r["lower"]))
            ax.annotate(text, xy=(1.0, yi), xycoords=("axes fraction", "data"), xytext=(8, 0),
                        textcoords="offset points", va="center", ha="left", fontsize=9)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.55 / max(1.0, 0.35 * n + 0.6)), ncols=2,
              frameon=False, fontsize=8)
    return ax


def _nan(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
