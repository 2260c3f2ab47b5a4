"""PR and ROC curves, with Clémençon-Vayatis confidence bands shaded.

matplotlib is imported inside the functions, so ``import aucpr_stats`` never
needs it (install the ``plot`` extra: ``pip install "aucpr_stats[plot]"``).
Several groups share one axes, one colour each; the prevalence of each group
(the precision of a random ranking) is drawn as a dashed horizontal line.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["plot_curve", "plot_band"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(5.5, 4.5))
    return ax


def _labels(keys, by: Sequence[str], n_groups: int) -> list[str]:
    if not by:
        return ["all rows"] * n_groups
    rows = keys.select(list(by)).iter_rows()
    if len(by) == 1:
        return [str(row[0]) for row in rows]
    return [", ".join(f"{k}={v}" for k, v in zip(by, row)) for row in rows]


def _colours(n: int) -> list:
    import matplotlib.pyplot as plt

    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return [cycle[i % len(cycle)] for i in range(n)]


def _finish_pr(ax, title: str | None, legend: bool) -> None:
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("Recall")
    ax.set_ylabel("Precision")
    if title:
        ax.set_title(title)
    if legend:
        ax.legend(loc="upper right", fontsize="small", frameon=False)


def plot_curve(result: Any, ax=None, *, method: str = "step", n_points: int = 501, prevalence: bool = True,
               title: str | None = None, legend: bool = True):
    """Plot the empirical curve of every group of a curve result.

    Parameters
    ----------
    result : PrCurveResult or RocCurveResult
    ax : matplotlib Axes, optional
        Drawn into a new figure when None.
    method : {"step", "interpolated"}
        How the curve is read between points (see ``.evaluate``).
    n_points : int
        Grid points over [0, 1] (the jumps of the step curve are also drawn
        exactly when the curve is read at every point).
    prevalence : bool
        PR only: a dashed line at each group's prevalence.
    title : str, optional
    legend : bool

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    grid = np.linspace(0.0, 1.0, n_points)
    y, _ = result.values_at(grid, method)
    labels = _labels(result.keys, result.by, result.n_groups)
    colours = _colours(result.n_groups)
    is_pr = result.curve == "pr"
    for k in range(result.n_groups):
        if not np.isfinite(y[k]).any():
            continue
        ax.plot(grid, y[k], color=colours[k], lw=1.6, label=labels[k] if result.by else None,
                drawstyle="steps-post" if method == "step" and not is_pr else "default")
        if is_pr and prevalence:
            ax.axhline(result.prevalence[k], color=colours[k], lw=0.9, ls="--", alpha=0.8)
    if is_pr:
        _finish_pr(ax, title, legend and bool(result.by))
    else:
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("False positive rate")
        ax.set_ylabel("True positive rate (recall)")
        if title:
            ax.set_title(title)
        if legend and result.by:
            ax.legend(loc="lower right", fontsize="small", frameon=False)
    return ax


def plot_band(band: Any, ax=None, *, prevalence: bool = True, shade_alpha: float = 0.22,
              title: str | None = None, legend: bool = True):
    """Plot the empirical PR curve of every group with its confidence band shaded.

    Parameters
    ----------
    band : BandResult
        From :meth:`PrCurveResult.band <aucpr_stats.curves.PrCurveResult.band>`.
    ax : matplotlib Axes, optional
    prevalence : bool
        A dashed line at each group's prevalence (a random ranking's precision).
    shade_alpha : float
        Opacity of the band.
    title : str, optional
        Default: the method and level.
    legend : bool

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    labels = _labels(band.keys, band.by, band.n_groups)
    colours = _colours(band.n_groups)
    kind = {"smoothed_bootstrap": "smoothed bootstrap band", "bootstrap": "bootstrap band",
            "pointwise": "pointwise intervals"}[band.method]
    if band.studentized:
        kind = f"studentised {kind}"
    for k in range(band.n_groups):
        if not np.isfinite(band.estimate[k]).any():
            continue
        label = labels[k]
        if band.method != "pointwise" and not band.studentized and np.isfinite(band.r_delta[k]):
            label = f"{label} (±{band.r_delta[k] / np.sqrt(band.n_pos[k] + band.n_neg[k]):.3f})"
        ax.fill_between(band.recall, band.lower[k], band.upper[k], color=colours[k], alpha=shade_alpha, lw=0)
        ax.plot(band.recall, band.estimate[k], color=colours[k], lw=1.6, label=label)
        if prevalence:
            ax.axhline(band.prevalence[k], color=colours[k], lw=0.9, ls="--", alpha=0.8)
    if title is None:
        title = f"PR curve, {band.level:.0%} {kind} over recall [{band.recall[0]:.2g}, {band.recall[-1]:.2g}]"
    _finish_pr(ax, title, legend)
    return ax
