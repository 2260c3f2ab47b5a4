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

Folds come either from a stratified random partition (:func:`stratified_folds`:
each fold receives ``floor(n/k)`` or ``ceil(n/k)`` of the positives and likewise
of the negatives) or from the caller's own fold column (:class:`FoldTables`,
built by ``aucpr(..., fold="column")``), e.g. for out-of-fold predictions of
a cross-validated model.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import attrs
import numpy as np
import polars as pl

from .._ties import TieTable
from ..exceptions import InputError
from .closed_form import normal_quantile, t_quantile

__all__ = ["FoldTables", "stratified_folds", "fold_column_iv", "fold_tables", "folds_matrix", "cv_interval", "study_interval"]


@attrs.frozen(eq=False)
class FoldTables:
    """Tie tables per (group, fold) from the caller's fold column.

    Attributes
    ----------
    ties : TieTable
        One segment per (group, fold) combination present in the data.
    group : ndarray of int64
        Group (row of the result's keys) of each segment.
    fold : polars.Series
        Fold label of each segment.
    column : str
        Name of the fold column.
    """

    ties: TieTable
    group: np.ndarray
    fold: pl.Series
    column: str


# ----------------------------------------------------------- random folds
def _fold_counts(ties: TieTable, counts: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Counts of one class per (segment, fold, row), group-major layout of ``ties.take(repeat(S, k))``.

    The units (rows of this class) of each segment are put in a uniformly
    random order and dealt to the folds in turn, starting at a random fold;
    so fold sizes differ by at most one, and the counts a fold receives from
    the tie rows follow the multivariate hypergeometric distribution.
    """
    n_seg = ties.n_segments
    totals = ties.segment_sum(counts)
    unit_row = np.repeat(np.arange(ties.n_rows, dtype=np.int64), counts)
    seg = np.repeat(np.arange(n_seg, dtype=np.int64), totals)
    order = np.lexsort((rng.random(unit_row.size), seg))  # random order within each segment
    unit_row = unit_row[order]
    first = np.zeros(n_seg, dtype=np.int64)
    np.cumsum(totals[:-1], out=first[1:])
    rank = np.arange(unit_row.size, dtype=np.int64) - first[seg]
    fold = (rank + rng.integers(0, k, size=n_seg)[seg]) % k
    starts = ties.offsets[:-1][seg]
    out = starts * k + fold * ties.lengths[seg] + (unit_row - starts)
    return np.bincount(out, minlength=ties.n_rows * k)


def stratified_folds(ties: TieTable, k: int, rng: np.random.Generator) -> TieTable:
    """Split every segment into ``k`` stratified random folds.

    Parameters
    ----------
    ties : TieTable
    k : int
        Number of folds.
    rng : numpy.random.Generator

    Returns
    -------
    TieTable
        Segment ``s * k + f`` is fold ``f`` of segment ``s`` (the scores of
        ``s`` with the counts dealt to that fold; rows may have zero counts).
        The positives of a segment are dealt evenly over the folds, and so are
        the negatives, so every fold keeps the prevalence up to rounding.
    """
    table = ties.take(np.repeat(np.arange(ties.n_segments), k))
    pos = _fold_counts(ties, ties.pos, k, rng)
    neg = _fold_counts(ties, ties.neg, k, rng)
    return table.with_counts(pos, neg)


# ------------------------------------------------------- caller's folds
def fold_column_iv(data: Any, fold: Any, spec) -> str:
    """Check the ``fold`` argument of ``aucpr``: a column of ``data`` with no other role."""
    from .. import _frames
    from ..exceptions import ColumnNotFoundError, InputTypeError

    if not isinstance(fold, str):
        raise InputTypeError(f"`fold` must be a column name (str) or None; got {fold!r} of type {type(fold).__name__}")
    names = _frames.column_names(data)
    if fold not in names:
        raise ColumnNotFoundError(f"`fold` column {fold!r} is not in `data`; columns are {list(names)[:30]}")
    roles = {spec.outcome: "outcome", **{s: "score" for s in spec.scores}, **{b: "by" for b in spec.by}}
    if fold in roles:
        raise InputError(f"`fold` column {fold!r} is already the `{roles[fold]}` column; name a separate fold column")
    return fold


def fold_tables(data: Any, spec, fold: str, keys: pl.DataFrame, key_columns: Sequence[str]) -> FoldTables:
    """Tie tables per (group, fold) for the caller's fold column.

    Parameters
    ----------
    data : frame
        The caller's data.
    spec : ColumnSpec
        The validated column roles of the main call.
    fold : str
        The fold column (already checked to exist and to be no other role).
    keys : polars.DataFrame
        The main result's keys (one row per group).
    key_columns : sequence of str
        The key columns of the main result (``by``, then ``score`` for several scores).

    Raises
    ------
    InputError
        The fold column has missing values.
    """
    from .._ingest import ingest

    ingested = ingest(data, spec, extra_columns=(fold,))
    fold_keys = ingested.keys
    if fold_keys[fold].null_count():
        raise InputError(f"`fold` column {fold!r} has missing values; every row needs a fold")
    if key_columns:
        main = keys.select(key_columns).with_row_index("__group")
        mapped = fold_keys.select(key_columns).with_row_index("__seg").join(
            main, on=list(key_columns), how="left", nulls_equal=True
        ).sort("__seg")
        group = mapped["__group"].to_numpy().astype(np.int64)
    else:
        group = np.zeros(fold_keys.height, dtype=np.int64)
    return FoldTables(ties=ingested.ties, group=group, fold=fold_keys[fold], column=fold)


def folds_matrix(values: np.ndarray, group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Arrange per-segment values (segments = (group, fold)) as (n_groups, max folds, ...), NaN-padded.

    Returns the matrix and, per segment, its position within its group (in
    segment order, which is fold-label order for :func:`fold_tables`).
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


# ------------------------------------------------------------ interval
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


# --------------------------------------------------- simulation-study arm
def study_interval(ties: TieTable, estimator: Callable, level: float = 0.95, rng=None, folds: int = 10,
                   quantile: str = "t") -> tuple[np.ndarray, np.ndarray]:
    """Cross-validation interval of ``estimator`` for every segment: (lower, upper).

    The array-level entry point of the simulation study: a stratified random
    ``folds``-fold split of each segment (one per simulated data set).
    """
    from .bootstrap import as_generator

    k = int(folds)
    table = stratified_folds(ties, k, as_generator(rng))
    values = _evaluate(table, estimator)
    out = cv_interval(values.reshape(ties.n_segments, k), level, quantile)
    return out["lower"], out["upper"]


def _evaluate(table: TieTable, fn: Callable) -> np.ndarray:
    """``fn`` on the segments with both classes; NaN elsewhere."""
    ok = (table.n_pos > 0) & (table.n_neg > 0)
    out = np.full(table.n_segments, np.nan)
    if ok.any():
        with np.errstate(all="ignore"):
            out[ok] = fn(table if ok.all() else table.take(np.flatnonzero(ok)))
    return out


def evaluate_many(table: TieTable, registry: Mapping[str, Callable], names: Sequence[str]) -> np.ndarray:
    """Estimates of shape (n_segments, len(names)) with NaN for segments lacking a class."""
    return np.column_stack([_evaluate(table, registry[name]) for name in names]) if names else (
        np.empty((table.n_segments, 0)))
