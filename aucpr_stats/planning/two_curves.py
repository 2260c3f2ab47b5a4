r"""Sample size and power for comparing two AUROCs, as pROC's ``power.roc.test(roc1, roc2)`` computes them.

For the test of :math:`H_0: \theta_1 = \theta_2` with :math:`n` positives,
:math:`\kappa n` negatives and :math:`\Delta = \theta_1 - \theta_2`
(Obuchowski & McClish 1997, Eq. 3),

.. math::

    n = \frac{\left(z_{\alpha}\sqrt{V_0} + z_{\beta}\sqrt{V_A}\right)^2}{\Delta^2},
    \qquad z_\beta = \frac{\sqrt{n \Delta^2} - z_\alpha \sqrt{V_0}}{\sqrt{V_A}},

where :math:`V_A = V_1 + V_2 - 2C_{12}` is :math:`n` times the variance of
the difference and :math:`V_0` the same under the null. pROC takes
:math:`V_0 = 2V_1 - 2C_{12}` (both curves with the first's variance); but
DeLong's test, as a study then runs it, divides the difference by its
estimated standard error, :math:`\sqrt{V_A/n}` whatever the null, so its
power is :math:`\Phi(\sqrt{n}|\Delta|/\sqrt{V_A} - z_\alpha)`. When the
first curve is the better one (smaller variance) pROC's :math:`V_0` overstates
the power (a simulated plan for 0.80 reached 0.59, docs/planning.md). The
default here is :math:`V_0 = V_A` (``null="difference"``), which simulations
of the planned study confirm; ``null="first"`` gives pROC's numbers. The
variances come either from

* a **pilot** comparison (pROC's ``power.roc.test(roc1, roc2)``, its default
  ``method="delong"``): DeLong's variances and covariance of the pilot's two
  AUCs times its number of positives (:func:`pilot_variances`); or
* the **binormal model** (Obuchowski & McClish 1997, Eqs. 4-6; pROC's
  ``power.roc.test(list(A1=, B1=, A2=, B2=, rn=, ra=, delta=))``), with
  binormal separations :math:`A_r = \Phi^{-1}(\theta_r)\sqrt{1 + B_r^2}`,
  slopes :math:`B_r`, and the correlations of the two tests' scores in the
  negatives (:math:`r_n`) and the positives (:math:`r_a`); independent
  samples of the same size are :math:`r_n = r_a = 0`
  (:func:`binormal_variances`).
"""

from __future__ import annotations

import math

from ..distributions import normal_cdf, normal_quantile

__all__ = ["NULL_VARIANCES", "binormal_variances", "pilot_variances", "n_positives", "power_at", "smallest_difference"]


def _f_g(a: float, b: float) -> tuple[float, float]:
    """The derivatives of the binormal AUC :math:`\\Phi(A/\\sqrt{1+B^2})` in A (f) and B (g), Eq. 5."""
    e = math.exp(-a * a / (2.0 * (1.0 + b * b)))
    return e / math.sqrt(2.0 * math.pi * (1.0 + b * b)), -e * a * b / math.sqrt(2.0 * math.pi * (1.0 + b * b) ** 3)


def binormal_separation(auc: float, b: float) -> float:
    """The binormal :math:`A` of an AUC with slope :math:`B`: :math:`\\Phi^{-1}(\\theta)\\sqrt{1 + B^2}`."""
    return float(normal_quantile(auc)) * math.sqrt(1.0 + b * b)


def binormal_variances(auc1: float, auc2: float, *, b1: float, b2: float, r_neg: float, r_pos: float,
                       kappa: float) -> tuple[float, float, float]:
    r"""``(V1, V2, C12)``: n_pos times the variances and covariance of two binormal AUCs (Obuchowski & McClish 1997).

    .. math::

        V_r = f_r^2\left(1 + \frac{B_r^2}{\kappa} + \frac{A_r^2}{2}\right) + g_r^2 \frac{B_r^2 (1 + \kappa)}{2\kappa},

        C_{12} = f_1 f_2\left(r_a + \frac{r_n B_1 B_2}{\kappa} + \frac{r_a^2 A_1 A_2}{2}\right)
                 + g_1 g_2 \frac{B_1 B_2 (r_n^2 + \kappa r_a^2)}{2\kappa}
                 + f_1 g_2 \frac{r_a^2 A_1 B_2}{2} + f_2 g_1 \frac{r_a^2 A_2 B_1}{2}.
    """
    a1, a2 = binormal_separation(auc1, b1), binormal_separation(auc2, b2)
    (f1, g1), (f2, g2) = _f_g(a1, b1), _f_g(a2, b2)

    def variance(f: float, g: float, a: float, b: float) -> float:
        return f * f * (1.0 + b * b / kappa + a * a / 2.0) + g * g * b * b * (1.0 + kappa) / (2.0 * kappa)

    covariance = (f1 * f2 * (r_pos + r_neg * b1 * b2 / kappa + r_pos**2 * a1 * a2 / 2.0)
                  + g1 * g2 * b1 * b2 * (r_neg**2 + kappa * r_pos**2) / (2.0 * kappa)
                  + f1 * g2 * r_pos**2 * a1 * b2 / 2.0 + f2 * g1 * r_pos**2 * a2 * b1 / 2.0)
    return variance(f1, g1, a1, b1), variance(f2, g2, a2, b2), covariance


def pilot_variances(var1: float, var2: float, cov12: float, n_pos: float) -> tuple[float, float, float]:
    """``(V1, V2, C12)`` from a pilot's DeLong variances: each times the pilot's positives."""
    return var1 * n_pos, var2 * n_pos, cov12 * n_pos


#: Where the null variance of the difference comes from: ``"difference"`` (the variance of the difference, as
#: DeLong's test estimates it from the study's data) or ``"first"`` (pROC: both curves with the first's
#: variance, :math:`2V_1 - 2C_{12}`).
NULL_VARIANCES = ("difference", "first")


def _null_and_alternative(v1: float, v2: float, c12: float, null: str) -> tuple[float, float]:
    va = v1 + v2 - 2.0 * c12
    return (2.0 * v1 - 2.0 * c12 if null == "first" else va), va


def n_positives(delta: float, variances: tuple[float, float, float], *, z_alpha: float, power: float,
                null: str = "difference") -> float:
    """Positives needed for ``power`` (not rounded; pROC's ``ncases`` with ``null="first"``)."""
    v0, va = _null_and_alternative(*variances, null)
    return (z_alpha * math.sqrt(v0) + float(normal_quantile(power)) * math.sqrt(va)) ** 2 / delta**2


def power_at(delta: float, variances: tuple[float, float, float], *, z_alpha: float, n_pos: float,
             null: str = "difference") -> float:
    """Power with ``n_pos`` positives (pROC's ``power`` with ``null="first"``)."""
    v0, va = _null_and_alternative(*variances, null)
    return float(normal_cdf((math.sqrt(n_pos * delta**2) - z_alpha * math.sqrt(v0)) / math.sqrt(va)))


def smallest_difference(power_of: "callable", low: float, high: float, target: float) -> float:
    """The smallest argument in ``[low, high]`` where the increasing ``power_of`` reaches ``target`` (bisection).

    NaN when even ``high`` falls short. Sixty halvings leave an interval below 1e-16 of the range.
    """
    if power_of(high) < target:
        return math.nan
    for _ in range(60):
        middle = 0.5 * (low + high)
        if power_of(middle) >= target:
            high = middle
        else:
            low = middle
    return high
