r"""One test that three or more areas are equal: Stata ``roccomp``'s chi-square, for any comparison.

With :math:`k` areas :math:`\hat\theta = (\hat\theta_1, \dots, \hat\theta_k)`
measured on the same rows (or on independent samples) and the estimated
covariance :math:`S` of :math:`\hat\theta`, DeLong, DeLong & Clarke-Pearson
(1988, Eq. 5) test :math:`H_0: L\theta = 0` for a contrast matrix :math:`L`
of rank :math:`k - 1` (rows such as :math:`\theta_i - \theta_1`) by

.. math::

    \chi^2 = (L\hat\theta)^\top \left(L S L^\top\right)^{-1} (L\hat\theta),

chi-square with :math:`\operatorname{rank}(L S L^\top)` degrees of freedom.
The statistic does not depend on which full-rank set of differences
:math:`L` spans (any two such :math:`L` differ by an invertible matrix).

A comparison table holds, for every pair :math:`(i, j)`, the difference
:math:`\hat\theta_i - \hat\theta_j` and its variance
:math:`V_{ij} = \operatorname{se}_{ij}^2`. Every variance the library gives a
difference is a quadratic form :math:`Q` (DeLong's and Obuchowski's
covariances, the jackknife's and the bootstrap's spreads), so the covariance
of two differences from a common base follows by polarisation:

.. math::

    \operatorname{Cov}(\hat\theta_i - \hat\theta_b, \hat\theta_j - \hat\theta_b)
    = \tfrac12\left(V_{ib} + V_{jb} - V_{ij}\right).

So the test is read off a table of all pairs, for each group and estimator
at once, with the same variances as the pairwise tests: DeLong's for a paired
AUROC comparison (Stata's ``roccomp``), Obuchowski's with clusters, the paired
bootstrap for AUCPR, the independent samples' sum for ``between=`` levels.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv
from ..distributions import chi2_sf
from ..exceptions import InputError, SmallSampleWarning
from ..report.display import FramedResult
from .jackknife import jackknife_options

__all__ = ["EqualityTest", "equality_test", "chi_square_of_differences"]

#: Fewest positives at which the AUCPR test held its size in benchmarks/equality_test_size_results.md (the paired
#: jackknife: 2.5-5.7% from 100 positives, 8.5% with 5 scores at 30); fewer get a note and a SmallSampleWarning.
AUCPR_MIN_POSITIVES = 100

#: An eigenvalue of the covariance of the differences below this fraction of the largest is zero (a rank lost,
#: e.g. two scores that order every pair alike): the test uses the generalised inverse and one df fewer.
RANK_TOLERANCE = 1e-10


@attrs.frozen(eq=False)
class EqualityTest(FramedResult):
    """The test that every area compared is equal: one row per group and estimator.

    Columns: the group keys, ``estimator``, ``k`` (areas compared),
    ``statistic`` (chi-square), ``df``, ``p_value``, ``method`` (where the
    variances come from), ``n_pos``, ``n_neg``, ``note``.
    """


def chi_square_of_differences(difference: np.ndarray, variance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The chi-square and its df from pairwise differences and their variances, for many cells at once.

    Parameters
    ----------
    difference : ndarray, shape (n_cells, k, k)
        :math:`\hat\theta_i - \hat\theta_j` at ``[:, i, j]`` (antisymmetric).
    variance : ndarray, shape (n_cells, k, k)
        The variance of that difference (symmetric, zero diagonal).

    Returns
    -------
    statistic, df : ndarray, shape (n_cells,)
        NaN (and df 0) where a variance is missing or every difference has variance 0.
    """
    n_cells, k = difference.shape[:2]
    d = difference[:, 1:, 0]  # theta_i - theta_0, i = 1..k-1
    base = variance[:, 1:, 0]
    covariance = 0.5 * (base[:, :, None] + base[:, None, :] - variance[:, 1:, 1:])
    usable = np.isfinite(covariance).all(axis=(1, 2)) & np.isfinite(d).all(axis=1)
    statistic = np.full(n_cells, np.nan)
    df = np.zeros(n_cells, dtype=np.int64)
    if not usable.any():
        return statistic, df
    values, vectors = np.linalg.eigh(covariance[usable])
    largest = values.max(axis=1, keepdims=True)
    kept = values > RANK_TOLERANCE * np.maximum(largest, 0.0)
    kept &= largest > 0
    projected = np.einsum("cij,ci->cj", vectors, d[usable])  # the differences on the eigenvectors
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(kept, projected**2 / np.where(kept, values, 1.0), 0.0)
    rank = kept.sum(axis=1)
    statistic[usable] = np.where(rank > 0, terms.sum(axis=1), np.nan)
    df[usable] = rank
    return statistic, df


def _labels(result: Any) -> tuple[str, str, list[str]]:
    """The two columns naming a pair's areas, and the columns of a cell (group keys, unpaired score, estimator)."""
    frame = result.frame
    if result.paired:
        first, second = "score_a", "score_b"
    else:
        first, second = f"{result.between}_a", f"{result.between}_b"
    keys = [c for c in result.by if c in frame.columns and c not in (first, second)]
    if not result.paired and "score" in frame.columns:
        keys.append("score")
    return first, second, keys + ["estimator"]


def _variance_sources(result: Any) -> tuple[str, ...]:
    """Where the pairs' variances can come from; the first is the default (as for ``interaction()``)."""
    if result.jackknife_source is None:
        return (result.method,)
    return ("jackknife", result.method) if result.metric == "aucpr" else (result.method, "jackknife")


def equality_test(result: Any, method: str | None = None, **options: Any) -> EqualityTest:
    """The chi-square test that every area of a comparison is equal (see the module docstring).

    Parameters
    ----------
    result : ComparisonResult
        A comparison of every pair (``reference=None``) of three or more
        scores, or of the levels of ``between=``; not pooled over imputations.
    method : str, optional
        Where the pairs' variances come from: the comparison's own (``"delong"``,
        ``"bootstrap"``: its ``se``), or ``"jackknife"`` (the paired jackknife
        of every difference, for a comparison of independent rows without
        weights). Default: the jackknife for AUCPR where it applies (the paired
        bootstrap's covariance rejected a true null up to 13% of the time at 30
        positives, benchmarks/equality_test_size_results.md), the comparison's
        own otherwise.
    **options
        Of the jackknife: ``max_units``, ``seed`` (see ``interaction()``).

    Returns
    -------
    EqualityTest
    """
    if result.reference is not None:
        raise InputError(f"the test that all areas are equal needs every pair's variance; this comparison has only "
                         f"the pairs with reference={result.reference!r}: compare again without `reference=`")
    if "fmi" in result.frame.columns:
        raise InputError("the test that all areas are equal is not built for comparisons pooled over "
                         "imputations (Rubin's rules pool each pair on its own)")
    if result.metric not in ("auroc", "aucpr"):
        raise InputError(f"the test that all areas are equal compares AUROC or AUCPR; got metric={result.metric!r}")
    sources = _variance_sources(result)
    method = sources[0] if method is None else choice_iv(method, "method", sources)
    first, second, cell_columns = _labels(result)
    frame = result.frame
    labels = list(dict.fromkeys(frame[first].to_list() + frame[second].to_list()))
    k = len(labels)
    if k < 2:
        raise InputError("the test that all areas are equal needs at least two areas")
    position = {label: i for i, label in enumerate(labels)}
    cells = frame.select(cell_columns).unique(maintain_order=True).with_row_index("__cell")
    rows = frame.join(cells, on=cell_columns, how="left", nulls_equal=True, maintain_order="left")
    cell = rows["__cell"].to_numpy().astype(np.int64)
    i = np.array([position[v] for v in rows[first].to_list()], dtype=np.int64)
    j = np.array([position[v] for v in rows[second].to_list()], dtype=np.int64)
    n_cells = cells.height
    difference = np.full((n_cells, k, k), np.nan)
    variance = np.full((n_cells, k, k), np.nan)
    diff = rows["difference"].to_numpy().astype(np.float64)
    if method == "jackknife":  # the table's row order: group, then pair, then estimator
        options.setdefault("pooled", True)
        _, seed, max_units = jackknife_options(options)
        var = result.jackknife_source.difference_variance(max_units, seed)["variance"]
    else:
        var = rows["se"].to_numpy().astype(np.float64) ** 2
    difference[cell, i, j], difference[cell, j, i] = diff, -diff
    variance[cell, i, j] = variance[cell, j, i] = var
    diagonal = np.arange(k)
    difference[:, diagonal, diagonal] = 0.0
    variance[:, diagonal, diagonal] = 0.0
    statistic, df = chi_square_of_differences(difference, variance)
    with np.errstate(invalid="ignore"):
        p_value = np.where(df > 0, chi2_sf(statistic, np.maximum(df, 1)), np.nan)
    counts = [c for c in ("n_pos", "n_neg") if c in frame.columns]
    first_rows = rows.unique("__cell", keep="first", maintain_order=True).select(["__cell", *counts])
    n_pos = (first_rows.sort("__cell")["n_pos"].to_numpy() if "n_pos" in counts
             else np.full(n_cells, np.inf))
    small = (result.metric == "aucpr") & (n_pos < AUCPR_MIN_POSITIVES) & np.isfinite(statistic)
    notes = []
    for s, d, few in zip(statistic.tolist(), df.tolist(), small.tolist()):
        if np.isnan(s):
            notes.append("a pair's variance is missing (see the comparison's notes): no test")
        elif d < k - 1:
            notes.append(f"the differences' covariance has rank {d} < {k - 1} (scores that order pairs alike): "
                         f"chi-square with {d} df")
        else:
            notes.append(None)
        if few:
            extra = (f"fewer than {AUCPR_MIN_POSITIVES} positives: the test's size is not kept there (8.5% at 30 "
                     "positives with 5 scores, benchmarks/equality_test_size_results.md)")
            notes[-1] = extra if notes[-1] is None else f"{notes[-1]}; {extra}"
    if small.any():
        warnings.warn(f"{int(small.sum())} test(s) of equal AUCPRs with fewer than {AUCPR_MIN_POSITIVES} positives: "
                      "the test may reject a true null too often there; see the `note` column", SmallSampleWarning,
                      stacklevel=3)
    table = cells.join(first_rows, on="__cell", how="left").sort("__cell").drop("__cell")
    if method == "jackknife":
        method = "paired jackknife covariance" if result.paired else "jackknife variances of independent samples"
    elif result.paired:
        method = {"delong": "DeLong covariance", "bootstrap": "paired bootstrap covariance"}.get(method, method)
    else:
        method = {"delong": "DeLong variances of independent samples",
                  "bootstrap": "bootstrap variances of independent samples"}.get(method, method)
    if result.design.get("cluster") is not None and result.method == "delong" and "DeLong" in method:
        method = "Obuchowski cluster-robust covariance"
    table = table.with_columns(
        pl.lit(k, dtype=pl.Int64).alias("k"), pl.Series("statistic", statistic), pl.Series("df", df),
        pl.Series("p_value", p_value, dtype=pl.Float64), pl.lit(method).alias("method"),
        pl.Series("note", notes, dtype=pl.String))
    order = [*cell_columns, "k", "statistic", "df", "p_value", "method", *counts, "note"]
    what = ", ".join(str(v) for v in labels)
    title = (f"Test that all {k} {result.metric.upper()}s are equal ({what}): chi-square on the differences, "
             f"{method} (DeLong, DeLong & Clarke-Pearson 1988; Stata roccomp)")
    return EqualityTest(frame=table.select(order), frame_kind=result.frame_kind, title=title)
