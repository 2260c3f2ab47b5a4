"""Comparing the AUCs of scores: paired (same rows) and unpaired (independent groups).

Two scores measured on the same patients are correlated: a hard case is hard
for both. A paired comparison accounts for that correlation, which is
usually positive and then makes the difference far more precise than two
separate intervals suggest.

* **Paired** (default): two or more score columns on the same rows. For
  ``metric="auroc"``, DeLong, DeLong & Clarke-Pearson's (1988) test: the
  covariance of the two AUCs comes from the per-row placement values of both
  scores (each row mapped to its tie row in each score's table, one sort per
  score). For any metric, the paired stratified bootstrap: the same resampled
  rows for both scores.
* **Unpaired**: ``between="site"`` compares the levels of a column (different
  rows, e.g. two hospitals or two data sets stacked with a ``source``
  column): the two AUCs are independent, so the variance of the difference is
  the sum of the variances (DeLong), or the two groups are bootstrapped
  independently.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np
import polars as pl
from scipy.special import ndtr, ndtri

from . import _engine, _frames, _validate
from ._format import text_table
from ._ingest import _outcome_coding, ingest
from ._ties import TieTable, tie_table_from_sorted
from .estimators import DEFAULT_PR_ESTIMATOR, PR_ESTIMATORS
from .estimators.roc import DEFAULT_ROC_ESTIMATOR, ROC_ESTIMATORS, delong_components, placement_values
from .exceptions import InputError, InputTypeError
from .formula import resolve
from .intervals.roc import DEFAULT_N_BOOT

__all__ = ["compare", "ComparisonResult", "METRICS", "delong_paired", "bootstrap_p_value"]

#: Metrics that :func:`compare` compares, with their estimator registries and default estimators.
METRICS = {
    "auroc": (ROC_ESTIMATORS, DEFAULT_ROC_ESTIMATOR),
    "aucpr": (PR_ESTIMATORS, DEFAULT_PR_ESTIMATOR),
}

#: Comparison methods per metric; the first is the default.
METHODS = {"auroc": ("delong", "bootstrap"), "aucpr": ("bootstrap",)}

_OK = "__aucpr_ok"
_Y = "__aucpr_y"
_G = "__aucpr_g"


# =================================================================== result
@attrs.frozen(eq=False, repr=False)
class ComparisonResult:
    """Differences between AUCs, one row per group, pair of scores (or levels) and estimator.

    Returned by :func:`aucpr_stats.compare`. ``.to_frame()`` gives the table
    in the caller's frame type, ``.summary()`` a readable text table;
    ``.difference`` and ``.p_value`` are floats when there is one row.

    Attributes
    ----------
    table : polars.DataFrame
        The comparison table (see :func:`compare` for its columns).
    frame_kind : {"pandas", "polars"}
    metric : {"auroc", "aucpr"}
    method : {"delong", "bootstrap"}
    level : float
    paired : bool
        True for scores on the same rows, False for ``between=`` comparisons.
    outcome : str
    scores : tuple of str
    by : tuple of str
    between : str or None
    reference : object
        The reference score (paired) or level (unpaired), or None for all pairs.
    estimators : tuple of str
    n_boot : int or None
        Bootstrap replicates (None for DeLong).
    """

    table: pl.DataFrame = attrs.field(eq=False)
    frame_kind: str
    metric: str
    method: str
    level: float
    paired: bool
    outcome: str
    scores: tuple
    by: tuple
    between: str | None = None
    reference: Any = None
    estimators: tuple = ()
    n_boot: int | None = None

    def to_frame(self):
        """The comparison table in the caller's frame type."""
        return _frames.to_caller(self.table, self.frame_kind)

    def _single(self, column: str) -> float:
        if self.table.height != 1:
            raise AttributeError(
                f"`.{column}` is defined for a result with one comparison; this one has "
                f"{self.table.height} rows: use `.to_frame()`"
            )
        return float(self.table[column][0])

    @property
    def difference(self) -> float:
        """``estimate_a - estimate_b`` for a result with one comparison."""
        return self._single("difference")

    @property
    def p_value(self) -> float:
        """The two-sided p-value for a result with one comparison."""
        return self._single("p_value")

    def _title(self) -> str:
        label = {"auroc": "AUROC", "aucpr": "AUCPR"}[self.metric]
        how = {"delong": "DeLong test", "bootstrap": f"stratified bootstrap, {self.n_boot} replicates"}[self.method]
        kind = "Paired" if self.paired else "Unpaired"
        what = f"scores {', '.join(map(repr, self.scores))}" if self.paired else (
            f"levels of {self.between!r} for {', '.join(map(repr, self.scores))}")
        groups = [c for c in self.by if c != "score"]
        grouping = f", by {groups}" if groups else ""
        return (f"{kind} comparison of {label} ({how}) of {what}, outcome {self.outcome!r}{grouping}; "
                f"difference = a - b, {self.level:.0%} interval")

    def summary(self, digits: int = 4) -> str:
        """A readable text table with a title line."""
        frame = self.table
        drop = [c for c in ("z", "level", "method") if c in frame.columns]
        if frame["note"].null_count() == frame.height:
            drop.append("note")
        if len(self.estimators) == 1:
            drop.append("estimator")
        if "n_missing" in frame.columns and frame["n_missing"].sum() == 0:
            drop.append("n_missing")
        return f"{self._title()}\n{text_table(frame.drop(drop), digits=digits)}"

    __str__ = summary

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.table.height == 1:
            row = self.table.row(0, named=True)
            return (f"{name}({self.metric}, {self.method}, difference={row['difference']:.4f}, "
                    f"p_value={row['p_value']:.4g})")
        return f"{name}({self.metric}, {self.method}, paired={self.paired}, comparisons={self.table.height})"


# =================================================================== kernels
def delong_paired(ties_a: TieTable, row_a: np.ndarray, ties_b: TieTable, row_b: np.ndarray,
                  group: np.ndarray, positive: np.ndarray):
    r"""DeLong's covariance of two AUCs measured on the same rows, per group.

    With :math:`V^{(r)}_{10}(X_i)` and :math:`V^{(r)}_{01}(Y_j)` the placement
    values of test ``r`` (:func:`aucpr_stats.estimators.roc.placement_values`),
    DeLong, DeLong & Clarke-Pearson (1988) estimate

    .. math::

        S_{10}^{(r,s)} = \frac{1}{m-1}\sum_{i=1}^{m}\big(V^{(r)}_{10}(X_i) - \hat\theta^{(r)}\big)
                                                \big(V^{(s)}_{10}(X_i) - \hat\theta^{(s)}\big),

    likewise :math:`S_{01}^{(r,s)}` over the ``n`` negatives, and
    :math:`\mathrm{Cov}(\hat\theta^{(r)}, \hat\theta^{(s)}) = S_{10}^{(r,s)}/m + S_{01}^{(r,s)}/n`.
    The variance of the difference is
    :math:`\mathrm{Var}_r + \mathrm{Var}_s - 2\,\mathrm{Cov}_{rs}` (their Eq. 5 with
    the contrast :math:`L = (1, -1)`).

    Parameters
    ----------
    ties_a, ties_b : TieTable
        One segment per group for each score (rows in any order).
    row_a, row_b : ndarray of int, shape (n,)
        The tie row (global index) of every data row in each table.
    group : ndarray of int, shape (n,)
        Group (segment) index of every row.
    positive : ndarray of bool, shape (n,)

    Returns
    -------
    auc_a, auc_b, var_a, var_b, cov : ndarray of float64, shape (n_groups,)
        NaN where a group has fewer than two positives or two negatives.
    """
    n_groups = ties_a.n_segments
    deviations, aucs = [], []
    for ties, rows in ((ties_a, row_a), (ties_b, row_b)):
        auc, _, _ = delong_components(ties)
        v10, v01 = placement_values(ties)
        # every data row carries the placement value of its tie row (midranks)
        value = np.where(positive, v10[rows], v01[rows])
        deviations.append(value - auc[group])
        aucs.append(auc)
    cls = 2 * group + positive  # (group, class) cell of every row
    counts = np.bincount(cls, minlength=2 * n_groups).reshape(n_groups, 2)
    n_neg, n_pos = counts[:, 0], counts[:, 1]

    def covariance(d1, d2):
        sums = np.bincount(cls, weights=d1 * d2, minlength=2 * n_groups).reshape(n_groups, 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            s10 = np.where(n_pos > 1, sums[:, 1] / (n_pos - 1), np.nan)
            s01 = np.where(n_neg > 1, sums[:, 0] / (n_neg - 1), np.nan)
            return s10 / n_pos + s01 / n_neg

    da, db = deviations
    return aucs[0], aucs[1], covariance(da, da), covariance(db, db), covariance(da, db)


def bootstrap_p_value(replicates: np.ndarray) -> np.ndarray:
    r"""Two-sided bootstrap p-value of "difference = 0", over the last axis.

    The p-value of the percentile interval: the smallest :math:`\alpha` for
    which the :math:`1-\alpha` percentile interval of the replicated
    differences :math:`\Delta^*_b` excludes 0, with the usual add-one
    correction so that it is never 0:

    .. math::

        p = \min\left(1,\ 2\,\frac{1 + \min\big(\#\{\Delta^*_b \le 0\},\ \#\{\Delta^*_b \ge 0\}\big)}{B + 1}\right).

    Replicates equal to 0 count on both sides (conservative with ties). NaN
    replicates are ignored; NaN when none is left.
    """
    replicates = np.asarray(replicates, dtype=np.float64)
    finite = ~np.isnan(replicates)
    n = finite.sum(axis=-1)
    below = np.sum(finite & (replicates <= 0), axis=-1)
    above = np.sum(finite & (replicates >= 0), axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.minimum(1.0, 2.0 * (1.0 + np.minimum(below, above)) / (n + 1.0))
    return np.where(n > 0, p, np.nan)


def _score_table(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int):
    """Tie table of one score and the tie row of every data row (one sort)."""
    # descending score, then a stable (radix for small ints) sort by group
    order = np.argsort(-score)
    if n_groups > 1:
        by_group = group[order]
        if n_groups <= np.iinfo(np.uint16).max:
            by_group = by_group.astype(np.uint16)
        order = order[np.argsort(by_group, kind="stable")]
    g, s = group[order], score[order]
    ties = tie_table_from_sorted(g, s, positive[order], n_groups)
    new_run = np.empty(s.size, dtype=bool)
    if s.size:
        new_run[0] = True
        np.not_equal(s[1:], s[:-1], out=new_run[1:])
        new_run[1:] |= g[1:] != g[:-1]
    row = np.empty(s.size, dtype=np.int64)
    row[order] = np.cumsum(new_run) - 1
    return ties, row


def _joint_cells(group, positive, rows: list[np.ndarray], n_groups: int):
    """Distinct (group, class, tie row of every score) cells with their row counts.

    Resampling rows within each class is the same as drawing the cell counts
    multinomially within each class, so the paired bootstrap runs on this
    table: it is as small as the data allow (ties shared by all scores merge).
    """
    keys = [*rows[::-1], positive, group]  # lexsort: last key is the primary one
    order = np.lexsort(keys)
    start = np.zeros(order.size, dtype=bool)
    start[0] = True
    for key in keys:
        k = key[order]
        start[1:] |= k[1:] != k[:-1]
    first = np.flatnonzero(start)
    size = np.diff(np.append(first, order.size))
    lead = order[first]
    cell_group, cell_pos = group[lead], positive[lead]
    per_group = np.bincount(cell_group, minlength=n_groups)
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(per_group, out=offsets[1:])
    table = TieTable(
        score=-np.arange(first.size, dtype=np.float64),  # placeholder: only counts are resampled
        pos=np.where(cell_pos, size, 0),
        neg=np.where(cell_pos, 0, size),
        offsets=offsets,
    )
    return table, [r[lead] for r in rows]


def _paired_bootstrap(tables: list[TieTable], rows: list[np.ndarray], group, positive, fns, n_boot, seed):
    """Replicate estimates, shape (n_scores, n_fns, n_groups, n_boot), all scores on the same draws."""
    from .intervals.bootstrap import as_generator, iter_replicates

    n_groups = tables[0].n_segments
    cells, cell_rows = _joint_cells(group, positive, rows, n_groups)
    out = np.full((len(tables), len(fns), n_groups, n_boot), np.nan)
    rng = as_generator(seed)
    layouts: dict[int, list] = {}
    for start, stop, drawn in iter_replicates(cells, n_boot, rng):
        size = stop - start
        if size not in layouts:  # index arrays of a chunk, built once per chunk size
            layouts[size] = [_replicate_layout(ties, cell_row, size) for ties, cell_row in zip(tables, cell_rows)]
        for k, (index, score, offsets) in enumerate(layouts[size]):
            # the drawn cell counts, summed onto the tie rows of score k
            width = offsets[-1]
            pos = np.bincount(index, weights=drawn.pos, minlength=width).astype(np.int64)
            neg = np.bincount(index, weights=drawn.neg, minlength=width).astype(np.int64)
            table = TieTable(score, pos, neg, offsets)
            for j, fn in enumerate(fns):
                with np.errstate(all="ignore"):
                    values = np.asarray(fn(table), dtype=np.float64)
                out[k, j, :, start:stop] = values.reshape(size, n_groups).T
    return out


def _replicate_layout(ties: TieTable, cell_row: np.ndarray, size: int):
    """Where each drawn cell count goes in a chunk of ``size`` replicate tables of one score."""
    shift = np.arange(size, dtype=np.int64) * ties.n_rows
    index = (shift[:, None] + cell_row[None, :]).ravel()
    offsets = np.append((ties.offsets[:-1][None, :] + shift[:, None]).ravel(), size * ties.n_rows)
    return index, np.tile(ties.score, size), offsets


def _normal_test(diff, var, level):
    """SE, z, two-sided p-value and Wald interval of a difference with variance ``var``."""
    z_crit = float(ndtri(0.5 + level / 2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.maximum(var, 0.0))
        z = np.where(se > 0, diff / se, np.nan)
        p = np.where(se > 0, 2.0 * ndtr(-np.abs(z)), np.where(diff == 0, 1.0, np.nan))
    return se, z, p, diff - z_crit * se, diff + z_crit * se


def _bootstrap_summary(rep_a, rep_b, level):
    """Difference statistics from paired or independent replicates (last axis = replicates)."""
    from .intervals.bootstrap import percentile_interval

    delta = rep_a - rep_b
    lower, upper = percentile_interval(delta, level)
    finite = ~np.isnan(delta)
    n = finite.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, delta, 0.0).sum(axis=-1) / n
        se = np.sqrt(np.where(finite, (delta - mean[..., None]) ** 2, 0.0).sum(axis=-1) / (n - 1))
        ma = np.nanmean(np.where(finite, rep_a, np.nan), axis=-1)
        mb = np.nanmean(np.where(finite, rep_b, np.nan), axis=-1)
        da, db = np.where(finite, rep_a - ma[..., None], 0.0), np.where(finite, rep_b - mb[..., None], 0.0)
        corr = (da * db).sum(axis=-1) / np.sqrt((da * da).sum(axis=-1) * (db * db).sum(axis=-1))
    return se, lower, upper, bootstrap_p_value(delta), corr


# ===================================================================== API
def _compare_iv(metric, method, estimator, scores, between, reference, level, n_boot):
    from .api import estimators_iv

    metric = _validate.choice_iv(metric, "metric", tuple(METRICS))
    registry, default = METRICS[metric]
    methods = METHODS[metric]
    method = methods[0] if method is None else _validate.choice_iv(method, "method", methods)
    names = estimators_iv(default if estimator is None else estimator, registry)
    score_names = _validate.names_iv(scores, "scores", allow_none=False)
    if between is not None:
        between = _validate.names_iv(between, "between")
        if len(between) != 1:
            raise InputError(f"`between` must name one column; got {list(between)}")
        between = between[0]
    elif len(score_names) < 2:
        raise InputError(
            f"`scores` must name at least two columns for a paired comparison; got {list(score_names)}. "
            "To compare one score between independent groups, pass `between=` (e.g. between='site')"
        )
    if between is None and reference is not None and reference not in score_names:
        raise InputError(f"`reference` must be one of `scores` {list(score_names)}; got {reference!r}")
    level = _validate.level_iv(level)
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)):
        raise InputTypeError(f"`n_boot` must be an integer; got {n_boot!r}")
    if n_boot < 2:
        raise InputError(f"`n_boot` must be at least 2; got {n_boot}")
    return metric, method, names, score_names, between, level, int(n_boot)


def compare(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    scores: Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    metric: str = "auroc",
    method: str | None = None,
    reference: Any = None,
    estimator: str | Sequence[str] | None = None,
    between: str | None = None,
    level: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: Any = None,
    positive: Any = None,
    missing: str = "error",
) -> ComparisonResult:
    """Compare the AUROC or AUCPR of scores, paired on the same rows or between independent groups.

    Parameters
    ----------
    data_or_formula : frame or str
        The data (pandas / polars DataFrame or LazyFrame), or a formula
        ``"y ~ s1 + s2 | site"`` with the data in ``data=``.
    outcome : str
        Binary outcome column (boolean, 0/1, or with ``positive=``).
    scores : list of str
        Score columns. Paired (no ``between``): two or more, compared on the
        rows where all of them are present. Unpaired: one or more, each
        compared between the levels of ``between``.
    by : str or list of str, optional
        Grouping columns: one set of comparisons per group.
    metric : {"auroc", "aucpr"}
        The area compared.
    method : {"delong", "bootstrap"}, optional
        ``"delong"`` (default for AUROC): DeLong, DeLong & Clarke-Pearson's
        (1988) normal test with their covariance. ``"bootstrap"`` (the only
        method for AUCPR): the stratified bootstrap, paired (the same
        resampled rows for every score) or, with ``between``, independent per
        group; percentile interval of the difference and the p-value of
        :func:`bootstrap_p_value`.
    reference : optional
        Compare every other score (paired) or level of ``between`` (unpaired)
        with this one; by default all pairs. The difference is
        ``other - reference``.
    estimator : str or list of str, optional
        The estimator(s) of ``metric`` (default ``"a_prime"`` for AUROC and
        the default of :func:`aucpr_stats.aucpr` for AUCPR; any registered
        AUCPR estimator, a list of them, or ``"all"`` works with the bootstrap).
    between : str, optional
        Unpaired comparison: a column whose levels are independent groups of
        rows (sites, data sets); the AUCs of the levels are compared.
    level : float
        Confidence level of the interval of the difference.
    n_boot : int
        Bootstrap replicates.
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap; the same seed gives the same result.
    positive : scalar, optional
        The positive level of ``outcome``.
    missing : {"error", "drop"}
        Missing values raise (default) or are dropped; a paired comparison
        drops a row when any of its scores is missing (complete cases) and
        reports the count per group in ``n_missing``.

    Returns
    -------
    ComparisonResult
        ``.to_frame()`` columns: the ``by`` keys; ``score_a``, ``score_b``
        (paired) or ``score`` (several scores), ``<between>_a``,
        ``<between>_b`` (unpaired); ``estimator``, ``estimate_a``,
        ``estimate_b``, ``difference`` (a - b), ``se``, ``z``, ``p_value``,
        ``method``, ``level``, ``lower``, ``upper`` (interval of the
        difference), ``correlation`` (of the two estimates; NaN unpaired),
        ``n_pos``, ``n_neg``, ``n_missing`` (paired) or ``n_pos_a``,
        ``n_neg_a``, ``n_pos_b``, ``n_neg_b`` (unpaired), ``note``.

    Raises
    ------
    ColumnNotFoundError, InputTypeError, MissingValueError, OutcomeError, InputError
        As for :func:`aucpr_stats.aucpr`; also fewer than two scores without
        ``between``, a ``reference`` that is not a score or level, a method
        the metric does not offer.

    References
    ----------
    DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Comparing the
    areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach. Biometrics 44, 837-845.

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> from aucpr_stats.compare import compare
    >>> rng = np.random.default_rng(1)
    >>> y = rng.random(400) < 0.3
    >>> df = pl.DataFrame({"y": y, "a": rng.normal(size=400) + y, "b": rng.normal(size=400) + 0.5 * y})
    >>> result = compare(df, "y", ["a", "b"])
    >>> result.difference > 0
    True
    """
    data, outcome, scores, by = resolve(data_or_formula, data, outcome, scores, by, function="compare")
    metric, method, names, score_names, between, level, n_boot = _compare_iv(
        metric, method, estimator, scores, between, reference, level, n_boot)
    spec = _validate.column_spec_iv(
        data, outcome, list(score_names) if len(score_names) > 1 else score_names[0], by, positive, missing)
    registry = METRICS[metric][0]
    fns = [registry[name] for name in names]
    common = dict(metric=metric, method=method, level=level, outcome=spec.outcome, scores=score_names,
                  reference=reference, estimators=names, n_boot=n_boot if method == "bootstrap" else None)
    if between is None:
        return _compare_paired(data, spec, fns, seed, common)
    return _compare_unpaired(data, spec, between, fns, seed, common)


# ------------------------------------------------------------------ paired
def _paired_rows(data, spec):
    """Rows (complete cases) with group index, outcome and scores; keys and n_missing per group."""
    lf, kind = _frames.to_lazy(data, columns=[spec.outcome, *spec.scores, *spec.by])
    schema = lf.collect_schema()
    coding, _ = _outcome_coding(spec, schema[spec.outcome])
    missing = pl.col(spec.outcome).is_null()
    if schema[spec.outcome].is_float():
        missing = missing | pl.col(spec.outcome).is_nan()
    for name in spec.scores:
        missing = missing | pl.col(name).is_null()
        if schema[name].is_float():
            missing = missing | pl.col(name).is_nan()
    query = lf.select(*spec.by, (~missing).alias(_OK), coding.fill_null(False).alias(_Y),
                      *[pl.col(s).cast(pl.Float64) for s in spec.scores])
    if spec.by:
        query = query.sort(list(spec.by), nulls_last=True).with_columns(pl.struct(list(spec.by)).rle_id().alias(_G))
    else:
        query = query.with_columns(pl.lit(0, dtype=pl.UInt32).alias(_G))
    frame = query.collect()
    group = frame[_G].to_numpy().astype(np.int64)
    n_groups = int(group[-1]) + 1 if group.size else 0
    if spec.by:
        first = np.flatnonzero(np.diff(group, prepend=-1))
        keys = frame.select(spec.by)[first.tolist()]
    else:
        keys = pl.DataFrame()
    ok = frame[_OK].to_numpy()
    n_missing = np.bincount(group[~ok], minlength=n_groups)
    return frame.filter(pl.col(_OK)), keys, n_missing, n_groups, kind


def _pairs(labels: Sequence[Any], reference: Any) -> list[tuple[int, int]]:
    if reference is None:
        return [(i, j) for i in range(len(labels)) for j in range(i + 1, len(labels))]
    r = list(labels).index(reference)
    return [(i, r) for i in range(len(labels)) if i != r]


def _compare_paired(data, spec, fns, seed, common) -> ComparisonResult:
    # the shared checks (types, outcome levels, infinite and missing values), one
    # score at a time: the single-score ingest is the fast path
    for name in spec.scores:
        ingest(data, attrs.evolve(spec, score=name))
    frame, keys, n_missing, n_groups, kind = _paired_rows(data, spec)
    if frame.height == 0:
        raise InputError("no rows have the outcome and every score present; a paired comparison needs complete rows")
    group = frame[_G].to_numpy().astype(np.int64)
    positive = frame[_Y].to_numpy().astype(bool)
    built = [_score_table(group, frame[s].to_numpy(), positive, n_groups) for s in spec.scores]
    tables, rows = [t for t, _ in built], [r for _, r in built]
    n_pos, n_neg = tables[0].n_pos, tables[0].n_neg
    notes = _engine.group_notes(n_pos, n_neg)
    _engine.warn_degenerate(keys, spec.by, notes, stacklevel=4)
    usable = (n_pos > 0) & (n_neg > 0)
    pairs = _pairs(spec.scores, common["reference"])
    names = common["estimators"]
    level = common["level"]
    n_est = len(fns)
    estimates = np.full((len(tables), n_est, n_groups), np.nan)
    for k, t in enumerate(tables):
        for j, fn in enumerate(fns):
            with np.errstate(all="ignore"):
                estimates[k, j, usable] = fn(t.take(np.flatnonzero(usable)))
    blocks = []
    if common["method"] == "bootstrap":
        replicates = _paired_bootstrap(tables, rows, group, positive, fns, common["n_boot"], seed)
    for a, b in pairs:
        for j in range(n_est):
            diff = estimates[a, j] - estimates[b, j]
            note = list(notes)
            if common["method"] == "delong":
                _, _, var_a, var_b, cov = delong_paired(tables[a], rows[a], tables[b], rows[b], group, positive)
                se, z, p, lower, upper = _normal_test(diff, var_a + var_b - 2.0 * cov, level)
                with np.errstate(invalid="ignore", divide="ignore"):
                    corr = cov / np.sqrt(var_a * var_b)
                for g in np.flatnonzero(usable & np.isnan(se)):
                    note[g] = "DeLong variance needs >= 2 positives and >= 2 negatives"
                for g in np.flatnonzero(usable & (se == 0)):
                    note[g] = "the two scores order every pair alike: difference and SE are 0"
            else:
                rep_a, rep_b = replicates[a, j], replicates[b, j]
                se, lower, upper, p, corr = _bootstrap_summary(rep_a, rep_b, level)
                with np.errstate(invalid="ignore", divide="ignore"):
                    z = np.where(se > 0, diff / se, np.nan)
            block = pl.DataFrame({
                "score_a": [spec.scores[a]] * n_groups,
                "score_b": [spec.scores[b]] * n_groups,
                "estimator": [names[j]] * n_groups,
                "estimate_a": estimates[a, j],
                "estimate_b": estimates[b, j],
                "difference": diff,
                "se": se,
                "z": z,
                "p_value": p,
                "method": [common["method"]] * n_groups,
                "level": [level] * n_groups,
                "lower": lower,
                "upper": upper,
                "correlation": corr,
                "n_pos": n_pos,
                "n_neg": n_neg,
                "n_missing": n_missing.astype(np.int64),
                "note": pl.Series(note, dtype=pl.String),
            })
            if spec.by:
                block = pl.concat([keys, block], how="horizontal")
            blocks.append(block.with_columns(pl.Series("__group", np.arange(n_groups))))
    table = pl.concat(blocks).sort("__group", maintain_order=True).drop("__group")
    return ComparisonResult(table=table, frame_kind=kind, paired=True, by=spec.by, between=None, **common)


# ---------------------------------------------------------------- unpaired
def _compare_unpaired(data, spec, between, fns, seed, common) -> ComparisonResult:
    if between == spec.outcome or between in spec.scores or between in spec.by:
        raise InputError(f"`between` must not be the outcome, a score or a `by` column; got {between!r}")
    _validate.columns_exist(data, {"between": [between]})
    ingested = ingest(data, spec, extra_columns=(between,))
    ties, keys = ingested.ties, ingested.keys
    n_pos, n_neg = ties.n_pos, ties.n_neg
    usable = (n_pos > 0) & (n_neg > 0)
    notes = _engine.group_notes(n_pos, n_neg)
    _engine.warn_degenerate(keys, ingested.key_columns, notes, stacklevel=4)
    level = common["level"]
    reference = common["reference"]
    levels = keys[between].unique(maintain_order=True).to_list()
    if reference is not None and reference not in levels:
        raise InputError(f"`reference` must be a level of `between` column {between!r} {levels[:20]}; got {reference!r}")
    # pair the levels of `between` within each (by, score) cell
    match = [c for c in ingested.key_columns if c != between]
    indexed = keys.with_row_index("__seg").with_columns(
        pl.col(between).rank("dense").fill_null(len(levels) + 1).alias("__rank"))
    right = indexed.select(*match, pl.col(between).alias("__level_b"), pl.col("__seg").alias("__seg_b"),
                           pl.col("__rank").alias("__rank_b"))
    left = indexed.select(*match, pl.col(between).alias("__level_a"), pl.col("__seg").alias("__seg_a"),
                          pl.col("__rank").alias("__rank_a"))
    joined = left.join(right, on=match, nulls_equal=True, maintain_order="left") if match else left.join(right, how="cross")
    if reference is None:
        joined = joined.filter(pl.col("__rank_a") < pl.col("__rank_b"))
    else:
        joined = joined.filter((pl.col("__level_b") == reference) & (pl.col("__level_a") != reference))
    joined = joined.sort([*match, "__rank_a", "__rank_b"], nulls_last=True, maintain_order=True)
    seg_a = joined["__seg_a"].to_numpy().astype(np.int64)
    seg_b = joined["__seg_b"].to_numpy().astype(np.int64)
    names = common["estimators"]
    n_seg = ties.n_segments
    estimates = np.full((len(fns), n_seg), np.nan)
    sub = ties.take(np.flatnonzero(usable))
    for j, fn in enumerate(fns):
        with np.errstate(all="ignore"):
            estimates[j, usable] = fn(sub)
    if common["method"] == "delong":
        var = np.full(n_seg, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            _, s10, s01 = delong_components(sub)
            var[usable] = s10 / sub.n_pos + s01 / sub.n_neg
    else:
        from .intervals.bootstrap import bootstrap_estimates

        replicates = np.full((len(fns), n_seg, common["n_boot"]), np.nan)
        replicates[:, usable] = bootstrap_estimates(sub, fns, n_boot=common["n_boot"], seed=seed)
    blocks = []
    for j in range(len(fns)):
        diff = estimates[j, seg_a] - estimates[j, seg_b]
        if common["method"] == "delong":
            # independent groups: the covariance is zero
            se, z, p, lower, upper = _normal_test(diff, var[seg_a] + var[seg_b], level)
        else:
            se, lower, upper, p, _ = _bootstrap_summary(replicates[j, seg_a], replicates[j, seg_b], level)
            with np.errstate(invalid="ignore", divide="ignore"):
                z = np.where(se > 0, diff / se, np.nan)
        note = []
        for a, b in zip(seg_a, seg_b):
            parts = [f"a: {notes[a]}" if notes[a] else None, f"b: {notes[b]}" if notes[b] else None]
            parts = [x for x in parts if x]
            if not parts and common["method"] == "delong" and (np.isnan(var[a]) or np.isnan(var[b])):
                parts = ["DeLong variance needs >= 2 positives and >= 2 negatives"]
            note.append("; ".join(parts) or None)
        count = seg_a.size
        block = pl.DataFrame({
            "estimator": [names[j]] * count,
            "estimate_a": estimates[j, seg_a],
            "estimate_b": estimates[j, seg_b],
            "difference": diff,
            "se": se,
            "z": z,
            "p_value": p,
            "method": [common["method"]] * count,
            "level": [level] * count,
            "lower": lower,
            "upper": upper,
            "correlation": np.full(count, np.nan),
            "n_pos_a": n_pos[seg_a],
            "n_neg_a": n_neg[seg_a],
            "n_pos_b": n_pos[seg_b],
            "n_neg_b": n_neg[seg_b],
            "note": pl.Series(note, dtype=pl.String),
        })
        head = joined.select(*match, pl.col("__level_a").alias(f"{between}_a"), pl.col("__level_b").alias(f"{between}_b"))
        blocks.append(pl.concat([head, block], how="horizontal").with_columns(pl.Series("__pair", np.arange(count))))
    table = pl.concat(blocks).sort("__pair", maintain_order=True).drop("__pair")
    return ComparisonResult(table=table, frame_kind=ingested.kind, paired=False, by=spec.by, between=between, **common)
