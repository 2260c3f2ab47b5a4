"""Planning a comparison of two AUROCs: the size, the power, and the smallest difference a size detects.

The entry points are :func:`aucpr_stats.sample_size` and
:func:`aucpr_stats.power` with ``auc=(auc1, auc2)`` (the binormal model) or
``pilot=`` (a pilot comparison), and :func:`detectable_auc`; the formulas are
in :mod:`.two_curves`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from .. import _validate
from ..compare import delong_paired
from ..exceptions import InputError
from . import obuchowski, two_curves
from .result import PlanResult

__all__ = ["plan_comparison", "detectable_auc", "is_two_curve_request"]


def is_two_curve_request(auc: Any, pilot: Any) -> bool:
    """True when ``auc`` is a pair of AUCs or a ``pilot`` comparison is given."""
    return pilot is not None or (isinstance(auc, (tuple, list)) and not isinstance(auc, str))


def _pair_iv(value: Any, argument: str, default: float, low: float, high: float, what: str) -> tuple[float, float]:
    """One number for both curves, or one per curve."""
    values = (default, default) if value is None else (
        tuple(value) if isinstance(value, (tuple, list)) else (value, value))
    if len(values) != 2:
        raise InputError(f"`{argument}` must be one number or two (one per curve); got {value!r}")
    return tuple(_validate.number_iv(v, argument, low=low, high=high, what=what) for v in values)


def _pilot_iv(pilot: Any) -> tuple[float, float, tuple[float, float, float], float, float]:
    """``(auc1, auc2, (V1, V2, C12), n_pos, n_neg)`` of a one-row paired DeLong comparison of AUROCs."""
    needed = ("paired", "metric", "method", "jackknife_source", "frame")
    if not all(hasattr(pilot, name) for name in needed):
        raise InputError(f"`pilot` must be the result of compare(..., metric='auroc') on the pilot data; "
                         f"got {type(pilot).__name__}")
    if pilot.metric != "auroc" or pilot.method != "delong" or not pilot.paired:
        raise InputError(f"`pilot` must be a paired DeLong comparison of AUROCs (compare(df, y, [s1, s2], "
                         f"metric='auroc')); got metric={pilot.metric!r}, method={pilot.method!r}, "
                         f"paired={pilot.paired}")
    source = pilot.jackknife_source
    if pilot.frame.height != 1 or source is None or len(source.pairs) != 1:
        raise InputError(f"`pilot` must hold one comparison of two scores on independent rows (no `by`, "
                         f"`cluster`, `weights` or imputations); it has {pilot.frame.height} rows")
    a, b = source.pairs[0]
    paired = source.paired
    auc1, auc2, var1, var2, cov = (float(v[0]) for v in delong_paired(
        paired.tables[a], paired.rows[a], paired.tables[b], paired.rows[b], paired.group, paired.positive))
    n_pos, n_neg = float(paired.tables[0].n_pos[0]), float(paired.tables[0].n_neg[0])
    if not np.isfinite([var1, var2, cov]).all():
        raise InputError("`pilot` has fewer than two positives or negatives: no DeLong variance to plan with")
    return auc1, auc2, two_curves.pilot_variances(var1, var2, cov, n_pos), n_pos, n_neg


def plan_comparison(kind: str, *, auc: Any, pilot: Any, correlation: Any, slope: Any, ratio: Any, alpha: float,
                    alternative: str, power: float | None, n_pos: Any, n_neg: Any,
                    null_variance: Any = "difference") -> PlanResult:
    """The plan of a comparison of two AUROCs (``kind``: ``"sample_size"`` or ``"power"``)."""
    z_alpha = obuchowski.z_alpha(alpha, alternative)
    null = _validate.choice_iv(null_variance, "null_variance", two_curves.NULL_VARIANCES)
    if pilot is not None:
        if auc is not None or correlation is not None or slope is not None:
            raise InputError("`pilot` gives the AUCs, variances and correlation: drop `auc`, `correlation`, `slope`")
        auc1, auc2, variances, pilot_pos, pilot_neg = _pilot_iv(pilot)
        method, kappa = "delong_pilot", pilot_neg / pilot_pos  # pROC: the pilot's variances, at its own ratio
    else:
        auc1, auc2 = _pair_iv(auc, "auc", 0.5, 0.0, 1.0, "an AUROC in (0, 1)")
        if correlation is None:
            raise InputError("`correlation` is required with auc=(auc1, auc2): the correlation of the two tests' "
                             "scores, one number or (in negatives, in positives); 0 for independent samples")
        r_neg, r_pos = _pair_iv(correlation, "correlation", 0.0, -1.0, 1.0, "a correlation in [-1, 1]")
        b1, b2 = _pair_iv(slope, "slope", 1.0, 0.0, math.inf, "a positive binormal slope")
        if kind == "power" and n_pos is not None and n_neg is not None:  # pROC: kappa = ncontrols / ncases
            kappa = (_validate.number_iv(n_neg, "n_neg", low=0.0, what="a positive number")
                     / _validate.number_iv(n_pos, "n_pos", low=0.0, what="a positive number"))
        else:
            kappa = _validate.number_iv(1.0 if ratio is None else ratio, "ratio", low=0.0,
                                        what="a positive number (negatives per positive)")
        variances = two_curves.binormal_variances(auc1, auc2, b1=b1, b2=b2, r_neg=r_neg, r_pos=r_pos, kappa=kappa)
        method = "obuchowski_mcclish"
    delta = auc1 - auc2
    if delta == 0:
        raise InputError(f"the two AUCs are equal ({auc1}): no size gives power against no difference")
    row: dict[str, Any] = {"metric": "auroc", "auc1": auc1, "auc2": auc2, "difference": delta, "alpha": alpha,
                           "alternative": alternative}
    if kind == "sample_size":
        if ratio is not None and pilot is not None:
            kappa = _validate.number_iv(ratio, "ratio", low=0.0, what="a positive number (negatives per positive)")
        exact = two_curves.n_positives(delta, variances, z_alpha=z_alpha, power=power, null=null)
        whole = math.ceil(exact - 1e-9)
        row.update(target_power=power, ratio=kappa, n_pos_exact=exact, n_neg_exact=kappa * exact, n_pos=whole,
                   n_neg=math.ceil(kappa * whole - 1e-9))
        row["power"] = two_curves.power_at(delta, variances, z_alpha=z_alpha, n_pos=whole, null=null)
    else:
        if n_pos is None and pilot is not None:
            n_pos, n_neg = pilot_pos, pilot_neg  # pROC: the power of the pilot's own size
        if n_pos is None:
            raise InputError("`n_pos` is required: the positives of the planned study")
        n_pos = _validate.number_iv(n_pos, "n_pos", low=0.0, what="a positive number")
        n_neg = kappa * n_pos if n_neg is None else _validate.number_iv(n_neg, "n_neg", low=0.0,
                                                                         what="a positive number")
        row.update(n_pos=n_pos, n_neg=n_neg)
        row["power"] = two_curves.power_at(delta, variances, z_alpha=z_alpha, n_pos=n_pos, null=null)
    row.update(n_total=row["n_pos"] + row["n_neg"], v1=variances[0], v2=variances[1], c12=variances[2],
               null_variance=null, method=method)
    return PlanResult(kind=kind, metric="auroc", plan=pl.DataFrame([row]))


def detectable_auc(n_pos: float, n_neg: float, *, power: float = 0.8, alpha: float = 0.05, versus: float = 0.5,
                   correlation: Any = None, slope: Any = None, alternative: str = "two_sided",
                   null_variance: str = "difference") -> PlanResult:
    r"""The smallest AUROC a study of this size detects with the stated power (the minimal detectable AUC).

    Without ``correlation``: one ROC curve, the test of :math:`\theta = ` ``versus``
    (0.5 by default) by Obuchowski's variance, as :func:`aucpr_stats.power`.
    With ``correlation`` (one number or ``(in negatives, in positives)``; 0 for
    independent samples of this size each): the comparison of a new test with
    a comparator whose AUROC is ``versus``, by Obuchowski & McClish's binormal
    variances (:mod:`aucpr_stats.planning.two_curves`); the comparator is the
    first curve (its variance is the null variance, as pROC takes it).
    The answer is the smallest AUC above ``versus`` whose power reaches
    ``power`` (bisection on the power curve, to 1e-15), or NaN when even an
    AUC near 1 does not.

    Parameters
    ----------
    n_pos, n_neg : number
        The study's positives and negatives.
    power, alpha, alternative
        The target power and the test's level (two-sided by default).
    versus : float
        The null AUC (one curve) or the comparator's AUC (two curves).
    correlation : float or (float, float), optional
    slope : float or (float, float), optional
        Binormal slopes of the two tests (1: equal variances).
    null_variance : {"difference", "first"}
        Two curves: the null variance of the difference (see
        :mod:`aucpr_stats.planning.two_curves`; ``"first"`` is pROC's).

    Returns
    -------
    PlanResult
        ``.detectable_auc``, ``.difference``, ``.power`` (reached there) ...

    Examples
    --------
    >>> from aucpr_stats import detectable_auc
    >>> round(detectable_auc(50, 50, power=0.8).detectable_auc, 4)
    0.6566
    """
    alpha = _validate.probability_iv(alpha, "alpha")
    target = _validate.probability_iv(power, "power")
    alternative = _validate.choice_iv(alternative, "alternative", ("two_sided", "one_sided"))
    n_pos = _validate.number_iv(n_pos, "n_pos", low=0.0, what="a positive number")
    n_neg = _validate.number_iv(n_neg, "n_neg", low=0.0, what="a positive number")
    versus = _validate.probability_iv(versus, "versus")
    kappa = n_neg / n_pos
    high = 1.0 - 1e-9
    if correlation is None:
        if slope is not None:
            raise InputError("`slope` applies to a comparison of two curves: give `correlation` too")
        method = "obuchowski"

        def power_of(auc: float) -> float:
            return obuchowski.power_at(auc, n_pos, n_neg, alpha, versus, alternative)
    else:
        r_neg, r_pos = _pair_iv(correlation, "correlation", 0.0, -1.0, 1.0, "a correlation in [-1, 1]")
        b1, b2 = _pair_iv(slope, "slope", 1.0, 0.0, math.inf, "a positive binormal slope")
        z_alpha = obuchowski.z_alpha(alpha, alternative)
        null = _validate.choice_iv(null_variance, "null_variance", two_curves.NULL_VARIANCES)
        method = "obuchowski_mcclish"

        def power_of(auc: float) -> float:
            variances = two_curves.binormal_variances(versus, auc, b1=b1, b2=b2, r_neg=r_neg, r_pos=r_pos,
                                                      kappa=kappa)
            return two_curves.power_at(versus - auc, variances, z_alpha=z_alpha, n_pos=n_pos, null=null)
    # just above `versus` the power is about alpha/2 (< target); bisection finds where it crosses the target
    found = two_curves.smallest_difference(power_of, versus + 1e-12, high, target)
    row = {"metric": "auroc", "versus": versus, "alpha": alpha, "alternative": alternative, "target_power": target,
           "n_pos": n_pos, "n_neg": n_neg, "n_total": n_pos + n_neg, "detectable_auc": found,
           "difference": found - versus, "power": power_of(found) if np.isfinite(found) else math.nan,
           "method": method,
           "note": None if np.isfinite(found) else "no AUC below 1 reaches the power at this size"}
    return PlanResult(kind="detectable", metric="auroc", plan=pl.DataFrame([row]))
