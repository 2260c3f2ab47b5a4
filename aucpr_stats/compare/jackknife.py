r"""Jackknife variance of any AUCPR (or AUROC) estimator, from the tie table; Welch's test of equal means.

The two-sample (stratified) delete-one jackknife: remove one positive, or one
negative, re-estimate, and measure the spread of those leave-one-out values
within each class,

.. math:: \hat v_J = \sum_{c \in \{+,-\}} \frac{n_c - 1}{n_c}
          \sum_{i \in c} (\hat\theta_{(i)} - \bar\theta_{(c)})^2,
          \qquad \bar\theta_{(c)} = \frac{1}{n_c}\sum_{i \in c}\hat\theta_{(i)}

(Efron & Stein 1981: in expectation it is at least the variance of the
estimate, so it errs on the safe side; Arvesen 1969 for two samples). The
leave-one-out table of an observation is the group's tie table with one
count lowered by one, so every observation of a tie row gives the same
value: the sum runs over the rows holding the class, weighted by their
counts, and a class needs one re-estimate per row holding it.

A class with more than ``max_units`` such rows is split instead into
``max_units`` random groups of (nearly) equal size, and one group at a time
is removed (the delete-a-group jackknife, Kott 2001), with
:math:`(G-1)/G \sum_g (\hat\theta_{(g)} - \bar\theta)^2` in place of the sum
above. That keeps the cost at :math:`O(\text{max\_units} \times \text{rows})`
per group and class. The groups are drawn from :mod:`aucpr_stats.resample`
streams (a fixed seed by default), so the numbers are reproducible.

:func:`welch_test` is Welch's (1951) test that several means are equal when
each has its own estimated variance with :math:`\nu_i` degrees of freedom:
Cochran's Q rescaled and referred to an F distribution, which accounts for
the noise of the estimated weights that the chi-square reference ignores.

References
----------
Efron, B., Stein, C. (1981). The jackknife estimate of variance. Annals of
Statistics 9, 586-596.
Arvesen, J. N. (1969). Jackknifing U-statistics. Annals of Mathematical
Statistics 40, 2076-2100.
Kott, P. S. (2001). The delete-a-group jackknife. Journal of Official
Statistics 17, 521-526.
Welch, B. L. (1951). On the comparison of several mean values: an
alternative approach. Biometrika 38, 330-336.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import flag_iv, integer_iv, seed_iv
from ..distributions import f_sf
from ..exceptions import InputError
from ..resample import Streams
from ..ties import TieTable
from .paired import joint_cells
from .statistics import floored_p

__all__ = ["CHUNK_ROWS", "DEFAULT_MAX_UNITS", "jackknife_options", "jackknife_variance", "paired_jackknife", "pooled_test", "result_jackknife", "welch_test",
           "weighted_spread"]

#: Rows holding a class above which that class is removed in random groups rather than row by row.
DEFAULT_MAX_UNITS = 200

#: Leave-one-out tables are evaluated in chunks of about this many rows (memory bound).
CHUNK_ROWS = 1 << 21


def _units(ties: TieTable, max_units: int, streams: Any) -> tuple:
    """What each re-estimate removes: (unit group, unit class, unit weight) and decrements (unit, row, amount).

    Row units (one per row holding the class, weight = its count) where a
    class has at most ``max_units`` such rows; random groups of observations
    (weight 1 each) otherwise.
    """
    offsets = ties.offsets
    segment_of_row = np.repeat(np.arange(ties.n_segments), ties.lengths)
    unit_group, unit_class, unit_weight = [], [], []
    dec_unit, dec_row, dec_amount = [], [], []
    n_units = 0
    for cls, counts in enumerate((ties.pos, ties.neg)):
        held = counts > 0
        rows_per_group = np.bincount(segment_of_row[held], minlength=ties.n_segments)
        small = rows_per_group <= max_units
        # row units of every small class at once: one unit per row holding the class
        rows = np.flatnonzero(held & small[segment_of_row])
        ids = n_units + np.arange(rows.size)
        unit_group.append(segment_of_row[rows])
        unit_class.append(np.full(rows.size, cls))
        unit_weight.append(counts[rows].astype(np.float64))
        dec_unit.append(ids)
        dec_row.append(rows)
        dec_amount.append(np.ones(rows.size, dtype=np.int64))
        n_units += rows.size
        # large classes: random groups of observations (a loop over large groups only)
        for g in np.flatnonzero(~small).tolist():
            start, stop = offsets[g], offsets[g + 1]
            observation_row = np.repeat(np.arange(start, stop), counts[start:stop])
            block = np.empty(observation_row.size, dtype=np.int64)
            block[streams[g].permutation(observation_row.size)] = np.arange(observation_row.size) % max_units
            cell = np.unique(block * ties.n_rows + observation_row, return_counts=True)
            unit_group.append(np.full(max_units, g))
            unit_class.append(np.full(max_units, cls))
            unit_weight.append(np.ones(max_units))
            dec_unit.append(n_units + cell[0] // ties.n_rows)
            dec_row.append(cell[0] % ties.n_rows)
            dec_amount.append(cell[1])
            n_units += max_units
    cat = np.concatenate
    return (cat(unit_group).astype(np.int64), cat(unit_class).astype(np.int64), cat(unit_weight),
            cat(dec_unit).astype(np.int64), cat(dec_row).astype(np.int64), cat(dec_amount).astype(np.int64))


def _leave_out_estimates(ties: TieTable, estimators: list, unit_group, unit_class, dec_unit, dec_row,
                         dec_amount) -> np.ndarray:
    """Each estimator on each unit's table (the group's rows with the unit's counts removed): (units, estimators)."""
    lengths = ties.lengths[unit_group]
    out = np.full((unit_group.size, len(estimators)), np.nan)
    # decrements sorted by unit, so a chunk of consecutive units owns a slice of them
    order = np.argsort(dec_unit, kind="stable")
    dec_unit, dec_row, dec_amount = dec_unit[order], dec_row[order], dec_amount[order]
    ends = np.cumsum(lengths)
    start = 0
    while start < unit_group.size:
        # the largest run of units whose tables fit in a chunk (at least one)
        base = ends[start] - lengths[start]
        stop = max(start + 1, int(np.searchsorted(ends, base + CHUNK_ROWS, side="right")))
        units = np.arange(start, stop)
        sizes = lengths[units]
        table_offsets = np.r_[0, np.cumsum(sizes)]
        # row index into the full table of every row of every unit's table
        first = ties.offsets[unit_group[units]]
        rows = np.repeat(first - table_offsets[:-1], sizes) + np.arange(table_offsets[-1])
        as_float = dec_amount.dtype.kind == "f"  # fractional removals (the infinitesimal jackknife)
        counts = [ties.pos[rows].astype(np.float64 if as_float else ties.pos.dtype),
                  ties.neg[rows].astype(np.float64 if as_float else ties.neg.dtype)]
        lo, hi = np.searchsorted(dec_unit, [start, stop])
        u = dec_unit[lo:hi] - start
        at = table_offsets[u] + dec_row[lo:hi] - first[u]
        for cls in (0, 1):
            mine = unit_class[start + u] == cls
            np.subtract.at(counts[cls], at[mine], dec_amount[lo:hi][mine])
        table = TieTable(ties.score[rows], counts[0], counts[1], table_offsets)
        with np.errstate(all="ignore"):
            for j, record in enumerate(estimators):
                out[start:stop, j] = record.function(table)
        start = stop
    return out


def jackknife_variance(ties: TieTable, estimators: list, *, max_units: int = DEFAULT_MAX_UNITS,
                       streams: Any = None) -> dict:
    """Two-sample jackknife variance of each estimator in each segment, on the natural and the logit scale.

    Parameters
    ----------
    ties : TieTable
        One segment per group (groups without both classes give NaN).
    estimators : list of Estimator
        Registry records (:func:`aucpr_stats.estimators.registry.records`);
        their ``function`` is evaluated on the leave-one-out tables.
    max_units : int
        A class with more rows holding it is removed in ``max_units`` random
        groups (the delete-a-group jackknife).
    streams : aucpr_stats.resample.Streams, optional
        One stream per segment, for the random groups; needed only when a
        class exceeds ``max_units`` rows.

    Returns
    -------
    dict
        ``natural``, ``logit`` : ndarray, shape (n_segments, n_estimators):
        :math:`\\hat v_J` of the estimate, and of its logit (the spread of
        the logits of the leave-one-out estimates; NaN where one of them is
        0 or 1). NaN where a leave-one-out estimate is undefined or a group
        has fewer than two positives.
        ``units`` : ndarray of int64, shape (n_segments,): the deletion units
        of the positives (``n_pos`` when removed one by one, ``max_units``
        in groups); ``units - 1`` are the degrees of freedom
        :func:`welch_test` gives the group's variance.

    Examples
    --------
    >>> from aucpr_stats.estimators.registry import records
    >>> t = TieTable([4.0, 3.0, 2.0, 1.0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 4])
    >>> out = jackknife_variance(t, records("aucpr", ["average_precision"], "interpolate"))
    >>> # leave-one-out values: 0.5 and 1 (positives), 1 and 5/6 (negatives)
    >>> round(float(out["natural"][0, 0]), 6), float(out["logit"][0, 0]), int(out["units"][0])
    (0.069444, nan, 2)
    """
    n_seg = ties.n_segments
    # leaving units out never puts both classes on a row: without such rows, the cheaper published twins
    estimators = [record.for_table(ties) for record in estimators]
    unit_group, unit_class, weight, dec_unit, dec_row, dec_amount = _units(ties, max_units, streams)
    theta = _leave_out_estimates(ties, estimators, unit_group, unit_class, dec_unit, dec_row, dec_amount)
    bad = (ties.n_pos < 2) | (ties.n_neg < 1)
    with np.errstate(all="ignore"):
        logit_theta = np.log(theta) - np.log1p(-theta)
    out = {scale: _class_spread(values, unit_group, unit_class, weight, n_seg, bad)
           for scale, values in (("natural", theta), ("logit", logit_theta))}
    out["units"] = _positive_units(unit_group, unit_class, weight, n_seg)
    return out


def _class_spread(values: np.ndarray, unit_group: np.ndarray, unit_class: np.ndarray, weight: np.ndarray,
                  n_seg: int, bad: np.ndarray) -> np.ndarray:
    r"""The two-sample jackknife variance from leave-out values: shape (n_segments, n_estimators).

    Per segment, :math:`\sum_c (G_c - 1)/G_c \sum_{u \in c} w_u (\hat\theta_{(u)} - \bar\theta_{(c)})^2`
    with :math:`G_c` the class's total unit weight (its observations, or its
    random groups); NaN where a value is not finite or the segment is ``bad``.
    """
    cell = unit_group * 2 + unit_class
    n_cells = 2 * n_seg
    total = np.bincount(cell, weights=weight, minlength=n_cells)  # n_c, or G for grouped classes
    variance = np.zeros((n_seg, values.shape[1]))
    with np.errstate(all="ignore"):
        for j in range(values.shape[1]):
            mean = np.bincount(cell, weights=weight * values[:, j], minlength=n_cells) / total
            ss = np.bincount(cell, weights=weight * (values[:, j] - mean[cell]) ** 2, minlength=n_cells)
            part = np.where(total > 1, (total - 1) / total * ss, 0.0)  # one unit: no spread
            variance[:, j] = part.reshape(n_seg, 2).sum(axis=1)
    variance[~np.isfinite(variance) | bad[:, None]] = np.nan
    return variance


def _positive_units(unit_group: np.ndarray, unit_class: np.ndarray, weight: np.ndarray, n_seg: int) -> np.ndarray:
    """The deletion units of the positives per segment (observations, or random groups)."""
    total = np.bincount(unit_group[unit_class == 0], weights=weight[unit_class == 0], minlength=n_seg)
    return total.astype(np.int64)


def paired_jackknife(paired: Any, estimators: list, pairs: list[tuple[int, int]], *,
                     max_units: int = DEFAULT_MAX_UNITS, streams: Any = None) -> dict:
    r"""Jackknife variance of the difference of two scores' estimates on the same rows, per group.

    The two-sample jackknife of :func:`jackknife_variance` applied to
    :math:`\hat\theta_a - \hat\theta_b`: a deleted observation (a row of
    the data) leaves both scores' tables at once, so the covariance of the
    two estimates is in the spread. Rows that fall in the same tie row of
    every score give the same leave-one-out difference, so a unit is a
    distinct (group, class, tie row of each score) cell
    (:func:`~aucpr_stats.compare.paired.joint_cells`) weighted by its rows;
    a class with more than ``max_units`` cells is removed in random groups of
    rows (the delete-a-group jackknife), the same rows for both scores.

    Parameters
    ----------
    paired : aucpr_stats.ingest.PairedScores
    estimators : list of Estimator
    pairs : list of (int, int)
        Indices of the scores compared (a, b).
    max_units : int
    streams : aucpr_stats.resample.Streams, optional
        One stream per group, for the random groups.

    Returns
    -------
    dict
        ``variance``: ndarray, shape (n_pairs, n_groups, n_estimators), the
        jackknife variance of the difference (NaN for a group with fewer than
        two positives or no negative); ``units``: ndarray of int64, shape
        (n_groups,), the positives' deletion units.
    """
    tables = paired.tables
    n_seg = tables[0].n_segments
    cells, cell_rows = joint_cells(paired.group, paired.positive, list(paired.rows), n_seg)
    unit_group, unit_class, weight, dec_unit, dec_cell, dec_amount = _units(cells, max_units, streams)
    needed = sorted({i for pair in pairs for i in pair})
    theta = {i: _leave_out_estimates(tables[i], [record.for_table(tables[i]) for record in estimators], unit_group,
                                     unit_class, dec_unit, cell_rows[i][dec_cell], dec_amount) for i in needed}
    bad = (tables[0].n_pos < 2) | (tables[0].n_neg < 1)
    variance = np.stack([_class_spread(theta[a] - theta[b], unit_group, unit_class, weight, n_seg, bad)
                         for a, b in pairs]) if pairs else np.zeros((0, n_seg, len(estimators)))
    return {"variance": variance, "units": _positive_units(unit_group, unit_class, weight, n_seg)}


def weighted_spread(theta: np.ndarray, variance: np.ndarray, cell: np.ndarray, n_cells: int,
                    usable: np.ndarray | None = None) -> dict:
    """Inverse-variance sums per cell: what Cochran's Q and Welch's test share.

    Entries with a NaN estimate, a NaN or non-positive variance (or not
    ``usable``) are left out. Returns ``ok`` and ``w`` (per entry), and per
    cell ``k`` (entries used), ``sum_w``, ``pooled`` (the weighted mean) and
    ``q`` (the weighted sum of squares around the cell's own mean, so large
    sums do not cancel).
    """
    theta = np.asarray(theta, dtype=np.float64)
    variance = np.asarray(variance, dtype=np.float64)
    cell = np.asarray(cell, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = np.isfinite(theta) & np.isfinite(variance) & (variance > 0)
        if usable is not None:
            ok &= usable
        w = np.where(ok, 1.0 / np.where(ok, variance, 1.0), 0.0)
        t = np.where(ok, theta, 0.0)
        k = np.bincount(cell, weights=ok.astype(np.float64), minlength=n_cells)
        sum_w = np.bincount(cell, weights=w, minlength=n_cells)
        pooled = np.bincount(cell, weights=w * t, minlength=n_cells) / sum_w
        q = np.bincount(cell, weights=w * (t - pooled[cell]) ** 2, minlength=n_cells)
    return {"ok": ok, "w": w, "k": k, "sum_w": sum_w, "pooled": pooled, "q": q}


def welch_test(theta: np.ndarray, variance: np.ndarray, nu: np.ndarray, cell: np.ndarray, n_cells: int) -> dict:
    r"""Welch's (1951) test of equal means for many independent sets of estimates at once.

    With weights :math:`w_i = 1/v_i`, :math:`W = \sum w_i`, Cochran's
    :math:`Q = \sum w_i(\hat\theta_i - \bar\theta)^2` and
    :math:`\lambda = \sum (1 - w_i/W)^2/\nu_i`,

    .. math:: F = \frac{Q/(k-1)}{1 + 2(k-2)\lambda/(k^2-1)}
              \sim F\bigl(k-1,\ (k^2-1)/(3\lambda)\bigr).

    As :math:`\nu_i \to \infty` it is Cochran's chi-square test.

    Parameters
    ----------
    theta, variance : ndarray of float64, shape (n,)
        Entries with a NaN estimate or a NaN or non-positive variance are left out.
    nu : ndarray of float64, shape (n,)
        Degrees of freedom of each variance (positive).
    cell : ndarray of int, shape (n,)
        Which test each estimate belongs to.
    n_cells : int

    Returns
    -------
    dict of ndarray, shape (n_cells,)
        ``statistic`` (F), ``df`` (k - 1), ``df2``, ``p_value``, ``q``
        (Cochran's Q), ``pooled``, ``k``; NaN with fewer than two usable
        estimates.

    Examples
    --------
    >>> out = welch_test(np.array([0.0, 1.0]), np.array([1.0, 1.0]), np.array([10.0, 10.0]), np.array([0, 0]), 1)
    >>> float(out["statistic"][0]), round(float(out["df2"][0]), 9)  # Q = 0.5; lambda = 0.05, df2 = 3 / 0.15
    (0.5, 20.0)
    """
    nu = np.asarray(nu, dtype=np.float64)
    cell = np.asarray(cell, dtype=np.int64)
    sums = weighted_spread(theta, variance, cell, n_cells, usable=nu > 0)
    ok, w, k, sum_w, pooled, q = (sums[key] for key in ("ok", "w", "k", "sum_w", "pooled", "q"))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = w / sum_w[cell]
        lam = np.bincount(cell, weights=np.where(ok, (1.0 - share) ** 2 / np.where(ok, nu, 1.0), 0.0),
                          minlength=n_cells)
        valid = k >= 2
        df1 = k - 1.0
        statistic = (q / df1) / (1.0 + 2.0 * (k - 2.0) * lam / (k * k - 1.0))
        df2 = (k * k - 1.0) / (3.0 * lam)
        p = floored_p(f_sf(statistic, np.maximum(df1, 1.0), df2))
    nan = np.nan
    return {"statistic": np.where(valid, statistic, nan), "df": np.where(valid, df1, nan),
            "df2": np.where(valid, df2, nan), "p_value": np.where(valid, p, nan), "q": np.where(valid, q, nan),
            "pooled": np.where(k >= 1, pooled, nan), "k": k.astype(np.int64)}


def pooled_test(theta: np.ndarray, variance: np.ndarray, nu: np.ndarray, n_pos: np.ndarray, cell: np.ndarray,
                n_cells: int) -> dict:
    r"""Equal means with one variance per positive pooled over the groups: an analysis-of-variance F test.

    Each group's variance is taken as :math:`v_i = \bar r / n_{+,i}`, where
    :math:`\bar r = \sum \nu_i n_{+,i}\hat v_i / \sum \nu_i` pools the
    variances per positive of the groups (weights: their degrees of
    freedom). Then :math:`F = Q/(k-1)` with Cochran's Q on those variances,
    referred to :math:`F(k-1, \sum \nu_i)`: the classical one-way analysis of
    variance when every group has the same variance per positive. It assumes
    that (true when the groups share the score distributions and the
    prevalence) and is the price of its stability: a group's own variance
    estimate, noisy and correlated with its estimate at 50 positives, no
    longer weights it.

    Parameters
    ----------
    theta, variance, nu : ndarray of float64, shape (n,)
        Estimates, their variances and the variances' degrees of freedom;
        entries with a NaN estimate or a NaN or non-positive variance are
        left out.
    n_pos : ndarray, shape (n,)
        Positives of each group.
    cell : ndarray of int, shape (n,)
    n_cells : int

    Returns
    -------
    dict of ndarray
        As :func:`welch_test` (``df2`` is the pooled degrees of freedom),
        plus ``variance`` (shape (n,)): the pooled variance of each entry.

    Examples
    --------
    >>> out = pooled_test(np.array([0.0, 1.0]), np.array([0.2, 0.6]), np.array([9.0, 9.0]),
    ...                   np.array([10, 10]), np.array([0, 0]), 1)
    >>> float(out["statistic"][0]), float(out["df2"][0])  # common variance 0.4: Q = 2 * 0.5**2 / 0.4
    (1.25, 18.0)
    """
    theta = np.asarray(theta, dtype=np.float64)
    variance = np.asarray(variance, dtype=np.float64)
    nu = np.asarray(nu, dtype=np.float64)
    n_pos = np.asarray(n_pos, dtype=np.float64)
    cell = np.asarray(cell, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = np.isfinite(theta) & np.isfinite(variance) & (variance > 0) & (nu > 0) & (n_pos > 0)
        df2 = np.bincount(cell, weights=np.where(ok, nu, 0.0), minlength=n_cells)
        ratio = np.bincount(cell, weights=np.where(ok, nu * n_pos * variance, 0.0), minlength=n_cells) / df2
        pooled_variance = np.where(ok, ratio[cell] / n_pos, np.nan)
    sums = weighted_spread(theta, pooled_variance, cell, n_cells, usable=ok)
    k, pooled, q = sums["k"], sums["pooled"], sums["q"]
    with np.errstate(invalid="ignore", divide="ignore"):
        valid = k >= 2
        df1 = k - 1.0
        statistic = q / df1
        p = floored_p(f_sf(statistic, np.maximum(df1, 1.0), df2))
    nan = np.nan
    return {"statistic": np.where(valid, statistic, nan), "df": np.where(valid, df1, nan),
            "df2": np.where(valid, df2, nan), "p_value": np.where(valid, p, nan), "q": np.where(valid, q, nan),
            "pooled": np.where(k >= 1, pooled, nan), "k": k.astype(np.int64), "variance": pooled_variance}


def jackknife_options(options: dict) -> tuple[bool, Any, int]:
    """``pooled`` (default True), ``seed`` (default 0) and ``max_units`` of a jackknife test, checked."""
    unknown = sorted(set(options) - {"seed", "max_units", "pooled"})
    if unknown:
        raise InputError(f"method='jackknife' takes the options 'pooled', 'seed' and 'max_units'; got {unknown}")
    pooled = flag_iv(options.get("pooled", True), "pooled")
    seed = seed_iv(options.get("seed", 0))
    max_units = integer_iv(options.get("max_units", DEFAULT_MAX_UNITS), "max_units", 2)
    return pooled, seed, max_units


def result_jackknife(result: Any, options: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The jackknife of a grouped result for :func:`~aucpr_stats.compare.heterogeneity.heterogeneity`.

    ``options``: ``pooled`` (default True), ``seed`` (of the random groups
    of large classes, default 0) and ``max_units``, checked here.

    Returns
    -------
    se, logit_variance : ndarray, shape (n_groups * n_estimators,)
        Group-major; NaN for groups without both classes.
    units : ndarray of int64, shape (n_groups,)
        The positives' deletion units.
    pooled : bool
    """
    pooled, seed, max_units = jackknife_options(options)
    ties = result.ties
    usable = np.flatnonzero(ties.has_both_classes())
    n_groups, n_est = result.estimates.shape
    se = np.full((n_groups, n_est), np.nan)
    logit_variance = np.full((n_groups, n_est), np.nan)
    units = np.zeros(n_groups, dtype=np.int64)
    if usable.size:
        keys = result.keys[usable.tolist()] if usable.size < n_groups else result.keys
        streams = Streams.for_keys(seed, keys, result.by, "jackknife")
        out = jackknife_variance(ties.take(usable) if usable.size < n_groups else ties,
                                 result.estimator_records(), max_units=max_units, streams=streams)
        se[usable] = np.sqrt(out["natural"])
        logit_variance[usable] = out["logit"]
        units[usable] = out["units"]
    return se.ravel(), logit_variance.ravel(), units, pooled
