"""The result of :func:`~aucpr_stats.curves.cv_average.cv_curves`: curves and areas averaged over folds.

It keeps every fold's curve at the grid and every fold's areas, and
computes the averages on request: ``.to_frame()`` the averaged curve with
its pointwise band, ``.folds`` the fold curves, ``.areas()`` the fold areas
with their mean, standard deviation and t interval.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames, _validate
from ..grouped import GroupedResult
from ..intervals.cross_validation import cv_interval, folds_matrix
from ..plot.curves import group_labels
from ..report.display import TabularResult, direction_phrase
from ..ties import TieTable

__all__ = ["CvCurvesResult"]

_AXES = {"roc": ("false positive rate", "true positive rate"), "pr": ("recall", "precision")}


@attrs.frozen(eq=False, repr=False)
class CvCurvesResult(TabularResult, GroupedResult):
    """Curves and areas averaged over cross-validation folds, per group.

    Attributes
    ----------
    ties : TieTable
        One segment per group (all its folds together).
    keys, by, notes, frame_kind, outcome, score
        As every grouped result; ``notes`` says why a group's averages are NaN.
    curve : {"roc", "pr"}
    x : ndarray
        The grid, ``0, 0, 1/B, ..., (B-1)/B, 1, 1`` (the ends doubled as precrec's).
    fold_tables : FoldTables
        The tie table of each (group, fold), their group and fold labels.
    fold_values : ndarray, shape (n_fold_segments, len(x))
        Each fold's curve at ``x`` (NaN for a fold without both classes).
    fold_areas : ndarray, shape (n_fold_segments, n_estimators)
    estimators : tuple of str
    level : float
    """

    ties: TieTable
    keys: pl.DataFrame
    by: tuple[str, ...]
    notes: tuple
    frame_kind: Any
    outcome: str
    score: Any
    curve: str
    x: np.ndarray = attrs.field(eq=False)
    fold_tables: Any = attrs.field(eq=False)
    fold_values: np.ndarray = attrs.field(eq=False)
    fold_areas: np.ndarray = attrs.field(eq=False)
    estimators: tuple
    level: float
    directions: dict = attrs.field(factory=dict)

    # ------------------------------------------------------------------ the pieces
    def _stacked(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Fold values (fold segments, m) as (groups, m, folds), NaN-padded; and the folds per group."""
        matrix, _ = folds_matrix(values, self.fold_tables.group, self.n_groups)
        total = np.bincount(self.fold_tables.group, minlength=self.n_groups)
        return np.moveaxis(matrix, 1, -1), total

    def _averaged(self, values: np.ndarray, level: float, quantile: str) -> dict[str, np.ndarray]:
        """Mean, sd, se and bounds over the folds; NaN for a group with a fold lacking a class."""
        matrix, total = self._stacked(values)
        out = cv_interval(matrix, level, quantile)
        complete = (out["folds"] == total[:, None]) & (total[:, None] > 1)
        for name in ("mean", "se", "lower", "upper"):
            out[name] = np.where(complete, out[name], np.nan)
        out["sd"] = out["se"] * np.sqrt(out["folds"])
        return out

    @property
    def n_folds(self) -> np.ndarray:
        """Folds per group (with and without both classes)."""
        return np.bincount(self.fold_tables.group, minlength=self.n_groups)

    # ------------------------------------------------------------------ the frames
    def to_polars(self) -> pl.DataFrame:
        """The averaged curve: keys, ``x``, ``mean``, ``se``, ``lower``, ``upper``, ``level``, ``n_folds``, ``note``.

        The band is ``mean ± z se`` pointwise (precrec's), cut at 0 and 1.
        """
        out = self._averaged(self.fold_values, self.level, "normal")
        m = self.x.size
        groups = np.repeat(np.arange(self.n_groups), m)
        body = pl.DataFrame({
            "x": np.tile(self.x, self.n_groups),
            "mean": out["mean"].ravel(), "se": out["se"].ravel(),
            # precision and rates live in [0, 1]: the band is cut there (precrec leaves it past the ends)
            "lower": np.clip(out["lower"].ravel(), 0.0, 1.0), "upper": np.clip(out["upper"].ravel(), 0.0, 1.0),
            "level": np.full(groups.size, self.level),
            "n_folds": out["folds"].ravel().astype(np.int64),
            "note": pl.Series([self.notes[g] for g in range(self.n_groups)], dtype=pl.String).gather(groups),
        })
        return self.with_keys(body, groups)

    def _folds_polars(self) -> pl.DataFrame:
        tables = self.fold_tables
        m = self.x.size
        n_seg = tables.ties.n_segments
        order = np.argsort(tables.group, kind="stable")  # group by group, folds in their order
        seg = np.repeat(order, m)
        body = pl.DataFrame({
            "fold": tables.fold.gather(seg) if seg.size else tables.fold.clear(),
            "x": np.tile(self.x, n_seg),
            "y": self.fold_values[order].ravel(),
            "n_pos": tables.ties.n_pos[seg].astype(np.int64), "n_neg": tables.ties.n_neg[seg].astype(np.int64),
        })
        return self.with_keys(body, tables.group[seg])

    @property
    def folds(self):
        """Each fold's curve at the grid (long): keys, ``fold``, ``x``, ``y`` (tpr or precision), ``n_pos``, ``n_neg``."""
        return _frames.to_caller(self._folds_polars(), self.frame_kind)

    def _areas_polars(self, level: float) -> pl.DataFrame:
        tables = self.fold_tables
        n_est = len(self.estimators)
        out = self._averaged(self.fold_areas, level, "t")  # (groups, estimators)
        order = np.argsort(tables.group, kind="stable")
        n_seg = order.size
        # fold rows: group-major, estimator, then fold; each group's summary rows after its fold rows
        fold_group = tables.group[order]
        seg = np.tile(order, n_est)
        est = np.repeat(np.arange(n_est), n_seg)
        rows = np.lexsort((est, np.tile(fold_group, n_est)))
        seg, est = seg[rows], est[rows]
        names = np.asarray(self.estimators, dtype=object)
        folds = pl.DataFrame({
            "statistic": ["fold"] * seg.size,
            "estimator": pl.Series(names[est].tolist(), dtype=pl.String),
            "fold": tables.fold.gather(seg) if seg.size else tables.fold.clear(),
            "estimate": self.fold_areas[seg, est],
        })
        folds = self.with_keys(folds, tables.group[seg]).with_columns(
            *[pl.lit(None, dtype=pl.Float64).alias(c) for c in ("sd", "se", "lower", "upper")],
            pl.lit(level).alias("level"), pl.lit(None, dtype=pl.Int64).alias("n_folds"),
            pl.lit(None, dtype=pl.String).alias("note"))
        g = np.repeat(np.arange(self.n_groups), n_est)
        e = np.tile(np.arange(n_est), self.n_groups)
        summary = self.with_keys(pl.DataFrame({
            "statistic": ["mean"] * g.size,
            "estimator": pl.Series(names[e].tolist(), dtype=pl.String),
            "fold": pl.Series(tables.fold.name, [None] * g.size, dtype=tables.fold.dtype),
            "estimate": out["mean"][g, e], "sd": out["sd"][g, e], "se": out["se"][g, e],
            # an area lives in [0, 1]: its interval is cut there (as precrec's auc_ci)
            "lower": np.clip(out["lower"][g, e], 0.0, 1.0), "upper": np.clip(out["upper"][g, e], 0.0, 1.0),
            "level": np.full(g.size, level),
            "n_folds": out["folds"][g, e].astype(np.int64),
            "note": pl.Series([self.notes[i] for i in g], dtype=pl.String),
        }), g)
        position = np.concatenate([tables.group[seg], g])
        key = np.concatenate([np.zeros(seg.size), np.ones(g.size)])
        frame = pl.concat([folds, summary], how="vertical_relaxed")
        arrange = np.lexsort((key, position))  # each group's fold rows, then its mean rows
        return frame[arrange.tolist()] if frame.height else frame

    def areas(self, level: float | None = None):
        """Each fold's area and, per group and estimator, their mean with the between-fold spread.

        Fold rows (``statistic == "fold"``): keys, ``estimator``, ``fold``
        (the fold's label; null on summary rows), ``estimate``. Summary rows (``statistic == "mean"``, after
        each group's fold rows): ``estimate`` the mean of the ``k`` fold
        areas, ``sd`` their standard deviation, ``se = sd / sqrt(k)``, and
        ``lower``, ``upper`` = ``mean ± t_{k-1, (1+level)/2} se``, cut at 0 and 1;
        ``n_folds`` = ``k``. Folds share training data, so this interval is
        descriptive: no unbiased estimator of the variance of a k-fold mean
        exists (Bengio & Grandvalet 2004), and it tends to be too narrow.

        Parameters
        ----------
        level : float, optional
            Of the t interval; the call's ``level`` by default.
        """
        level = self.level if level is None else _validate.level_iv(level)
        return _frames.to_caller(self._areas_polars(level), self.frame_kind)

    # ------------------------------------------------------------------ display
    def _title(self) -> str:
        label = {"roc": "ROC curve", "pr": "Precision-recall curve"}[self.curve]
        several = isinstance(self.score, tuple)
        groups = [c for c in self.by if not (several and c == "score")]
        scores = ", ".join(self.score) if several else self.score
        grouping = f", by {', '.join(groups)}" if groups else ""
        return (f"{label}{'s' * several} of {scores} for outcome {self.outcome} averaged over the folds of "
                f"{self.fold_tables.column!r}{grouping}{direction_phrase(self.direction)}; areas: mean of the "
                f"folds ± t SE (folds are not independent: descriptive)")

    def _shown(self, digits: int) -> pl.DataFrame:
        frame = self._areas_polars(self.level).filter(pl.col("statistic") == "mean").drop("statistic", "fold")
        return frame.drop("note") if frame["note"].null_count() == frame.height else frame

    def __repr__(self) -> str:
        return (f"CvCurvesResult(curve={self.curve!r}, by={list(self.by)}, groups={self.n_groups}, "
                f"folds={self.fold_tables.ties.n_segments}, grid={self.x.size - 2})")

    def plot(self, ax=None, *, folds: bool = True, band: bool = True, title: str | None = None,
             legend: bool = True):
        """The averaged curve of every group with its pointwise band shaded (and each fold's curve, faint).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Drawn into a new figure when None.
        folds : bool
            Each fold's curve as a thin line.
        band : bool
            The pointwise band ``mean ± z se``.
        title : str, optional
        legend : bool

        Returns
        -------
        matplotlib Axes
        """
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(5.5, 4.5))
        out = self._averaged(self.fold_values, self.level, "normal")
        stacked, _ = self._stacked(self.fold_values)
        labels = group_labels(self.keys, self.by, self.n_groups)
        for g in range(self.n_groups):
            colour = f"C{g % 10}"
            if folds:
                for values in stacked[g].T:
                    if np.isfinite(values).any():
                        ax.plot(self.x, values, color=colour, lw=0.6, alpha=0.35)
            if band and np.isfinite(out["mean"][g]).any():
                ax.fill_between(self.x, np.clip(out["lower"][g], 0, 1), np.clip(out["upper"][g], 0, 1), color=colour,
                                alpha=0.2, lw=0)
            ax.plot(self.x, out["mean"][g], color=colour, lw=1.8,
                    label=f"{labels[g]}, mean of {int(self.n_folds[g])} folds")
        x_label, y_label = _AXES[self.curve]
        if self.curve == "roc":
            ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":")
        ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel=x_label, ylabel=y_label)
        if title:
            ax.set_title(title)
        if legend:
            ax.legend(title=f"band: pointwise {100 * self.level:g}%", fontsize="small")
        return ax
