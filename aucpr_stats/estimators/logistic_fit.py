r"""Grouped-binomial logistic regression on a tie table: one Newton fit per segment, all segments at once.

A tie row ``r`` of a segment holds ``p_r`` events and ``n_r`` non-events at
one predicted probability; with a design row :math:`x_r` (``k`` columns) and
an offset :math:`o_r` the segment's log-likelihood is

.. math::

    \ell(\beta) = \sum_r p_r \log\sigma(\eta_r) + n_r \log(1 - \sigma(\eta_r)),
    \qquad \eta_r = o_r + x_r^\top \beta,

the likelihood of the rows themselves (a row of weight ``w`` counts ``w``
times: the weighted, or pseudo-, likelihood of a survey). It is concave; the
Newton step :math:`(X^\top W X)^{-1} X^\top (p - (p+n)\mu)` with step halving
reaches its maximum in a few iterations from a start at perfect calibration.
Every sum is a segment sum (``np.add.reduceat``), so 10^5 groups cost one
pass per iteration, and a segment's fit does not depend on the others.

A segment's fit stops when its Newton decrement per unit of weight,
:math:`g^\top H^{-1} g / W`, is below ``1e-20`` (a step of about 1e-10 in the
coefficients; the same for any scaling of the weights), or after
``max_iter`` iterations; a segment that has not converged by then (a
quasi-separated spline fit, whose likelihood rises without end) is reported
as such, never returned as an estimate. Separation of the calibration slope is detected exactly beforehand
(:func:`separated`).
"""

from __future__ import annotations

import attrs
import numpy as np

from ..distributions import expit
from ..ties import TieTable

__all__ = ["LogisticFit", "fit_logistic", "log_likelihood", "separated"]

_TOLERANCE = 1e-10
#: A coefficient this large is a fit running off to infinity (quasi-separation: the likelihood still rises,
#: ever more slowly), not an estimate: a logit slope of 1,000 or a spline coefficient on Harrell's scale
#: (its terms divided by the squared knot range) of 1,000 has no meaning for calibration.
_DIVERGED = 1e3
#: Below this squared Newton decrement per unit of weight (~ the squared step times the design's variance:
#: steps of about 1e-3) a full step is taken without evaluating the likelihood, which is then close to its
#: quadratic model; per unit of weight, so the same for any scale of the weights.
_FULL_STEP = 1e-6


@attrs.frozen(eq=False)
class LogisticFit:
    """The fitted coefficients of every segment, the information matrix at them, and whether each converged.

    Attributes
    ----------
    coef : ndarray, shape (n_segments, k)
    information : ndarray, shape (n_segments, k, k)
        :math:`X^\\top W X` at ``coef`` (the observed information).
    converged : ndarray of bool, shape (n_segments,)
    """

    coef: np.ndarray
    information: np.ndarray
    converged: np.ndarray

    def covariance(self) -> np.ndarray:
        """The model-based covariance :math:`(X^\\top W X)^{-1}` per segment (NaN where not converged)."""
        out = np.full(self.information.shape, np.nan)
        ok = self.converged & np.all(np.isfinite(self.information), axis=(1, 2))
        if ok.any():
            out[ok] = np.linalg.pinv(self.information[ok])
        return out


def _segment_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sums over the first axis within segments starting at ``starts`` (every segment non-empty)."""
    return np.add.reduceat(values, starts, axis=0)


def log_likelihood(eta: np.ndarray, pos: np.ndarray, neg: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each segment's grouped-binomial log-likelihood at linear predictors ``eta`` (one per tie row)."""
    # log sigma(eta) = eta - log(1 + exp(eta)) and log(1 - sigma(eta)) = -log(1 + exp(eta)): one softplus per row
    per_row = pos * eta - (pos + neg) * np.logaddexp(0.0, eta)
    return _segment_sums(per_row, starts)


def fit_logistic(ties: TieTable, design: np.ndarray, offset: np.ndarray, start: np.ndarray,
                 max_iter: int = 100) -> LogisticFit:
    """Maximum-likelihood fit of ``logit P(event) = offset + design @ beta`` in every segment of ``ties``.

    Parameters
    ----------
    ties : TieTable
        Every segment non-empty; ``pos`` and ``neg`` are the (weighted) counts.
    design : ndarray, shape (n_rows, k)
        One design row per tie row.
    offset : ndarray, shape (n_rows,)
    start : ndarray, shape (k,) or (n_segments, k)
        Starting coefficients (perfect calibration, for a recalibration).
    max_iter : int
        Newton iterations at most.
    """
    pos, neg = ties.pos.astype(np.float64), ties.neg.astype(np.float64)
    starts = ties.offsets[:-1]
    rows_of = ties.segment_ids()
    n_seg, k = ties.n_segments, design.shape[1]
    coef = np.array(np.broadcast_to(start, (n_seg, k)), dtype=np.float64)
    total = pos + neg
    active = np.ones(n_seg, dtype=bool)
    weight = _segment_sums(total, starts)
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    products = [design[:, i] * design[:, j] for i, j in pairs]  # the information's entries, each once

    def information_at(mu: np.ndarray) -> np.ndarray:
        w = total * mu * (1.0 - mu)
        out = np.empty((n_seg, k, k))
        for (i, j), product in zip(pairs, products):
            out[:, i, j] = out[:, j, i] = _segment_sums(product * w, starts)
        return out

    def eta_of(c: np.ndarray) -> np.ndarray:
        if n_seg == 1:
            return offset + design @ c[0]
        return offset + np.einsum("rk,rk->r", design, c[rows_of])

    eta = eta_of(coef)
    current = None  # the log-likelihood, computed only while a step may overshoot
    for _ in range(max_iter):
        mu = expit(eta)
        information = information_at(mu)
        gradient = _segment_sums(design * (pos - total * mu)[:, None], starts)
        step = np.einsum("skj,sj->sk", np.linalg.pinv(information), gradient)
        newton = np.einsum("sk,sk->s", step, gradient)  # the squared Newton decrement
        # per unit of weight: scale-free, and ~ |step|^2 times the variance of the design
        done = ~(newton / weight > _TOLERANCE ** 2)  # NaN (a broken fit) stops too, and is not converged below
        active &= ~done
        if not active.any():
            break
        step[~active] = 0.0
        trial = coef + step
        trial_eta = eta_of(trial)
        if np.nanmax(np.where(active, newton / weight, 0.0)) > _FULL_STEP:
            # step halving where the quadratic model may be far off: a step that lowers a segment's
            # likelihood is halved (at most 30 times)
            if current is None:
                current = log_likelihood(eta, pos, neg, starts)
            value = log_likelihood(trial_eta, pos, neg, starts)
            for _ in range(30):
                worse = active & ~(value >= current - 1e-12 * np.abs(current))
                if not worse.any():
                    break
                step[worse] *= 0.5
                trial = coef + step
                trial_eta = eta_of(trial)
                value = log_likelihood(trial_eta, pos, neg, starts)
            current = value
        else:  # a full Newton step near the maximum (the decrement small): no likelihood needed
            current = None
        coef, eta = trial, trial_eta
    information = information_at(expit(eta))
    converged = (~active & np.all(np.isfinite(coef), axis=1) & np.all(np.isfinite(information), axis=(1, 2))
                 & (np.max(np.abs(coef), axis=1, initial=0.0) < _DIVERGED))
    return LogisticFit(coef, information, converged)


def separated(ties: TieTable) -> np.ndarray:
    """Per segment: whether the events and non-events are (quasi-)separated by the score.

    Then the calibration slope has no finite maximum-likelihood estimate
    (Albert & Anderson 1984): every event scores at least every non-event,
    or at most. The table is sorted by descending score within a segment.
    """
    ids = ties.segment_ids()
    score = ties.score.astype(np.float64)
    n = ties.n_segments

    def extreme(mask: np.ndarray, reducer, fill: float) -> np.ndarray:
        out = np.full(n, fill)
        reducer.at(out, ids[mask], score[mask])
        return out

    has_pos, has_neg = ties.pos > 0, ties.neg > 0
    min_pos, max_pos = extreme(has_pos, np.minimum, np.inf), extreme(has_pos, np.maximum, -np.inf)
    min_neg, max_neg = extreme(has_neg, np.minimum, np.inf), extreme(has_neg, np.maximum, -np.inf)
    return (max_neg <= min_pos) | (max_pos <= min_neg)
