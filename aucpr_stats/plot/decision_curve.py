"""Decision curves: net benefit against the risk threshold, per group, for every score, with bands.

:class:`DecisionCurve` (from ``net_benefit(...).curve()``) holds each
group's net benefit at every threshold with its pointwise Wald band and the
two reference strategies, as a frame, and draws it: one panel per group
(the ``by=`` keys but the score), each score a curve with its band shaded,
"treat all" in grey and "treat none" in black. The y-axis runs from
-10% to 100% of the largest net benefit a perfect model reaches (the
prevalence under opt-in; dcurves' limits), so that the steep fall of
"treat all" at high thresholds does not flatten the curves that matter.
matplotlib is imported on first drawing.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from .._validate import SCORE_KEY
from ..exceptions import InputError
from .curves import group_labels

__all__ = ["DecisionCurve"]


@attrs.frozen(eq=False)
class DecisionCurve:
    """The decision curves of a :class:`~aucpr_stats.results_net_benefit.NetBenefitResult`.

    Attributes
    ----------
    frame : polars.DataFrame
        One row per group and threshold: the group keys, ``threshold``,
        ``net_benefit``, ``lower``/``upper`` (pointwise Wald band; null
        without ``level``), ``treat_all``, ``treat_none``, ``level``, ``note``.
    result : NetBenefitResult
    """

    frame: pl.DataFrame
    result: Any = attrs.field(repr=False)

    @classmethod
    def of(cls, result, level: float | None = 0.95) -> "DecisionCurve":
        """The net benefit rows of ``result``, with the Wald band at ``level`` (None: no band)."""
        if not any(record.statistic == "net_benefit" for record in result.records):
            raise InputError("a decision curve draws net benefit: estimate with statistic='net_benefit' (the default)")
        if level is None:
            frame = result.to_polars().filter(pl.col("estimator") == "net_benefit")
            frame = frame.with_columns(pl.lit(None, pl.Float64).alias("lower"), pl.lit(None, pl.Float64).alias("upper"),
                                       pl.lit(None, pl.Float64).alias("level"))
        else:
            frame = result.conf_int_polars(method="wald", level=level).filter(pl.col("estimator") == "net_benefit")
        keys = list(result.by)
        frame = frame.rename({"estimate": "net_benefit"}).select(
            *keys, "threshold", "net_benefit", "lower", "upper", "treat_all", "treat_none", "level", "note")
        return cls(frame, result)

    def to_polars(self) -> pl.DataFrame:
        return self.frame

    def to_frame(self):
        """The curves in the caller's frame type."""
        return _frames.to_caller(self.frame, self.result.frame_kind)

    def _panels(self) -> tuple[list[str], np.ndarray, list[str]]:
        """(panel labels, each row's panel, each row's score label)."""
        result = self.result
        panel_by = [c for c in result.by if c != SCORE_KEY]
        several = SCORE_KEY in result.by
        if panel_by:
            panels = self.frame.select(panel_by).with_row_index("__i")
            first = panels.unique(subset=panel_by, keep="first", maintain_order=True)
            labels = group_labels(first.drop("__i"), panel_by, first.height)
            index = panels.join(first.with_row_index("__panel").drop("__i"), on=panel_by, how="left",
                                nulls_equal=True).sort("__i")["__panel"].to_numpy()
        else:
            labels, index = ["all rows"], np.zeros(self.frame.height, dtype=np.int64)
        scores = (self.frame[SCORE_KEY].cast(pl.String).to_list() if several
                  else [str(result.score)] * self.frame.height)
        return labels, index, scores

    def _group_of_panel(self, p: int) -> int:
        """A group (row of the result's keys) drawn in panel ``p``: the panel's groups share their rows."""
        labels, panel, _ = self._panels()
        rows = np.flatnonzero(panel == p)
        per_group = self.frame.height // max(self.result.n_groups, 1)
        return int(rows[0] // per_group) if rows.size else 0

    def plot(self, ax=None, *, title: str | None = None, ncols: int = 3, ylim: tuple | None = None,
             xlim: tuple | None = None):
        """One panel per group: each score's decision curve with its band, treat all and treat none.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Draw into this axes (one panel only).
        title : str, optional
        ncols : int
            Panels per row.
        ylim, xlim : (float, float), optional
            Axis limits; default y from -10% to 100% of the largest net
            benefit (the prevalence under opt-in), x the thresholds' range.

        Returns
        -------
        matplotlib Figure
        """
        import matplotlib.pyplot as plt

        labels, panel, scores = self._panels()
        n_panels = len(labels)
        if ax is not None and n_panels > 1:
            raise InputError(f"`ax` takes one panel; this result has {n_panels} groups (leave `ax` out)")
        if ax is None:
            ncols = max(1, min(ncols, n_panels))
            nrows = -(-n_panels // ncols)
            fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.6 * nrows), squeeze=False,
                                     layout="constrained")
            axes = axes.ravel()
            for extra in axes[n_panels:]:
                extra.set_visible(False)
        else:
            fig, axes = ax.figure, [ax]
        f = self.frame
        threshold = f["threshold"].to_numpy()
        columns = {c: f[c].to_numpy().astype(np.float64) for c in ("net_benefit", "lower", "upper", "treat_all",
                                                                   "treat_none")}
        level = f["level"].drop_nulls()
        names = list(dict.fromkeys(scores))
        colour = {name: f"C{k % 10}" for k, name in enumerate(names)}
        scores_arr = np.asarray(scores, dtype=object)
        opt_out = self.result.policy == "opt-out"
        for p, axis in enumerate(axes[:n_panels]):
            in_panel = panel == p
            first = scores_arr[in_panel][0] if in_panel.any() else None
            ref = in_panel & (scores_arr == first)
            axis.plot(threshold[ref], columns["treat_all"][ref], color="0.6", lw=1.2, label="treat all")
            axis.plot(threshold[ref], columns["treat_none"][ref], color="0.1", lw=1.2, label="treat none")
            top = max(np.nanmax(np.r_[columns["treat_all"][ref], columns["treat_none"][ref], 1e-9]), 1e-9)
            for name in names:
                rows = in_panel & (scores_arr == name)
                if not rows.any():
                    continue
                if level.len():
                    axis.fill_between(threshold[rows], columns["lower"][rows], columns["upper"][rows],
                                      color=colour[name], alpha=0.2, lw=0)
                axis.plot(threshold[rows], columns["net_benefit"][rows], color=colour[name], lw=1.6, label=name)
            axis.set_ylim(*(ylim or (-0.1 * top, top * 1.02)))
            axis.set_xlim(*(xlim or (float(np.nanmin(threshold)), float(np.nanmax(threshold)))))
            axis.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{100 * v:.0f}%"))
            axis.set_xlabel("Threshold probability")
            axis.set_ylabel("Net benefit" + (" (opt-out)" if opt_out else ""))
            events = self.result.n_pos[self._group_of_panel(p)]
            axis.set_title(("" if labels[p] == "all rows" else f"{labels[p]} ") + f"({events:g} events)",
                           fontsize="medium")
            axis.grid(True, color="0.92", lw=0.6)
            if p == 0:
                band = f" ({float(level[0]):.0%} pointwise band)" if level.len() else ""
                axis.legend(loc="upper right", fontsize="x-small", frameon=False, title=band.strip(" ()") or None,
                            title_fontsize="x-small")
        if title:
            fig.suptitle(title)
        return fig
