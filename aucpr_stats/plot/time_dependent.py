"""Time-dependent areas against the horizon: AUC(t) or AP(t) with pointwise intervals and a simultaneous band."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..exceptions import InputError

__all__ = ["time_dependent_curves"]


def time_dependent_curves(frame: Any, *, metric: str, by: Sequence[str] = (), ax: Any = None,
                          title: str | None = None):
    """Draw every (group, score) curve of an interval frame over its horizons; returns the figure.

    The line joins the estimates, the shaded region is the pointwise
    interval, the dashed lines the simultaneous band (when the frame has
    ``band_lower``). A horizon whose area is undefined leaves a gap.

    Parameters
    ----------
    frame : polars.DataFrame
        :meth:`TimeDependentIntervals.to_polars` of a result with two or more horizons.
    metric : {"aucpr", "auroc"}
    by : sequence of str
    ax : matplotlib Axes, optional
    title : str, optional
    """
    import matplotlib.pyplot as plt

    keys = [*by, *(["score"] if "score" in frame.columns else [])]
    if frame.get_column("horizon").n_unique() < 2:
        raise InputError("a curve over time needs two or more horizons")
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
    else:
        fig = ax.figure
    colours = plt.get_cmap("tab10")
    parts = frame.partition_by(keys, maintain_order=True, include_key=True) if keys else [frame]
    for k, part in enumerate(parts):
        colour = colours(k % 10)
        x = part.get_column("horizon").to_numpy()
        y = part.get_column("estimate").fill_null(np.nan).to_numpy()
        lo = part.get_column("lower").fill_null(np.nan).to_numpy()
        hi = part.get_column("upper").fill_null(np.nan).to_numpy()
        label = ", ".join(str(part[c][0]) if c == "score" else f"{c} {part[c][0]}" for c in keys) if keys \
            else "all rows"
        ax.plot(x, y, color=colour, lw=1.8, marker="o", ms=3, label=label)
        ax.fill_between(x, lo, hi, color=colour, alpha=0.18, lw=0)
        if metric == "aucpr" and "prevalence" in part.columns:  # a score without skill: AP(t) = incidence by t
            ax.plot(x, part.get_column("prevalence").fill_null(np.nan).to_numpy(), color=colour, lw=0.9, ls=":")
        if "band_lower" in part.columns:
            for column in ("band_lower", "band_upper"):
                ax.plot(x, part.get_column(column).fill_null(np.nan).to_numpy(), color=colour, lw=1.0, ls="--")
    if metric == "auroc":
        ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
    ax.set_xlabel("horizon t")
    ax.set_ylabel("AUC(t)" if metric == "auroc" else "AP(t)")
    ax.set_ylim(0, 1.01)
    level = frame.get_column("level")[0]
    note = f"shaded: pointwise {100 * level:g}%" + \
        ("; dashed: simultaneous band" if "band_lower" in frame.columns else "") + \
        ("; dotted: incidence by t (no skill)" if metric == "aucpr" else "")
    heading = title or f"Time-dependent {'AUC' if metric == 'auroc' else 'average precision'}"
    ax.set_title(f"{heading}\n{note}", fontsize=9)
    ax.legend(fontsize=8, loc="lower right" if metric == "auroc" else "best")
    return fig
