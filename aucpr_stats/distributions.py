"""The probability functions of the package, loaded from scipy when first called.

``import scipy.special`` costs about 0.1 s and ``import scipy.stats`` about
0.5 s (only the Poisson distribution function comes from it), while ``import aucpr_stats`` must stay within 0.3 s (every CLI call
pays it). So the intervals, tests and estimators call these thin wrappers,
and scipy is imported the first time one of them runs (an import statement
inside a function holds Python's import lock, so the first calls may come
from several threads at once). After that, a call costs one dictionary
lookup more than calling scipy directly.

Every function takes and returns what its scipy counterpart does, arrays or
scalars, with the same broadcasting; the chi-square, F and t functions are the
special functions that ``scipy.stats`` evaluates inside its support, so the
callers keep their arguments in it (degrees of freedom >= 1, statistics >= 0).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "normal_cdf",
    "normal_quantile",
    "chi2_quantile",
    "expit",
    "logit",
    "within_unit_interval",
    "digamma",
    "beta_quantile",
    "beta_sf",
    "beta_isf",
    "log_beta",
    "chi2_sf",
    "f_sf",
    "t_quantile",
    "t_sf",
    "poisson_cdf",
]


def normal_cdf(x):
    """Standard normal distribution function Φ(x) (``scipy.special.ndtr``)."""
    from scipy.special import ndtr  # a lazy load: scipy.special costs about 0.1 s of import time

    return ndtr(x)


def normal_quantile(p):
    """Standard normal quantile Φ⁻¹(p) (``scipy.special.ndtri``)."""
    from scipy.special import ndtri  # a lazy load: scipy.special costs about 0.1 s of import time

    return ndtri(p)


def expit(x):
    """The logistic function 1 / (1 + exp(-x)) (``scipy.special.expit``)."""
    from scipy.special import expit as _expit  # a lazy load: scipy.special costs about 0.1 s of import time

    return _expit(x)


def logit(p):
    """log(p / (1 - p)) (``scipy.special.logit``)."""
    from scipy.special import logit as _logit  # a lazy load: scipy.special costs about 0.1 s of import time

    return _logit(p)


def digamma(x):
    """The digamma function ψ(x) (``scipy.special.digamma``)."""
    from scipy.special import digamma as _digamma  # a lazy load: scipy.special costs about 0.1 s of import time

    return _digamma(x)


def beta_quantile(a, b, p):
    """Quantile of the Beta(a, b) distribution (``scipy.special.betaincinv``)."""
    from scipy.special import betaincinv  # a lazy load: scipy.special costs about 0.1 s of import time

    return betaincinv(a, b, p)


def beta_sf(a, b, x):
    """Upper tail of the Beta(a, b) distribution at ``x`` (``scipy.special.betaincc``)."""
    from scipy.special import betaincc  # a lazy load: scipy.special costs about 0.1 s of import time

    return betaincc(a, b, x)


def beta_isf(a, b, p):
    """The ``x`` whose Beta(a, b) upper tail is ``p`` (``scipy.special.betainccinv``)."""
    from scipy.special import betainccinv  # a lazy load: scipy.special costs about 0.1 s of import time

    return betainccinv(a, b, p)


def log_beta(a, b):
    """log B(a, b) (``scipy.special.betaln``)."""
    from scipy.special import betaln  # a lazy load: scipy.special costs about 0.1 s of import time

    return betaln(a, b)


def chi2_sf(x, df):
    """Upper tail of the chi-square distribution with ``df`` degrees of freedom."""
    from scipy.special import chdtrc  # a lazy load: scipy.special costs about 0.1 s of import time

    return chdtrc(df, np.maximum(x, 0.0))  # scipy.stats gives 1 below the support; so does the tail at 0


def f_sf(x, df1, df2):
    """Upper tail of the F distribution with (``df1``, ``df2``) degrees of freedom."""
    from scipy.special import fdtrc  # a lazy load: scipy.special costs about 0.1 s of import time

    return fdtrc(df1, df2, np.maximum(x, 0.0))


def t_quantile(p, df):
    """Quantile of Student's t distribution with ``df`` degrees of freedom."""
    from scipy.special import stdtrit  # a lazy load: scipy.special costs about 0.1 s of import time

    return stdtrit(df, p)


def t_sf(x, df):
    """Upper tail of Student's t distribution with ``df`` degrees of freedom (``df`` may be fractional)."""
    from scipy.special import stdtr  # a lazy load: scipy.special costs about 0.1 s of import time

    return stdtr(df, -np.asarray(x, dtype=np.float64))


def poisson_cdf(k, mu):
    """Distribution function of the Poisson distribution with mean ``mu`` at ``k``."""
    from scipy.stats import poisson  # a lazy load: scipy.stats costs about 0.5 s of import time

    return poisson.cdf(k, mu)


def chi2_quantile(p, df):
    """Quantile of the chi-square distribution with ``df`` degrees of freedom."""
    from scipy.special import chdtri  # a lazy load: scipy.special costs about 0.1 s of import time

    return chdtri(df, 1.0 - np.asarray(p, dtype=np.float64))


def within_unit_interval(values, estimator):
    """An area's values kept in [0, 1]: weighted (float) counts can round a perfect area to 1 + 2e-16.

    Only the areas (an ``estimator`` whose ``metric`` is "aucpr" or "auroc");
    other statistics (a calibration slope) are returned as they are. NaN
    stays NaN.
    """
    if getattr(estimator, "metric", None) not in ("aucpr", "auroc"):
        return values
    return np.clip(values, 0.0, 1.0)
