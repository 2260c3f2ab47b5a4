"""``cutoffs()``: sensitivity, specificity and predictive values at thresholds, as pROC's ``coords`` defines them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import _validate
from ..exceptions import InputError, InputTypeError
from ..front_door import open_data
from ..pooling.imputed_cutoffs import ImputedCutoffs
from ..grouped import direction_signs, read_direction
from ..ties import TieTable
from .design import cutoff_units
from .measures import CutoffCounts
from .points import ThresholdPoints, all_thresholds, best_mask, counts_at, criterion, target_of
from .proportions import PROPORTION_METHODS, bayes_values
from .result import CUTOFF_COLUMNS, CutoffResult, CutoffSettings

__all__ = ["CRITERIA", "DIRECTIONS", "DIRECTION_ALIASES", "cutoffs"]

#: Named thresholds: the best by a criterion, or every threshold.
CRITERIA = ("youden", "closest_topleft", "all")

#: The values of ``direction=``, as every verb takes them: ``"higher"`` (a case is called positive
#: when its score is >= the threshold), ``"lower"`` (<= the threshold), ``"auto"`` (pROC's rule).
DIRECTIONS = _validate.DIRECTIONS

#: pROC's names for the same directions ("controls < cases", "controls > cases"), accepted as aliases.
DIRECTION_ALIASES = {"<": "higher", ">": "lower"}


def _threshold_iv(threshold: Any) -> tuple:
    """``threshold`` as a tuple of criterion names and floats, in the order given, without repeats."""
    items = list(threshold) if isinstance(threshold, (list, tuple, np.ndarray)) else [threshold]
    if not items:
        raise InputError(f"`threshold` must name at least one threshold; got an empty {type(threshold).__name__}")
    out = []
    for item in items:
        item = _validate.scalar_iv(item)
        if isinstance(item, str):
            target = target_of(item.replace(" ", ""))
            if target is not None:
                if not 0.0 < target[1] <= 1.0:
                    raise InputError(f"`threshold` {item!r}: the target must be in (0, 1]; got {target[1]:g}")
                out.append(f"{target[0]}>={target[1]:g}")
                continue
            if item not in CRITERIA:
                raise InputError(f"`threshold` must be a number, one of {list(CRITERIA)}, or a target such as "
                                 f"'sensitivity>=0.9' or 'specificity>=0.95'; got {item!r}")
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


def _direction_iv(direction: Any) -> str:
    """``direction``: ``"higher"``, ``"lower"`` or ``"auto"``; pROC's ``"<"`` and ``">"`` as their aliases."""
    if isinstance(direction, str) and direction in DIRECTION_ALIASES:
        return DIRECTION_ALIASES[direction]
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        raise InputError(f"`direction` must be one of {list(DIRECTIONS)} (or pROC's '<' for 'higher', '>' for "
                         f"'lower'); got {_validate.shown(direction)}")
    return direction


def _requested(table: TieTable, requests: tuple, weights: tuple[float, float], signs: np.ndarray):
    """Points of every request, with the request's position and name, for every group.

    ``table`` is read as ingested (a score read ``direction="lower"`` is
    negated); given thresholds are multiplied by each group's sign (-1 where
    its score is negated) to be read on it, and keep their value in the frame.
    """
    n_groups = table.n_segments
    parts: list[tuple[ThresholdPoints, int, str]] = []
    every = None
    numbers = [r for r in requests if isinstance(r, float)]
    at_values = counts_at(table, signs[:, None] * np.array(numbers)[None, :]) if numbers else None
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
    direction: str = "higher",
    best_weights: tuple[float, float] = (1.0, 0.5),
    weights: str | None = None,
    cluster: str | None = None,
    negative: Any = None,
    unused_levels: str = "keep",
    imputation: str | None = None,
) -> CutoffResult:
    """Counts, sensitivity, specificity, PPV and NPV at thresholds, with intervals, per group.

    The numbers of pROC's ``coords(roc, x, ret = "all")`` for each group:
    a case is called positive when its score is ``>= threshold``
    (``direction="higher"``, pROC's "controls < cases"), and

    * ``threshold="youden"`` finds the threshold(s) maximising
      ``Se + r Sp`` (Youden's index, ``r = 1`` by default), and
      ``"closest_topleft"`` those minimising ``(1 - Se)² + r (1 - Sp)²``, over
      every threshold of the group: the midpoints between adjacent distinct
      scores and ``±inf``, as pROC lists them. Equally good thresholds
      each get a row (pROC returns them all);
    * ``"sensitivity>=0.9"`` (any target in (0, 1]) finds the most specific
      threshold whose sensitivity reaches the target, and
      ``"specificity>=0.95"`` the most sensitive one whose specificity does
      (a rule-in or rule-out threshold chosen on the data: its bootstrap,
      :meth:`CutoffResult.bootstrap`, re-chooses it);
    * a number is applied as given (it may lie outside the scores);
    * ``"all"`` lists every threshold (pROC's ``coords(roc, "all")``).

    Parameters
    ----------
    data_or_formula, outcome, score, by, data, positive, missing
        As in :func:`aucpr_stats.aucpr`: the data (or a formula), the binary
        outcome, one or more score columns, grouping columns.
    threshold : "youden", "closest_topleft", "sensitivity>=t", "specificity>=t", "all", a number, or a list of them
        The thresholds to report, in this order within each group.
    level : float
        Confidence level of the intervals: the default of
        :meth:`CutoffResult.conf_int`, ``summary()`` and ``table()``.
    method : {"wilson", "clopper_pearson"}
        Interval for sensitivity, specificity, and PPV and NPV at the observed
        prevalence (binomial proportions): Wilson's score interval or the
        Clopper-Pearson "exact" interval; the default of
        :meth:`CutoffResult.conf_int`.
    prevalence : float, optional
        The prevalence at which PPV and NPV are reported. None (default): the
        observed one, PPV = tp / (tp + fp) with a binomial interval (valid for
        a cohort sample). A number: Bayes' theorem from Se and Sp (for a
        case-control sample or another population), with the logit
        delta-method interval of Mercaldo et al. (2007); the prevalence is
        taken as known.
    direction : {"higher", "lower", "auto"}
        Which way the scores point, as in :func:`aucpr_stats.aucpr`:
        ``"higher"`` (default): larger scores mean positive (cases
        ``>= threshold``); ``"lower"``: smaller scores mean positive (cases
        ``<= threshold``); ``"auto"``: chosen per score by pROC's rule and
        reported in a ``DirectionWarning`` (choosing it from the data biases
        everything after it). pROC's ``"<"`` and ``">"`` are accepted as
        aliases of ``"higher"`` and ``"lower"``; the result reports
        ``"higher"``/``"lower"`` (the ``direction`` column and
        ``result.direction``).
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
    negative : scalar or list, optional
        The negative level(s) of an outcome with more than two levels, as in
        :func:`aucpr_stats.aucpr`.
    unused_levels : {"keep", "drop"}
        Declared levels of the grouping columns without rows: rows with a
        note (default), or dropped; as in :func:`aucpr_stats.aucpr`.

    Returns
    -------
    CutoffResult
        ``.to_frame()``: one row per group and threshold, keys first, with
        the counts and the point values (columns in
        :meth:`CutoffResult.to_frame`); ``.conf_int()``: the intervals, one
        row per group, threshold and measure (keys, ``criterion``,
        ``threshold``, ``measure``, ``estimate``, ``method``, ``level``,
        ``lower``, ``upper``, ``n_pos``, ``n_neg``, ``note``);
        ``.summary()`` and ``.table()``: ``"estimate (lower–upper)"`` cells.

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
    >>> result = cutoffs(df, "y", "s")
    >>> row = result.to_frame().row(0, named=True)
    >>> row["threshold"], row["sensitivity"], round(row["specificity"], 4)
    (0.275, 1.0, 0.6667)
    >>> ci = result.conf_int()  # Wilson 95% intervals, one row per threshold and measure
    >>> [(m, round(lo, 3), round(hi, 3)) for m, lo, hi in ci.select("measure", "lower", "upper").head(2).rows()]
    [('sensitivity', 0.439, 1.0), ('specificity', 0.208, 0.939)]
    """
    requests = _threshold_iv(threshold)
    level = _validate.level_iv(level)
    method = _validate.choice_iv(method, "method", PROPORTION_METHODS)
    if prevalence is not None:
        prevalence = _validate.probability_iv(prevalence, "prevalence")
    direction = _direction_iv(direction)
    best = _weights_iv(best_weights)
    clash = [b for b in _validate.names_iv(by if not isinstance(data_or_formula, str) else None, "by")
             if b in CUTOFF_COLUMNS or b == "n_missing"]
    if clash:
        raise InputError(f"`by` column {clash[0]!r} has the name of a column of the cut-off frame; rename it first")
    request, ingested = open_data("cutoffs", data_or_formula, data, outcome, score, by, positive=positive,
                                  missing=missing, negative=negative, direction=direction,
                                  unused_levels=unused_levels, weights=weights, cluster=cluster,
                                  imputation=imputation, stacklevel=3)
    table = ingested.ties  # a score read direction="lower" is negated: a case is positive when it is >= t here
    read_as = read_direction(ingested.directions)
    signs = direction_signs(read_as, ingested.keys, ingested.spec.score)
    parts, missing_best = _requested(table, requests, best, signs)
    units = cutoff_units(ingested.clusters, ingested.weighted_cells, 1.0)
    body, counts = _assemble(parts, missing_best, table, ingested.notes, prevalence, signs, units)
    result = CutoffResult(
        ties=ingested.ties, keys=ingested.keys, by=ingested.key_columns, groups=counts.group, body=body,
        frame_kind=ingested.kind, outcome=ingested.spec.outcome, score=ingested.spec.score,
        settings=CutoffSettings(threshold=threshold, level=level, method=method, prevalence=prevalence,
                                best_weights=best),
        request=request, directions=ingested.directions, counts=counts,
    )
    # imputed data sets stacked (imputation=): the proportions pooled by Rubin's rules on the logit scale
    return result if imputation is None else ImputedCutoffs(per_imputation=result,
                                                            imputation=request.design.imputation)


def _assemble(parts, missing_best, table: TieTable, group_notes: tuple, prevalence: float | None,
              signs: np.ndarray, units=None) -> tuple[pl.DataFrame, CutoffCounts]:
    """The rows of every request, group-major then in the order requested, with their counts and point values.

    Returns the frame of :meth:`CutoffResult.to_frame` (without keys) and the
    counts its intervals are computed from (with ``units``, weighted or
    clustered rows, :mod:`.design`, on each proportion's effective numbers of cases).
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
    if prevalence is None:
        with np.errstate(invalid="ignore", divide="ignore"):
            ppv = tp / np.where(tp + fp > 0, tp + fp, np.nan)
            npv = tn / np.where(tn + fn > 0, tn + fn, np.nan)
        prev = np.divide(n_pos, n_pos + n_neg, out=np.full(group.size, np.nan), where=n_pos + n_neg > 0)
    else:
        ppv, npv = bayes_values(se, sp, prevalence)
        prev = np.full(group.size, prevalence)
    notes = _row_notes(group, label, threshold, tp, n_pos, n_neg, group_notes, table)
    counts = CutoffCounts(group=group, threshold=threshold, tp=tp, fp=fp, n_pos=n_pos, n_neg=n_neg,
                          n_groups=table.n_segments, units=units)
    reversed_rows = signs[group] < 0
    # back to the caller's scores (+ 0.0: no -0.0 for a threshold of 0)
    caller = np.where(reversed_rows, -threshold + 0.0, threshold)

    def count(values):  # whole numbers of rows, or sums of weights
        series = pl.Series(values, dtype=pl.Float64).fill_nan(None)
        return series if table.pos.dtype.kind == "f" else series.cast(pl.Int64)

    body = pl.DataFrame({
        "criterion": pl.Series(label.tolist(), dtype=pl.String),
        "threshold": caller,
        "direction": pl.Series(np.where(reversed_rows, "lower", "higher").tolist(), dtype=pl.String),
        "tp": count(tp), "fp": count(fp), "tn": count(tn), "fn": count(fn),
        "sensitivity": se, "specificity": sp, "ppv": ppv, "npv": npv,
        "youden": se + sp - 1.0,
        "closest_topleft": (1.0 - se) ** 2 + (1.0 - sp) ** 2,
        "prevalence": prev,
        "n_pos": table.n_pos[group], "n_neg": table.n_neg[group],
        "note": pl.Series(notes, dtype=pl.String),
    })
    return body.select(CUTOFF_COLUMNS), counts


def _row_notes(group, label, threshold, tp, n_pos, n_neg, group_notes, table) -> list:
    """Per row: why numbers are missing, ties between best thresholds, a given threshold outside the scores."""
    notes: list[list[str]] = [[] for _ in range(group.size)]
    for i in np.flatnonzero(np.isnan(tp)):
        notes[i].append(f"no best threshold: {group_notes[group[i]] or 'one class only'}")
    for i in np.flatnonzero(~np.isnan(tp) & ((n_pos == 0) | (n_neg == 0))):
        notes[i].append(group_notes[group[i]] or "one class only")
    best = (np.isin(label, ["youden", "closest_topleft"])
            | np.char.startswith(label.astype(str), "sensitivity>=")
            | np.char.startswith(label.astype(str), "specificity>=")) & ~np.isnan(tp)
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
    return ["; ".join(n) if n else None for n in notes]
