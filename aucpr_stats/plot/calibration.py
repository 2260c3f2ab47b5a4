"""The calibration curve of every group, with its bands, drawn as journals print it.

:class:`CalibrationCurve` (from ``calibration(...).curve()``) holds the
flexible calibration curve on a grid of predicted risks per group with a
pointwise and a simultaneous band (:mod:`aucpr_stats.intervals.calibration_band`),
as a frame, and draws it: one panel per group, the ideal diagonal dotted, the
curve with the simultaneous band lightly and the pointwise band darker
shaded, and beneath it the distribution of the predicted risks (events
upward, non-events downward, as rms' ``val.prob`` draws its spike
histogram). matplotlib is imported on first drawing.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from .curves import group_labels

__all__ = ["CalibrationCurve"]


@attrs.frozen(eq=False)
class CalibrationCurve:
    """The calibration curves of a :class:`~aucpr_stats.results.CalibrationResult`, one per group.

    Attributes
    ----------
    frame : polars.DataFrame
        One row per group and grid point: the group keys, ``risk`` (the
        predicted risk), ``calibrated`` (the curve), ``lower``/``upper``
        (pointwise band), ``lower_simultaneous``/``upper_simultaneous``,
        ``level``, ``note`` (why a band is missing).
    result : CalibrationResult
        The result the curves were read from (its tables give the histogram).
    """

    frame: pl.DataFrame
    result: Any = attrs.field(repr=False)

    def to_polars(self) -> pl.DataFrame:
        return self.frame

    def to_frame(self):
        """The curves in the caller's frame type."""
        return _frames.to_caller(self.frame, self.result.frame_kind)

    def plot(self, *, bins: int = 50, title: str | None = None, ncols: int = 3):
        """One panel per group: the curve, its bands, the diagonal, and the predicted risks beneath.

        Parameters
        ----------
        bins : int
            Bins of the histogram of predicted risks over [0, 1].
        title : str, optional
            Of the figure.
        ncols : int
            Panels per row.

        Returns
        -------
        matplotlib Figure
        """
        import matplotlib.pyplot as plt

        result = self.result
        n_groups = result.n_groups
        ncols = max(1, min(ncols, n_groups))
        nrows = -(-n_groups // ncols)
        fig = plt.figure(figsize=(3.8 * ncols, 4.4 * nrows), layout="constrained")
        outer = fig.add_gridspec(nrows, ncols)
        labels = group_labels(result.keys, result.by, n_groups)
        risk = self.frame["risk"].to_numpy().reshape(n_groups, -1)
        columns = {c: self.frame[c].to_numpy().reshape(n_groups, -1)
                   for c in ("calibrated", "lower", "upper", "lower_simultaneous", "upper_simultaneous")}
        level = float(self.frame["level"][0]) if self.frame.height else 0.95
        edges = np.linspace(0.0, 1.0, bins + 1)
        ties = result.ties
        for g in range(n_groups):
            inner = outer[g // ncols, g % ncols].subgridspec(2, 1, height_ratios=(4, 1), hspace=0.0)
            ax = fig.add_subplot(inner[0])
            spikes = fig.add_subplot(inner[1], sharex=ax)
            ax.plot([0, 1], [0, 1], color="0.55", lw=0.9, ls=":", label="ideal")
            ax.fill_between(risk[g], columns["lower_simultaneous"][g], columns["upper_simultaneous"][g],
                            color="C0", alpha=0.15, lw=0, label=f"{level:.0%} simultaneous band")
            ax.fill_between(risk[g], columns["lower"][g], columns["upper"][g], color="C0", alpha=0.3, lw=0,
                            label=f"{level:.0%} pointwise band")
            ax.plot(risk[g], columns["calibrated"][g], color="C0", lw=1.6, label="calibration curve")
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_ylabel("Observed proportion")
            events = int(round(float(result.ties.n_pos[g])))
            ax.set_title(f"{labels[g]} ({events} events)", fontsize="medium")
            ax.tick_params(labelbottom=False)
            if g == 0:
                ax.legend(loc="upper left", fontsize="x-small", frameon=False)
            segment = slice(ties.offsets[g], ties.offsets[g + 1])
            p = ties.score[segment]
            up, _ = np.histogram(p, edges, weights=ties.pos[segment])
            down, _ = np.histogram(p, edges, weights=ties.neg[segment])
            top = max(up.max(initial=0), down.max(initial=0), 1)
            spikes.bar(edges[:-1], up / top, width=np.diff(edges), align="edge", color="0.25", lw=0)
            spikes.bar(edges[:-1], -down / top, width=np.diff(edges), align="edge", color="0.65", lw=0)
            spikes.axhline(0, color="0.4", lw=0.5)
            spikes.set_yticks([])
            spikes.set_ylabel("events\nnon-events", fontsize="x-small")
            spikes.set_xlabel("Predicted probability")
        if title:
            fig.suptitle(title)
        return fig
