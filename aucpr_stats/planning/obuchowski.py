"""Sample size and power for one ROC curve: Obuchowski's variance, as pROC's ``power.roc.test`` computes it.

For a test of ``H0: AUC = auc0`` against ``H1: AUC = auc`` with ``n``
positives and ``ratio * n`` negatives (Obuchowski, Lieber & Wians 2004,
Eq. 2; Obuchowski & McClish 1997):

.. math::

    n = \\frac{\\left(z_{\\alpha} \\sqrt{V_0} + z_{\\beta} \\sqrt{V_A}\\right)^2}{(auc - auc_0)^2},
    \\qquad z_\\beta = \\frac{\\sqrt{n}\\,|auc - auc_0| - z_\\alpha \\sqrt{V_0}}{\\sqrt{V_A}},

where ``z_alpha`` is the upper ``alpha/2`` (two-sided) or ``alpha``
(one-sided) normal quantile and ``V(theta)`` is the variance of the AUC times
the number of positives under the binormal model with equal variances
(Obuchowski 1994):

.. math::

    A = 1.414\\,\\Phi^{-1}(\\theta), \\qquad
    V(\\theta) = 0.0099\\, e^{-A^2/2} \\left(5A^2 + 8 + \\frac{A^2 + 8}{\\kappa}\\right),

``kappa`` the ratio of negatives to positives. pROC uses 1.414 for
:math:`\\sqrt 2` and ``V_0 = 0.0792 (1 + 1/kappa)``, which is ``V(0.5)``;
both are kept so that the numbers equal pROC's. With ``auc0 = 0.5`` (pROC's
only null) the formulas are pROC's; another ``auc0`` uses ``V_0 = V(auc0)``.
"""

from __future__ import annotations

import math

from ..distributions import normal_cdf as ndtr, normal_quantile as ndtri


__all__ = ["n_positives", "obuchowski_variance", "power_at", "z_alpha"]


def obuchowski_variance(theta: float, kappa: float) -> float:
    """``n_pos * Var(AUC)`` under the binormal model (Obuchowski 1994), with pROC's constant 1.414."""
    a = float(ndtri(theta)) * 1.414
    return 0.0099 * math.exp(-a * a / 2.0) * ((5.0 * a * a + 8.0) + (a * a + 8.0) / kappa)


def z_alpha(alpha: float, alternative: str) -> float:
    """The critical normal quantile: upper ``alpha/2`` (two-sided) or ``alpha`` (one-sided)."""
    return float(ndtri(1.0 - (alpha / 2.0 if alternative == "two_sided" else alpha)))


def _variances(auc: float, auc0: float, kappa: float) -> tuple[float, float]:
    v0 = 0.0792 * (1.0 + 1.0 / kappa) if auc0 == 0.5 else obuchowski_variance(auc0, kappa)
    return v0, obuchowski_variance(auc, kappa)


def n_positives(auc: float, power: float, alpha: float, kappa: float, auc0: float = 0.5,
                alternative: str = "two_sided") -> float:
    """Positives needed (not rounded: pROC's ``ncases``)."""
    v0, va = _variances(auc, auc0, kappa)
    zb = float(ndtri(power))
    return (z_alpha(alpha, alternative) * math.sqrt(v0) + zb * math.sqrt(va)) ** 2 / (auc - auc0) ** 2


def power_at(auc: float, n_pos: float, n_neg: float, alpha: float, auc0: float = 0.5,
             alternative: str = "two_sided") -> float:
    """Power with ``n_pos`` positives and ``n_neg`` negatives (pROC's ``power``)."""
    kappa = n_neg / n_pos
    v0, va = _variances(auc, auc0, kappa)
    zb = (math.sqrt(n_pos * (auc - auc0) ** 2) - z_alpha(alpha, alternative) * math.sqrt(v0)) / math.sqrt(va)
    return float(ndtr(zb))
