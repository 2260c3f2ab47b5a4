"""One-vs-rest curves of a multiclass result: one line per class, one panel per group and model.

Each class's curve is the binary curve of its column separating it from
every other class, drawn from its tie table (ROC: straight lines between
the points, as the area A' integrates them; precision-recall: the precision
at each distinct score, a tie block crossed as one step). The legend gives
each class its area and cases; a PR panel draws each class's prevalence
(the precision of a random ranking) as a dotted line of its colour.
matplotlib is imported inside the function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import InputError
from .curves import group_labels

__all__ = ["multiclass_curves", "multiclass_forest"]


def _points(ties: Any, segment: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of one segment: (FPR, TPR) with the origin, or (recall, precision)."""
    lo, hi = int(ties.offsets[segment]), int(ties.offsets[segment + 1])
    tp, fp = np.cumsum(ties.pos[lo:hi]), np.cumsum(ties.neg[lo:hi])
    return tp, fp


def multiclass_curves(result: Any, ax: Any = None, *, title: str | None = None):
    """Draw the one-vs-rest curves of every class of ``result`` (``multiclass="ovr"``); returns the figure.

    Parameters
    ----------
    result : MulticlassResult
    ax : matplotlib Axes, optional
        For a result with one group and one model; otherwise a grid of panels is drawn.
    title : str, optional
        The figure's title (by default the result's).
    """
    if result.scheme != "ovr":
        raise InputError("the curves are one-vs-rest: draw them from a result with multiclass='ovr'")
    import matplotlib.pyplot as plt

    rows, layout = result.rows, result.layout
    n_panels = rows.n_groups * result.n_models
    if ax is not None and n_panels != 1:
        raise InputError(f"`ax` takes one panel; this result has {n_panels} (groups x models): leave `ax` out")
    if ax is None:
        ncols = min(3, n_panels)
        nrows = -(-n_panels // ncols)
        fig, grid = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 4.0 * nrows), squeeze=False,
                                 layout="constrained")
        axes = list(grid.ravel())
        for extra in axes[n_panels:]:
            extra.set_visible(False)
    else:
        fig, axes = ax.figure, [ax]
    groups = group_labels(rows.keys, rows.by, rows.n_groups)
    n_areas = len(layout.areas)
    colours = plt.get_cmap("tab10")
    counts = rows.class_counts()
    roc = result.metric == "auroc"
    for panel in range(n_panels):
        g, m = divmod(panel, result.n_models)
        axis = axes[panel]
        for k, level in enumerate(layout.labels[:n_areas]):
            segment = (g * result.n_models + m) * n_areas + k
            tp, fp = _points(result.cells.ties, segment)
            if tp.size == 0 or tp[-1] == 0 or fp[-1] == 0:
                continue
            area = result.estimates[g, m, k]
            shown = f"{area:.3f}" if area < 0.995 or area == 1 else f"{area:.4f}"  # 0.9995 is not 1.000
            label = f"{level}: {shown} ({counts[g, k]} cases)"
            if roc:
                axis.plot(np.r_[0, fp / fp[-1]], np.r_[0, tp / tp[-1]], color=colours(k % 10), lw=1.6, label=label)
            else:
                axis.step(tp / tp[-1], tp / (tp + fp), where="post", color=colours(k % 10), lw=1.6, label=label)
                axis.axhline(tp[-1] / (tp[-1] + fp[-1]), color=colours(k % 10), lw=0.8, ls=":")
        if roc:
            axis.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls="--")
        axis.set_xlim(-0.01, 1.01)
        axis.set_ylim(-0.01, 1.01)
        axis.set_aspect("equal")
        axis.set_xlabel("1 - specificity (false positive rate)" if roc else "recall (sensitivity)")
        axis.set_ylabel("sensitivity (true positive rate)" if roc else "precision (positive predictive value)")
        parts = ([groups[g]] if rows.by else []) + ([f"model {result.models[m]}"] if result.n_models > 1 else [])
        heading = ", ".join(parts)
        axis.set_title(heading, fontsize=10)
        axis.legend(title="class: area (cases)", fontsize=8, title_fontsize=8,
                    loc="lower right" if roc else "lower left")
    what = "ROC" if roc else "precision-recall"
    fig.suptitle(title or f"One-vs-rest {what} curves of {result.outcome}", fontsize=11)
    return fig


def multiclass_forest(frame: Any, *, metric: str, by: Any = (), title: str | None = None, digits: int = 2):
    """Forest plot of a multiclass interval frame: one row per class (or pair), averages as diamonds.

    Rows are grouped by group and model (a bold header row each when there
    are several); AUROC panels draw the chance line at 0.5, AUCPR rows mark
    each class's prevalence (the area of a random ranking) with a grey tick.
    Returns the figure.
    """
    import matplotlib.pyplot as plt

    frame = frame.to_polars() if hasattr(frame, "to_polars") else frame
    block_keys = [*by, *(["score"] if "score" in frame.columns else [])]
    blocks = frame.partition_by(block_keys, maintain_order=True) if block_keys else [frame]
    n_lines = frame.height + (len(blocks) if block_keys else 0)
    fig, axis = plt.subplots(figsize=(7.2, 0.32 * n_lines + 1.3), layout="constrained")
    y, ticks, labels, headers = n_lines, [], [], []
    for block in blocks:
        if block_keys:
            y -= 1
            ticks.append(y)
            labels.append(", ".join(f"{k.replace('_', ' ')} {block[k][0]}" for k in block_keys))
            headers.append(len(labels) - 1)
        for row in block.iter_rows(named=True):
            y -= 1
            average = row["class"] in ("macro", "weighted", "micro")
            estimate, lower, upper = row["estimate"], row["lower"], row["upper"]
            if estimate is not None and np.isfinite(estimate):
                axis.plot([lower, upper], [y, y], color="black", lw=1.2)
                if average:
                    axis.fill([lower, estimate, upper, estimate], [y, y + 0.3, y, y - 0.3], color="black")
                else:
                    axis.plot(estimate, y, "s", color="black", ms=5)
                text = f"{estimate:.{digits}f} ({lower:.{digits}f}\u2013{upper:.{digits}f})"
            else:
                note = row.get("note") or ""
                text = ("no rows of this class" if note.startswith("no rows of class") else
                        "the only class in the group" if note.startswith("only class") else
                        "undefined: a class has no rows" if "no rows of class" in note or "fewer than two" in note
                        else "NA")
            axis.annotate(text, xy=(1.02, y), xycoords=("axes fraction", "data"), va="center", fontsize=8)
            if metric == "aucpr" and row.get("prevalence") is not None:
                axis.plot(row["prevalence"], y, "|", color="0.55", ms=9)
            ticks.append(y)
            labels.append(("    " if block_keys else "") + (f"{row['class']} average" if average else
                                                               str(row["class"])))
    if metric == "auroc":
        axis.axvline(0.5, color="0.6", lw=0.8, ls="--")
    axis.set_yticks(ticks, labels, fontsize=8)
    for index in headers:  # a block's header row (its group and model) in bold
        axis.get_yticklabels()[index].set_fontweight("bold")
    axis.set_ylim(-0.7, n_lines - 0.3)
    axis.set_xlim(0, 1.0)
    axis.set_xlabel(f"{'AUROC' if metric == 'auroc' else 'AUCPR'} ({frame['level'][0]:.0%} CI, {frame['method'][0]})")
    axis.annotate("estimate (CI)", xy=(1.02, n_lines - 0.3), xycoords=("axes fraction", "data"), fontsize=8,
                  fontweight="bold", va="bottom")
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
