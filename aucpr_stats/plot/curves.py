"""PR and ROC curves, with Clémençon-Vayatis confidence bands shaded.

matplotlib is imported inside the functions, so ``import aucpr_stats`` never
needs it (install the ``plot`` extra: ``pip install "aucpr_stats[plot]"``).
Several groups share one axes, one colour each, or get a panel each
(``facet=True``); the prevalence of each group (the precision of a random
ranking) is drawn as a dashed horizontal line. Legends say in words what
each line is: the group, its positives and its prevalence.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..exceptions import InputError

__all__ = ["plot_curve", "plot_band", "group_labels"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(5.5, 4.5))
    return ax


def _panels(ax, n_groups: int, facet: bool) -> list:
    """One Axes per group (``facet=True``: a grid of panels sharing both axes), or the one Axes for all."""
    if not facet:
        return [_axes(ax)] * n_groups
    if ax is not None:
        raise InputError("`facet=True` draws its own grid of panels; leave `ax` out")
    import matplotlib.pyplot as plt

    ncols = min(3, max(n_groups, 1))
    nrows = -(-max(n_groups, 1) // ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 3.3 * nrows), sharex=True, sharey=True,
                             squeeze=False, layout="constrained")
    axes = list(grid.ravel())
    for extra in axes[n_groups:]:
        extra.set_visible(False)
    for above in axes[max(n_groups - ncols, 0):n_groups]:  # the lowest panel of each column shows its x ticks
        above.xaxis.set_tick_params(labelbottom=True)
    return axes[:n_groups]


def group_labels(keys, by: Sequence[str], n_groups: int) -> list[str]:
    """Each group in words: ``"site A"``, ``"site A, age band 70+"``; a score key by its name alone."""
    if not by:
        return ["all rows"] * n_groups
    rows = keys.select(list(by)).iter_rows()
    return [", ".join(str(v) if k == "score" else f"{k.replace('_', ' ')} {'missing' if v is None else v}"
                      for k, v in zip(by, row)) for row in rows]


def _counts_text(n_pos: float, prevalence: float) -> str:
    """``"128 positives, prevalence 10.7%"``."""
    return f"{int(n_pos)} positives, prevalence {100 * prevalence:.1f}%"


def _prevalence_key(ax) -> None:
    """A legend entry saying what the dashed lines are."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="0.4", lw=0.9, ls="--"))
    labels.append("prevalence (random ranking)")
    return handles, labels


def _colours(n: int) -> list:
    import matplotlib.pyplot as plt

    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return [cycle[i % len(cycle)] for i in range(n)]


def _finish_pr(ax, title: str | None, legend: bool, prevalence: bool = False) -> None:
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("Recall")
    ax.set_ylabel("Precision")
    if title:
        ax.set_title(title, fontsize="medium")
    if legend:
        handles, labels = _prevalence_key(ax) if prevalence else ax.get_legend_handles_labels()
        ax.legend(handles, labels, loc="upper right", fontsize="small", frameon=False)


def _finish_roc(ax, title: str | None, legend: bool) -> None:
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":", label="chance (AUROC 0.5)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("False positive rate (1 \u2212 specificity)")
    ax.set_ylabel("True positive rate (sensitivity)")
    if title:
        ax.set_title(title, fontsize="medium")
    if legend:
        ax.legend(loc="lower right", fontsize="small", frameon=False)


def _result(axes: list, facet: bool):
    return axes[0] if not facet else np.array(axes, dtype=object)


def plot_curve(result: Any, ax=None, *, method: str = "step", n_points: int = 501, prevalence: bool = True,
               title: str | None = None, legend: bool = True, facet: bool = False):
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
        Of the axes (of the figure with ``facet=True``).
    legend : bool
        A legend naming each group in words, with its positives and
        prevalence (PR) and what the dashed and dotted lines are.
    facet : bool
        One panel per group (a grid, axes shared) instead of one axes.

    Returns
    -------
    matplotlib Axes, or an array of Axes (one per group) with ``facet=True``
    """
    axes = _panels(ax, result.n_groups, facet)
    grid = np.linspace(0.0, 1.0, n_points)
    y, _ = result.values_at(grid, method)
    labels = group_labels(result.keys, result.by, result.n_groups)
    colours = _colours(result.n_groups)
    is_pr = result.curve == "pr"
    for k, axis in enumerate(axes):
        counts = _counts_text(result.n_pos[k], result.prevalence[k])
        if np.isfinite(y[k]).any():
            axis.plot(grid, y[k], color=colours[k] if not facet else "C0", lw=1.6,
                      label="_curve" if facet else f"{labels[k]} ({counts})" if result.by else counts,
                      drawstyle="steps-post" if method == "step" and not is_pr else "default")
            if is_pr and prevalence:
                axis.axhline(result.prevalence[k], color=colours[k] if not facet else "C0", lw=0.9, ls="--",
                             alpha=0.8)
        if not (facet or k == len(axes) - 1):
            continue  # one axes for every group: finished once, after the last
        panel_title = f"{labels[k]}\n({counts})" if facet else title
        if is_pr:
            _finish_pr(axis, panel_title, legend, prevalence)
        else:
            _finish_roc(axis, panel_title, legend)
    if facet and title:
        axes[0].figure.suptitle(title)
    return _result(axes, facet)


def plot_band(band: Any, ax=None, *, prevalence: bool = True, shade_alpha: float = 0.22,
              title: str | None = None, legend: bool = True, facet: bool = False):
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
        A legend naming each group in words with the band's half-width.
    facet : bool
        One panel per group (a grid, axes shared) instead of one axes.

    Returns
    -------
    matplotlib Axes, or an array of Axes (one per group) with ``facet=True``
    """
    axes = _panels(ax, band.n_groups, facet)
    labels = group_labels(band.keys, band.by, band.n_groups)
    colours = _colours(band.n_groups)
    kind = {"smoothed_bootstrap": "smoothed bootstrap band", "bootstrap": "bootstrap band",
            "pointwise": "pointwise intervals"}[band.method]
    if band.studentized:
        kind = f"studentised {kind}"
    for k, axis in enumerate(axes):
        colour = colours[k] if not facet else "C0"
        label = "estimate" if facet else labels[k]
        if np.isfinite(band.estimate[k]).any():
            if band.method != "pointwise" and not band.studentized and np.isfinite(band.r_delta[k]):
                label = f"{label} (band \u00b1{band.r_delta[k] / np.sqrt(band.n_pos[k] + band.n_neg[k]):.3f})"
            axis.fill_between(band.recall, band.lower[k], band.upper[k], color=colour, alpha=shade_alpha, lw=0)
            axis.plot(band.recall, band.estimate[k], color=colour, lw=1.6, label=label)
            if prevalence:
                axis.axhline(band.prevalence[k], color=colour, lw=0.9, ls="--", alpha=0.8)
        if facet or k == len(axes) - 1:
            panel_title = f"{labels[k]}\n({_counts_text(band.n_pos[k], band.prevalence[k])})" if facet else None
            _finish_pr(axis, panel_title, legend, prevalence)
    if title is None:
        title = f"PR curve, {band.level:.0%} {kind} over recall [{band.recall[0]:.2g}, {band.recall[-1]:.2g}]"
    if facet:
        axes[0].figure.suptitle(title)
    else:
        axes[0].set_title(title, fontsize="medium")
    return _result(axes, facet)
