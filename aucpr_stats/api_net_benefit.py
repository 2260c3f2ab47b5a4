"""``net_benefit()``: decision curve analysis per group, from the tie table."""

from __future__ import annotations

from typing import Any, Sequence


from . import _validate
from .binary_estimate import warn_undefined
from .estimators.engine import evaluate
from .estimators.net_benefit import DEFAULT_THRESHOLDS, NET_BENEFIT_STATISTICS, POLICIES, thresholds_iv
from .estimators.registry import net_benefit_records
from .front_door import front_door
from .pooling.imputed import pooled_over_imputations
from .ingest import read
from .ingest.checks import check_probabilities
from .results_net_benefit import NetBenefitResult

__all__ = ["net_benefit"]


def net_benefit(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    score: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    thresholds: Any = DEFAULT_THRESHOLDS,
    statistic: str | Sequence[str] = "net_benefit",
    policy: str = "opt-in",
    harm: float = 0.0,
    positive: Any = None,
    missing: str = "error",
    negative: Any = None,
    unused_levels: str = "keep",
    prevalence: float | None = None,
    weights: str | None = None,
    cluster: str | None = None,
    imputation: str | None = None,
) -> NetBenefitResult:
    """Net benefit of predicted risks at risk thresholds, per group: decision curve analysis.

    A patient is treated when the predicted risk is at least the threshold
    ``t``; net benefit weighs the true positives against the false
    positives at the odds ``t / (1 - t)`` (Vickers & Elkin 2006). See
    ``docs/net_benefit.md`` and :mod:`aucpr_stats.estimators.net_benefit`.

    Parameters
    ----------
    data_or_formula, outcome, score, by, data, positive, missing, negative, unused_levels
        As for :func:`aucpr_stats.aucpr`; ``score`` must hold predicted
        risks in [0, 1] (several scores: one decision curve each).
    thresholds : float or sequence of float
        Risk thresholds strictly between 0 and 1 (default 1% to 99% by 1%).
    statistic : str, list of str or "all"
        ``"net_benefit"`` (default), ``"standardized_net_benefit"`` (net
        benefit over its largest possible value, the prevalence under
        opt-in), ``"interventions_avoided"`` (net interventions avoided per
        100 patients compared with treating all).
    policy : {"opt-in", "opt-out"}
        Opt-in: the model selects patients for a treatment given to none by
        default. Opt-out (Kerr et al. 2016): it selects patients to spare a
        treatment given to all by default; net benefit then counts true
        negatives against false negatives at the odds ``(1 - t) / t``.
    harm : float
        The harm of the test itself (its cost, risk or burden) in units of the
        benefit of treating an event, subtracted from the net benefit (dcurves' ``harm``).
    prevalence : float in (0, 1), optional
        The population prevalence of a case-control sample: the events and
        non-events are read as proportions within their class (rmda's
        ``population.prevalence``), and both the references and the intervals
        follow.
    weights : str, optional
        A column of case weights: weighted counts, sandwich variances.
    cluster : str, optional
        A column of cluster ids: cluster-robust variances, the cluster bootstrap.

    imputation : str, optional
        A column numbering multiply imputed data sets stacked in long format
        (mice's ``.imp``; drop its ``0``, the incomplete original data): each
        statistic is estimated on every imputed data set and pooled by Rubin's
        rules (on the logit scale for areas), giving an
        :class:`~aucpr_stats.pooling.ImputedResult` (``docs/pooling.md``).

    Returns
    -------
    NetBenefitResult
        ``.to_frame()`` (one row per group, statistic and threshold, with
        ``treat_all`` and ``treat_none``), ``.conf_int(method=)``
        (``"wald"``, default, or ``"bootstrap"``), ``.band(low, high)``
        (a simultaneous band), ``.plot()``, ``.summary()``, ``.table()``,
        ``.heterogeneity()``. :func:`aucpr_stats.compare` with
        ``metric="net_benefit"`` compares two models on the same rows.

    Raises
    ------
    InputError
        A threshold outside (0, 1), a score outside [0, 1], an unknown
        statistic or policy, a harm that is not a finite number, and the
        errors of :func:`aucpr_stats.aucpr`.

    Warns
    -----
    DegenerateGroupWarning
        A group without events or without non-events (NaN, with a note).

    References
    ----------
    Vickers, A. J., Elkin, E. B. (2006). Decision curve analysis: a novel
    method for evaluating prediction models. Med Decis Making 26, 565-574.
    Kerr, K. F., Brown, M. D., Zhu, K., Janes, H. (2016). Assessing the
    clinical impact of risk prediction models with decision curves. J Clin
    Oncol 34, 2534-2540.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import net_benefit
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 0, 1], "p": [0.8, 0.3, 0.6, 0.2, 0.5, 0.4]})
    >>> round(net_benefit(df, "y", "p", thresholds=0.5).estimate, 4)
    0.1667
    """
    chosen_thresholds = thresholds_iv(thresholds)
    names = _validate.names_or_all_iv(statistic, "statistic", list(NET_BENEFIT_STATISTICS))
    policy = _validate.choice_iv(policy, "policy", POLICIES)
    harm = _validate.number_iv(harm, "harm")
    if prevalence is not None:
        prevalence = _validate.probability_iv(prevalence, "prevalence")
    chosen = net_benefit_records(names, chosen_thresholds, policy, prevalence, harm)
    request = front_door("net_benefit", data_or_formula, data, outcome, score, by, positive=positive,
                         missing=missing, negative=negative, unused_levels=unused_levels, weights=weights,
                         cluster=cluster, prevalence=prevalence, metric="net_benefit", records=chosen,
                         imputation=imputation)
    ingested = read(request, stacklevel=2)
    ties = ingested.ties
    check_probabilities(ties, ingested, "net benefit")
    result = NetBenefitResult(
        ties=ties, keys=ingested.keys, by=ingested.key_columns, estimators=tuple(r.name for r in chosen),
        estimates=evaluate(ties, chosen), records=chosen, notes=ingested.notes, frame_kind=ingested.kind,
        outcome=ingested.spec.outcome, score=ingested.spec.score, request=request, directions=ingested.directions,
        clusters=ingested.clusters, weighted_cells=ingested.weighted_cells, weight_sums=ingested.weight_sums,
        policy=policy, harm=harm)
    warn_undefined(result, stacklevel=1)
    return pooled_over_imputations(result)
