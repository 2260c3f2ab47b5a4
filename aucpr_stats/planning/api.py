"""``sample_size()`` and ``power()``: the public entry points of study planning."""

from __future__ import annotations

import math
import warnings
from typing import Any

import polars as pl

from .. import _validate
from ..compare import DEFAULT_METRIC, METRICS
from ..estimators import DEFAULT_PR_ESTIMATOR, PR_ESTIMATORS
from ..exceptions import InputError, SmallSampleWarning
from ..intervals import INTERVAL_METHODS as ANALYSES
from ..resample import root_sequence
from ..simulate import INTERVAL_METHODS, get_scenario
from . import obuchowski
from .aucpr_comparison import comparison_power, comparison_sample_size, is_aucpr_comparison
from .comparisons import is_two_curve_request, plan_comparison
from .result import PlanResult
from .simulated import search_size, simulate_size

__all__ = ["ALTERNATIVES", "power", "sample_size"]

ALTERNATIVES = ("two_sided", "one_sided")


def _common_iv(metric: Any, alpha: Any, alternative: Any, given: dict) -> tuple[str, float, str]:
    """``metric``, ``alpha``, ``alternative``; and no argument of the other metric among ``given`` (name: value)."""
    metric = _validate.choice_iv(metric, "metric", METRICS)
    alpha = _validate.probability_iv(alpha, "alpha")
    alternative = _validate.choice_iv(alternative, "alternative", ALTERNATIVES)
    owners = {"auc": "auroc", "ratio": "auroc", "auc0": "auroc",
              "aucpr": "aucpr", "prevalence": "aucpr", "half_width": "aucpr"}
    for name, value in given.items():
        if value is not None and owners[name] != metric:
            default = " (the default)" if metric == DEFAULT_METRIC else ""
            raise InputError(f"`{name}` is an argument of metric={owners[name]!r}; got metric={metric!r}{default}: "
                             f"pass metric={owners[name]!r}")
    return metric, alpha, alternative


def _auc_iv(auc: Any, auc0: float) -> tuple[float, float]:
    if auc is None:
        raise InputError("`auc` is required: the AUROC expected under the alternative")
    auc = _validate.probability_iv(auc, "auc")
    auc0 = _validate.probability_iv(auc0, "auc0")
    if auc == auc0:
        raise InputError(f"`auc` must differ from `auc0` ({auc0}); got {auc}")
    return auc, auc0


def sample_size(metric: str = DEFAULT_METRIC, *, auc: float | None = None, power: float = 0.9, alpha: float = 0.05,
                ratio: float | None = None, auc0: float | None = None, alternative: str = "two_sided",
                aucpr: float | None = None, prevalence: float | None = None, scenario: Any = "binormal",
                half_width: float | None = None, estimator: str = DEFAULT_PR_ESTIMATOR, method: str = "logit",
                level: float = 0.95, n_sim: int = 400, seed: Any = None,
                method_options: dict | None = None, rng: Any = None, pilot: Any = None, correlation: Any = None,
                slope: Any = None, null_variance: str = "difference") -> PlanResult:
    """Positives and negatives a study needs.

    ``metric`` is AUCPR unless ``metric="auroc"`` says otherwise: the
    library's one default, shared with :func:`power` and
    :func:`aucpr_stats.compare`. An argument of the other metric (``auc=``
    with the default metric, say) is refused with a message naming it.

    **AUROC** (``metric="auroc"``): the size at which the test of
    ``AUC = auc0`` (0.5) has power ``power`` at level ``alpha`` when the true
    AUC is ``auc``, with ``ratio`` negatives per positive, by Obuchowski's
    variance: pROC's ``power.roc.test(auc=, power=, sig.level=, kappa=)``
    exactly (``n_pos_exact``, ``n_neg_exact`` are its ``ncases`` and
    ``ncontrols``), and the whole numbers to recruit: ``n_pos`` rounded up,
    ``n_neg = ceil(ratio * n_pos)``, with the power they give.

    **Two AUROCs** (``metric="auroc"``): with ``auc=(auc1, auc2)`` and
    ``correlation=`` (binormal, Obuchowski & McClish 1997; 0 for independent
    samples) or ``pilot=`` (a pilot comparison), the size at which the test
    of equal AUCs has power ``power``: pROC's ``power.roc.test(roc1, roc2)``
    and ``power.roc.test(list(A1=, B1=, A2=, B2=, rn=, ra=, delta=))``
    exactly with ``null_variance="first"`` (:mod:`aucpr_stats.planning.two_curves`).

    **Two AUCPRs** (``metric="aucpr"``, ``scenario=(first, second)``, two
    binormal scenarios, and ``correlation``): simulated paired studies at
    ``prevalence``, each analysed by the paired bootstrap test of
    :func:`aucpr_stats.compare`; the fewest positives (searched by doubling
    from 20, then bisection) whose power reaches ``power``
    (:mod:`aucpr_stats.planning.aucpr_comparison`).

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
    metric : {"aucpr", "auroc"}
        ``"aucpr"`` (default) or ``"auroc"``.
    auc : float
        AUROC: the AUC under the alternative.
    power : float
        Target power (AUROC, and AUCPR with ``aucpr=``).
    alpha : float
        AUROC: significance level (two-sided unless ``alternative="one_sided"``,
        as pROC). AUCPR: ``1 - level`` is used instead.
    ratio : float
        AUROC: negatives per positive (pROC's ``kappa``; default 1).
    auc0 : float
        AUROC: the null value (default 0.5, pROC's only one).
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
    seed : None, int, numpy Generator or SeedSequence
        AUCPR: the alias of ``rng``; give one of the two.
    rng : None, int, numpy Generator or SeedSequence
        AUCPR: the randomness of the simulations (SPEC 7); the studies of a
        size depend only on it and the size.
    pilot : ComparisonResult, optional
        Two AUROCs: ``compare(pilot_df, y, [s1, s2], metric="auroc")``; its
        AUCs and DeLong variances and covariance, scaled to one positive, are
        the plan's (pROC's default ``method="delong"``). The variances are the
        pilot's at its own ratio of negatives to positives; ``ratio`` only
        sets the negatives to recruit (as pROC's ``kappa``).
    correlation : float or (float, float), optional
        Two AUROCs with ``auc=(auc1, auc2)``: the correlation of the two
        tests' scores (binormal latent scale), one number or (in the
        negatives, in the positives); 0 for two independent samples. Two
        AUCPRs: one number, the scores' correlation within each class.
    slope : float or (float, float), optional
        Two AUROCs: the binormal slopes ``B`` (default 1: equal variances).
    null_variance : {"difference", "first"}
        Two AUROCs: the variance of the difference under the null. Default
        ``"difference"``: the variance DeLong's test estimates in the study, so
        the claimed power is the power of the test as run (simulations confirm
        it); ``"first"``: pROC's ``2 V1 - 2 C12``, which overstates the power
        when the first curve has the smaller variance (docs/planning.md).

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
    metric, alpha, alternative = _common_iv(metric, alpha, alternative, {
        "auc": auc, "ratio": ratio, "auc0": auc0, "aucpr": aucpr, "prevalence": prevalence,
        "half_width": half_width})
    target_power = _validate.probability_iv(power, "power")
    # one root for every simulated size: rng=5 and rng=numpy.random.default_rng(5) give the same plan
    seed = _validate.rng_iv(rng, seed)
    seed = root_sequence(seed) if metric == "aucpr" else seed
    if metric == "aucpr" and is_aucpr_comparison(scenario):  # two scores compared: simulated (aucpr_comparison)
        return comparison_sample_size(scenario=scenario, correlation=correlation, prevalence=prevalence,
                                      power=target_power, alpha=alpha, n_sim=n_sim, method_options=method_options,
                                      seed=seed)
    if metric == "aucpr":
        return _aucpr_sample_size(aucpr=aucpr, prevalence=prevalence, scenario=scenario, half_width=half_width,
                                  power=target_power if aucpr is not None else None, estimator=estimator,
                                  method=method, level=level, n_sim=n_sim, seed=seed,
                                  method_options=method_options)
    if is_two_curve_request(auc, pilot):
        return plan_comparison("sample_size", auc=auc, pilot=pilot, correlation=correlation, slope=slope,
                               ratio=ratio, alpha=alpha, alternative=alternative, power=target_power, n_pos=None,
                               n_neg=None, null_variance=null_variance)
    auc, auc0 = _auc_iv(auc, 0.5 if auc0 is None else auc0)
    ratio = _validate.number_iv(1.0 if ratio is None else ratio, "ratio", low=0.0,
                                what="a positive number (negatives per positive)")
    exact = obuchowski.n_positives(auc, target_power, alpha, ratio, auc0, alternative)
    n_pos = math.ceil(exact - 1e-9)  # a whole number of positives (not above by rounding residue)
    n_neg = math.ceil(ratio * n_pos - 1e-9)
    achieved = obuchowski.power_at(auc, n_pos, n_neg, alpha, auc0, alternative)
    plan = pl.DataFrame({
        "metric": ["auroc"], "auc": [auc], "auc0": [auc0], "alpha": [alpha], "alternative": [alternative],
        "target_power": [target_power], "ratio": [ratio], "n_pos_exact": [exact], "n_neg_exact": [ratio * exact],
        "n_pos": [n_pos], "n_neg": [n_neg], "n_total": [n_pos + n_neg], "power": [achieved],
        "method": ["obuchowski"], "interval": ["delong"], "note": [_analysis_note("auroc", "delong", n_pos)],
    })
    return PlanResult(kind="sample_size", metric="auroc", plan=plan)


def power(metric: str = DEFAULT_METRIC, *, auc: float | None = None, n_pos: float | None = None,
          n_neg: float | None = None, alpha: float = 0.05, auc0: float | None = None,
          alternative: str = "two_sided", aucpr: float | None = None, scenario: Any = "binormal",
          estimator: str = DEFAULT_PR_ESTIMATOR, method: str = "logit", level: float = 0.95, n_sim: int = 400,
          seed: Any = None, method_options: dict | None = None, rng: Any = None, pilot: Any = None,
          correlation: Any = None, slope: Any = None, null_variance: str = "difference") -> PlanResult:
    """Power of a study with ``n_pos`` positives and ``n_neg`` negatives.

    With ``scenario=(first, second)`` and ``correlation``: the power of the
    paired test of two AUCPRs, by simulation (see :func:`sample_size`).

    **AUCPR** (``metric="aucpr"``, the default, as for :func:`sample_size`
    and :func:`aucpr_stats.compare`): the probability that the planned
    analysis' interval excludes the null value ``aucpr`` when the scores
    follow ``scenario`` at the study's prevalence ``n_pos / (n_pos + n_neg)``,
    by simulating ``n_sim`` studies of that size
    (:func:`aucpr_stats.planning.simulated.simulate_size`, the simulation
    behind ``sample_size(metric="aucpr", aucpr=...)``); the answer carries
    its Monte Carlo error (``power_se``).

    **AUROC** (``metric="auroc"``): the power of the test of ``AUC = auc0``
    when the true AUC is ``auc``, pROC's ``power.roc.test(auc=, ncases=,
    ncontrols=, sig.level=)`` for one ROC curve, by Obuchowski's variance
    (see :func:`sample_size`). With ``auc=(auc1, auc2)`` and ``correlation``,
    or ``pilot=``, the power of the test of equal AUCs (pROC's
    ``power.roc.test(roc1, roc2)``; without ``n_pos`` the pilot's own size,
    as pROC).

    Parameters
    ----------
    metric : {"aucpr", "auroc"}
    auc, auc0, alpha, alternative
        AUROC: as in :func:`sample_size`.
    n_pos, n_neg : number
        The study's positives and negatives (whole numbers for AUCPR).
    aucpr : float
        AUCPR: the null value the interval should exclude.
    scenario, estimator, method, level, n_sim, method_options
        AUCPR: the score distributions and the planned analysis, as in
        :func:`sample_size`.
    seed : None, int, numpy Generator or SeedSequence
        AUCPR: the alias of ``rng``; give one of the two.
    rng : None, int, numpy Generator or SeedSequence
        AUCPR: the randomness of the simulations (SPEC 7).
    pilot, correlation, slope, null_variance
        Two AUROCs: as in :func:`sample_size`.

    Returns
    -------
    PlanResult
        ``.power`` (and ``.power_se`` for AUCPR), ``.to_frame()``, ``.summary()``.

    Examples
    --------
    >>> from aucpr_stats import power
    >>> round(power("auroc", auc=0.65, n_pos=30, n_neg=90).power, 6)
    0.716049
    >>> plan = power(aucpr=0.2, n_pos=60, n_neg=540, n_sim=100, rng=1)  # AUCPR, simulated
    >>> 0 <= plan.power <= 1, plan.n_sim
    (True, 100)
    """
    metric, alpha, alternative = _common_iv(metric, alpha, alternative, {"auc": auc, "auc0": auc0, "aucpr": aucpr})
    seed = _validate.rng_iv(rng, seed)
    seed = root_sequence(seed) if metric == "aucpr" else seed
    if metric == "auroc" and is_two_curve_request(auc, pilot):
        return plan_comparison("power", auc=auc, pilot=pilot, correlation=correlation, slope=slope, ratio=None,
                               alpha=alpha, alternative=alternative, power=None, n_pos=n_pos, n_neg=n_neg,
                               null_variance=null_variance)
    if n_pos is None or n_neg is None:
        raise InputError("`n_pos` and `n_neg` are required: the numbers of positives and negatives")
    if metric == "aucpr" and is_aucpr_comparison(scenario):  # two scores compared: simulated (aucpr_comparison)
        return comparison_power(scenario=scenario, correlation=correlation, n_pos=n_pos, n_neg=n_neg, alpha=alpha,
                                n_sim=n_sim, method_options=method_options, seed=seed)
    if metric == "aucpr":
        return _aucpr_power(aucpr=aucpr, n_pos=n_pos, n_neg=n_neg, scenario=scenario, estimator=estimator,
                            method=method, level=level, n_sim=n_sim, seed=seed, method_options=method_options)
    auc, auc0 = _auc_iv(auc, 0.5 if auc0 is None else auc0)
    n_pos = _validate.number_iv(n_pos, "n_pos", low=0.0, what="a positive number")
    n_neg = _validate.number_iv(n_neg, "n_neg", low=0.0, what="a positive number")
    value = obuchowski.power_at(auc, n_pos, n_neg, alpha, auc0, alternative)
    plan = pl.DataFrame({
        "metric": ["auroc"], "auc": [auc], "auc0": [auc0], "alpha": [alpha], "alternative": [alternative],
        "n_pos": [n_pos], "n_neg": [n_neg], "n_total": [n_pos + n_neg], "power": [value], "method": ["obuchowski"],
    })
    return PlanResult(kind="power", metric="auroc", plan=plan)


def _analysis_iv(estimator: Any, method: Any, level: Any, n_sim: Any) -> tuple[str, str, float, int]:
    """The planned AUCPR analysis: estimator, interval method, level, and the simulated studies per size."""
    estimator = _validate.choice_iv(estimator, "estimator", list(PR_ESTIMATORS))
    method = _validate.choice_iv(method, "method", list(INTERVAL_METHODS))
    return estimator, method, _validate.level_iv(level), _validate.integer_iv(n_sim, "n_sim", 20)


def _aucpr_power(*, aucpr, n_pos, n_neg, scenario, estimator, method, level, n_sim, seed,
                 method_options) -> PlanResult:
    if aucpr is None:
        raise InputError("`aucpr` is required for the power of an AUCPR study: the null value its interval "
                         "should exclude")
    aucpr = _validate.probability_iv(aucpr, "aucpr")
    n_pos = _whole(n_pos, "n_pos")
    n_neg = _whole(n_neg, "n_neg")
    scenario = get_scenario(scenario)
    estimator, method, level, n_sim = _analysis_iv(estimator, method, level, n_sim)
    prevalence = n_pos / (n_pos + n_neg)
    truth = scenario.true_aucpr(prevalence)
    if abs(aucpr - truth) < 1e-6:
        raise InputError(f"`aucpr`={aucpr} equals the scenario's true AUCPR at this prevalence ({truth:.4f}); "
                         "the power against it is the interval's non-coverage, not a power")
    row = simulate_size(scenario, n_pos, prevalence, estimator=estimator, method=method, level=level, n_sim=n_sim,
                        seed=seed, theta0=aucpr, truth=truth, options=dict(method_options or {}), n_neg=n_neg)
    plan = {
        "metric": "aucpr", "scenario": scenario.name, "prevalence": prevalence, "true_aucpr": truth,
        "estimator": estimator, "interval": method, "level": level, "null_aucpr": aucpr,
        "n_pos": n_pos, "n_neg": n_neg, "n_total": n_pos + n_neg,
        "power": row["power"], "power_se": row["power_se"],
        "mean_half_width": row["mean_half_width"], "mean_half_width_se": row["mean_half_width_se"],
        "coverage": row["coverage"], "coverage_se": row["coverage_se"], "n_sim": n_sim, "method": "simulation",
    }
    return PlanResult(kind="power", metric="aucpr", plan=pl.DataFrame([plan]))


def _whole(value: Any, argument: str) -> int:
    """A whole number of cases (``30`` or ``30.0``), at least 1: a simulated study has whole rows."""
    number = _validate.number_iv(value, argument, low=1.0, closed="left", what="at least 1")
    if number != math.floor(number):
        raise InputError(f"`{argument}` must be a whole number of cases for metric='aucpr' (simulated studies); "
                         f"got {value!r}")
    return int(number)


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
    estimator, method, level, n_sim = _analysis_iv(estimator, method, level, n_sim)
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
        "note": _analysis_note("aucpr", method, row["n_pos"]),
    }
    return PlanResult(kind="sample_size", metric="aucpr", plan=pl.DataFrame([plan]), search=search)


def _analysis_note(metric: str, method: str, n_pos: float) -> str | None:
    """The note (and warning) of a planned size whose analysis the library would flag as small.

    The analysis is the interval ``method`` of ``metric``: below its record's
    ``min_positives`` (docs/validation.md) its coverage is not kept, and the
    study's own result would carry a small-sample note.
    """
    minimum = ANALYSES[metric][method].min_positives
    if n_pos >= minimum:
        return None
    floor = "any size validated" if math.isinf(minimum) else f"{minimum:g} positives"
    note = (f"{n_pos:g} positives is below {floor}, from which the {method} interval of the analysis keeps its "
            f"coverage (docs/validation.md): a study of this size would be flagged small-sample")
    if not math.isinf(minimum):
        note += f"; plan at least {minimum:g} positives"
    warnings.warn(f"sample_size: {note}", SmallSampleWarning, stacklevel=3)
    return note
