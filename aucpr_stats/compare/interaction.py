r"""Test of interaction: is the difference between two scores (or levels) the same in every subgroup?

With :math:`k` independent groups (sex, age band, site), differences
:math:`\hat d_i = \hat\theta_{a,i} - \hat\theta_{b,i}` and their variances
:math:`v_i`, the test is Cochran's Q of :mod:`.heterogeneity` on the
:math:`\hat d_i`, on the natural scale. Where the variances come from:

* ``method="jackknife"`` (the default for an AUCPR comparison of
  independent rows): for two scores on the same rows, the paired two-sample
  jackknife of the difference
  (:func:`~aucpr_stats.compare.jackknife.paired_jackknife`: a deleted row
  leaves both scores' tables); for two levels of ``between=`` (independent
  samples), the sum of the two levels' jackknife variances
  (:func:`~aucpr_stats.compare.jackknife.jackknife_variance`). Pooled per
  positive over the groups and referred to an F distribution
  (:func:`~aucpr_stats.compare.jackknife.pooled_test`), as the AUCPR
  heterogeneity test does. With the paired bootstrap's variances the
  chi-square test held 4.4-6.7% in seven of eight cells of
  ``docs/heterogeneity.md`` but 8.0% (Monte Carlo SE 0.9) with five groups of
  50 positives at prevalence 0.3: 200 replicates give a variance whose noise
  the chi-square reference ignores, and more replicates did not remove it.
* the comparison's own method (``"delong"``, ``"obuchowski"``,
  ``"bootstrap"``): the squared ``se`` of its table, chi-square reference.
  The default for AUROC, and for comparisons the jackknife does not serve
  (clusters, weights).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv
from ..exceptions import InputError
from ..resample import Streams
from .heterogeneity import HeterogeneityResult, across_iv, assemble_test, heterogeneity, none_mask
from .jackknife import jackknife_options, jackknife_variance, paired_jackknife

__all__ = ["LevelTables", "PairedRows", "interaction", "heterogeneity_rows"]


@attrs.frozen(eq=False)
class PairedRows:
    """What a paired comparison on independent rows keeps for a later jackknife of its differences.

    Attributes
    ----------
    paired : aucpr_stats.ingest.PairedScores
        The scores' tie tables and every row's tie row in each.
    estimators : list of Estimator
        The registry records compared (a stated prevalence included).
    keys : polars.DataFrame
        One row per group, in the order of the comparison table.
    by : tuple of str
    pairs : list of (int, int)
        The score indices of each pair, in the order of the table's rows within a group.
    """

    paired: Any
    estimators: list
    keys: pl.DataFrame
    by: tuple
    pairs: list

    def difference_variance(self, max_units: int, seed: Any) -> dict:
        """Per table row (group, then pair, then estimator): the jackknife variance of the difference.

        Also ``units`` (the positives' deletion units behind each row) and
        ``n_pool`` (the positives each variance is pooled per: the group's).
        """
        streams = Streams.for_keys(seed, self.keys, self.by, "jackknife")
        out = paired_jackknife(self.paired, self.estimators, self.pairs, max_units=max_units, streams=streams)
        per_group = len(self.pairs) * len(self.estimators)
        n_pos = self.paired.tables[0].n_pos
        return {"variance": np.transpose(out["variance"], (1, 0, 2)).ravel(),
                "units": np.repeat(out["units"], per_group).astype(np.float64),
                "n_pool": np.repeat(n_pos, per_group).astype(np.float64)}


@attrs.frozen(eq=False)
class LevelTables:
    """What an unpaired (``between=``) comparison on independent rows keeps for a later jackknife.

    Attributes
    ----------
    ties : TieTable
        One segment per (``by`` keys, score, level) cell.
    estimators : list of Estimator
    keys : polars.DataFrame
        One row per segment.
    key_columns : list of str
    seg_a, seg_b : ndarray of int64
        The two cells of each pair compared, in the order of the table's rows (then estimator).
    """

    ties: Any
    estimators: list
    keys: pl.DataFrame
    key_columns: list
    seg_a: np.ndarray
    seg_b: np.ndarray

    def difference_variance(self, max_units: int, seed: Any) -> dict:
        r"""Per table row (pair, then estimator): :math:`v_J(a) + v_J(b)`, the levels being independent.

        ``units`` adds the two cells' deletion units; ``n_pool`` is
        :math:`1/(1/n_{+,a} + 1/n_{+,b})`, so that one variance per positive
        :math:`r` gives the difference the variance :math:`r/n_{+,a} + r/n_{+,b}`.
        """
        streams = Streams.for_keys(seed, self.keys, self.key_columns, "jackknife")
        out = jackknife_variance(self.ties, self.estimators, max_units=max_units, streams=streams)
        a, b = self.seg_a, self.seg_b
        n_pos = self.ties.n_pos.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            n_pool = 1.0 / (1.0 / n_pos[a] + 1.0 / n_pos[b])
        n_est = len(self.estimators)
        return {"variance": (out["natural"][a] + out["natural"][b]).ravel(),
                "units": np.repeat(out["units"][a] + out["units"][b], n_est).astype(np.float64),
                "n_pool": np.repeat(n_pool, n_est)}


def _methods(comparison: Any) -> tuple[str, ...]:
    """The variance sources an interaction test of ``comparison`` can use; the first is the default."""
    own = comparison.method
    if comparison.jackknife_source is None:
        return (own,)
    return ("jackknife", own) if comparison.metric == "aucpr" else (own, "jackknife")


def _jackknife_variance(comparison: Any, options: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The jackknife variance of every row's difference, its degrees of freedom and the positives it pools per."""
    pooled, seed, max_units = jackknife_options(options)
    out = comparison.jackknife_source.difference_variance(max_units, seed)
    if out["variance"].size != comparison.to_polars().height:  # pragma: no cover - a broken invariant, not user input
        raise RuntimeError("the comparison table and the tables kept for its jackknife disagree")
    # each cell's variance has (positive units - 1) degrees of freedom; a difference of two cells adds them
    cells = 1 if isinstance(comparison.jackknife_source, PairedRows) else 2
    nu = np.maximum(out["units"] - cells, 0.0)
    return out["variance"], nu, out["n_pool"], pooled


def interaction(comparison: Any, method: str | None = None, *, across: Any = None,
                **options: Any) -> HeterogeneityResult:
    """Test that the difference between two scores (or levels) is the same in every group of a comparison.

    Parameters
    ----------
    comparison : ComparisonResult
        A :func:`~aucpr_stats.compare` result with ``by=``.
    method : str, optional
        ``"jackknife"``: the jackknife of the difference (paired, or the sum
        of the two independent levels'), pooled per positive, F reference;
        the default for an AUCPR comparison of independent rows. Otherwise
        the comparison's own method (``"delong"``, ``"obuchowski"``,
        ``"bootstrap"``): the variances of its ``se`` column, chi-square
        reference; the default for AUROC and for clustered or weighted
        comparisons.
    across : str or list of str, optional
        The grouping columns compared (default: all of ``by``); the other
        ``by`` columns split the tests.
    **options
        For ``method="jackknife"``: ``pooled`` (default True; False: each
        group's own variance and Welch's F), ``max_units`` (a class with more
        distinct cells is removed in that many random groups, default 200)
        and ``seed`` (of those groups, default 0).

    Returns
    -------
    HeterogeneityResult
        One test per pair compared and estimator (and per level of any
        ``by`` column not in ``across``).

    Raises
    ------
    InputError
        An ungrouped comparison, a method it cannot use, options without the jackknife.
    """
    methods = _methods(comparison)
    method = methods[0] if method is None else choice_iv(method, "method", methods)
    table = comparison.to_polars()
    across, split = across_iv(across, tuple(comparison.by))
    pair = ["score_a", "score_b"] if comparison.paired else [
        *(["score"] if "score" in table.columns else []), f"{comparison.between}_a", f"{comparison.between}_b"]
    diff = table["difference"].to_numpy().astype(np.float64)
    n_pos = (table["n_pos"].to_numpy() if comparison.paired else
             np.minimum(table["n_pos_a"].to_numpy(), table["n_pos_b"].to_numpy()))
    nu, pooled, n_pool = None, False, None
    if method == "jackknife":
        variance, nu, n_pool, pooled = _jackknife_variance(comparison, options)
    else:
        if options:
            raise InputError(f"options {sorted(options)} apply to method='jackknife' only; got method={method!r}")
        variance = table["se"].to_numpy().astype(np.float64) ** 2
    reason = np.full(diff.size, None, dtype=object)
    own = np.asarray(table["note"].to_list(), dtype=object)
    reason[variance == 0] = "a variance of 0"
    missing = ~np.isfinite(variance) | ~np.isfinite(diff)
    reason[missing] = np.where(none_mask(own[missing]), "no variance of the difference", own[missing])
    rows = table.select(*split, *across, *pair, "estimator", pl.col("difference").alias("value"))
    labels = [", ".join(f"{c}={v!r}" for c, v in zip(across, r)) for r in table.select(across).iter_rows()]
    info = {"kind": "interaction", "method": method, "scale": "natural", "labels": labels}
    out, groups = assemble_test(info, rows, [*split, *pair, "estimator"], diff, variance, reason, n_pos,
                                lambda x: x, nu=nu, pooled=pooled, pool_n=n_pool)
    reference = ("pooled" if pooled else "welch") if method == "jackknife" else "chi2"
    return HeterogeneityResult(table=out, groups=groups, kind="interaction", metric=comparison.metric,
                               method=method, scale="natural", across=tuple(across),
                               frame_kind=comparison.frame_kind, what="difference", reference=reference)


def heterogeneity_rows(result: Any, method: str | None = None, **options: Any) -> pl.DataFrame:
    """The rows of :func:`heterogeneity` (or of :func:`interaction` for a comparison), as a polars frame.

    For table footnotes: the stratifying columns, ``estimator``,
    ``statistic``, ``df``, ``p_value`` and the rest of
    :attr:`HeterogeneityResult.table`.
    """
    if hasattr(result, "paired"):  # a ComparisonResult
        return interaction(result, method, **options).table
    return heterogeneity(result, method, **options).table
