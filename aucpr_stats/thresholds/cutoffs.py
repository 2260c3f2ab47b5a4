"""``cutoffs()``: sensitivity, specificity and predictive values at thresholds, as pROC's ``coords`` defines them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import _validate
from ..exceptions import InputError, InputTypeError
from ..request import open_data
from ..ties import TieTable
from .points import ThresholdPoints, all_thresholds, best_mask, counts_at, criterion
from .proportions import (
    PROPORTION_METHODS,
    bayes_interval,
    bayes_values,
    proportion_interval,
)
from .design import cutoff_units, effective_counts
from .result import CUTOFF_COLUMNS, CutoffResult

__all__ = ["CRITERIA", "DIRECTIONS", "cutoffs"]

#: Named thresholds: the best by a criterion, or every threshold.
CRITERIA = ("youden", "closest_topleft", "all")

#: ``"<"``: a case is called positive when its score is >= the threshold (larger scores mean positive);
#: ``">"``: when its score is <= the threshold. pROC's names ("controls < cases", "controls > cases"),
#: and the package's ``"higher"`` and ``"lower"`` for the same.
DIRECTIONS = ("<", ">", "higher", "lower")


def _threshold_iv(threshold: Any) -> tuple:
    """``threshold`` as a tuple of criterion names and floats, in the order given, without repeats."""
    items = list(threshold) if isinstance(threshold, (list, tuple, np.ndarray)) else [threshold]
    if not items:
        raise InputError(f"`threshold` must name at least one threshold; got an empty {type(threshold).__name__}")
    out = []
    for item in items:
        item = _validate.scalar_iv(item)
        if isinstance(item, str):
            if item not in CRITERIA:
                raise InputError(f"`threshold` must be a number or one of {list(CRITERIA)}; got {item!r}")
            out.append(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            if math.isnan(item):
                raise InputError("`threshold` must not be NaN")
            out.append(float(item))
        else:
            raise InputTypeError(f"`threshold` must be a number, one of {list(CRITERIA)}, or a list of them; "
                                 f"got {_validate.shown(item)} of type {type(item).__name__}")
    return tuple(dict.fromkeys(out))


def _weights_iv(best_weights: Any) -> tuple[float, float]:
    if not isinstance(best_weights, (list, tuple)) or len(best_weights) != 2:
        raise InputTypeError(f"`best_weights` must be a pair (cost, prevalence); got {_validate.shown(best_weights)}")
    cost = _validate.number_iv(best_weights[0], "best_weights[0]", low=0.0, what="a positive number (the cost)")
    prev = _validate.probability_iv(best_weights[1], "best_weights[1]")
    return cost, prev


def _oriented(ties: TieTable, direction: str) -> TieTable:
    """The table read in the direction ``score >= t``: for ``">"``, scores negated (each segment reversed)."""
    if direction == "<":
        return ties
    seg = ties.segment_ids()
    starts, ends = ties.offsets[:-1][seg], ties.offsets[1:][seg]
    rows = starts + ends - 1 - np.arange(ties.n_rows)  # row i of a segment takes the segment's i-th row from the end
    return TieTable(-ties.score[rows], ties.pos[rows], ties.neg[rows], ties.offsets)


def _requested(table: TieTable, requests: tuple, weights: tuple[float, float], sign: float):
    """Points of every request, with the request's position and name, for every group.

    ``table`` is oriented (:func:`_oriented`); given thresholds are multiplied
    by ``sign`` (-1 for ``direction=">"``) to be read on it.
    """
    n_groups = table.n_segments
    parts: list[tuple[ThresholdPoints, int, str]] = []
    every = None
    numbers = [r for r in requests if isinstance(r, float)]
    at_values = counts_at(table, sign * np.array(numbers)) if numbers else None
    missing_best: list[tuple[int, str, np.ndarray]] = []
    for k, request in enumerate(requests):
        if isinstance(request, float):
            j = numbers.index(request)
            index = np.arange(n_groups, dtype=np.int64) * len(numbers) + j
            parts.append((at_values.take(index), k, "value"))
            continue
        if every is None:
            every = all_thresholds(table)
            # pROC lists thresholds by increasing specificity: reverse each group's descending thresholds
            order = np.lexsort((-np.arange(every.group.size), every.group))
            every = every.take(order)
        if request == "all":
            parts.append((every, k, "all"))
            continue
        mask = best_mask(every, criterion(every, request, weights), n_groups)
        parts.append((every.take(np.flatnonzero(mask)), k, request))
        has = np.zeros(n_groups, dtype=bool)
        has[every.group[mask]] = True
        if not has.all():
            missing_best.append((k, request, np.flatnonzero(~has)))
    return parts, missing_best


def cutoffs(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    score: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    threshold: Any = "youden",
    level: float = 0.95,
    method: str = "wilson",
    prevalence: float | None = None,
    positive: Any = None,
    missing: str = "error",
    direction: str = "<",
    best_weights: tuple[float, float] = (1.0, 0.5),
    weights: str | None = None,
    cluster: str | None = None,
) -> CutoffResult:
    """Counts, sensitivity, specificity, PPV and NPV at thresholds, with intervals, per group.

    The numbers of pROC's ``coords(roc, x, ret = "all")`` for each group:
    a case is called positive when its score is ``>= threshold``
    (``direction="<"``, pROC's "controls < cases"), and

    * ``threshold="youden"`` finds the threshold(s) maximising
      ``Se + r Sp`` (Youden's index, ``r = 1`` by default), and
      ``"closest_topleft"`` those minimising ``(1 - Se)² + r (1 - Sp)²``, over
      every threshold of the group: the midpoints between adjacent distinct
      scores and ``±inf``, as pROC lists them. Equally good thresholds
      each get a row (pROC returns them all);
    * a number is applied as given (it may lie outside the scores);
    * ``"all"`` lists every threshold (pROC's ``coords(roc, "all")``).

    Parameters
    ----------
    data_or_formula, outcome, score, by, data, positive, missing
        As in :func:`aucpr_stats.aucpr`: the data (or a formula), the binary
        outcome, one or more score columns, grouping columns.
    threshold : "youden", "closest_topleft", "all", a number, or a list of them
        The thresholds to report, in this order within each group.
    level : float
        Confidence level of every interval.
    method : {"wilson", "clopper_pearson"}
        Interval for sensitivity, specificity, and PPV and NPV at the observed
        prevalence (binomial proportions): Wilson's score interval or the
        Clopper-Pearson "exact" interval.
    prevalence : float, optional
        The prevalence at which PPV and NPV are reported. None (default): the
        observed one, PPV = tp / (tp + fp) with a binomial interval (valid for
        a cohort sample). A number: Bayes' theorem from Se and Sp (for a
        case-control sample or another population), with the logit
        delta-method interval of Mercaldo et al. (2007); the prevalence is
        taken as known.
    direction : {"<", ">"} (or "higher", "lower")
        ``"<"`` or ``"higher"``: larger scores mean positive (cases
        ``>= threshold``); ``">"`` or ``"lower"``: smaller scores mean positive
        (cases ``<= threshold``). pROC's
        ``direction`` (its ``"auto"`` choice from the data is not offered: a
        direction chosen after seeing the data biases everything after it).
    best_weights : (cost, prevalence)
        pROC's ``best.weights``: ``r = (1 - prevalence) / (cost * prevalence)``
        weighs specificity against sensitivity in the criteria; ``(1, 0.5)``
        gives ``r = 1``.
    weights : str, optional
        A column of case weights: counts become sums of weights (the
        ``tp``... columns are then floats), the best thresholds maximise the
        weighted criteria, and each interval is computed on its proportion's
        effective number of cases from the rows' linearisation variance
        (:mod:`aucpr_stats.thresholds.design`).
    cluster : str, optional
        A cluster id column (several rows per patient): the intervals use the
        clusters' linearisation (ratio-estimator) variance, on the effective
        number of cases; the counts do not change.

    Returns
    -------
    CutoffResult
        ``.to_frame()``: one row per group and threshold, keys first (columns
        in :meth:`CutoffResult.to_frame`), ``.summary()``.

    Raises
    ------
    ColumnNotFoundError, InputTypeError, MissingValueError, OutcomeError, InputError
        As :func:`aucpr_stats.aucpr`; and for a ``threshold``, ``method``,
        ``prevalence``, ``direction`` or ``best_weights`` that is not one of
        the values above.

    Warns
    -----
    DegenerateGroupWarning
        Groups without positives or negatives: their best-threshold rows have
        NaN numbers and a note; at a given threshold their counts are kept
        and the undefined proportions are NaN.

    Notes
    -----
    The best threshold is chosen on the same data its sensitivity and
    specificity are computed from, so they are optimistic and their intervals
    cover the true values at that threshold less often than the nominal
    level in small samples (``docs/cutoffs.md`` shows by how much).

    References
    ----------
    Robin, X. et al. (2011). pROC: an open-source package for R and S+ to
    analyze and compare ROC curves. BMC Bioinformatics 12, 77.
    Youden, W. J. (1950). Index for rating diagnostic tests. Cancer 3, 32-35.
    Mercaldo, N. D., Lau, K. F., Zhou, X. H. (2007). Confidence intervals for
    predictive values with an emphasis to case-control studies. Statistics in
    Medicine 26, 2170-2183.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import cutoffs
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1, 1, 0], "s": [0.1, 0.4, 0.35, 0.8, 0.4, 0.2]})
    >>> row = cutoffs(df, "y", "s").to_frame().row(0, named=True)
    >>> row["threshold"], row["sensitivity"], round(row["specificity"], 4)
    (0.275, 1.0, 0.6667)
    """
    requests = _threshold_iv(threshold)
    level = _validate.level_iv(level)
    method = _validate.choice_iv(method, "method", PROPORTION_METHODS)
    if prevalence is not None:
        prevalence = _validate.probability_iv(prevalence, "prevalence")
    direction = {"higher": "<", "lower": ">"}.get(direction, direction) if isinstance(direction, str) else direction
    direction = _validate.choice_iv(direction, "direction", DIRECTIONS[:2])
    best = _weights_iv(best_weights)
    clash = [b for b in _validate.names_iv(by if not isinstance(data_or_formula, str) else None, "by")
             if b in CUTOFF_COLUMNS or b == "n_missing"]
    if clash:
        raise InputError(f"`by` column {clash[0]!r} has the name of a column of the cut-off frame; rename it first")
    request, ingested = open_data("cutoffs", data_or_formula, data, outcome, score, by, positive=positive,
                                  missing=missing, weights=weights, cluster=cluster, stacklevel=3)
    table = _oriented(ingested.ties, direction)
    sign = -1.0 if direction == ">" else 1.0
    parts, missing_best = _requested(table, requests, best, sign)
    units = cutoff_units(ingested.clusters, ingested.weighted_cells, sign)
    body, groups = _assemble(parts, missing_best, table, ingested.notes, level, method, prevalence, direction,
                             units)
    return CutoffResult(
        ties=ingested.ties, keys=ingested.keys, by=ingested.key_columns, groups=groups, body=body,
        frame_kind=ingested.kind, outcome=ingested.spec.outcome, score=ingested.spec.score,
        options={"threshold": threshold, "level": level, "method": method, "prevalence": prevalence,
                 "direction": direction, "best_weights": best, "positive": positive, "missing": missing,
                 **{k: v for k, v in (("weights", ingested.spec.weights), ("cluster", cluster)) if v is not None}},
    )


def _assemble(parts, missing_best, table: TieTable, group_notes: tuple, level: float, method: str,
              prevalence: float | None, direction: str, units=None) -> tuple[pl.DataFrame, np.ndarray]:
    """The rows of every request, group-major then in the order requested, with their numbers.

    With ``units`` (weighted or clustered rows, :mod:`.design`) the intervals are computed on each
    proportion's effective numbers of cases.
    """
    group = np.concatenate([p.group for p, _, _ in parts] + [g for _, _, g in missing_best])
    request = np.concatenate([np.full(p.group.size, k) for p, k, _ in parts]
                             + [np.full(g.size, k) for k, _, g in missing_best])
    label = np.concatenate([np.full(p.group.size, name, dtype=object) for p, _, name in parts]
                           + [np.full(g.size, name, dtype=object) for _, name, g in missing_best])
    n_missing = sum(g.size for _, _, g in missing_best)
    nan = np.full(n_missing, np.nan)
    threshold = np.concatenate([p.threshold for p, _, _ in parts] + [nan])
    tp = np.concatenate([p.tp.astype(np.float64) for p, _, _ in parts] + [nan])
    fp = np.concatenate([p.fp.astype(np.float64) for p, _, _ in parts] + [nan])
    order = np.lexsort((np.arange(group.size), request, group))  # stable within a request
    group, label, threshold, tp, fp = group[order], label[order], threshold[order], tp[order], fp[order]
    n_pos = table.n_pos[group].astype(np.float64)
    n_neg = table.n_neg[group].astype(np.float64)
    fn, tn = n_pos - tp, n_neg - fp
    with np.errstate(invalid="ignore", divide="ignore"):
        se = tp / np.where(n_pos > 0, n_pos, np.nan)
        sp = tn / np.where(n_neg > 0, n_neg, np.nan)
    # the counts each interval is computed on: the cases themselves, or their effective numbers (weights, clusters)
    eff = ({"sensitivity": (tp, n_pos), "specificity": (tn, n_neg), "ppv": (tp, tp + fp), "npv": (tn, tn + fn)}
           if units is None else effective_counts(units, group, threshold, table.n_segments))
    se_lo, se_hi = proportion_interval(*eff["sensitivity"], level, method)
    sp_lo, sp_hi = proportion_interval(*eff["specificity"], level, method)
    adjusted = np.zeros(group.size, dtype=bool)
    if prevalence is None:
        with np.errstate(invalid="ignore", divide="ignore"):
            ppv = tp / np.where(tp + fp > 0, tp + fp, np.nan)
            npv = tn / np.where(tn + fn > 0, tn + fn, np.nan)
        ppv_lo, ppv_hi = proportion_interval(*eff["ppv"], level, method)
        npv_lo, npv_hi = proportion_interval(*eff["npv"], level, method)
        prev = np.divide(n_pos, n_pos + n_neg, out=np.full(group.size, np.nan), where=n_pos + n_neg > 0)
    else:
        ppv, npv = bayes_values(se, sp, prevalence)
        (k_se, n_se), (k_sp, n_sp) = eff["sensitivity"], eff["specificity"]
        ppv_lo, ppv_hi, npv_lo, npv_hi, adjusted = bayes_interval(k_se, n_se - k_se, k_sp, n_sp - k_sp,
                                                                  prevalence, level)
        prev = np.full(group.size, prevalence)
    notes = _row_notes(group, label, threshold, tp, n_pos, n_neg, adjusted, group_notes, table)
    if direction == ">":
        threshold = -threshold  # back to the caller's scores

    def count(values):  # whole numbers of rows, or sums of weights
        series = pl.Series(values, dtype=pl.Float64).fill_nan(None)
        return series if table.pos.dtype.kind == "f" else series.cast(pl.Int64)

    body = pl.DataFrame({
        "criterion": pl.Series(label.tolist(), dtype=pl.String),
        "threshold": threshold,
        "tp": count(tp), "fp": count(fp), "tn": count(tn), "fn": count(fn),
        "sensitivity": se, "sensitivity_lower": se_lo, "sensitivity_upper": se_hi,
        "specificity": sp, "specificity_lower": sp_lo, "specificity_upper": sp_hi,
        "ppv": ppv, "ppv_lower": ppv_lo, "ppv_upper": ppv_hi,
        "npv": npv, "npv_lower": npv_lo, "npv_upper": npv_hi,
        "youden": se + sp - 1.0,
        "closest_topleft": (1.0 - se) ** 2 + (1.0 - sp) ** 2,
        "prevalence": prev,
        "method": pl.Series([method] * group.size, dtype=pl.String),
        "level": np.full(group.size, level),
        "n_pos": table.n_pos[group], "n_neg": table.n_neg[group],
        "note": pl.Series(notes, dtype=pl.String),
    })
    return body.select(CUTOFF_COLUMNS), group


def _row_notes(group, label, threshold, tp, n_pos, n_neg, adjusted, group_notes, table) -> list:
    """Per row: why numbers are missing, ties between best thresholds, a given threshold outside the scores."""
    notes: list[list[str]] = [[] for _ in range(group.size)]
    for i in np.flatnonzero(np.isnan(tp)):
        notes[i].append(f"no best threshold: {group_notes[group[i]] or 'one class only'}")
    for i in np.flatnonzero(~np.isnan(tp) & ((n_pos == 0) | (n_neg == 0))):
        notes[i].append(group_notes[group[i]] or "one class only")
    best = np.isin(label, ["youden", "closest_topleft"]) & ~np.isnan(tp)
    if best.any():
        key = np.char.add(group.astype(str), label.astype(str))
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        for i in np.flatnonzero(best & (counts[inverse] > 1)):
            notes[i].append(f"one of {counts[inverse][i]} equally good thresholds")
    given = (label == "value")
    if given.any() and table.n_rows:
        top = table.score[table.offsets[:-1][group[given]].clip(max=table.n_rows - 1)]
        bottom = table.score[(table.offsets[1:][group[given]] - 1).clip(min=0)]
        t = threshold[given]  # on the oriented table: called positive when score >= t
        outside = ((t > top) | (t <= bottom)) & (table.lengths[group[given]] > 0)
        for i, out, above in zip(np.flatnonzero(given), outside, t > top):
            if out:
                notes[i].append("threshold beyond every score: nobody called positive" if above
                                else "threshold at or beyond the lowest-ranked score: everybody called positive")
    for i in np.flatnonzero(adjusted):
        notes[i].append("a zero count: 0.5 added to each count for the PPV/NPV interval")
    return ["; ".join(n) if n else None for n in notes]
