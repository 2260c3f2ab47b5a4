"""Closed-form intervals: normal quantiles, Wald, binomial and logit (Boyd, Eng & Page 2013, section 3.2).

The kernels take arrays (one entry per group, or per simulated data set) and
return ``(lower, upper, se)`` arrays of the broadcast shape; ``se`` is always
the standard error of the estimate on its own scale.

* :func:`binomial_interval`: the estimate as a proportion over the ``n``
  positives (``n``, not ``n + m``, because it is the maximum number of
  distinct recall values of the empirical PR curve), ``estimate ± z·SE``;
* :func:`logit_interval`: any standard error carried to the logit scale by
  the delta method and mapped back, so the interval stays in [0, 1]. AUCPR
  gives it the binomial SE (Boyd et al.), AUROC the DeLong SE.

Boyd et al. found the binomial and logit intervals kept at least nominal
coverage in every case study (Fig. 6).
"""

from __future__ import annotations

import numpy as np

from ..distributions import expit, logit, normal_quantile as ndtri
from ..distributions import t_quantile as student_quantile

__all__ = ["normal_quantile", "t_quantile", "wald_interval", "binomial_se", "binomial_interval", "logit_interval"]


def normal_quantile(level: float) -> float:
    """Two-sided standard normal quantile ``Phi^{-1}((1 + level) / 2)``; 1.959964 for 0.95."""
    return float(ndtri(0.5 + level / 2.0))


def t_quantile(level: float, df) -> np.ndarray:
    """Two-sided Student t quantile with ``df`` degrees of freedom (NaN where ``df < 1``)."""
    df = np.asarray(df, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(df >= 1, student_quantile(0.5 + level / 2.0, np.maximum(df, 1.0)), np.nan)


def wald_interval(estimate, se, level: float = 0.95):
    """``estimate ± z·se`` (not clipped to [0, 1]); returns (lower, upper, se)."""
    estimate, se = np.broadcast_arrays(np.asarray(estimate, dtype=np.float64), np.asarray(se, dtype=np.float64))
    half = normal_quantile(level) * se
    return estimate - half, estimate + half, se


def binomial_se(estimate, n_pos) -> np.ndarray:
    r"""Binomial standard error :math:`\sqrt{\hat\theta(1-\hat\theta)/n}`; NaN where ``n_pos < 1``."""
    theta, n = np.broadcast_arrays(np.asarray(estimate, dtype=np.float64), np.asarray(n_pos, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n >= 1, np.sqrt(theta * (1.0 - theta) / n), np.nan)


def binomial_interval(estimate, n_pos, level: float = 0.95):
    r"""Binomial (Wald) interval for AUCPR, Boyd et al. (2013) section 3.2.

    .. math:: \hat\theta \pm \Phi^{-1}_{1-\alpha/2}\sqrt{\hat\theta(1-\hat\theta)/n}

    with ``n`` the number of positives. The bounds are **not** clipped to
    [0, 1]: near 0 or 1 they can fall outside (a known weakness the paper
    names; use :func:`logit_interval` for bounds inside [0, 1]). At an
    estimate of exactly 0 or 1 the interval has zero width.

    Parameters
    ----------
    estimate : array_like
        AUCPR estimates; NaN propagates.
    n_pos : array_like of int
        Number of positives behind each estimate (broadcast against ``estimate``).
    level : float
        Confidence level, e.g. 0.95.

    Returns
    -------
    lower, upper, se : ndarray
        Bounds and the standard error on the AUCPR scale.

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 3.2.

    Examples
    --------
    >>> lower, upper, se = binomial_interval([0.5], [100], 0.95)
    >>> round(float(lower[0]), 4), round(float(upper[0]), 4), float(se[0])
    (0.402, 0.598, 0.05)
    """
    return wald_interval(estimate, binomial_se(estimate, n_pos), level)


def _logit_derivative(theta: np.ndarray) -> np.ndarray:
    # d/dθ log(θ / (1 - θ)) = 1 / (θ (1 - θ)); one entry per element (an
    # elementwise map, so its Jacobian is diagonal and kept as a vector)
    with np.errstate(all="ignore"):  # infinite near 0 and 1, handled by the caller
        return 1.0 / (theta * (1.0 - theta))


def logit_interval(estimate, se, level: float = 0.95):
    r"""Interval on the logit scale, mapped back into [0, 1]; returns (lower, upper, se).

    On the logit scale :math:`\hat\eta = \log\{\hat\theta/(1-\hat\theta)\}`
    has delta-method standard error
    :math:`\hat\tau = \widehat{SE}(\hat\theta)/(\hat\theta(1-\hat\theta))`;
    the interval :math:`\hat\eta \pm \Phi^{-1}_{1-\alpha/2}\hat\tau` is mapped
    back with the logistic function, so it is asymmetric and inside [0, 1].
    Boyd et al. (2013, section 3.2) use it for AUCPR with the binomial SE
    :math:`\sqrt{\hat\theta(1-\hat\theta)/n}`, so that
    :math:`\hat\tau = (n\hat\theta(1-\hat\theta))^{-1/2}`; for AUROC the SE is
    DeLong's.

    The delta method is statsmodels' :class:`NonlinearDeltaCov` with the
    analytic derivative :math:`1/(\theta(1-\theta))` of the logit; because the
    transform is elementwise its Jacobian is diagonal, so the standard error
    is the derivative times the given standard error, element by element (no
    n x n matrices), and statsmodels' ``conf_int`` builds the normal interval
    on the logit scale.

    **Estimates of exactly 0 or 1.** The logit is infinite there. As
    :math:`\hat\theta \to 1` (or 0) with the standard error of order
    :math:`\sqrt{\hat\theta(1-\hat\theta)}` (binomial, and DeLong's near
    perfect separation), :math:`\hat\tau` grows like
    :math:`1/\sqrt{\hat\theta(1-\hat\theta)}`, faster than the logarithm, so
    the interval tends to [0, 1]. That limit is returned, whenever the
    standard error is known: valid but uninformative. A NaN standard error
    gives NaN bounds.

    Parameters
    ----------
    estimate : array_like
        Estimates in [0, 1]; NaN propagates.
    se : array_like
        Their standard errors on the estimate's scale (broadcast together).
    level : float
        Confidence level, e.g. 0.95.

    Returns
    -------
    lower, upper, se : ndarray
        Bounds in [0, 1] and the given standard error; the standard error on
        the logit scale is ``se / (estimate * (1 - estimate))``.

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 3.2.

    Examples
    --------
    >>> theta = np.array([0.5, 1.0])
    >>> lower, upper, se = logit_interval(theta, binomial_se(theta, 100), 0.95)
    >>> [round(float(x), 4) for x in lower], [round(float(x), 4) for x in upper]
    ([0.4032, 0.0], [0.5968, 1.0])
    """
    from statsmodels.stats._delta_method import NonlinearDeltaCov  # a lazy load: 0.4 s of import time (pandas)

    theta, se = np.broadcast_arrays(np.asarray(estimate, dtype=np.float64), np.asarray(se, dtype=np.float64))
    boundary = ((theta == 0.0) | (theta == 1.0)) & ~np.isnan(se)
    inner = np.where((theta == 0.0) | (theta == 1.0), 0.5, theta)  # placeholder where the logit is infinite
    with np.errstate(all="ignore"):
        delta = NonlinearDeltaCov(logit, inner.ravel(), None, deriv=_logit_derivative)
        tau = np.abs(delta.grad()) * se.ravel()
        # inf * 0 where theta(1 - theta) underflows: the standard error is infinite
        tau = np.where(np.isnan(tau) & ~np.isnan(se.ravel()), np.inf, tau)
        eta_ci = delta.conf_int(alpha=1.0 - level, predicted=logit(inner.ravel()), se=tau)
    lower = np.where(boundary, 0.0, expit(eta_ci[:, 0]).reshape(theta.shape))
    upper = np.where(boundary, 1.0, expit(eta_ci[:, 1]).reshape(theta.shape))
    return lower, upper, se
