"""The statistics of a difference: a normal (DeLong) test and the bootstrap's percentile interval and p-value.

Every interval of a difference of two areas is kept inside [-1, 1] (a Wald
bound past it is truncated, and the comparison's note says so), and the
rows compared with fewer positives than the test needs are flagged
(:func:`small_sample_notes`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..distributions import normal_cdf as ndtr
from ..intervals import normal_quantile, percentile_interval
from ..intervals.boundaries import TRUNCATED_NOTE, join_notes, truncate
from ..intervals.small_sample import small_sample_mask, small_sample_note, warn_small_sample, withheld_note
from .methods import COMPARISON_METHODS

__all__ = ["ADJUST_METHODS", "paired_block", "adjust_p_values", "bootstrap_p_value", "p_value_floor", "P_FLOOR",
           "floored_p", "UNSEEDED_COMPARISON", "normal_test",
           "bootstrap_summary", "difference_columns",
           "with_edge_notes", "warn_small_rows"]


def bootstrap_p_value(replicates: np.ndarray) -> np.ndarray:
    r"""Two-sided bootstrap p-value of "difference = 0", over the last axis.

    The p-value of the percentile interval (the smallest :math:`\alpha` for
    which the equal-tailed :math:`1-\alpha` percentile interval of the
    replicated differences :math:`\Delta^*_b` excludes 0), as a Monte Carlo
    p-value with the add-one correction of Davison & Hinkley (1997, Eq. 4.11):

    .. math::

        p = \min\left(1,\ \frac{1 + E}{B + 1}\right), \qquad
        E = 2\min\big(\#\{\Delta^*_b \le 0\},\ \#\{\Delta^*_b \ge 0\}\big),

    ``E`` the extreme replicates: those on the far side of 0, counted in both
    tails (the smaller tail doubled). It is never 0: its floor is
    :math:`1/(B+1)` (:func:`p_value_floor`), which tables print as "< x".
    ``p <= alpha`` implies that the :math:`1-\alpha` percentile interval
    excludes 0. Replicates equal to 0 count on both sides (conservative with
    ties). NaN replicates are ignored (``B`` counts the others); NaN when
    none is left.

    References
    ----------
    Davison, A. C., Hinkley, D. V. (1997). Bootstrap Methods and their
    Application. Cambridge University Press, section 4.2.

    Examples
    --------
    >>> bootstrap_p_value(np.array([0.1, 0.2, -0.05, 0.3]))  # E = 2 of B = 4
    array(0.6)
    >>> bootstrap_p_value(np.array([0.1, 0.2, 0.05, 0.3]))   # the floor 1/(B + 1)
    array(0.2)
    """
    replicates = np.asarray(replicates, dtype=np.float64)
    finite = ~np.isnan(replicates)
    n = finite.sum(axis=-1)
    below = np.sum(finite & (replicates <= 0), axis=-1)
    above = np.sum(finite & (replicates >= 0), axis=-1)
    extreme = 2.0 * np.minimum(below, above)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.minimum(1.0, (1.0 + extreme) / (n + 1.0))
    return np.where(n > 0, p, np.nan)


#: Note of a bootstrap comparison drawn without a seed (``rng=None``).
UNSEEDED_COMPARISON = "no seed set (rng=None): rerunning gives another interval and p-value"

#: The smallest p-value a test stores: the smallest normal double. A reference distribution's tail below it
#: underflows to 0 in double precision (a normal ``|z|`` beyond about 37.5); 0 would claim certainty.
P_FLOOR = float(np.finfo(np.float64).tiny)


def floored_p(p) -> np.ndarray:
    """p-values from a reference distribution with an underflowed tail stored as :data:`P_FLOOR` (NaN stays NaN).

    Examples
    --------
    >>> floored_p(np.array([0.0, 0.03, np.nan]))
    array([2.22507386e-308, 3.00000000e-002,             nan])
    """
    p = np.asarray(p, dtype=np.float64)
    return np.where(p < P_FLOOR, P_FLOOR, p)


def p_value_floor(n_boot) -> np.ndarray:
    """The smallest bootstrap p-value :func:`bootstrap_p_value` can give with ``n_boot`` replicates: ``1/(B + 1)``."""
    return 1.0 / (np.asarray(n_boot, dtype=np.float64) + 1.0)



def normal_test(diff, var, level):
    """SE, z, two-sided p-value and Wald interval of a difference with variance ``var``."""
    z_crit = normal_quantile(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.maximum(var, 0.0))
        z = np.where(se > 0, diff / se, np.nan)
        p = np.where(se > 0, 2.0 * ndtr(-np.abs(z)), np.where(diff == 0, 1.0, np.nan))
    return se, z, floored_p(p), diff - z_crit * se, diff + z_crit * se



def bootstrap_summary(rep_a, rep_b, level):
    """Difference statistics from paired or independent replicates (last axis = replicates)."""
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



def difference_columns(diff: np.ndarray, method: str, level: float, *, variance: np.ndarray | None = None,
                       replicates: tuple | None = None, correlation: np.ndarray | None = None) -> dict:
    """The columns of a comparison table that describe the difference ``a - b``, in table order.

    DeLong (``variance`` of the difference given): :func:`normal_test`.
    Bootstrap (``replicates = (rep_a, rep_b)``): :func:`bootstrap_summary`,
    with ``z = difference / se``. ``correlation`` of the two estimates: given
    (DeLong), or that of the replicates unless NaN is passed (independent groups).

    A difference of two areas lies in [-1, 1]: a Wald bound past it is
    truncated there (the percentile interval cannot pass it). The returned
    dict also holds ``"truncated"`` (boolean), which is not a table column:
    :func:`with_edge_notes` pops it into the notes.
    """
    if method == "delong":
        se, z, p, lower, upper = normal_test(diff, variance, level)
    else:
        se, lower, upper, p, replicate_correlation = bootstrap_summary(*replicates, level)
        correlation = replicate_correlation if correlation is None else correlation
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(se > 0, diff / se, np.nan)
    # no difference (a degenerate group): no statistic of it either, whatever its replicates hold
    undefined = ~np.isfinite(np.asarray(diff, dtype=np.float64))
    if undefined.any():
        se, z, p, lower, upper = (np.where(undefined, np.nan, np.asarray(x, dtype=np.float64))
                                  for x in (se, z, p, lower, upper))
    lower, upper, truncated = truncate(lower, upper, -1.0, 1.0)
    return {"difference": diff, "se": se, "z": z, "p_value": p, "method": [method] * diff.size,
            "level": [level] * diff.size, "lower": lower, "upper": upper,
            "correlation": np.broadcast_to(correlation, diff.shape), "truncated": truncated}


def with_edge_notes(columns: dict, notes: list, metric: str, method: str, n_pos, counts: dict,
                    unpaired: bool = False) -> list:
    """The comparison notes with "truncated to [-1, 1]" and small-sample notes added; pops ``columns["truncated"]``.

    ``n_pos`` is the number of positives behind each row (the smaller side
    for an unpaired comparison, whose minimum may be its own:
    ``ComparisonMethod.min_positives_unpaired``); ``counts`` collects the
    flagged rows per method for one
    :class:`~aucpr_stats.exceptions.SmallSampleWarning` per call
    (:func:`warn_small_rows`).
    """
    truncated = np.asarray(columns.pop("truncated"), dtype=bool)
    record = COMPARISON_METHODS[metric][method]
    if unpaired:
        record = record.unpaired()
    small = small_sample_mask(record, n_pos) & np.isfinite(columns["difference"])
    counts[method] = counts.get(method, 0) + int(small.sum())
    shown = small & np.isfinite(np.asarray(columns["p_value"], dtype=np.float64))  # a withheld test has its own note
    extra = join_notes(np.where(truncated, TRUNCATED_NOTE.format(lo=-1, hi=1), None),
                       np.where(shown, small_sample_note(record, compare=True), None))
    return join_notes(np.asarray(notes, dtype=object), extra).tolist()


def withhold_below_minimum(columns: dict, notes: list, metric: str, method: str, n_pos) -> list:
    """Paired tests whose record says ``withheld_below_minimum`` (:mod:`.methods`): below the minimum number of
    positives, NaN p-value, z, SE and interval (the difference stays), and a note saying why.

    Issue 14, item 5: a test that does not hold its size there is not shown as one.
    """
    record = COMPARISON_METHODS[metric][method]
    if not record.withheld_below_minimum:
        return notes
    withheld = small_sample_mask(record, n_pos) & np.isfinite(columns["difference"])
    if not withheld.any():
        return notes
    for name in ("se", "z", "p_value", "lower", "upper", "correlation"):
        columns[name] = np.where(withheld, np.nan, np.asarray(columns[name], dtype=np.float64))
    columns["truncated"] = np.asarray(columns["truncated"], dtype=bool) & ~withheld
    return [withheld_note(metric, record) if w else note for w, note in zip(withheld.tolist(), notes)]


def warn_small_rows(counts: dict) -> None:
    """One SmallSampleWarning for a comparison with rows below the test's minimum number of positives."""
    warn_small_sample(counts, compare=True)


#: The multiplicity adjustments of ``compare(adjust=...)``.
ADJUST_METHODS = ("holm", "bonferroni", "bh")


def adjust_p_values(table, family: list, method: str) -> np.ndarray:
    r"""P-values adjusted for multiplicity within each family of rows of a comparison table.

    A family is the rows that share the values of the ``family`` columns (the
    ``by`` keys, the score of an unpaired comparison, the estimator): the
    pairs compared in one group. NaN p-values (a degenerate group, a test
    withheld) are left out of their family and stay NaN. With :math:`m`
    p-values in a family sorted ascending, :math:`p_{(1)} \le \dots \le p_{(m)}`:

    * ``"bonferroni"``: :math:`\min(1, m p_i)`;
    * ``"holm"`` (Holm 1979, step-down): :math:`\max_{j \le i} \min(1, (m - j + 1) p_{(j)})`;
    * ``"bh"`` (Benjamini & Hochberg 1995, false discovery rate):
      :math:`\min_{j \ge i} \min(1, m p_{(j)} / j)`.

    These are the values of statsmodels' ``multipletests`` with methods
    ``"bonferroni"``, ``"holm"`` and ``"fdr_bh"``, computed for every family at
    once with window expressions.

    Parameters
    ----------
    table : polars.DataFrame
        Holds ``p_value`` and the ``family`` columns.
    family : list of str
        The columns whose values define a family (at least one).
    method : {"holm", "bonferroni", "bh"}

    Returns
    -------
    ndarray of float64
        The adjusted p-values, in the rows' order.
    """

    p = pl.col("p_value").fill_nan(None)
    frame = (table.select(*family, p.alias("__p")).with_row_index("__row")
             .sort([*family, "__p"], nulls_last=True, maintain_order=True))
    m = pl.col("__p").count().over(family)
    rank = pl.col("__p").is_not_null().cum_sum().over(family)
    if method == "bonferroni":
        adjusted = (m * pl.col("__p")).clip(upper_bound=1.0)
    elif method == "holm":
        adjusted = ((m - rank + 1) * pl.col("__p")).clip(upper_bound=1.0).cum_max().over(family)
    else:
        adjusted = (m / rank * pl.col("__p")).clip(upper_bound=1.0).cum_min(reverse=True).over(family)
    frame = frame.with_columns(adjusted.alias("__adjusted")).sort("__row")
    return frame["__adjusted"].fill_null(np.nan).to_numpy().astype(np.float64)


def paired_block(keys, by: tuple, score_a: str, score_b: str, estimator: str, estimate_a: np.ndarray,
                 estimate_b: np.ndarray, columns: dict, n_pos: np.ndarray, n_neg: np.ndarray, note: list):
    """The rows of one pair of scores and one estimator of a paired comparison table, one per group.

    ``keys`` holds one row per group (the ``by`` columns and ``n_missing``);
    a ``__group`` column keeps the group order for the final sort.
    """

    n_groups = keys.height
    block = pl.DataFrame({
        "score_a": [score_a] * n_groups,
        "score_b": [score_b] * n_groups,
        "estimator": [estimator] * n_groups,
        "estimate_a": estimate_a,
        "estimate_b": estimate_b,
        **columns,
        "n_pos": n_pos,
        "n_neg": n_neg,
        "n_missing": keys["n_missing"].to_numpy().astype(np.int64),
        "note": pl.Series(note, dtype=pl.String),
    })
    if by:
        block = pl.concat([keys.select(list(by)), block], how="horizontal")
    return block.with_columns(pl.Series("__group", np.arange(n_groups)))

