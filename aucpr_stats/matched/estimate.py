r"""Kernels of the within-matched-set AUROC, on arrays: win counts per set, the estimate, its variances.

In a matched case-control study each case is sampled together with controls
that share its matching factors (a *matched set*: 1:m, or m:n). Comparing a
case with a control of another set mixes the marker's accuracy with the
difference between the sets' matching factors, so only the comparisons inside
a set estimate what matching fixes: the **conditional (covariate-specific)
AUROC**, the probability that a case scores higher than a control with the
same matching factors, averaged over the matched sets (Janes & Pepe 2008).
In a 1:m design every case weighs the same, so this is the area under the
covariate-adjusted ROC curve: the covariate-specific AUROC averaged over the
cases' distribution of the matching factors (Pepe 2003, chapter 6; Janes &
Pepe 2009), which pools the placement of each case among its own set's
controls. With set :math:`k` holding :math:`n_{1k}` cases and
:math:`n_{0k}` controls,

.. math::

    U_k = \sum_{i \in \text{cases}_k} \sum_{j \in \text{controls}_k}
          \left\{ [s_i > s_j] + \tfrac12 [s_i = s_j] \right\},
    \qquad P_k = n_{1k} n_{0k},
    \qquad \hat\theta = \frac{\sum_k U_k}{\sum_k P_k},

the share of within-set (case, control) pairs the case wins, ties counting
one half: a pairs-weighted mean of the sets' own Mann-Whitney areas
:math:`U_k / P_k` (in a 1:m design every set weighs the same). A set without
a case or without a control has no pair and is left out by the caller.

**Variance.** The sets are the independent units, and :math:`\hat\theta` is
a ratio of two sums over them, so its delta-method (sandwich) variance is
the variance of the sets' influence values
:math:`\psi_k = (U_k - \hat\theta P_k)/\sum_l P_l` (which sum to zero),

.. math::

    \widehat{V}_{\text{sandwich}} = \frac{K}{K-1} \sum_k \psi_k^2,

with the small-sample factor :math:`K/(K-1)` of :math:`K` sets (the
variance of a ratio estimator, Cochran 1977, chapter 6). The leave-one-set-out
jackknife recomputes the ratio without each set,
:math:`\hat\theta_{(-k)} = (\sum U - U_k)/(\sum P - P_k)`, and takes
:math:`\widehat V_{\text{jack}} = \frac{K-1}{K}\sum_k
(\hat\theta_{(-k)} - \bar\theta_{(\cdot)})^2` (Efron & Tibshirani 1993,
chapter 11); both agree to first order, :math:`\hat\theta_{(-k)} - \hat\theta
\approx -\psi_k \sum P / (\sum P - P_k)`.

Everything is vectorised over the sets of every group at once: the rows are
sorted once by (set, score), the runs of equal scores within a set give each
case's wins as its rank among its set's controls, and per-set and per-group
totals are ``bincount`` sums.

References
----------
Janes H, Pepe MS (2008). Matching in studies of classification accuracy:
implications for analysis, efficiency, and assessment of incremental value.
*Biometrics* 64:1-9.
Janes H, Pepe MS (2009). Adjusting for covariate effects on classification
accuracy using the covariate-adjusted receiver operating characteristic
curve. *Biometrika* 96:371-382.
Pepe MS (2003). *The Statistical Evaluation of Medical Tests for
Classification and Prediction*, Oxford University Press, chapter 6.
Cochran WG (1977). *Sampling Techniques*, 3rd ed., Wiley, chapter 6.
Efron B, Tibshirani RJ (1993). *An Introduction to the Bootstrap*, Chapman &
Hall, chapter 11.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..distributions import expit, logit, normal_quantile
from ..ties import TieTable

__all__ = ["SetCounts", "set_counts", "table_set_counts", "matched_estimate", "set_influence",
           "sandwich_variance", "jackknife_variance", "leave_one_set_out", "matched_interval"]


@attrs.frozen(eq=False)
class SetCounts:
    """Per matched set: the case wins :math:`U_k`, the cases and the controls.

    Attributes
    ----------
    wins : ndarray of float64, shape (n_sets,)
        :math:`U_k`, ties counted one half (a multiple of 0.5, exact in float64).
    n_pos, n_neg : ndarray of int64, shape (n_sets,)
    """

    wins: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray

    @property
    def pairs(self) -> np.ndarray:
        """:math:`P_k = n_{1k} n_{0k}`, as float64."""
        return self.n_pos.astype(np.float64) * self.n_neg

    @property
    def usable(self) -> np.ndarray:
        """Sets holding a case and a control."""
        return (self.n_pos > 0) & (self.n_neg > 0)


def _wins_of_runs(pos: np.ndarray, neg: np.ndarray, run_set: np.ndarray, n_sets: int) -> SetCounts:
    """Wins per set from runs of equal scores, sorted by set and *ascending* score within set.

    A case in a run beats the controls of the earlier runs of its set and ties
    with its own run's controls: ``pos * (controls below + neg / 2)``.
    """
    pos = pos.astype(np.int64)
    neg = neg.astype(np.int64)
    running = np.cumsum(neg)
    set_start = np.flatnonzero(np.r_[True, run_set[1:] != run_set[:-1]]) if run_set.size else np.zeros(0, np.int64)
    before_set = np.zeros(run_set.size, dtype=np.int64)
    if run_set.size:
        first = running[set_start] - neg[set_start]            # controls counted before each set begins
        before_set = np.repeat(first, np.diff(np.r_[set_start, run_set.size]))
    below = running - neg - before_set                        # controls of the set strictly below the run
    wins = np.bincount(run_set, weights=pos * (below + 0.5 * neg), minlength=n_sets)
    n_pos = np.bincount(run_set, weights=pos, minlength=n_sets).astype(np.int64)
    n_neg = np.bincount(run_set, weights=neg, minlength=n_sets).astype(np.int64)
    return SetCounts(wins=wins, n_pos=n_pos, n_neg=n_neg)


def set_counts(set_code, case, score) -> SetCounts:
    """Win counts per matched set from rows: one sort by (set, score), runs of equal scores within a set.

    Parameters
    ----------
    set_code : array_like of int, shape (n,)
        Each row's set, coded 0 .. n_sets - 1.
    case : array_like of bool, shape (n,)
        True for a case (positive), False for a control.
    score : array_like of float, shape (n,)
        Higher scores predict a case; finite.

    Returns
    -------
    SetCounts
        One entry per set code 0 .. max(set_code).

    Examples
    --------
    >>> c = set_counts([0, 0, 0, 1, 1], [1, 0, 0, 1, 0], [0.9, 0.2, 0.9, 0.1, 0.5])
    >>> c.wins.tolist(), c.pairs.tolist()
    ([1.5, 0.0], [2.0, 1.0])
    """
    set_code = np.asarray(set_code, dtype=np.int64)
    case = np.asarray(case, dtype=bool)
    score = np.asarray(score, dtype=np.float64)
    n_sets = int(set_code.max()) + 1 if set_code.size else 0
    order = np.lexsort((score, set_code))
    k, s, y = set_code[order], score[order], case[order]
    new_run = np.r_[True, (k[1:] != k[:-1]) | (s[1:] != s[:-1])] if k.size else np.zeros(0, bool)
    run = np.cumsum(new_run) - 1
    n_runs = int(run[-1]) + 1 if run.size else 0
    pos = np.bincount(run, weights=y, minlength=n_runs)
    neg = np.bincount(run, weights=~y, minlength=n_runs)
    return _wins_of_runs(pos, neg, k[new_run], n_sets)


def table_set_counts(ties: TieTable) -> SetCounts:
    """Win counts per segment of a tie table whose segments are the matched sets (scores descending)."""
    ids = ties.segment_ids()
    # the segments' rows reversed, whole, are the sets in reverse order with ascending scores
    flipped = _wins_of_runs(ties.pos[::-1], ties.neg[::-1], (ties.n_segments - 1 - ids)[::-1], ties.n_segments)
    return SetCounts(wins=flipped.wins[::-1].copy(), n_pos=flipped.n_pos[::-1].copy(),
                     n_neg=flipped.n_neg[::-1].copy())


def matched_estimate(wins, pairs, group, n_groups: int) -> np.ndarray:
    r""":math:`\hat\theta_g = \sum_{k \in g} U_k / \sum_{k \in g} P_k` per group (NaN without pairs)."""
    u = np.bincount(group, weights=wins, minlength=n_groups)
    p = np.bincount(group, weights=pairs, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p > 0, u / np.where(p > 0, p, 1.0), np.nan)


def set_influence(wins, pairs, group, theta) -> np.ndarray:
    r"""Each set's influence :math:`\psi_k = (U_k - \hat\theta_g P_k) / \sum_{l \in g} P_l` on its group's ratio."""
    group = np.asarray(group, dtype=np.int64)
    total = np.bincount(group, weights=pairs, minlength=np.size(theta))
    return (np.asarray(wins) - theta[group] * pairs) / total[group]


def sandwich_variance(wins, pairs, group, n_groups: int) -> np.ndarray:
    r"""Delta-method variance over sets, :math:`K/(K-1)\sum_k \psi_k^2` per group (NaN with fewer than 2 sets)."""
    group = np.asarray(group, dtype=np.int64)
    theta = matched_estimate(wins, pairs, group, n_groups)
    psi = set_influence(wins, pairs, group, theta)
    k = np.bincount(group, minlength=n_groups).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.where(k > 1, k / (k - 1), np.nan)
    return factor * np.bincount(group, weights=psi * psi, minlength=n_groups)


def leave_one_set_out(wins, pairs, group, n_groups: int) -> np.ndarray:
    r""":math:`\hat\theta_{(-k)}` of every set (NaN where the set holds all its group's pairs)."""
    group = np.asarray(group, dtype=np.int64)
    u = np.bincount(group, weights=wins, minlength=n_groups)[group] - wins
    p = np.bincount(group, weights=pairs, minlength=n_groups)[group] - pairs
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p > 0, u / np.where(p > 0, p, 1.0), np.nan)


def jackknife_variance(wins, pairs, group, n_groups: int) -> np.ndarray:
    r"""Leave-one-set-out jackknife variance :math:`\frac{K-1}{K}\sum_k(\hat\theta_{(-k)} - \bar\theta)^2` per group."""
    group = np.asarray(group, dtype=np.int64)
    loo = leave_one_set_out(wins, pairs, group, n_groups)
    k = np.bincount(group, minlength=n_groups).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(group, weights=loo, minlength=n_groups) / k
        spread = np.bincount(group, weights=(loo - mean[group]) ** 2, minlength=n_groups)
        return np.where(k > 1, (k - 1) / k * spread, np.nan)


def matched_interval(theta, se, level: float, scale: str) -> tuple[np.ndarray, np.ndarray]:
    r"""Wald interval on the logit scale (``"logit"``) or on the area's own scale (``"identity"``).

    Logit: :math:`\operatorname{expit}\{\operatorname{logit}\hat\theta \pm
    z\,\widehat{SE}/(\hat\theta(1-\hat\theta))\}`, NaN at an estimate of 0 or 1
    (the logit is infinite; the caller notes it). Identity:
    :math:`\hat\theta \pm z\,\widehat{SE}`, truncated to [0, 1].
    """
    theta = np.asarray(theta, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    z = float(normal_quantile(0.5 + level / 2))
    if scale == "identity":
        return np.clip(theta - z * se, 0.0, 1.0), np.clip(theta + z * se, 0.0, 1.0)
    inside = (theta > 0) & (theta < 1)
    safe = np.where(inside, theta, 0.5)
    with np.errstate(invalid="ignore", divide="ignore"):
        eta, tau = logit(safe), se / (safe * (1 - safe))
        lower, upper = expit(eta - z * tau), expit(eta + z * tau)
    return np.where(inside, lower, np.nan), np.where(inside, upper, np.nan)
