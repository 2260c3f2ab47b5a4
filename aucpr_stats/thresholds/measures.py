"""The intervals of a cut-off's four measures, in the library's long shape (one row per measure and method).

:meth:`CutoffResult.conf_int <aucpr_stats.thresholds.CutoffResult.conf_int>`
reads the counts at each threshold and computes, per measure:

* sensitivity ``tp / n_pos`` and specificity ``tn / n_neg``: a binomial
  proportion, Wilson's or Clopper-Pearson's interval (:mod:`.proportions`);
* PPV ``tp / (tp + fp)`` and NPV ``tn / (tn + fn)`` at the observed
  prevalence: the same, on the cases called positive or negative;
* PPV and NPV at a stated prevalence (Bayes' theorem): the logit interval of
  Mercaldo et al. (2007), whatever ``method`` asks (``method`` reads
  ``"logit"`` on those rows);

and, for weighted or clustered rows (:mod:`.design`), each interval on the
proportion's effective numbers of cases.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import names_or_all_iv
from .design import CutoffUnits, effective_counts
from .proportions import PROPORTION_METHODS, bayes_interval, proportion_interval

__all__ = ["MEASURES", "CutoffCounts", "PREVALENCE_METHOD", "long_frame", "measure_intervals", "methods_iv"]

#: The measures of a cut-off, in the order of the long frame.
MEASURES = ("sensitivity", "specificity", "ppv", "npv")

#: The method of PPV and NPV at a stated prevalence (Mercaldo et al. 2007's logit interval).
PREVALENCE_METHOD = "logit"

_ZERO_COUNT_NOTE = "a zero count: 0.5 added to each count for the PPV/NPV interval"


@attrs.frozen(eq=False)
class CutoffCounts:
    """What the intervals of every cut-off row are computed from.

    Attributes
    ----------
    group : ndarray of int64
        The group of each row (rows sorted by group).
    threshold : ndarray of float64
        Each row's threshold on the tie table as read (scores negated where
        read ``direction="lower"``): a case is called positive when its score
        there is ``>= threshold``. NaN for a best threshold a group lacks.
    tp, fp : ndarray of float64
        The (weighted) positives and negatives called positive at each row;
        NaN where there is no threshold.
    n_pos, n_neg : ndarray of float64
        The (weighted) positives and negatives of each row's group.
    n_groups : int
        Number of groups.
    units : CutoffUnits or None
        The sampling units of weighted or clustered rows (:mod:`.design`).
    """

    group: np.ndarray
    threshold: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    n_groups: int
    units: CutoffUnits | None = None

    @property
    def fn(self) -> np.ndarray:
        """Positives called negative."""
        return self.n_pos - self.tp

    @property
    def tn(self) -> np.ndarray:
        """Negatives called negative."""
        return self.n_neg - self.fp

    def proportions(self) -> dict:
        """Per measure, the (k, n) its interval is computed on: the counts, or their effective numbers."""
        if self.units is not None:
            return effective_counts(self.units, self.group, self.threshold, self.n_groups)
        tp, fp, tn, fn = self.tp, self.fp, self.tn, self.fn
        return {"sensitivity": (tp, self.n_pos), "specificity": (tn, self.n_neg), "ppv": (tp, tp + fp),
                "npv": (tn, tn + fn)}


def measure_intervals(counts: CutoffCounts, methods: tuple, level: float, prevalence: float | None) -> dict:
    """The limits of every measure by every method, for every row of ``counts``.

    Returns
    -------
    dict
        ``{(measure, method): (lower, upper, note)}`` in the order of the
        long frame: measures in :data:`MEASURES` order, then ``methods``; at a
        stated prevalence PPV and NPV have one entry, under
        :data:`PREVALENCE_METHOD`. ``note`` is None or an array of per-row
        notes (a zero count given 0.5 for the logit interval).
    """
    eff = counts.proportions()
    out: dict = {}
    bayes = None
    if prevalence is not None:
        (k_se, n_se), (k_sp, n_sp) = eff["sensitivity"], eff["specificity"]
        ppv_lo, ppv_hi, npv_lo, npv_hi, adjusted = bayes_interval(k_se, n_se - k_se, k_sp, n_sp - k_sp,
                                                                  prevalence, level)
        note = np.where(adjusted, _ZERO_COUNT_NOTE, None).astype(object)
        bayes = {"ppv": (ppv_lo, ppv_hi, note), "npv": (npv_lo, npv_hi, note)}
    for measure in MEASURES:
        if bayes is not None and measure in bayes:
            out[(measure, PREVALENCE_METHOD)] = bayes[measure]
            continue
        for method in methods:
            lower, upper = proportion_interval(*eff[measure], level, method)
            out[(measure, method)] = (lower, upper, None)
    return out


def methods_iv(method: Any, default: str) -> tuple:
    """``method`` of :meth:`CutoffResult.conf_int`: None (the call's), a name, a list of names or ``"all"``."""
    if method is None:
        return (default,)
    return tuple(names_or_all_iv(method, "method", list(PROPORTION_METHODS)))


def long_frame(points: pl.DataFrame, counts: CutoffCounts, methods: tuple, level: float,
               prevalence: float | None, keys: pl.DataFrame | None) -> pl.DataFrame:
    """The long frame of :meth:`CutoffResult.conf_int`: one row per cut-off row, measure and method."""
    limits = measure_intervals(counts, methods, level, prevalence)
    n = points.height
    order = list(limits)
    k = len(order)
    row = np.repeat(np.arange(n), k)  # row-major: every measure and method of a row together
    lower = np.empty(n * k)
    upper = np.empty(n * k)
    estimate = np.empty(n * k)
    extra = np.full(n * k, None, dtype=object)
    for j, entry in enumerate(order):
        measure = entry[0]
        lo, hi, note = limits[entry]
        lower[j::k], upper[j::k] = lo, hi
        estimate[j::k] = points[measure].to_numpy()
        if note is not None:
            extra[j::k] = note
    base = points["note"].to_list()
    notes = [_joined(base[r], e) for r, e in zip(row.tolist(), extra.tolist())]
    body = pl.DataFrame({
        "criterion": points["criterion"].gather(row),
        "threshold": points["threshold"].gather(row),
        "measure": pl.Series([m for m, _ in order] * n, dtype=pl.String),
        "estimate": estimate,
        "method": pl.Series([m for _, m in order] * n, dtype=pl.String),
        "level": np.full(n * k, level),
        "lower": lower,
        "upper": upper,
        "n_pos": points["n_pos"].gather(row),
        "n_neg": points["n_neg"].gather(row),
        "note": pl.Series(notes, dtype=pl.String),
    })
    if keys is None or keys.width == 0:
        return body
    return pl.concat([keys[row.tolist()], body], how="horizontal")


def _joined(first: Any, second: Any) -> Any:
    parts = [p for p in (first, second) if p]
    return "; ".join(parts) if parts else None
