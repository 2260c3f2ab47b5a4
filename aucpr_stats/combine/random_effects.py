r"""Random-effects meta-analysis of per-site estimates: the between-site variance, the pooled mean, its interval.

Each site :math:`i = 1, \dots, k` gives an estimate :math:`y_i` (an area on
the logit scale, say) with a within-site variance :math:`v_i` taken as
known. The model is :math:`y_i = \mu + u_i + e_i` with
:math:`u_i \sim N(0, \tau^2)` (the true spread of performance across
sites) and :math:`e_i \sim N(0, v_i)`. With :math:`w_i = 1/(v_i + \tau^2)`
the pooled mean is :math:`\hat\mu = \sum w_i y_i / \sum w_i`.

Between-site variance :math:`\tau^2` (all truncated at 0):

* ``"DL"``, DerSimonian & Laird (1986): the method of moments on Cochran's
  :math:`Q` with fixed-effect weights :math:`w_i^0 = 1/v_i`,
  :math:`\hat\tau^2 = (Q - (k-1)) / (\sum w^0 - \sum (w^0)^2 / \sum w^0)`.
* ``"PM"``, Paule & Mandel (1982): the root of the generalised statistic
  :math:`Q(\tau^2) = \sum w_i (y_i - \hat\mu)^2 = k - 1`.
* ``"REML"``, restricted maximum likelihood (Viechtbauer 2005, eq. 10): the
  root of the score :math:`y^\top P P y - \mathrm{tr}\,P` (with :math:`P =
  W - W 1 1^\top W / \sum w_i`) of highest restricted likelihood, or 0,
  found by bracketing and bisection (Fisher scoring can oscillate, and the
  likelihood can have two modes).

Interval for :math:`\mu`:

* ``"hksj"``, Hartung & Knapp (2001) and Sidik & Jonkman (2002): variance
  :math:`\sum w_i (y_i - \hat\mu)^2 / ((k-1) \sum w_i)` and Student's t
  with :math:`k - 1` degrees of freedom. With few sites the Wald interval's
  normal quantile and plug-in variance make it too narrow; this one is not
  (``docs/pooling.md`` has the coverage).
* ``"hksj_adhoc"``: the same, never narrower than the Wald-type variance
  :math:`1/\sum w_i` (Knapp & Hartung 2003; metafor's ``test="adhoc"``).
* ``"wald"``: variance :math:`1 / \sum w_i` and the normal quantile.

The prediction interval for the true value at a new site (Higgins,
Thompson & Spiegelhalter 2009) is :math:`\hat\mu \pm c \sqrt{\hat\tau^2 +
SE(\hat\mu)^2}` with :math:`c` the interval's quantile (t with
:math:`k-1` degrees of freedom, as metafor's ``predict``, or normal for
``"wald"``). The interval for :math:`\tau^2` is the Q-profile interval
(Viechtbauer 2007): the :math:`\tau^2` at which :math:`Q(\tau^2)` equals the
chi-square quantiles with :math:`k-1` degrees of freedom. :math:`I^2 =
\hat\tau^2 / (\hat\tau^2 + s^2)` with the typical within-site variance
:math:`s^2 = (k-1)\sum w^0 / ((\sum w^0)^2 - \sum (w^0)^2)` (Higgins &
Thompson 2002, eq. 9); :math:`H^2 = (\hat\tau^2 + s^2)/s^2`.

Every function works on many meta-analyses at once: ``y`` and ``v`` of shape
(problems, sites) with a boolean ``mask`` of the sites each problem uses, so
the analyses of every score and estimator, and each leave-one-site-out
refit, are one vectorised pass.

References
----------
DerSimonian, R., Laird, N. (1986). Meta-analysis in clinical trials.
Controlled Clinical Trials 7, 177-188.
Paule, R. C., Mandel, J. (1982). Consensus values and weighting factors.
Journal of Research of the National Bureau of Standards 87, 377-385.
Viechtbauer, W. (2005). Bias and efficiency of meta-analytic variance
estimators in the random-effects model. Journal of Educational and
Behavioral Statistics 30, 261-293.
Viechtbauer, W. (2007). Confidence intervals for the amount of heterogeneity
in meta-analysis. Statistics in Medicine 26, 37-52.
Hartung, J., Knapp, G. (2001). On tests of the overall treatment effect in
meta-analysis with normally distributed responses. Statistics in Medicine
20, 1771-1782.
Sidik, K., Jonkman, J. N. (2002). A simple confidence interval for
meta-analysis. Statistics in Medicine 21, 3153-3159.
Knapp, G., Hartung, J. (2003). Improved tests for a random effects
meta-regression with a single covariate. Statistics in Medicine 22,
2693-2710.
Higgins, J. P. T., Thompson, S. G., Spiegelhalter, D. J. (2009). A
re-evaluation of random-effects meta-analysis. JRSS A 172, 137-159.
"""

from __future__ import annotations

import numpy as np

from ..distributions import chi2_quantile, chi2_sf, normal_quantile, t_quantile

__all__ = ["TAU2_METHODS", "CI_METHODS", "generalised_q", "solve_q", "tau_squared", "random_effects"]

#: Estimators of the between-site variance.
TAU2_METHODS = ("REML", "DL", "PM")
#: Intervals for the pooled mean.
CI_METHODS = ("hksj", "hksj_adhoc", "wald")

_BISECTION_STEPS = 200
_REML_GRID = 129


def _weighted(y: np.ndarray, v: np.ndarray, mask: np.ndarray, tau2: np.ndarray):
    """Weights 1/(v + tau2) (0 off the mask), their sum and the weighted mean, per problem."""
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(mask, 1.0 / (v + tau2[:, None]), 0.0)
    total = w.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (w * np.where(mask, y, 0.0)).sum(axis=1) / total
    return w, total, mean


def generalised_q(y: np.ndarray, v: np.ndarray, mask: np.ndarray, tau2: np.ndarray) -> np.ndarray:
    r"""The generalised Q statistic :math:`\sum w_i (y_i - \hat\mu)^2` with :math:`w_i = 1/(v_i + \tau^2)`."""
    w, _, mean = _weighted(y, v, mask, tau2)
    return (w * np.where(mask, y - mean[:, None], 0.0) ** 2).sum(axis=1)


def solve_q(y: np.ndarray, v: np.ndarray, mask: np.ndarray, target: np.ndarray) -> np.ndarray:
    r"""The :math:`\tau^2 \ge 0` at which the generalised Q equals ``target`` (0 where it is below already).

    :math:`Q(\tau^2)` decreases in :math:`\tau^2` and is at most
    :math:`\sum (y_i - \bar y)^2 / \tau^2` (the weighted mean minimises the
    weighted sum of squares), so the root lies below
    :math:`\sum (y_i - \bar y)^2 / \mathrm{target}`: bisection in that
    bracket to the last bit.
    """
    target = np.asarray(target, dtype=np.float64)
    k = mask.sum(axis=1)
    plain = np.where(mask, y, 0.0).sum(axis=1) / np.maximum(k, 1)
    spread = (np.where(mask, y - plain[:, None], 0.0) ** 2).sum(axis=1)
    low = np.zeros(y.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        high = np.where(target > 0, spread / target, np.inf)
    at_zero = generalised_q(y, v, mask, low)
    open_ = (at_zero > target) & np.isfinite(high)
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * (low + high)
        above = generalised_q(y, v, mask, np.where(open_, middle, 0.0)) > target
        low = np.where(open_ & above, middle, low)
        high = np.where(open_ & ~above, middle, high)
        if np.all((high - low)[open_] <= 4 * np.finfo(float).eps * high[open_]):
            break
    out = np.where(open_, 0.5 * (low + high), 0.0)
    return np.where(np.isfinite(at_zero) & (target > 0), out, np.nan)


def _fixed_effect(y: np.ndarray, v: np.ndarray, mask: np.ndarray) -> dict:
    """Cochran's Q, the fixed-effect weight sums and the typical within-site variance, per problem."""
    k = mask.sum(axis=1)
    w, s1, _ = _weighted(y, v, mask, np.zeros(y.shape[0]))
    s2 = (w ** 2).sum(axis=1)
    q = generalised_q(y, v, mask, np.zeros(y.shape[0]))
    with np.errstate(divide="ignore", invalid="ignore"):
        typical = (k - 1) * s1 / (s1 ** 2 - s2)
    return {"k": k, "s1": s1, "s2": s2, "q": q, "typical": typical}


def _restricted_loglik(y: np.ndarray, v: np.ndarray, mask: np.ndarray, tau2: np.ndarray) -> np.ndarray:
    r"""The restricted log-likelihood (up to a constant) at :math:`\tau^2`, per problem."""
    w, total, mean = _weighted(y, v, mask, tau2)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(mask, np.log(v + tau2[:, None]), 0.0).sum(axis=1)
        spread = (w * np.where(mask, y - mean[:, None], 0.0) ** 2).sum(axis=1)
        return -0.5 * (logs + np.log(total) + spread)


def _reml_score(y: np.ndarray, v: np.ndarray, mask: np.ndarray, tau2: np.ndarray) -> np.ndarray:
    r"""Twice the REML score in :math:`\tau^2`: :math:`y^\top PPy - \mathrm{tr}\,P`, per problem.

    For an intercept-only model :math:`\mathrm{tr}\,P = \sum w - \sum w^2/\sum w` and
    :math:`y^\top PPy = \sum w^2 (y - \hat\mu)^2` (Viechtbauer 2005, eq. 10).
    """
    w, s1, mean = _weighted(y, v, mask, tau2)
    resid2 = (w ** 2 * np.where(mask, y - mean[:, None], 0.0) ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return resid2 - (s1 - (w ** 2).sum(axis=1) / s1)


def _reml(y: np.ndarray, v: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The REML estimate: the highest restricted likelihood among 0 and the roots of the score.

    Fisher scoring (metafor's algorithm) can overshoot and oscillate without
    end (five sites at 0 with variance 0.5 and one at 1 with 0.125: its steps
    grow around 0.099), and the likelihood can have a mode at 0 and another
    inside (two precise sites that agree and a vague one far away). So the
    score is read on a grid from 0 to a bound it is negative beyond, every
    sign change from + to - (a local maximum) is bisected to the last bit,
    and the candidate with the highest restricted likelihood is kept; all
    problems at once.
    """
    n = y.shape[0]
    k = mask.sum(axis=1)
    plain = np.where(mask, y, 0.0).sum(axis=1) / np.maximum(k, 1)
    spread = (np.where(mask, y - plain[:, None], 0.0) ** 2).sum(axis=1) / np.maximum(k - 1, 1)
    upper = 4.0 * spread + 1e-12
    for _ in range(60):  # a bound beyond which the score is negative (the likelihood falls for ever)
        rising = _reml_score(y, v, mask, upper) > 0
        if not rising.any():
            break
        upper = np.where(rising, 4.0 * upper, upper)
    grid = upper[:, None] * np.linspace(0.0, 1.0, _REML_GRID)[None, :] ** 2  # denser near 0
    score = np.stack([_reml_score(y, v, mask, grid[:, j]) for j in range(_REML_GRID)], axis=1)
    problem, left = np.nonzero((score[:, :-1] > 0) & (score[:, 1:] <= 0))
    low, high = grid[problem, left], grid[problem, left + 1]
    sub = (y[problem], v[problem], mask[problem])
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * (low + high)
        up = _reml_score(*sub, middle) > 0
        low, high = np.where(up, middle, low), np.where(up, high, middle)
        if np.all(high - low <= 4 * np.finfo(float).eps * np.maximum(high, 1e-300)):
            break
    roots = 0.5 * (low + high)
    best = np.zeros(n)
    best_ll = _restricted_loglik(y, v, mask, best)
    if roots.size:
        values = _restricted_loglik(*sub, roots)
        for i in np.argsort(values):  # the highest last: it wins its problem (few roots: a short loop)
            if values[i] > best_ll[problem[i]]:
                best[problem[i]], best_ll[problem[i]] = roots[i], values[i]
    ok = (k >= 2) & np.isfinite(best_ll)
    return np.where(ok, best, np.nan), ok


def tau_squared(y: np.ndarray, v: np.ndarray, mask: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    r"""The between-site variance :math:`\hat\tau^2` of each problem by ``method`` and whether it converged."""
    fixed = _fixed_effect(y, v, mask)
    with np.errstate(divide="ignore", invalid="ignore"):
        dl = np.maximum(0.0, (fixed["q"] - (fixed["k"] - 1)) / (fixed["s1"] - fixed["s2"] / fixed["s1"]))
    dl = np.where(fixed["k"] >= 2, dl, np.nan)
    if method == "DL":
        return dl, np.isfinite(dl)
    if method == "PM":
        pm = solve_q(y, v, mask, (fixed["k"] - 1).astype(np.float64))
        return np.where(fixed["k"] >= 2, pm, np.nan), np.isfinite(pm)
    tau2, converged = _reml(y, v, mask)
    return np.where(np.isfinite(dl), tau2, np.nan), converged & np.isfinite(dl)


def random_effects(y: np.ndarray, v: np.ndarray, mask: np.ndarray, *, method: str = "REML", ci: str = "hksj",
                   level: float = 0.95, prediction: str = "same") -> dict[str, np.ndarray]:
    r"""Random-effects meta-analyses of many problems at once.

    Parameters
    ----------
    y, v : ndarray, shape (problems, sites)
        Site estimates and their within-site variances (on the pooling scale).
    mask : ndarray of bool, shape (problems, sites)
        The sites each problem pools (finite ``y``, positive finite ``v``).
    method : {"REML", "DL", "PM"}
    ci : {"hksj", "hksj_adhoc", "wald"}
    level : float
    prediction : {"same", "riley"}
        The prediction interval's quantile: the interval's own (t with k - 1
        df, or normal for Wald; metafor's default), or t with k - 2 df (Riley,
        Higgins & Deeks 2011; at least 1 df).

    Returns
    -------
    dict of ndarray, shape (problems,)
        ``k``; ``pooled``, ``se``, ``lower``, ``upper`` (the mean and its
        interval), ``df`` (NaN for Wald), ``pi_lower``, ``pi_upper`` (the
        prediction interval); ``tau2``, ``tau2_lower``, ``tau2_upper``,
        ``i_squared``, ``i_squared_lower``, ``i_squared_upper``,
        ``h_squared``; Cochran's ``q``, ``q_df``, ``q_p_value``;
        ``converged``. Problems with fewer than two sites are NaN.
    """
    fixed = _fixed_effect(y, v, mask)
    k = fixed["k"]
    tau2, converged = tau_squared(y, v, mask, method)
    w, total, mean = _weighted(y, v, mask, np.where(np.isfinite(tau2), tau2, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        wald_variance = 1.0 / total
        df = np.where(k >= 2, k - 1.0, np.nan)
        if ci == "wald":
            variance, critical = wald_variance, np.full(k.shape, normal_quantile(0.5 + level / 2))
            df = np.full(k.shape, np.nan)
        else:
            spread = (w * np.where(mask, y - mean[:, None], 0.0) ** 2).sum(axis=1) / (k - 1)
            variance = spread / total
            if ci == "hksj_adhoc":
                variance = np.maximum(variance, wald_variance)
            critical = t_quantile(0.5 + level / 2, np.where(k >= 2, k - 1.0, 1.0))
        se = np.sqrt(variance)
        pi_critical = critical if prediction == "same" else t_quantile(0.5 + level / 2, np.maximum(k - 2.0, 1.0))
        half_pi = pi_critical * np.sqrt(tau2 + variance)
        alpha = 1.0 - level
        q_df = np.maximum(k - 1.0, 1.0)
        tau2_lower = solve_q(y, v, mask, chi2_quantile(1.0 - alpha / 2, q_df))
        tau2_upper = solve_q(y, v, mask, chi2_quantile(alpha / 2, q_df))
        typical = fixed["typical"]
        share = lambda t: t / (t + typical)  # noqa: E731 - I^2 at a value of tau^2
        out = {
            "k": k,
            "pooled": mean,
            "se": se,
            "lower": mean - critical * se,
            "upper": mean + critical * se,
            "df": df,
            "pi_lower": mean - half_pi,
            "pi_upper": mean + half_pi,
            "tau2": tau2,
            "tau2_lower": tau2_lower,
            "tau2_upper": tau2_upper,
            "i_squared": share(tau2),
            "i_squared_lower": share(tau2_lower),
            "i_squared_upper": share(tau2_upper),
            "h_squared": (tau2 + typical) / typical,
            "q": fixed["q"],
            "q_df": k - 1.0,
            "q_p_value": chi2_sf(fixed["q"], q_df),
            "converged": converged,
        }
    few = k < 2
    for name, values in out.items():
        if name not in ("k", "converged"):
            out[name] = np.where(few, np.nan, values)
    return out
