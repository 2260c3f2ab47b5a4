"""``calibration()``: how well predicted probabilities agree with the outcomes, per group, from the tie table."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from . import _validate
from .binary_estimate import warn_undefined
from .estimators.calibration_curve import DEFAULT_KNOTS, KNOT_QUANTILES
from .estimators.engine import evaluate
from .estimators.registry import CALIBRATION_STATISTICS, calibration_records
from .exceptions import ExtremePredictionWarning, InputError
from .front_door import front_door
from .pooling.imputed import pooled_over_imputations
from .ingest import read
from .ingest.checks import check_probabilities
from .results import CalibrationResult

__all__ = ["calibration", "CALIBRATION_DEFAULT"]

#: The statistics :func:`calibration` reports by default: all of them.
CALIBRATION_DEFAULT = "all"


def calibration(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    score: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    statistic: str | Sequence[str] = CALIBRATION_DEFAULT,
    positive: Any = None,
    missing: str = "error",
    negative: Any = None,
    unused_levels: str = "keep",
    prevalence: float | None = None,
    weights: str | None = None,
    cluster: str | None = None,
    imputation: str | None = None,
    knots: int = DEFAULT_KNOTS,
) -> CalibrationResult:
    """Calibration of predicted probabilities per group: O/E, calibration-in-the-large, slope, Brier, ICI, z.

    Parameters
    ----------
    data_or_formula, outcome, score, by, data, positive, missing, negative, unused_levels
        As for :func:`aucpr_stats.aucpr`; ``score`` must hold predicted
        probabilities in [0, 1] (a logit or a raw score is refused: apply
        the inverse logit first).
    statistic : str, list of str or "all"
        Which statistics (default all, in this order): ``"oe_ratio"``
        (observed/expected events), ``"citl"`` (calibration-in-the-large:
        the intercept with the logit of the prediction as offset),
        ``"slope"`` and ``"intercept"`` (the logistic recalibration on the
        logit, jointly), ``"brier"``, ``"scaled_brier"``, ``"ici"``,
        ``"e50"``, ``"e90"``, ``"emax"`` (of a restricted cubic spline
        calibration curve), ``"spiegelhalter_z"``, ``"spiegelhalter_p"``.
        See ``docs/calibration.md``.
    prevalence : float in (0, 1), optional
        The population prevalence of a case-control sample: the intercepts
        are shifted by ``logit(prevalence) - logit(sample prevalence)`` (the
        slope is unchanged), O/E, Brier and the E statistics are read with
        the controls reweighted to the population (Spiegelhalter's z is not
        given). Intervals default to the bootstrap.
    weights : str, optional
        A column of case weights (survey or inverse-probability weights):
        the weighted likelihood and sums; Wald intervals use the sandwich
        variance. Spiegelhalter's z is not given.
    cluster : str, optional
        A column of cluster ids (patients with several rows, sites):
        cluster-robust (sandwich) Wald intervals, or the cluster bootstrap.
    knots : int
        Knots of the flexible calibration curve (3 to 7; Harrell's
        quantiles of the logit of the predictions).

    imputation : str, optional
        A column numbering multiply imputed data sets stacked in long format
        (mice's ``.imp``; drop its ``0``, the incomplete original data): each
        statistic is estimated on every imputed data set and pooled by Rubin's
        rules (on the logit scale for areas), giving an
        :class:`~aucpr_stats.pooling.ImputedResult` (``docs/pooling.md``).

    Returns
    -------
    CalibrationResult
        ``.to_frame()`` (the ``estimator`` column names the statistic),
        ``.conf_int(method=...)`` (``"wald"``, ``"profile"``, ``"bootstrap"``),
        ``.summary()``, ``.table()``, ``.heterogeneity()``; ``.estimate``
        when ungrouped with one statistic.

    Raises
    ------
    InputError
        A score outside [0, 1], an unknown statistic, knots outside 3-7, and
        the errors of :func:`aucpr_stats.aucpr`.

    Warns
    -----
    DegenerateGroupWarning
        A group without events or non-events (NaN, with a note), or a
        statistic undefined in a group (a constant prediction has no slope).
    ExtremePredictionWarning
        Predictions of exactly 0 or 1, left out of the logit-scale fits.

    References
    ----------
    Van Calster, B. et al. (2016). A calibration hierarchy for risk models was
    defined: from utopia to empirical data. J Clin Epidemiol 74, 167-176.
    Austin, P. C., Steyerberg, E. W. (2019). The Integrated Calibration Index
    (ICI) and related metrics for quantifying the calibration of logistic
    regression models. Stat Med 38, 4051-4065.
    Spiegelhalter, D. J. (1986). Probabilistic prediction in patient
    management and clinical trials. Stat Med 5, 421-433.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import calibration
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 0, 1], "p": [0.8, 0.3, 0.6, 0.2, 0.5, 0.4]})
    >>> round(calibration(df, "y", "p", statistic="brier").estimate, 4)
    0.1567
    """
    names = _validate.names_or_all_iv(statistic, "statistic", list(CALIBRATION_STATISTICS))
    if isinstance(knots, bool) or not isinstance(knots, (int, np.integer)) or int(knots) not in KNOT_QUANTILES:
        raise InputError(f"`knots` must be an integer from 3 to 7 (the knots of the calibration curve); got {knots!r}")
    if prevalence is not None:
        prevalence = _validate.probability_iv(prevalence, "prevalence")
    chosen = calibration_records(names, prevalence, int(knots), weighted=weights is not None)
    request = front_door("calibration", data_or_formula, data, outcome, score, by, positive=positive,
                         missing=missing, negative=negative, unused_levels=unused_levels, weights=weights,
                         cluster=cluster, prevalence=prevalence, metric="calibration", records=chosen,
                         imputation=imputation)
    ingested = read(request, stacklevel=2)
    ties = ingested.ties
    check_probabilities(ties, ingested, "calibration")
    extreme = ties.segment_sum(np.where((ties.score == 0.0) | (ties.score == 1.0), ties.pos + ties.neg, 0))
    result = CalibrationResult(
        ties=ties, keys=ingested.keys, by=ingested.key_columns, estimators=tuple(r.name for r in chosen),
        estimates=evaluate(ties, chosen), records=chosen, notes=ingested.notes, frame_kind=ingested.kind,
        outcome=ingested.spec.outcome, score=ingested.spec.score, request=request, directions=ingested.directions,
        clusters=ingested.clusters, weighted_cells=ingested.weighted_cells, weight_sums=ingested.weight_sums,
        extreme_rows=np.asarray(extreme, dtype=np.float64), knots=int(knots))
    warn_undefined(result, stacklevel=1)
    if np.any(extreme > 0):
        warnings.warn(f"{int(np.count_nonzero(extreme))} group(s) hold predictions of exactly 0 or 1: they count in "
                      "O/E, Brier and Spiegelhalter's z and are left out of the logit-scale fits (CITL, slope, "
                      "intercept, the calibration curve); see the `note` column", ExtremePredictionWarning,
                      stacklevel=2)
    return pooled_over_imputations(result)

