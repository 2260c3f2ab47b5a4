r"""Obuchowski's (1997) cluster-robust variance of A', and the covariance of two paired A's.

With several rows per cluster (lesions or eyes of one patient, visits),
rows of a cluster are not independent and DeLong's variance, which treats
every row as a unit, is too small. Obuchowski (1997) keeps DeLong's
placement values but sums them per cluster and takes the cluster as the
unit. In cluster ``i`` with ``m_i`` positives and ``n_i`` negatives
(``M``, ``N`` the totals; ``I10`` clusters holding positives, ``I01``
holding negatives, ``I`` clusters):

.. math::

    V_{10,i} = \sum_{j \in i,\ \mathrm{pos}} \frac{\#\{Y < X_j\} + \tfrac12 \#\{Y = X_j\}}{N}, \qquad
    V_{01,i} = \sum_{k \in i,\ \mathrm{neg}} \frac{\#\{X > Y_k\} + \tfrac12 \#\{X = Y_k\}}{M},

    S_{10} = \frac{I_{10}}{(I_{10}-1)M} \sum_i (V_{10,i} - m_i A)^2, \quad
    S_{01} = \frac{I_{01}}{(I_{01}-1)N} \sum_i (V_{01,i} - n_i A)^2, \quad
    S_{11} = \frac{I}{I-1} \sum_i (V_{10,i} - m_i A)(V_{01,i} - n_i A),

    \widehat{\mathrm{Var}}(A) = \frac{S_{10}}{M} + \frac{S_{01}}{N} + \frac{2 S_{11}}{MN}

(Obuchowski 1997, section 2, Eqs. 3-5; the placements are DeLong, DeLong &
Clarke-Pearson's 1988). It is the variance of the linearisation
:math:`A - \theta \approx \sum_i [(V_{10,i} - m_i\theta)/M + (V_{01,i} - n_i\theta)/N]`,
a sum of independent cluster terms, with small-sample factors
``I10/(I10-1)`` etc. With one row per cluster ``S11 = 0`` and it is
DeLong's variance exactly. For two scores on the same rows and clusters,
the same per-cluster sums give the covariance

.. math::

    \widehat{\mathrm{Cov}}(A^a, A^b) = \frac{S^{ab}_{10}}{M} + \frac{S^{ab}_{01}}{N}
        + \frac{S^{ab}_{11} + S^{ba}_{11}}{MN}

(section 3), with the cross products of the two scores' deviations in place
of the squares. Weighted counts (float64) give the weighted version: ``m_i``,
``n_i``, ``M``, ``N`` and the placements are weighted, the factors still
count clusters.

Assumes clusters independent and their number large (the variance is a
sandwich over clusters: with fewer than about 20 clusters holding each class
it is unstable). Undefined (NaN, with a note) when fewer than two clusters
hold positives, or negatives.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..estimators.roc import a_prime, placement_values
from ..exceptions import InputError
from ..resample.designs import target_rows
from ..ties import TieTable

__all__ = ["ObuchowskiComponents", "obuchowski_components", "obuchowski_covariance"]


@attrs.frozen(eq=False)
class ObuchowskiComponents:
    """A', its cluster-robust variance and the per-cluster sums behind it, per group.

    Attributes
    ----------
    auc, variance, s10, s01, s11 : ndarray of float64, shape (n_groups,)
        A', :math:`\\widehat{\\mathrm{Var}}(A')` and the components above (NaN
        where undefined, see ``note``).
    n_pos, n_neg : ndarray, shape (n_groups,)
        ``M`` and ``N`` (weighted when the counts are).
    clusters, clusters_pos, clusters_neg : ndarray of int64, shape (n_groups,)
        ``I``, ``I10`` and ``I01``.
    v10, v01 : ndarray of float64, shape (n_units,)
        Per cluster: the sums of the positives' and the negatives' placements.
    m, n : ndarray, shape (n_units,)
        Per cluster: positives and negatives.
    unit_group : ndarray of int64, shape (n_units,)
    note : ndarray of str, shape (n_groups,)
        Why the variance is NaN, or ``""``.
    """

    auc: np.ndarray
    variance: np.ndarray
    s10: np.ndarray
    s01: np.ndarray
    s11: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    clusters: np.ndarray
    clusters_pos: np.ndarray
    clusters_neg: np.ndarray
    v10: np.ndarray
    v01: np.ndarray
    m: np.ndarray
    n: np.ndarray
    unit_group: np.ndarray
    note: np.ndarray

    @property
    def se(self) -> np.ndarray:
        """The cluster-robust standard error of A', per group."""
        with np.errstate(invalid="ignore"):
            return np.sqrt(self.variance)

    def deviations(self) -> tuple[np.ndarray, np.ndarray]:
        """Per cluster: :math:`V_{10,i} - m_i A` and :math:`V_{01,i} - n_i A` (A of the cluster's group)."""
        auc = self.auc[self.unit_group]
        return self.v10 - self.m * auc, self.v01 - self.n * auc

    def __repr__(self) -> str:
        return f"ObuchowskiComponents(n_groups={self.auc.size}, n_clusters={self.unit_group.size})"


def _group_sum(unit_group: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    # sums in the units' order within each group: a group's sum does not depend on the other groups
    return np.bincount(unit_group, weights=values, minlength=n_groups)


def _factor(count: np.ndarray) -> np.ndarray:
    """``I / (I - 1)``, NaN below two clusters."""
    count = count.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count >= 2, count / (count - 1.0), np.nan)


def obuchowski_components(group_ties: TieTable, units: TieTable, unit_group) -> ObuchowskiComponents:
    """Obuchowski's cluster-robust variance of A' for every group.

    Parameters
    ----------
    group_ties : TieTable
        One segment per group (int64 or weighted float64 counts).
    units : TieTable
        One segment per (group, cluster): the cluster's counts at its
        distinct scores, segments ordered by group; the counts add up to
        ``group_ties`` per group and score.
    unit_group : array of int, shape (units.n_segments,)
        The group of each unit segment (non-decreasing).

    Returns
    -------
    ObuchowskiComponents

    Raises
    ------
    InputError
        When the tables do not fit together (see
        :func:`~aucpr_stats.resample.designs.target_rows`).

    Notes
    -----
    The placement values are computed once per group row
    (:func:`~aucpr_stats.estimators.roc.placement_values`), gathered to the
    unit rows through each row's row in the group table and summed per unit
    segment: O(rows) in all, no loop over clusters.

    References
    ----------
    Obuchowski, N. A. (1997). Nonparametric analysis of clustered ROC curve
    data. Biometrics 53, 567-578.

    Examples
    --------
    >>> import numpy as np
    >>> from aucpr_stats.ties import TieTable
    >>> group = TieTable([3.0, 2.0, 1.0], [2, 1, 0], [0, 1, 2], [0, 3])
    >>> units = TieTable([3.0, 1.0, 3.0, 2.0, 2.0, 1.0], [1, 0, 1, 1, 0, 0], [0, 1, 0, 0, 1, 1],
    ...                  [0, 2, 4, 5, 6])
    >>> c = obuchowski_components(group, units, [0, 0, 0, 0])
    >>> float(c.auc[0]), int(c.clusters_pos[0]), int(c.clusters_neg[0])
    (0.9444444444444444, 2, 3)
    """
    unit_group = np.ascontiguousarray(unit_group, dtype=np.int64)
    n_groups = group_ties.n_segments
    if unit_group.shape != (units.n_segments,):
        raise InputError(f"`unit_group` must have one group per unit segment ({units.n_segments:,}), "
                         f"got shape {unit_group.shape}")
    if unit_group.size and (unit_group.min() < 0 or unit_group.max() >= n_groups or np.any(np.diff(unit_group) < 0)):
        raise InputError(f"`unit_group` must be non-decreasing group indices in [0, {n_groups})")
    target = target_rows(group_ties, np.repeat(unit_group, units.lengths), units.score)
    for name, fine, coarse in (("positive", units.pos, group_ties.pos), ("negative", units.neg, group_ties.neg)):
        if not np.allclose(np.bincount(target, weights=fine, minlength=group_ties.n_rows), coarse,
                           rtol=1e-9, atol=1e-9):
            raise InputError(f"the {name} counts of `units` do not add up to those of `group_ties`")

    auc = a_prime(group_ties)
    n_pos = group_ties.n_pos.astype(np.float64)
    n_neg = group_ties.n_neg.astype(np.float64)
    # placement of a positive (negative) at each group row, gathered to the unit rows and summed per cluster
    v10_row, v01_row = placement_values(group_ties)
    with np.errstate(invalid="ignore"):
        v10 = units.segment_sum(np.where(units.pos > 0, units.pos * v10_row[target], 0.0))
        v01 = units.segment_sum(np.where(units.neg > 0, units.neg * v01_row[target], 0.0))
    m = units.n_pos.astype(np.float64)
    n = units.n_neg.astype(np.float64)
    clusters_pos = np.bincount(unit_group, weights=m > 0, minlength=n_groups).astype(np.int64)
    clusters_neg = np.bincount(unit_group, weights=n > 0, minlength=n_groups).astype(np.int64)
    clusters = np.bincount(unit_group, weights=(m > 0) | (n > 0), minlength=n_groups).astype(np.int64)

    centre = auc[unit_group]
    d10, d01 = v10 - m * centre, v01 - n * centre
    with np.errstate(invalid="ignore", divide="ignore"):
        s10 = _factor(clusters_pos) / n_pos * _group_sum(unit_group, d10 * d10, n_groups)
        s01 = _factor(clusters_neg) / n_neg * _group_sum(unit_group, d01 * d01, n_groups)
        s11 = _factor(clusters) * _group_sum(unit_group, d10 * d01, n_groups)
        variance = s10 / n_pos + s01 / n_neg + 2.0 * s11 / (n_pos * n_neg)
    note = _notes(n_pos, n_neg, clusters_pos, clusters_neg)
    undefined = note != ""
    for values in (s10, s01, s11, variance):
        values[undefined] = np.nan
    return ObuchowskiComponents(auc, variance, s10, s01, s11, n_pos, n_neg, clusters, clusters_pos,
                                clusters_neg, v10, v01, m, n, unit_group, note)


def _notes(n_pos, n_neg, clusters_pos, clusters_neg) -> np.ndarray:
    note = np.full(n_pos.size, "", dtype=object)
    note[clusters_neg < 2] = "fewer than two clusters hold negatives: the cluster-robust variance is undefined"
    note[clusters_pos < 2] = "fewer than two clusters hold positives: the cluster-robust variance is undefined"
    note[n_neg <= 0] = "no negatives"
    note[n_pos <= 0] = "no positives"
    return note.astype(str)


def obuchowski_covariance(a: ObuchowskiComponents, b: ObuchowskiComponents) -> np.ndarray:
    r"""The cluster-robust covariance of two A's computed on the same rows and clusters, per group.

    .. math::

        \widehat{\mathrm{Cov}}(A^a, A^b) = \frac{S^{ab}_{10}}{M} + \frac{S^{ab}_{01}}{N}
            + \frac{S^{ab}_{11} + S^{ba}_{11}}{MN},

    where :math:`S^{ab}_{10} = \frac{I_{10}}{(I_{10}-1)M} \sum_i d^a_{10,i} d^b_{10,i}`,
    :math:`S^{ab}_{01}` likewise and :math:`S^{ab}_{11} = \frac{I}{I-1}\sum_i d^a_{10,i} d^b_{01,i}`
    with :math:`d_{10,i} = V_{10,i} - m_i A`, :math:`d_{01,i} = V_{01,i} - n_i A`
    (Obuchowski 1997, section 3). ``obuchowski_covariance(c, c)`` is
    ``c.variance``; the variance of the difference is
    ``a.variance + b.variance - 2 * cov``.

    Parameters
    ----------
    a, b : ObuchowskiComponents
        From :func:`obuchowski_components` on the two scores' tables, with
        the same (group, cluster) unit segments in the same order.

    Returns
    -------
    ndarray of float64, shape (n_groups,)
        NaN where either variance is undefined.

    Raises
    ------
    InputError
        When the two do not hold the same clusters with the same class counts.
    """
    if (a.unit_group.shape != b.unit_group.shape or not np.array_equal(a.unit_group, b.unit_group)
            or not np.allclose(a.m, b.m) or not np.allclose(a.n, b.n)):
        raise InputError("the two scores must have the same clusters, in the same order, with the same "
                         "positives and negatives in each")
    n_groups = a.auc.size
    d10a, d01a = a.deviations()
    d10b, d01b = b.deviations()
    g = a.unit_group
    with np.errstate(invalid="ignore", divide="ignore"):
        s10 = _factor(a.clusters_pos) / a.n_pos * _group_sum(g, d10a * d10b, n_groups)
        s01 = _factor(a.clusters_neg) / a.n_neg * _group_sum(g, d01a * d01b, n_groups)
        s11 = _factor(a.clusters) * _group_sum(g, d10a * d01b + d01a * d10b, n_groups)
        cov = s10 / a.n_pos + s01 / a.n_neg + s11 / (a.n_pos * a.n_neg)
    cov[(a.note != "") | (b.note != "")] = np.nan
    return cov
