"""Cross-validation intervals for AUCPR (Boyd, Eng & Page 2013, section 3.2).

The data of each group are split into ``k`` folds, the estimator is applied
to each fold, and the ``k`` fold estimates give the interval

.. math:: \\bar\\theta \\pm q\\, s / \\sqrt{k},

with :math:`\\bar\\theta` and ``s`` the mean and sample standard deviation of
the fold estimates and ``q`` the Student t quantile with ``k - 1`` degrees of
freedom (default) or the normal quantile. Boyd et al. used ``k = 10`` and a
normal approximation; they found these intervals under-cover, badly for few
positives, because each fold holds only ``n / k`` positives and the
estimators are more biased on small samples.

Folds come either from a stratified random partition
(:func:`aucpr_stats.resample.stratified_folds`: each fold receives
``floor(n/k)`` or ``ceil(n/k)`` of the positives and likewise of the
negatives, each group from its own random stream) or from the caller's own
fold column (:class:`aucpr_stats.ingest.FoldTables`, read with
``aucpr(..., fold="column")``), e.g. for out-of-fold predictions of a
cross-validated model.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv, flag_iv, integer_iv
from ..estimators.engine import evaluate
from ..exceptions import InputError
from ..resample import check_allocation, stratified_folds
from .closed_form import normal_quantile, t_quantile
from .options import MethodOptions, rng_option

__all__ = ["CrossValidation", "cv_interval", "folds_matrix", "fold_values", "folds_frame",
           "cross_validation_method", "cross_validation_note"]

#: The folds of a random split when neither ``folds=`` nor a fold column is given.
DEFAULT_FOLDS = 10


def _folds(value: Any) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value != "column":
            raise InputError(f"`folds` must be an integer >= 2 or 'column'; got {value!r}")
        return value
    return integer_iv(value, "folds", 2)


@attrs.frozen(kw_only=True)
class CrossValidation(MethodOptions):
    """The cross-validation interval and its options: ``conf_int(method=CrossValidation(...))``.

    Attributes
    ----------
    folds : int, "column" or None
        ``k`` stratified random folds (an integer >= 2), or ``"column"``
        for the fold column given to ``aucpr(..., fold=)``. None (default):
        the fold column when one was given, else 10 random folds.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        The randomness of the random folds (SPEC 7; ``seed=`` is its alias),
        each group from its own stream.
    quantile : {"t", "normal"}
        Student t with ``k - 1`` degrees of freedom (default), or the normal
        quantile of Boyd et al. (2013).
    return_folds : bool
        Also return the per-fold estimates (``conf_int`` then returns two frames).

    Examples
    --------
    >>> from aucpr_stats.intervals import CrossValidation
    >>> CrossValidation(folds=5, quantile="normal")
    CrossValidation(folds=5, rng=None, quantile='normal', return_folds=False)
    """

    method: ClassVar[str] = "cross_validation"
    aliases: ClassVar[dict[str, str]] = {"seed": "rng"}

    folds: int | str | None = attrs.field(default=None, converter=_folds)
    rng: Any = attrs.field(default=None, converter=rng_option)
    quantile: str = attrs.field(default="t", converter=lambda value: choice_iv(value, "quantile", ("t", "normal")))
    return_folds: bool = attrs.field(default=False, converter=lambda value: flag_iv(value, "return_folds"))

    def resolved(self, result: Any) -> "CrossValidation":
        """``folds`` for ``result``: its fold column when it has one and none was asked for, else 10."""
        has_column = getattr(result, "folds", None) is not None
        if self.folds is None:
            return attrs.evolve(self, folds="column" if has_column else DEFAULT_FOLDS)
        if self.folds == "column" and not has_column:
            raise InputError(
                "`folds='column'` uses the caller's fold column, which must be given when estimating: "
                "aucpr(data, outcome, score, fold='your_fold_column')"
            )
        return self

    def unseeded(self) -> bool:
        """Random folds without a seed (the caller's fold column draws nothing)."""
        return self.folds != "column" and self.rng is None


def folds_matrix(values: np.ndarray, group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Arrange per-segment values (segments = (group, fold)) as (n_groups, max folds, ...), NaN-padded.

    Returns the matrix and, per segment, its position within its group (in
    segment order).
    """
    order = np.argsort(group, kind="stable")
    counts = np.bincount(group, minlength=n_groups)
    first = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    position = np.empty(group.size, dtype=np.int64)
    position[order] = np.arange(group.size) - first[group[order]]
    width = int(counts.max()) if counts.size else 0
    out = np.full((n_groups, width) + values.shape[1:], np.nan)
    out[group, position] = values
    return out, position


def cv_interval(fold_estimates: np.ndarray, level: float = 0.95, quantile: str = "t") -> dict[str, np.ndarray]:
    """Cross-validation interval from fold estimates (last axis = folds; NaN folds are left out).

    Parameters
    ----------
    fold_estimates : ndarray, shape (..., k)
    level : float
    quantile : {"t", "normal"}
        Student t with ``k - 1`` degrees of freedom, or the normal quantile.

    Returns
    -------
    dict with ``lower``, ``upper``, ``mean``, ``se`` (``sd / sqrt(k)``) and
    ``folds`` (the number of folds with an estimate), each of shape (...,).
    Fewer than two usable folds give NaN bounds.

    Examples
    --------
    >>> out = cv_interval(np.array([[0.5, 0.6, 0.7]]), 0.95, "normal")
    >>> round(float(out["lower"][0]), 4), round(float(out["upper"][0]), 4)
    (0.4868, 0.7132)
    """
    x = np.asarray(fold_estimates, dtype=np.float64)
    ok = ~np.isnan(x)
    k = ok.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, x, 0.0).sum(axis=-1) / k
        dev = np.where(ok, x - mean[..., None], 0.0)
        sd = np.sqrt(np.where(k > 1, (dev * dev).sum(axis=-1) / (k - 1), np.nan))
        se = sd / np.sqrt(k)
    q = t_quantile(level, k - 1) if quantile == "t" else np.where(k > 1, normal_quantile(level), np.nan)
    mean = np.where(k > 0, mean, np.nan)
    return {"lower": mean - q * se, "upper": mean + q * se, "mean": mean, "se": se, "folds": k}


def fold_values(request) -> tuple[np.ndarray, object, np.ndarray, pl.Series]:
    """Fold estimates (groups, estimators, folds), the fold table, the group and the label of each fold segment.

    With ``folds="column"`` the folds are the caller's (kept by
    ``aucpr(..., fold=)``); with an integer ``k``, stratified random folds of
    every usable group, labelled 0 to k - 1.
    """
    result, estimators = request.result, request.estimators
    n_groups, n_est = result.n_groups, len(estimators)
    k = request.options.folds
    if k == "column":
        folds = result.folds
        values = evaluate(folds.ties, estimators)  # (fold segments, estimators)
        matrix, _ = folds_matrix(values, folds.group, n_groups)  # (groups, folds, estimators)
        return np.moveaxis(matrix, 1, 2), folds.ties, folds.group, folds.fold
    usable = request.usable
    _check_folds(request.ties, usable, k, n_est)
    fold_ties = stratified_folds(request.ties, k, streams=request.streams("cross_validation"))
    matrix = np.full((n_groups, k, n_est), np.nan)
    matrix[usable] = evaluate(fold_ties, estimators).reshape(usable.size, k, n_est)
    labels = pl.Series("fold", np.tile(np.arange(k, dtype=np.int64), usable.size))
    return np.moveaxis(matrix, 1, 2), fold_ties, np.repeat(usable, k), labels


def _check_folds(ties, usable: np.ndarray, k: int, n_est: int) -> None:
    """Refuse, before anything is allocated, folds whose tables would not fit in memory.

    Each of the ``k`` folds of a group copies the group's tie table, so the
    folds take about ``k`` times its rows (``folds=10**9`` took 7.45 GiB).
    """
    if not usable.size:
        return
    rows = int(ties.n_rows)  # the usable groups' tables
    check_allocation(3 * rows * k + usable.size * k * n_est, f"cross-validation with folds={k}",
                     "use fewer folds (10 is usual) or split the groups into calls")


def cross_validation_method(request) -> dict:
    """The ``cross_validation`` method of ``conf_int``; keeps the per-fold frame when ``return_folds``."""
    values, fold_ties, fold_group, labels = fold_values(request)
    out = cv_interval(values, request.level, request.options.quantile)
    if request.options.return_folds:
        request.extras["folds"] = folds_frame(request.result, values, fold_ties, fold_group, labels)
    n_groups = request.result.n_groups
    k = request.options.folds
    total = np.bincount(fold_group, minlength=n_groups) if k == "column" else np.full(n_groups, k)
    # a fold without both classes has no estimate: the k-fold design cannot be formed (issue 14, item 5),
    # and the few folds left would give a t interval on 1 or 2 degrees of freedom ([-4.5, 5.7] at 2 positives)
    lacking = out["folds"] < total[:, None]
    lower, upper = np.where(lacking, np.nan, out["lower"]), np.where(lacking, np.nan, out["upper"])
    return {"lower": lower, "upper": upper, "se": out["se"],
            "folds": out["folds"].astype(np.float64), "fold_mean": out["mean"],
            "folds_total": np.broadcast_to(total[:, None], out["lower"].shape)}


def cross_validation_note(request, out) -> np.ndarray:
    notes = np.full(out["lower"].shape, None, dtype=object)
    total = out["folds_total"]
    lacking = total - out["folds"]
    rows = lacking > 0
    if rows.any():  # "3 of 10 folds lack a class: ..." for the groups with such folds, as arrays
        counts = np.char.add(np.char.add(lacking[rows].astype(np.int64).astype(str), " of "),
                             np.asarray(total[rows], dtype=np.int64).astype(str))
        notes[rows] = np.char.add(counts, " folds lack a class: no cross-validation interval "
                                          "(use fewer folds than positives)").astype(object)
    return notes


def folds_frame(result, values: np.ndarray, fold_ties, fold_group: np.ndarray, labels: pl.Series) -> pl.DataFrame:
    """One row per group, estimator and fold (group-major, folds in segment order): the fold estimate and counts."""
    n_est = len(result.estimators)
    order = np.argsort(fold_group, kind="stable")  # fold segments, group by group
    group = fold_group[order]
    position = np.arange(order.size) - np.searchsorted(group, group)  # place of each fold in its group
    seg = np.tile(order, n_est)
    est = np.repeat(np.arange(n_est), order.size)
    rows = np.lexsort((np.tile(position, n_est), est, np.tile(group, n_est)))
    seg, est = seg[rows], est[rows]
    g, p = fold_group[seg], np.tile(position, n_est)[rows]
    body = pl.DataFrame({
        "estimator": pl.Series(np.asarray(result.estimators, dtype=object)[est].tolist(), dtype=pl.String),
        "fold": labels.gather(seg).alias("fold") if seg.size else labels.clear(),
        "estimate": pl.Series(values[g, est, p], dtype=pl.Float64),
        "n_pos": pl.Series(fold_ties.n_pos[seg], dtype=pl.Int64),
        "n_neg": pl.Series(fold_ties.n_neg[seg], dtype=pl.Int64),
    })
    return result.with_keys(body, g)
