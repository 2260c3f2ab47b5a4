r"""Rubin's rules across multiply imputed data sets, and the pooled Wald and chi-square tests D1 and D2.

Scalar pooling (Rubin 1987, ch. 3): with :math:`m` imputations, estimates
:math:`\hat Q_l` and within-imputation variances :math:`U_l`,

.. math::

    \bar Q = \frac1m\sum \hat Q_l, \quad \bar U = \frac1m \sum U_l, \quad
    B = \frac{1}{m-1}\sum (\hat Q_l - \bar Q)^2, \quad T = \bar U + (1 + 1/m) B.

The relative increase in variance is :math:`r = (1+1/m)B/\bar U`, the
proportion of the variance due to the missing data :math:`\lambda = (1+1/m)B/T`.
Degrees of freedom (Barnard & Rubin 1999, eq. 3): with Rubin's
:math:`\nu_{old} = (m-1)/\lambda^2` and the observed-data
:math:`\nu_{obs} = \frac{\nu_{com}+1}{\nu_{com}+3}\nu_{com}(1-\lambda)`
for a complete-data :math:`\nu_{com}`,
:math:`\nu = \nu_{old}\nu_{obs}/(\nu_{old}+\nu_{obs})`; the fraction of
missing information is :math:`\gamma = (r + 2/(\nu + 3))/(r + 1)` (as mice's
``pool.scalar``). The interval is :math:`\bar Q \pm t_{\nu} \sqrt T`.

Multivariate tests of :math:`Q = 0` for a :math:`p`-vector:

* **D1** (Li, Raghunathan & Rubin 1991): :math:`r_1 = (1+1/m)\,
  \mathrm{tr}(B\bar U^{-1})/p`, :math:`D_1 = \bar Q^\top \bar U^{-1}\bar Q /
  (p(1+r_1))` against :math:`F(p, \nu_1)` with :math:`t = p(m-1)`,
  :math:`\nu_1 = 4 + (t-4)(1 + (1-2/t)/r_1)^2` when :math:`t > 4`, else
  :math:`t(1+1/p)(1+1/r_1)^2/2`.
* **D2** (Li, Meng, Raghunathan & Rubin 1991): from the :math:`m`
  chi-square statistics :math:`d_l` with :math:`p` degrees of freedom,
  :math:`r_2 = (1+1/m)\,\mathrm{var}(\sqrt{d_l})`,
  :math:`D_2 = (\bar d/p - (m+1)/(m-1)\, r_2)/(1 + r_2)` against
  :math:`F(p, p^{-3/m}(m-1)(1 + 1/r_2)^2)`.

References
----------
Rubin, D. B. (1987). Multiple Imputation for Nonresponse in Surveys. Wiley.
Barnard, J., Rubin, D. B. (1999). Small-sample degrees of freedom with
multiple imputation. Biometrika 86, 948-955.
Li, K. H., Raghunathan, T. E., Rubin, D. B. (1991). Large-sample
significance levels from multiply imputed data using moment-based
statistics and an F reference distribution. JASA 86, 1065-1073.
Li, K. H., Meng, X. L., Raghunathan, T. E., Rubin, D. B. (1991).
Significance levels from repeated p-values with multiply-imputed data.
Statistica Sinica 1, 65-92.
Marshall, A., Altman, D. G., Holder, R. L., Royston, P. (2009). Combining
estimates of interest in prognostic modelling studies after multiple
imputation: current practice and guidelines. BMC Medical Research
Methodology 9, 57.
"""

from __future__ import annotations

import numpy as np

from ..distributions import chi2_sf, f_sf, t_quantile

__all__ = ["d1_test", "d2_test", "rubin", "rubin_present"]


def rubin(estimates: np.ndarray, within: np.ndarray, complete_df: np.ndarray | float = np.inf,
          level: float = 0.95) -> dict[str, np.ndarray]:
    r"""Rubin's rules for many scalars at once.

    Parameters
    ----------
    estimates, within : ndarray, shape (m, problems)
        Each imputation's estimate and its variance (on the pooling scale).
    complete_df : float or ndarray, shape (problems,)
        The complete-data degrees of freedom :math:`\nu_{com}` (``inf``:
        Rubin's 1987 degrees of freedom).
    level : float

    Returns
    -------
    dict of ndarray, shape (problems,)
        ``m``, ``estimate`` (:math:`\bar Q`), ``within`` (:math:`\bar U`),
        ``between`` (:math:`B`), ``total`` (:math:`T`), ``riv``
        (:math:`r`), ``lambda_``, ``df`` (Barnard-Rubin), ``fmi``,
        ``lower``, ``upper``.
    """
    q = np.asarray(estimates, dtype=np.float64)
    u = np.asarray(within, dtype=np.float64)
    m = q.shape[0]
    qbar, ubar = q.mean(axis=0), u.mean(axis=0)
    between = q.var(axis=0, ddof=1) if m > 1 else np.full(qbar.shape, np.nan)
    inflated = (1.0 + 1.0 / m) * between
    total = ubar + inflated
    nu_com = np.broadcast_to(np.asarray(complete_df, dtype=np.float64), qbar.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        riv = inflated / ubar
        lam = inflated / total
        df_old = np.where(lam > 0, (m - 1) / lam ** 2, np.inf)
        df_obs = np.where(np.isfinite(nu_com), (nu_com + 1.0) / (nu_com + 3.0) * nu_com * (1.0 - lam), np.inf)
        df = np.where(np.isinf(df_old), df_obs, np.where(np.isinf(df_obs), df_old, df_old * df_obs / (df_old + df_obs)))
        fmi = (riv + 2.0 / (df + 3.0)) / (riv + 1.0)
        half = t_quantile(0.5 + level / 2, df) * np.sqrt(total)
    return {"m": np.full(qbar.shape, m), "estimate": qbar, "within": ubar, "between": between, "total": total,
            "riv": riv, "lambda_": lam, "df": df, "fmi": fmi, "lower": qbar - half, "upper": qbar + half}


def d1_test(estimates: np.ndarray, within: np.ndarray) -> dict[str, float]:
    r"""The pooled Wald test D1 of :math:`Q = 0` (Li, Raghunathan & Rubin 1991).

    Parameters
    ----------
    estimates : ndarray, shape (m, p)
        Each imputation's estimate vector.
    within : ndarray, shape (m, p, p)
        Each imputation's covariance matrix.

    Returns
    -------
    dict
        ``statistic``, ``df1`` (p), ``df2`` (:math:`\nu_1`), ``p_value``, ``riv`` (:math:`r_1`).
    """
    q = np.asarray(estimates, dtype=np.float64)
    u = np.asarray(within, dtype=np.float64)
    m, p = q.shape
    qbar, ubar = q.mean(axis=0), u.mean(axis=0)
    centred = q - qbar
    between = centred.T @ centred / (m - 1)
    inverse = np.linalg.inv(ubar)
    r1 = (1.0 + 1.0 / m) * np.trace(between @ inverse) / p
    statistic = float(qbar @ inverse @ qbar) / (p * (1.0 + r1))
    t = p * (m - 1)
    with np.errstate(divide="ignore"):
        df2 = (4.0 + (t - 4.0) * (1.0 + (1.0 - 2.0 / t) / r1) ** 2 if t > 4
               else t * (1.0 + 1.0 / p) * (1.0 + 1.0 / r1) ** 2 / 2.0)
    return {"statistic": statistic, "df1": float(p), "df2": float(df2),
            "p_value": _f_p_value(statistic, p, df2), "riv": float(r1)}


def d2_test(statistics: np.ndarray, df: float) -> dict[str, float]:
    r"""The pooled chi-square test D2 (Li, Meng, Raghunathan & Rubin 1991) from each imputation's statistic.

    Parameters
    ----------
    statistics : ndarray, shape (m,)
        Each imputation's chi-square statistic.
    df : float
        Their degrees of freedom :math:`p`.

    Returns
    -------
    dict
        ``statistic`` (:math:`D_2`; negative when the statistics vary more
        than their mean, as mitml and miceadds report it, with a p-value of
        1), ``df1`` (p), ``df2``, ``p_value``, ``riv`` (:math:`r_2`).
    """
    d = np.asarray(statistics, dtype=np.float64)
    m = d.size
    r2 = (1.0 + 1.0 / m) * np.var(np.sqrt(np.maximum(d, 0.0)), ddof=1)
    statistic = (d.mean() / df - (m + 1.0) / (m - 1.0) * r2) / (1.0 + r2)
    with np.errstate(divide="ignore"):
        df2 = df ** (-3.0 / m) * (m - 1.0) * (1.0 + 1.0 / r2) ** 2
    statistic = float(statistic)
    return {"statistic": statistic, "df1": float(df), "df2": float(df2),
            "p_value": _f_p_value(statistic, df, df2), "riv": float(r2)}


def _f_p_value(statistic: float, df1: float, df2: float) -> float:
    """Upper tail of F(df1, df2); its limit chi-square(df1)/df1 when the imputations agree exactly (df2 infinite)."""
    if np.isinf(df2):
        return float(chi2_sf(statistic * df1, df1))
    return float(f_sf(statistic, df1, df2))


def rubin_present(theta: np.ndarray, within: np.ndarray, present: np.ndarray, complete_df: np.ndarray,
                   level: float) -> dict:
    """Rubin's rules per column over the imputations present in it (a group absent from some is pooled over the rest)."""
    m_present = present.sum(axis=0)
    out = {name: np.full(theta.shape[1], np.nan) for name in
           ("estimate", "within", "between", "total", "riv", "lambda_", "df", "fmi", "lower", "upper")}
    out["m"] = m_present
    for m in np.unique(m_present[m_present >= 1]).tolist():  # one vectorised pass per number of imputations
        columns = np.flatnonzero(m_present == m)
        order = np.argsort(~present[:, columns], axis=0, kind="stable")[:m]  # the present rows first
        pick = lambda a: np.take_along_axis(a[:, columns], order, axis=0)  # noqa: E731
        pooled = rubin(pick(theta), pick(within), complete_df[columns], level)
        for name in out:
            if name != "m":
                out[name][columns] = pooled[name]
    return out

