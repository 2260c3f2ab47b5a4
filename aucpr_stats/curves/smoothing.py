"""The pieces of the Clémençon & Vayatis (2009) bands that are not random: smoothing, weights, Eq. (9).

* Gaussian kernel smoothing of each class (Remark 4): Silverman's bandwidth
  (:func:`default_bandwidth`) and the smoothed cdf, tabulated once per group
  (:func:`smoothed_cdf_table`);
* importance sampling of the class proportion (Remark 5): the instrumental
  proportion that maximises the expected effective sample size
  (:func:`default_p_tilde`) and weighted quantiles (:func:`weighted_quantile`);
* the pointwise asymptotic variance of Remark 3, Eq. (9), corrected
  (:func:`pointwise_variance`), with kernel density estimates (:func:`kde`).
"""

from __future__ import annotations

import math

import attrs
import numpy as np

from ..distributions import normal_cdf
from ..ties import TieTable

__all__ = [
    "ClassSample",
    "class_samples",
    "robust_scale",
    "default_bandwidth",
    "CdfTable",
    "smoothed_cdf_table",
    "default_p_tilde",
    "weighted_quantile",
    "kde",
    "pointwise_variance",
    "merged",
]


# ------------------------------------------------------------- class tables
@attrs.frozen(eq=False)
class ClassSample:
    """Distinct scores of one class in ascending order, with their counts."""

    values: np.ndarray
    counts: np.ndarray

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def cum(self) -> np.ndarray:
        return np.cumsum(self.counts)



def class_samples(ties: TieTable, k: int) -> tuple[ClassSample, ClassSample]:
    """Positive and negative scores of segment ``k``, ascending, with counts."""
    lo, hi = ties.offsets[k], ties.offsets[k + 1]
    score = ties.score[lo:hi][::-1]
    pos = ties.pos[lo:hi][::-1]
    neg = ties.neg[lo:hi][::-1]
    return ClassSample(score[pos > 0], pos[pos > 0]), ClassSample(score[neg > 0], neg[neg > 0])



# -------------------------------------------------------------- bandwidth
def robust_scale(sample: ClassSample) -> float:
    """``min(sd, IQR / 1.349)`` of a weighted sample; the other when one is 0; 0 when both are."""
    n = sample.n
    if n < 2:
        return 0.0
    v, c = sample.values, sample.counts
    # on values divided by the largest magnitude: no overflow for finite scores near the float limit
    # (the scale itself is then inf when the spread is not representable, and the caller refuses it)
    size = float(np.max(np.abs(v)))
    if size == 0.0:
        return 0.0
    w = v / size
    mean = float(np.dot(w, c)) / n
    with np.errstate(over="ignore"):
        sd = math.sqrt(max(float(np.dot((w - mean) ** 2, c)) / (n - 1), 0.0)) * size
        cum = np.cumsum(c)
        q1 = w[np.searchsorted(cum, 0.25 * n, side="left")]
        q3 = w[np.searchsorted(cum, 0.75 * n, side="left")]
        iqr = float(q3 - q1) / 1.349 * size
    positive = [s for s in (sd, iqr) if s > 0]
    return min(positive) if positive else 0.0



def default_bandwidth(sample: ClassSample, pooled_scale: float = 0.0) -> float:
    r"""Silverman's rule of thumb for one class: :math:`h = 0.9\,\min(s, \mathrm{IQR}/1.349)\,n^{-1/5}`.

    Remark 5 asks for :math:`h_n \sim n^{-1/5}` with a Gaussian kernel; the
    constant 0.9 and the robust scale (the smaller of the standard deviation
    and the interquartile range over 1.349) are Silverman's (1986, Eq. 3.31),
    which does not oversmooth skewed or bimodal scores. When the class has no
    spread (a single row, or all scores tied) the group's pooled scale is
    used; when that is 0 too, no smoothing (``h = 0``).
    """
    n = max(sample.n, 1)
    scale = robust_scale(sample) or pooled_scale
    return 0.9 * scale * n ** (-0.2)



# --------------------------------------------------- smoothed cdf tabulation
@attrs.frozen(eq=False)
class CdfTable:
    """A cdf tabulated at increasing nodes, evaluated and inverted by linear interpolation."""

    nodes: np.ndarray
    cdf: np.ndarray

    def __call__(self, t: np.ndarray) -> np.ndarray:
        return np.interp(t, self.nodes, self.cdf)

    def inverse(self, u: np.ndarray) -> np.ndarray:
        return np.interp(u, self.cdf, self.nodes)



def smoothed_cdf_table(values: np.ndarray, counts: np.ndarray, h: float, *,
                       nodes_per_h: int = 32, max_nodes: int = 1 << 20) -> CdfTable:
    r"""Tabulate the Gaussian-smoothed empirical cdf :math:`\tilde F(t) = \frac1N\sum_j c_j \Phi((t - v_j)/h)`.

    The masses are linearly binned onto a regular grid of spacing
    :math:`\Delta = h/32` spanning the data :math:`\pm 8h`, and

    .. math:: \tilde F(g_i) = \frac1N\Big[\sum_{k\le i} w_k + \sum_k w_k D\big((i-k)\Delta/h\big)\Big],
              \qquad D(x) = \Phi(x) - \mathbb 1\{x \ge 0\},

    where :math:`D` decays on both sides, so the second sum is a short
    convolution (truncated at :math:`|x| \le 8`). Linear binning and linear
    interpolation each err by at most :math:`\Delta^2 \max|\Phi''| / (8h^2)
    \approx 3\cdot10^{-5}`. If the data span more than ``max_nodes`` grid
    steps, the spacing grows (the error bound with it).
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(counts, dtype=np.float64)
    total = weights.sum()
    lo = float(values[0]) - 8.0 * h
    hi = float(values[-1]) + 8.0 * h
    delta = h / nodes_per_h
    with np.errstate(over="ignore"):
        steps = (hi - lo) / delta  # inf when a few far values dwarf the bandwidth: capped below
    n_nodes = int(math.ceil(steps)) + 1 if steps < max_nodes else max_nodes + 1
    if n_nodes > max_nodes:
        n_nodes = max_nodes
        delta = (hi - lo) / (n_nodes - 1)
    nodes = lo + delta * np.arange(n_nodes)
    # linear binning: each mass split between its two neighbouring nodes
    position = (values - lo) / delta
    left = np.clip(np.floor(position).astype(np.int64), 0, n_nodes - 2)
    frac = position - left
    binned = np.bincount(left, weights * (1.0 - frac), minlength=n_nodes)
    binned += np.bincount(left + 1, weights * frac, minlength=n_nodes)
    reach = int(math.ceil(8.0 * h / delta))
    offsets = np.arange(-reach, reach + 1)
    from scipy.signal import oaconvolve  # a lazy load: scipy.signal costs about 0.3 s of import time

    kernel = normal_cdf(offsets * delta / h) - (offsets >= 0)
    smooth = oaconvolve(binned, kernel, mode="full")[reach:reach + n_nodes]
    cdf = (np.cumsum(binned) + smooth) / total
    cdf = np.clip(np.maximum.accumulate(cdf), 0.0, 1.0)
    return CdfTable(nodes, cdf)



# --------------------------------------------------- importance sampling
def default_p_tilde(n: int, n_pos: int) -> tuple[float, float]:
    r"""Instrumental class proportion :math:`\tilde p` that maximises the expected effective sample size.

    A replicate is usable when it holds at least one positive and one
    negative (set :math:`U`). With :math:`n^*_+ \sim \mathrm{Bin}(n, \tilde p)`
    and weights :math:`\gamma_n = \pi_{\hat p}(n^*_+)/\pi_{\tilde p}(n^*_+)`
    (:math:`\pi_q` the binomial mass), the expected effective sample size per
    replicate of the usable replicates is

    .. math:: \frac{\big(\sum_{k \in U} \pi_{\hat p}(k)\big)^2}{\sum_{k\in U} \pi_{\hat p}(k)^2 / \pi_{\tilde p}(k)},

    which equals :math:`P_{\hat p}(U)` at :math:`\tilde p = \hat p` (all
    weights 1; only replicates without a positive or a negative are lost).
    Raising :math:`\tilde p` saves those replicates but spreads the weights:
    the second moment of :math:`\gamma_n` is
    :math:`(\hat p^2/\tilde p + (1-\hat p)^2/(1-\tilde p))^n \approx
    \exp(n(\tilde p-\hat p)^2/(\hat p(1-\hat p)))`, so :math:`\tilde p = 1/2`
    at :math:`n = 10^4, \hat p = 0.1` leaves an effective sample of about one
    replicate. This is Remark 5's criterion (minimise the Monte Carlo
    variance), computed exactly from the binomial law. :math:`\tilde p = \hat p`
    is returned whenever :math:`P_{\hat p}(U) > 0.999`; otherwise the search
    runs over :math:`\hat p` and 40 log-spaced values towards 1/2, and a
    value other than :math:`\hat p` must gain at least 1%.

    Returns
    -------
    (p_tilde, expected_ess_fraction)
    """
    p_hat = n_pos / n
    p_ok = 1.0 - (1.0 - p_hat) ** n - p_hat**n
    if p_ok > 0.999:
        return p_hat, p_ok
    # the binomial mass that matters lies between 1 (or n - 1) and a few sd beyond n p_hat
    if p_hat <= 0.5:
        k = np.arange(1, int(min(n - 1, n * p_hat + 40 * math.sqrt(n * p_hat) + 50)) + 1)
    else:
        k = np.arange(int(max(1, n * p_hat - 40 * math.sqrt(n * (1 - p_hat)) - 50)), n)
    from scipy.special import logsumexp  # a lazy load: scipy.special costs about 0.1 s of import time
    from scipy.stats import binom  # a lazy load: scipy.stats costs about 0.5 s of import time

    log_target = binom.logpmf(k, n, p_hat)
    log_p_ok = logsumexp(log_target)

    def ess_fraction(p: float) -> float:
        log_second = logsumexp(2 * log_target - binom.logpmf(k, n, p))
        return float(np.exp(2 * log_p_ok - log_second))

    best_p, best = p_hat, ess_fraction(p_hat)
    for p in np.exp(np.linspace(math.log(p_hat), math.log(0.5), 41)[1:]):
        value = ess_fraction(float(p))
        if value > best * 1.01:
            best_p, best = float(p), value
    return best_p, best



def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    r"""The :math:`q` quantile of the weighted empirical distribution: :math:`\inf\{x : \sum_{v\le x} w / \sum w \ge q\}`.

    With equal weights and :math:`B` values this is the
    :math:`\lceil qB\rceil`-th smallest value. Zero weights drop values.
    """
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    if values.size == 0:
        return float("nan")
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    cum /= cum[-1]
    idx = int(np.searchsorted(cum, q - 1e-12, side="left"))
    return float(values[order][min(idx, values.size - 1)])



# ------------------------------------------------------------- pointwise
def kde(sample: ClassSample, h: float, at: np.ndarray) -> np.ndarray:
    """Gaussian kernel density estimate of a weighted sample, evaluated exactly at ``at``."""
    out = np.zeros(at.shape)
    step = max(1, (1 << 22) // max(sample.values.size, 1))
    for start in range(0, at.size, step):
        z = (at[start:start + step, None] - sample.values[None, :]) / h
        out[start:start + step] = (np.exp(-0.5 * z * z) @ sample.counts) / (sample.n * h * math.sqrt(2 * math.pi))
    return out



def pointwise_variance(beta, precision, alpha, p, slope) -> np.ndarray:
    r"""Asymptotic variance :math:`\sigma^2(\beta)` of :math:`\sqrt n(\widehat{PR}(\beta) - PR(\beta))`, Remark 3.

    Derived by the delta method from Theorem 1 (ii): with
    :math:`F_\beta(u, v) = \beta u / (\beta u + (1-u) v)`,
    :math:`\partial_u F = \alpha PR^2/(\beta p^2)`,
    :math:`\partial_v F = -(1-p) PR^2/(\beta p)`, :math:`n\,\mathrm{Var}(\hat p) = p(1-p)`
    and :math:`n\,\mathrm{Var}(\hat\alpha) = \alpha(1-\alpha)/(1-p) + s^2\beta(1-\beta)/p`,

    .. math:: \sigma^2(\beta) = \frac{PR^4}{\beta^2}\left[\frac{(1-p)\alpha^2}{p^3}
              + \frac{(1-p)^2 \beta(1-\beta) s^2}{p^3} + \frac{(1-p)\alpha(1-\alpha)}{p^2}\right],

    with :math:`s = h(G^{-1}(1-\beta)) / g(G^{-1}(1-\beta))` the slope of
    :math:`\beta\mapsto\alpha(\beta)`. Eq. (9) as printed writes
    :math:`G_s(1-\beta)` for the quantile :math:`G_s^{-1}(1-\beta)` and, beyond
    that typo, carries the factor :math:`PR^4/\beta^2` on its first term only;
    it belongs to all three (it is the square of the common factor
    :math:`PR^2/\beta` of :math:`Z^{(n)}` in Theorem 1). The test suite checks
    this form against the simulated variance.
    """
    beta, precision, alpha, slope = (np.asarray(x, dtype=np.float64) for x in (beta, precision, alpha, slope))
    factor = precision**4 / beta**2
    return factor * (
        (1 - p) * alpha**2 / p**3
        + (1 - p) ** 2 * beta * (1 - beta) * slope**2 / p**3
        + (1 - p) * alpha * (1 - alpha) / p**2
    )



def merged(a: ClassSample, b: ClassSample) -> tuple[np.ndarray, np.ndarray]:
    """Values and counts of two samples pooled (ascending; a value in both appears twice)."""
    values = np.concatenate([a.values, b.values])
    counts = np.concatenate([a.counts, b.counts])
    order = np.argsort(values, kind="stable")
    return values[order], counts[order]
