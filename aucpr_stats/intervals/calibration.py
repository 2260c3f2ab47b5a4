r"""Intervals of the calibration statistics: Wald (model-based or sandwich) and profile likelihood.

**Wald.** Calibration-in-the-large, the intercept and the slope are
maximum-likelihood estimates of a logistic model fitted on the tie table
(:mod:`aucpr_stats.estimators.logistic_fit`). With independent rows their
standard error is the model-based one, :math:`(X^\top W X)^{-1}` (R's
``glm``, rms' ``lrm``). With ``weights=`` or ``cluster=`` it is the sandwich
(Huber 1967; Binder 1983): the linearisation of the estimating equations,
a unit of weight :math:`w` in tie row :math:`r` contributing
:math:`w\,[H^{-1} x_r (y - \mu_r)]_j`, squared and summed over rows or over
clusters (:func:`~.linearisation.design_variance`; R's
``sandwich::vcovHC``/``vcovCL`` with ``type="HC0"`` times the
``n/(n-1)`` factors of that module). Observed/expected is linearised on the
log scale (:math:`\partial \log(O/E)` of an event at :math:`p_r`:
:math:`1/O - p_r/E`; of a non-event: :math:`-p_r/E`), its interval
:math:`\exp(\log(O/E) \pm z\,se)`; the Brier score and the scaled Brier by
the delta method on the same linearisation (the rows random, their number
of events too). Spiegelhalter's z and the E statistics have no Wald
interval (the bootstrap gives one for the E statistics).

**Profile likelihood** (Venzon & Moolgavkar 1988): the parameter values
whose likelihood-ratio statistic, the nuisance parameter maximised out, is
below the :math:`\chi^2_1` quantile; found by bisection per group, all
groups at once. It follows the likelihood where it is skewed (few events,
slopes far from 1), which the Wald interval does not. R's ``confint`` on a
``glm`` interpolates the same profile on a grid (agreement to about 1e-4).
Independent rows only (a weighted or clustered likelihood is not a likelihood).
"""

from __future__ import annotations

import numpy as np

from ..distributions import expit, normal_quantile
from ..estimators.calibration import citl_fit, logit_rows, recalibration
from ..estimators.logistic_fit import fit_logistic, log_likelihood
from ..ties import TieTable
from .bootstrap import bootstrap_method
from .linearisation import Gradient, design_variance

__all__ = ["wald_method", "wald_note", "profile_method", "profile_note", "WALD_STATISTICS", "PROFILE_STATISTICS",
           "statistic_gradient", "calibration_bootstrap"]

#: The statistics with a Wald interval, and the scale it is formed on.
WALD_STATISTICS = {"oe_ratio": "log", "citl": "identity", "intercept": "identity", "slope": "identity",
                   "brier": "identity", "scaled_brier": "identity"}
#: The statistics with a profile-likelihood interval.
PROFILE_STATISTICS = ("citl", "intercept", "slope")

#: Below this many events the Wald interval of the scaled Brier score under-covers at a low prevalence:
#: 89.5% with 20 and 91.8% with 50 events at prevalence 0.01, >= 94.8% from 200
#: (benchmarks/calibration_coverage_results.md).
SCALED_BRIER_MIN_EVENTS = 200
_SCALED_BRIER_NOTE = ("the Wald interval of the scaled Brier score covers 89.5-91.8% with 20-50 events at "
                      "prevalence 0.01 (>= 94.8% from 200; benchmarks/calibration_coverage_results.md)")

_AT_PREVALENCE = ("no Wald or profile interval at a stated prevalence (the reweighted controls' variability): "
                  "use method='bootstrap' (the default there, stratified by class as the sample was drawn)")


# ------------------------------------------------------------------ linearisations
def _glm_gradient(ties: TieTable, which: str, j: int) -> Gradient:
    """The linearisation of coefficient ``j`` of the CITL (``which="citl"``) or recalibration fit."""
    kept, x = logit_rows(ties)
    if which == "citl":
        fit = citl_fit(ties)
        design = np.ones((kept.n_rows, 1))
        eta = x + np.repeat(fit.coef[:, 0], kept.lengths)
    else:
        fit = recalibration(ties)
        design = np.column_stack([np.ones(kept.n_rows), x])
        eta = np.einsum("rk,rk->r", design, np.repeat(fit.coef, kept.lengths, axis=0))
    mu = expit(eta)
    inverse = np.repeat(fit.covariance(), kept.lengths, axis=0)  # H^-1 per row's segment
    direction = np.einsum("rk,rk->r", inverse[:, j, :], design)  # [H^-1 x_r]_j
    usable = (ties.score > 0.0) & (ties.score < 1.0)
    g_pos = np.where(usable, direction * (1.0 - mu), 0.0)
    g_neg = np.where(usable, direction * (0.0 - mu), 0.0)
    estimate = fit.coef[:, j]
    return Gradient(estimate, g_pos, g_neg)


def _sum_gradient(ties: TieTable, name: str) -> Gradient:
    """The linearisation of O/E (log scale), Brier or the scaled Brier: derivatives of ratios of sums."""
    p = ties.score
    per = ties.lengths
    events, rows = ties.n_pos.astype(np.float64), (ties.n_pos + ties.n_neg).astype(np.float64)
    if name == "oe_ratio":
        expected = ties.segment_sum((ties.pos + ties.neg) * p)
        e = np.repeat(expected, per)
        return Gradient(np.log(events / expected), np.repeat(1.0 / events, per) - p / e, -p / e)
    loss = ties.segment_sum(ties.pos * (1.0 - p) ** 2 + ties.neg * p ** 2)
    b = loss / rows
    w, bb = np.repeat(rows, per), np.repeat(b, per)
    d_pos, d_neg = ((1.0 - p) ** 2 - bb) / w, (p ** 2 - bb) / w
    if name == "brier":
        return Gradient(b, d_pos, d_neg)
    ybar = events / rows
    v = ybar * (1.0 - ybar)
    yb, vv = np.repeat(ybar, per), np.repeat(v, per)
    factor = np.repeat(b * (1.0 - 2.0 * ybar) / v ** 2, per)
    return Gradient(1.0 - b / v, -d_pos / vv + factor * (1.0 - yb) / w, -d_neg / vv + factor * (0.0 - yb) / w)


def statistic_gradient(ties: TieTable, name: str) -> Gradient:
    """The linearisation of statistic ``name`` (one of :data:`WALD_STATISTICS`) on its natural scale.

    A unit of weight ``w`` in tie row ``r`` contributes ``w * pos[r]`` (an
    event) or ``w * neg[r]`` (a non-event); O/E's log-scale terms are
    multiplied by the ratio (the delta method). Paired comparisons take
    these per row (:mod:`aucpr_stats.compare.calibration`).
    """
    if name in ("citl", "intercept", "slope"):
        which, k = ("citl", 0) if name == "citl" else ("recalibration", 0 if name == "intercept" else 1)
        return _glm_gradient(ties, which, k)
    gradient = _sum_gradient(ties, name)
    if name != "oe_ratio":
        return gradient
    ratio = np.exp(gradient.estimate)
    scale = np.repeat(ratio, ties.lengths)
    return Gradient(ratio, gradient.pos * scale, gradient.neg * scale)


def _standard_errors(request) -> tuple[np.ndarray, np.ndarray]:
    """(se on the interval's scale, the estimate on that scale) of every group and statistic.

    CITL always by the sandwich: its offset-only model is misspecified
    whenever the slope is not 1, and the model-based variance then
    under-covers (91% with 1,000 events for an overfitted model,
    benchmarks/calibration_coverage_results.md). The intercept and slope of
    the recalibration by the model-based variance with independent rows (R's
    ``glm``), by the sandwich with weights or clusters. NaN at a stated
    prevalence (the reweighted controls: the bootstrap, stratified by class).
    """
    result = request.result
    se, centre = request.blank(), request.blank()
    if result.stated_prevalence is not None:
        return se, centre
    design = result.design.kind
    for j, record in enumerate(request.estimators):
        name = record.name
        if name not in WALD_STATISTICS:
            continue
        if name in ("intercept", "slope") and design == "rows":
            k = int(name == "slope")
            se[:, j] = np.sqrt(recalibration(result.ties).covariance()[:, k, k])
            centre[:, j] = result.estimates[:, j]
            continue
        # O/E on the log scale (its interval is formed there)
        gradient = _sum_gradient(result.ties, name) if name == "oe_ratio" else statistic_gradient(result.ties, name)
        se[:, j] = design_variance(result, gradient).se
        centre[:, j] = gradient.estimate
    return se, centre


def wald_method(request) -> dict:
    """Wald intervals on each statistic's scale (:data:`WALD_STATISTICS`), mapped back."""
    with np.errstate(all="ignore"):
        se, centre = _standard_errors(request)
        z = float(normal_quantile(0.5 + request.level / 2.0))
        lower, upper = centre - z * se, centre + z * se
        out_se = se.copy()
        for j, record in enumerate(request.estimators):
            if WALD_STATISTICS.get(record.name) == "log":
                lower[:, j], upper[:, j] = np.exp(lower[:, j]), np.exp(upper[:, j])
                out_se[:, j] = se[:, j] * request.result.estimates[:, j]  # delta method back to the ratio
    return {"lower": lower, "upper": upper, "se": out_se}


def wald_note(request, computed) -> np.ndarray:
    notes = np.full(request.shape, None, dtype=object)
    stated = request.result.stated_prevalence
    for j, record in enumerate(request.estimators):
        name = record.name
        if name not in WALD_STATISTICS:
            notes[:, j] = "no Wald interval for this statistic: use method='bootstrap'"
        elif stated is not None:
            notes[:, j] = _AT_PREVALENCE
        elif name == "scaled_brier":  # its own, larger minimum (the method's is that of the other statistics)
            few = np.asarray(request.result.n_pos) < SCALED_BRIER_MIN_EVENTS
            notes[few, j] = _SCALED_BRIER_NOTE
    return notes


# ------------------------------------------------------------------ profile likelihood
def _profile_bound(ties: TieTable, name: str, estimate: np.ndarray, se: np.ndarray, side: float,
                   level: float, scale: np.ndarray | float = 1.0) -> np.ndarray:
    """The profile-likelihood bound on one side (``side`` -1 or +1) of every segment's estimate.

    Safeguarded Newton on :math:`f(\\theta) = 2(\\hat\\ell - \\ell_p(\\theta)) - \\chi^2_{1}`: by the
    envelope theorem :math:`\\ell_p'(\\theta)` is the score of :math:`\\theta` at the nuisance
    parameter's maximum, so each step costs one (warm-started) nuisance fit; a step that leaves the
    bracket is replaced by bisection. Stops when the bracket is below 1e-11 (relative) or ``f`` below 1e-10.
    """
    kept, x = logit_rows(ties)
    n_rows, lengths = kept.n_rows, kept.lengths
    starts = kept.offsets[:-1]
    pos, neg = kept.pos.astype(np.float64), kept.neg.astype(np.float64)
    total = pos + neg
    # the chi-square(1) quantile at ``level``, per segment times the robust likelihood's scale
    critical = float(normal_quantile(0.5 + level / 2.0)) ** 2 * np.broadcast_to(scale, estimate.shape)
    nuisance = np.full((kept.n_segments, 1), 0.0 if name == "slope" else 1.0)

    def profile(value: np.ndarray, update: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The log-likelihood maximised over the nuisance parameter at ``value``, and its derivative in it."""
        nonlocal nuisance
        held = np.repeat(value, lengths)
        if name == "citl":
            eta = x + held
        else:
            if name == "slope":  # the intercept maximised out: offset slope * x
                design, offset = np.ones((n_rows, 1)), held * x
            else:  # the intercept held: the slope maximised out
                design, offset = x[:, None], held
            fit = fit_logistic(kept, design, offset, nuisance)
            if update:
                nuisance = np.where(np.isfinite(fit.coef), fit.coef, nuisance)
            eta = offset + design[:, 0] * np.repeat(fit.coef[:, 0], lengths)
        residual = pos - total * expit(eta)
        score = kept.segment_sum(residual * x) if name == "slope" else kept.segment_sum(residual)
        return log_likelihood(eta, pos, neg, starts), score

    top, _ = profile(estimate)
    step = np.where(np.isfinite(se) & (se > 0), se, 1.0)
    inside = estimate.copy()
    outside = estimate + side * 2.0 * step
    for _ in range(60):  # widen until the bound is bracketed
        value, _ = profile(outside)
        far = 2.0 * (top - value) < critical
        if not far.any():
            break
        inside = np.where(far, outside, inside)
        outside = np.where(far, outside + side * 2.0 * step, outside)
        step = np.where(far, step * 2.0, step)
    theta = np.where(np.isfinite(se), estimate + side * float(normal_quantile(0.5 + level / 2.0)) * se,
                     0.5 * (inside + outside))
    theta = np.clip(theta, np.minimum(inside, outside), np.maximum(inside, outside))
    for _ in range(60):
        value, score = profile(theta, update=True)
        f = 2.0 * (top - value) - critical
        within = f < 0
        inside, outside = np.where(within, theta, inside), np.where(within, outside, theta)
        slope = -2.0 * score
        with np.errstate(all="ignore"):
            newton = theta - f / slope
        low, high = np.minimum(inside, outside), np.maximum(inside, outside)
        ok = np.isfinite(newton) & (newton > low) & (newton < high)
        theta = np.where(ok, newton, 0.5 * (inside + outside))
        if np.all((np.abs(f) < 1e-10) | (high - low <= 1e-11 * (1.0 + np.abs(theta)))):
            break
    return theta


def profile_method(request) -> dict:
    """Profile-likelihood intervals of CITL, the intercept and the slope (NaN for the other statistics).

    CITL's likelihood-ratio statistic is scaled by the ratio of its
    model-based to its sandwich variance (Royall & Tsou 2003, a likelihood
    robust to the offset model's misspecification), so the interval keeps
    its coverage when the slope is not 1; the recalibration's intercept and
    slope use the plain profile (R's ``confint``). NaN at a stated prevalence.
    """
    result = request.result
    lower, upper, se = request.blank(), request.blank(), request.blank()
    usable = request.usable
    if usable.size == 0 or result.stated_prevalence is not None:
        return {"lower": lower, "upper": upper, "se": se}
    wald_se, _ = _standard_errors(request)
    ties = request.ties
    for j, record in enumerate(request.estimators):
        name = record.name
        if name not in PROFILE_STATISTICS:
            continue
        estimate = result.estimates[usable, j]
        ok = np.isfinite(estimate)
        if not ok.any():
            continue
        sub = ties if ok.all() else ties.take(np.flatnonzero(ok))
        robust = wald_se[usable[ok], j]
        scale = np.ones(int(ok.sum()))
        if name == "citl":  # the robust likelihood: the model-based over the sandwich variance
            model = citl_fit(sub).covariance()[:, 0, 0]
            with np.errstate(all="ignore"):
                scale = np.where(np.isfinite(robust) & (model > 0), robust ** 2 / model, 1.0)
        with np.errstate(all="ignore"):
            for side, out in ((-1.0, lower), (1.0, upper)):
                out[usable[ok], j] = _profile_bound(sub, name, estimate[ok], robust, side, request.level, scale)
        se[usable[ok], j] = robust
    return {"lower": lower, "upper": upper, "se": se}


def calibration_bootstrap(request) -> dict:
    """The calibration bootstrap: rows (weighted rows, clusters) whatever their class; at a stated
    prevalence, as a case-control sample was drawn, each class within itself."""
    return bootstrap_method(request, stratified=request.result.stated_prevalence is not None)


def profile_note(request, computed) -> np.ndarray:
    notes = np.full(request.shape, None, dtype=object)
    for j, record in enumerate(request.estimators):
        if request.result.stated_prevalence is not None:
            notes[:, j] = _AT_PREVALENCE
        elif record.name not in PROFILE_STATISTICS:
            notes[:, j] = "no profile-likelihood interval for this statistic: use method='wald' or 'bootstrap'"
    return notes
