"""The three simulation scenarios of Boyd, Eng & Page (2013), section 4, with their truth.

Each scenario is a pair of continuous score distributions: ``X`` for the
negatives and ``Y`` for the positives. Because both distributions are known,
so is the true precision-recall curve and the true area under it (Eq. 2),
which is what makes the bias and coverage studies of :mod:`.studies` possible.

The true curve is parametrised by recall. At threshold ``c`` the recall is
``r = P(Y > c)``, so ``c = S_Y^{-1}(r)`` and the false positive rate at that
recall is ``s(r) = S_X(S_Y^{-1}(r))`` (the ROC curve read sideways). Bayes'
rule then gives the precision (Boyd et al., section 2):

.. math:: Prec(r) = \\frac{\\pi r}{\\pi r + (1 - \\pi) s(r)},

and Eq. (2) becomes an integral over recall, because ``dP(Y <= c) = -dr``:

.. math:: \\theta = \\int_0^1 Prec(r)\\,dr.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import attrs
import numpy as np
import polars as pl

from .._validate import integer_iv, probability_iv, seed_iv
from ..distributions import beta_isf, beta_sf, log_beta, normal_cdf, normal_quantile
from ..estimators.tie_blocks import crossing_precision
from ..exceptions import InputError
from ..resample import check_allocation

__all__ = [
    "Scenario",
    "Binormal",
    "Bibeta",
    "OffsetUniform",
    "Discretized",
    "SCENARIOS",
    "class_counts",
]

#: Tolerances handed to :func:`scipy.integrate.quad`: far below the 1e-8 target.
_QUAD_OPTIONS = {"epsabs": 1e-13, "epsrel": 1e-12, "limit": 500}


def class_counts(n_total: int, prevalence: float) -> tuple[int, int]:
    """Fixed numbers of positives and negatives for a simulated data set.

    Boyd et al. (section 4.1) fix the class counts rather than drawing them:
    "at n + m = 100 there are n = 10 values of Y" for pi = 0.1. We use
    ``n_pos = floor(prevalence * n_total + 1/2)`` (round half up), so the
    skew of every simulated data set is as close to ``prevalence`` as the
    integers allow, and ``n_neg = n_total - n_pos``.

    Raises
    ------
    InputError
        When the rounding leaves a class empty (e.g. ``n_total=5``,
        ``prevalence=0.05``): no AUCPR is defined without both classes.
    """
    n_total = integer_iv(n_total, "n_total", 2)
    prevalence = probability_iv(prevalence, "prevalence")
    n_pos = int(math.floor(prevalence * n_total + 0.5))
    n_neg = n_total - n_pos
    if n_pos < 1 or n_neg < 1:
        raise InputError(
            f"`n_total`={n_total} with `prevalence`={prevalence} gives {n_pos} positives and {n_neg} negatives; "
            "both classes need at least one example"
        )
    return n_pos, n_neg


@attrs.frozen
class Scenario:
    """A pair of continuous score distributions with a known PR curve (base class).

    Subclasses define the negative and positive survival functions
    ``sf_neg(c) = P(X > c)`` and ``sf_pos(c) = P(Y > c)``, the inverse
    ``isf_pos(r)`` (the threshold with recall ``r``), the densities, and a
    vectorised sampler. Everything else (true curve, true area, frames) is
    written once here.
    """

    name: ClassVar[str] = "scenario"

    @property
    def label(self) -> str:
        """The name shown in study tables (with the parameters that differ from Boyd et al.'s)."""
        return self.name
    #: Recall values where the true curve has a kink (split points for quadrature).
    _kinks: ClassVar[tuple[float, ...]] = ()

    # ----------------------------------------------------- distributions
    def sf_neg(self, c: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def sf_pos(self, c: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def isf_pos(self, r: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def pdf_pos(self, c: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def support_pos(self) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def draw(self, rng: np.random.Generator, size, positive: bool) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------ truth
    def fpr_at_recall(self, recall) -> np.ndarray:
        """True false positive rate ``s(r) = P(X > c)`` at the threshold ``c`` with ``P(Y > c) = r``.

        This is the true ROC curve read from the recall (true positive rate)
        axis. ``recall = 0`` gives 0 (threshold at the top of the support).
        """
        r = np.asarray(recall, dtype=np.float64)
        if np.any((r < 0) | (r > 1)) or np.any(np.isnan(r)):
            raise InputError("`recall` must lie in [0, 1]")
        out = np.zeros(r.shape)
        inside = r > 0
        out[inside] = self.sf_neg(self.isf_pos(r[inside]))
        return out

    def precision_at_recall(self, recall, prevalence: float) -> np.ndarray:
        """True precision at any recall, Boyd et al. section 2 (Bayes' rule).

        .. math:: Prec(r) = \\frac{\\pi r}{\\pi r + (1 - \\pi) s(r)}

        Parameters
        ----------
        recall : array_like of float in [0, 1]
        prevalence : float in (0, 1)
            The skew ``pi = P(D = 1)``.

        Returns
        -------
        ndarray of float64, same shape as ``recall``
            At ``recall = 0`` the limit, 1: in all three scenarios the
            positives dominate the upper tail (``s(r) / r -> 0``).
        """
        prevalence = probability_iv(prevalence, "prevalence")
        r = np.asarray(recall, dtype=np.float64)
        s = self.fpr_at_recall(r)
        out = np.ones(r.shape)
        inside = r > 0
        pr = prevalence * r[inside]
        out[inside] = pr / (pr + (1.0 - prevalence) * s[inside])
        return out

    def true_pr_curve(self, prevalence: float, n_points: int = 201) -> pl.DataFrame:
        """The true PR curve on an even recall grid, as a polars frame (recall, precision)."""
        n_points = integer_iv(n_points, "n_points", 2)
        recall = np.linspace(0.0, 1.0, n_points)
        return pl.DataFrame({"recall": recall, "precision": self.precision_at_recall(recall, prevalence)})

    def true_aucpr(self, prevalence: float) -> float:
        """True AUCPR: Eq. (2) of Boyd et al. integrated numerically.

        .. math:: \\theta = \\int Prec(c)\\, dP(Y \\le c) = \\int_0^1 Prec(r)\\, dr

        Adaptive Gauss-Kronrod quadrature (:func:`scipy.integrate.quad`) over
        recall with absolute tolerance 1e-13, split at the curve's kinks; the
        integrand is bounded in [pi, 1], so the result is accurate well within
        1e-8.

        Examples
        --------
        >>> from aucpr_stats.simulate import SCENARIOS
        >>> round(SCENARIOS["binormal"].true_aucpr(0.1), 4)
        0.2928
        """
        prevalence = probability_iv(prevalence, "prevalence")

        from scipy import integrate  # a lazy load: scipy.integrate costs about 0.3 s of import time

        def integrand(r: float) -> float:
            return float(self.precision_at_recall(np.array([r]), prevalence)[0])

        edges = [0.0, *[k for k in self._kinks if 0.0 < k < 1.0], 1.0]
        total, error = 0.0, 0.0
        for lo, hi in zip(edges[:-1], edges[1:]):
            # at these tight tolerances QUADPACK may report "roundoff detected"
            # although its error estimate is tiny: judge by the estimate instead
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", integrate.IntegrationWarning)
                value, abserr = integrate.quad(integrand, lo, hi, **_QUAD_OPTIONS)
            total += value
            error += abserr
        if not error <= 1e-9:
            warnings.warn(
                f"true AUCPR of {self!r} at prevalence {prevalence} has an estimated quadrature error of "
                f"{error:.1e}, above the 1e-9 target",
                RuntimeWarning,
                stacklevel=2,
            )
        return total

    # ---------------------------------------------------------- sampling
    def sample_arrays(self, n_sims: int, n_pos: int, n_neg: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Scores of many simulated data sets at once.

        Parameters
        ----------
        n_sims, n_pos, n_neg : int
            Number of data sets, positives per data set, negatives per data set.
        rng : numpy Generator, int or None

        Returns
        -------
        (pos, neg) : ndarrays of float64, shapes (n_sims, n_pos) and (n_sims, n_neg)
            Positive scores drawn from ``Y`` and negative scores from ``X``.
        """
        n_sims = integer_iv(n_sims, "n_sims", 1)
        n_pos = integer_iv(n_pos, "n_pos", 0)
        n_neg = integer_iv(n_neg, "n_neg", 0)
        check_allocation(n_sims * (n_pos + n_neg), f"{n_sims:,} simulated data sets of {n_pos + n_neg:,} scores",
                         advice="lower `n_sims` or the sizes, or draw the data sets in blocks")
        rng = np.random.default_rng(seed_iv(rng))
        pos = self.draw(rng, (n_sims, n_pos), positive=True)
        neg = self.draw(rng, (n_sims, n_neg), positive=False)
        return pos, neg

    def sample(self, n_total: int, prevalence: float, seed: Any = None) -> pl.DataFrame:
        """One simulated data set as a polars frame with columns ``outcome`` (0/1) and ``score``.

        The class counts are fixed, as in Boyd et al.: ``n_pos`` is
        ``prevalence * n_total`` rounded half up (see :func:`class_counts`).
        Rows are in random order.

        Examples
        --------
        >>> from aucpr_stats.simulate import SCENARIOS
        >>> df = SCENARIOS["bibeta"].sample(100, 0.1, seed=1)
        >>> df.shape, int(df["outcome"].sum())
        ((100, 2), 10)
        """
        n_pos, n_neg = class_counts(n_total, prevalence)
        rng = np.random.default_rng(seed_iv(seed))
        pos, neg = self.sample_arrays(1, n_pos, n_neg, rng)
        score = np.concatenate([pos[0], neg[0]])
        outcome = np.concatenate([np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)])
        order = rng.permutation(n_pos + n_neg)
        return pl.DataFrame({"outcome": outcome[order], "score": score[order]})


@attrs.frozen
class Binormal(Scenario):
    """Negatives ``N(0, 1)``, positives ``N(mu, 1)``; Boyd et al. use ``mu = 1``."""

    mu: float = attrs.field(default=1.0, converter=float)
    name: ClassVar[str] = "binormal"

    @property
    def label(self) -> str:
        return self.name if self.mu == 1.0 else f"{self.name}, mu={self.mu:g}"

    @mu.validator
    def _check(self, attribute, value):
        if not (np.isfinite(value) and value > 0):
            raise InputError(f"`mu` must be a positive finite number; got {value!r}")

    def sf_neg(self, c):
        return normal_cdf(-np.asarray(c))

    def sf_pos(self, c):
        return normal_cdf(self.mu - np.asarray(c))

    def isf_pos(self, r):
        # P(Y > c) = r  <=>  c = mu - Phi^{-1}(r)
        return self.mu - normal_quantile(np.asarray(r))

    def pdf_pos(self, c):
        z = np.asarray(c) - self.mu
        return np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)

    def support_pos(self):
        return (-np.inf, np.inf)

    def draw(self, rng, size, positive):
        return rng.normal(self.mu if positive else 0.0, 1.0, size=size)


@attrs.frozen
class Bibeta(Scenario):
    """Negatives ``Beta(a, b)``, positives ``Beta(b, a)``, ``0 < a < b``; Boyd et al. use a=2, b=5."""

    a: float = attrs.field(default=2.0, converter=float)
    b: float = attrs.field(default=5.0, converter=float)
    name: ClassVar[str] = "bibeta"

    def __attrs_post_init__(self):
        if not (np.isfinite(self.a) and np.isfinite(self.b) and 0 < self.a < self.b):
            raise InputError(f"`a` and `b` must satisfy 0 < a < b; got a={self.a!r}, b={self.b!r}")

    def sf_neg(self, c):
        return beta_sf(self.a, self.b, np.clip(c, 0.0, 1.0))

    def sf_pos(self, c):
        return beta_sf(self.b, self.a, np.clip(c, 0.0, 1.0))

    def isf_pos(self, r):
        return beta_isf(self.b, self.a, np.asarray(r))

    def pdf_pos(self, c):
        c = np.asarray(c, dtype=np.float64)
        log_b = log_beta(self.b, self.a)
        with np.errstate(divide="ignore"):
            return np.exp((self.b - 1) * np.log(c) + (self.a - 1) * np.log1p(-c) - log_b)

    def support_pos(self):
        return (0.0, 1.0)

    def draw(self, rng, size, positive):
        return rng.beta(self.b, self.a, size=size) if positive else rng.beta(self.a, self.b, size=size)


@attrs.frozen
class OffsetUniform(Scenario):
    """Negatives ``U(0, 1)``, positives ``U(gamma, 1 + gamma)``, ``gamma > 0``; Boyd et al. use 0.5.

    The true curve is closed-form: ``s(r) = min(max(r - gamma, 0), 1)``, so
    precision is exactly 1 up to recall ``gamma`` and has a kink there.
    """

    gamma: float = attrs.field(default=0.5, converter=float)
    name: ClassVar[str] = "offset_uniform"

    @gamma.validator
    def _check(self, attribute, value):
        if not (np.isfinite(value) and value > 0):
            raise InputError(f"`gamma` must be a positive finite number; got {value!r}")

    @property
    def _kinks(self):  # type: ignore[override]
        return (self.gamma,)

    def sf_neg(self, c):
        return np.clip(1.0 - np.asarray(c, dtype=np.float64), 0.0, 1.0)

    def sf_pos(self, c):
        return np.clip(1.0 + self.gamma - np.asarray(c, dtype=np.float64), 0.0, 1.0)

    def isf_pos(self, r):
        return 1.0 + self.gamma - np.asarray(r, dtype=np.float64)

    def pdf_pos(self, c):
        c = np.asarray(c, dtype=np.float64)
        return ((c >= self.gamma) & (c <= 1.0 + self.gamma)).astype(np.float64)

    def support_pos(self):
        return (self.gamma, 1.0 + self.gamma)

    def draw(self, rng, size, positive):
        return rng.uniform(self.gamma, 1.0 + self.gamma, size=size) if positive else rng.uniform(0.0, 1.0, size=size)


#: The three scenarios of Boyd et al. (2013) with the paper's parameters.
SCENARIOS: dict[str, Scenario] = {
    "binormal": Binormal(),
    "bibeta": Bibeta(),
    "offset_uniform": OffsetUniform(),
}


@attrs.frozen
class Discretized(Scenario):
    """An ordinal score: a continuous scenario cut into ``levels`` ordered categories.

    The cut points are the ``i / levels`` quantiles of the equal mixture of
    the two classes, so every level holds both classes (ties across classes
    in every data set). Its true PR curve is the population one of a random
    order within each level: the straight ROC segment between the population
    points at consecutive levels, seen in PR space (the Davis-Goadrich
    interpolation), and the true area is the sum of those crossings
    (:func:`~aucpr_stats.estimators.tie_blocks.crossing_precision` with
    population rates in place of counts).
    """

    base: Scenario = attrs.field(validator=attrs.validators.instance_of(Scenario))
    levels: int = attrs.field(default=5)
    name: ClassVar[str] = "discretized"

    @levels.validator
    def _check(self, attribute, value):
        if not isinstance(value, (int, np.integer)) or value < 2:
            raise InputError(f"`levels` must be an integer >= 2; got {value!r}")

    @property
    def label(self) -> str:
        return f"{self.base.label}, {self.levels} levels"

    def cuts(self) -> np.ndarray:
        """Ascending cut points: quantiles ``1/levels, ..., (levels-1)/levels`` of the 50:50 mixture."""
        from scipy import optimize  # a lazy load: scipy.optimize costs import time every call would pay

        lo, hi = -1e3, 1e3

        def mixture_cdf(c: float) -> float:
            return 1.0 - 0.5 * float(self.base.sf_neg(np.array([c]))[0] + self.base.sf_pos(np.array([c]))[0])

        return np.array([optimize.brentq(lambda c: mixture_cdf(c) - i / self.levels, lo, hi, xtol=1e-14)
                         for i in range(1, self.levels)])

    def _points(self) -> tuple[np.ndarray, np.ndarray]:
        """Population (tpr, fpr) at thresholds "level >= l", from the top level down, with (0, 0) and (1, 1)."""
        cuts = self.cuts()[::-1]
        tpr = np.concatenate([[0.0], self.base.sf_pos(cuts), [1.0]])
        fpr = np.concatenate([[0.0], self.base.sf_neg(cuts), [1.0]])
        return tpr, fpr

    def sf_neg(self, c):
        """``P(level > c)``: a step function of ``c``."""
        return np.interp(np.floor(np.asarray(c, float)), np.arange(-1, self.levels), self._points()[1][::-1])

    def sf_pos(self, c):
        return np.interp(np.floor(np.asarray(c, float)), np.arange(-1, self.levels), self._points()[0][::-1])

    def draw(self, rng, size, positive):
        return np.searchsorted(self.cuts(), self.base.draw(rng, size, positive)).astype(np.float64)

    def precision_at_recall(self, recall, prevalence: float) -> np.ndarray:
        """True precision along the straight ROC segments between levels (recall 0: the top level's)."""
        prevalence = probability_iv(prevalence, "prevalence")
        r = np.asarray(recall, dtype=np.float64)
        tpr, fpr = self._points()
        hi = np.clip(np.searchsorted(tpr, r, side="left"), 1, tpr.size - 1)
        lo = hi - 1
        t = (r - tpr[lo]) / (tpr[hi] - tpr[lo])
        false_rate = fpr[lo] + t * (fpr[hi] - fpr[lo])
        with np.errstate(invalid="ignore", divide="ignore"):
            out = prevalence * r / (prevalence * r + (1 - prevalence) * false_rate)
            top = prevalence * tpr[1] / (prevalence * tpr[1] + (1 - prevalence) * fpr[1])
        return np.where(r == 0, top, out)

    def true_aucpr(self, prevalence: float) -> float:
        """Sum over levels of the area of the Davis-Goadrich crossing of each level (exact)."""
        prevalence = probability_iv(prevalence, "prevalence")
        tpr, fpr = self._points()
        gained = np.diff(tpr)
        mean_precision = crossing_precision(prevalence * tpr[:-1], (1 - prevalence) * fpr[:-1],
                                            prevalence * gained, (1 - prevalence) * np.diff(fpr))
        return float(np.sum(gained * mean_precision))
