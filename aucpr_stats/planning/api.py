"""``sample_size()`` and ``power()``: the public entry points of study planning."""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from .. import _validate
from ..estimators import DEFAULT_PR_ESTIMATOR, PR_ESTIMATORS
from ..exceptions import InputError
from ..simulate import INTERVAL_METHODS, get_scenario
from . import obuchowski
from .result import PlanResult
from .simulated import search_size

__all__ = ["ALTERNATIVES", "power", "sample_size"]

ALTERNATIVES = ("two_sided", "one_sided")


def _common_iv(metric: Any, alpha: Any, alternative: Any) -> tuple[str, float, str]:
    metric = _validate.choice_iv(metric, "metric", ("auroc", "aucpr"))
    alpha = _validate.probability_iv(alpha, "alpha")
    alternative = _validate.choice_iv(alternative, "alternative", ALTERNATIVES)
    return metric, alpha, alternative


def _auc_iv(auc: Any, auc0: float) -> tuple[float, float]:
    if auc is None:
        raise InputError("`auc` is required: the AUROC expected under the alternative")
    auc = _validate.probability_iv(auc, "auc")
    auc0 = _validate.probability_iv(auc0, "auc0")
    if auc == auc0:
        raise InputError(f"`auc` must differ from `auc0` ({auc0}); got {auc}")
    return auc, auc0


def sample_size(metric: str = "auroc", *, auc: float | None = None, power: float = 0.9, alpha: float = 0.05,
                ratio: float = 1.0, auc0: float = 0.5, alternative: str = "two_sided",
                aucpr: float | None = None, prevalence: float | None = None, scenario: Any = "binormal",
                half_width: float | None = None, estimator: str = DEFAULT_PR_ESTIMATOR, method: str = "logit",
                level: float = 0.95, n_sim: int = 400, seed: Any = None,
                method_options: dict | None = None) -> PlanResult:
    """Positives and negatives a study needs.

    **AUROC** (``metric="auroc"``): the size at which the test of
    ``AUC = auc0`` (0.5) has power ``power`` at level ``alpha`` when the true
    AUC is ``auc``, with ``ratio`` negatives per positive, by Obuchowski's
    variance: pROC's ``power.roc.test(auc=, power=, sig.level=, kappa=)``
    exactly (``n_pos_exact``, ``n_neg_exact`` are its ``ncases`` and
    ``ncontrols``), and the whole numbers to recruit: ``n_pos`` rounded up,
    ``n_neg = ceil(ratio * n_pos)``, with the power they give.

    **AUCPR** (``metric="aucpr"``): simulated studies from ``scenario``
    (:data:`aucpr_stats.simulate.SCENARIOS`, whose true AUCPR at
    ``prevalence`` is known) analysed with ``estimator`` and the interval
    ``method``; the size at which the mean interval half-width is
    ``half_width``, or, given ``aucpr`` (the null value), at which the
    interval excludes it with probability ``power``. The answer carries
    its Monte Carlo error, and ``.search`` every simulated size
    (:mod:`aucpr_stats.planning.simulated`).

    Parameters
    ----------
    metric : {"auroc", "aucpr"}
    auc : float
        AUROC: the AUC under the alternative.
    power : float
        Target power (AUROC, and AUCPR with ``aucpr=``).
    alpha : float
        AUROC: significance level (two-sided unless ``alternative="one_sided"``,
        as pROC). AUCPR: ``1 - level`` is used instead.
    ratio : float
        AUROC: negatives per positive (pROC's ``kappa``).
    auc0 : float
        AUROC: the null value (pROC: 0.5 only).
    alternative : {"two_sided", "one_sided"}
    aucpr : float, optional
        AUCPR: the null value the study should exclude (a power target).
    prevalence : float
        AUCPR: the prevalence of the planned study.
    scenario : str or Scenario
        AUCPR: the score distributions (``"binormal"``, ``"bibeta"``,
        ``"offset_uniform"`` or a :class:`~aucpr_stats.simulate.Scenario`).
    half_width : float, optional
        AUCPR: the target mean half-width of the interval.
    estimator, method, level, method_options
        AUCPR: the estimator, interval method (``"logit"``, ``"binomial"``,
        ``"bootstrap"``, ``"cross_validation"``), level and method options
        (e.g. ``{"n_boot": 200}``) of the planned analysis.
    n_sim : int
        AUCPR: simulated studies per size.
    seed : int, optional
        AUCPR: the seed of the simulations.

    Returns
    -------
    PlanResult
        ``.n_pos``, ``.n_neg``, ``.n_total``, ``.power`` ..., ``.to_frame()``, ``.summary()``.

    References
    ----------
    Obuchowski, N. A., Lieber, M. L., Wians, F. H. (2004). ROC curves in
    clinical chemistry: uses, misuses, and possible solutions. Clinical
    Chemistry 50, 1118-1125.
    Obuchowski, N. A., McClish, D. K. (1997). Sample size determination for
    diagnostic accuracy studies involving binormal ROC curve indices.
    Statistics in Medicine 16, 1529-1542.
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 4.

    Examples
    --------
    >>> from aucpr_stats import sample_size
    >>> plan = sample_size("auroc", auc=0.8, power=0.9, alpha=0.05, ratio=2)
    >>> round(plan.n_pos_exact, 5), int(plan.n_pos), int(plan.n_neg)
    (12.80825, 13, 26)
    """
    metric, alpha, alternative = _common_iv(metric, alpha, alternative)
    target_power = _validate.probability_iv(power, "power")
    if metric == "aucpr":
        return _aucpr_sample_size(aucpr=aucpr, prevalence=prevalence, scenario=scenario, half_width=half_width,
                                  power=target_power if aucpr is not None else None, estimator=estimator,
                                  method=method, level=level, n_sim=n_sim, seed=seed,
                                  method_options=method_options)
    auc, auc0 = _auc_iv(auc, auc0)
    ratio = _validate.number_iv(ratio, "ratio", low=0.0, what="a positive number (negatives per positive)")
    exact = obuchowski.n_positives(auc, target_power, alpha, ratio, auc0, alternative)
    n_pos = math.ceil(exact - 1e-9)  # a whole number of positives (not above by rounding residue)
    n_neg = math.ceil(ratio * n_pos - 1e-9)
    achieved = obuchowski.power_at(auc, n_pos, n_neg, alpha, auc0, alternative)
    plan = pl.DataFrame({
        "metric": ["auroc"], "auc": [auc], "auc0": [auc0], "alpha": [alpha], "alternative": [alternative],
        "target_power": [target_power], "ratio": [ratio], "n_pos_exact": [exact], "n_neg_exact": [ratio * exact],
        "n_pos": [n_pos], "n_neg": [n_neg], "n_total": [n_pos + n_neg], "power": [achieved],
        "method": ["obuchowski"],
    })
    return PlanResult(kind="sample_size", metric="auroc", plan=plan)


def power(metric: str = "auroc", *, auc: float | None = None, n_pos: float | None = None,
          n_neg: float | None = None, alpha: float = 0.05, auc0: float = 0.5,
          alternative: str = "two_sided") -> PlanResult:
    """Power of the test of ``AUC = auc0`` with ``n_pos`` positives and ``n_neg`` negatives (AUROC).

    pROC's ``power.roc.test(auc=, ncases=, ncontrols=, sig.level=)`` for one
    ROC curve, by Obuchowski's variance (see :func:`sample_size`). For AUCPR
    use ``sample_size(metric="aucpr", aucpr=...)``, whose ``.search`` holds
    the simulated power at each size.

    Examples
    --------
    >>> from aucpr_stats import power
    >>> round(power(auc=0.65, n_pos=30, n_neg=90).power, 6)
    0.716049
    """
    metric, alpha, alternative = _common_iv(metric, alpha, alternative)
    if metric != "auroc":
        raise InputError("`power()` computes AUROC power (closed form); for AUCPR use "
                         "sample_size(metric='aucpr', aucpr=..., power=...), which simulates the power")
    auc, auc0 = _auc_iv(auc, auc0)
    if n_pos is None or n_neg is None:
        raise InputError("`n_pos` and `n_neg` are required: the numbers of positives and negatives")
    n_pos = _validate.number_iv(n_pos, "n_pos", low=0.0, what="a positive number")
    n_neg = _validate.number_iv(n_neg, "n_neg", low=0.0, what="a positive number")
    value = obuchowski.power_at(auc, n_pos, n_neg, alpha, auc0, alternative)
    plan = pl.DataFrame({
        "metric": ["auroc"], "auc": [auc], "auc0": [auc0], "alpha": [alpha], "alternative": [alternative],
        "n_pos": [n_pos], "n_neg": [n_neg], "n_total": [n_pos + n_neg], "power": [value], "method": ["obuchowski"],
    })
    return PlanResult(kind="power", metric="auroc", plan=plan)


def _aucpr_sample_size(*, aucpr, prevalence, scenario, half_width, power, estimator, method, level, n_sim, seed,
                       method_options) -> PlanResult:
    if prevalence is None:
        raise InputError("`prevalence` is required for metric='aucpr': the prevalence of the planned study")
    prevalence = _validate.probability_iv(prevalence, "prevalence")
    scenario = get_scenario(scenario)
    if (half_width is None) == (aucpr is None):
        raise InputError("give one target for metric='aucpr': `half_width` (interval precision) or `aucpr` "
                         "(a null value to exclude, with `power`)")
    if half_width is not None:
        half_width = _validate.number_iv(half_width, "half_width", low=0.0, high=0.5, what="in (0, 0.5)")
    else:
        aucpr = _validate.probability_iv(aucpr, "aucpr")
    estimator = _validate.choice_iv(estimator, "estimator", list(PR_ESTIMATORS))
    method = _validate.choice_iv(method, "method", list(INTERVAL_METHODS))
    level = _validate.level_iv(level)
    n_sim = _validate.integer_iv(n_sim, "n_sim", 20)
    seed = _validate.seed_iv(seed)
    truth = scenario.true_aucpr(prevalence)
    if aucpr is not None and abs(aucpr - truth) < 1e-6:
        raise InputError(f"`aucpr`={aucpr} equals the scenario's true AUCPR at this prevalence ({truth:.4f}); "
                         "no size gives power against it")
    row, search, c = search_size(scenario, prevalence, half_width=half_width, theta0=aucpr, target_power=power,
                                 estimator=estimator, method=method, level=level, n_sim=n_sim, seed=seed,
                                 truth=truth, options=dict(method_options or {}), min_positives=5)
    plan = {
        "metric": "aucpr", "scenario": scenario.name, "prevalence": prevalence, "true_aucpr": truth,
        "estimator": estimator, "interval": method, "level": level,
        "target_half_width": half_width if half_width is not None else math.nan,
        "null_aucpr": aucpr if aucpr is not None else math.nan,
        "target_power": power if power is not None else math.nan,
        "n_pos": row["n_pos"], "n_neg": row["n_neg"], "n_total": row["n_total"],
        "mean_half_width": row["mean_half_width"], "mean_half_width_se": row["mean_half_width_se"],
        "coverage": row["coverage"], "coverage_se": row["coverage_se"],
        "power": row.get("power", math.nan), "power_se": row.get("power_se", math.nan),
        "fitted_c": c, "n_sim": n_sim, "method": "simulation",
    }
    return PlanResult(kind="sample_size", metric="aucpr", plan=pl.DataFrame([plan]), search=search)
