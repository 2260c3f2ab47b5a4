r"""Confidence bands for the PR curve: Clémençon & Vayatis (2009), Algorithm 1.

Three methods, all on a grid of recalls :math:`\beta` in :math:`[\varepsilon, 1-\varepsilon]`
around the empirical curve of Eq. (3),
:math:`\widehat{PR}(\beta) = n_+\beta / (n_+\beta + n_-\hat\alpha(\beta))`:

``"smoothed_bootstrap"``
    Algorithm 1: draw :math:`n` i.i.d. pairs from the smoothed distribution
    :math:`\tilde p\,\tilde G(dz) + (1-\tilde p)\,\tilde H(dz)` (class
    proportion :math:`\tilde p`, class distributions smoothed by a Gaussian
    kernel, Remark 4), compute the bootstrap curve :math:`PR^*`, the process
    :math:`R^*_n(\beta) = \sqrt n (PR^*(\beta) - \widehat{PR}(\beta))`, and take
    :math:`r(\delta)`, the :math:`\gamma_n`-weighted :math:`(1-\delta)`
    quantile of :math:`\sup_\beta |R^*_n(\beta)|`. The band is
    :math:`\widehat{PR} \pm r(\delta)/\sqrt n`, clipped to [0, 1].
``"bootstrap"``
    The same sup-norm band from the plain, unsmoothed, stratified bootstrap
    (class sizes fixed at :math:`n_+, n_-`), for comparison.
``"pointwise"``
    Pointwise normal intervals :math:`\widehat{PR} \pm z\,\hat\sigma(\beta)/\sqrt n`
    from the asymptotic variance of Remark 3, Eq. (9), with Gaussian kernel
    density estimates of the class densities (not simultaneous).

How a replicate is computed
---------------------------
A replicate needs only two things at each grid recall: the bootstrap
positive-class quantile :math:`t^*_k = G^{*-1}(1-\beta_k)` (an order statistic
of the :math:`n^*_+` positive draws) and the fraction of the :math:`n^*_-`
negative draws above it. Both are drawn *exactly in distribution* without
drawing the :math:`n` scores:

* order statistics of an i.i.d. sample from a cdf :math:`F` are
  :math:`F^{-1}(U_{(r)})`, and uniform order statistics at ranks
  :math:`r_1 \le \dots \le r_m` are ratios of partial sums of independent
  Gamma variables with shapes :math:`r_1, r_2 - r_1, \dots, n + 1 - r_m`;
* given the thresholds, the numbers of negative draws between consecutive
  thresholds are multinomial with cell probabilities
  :math:`\tilde H(t^*_{k}) - \tilde H(t^*_{k-1})`.

So a chunk of replicates costs a fixed number of numpy calls on arrays of
shape (replicates, grid), independent of :math:`n`. For the plain bootstrap
:math:`F` is the empirical cdf and this is exact. For the smoothed bootstrap
:math:`\tilde G` and :math:`\tilde H` (means of Gaussian cdfs centred at the
data) are tabulated once per group on a regular grid of spacing :math:`h/32`
by linear binning and a convolution, then interpolated linearly; the
tabulation error is below :math:`10^{-4}` in cdf (tested against the exact
sum), far below the bootstrap noise.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import attrs
import numpy as np
import polars as pl
from scipy import signal, special, stats

from . import _frames
from ._ties import TieTable
from .exceptions import LowEffectiveSampleSizeWarning
from ._validate import choice_iv, level_iv
from .exceptions import InputError, InputTypeError

__all__ = [
    "BAND_METHODS",
    "BandResult",
    "LowEffectiveSampleSizeWarning",
    "band_iv",
    "default_bandwidth",
    "default_p_tilde",
    "pr_band",
    "pointwise_variance",
    "smoothed_cdf_table",
    "step_quantile_rank",
    "weighted_quantile",
]

#: Band methods of :meth:`PrCurveResult.band <aucpr_stats.curves.PrCurveResult.band>`.
BAND_METHODS = ("smoothed_bootstrap", "bootstrap", "pointwise")

#: Tolerance added before ``floor(n * beta)`` so that ``n * beta`` computed as
#: 4.999999999 for an exact 5 lands on the intended step.
_RANK_TOL = 1e-9

#: Replicates per chunk are chosen so a chunk holds about this many grid cells.
_CHUNK_CELLS = 1 << 19

#: Warn when the effective sample size falls below this fraction of n_boot.
_ESS_WARN_FRACTION = 0.25


# --------------------------------------------------------------------- ranks
def step_quantile_rank(n: np.ndarray, beta: np.ndarray) -> np.ndarray:
    r"""Descending rank ``j`` of the class quantile behind Eq. (3) at recall ``beta``.

    :math:`\hat G^{-1}(1-\beta)` with :math:`\hat G^{-1}(u) = \inf\{x: \hat G(x) \ge u\}`
    is the ascending order statistic of rank :math:`\lceil n(1-\beta)\rceil`,
    that is the :math:`j`-th highest score with :math:`j = \lfloor n\beta\rfloor + 1`.
    ``j = n + 1`` (only at ``beta = 1``) stands for :math:`-\infty`.
    """
    n = np.asarray(n, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    return (np.floor(n * beta + _RANK_TOL) + 1).astype(np.int64)


# ------------------------------------------------------------- class tables
@attrs.frozen(eq=False)
class _ClassSample:
    """Distinct scores of one class in ascending order, with their counts."""

    values: np.ndarray
    counts: np.ndarray

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def cum(self) -> np.ndarray:
        return np.cumsum(self.counts)


def _class_samples(ties: TieTable, k: int) -> tuple[_ClassSample, _ClassSample]:
    """Positive and negative scores of segment ``k``, ascending, with counts."""
    lo, hi = ties.offsets[k], ties.offsets[k + 1]
    score = ties.score[lo:hi][::-1]
    pos = ties.pos[lo:hi][::-1]
    neg = ties.neg[lo:hi][::-1]
    return _ClassSample(score[pos > 0], pos[pos > 0]), _ClassSample(score[neg > 0], neg[neg > 0])


# -------------------------------------------------------------- bandwidth
def _robust_scale(sample: _ClassSample) -> float:
    """``min(sd, IQR / 1.349)`` of a weighted sample; the other when one is 0; 0 when both are."""
    n = sample.n
    if n < 2:
        return 0.0
    v, c = sample.values, sample.counts
    mean = float(np.dot(v, c)) / n
    sd = math.sqrt(max(float(np.dot((v - mean) ** 2, c)) / (n - 1), 0.0))
    cum = np.cumsum(c)
    q1 = v[np.searchsorted(cum, 0.25 * n, side="left")]
    q3 = v[np.searchsorted(cum, 0.75 * n, side="left")]
    iqr = float(q3 - q1) / 1.349
    positive = [s for s in (sd, iqr) if s > 0]
    return min(positive) if positive else 0.0


def default_bandwidth(sample: _ClassSample, pooled_scale: float = 0.0) -> float:
    r"""Silverman's rule of thumb for one class: :math:`h = 0.9\,\min(s, \mathrm{IQR}/1.349)\,n^{-1/5}`.

    Remark 5 asks for :math:`h_n \sim n^{-1/5}` with a Gaussian kernel; the
    constant 0.9 and the robust scale (the smaller of the standard deviation
    and the interquartile range over 1.349) are Silverman's (1986, Eq. 3.31),
    which does not oversmooth skewed or bimodal scores. When the class has no
    spread (a single row, or all scores tied) the group's pooled scale is
    used; when that is 0 too, no smoothing (``h = 0``).
    """
    n = max(sample.n, 1)
    scale = _robust_scale(sample) or pooled_scale
    return 0.9 * scale * n ** (-0.2)


# --------------------------------------------------- smoothed cdf tabulation
@attrs.frozen(eq=False)
class _CdfTable:
    """A cdf tabulated at increasing nodes, evaluated and inverted by linear interpolation."""

    nodes: np.ndarray
    cdf: np.ndarray

    def __call__(self, t: np.ndarray) -> np.ndarray:
        return np.interp(t, self.nodes, self.cdf)

    def inverse(self, u: np.ndarray) -> np.ndarray:
        return np.interp(u, self.cdf, self.nodes)


def smoothed_cdf_table(values: np.ndarray, counts: np.ndarray, h: float, *,
                       nodes_per_h: int = 32, max_nodes: int = 1 << 20) -> _CdfTable:
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
    n_nodes = int(math.ceil((hi - lo) / delta)) + 1
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
    kernel = special.ndtr(offsets * delta / h) - (offsets >= 0)
    smooth = signal.oaconvolve(binned, kernel, mode="full")[reach:reach + n_nodes]
    cdf = (np.cumsum(binned) + smooth) / total
    cdf = np.clip(np.maximum.accumulate(cdf), 0.0, 1.0)
    return _CdfTable(nodes, cdf)


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
    log_target = stats.binom.logpmf(k, n, p_hat)
    log_p_ok = special.logsumexp(log_target)

    def ess_fraction(p: float) -> float:
        log_second = special.logsumexp(2 * log_target - stats.binom.logpmf(k, n, p))
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


# ----------------------------------------------------- bootstrap replicates
def _bootstrap_sups(pos: _ClassSample, neg: _ClassSample, grid: np.ndarray, estimate: np.ndarray, *,
                    smoothed: bool, h_pos: float, h_neg: float, p_tilde: float, n_boot: int,
                    rng: np.random.Generator, keep_process: bool = False):
    """``sup_beta |R*_n(beta)|`` and log importance weights of ``n_boot`` replicates (Algorithm 1, steps 2-4).

    Returns
    -------
    sups : ndarray, shape (n_boot,)
    log_weights : ndarray, shape (n_boot,)
        ``log gamma_n``; ``-inf`` for replicates without both classes.
    process : ndarray, shape (n_boot, n_grid)
        Only with ``keep_process``: ``R*_n`` on the grid (in ``grid`` order).
    """
    n_pos, n_neg = pos.n, neg.n
    n = n_pos + n_neg
    p_hat = n_pos / n
    # grid in decreasing recall, so quantile ranks (ascending) increase along axis 1
    beta = grid[::-1]
    est = estimate[::-1]
    m = beta.size

    if smoothed and h_pos > 0:
        g_table = smoothed_cdf_table(pos.values, pos.counts, h_pos)
        g_inverse = g_table.inverse
    else:
        cum_pos = pos.cum()

        def g_inverse(u):  # generalised inverse of the empirical cdf
            idx = np.searchsorted(cum_pos, u * n_pos, side="left")
            return pos.values[np.minimum(idx, pos.values.size - 1)]
    if smoothed and h_neg > 0:
        h_cdf = smoothed_cdf_table(neg.values, neg.counts, h_neg)
    else:
        cum_neg = np.concatenate([[0], neg.cum()]) / n_neg

        def h_cdf(t):  # empirical cdf P(Z <= t), ties included
            return cum_neg[np.searchsorted(neg.values, t, side="right")]

    sups = np.empty(n_boot)
    process = np.empty((n_boot, m)) if keep_process else None
    log_w = np.empty(n_boot)
    log_up, log_down = math.log(p_hat / p_tilde), math.log((1 - p_hat) / (1 - p_tilde))
    chunk = max(1, _CHUNK_CELLS // (m + 1))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        # step 2: class sizes (binomial under p_tilde; fixed for the stratified bootstrap)
        if smoothed:
            npos_star = rng.binomial(n, p_tilde, size=b)
        else:
            npos_star = np.full(b, n_pos)
        nneg_star = n - npos_star
        ok = (npos_star > 0) & (nneg_star > 0)
        npos_eff = np.where(ok, npos_star, 1)
        nneg_eff = np.where(ok, nneg_star, 1)
        # ascending ranks of the quantiles G*^{-1}(1 - beta); rank 0 stands for -inf (beta = 1)
        ranks = npos_eff[:, None] + 1 - step_quantile_rank(npos_eff[:, None], beta[None, :])
        ranks = np.clip(ranks, 0, npos_eff[:, None])
        shapes = np.diff(ranks, axis=1, prepend=0, append=(npos_eff + 1)[:, None]).astype(np.float64)
        # uniform order statistics U_(r) as ratios of partial sums of Gamma spacings
        partial = np.cumsum(rng.standard_gamma(shapes), axis=1)
        uniforms = partial[:, :m] / partial[:, m:]
        thresholds = g_inverse(uniforms)
        below = h_cdf(thresholds)
        below = np.where(ranks == 0, 0.0, below)  # threshold -inf: every negative is above it
        cells = np.diff(below, axis=1, prepend=0.0, append=1.0)
        np.clip(cells, 0.0, None, out=cells)
        cells /= cells.sum(axis=1, keepdims=True)
        counts = rng.multinomial(nneg_eff, cells)
        alpha = 1.0 - np.cumsum(counts[:, :m], axis=1) / nneg_eff[:, None]
        # step 3: bootstrap PR curve, Eq. (3) on D*_n
        p_star = (npos_eff / n)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            curve = p_star * beta / (p_star * beta + (1 - p_star) * alpha)
        # step 4: sup-norm of the bootstrap process R*_n = sqrt(n) (PR* - PR_hat)
        deviation = math.sqrt(n) * (curve - est)
        sups[start:start + b] = np.max(np.abs(deviation), axis=1)
        if keep_process:
            process[start:start + b] = deviation[:, ::-1]
        log_w[start:start + b] = np.where(ok, npos_star * log_up + nneg_star * log_down, -np.inf)
    if keep_process:
        return sups, log_w, process
    return sups, log_w


# ------------------------------------------------------------- pointwise
def _kde(sample: _ClassSample, h: float, at: np.ndarray) -> np.ndarray:
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


# ------------------------------------------------------------------ result
@attrs.frozen(eq=False, repr=False)
class BandResult:
    """A confidence band (or pointwise intervals) for the PR curve of every group.

    Returned by :meth:`aucpr_stats.curves.PrCurveResult.band`.

    Attributes
    ----------
    method : str
        ``"smoothed_bootstrap"``, ``"bootstrap"`` or ``"pointwise"``.
    level : float
        Confidence level ``1 - delta``.
    recall : ndarray, shape (n_grid,)
        The recall grid, in [eps, 1 - eps].
    estimate, lower, upper : ndarray, shape (n_groups, n_grid)
        Empirical curve of Eq. (3) and the band; NaN for degenerate groups.
    r_delta : ndarray, shape (n_groups,)
        Radius of the band on the sqrt(n) scale (bootstrap methods; NaN for
        ``"pointwise"``): the band is ``estimate +- r_delta / sqrt(n)``.
        When ``studentized``, the quantile of the studentised supremum: the
        band is ``estimate +- r_delta * sigma*(recall) / sqrt(n)``.
    ess : ndarray, shape (n_groups,)
        Effective sample size of the importance weights,
        ``(sum w)^2 / sum w^2`` over usable replicates (``n_boot`` for the
        plain bootstrap, NaN for ``"pointwise"``).
    n_boot : int
        Replicates drawn per group (0 for ``"pointwise"``).
    bandwidth_pos, bandwidth_neg : ndarray, shape (n_groups,)
        Smoothing bandwidths (smoothed bootstrap; kernel bandwidths for
        ``"pointwise"``; 0 for the plain bootstrap).
    p_tilde : ndarray, shape (n_groups,)
        Instrumental class proportion (the observed one when not smoothed).
    keys : polars.DataFrame
        Group keys (``by`` order).
    by : tuple of str
    n_pos, n_neg : ndarray, shape (n_groups,)
    frame_kind : {"pandas", "polars"}
    studentized : bool
        Whether the band was studentised (width varying with recall).
    """

    method: str
    level: float
    eps: float
    recall: np.ndarray = attrs.field(eq=False)
    estimate: np.ndarray = attrs.field(eq=False)
    lower: np.ndarray = attrs.field(eq=False)
    upper: np.ndarray = attrs.field(eq=False)
    r_delta: np.ndarray = attrs.field(eq=False)
    ess: np.ndarray = attrs.field(eq=False)
    n_boot: int
    bandwidth_pos: np.ndarray = attrs.field(eq=False)
    bandwidth_neg: np.ndarray = attrs.field(eq=False)
    p_tilde: np.ndarray = attrs.field(eq=False)
    keys: pl.DataFrame = attrs.field(eq=False)
    by: tuple
    n_pos: np.ndarray = attrs.field(eq=False)
    n_neg: np.ndarray = attrs.field(eq=False)
    frame_kind: str = "polars"
    studentized: bool = False

    @property
    def n_groups(self) -> int:
        return int(self.n_pos.size)

    @property
    def prevalence(self) -> np.ndarray:
        """Observed proportion of positives per group."""
        total = self.n_pos + self.n_neg
        return np.divide(self.n_pos, total, out=np.full(total.shape, np.nan), where=total > 0)

    def _keys_repeated(self, times: int) -> pl.DataFrame:
        if not self.by:
            return pl.DataFrame()
        rows = np.repeat(np.arange(self.n_groups), times)
        return self.keys.select(self.by)[rows.tolist()]

    def _frame_polars(self) -> pl.DataFrame:
        m = self.recall.size
        body = pl.DataFrame({
            "method": [self.method] * (self.n_groups * m),
            "level": np.full(self.n_groups * m, self.level),
            "recall": np.tile(self.recall, self.n_groups),
            "estimate": self.estimate.ravel(),
            "lower": self.lower.ravel(),
            "upper": self.upper.ravel(),
        })
        return pl.concat([self._keys_repeated(m), body], how="horizontal") if self.by else body

    def to_frame(self):
        """One row per group and grid recall, in the caller's frame type.

        Columns: group keys, ``method``, ``level``, ``recall``, ``estimate``
        (Eq. 3), ``lower``, ``upper``.
        """
        return _frames.to_caller(self._frame_polars(), self.frame_kind)

    def _groups_polars(self) -> pl.DataFrame:
        body = pl.DataFrame({
            "method": [self.method] * self.n_groups,
            "level": np.full(self.n_groups, self.level),
            "n_pos": self.n_pos,
            "n_neg": self.n_neg,
            "r_delta": self.r_delta,
            "half_width": (np.full(self.n_groups, np.nan) if self.studentized
                           else self.r_delta / np.sqrt(self.n_pos + self.n_neg)),
            "ess": self.ess,
            "n_boot": np.full(self.n_groups, self.n_boot),
            "p_tilde": self.p_tilde,
            "bandwidth_pos": self.bandwidth_pos,
            "bandwidth_neg": self.bandwidth_neg,
        })
        return pl.concat([self.keys.select(self.by), body], how="horizontal") if self.by else body

    def groups_frame(self):
        """One row per group: ``r_delta``, the half-width ``r_delta / sqrt(n)`` (NaN when studentised), ``ess``,
        ``p_tilde``, bandwidths."""
        return _frames.to_caller(self._groups_polars(), self.frame_kind)

    def plot(self, ax=None, **kwargs):
        """Plot the curve with its band shaded, one colour per group; see :func:`aucpr_stats.plot.curves.plot_band`."""
        from .plot.curves import plot_band

        return plot_band(self, ax=ax, **kwargs)

    def __repr__(self) -> str:
        extra = ""
        if self.studentized:
            extra = ", studentized"
        if self.method != "pointwise":
            extra += f", r_delta={np.round(self.r_delta, 4).tolist()}, ess={np.round(self.ess, 1).tolist()}"
        return (f"BandResult(method={self.method!r}, level={self.level}, groups={self.n_groups}, "
                f"grid={self.recall.size} recalls in [{self.recall[0]:.3g}, {self.recall[-1]:.3g}]{extra})")


# -------------------------------------------------------------- validation
def _rng_iv(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise InputTypeError(f"`seed` must be None, an int or a numpy Generator; got {type(seed).__name__}")


def _positive_number(value: Any, argument: str, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"`{argument}` must be a number; got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise InputError(f"`{argument}` must be a {'non-negative' if allow_zero else 'positive'} finite number; "
                         f"got {value!r}")
    return value


def band_iv(level: Any, method: Any, n_boot: Any, bandwidth: Any, p_tilde: Any, eps: Any,
            grid: Any, seed: Any, studentize: Any = False) -> dict:
    """Validate and normalise the arguments of :meth:`PrCurveResult.band`."""
    level = level_iv(level)
    method = choice_iv(method, "method", BAND_METHODS)
    if not isinstance(studentize, (bool, np.bool_)):
        raise InputTypeError(f"`studentize` must be True or False; got {studentize!r}")
    if studentize and method == "pointwise":
        raise InputError("`studentize` applies to the bootstrap methods; got method='pointwise'")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)):
        raise InputTypeError(f"`n_boot` must be an integer; got {n_boot!r}")
    if n_boot < 1:
        raise InputError(f"`n_boot` must be at least 1; got {n_boot!r}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)):
        raise InputTypeError(f"`eps` must be a number in (0, 0.5); got {eps!r}")
    eps = float(eps)
    if not 0.0 < eps < 0.5:
        raise InputError(f"`eps` must be in (0, 0.5); got {eps!r}")
    if bandwidth is not None:
        if method != "smoothed_bootstrap" and method != "pointwise":
            raise InputError(f"`bandwidth` applies to method='smoothed_bootstrap' or 'pointwise'; got method={method!r}")
        if isinstance(bandwidth, (tuple, list)):
            if len(bandwidth) != 2:
                raise InputError(f"`bandwidth` must be a number or a pair (positives, negatives); got {bandwidth!r}")
            bandwidth = tuple(_positive_number(b, "bandwidth", allow_zero=method != "pointwise") for b in bandwidth)
        else:
            b = _positive_number(bandwidth, "bandwidth", allow_zero=method != "pointwise")
            bandwidth = (b, b)
    if p_tilde is not None:
        if method != "smoothed_bootstrap":
            raise InputError(f"`p_tilde` applies to method='smoothed_bootstrap' only; got method={method!r}")
        if isinstance(p_tilde, bool) or not isinstance(p_tilde, (int, float, np.floating)):
            raise InputTypeError(f"`p_tilde` must be a number in (0, 1); got {p_tilde!r}")
        p_tilde = float(p_tilde)
        if not 0.0 < p_tilde < 1.0:
            raise InputError(f"`p_tilde` must be in (0, 1); got {p_tilde!r}")
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        if grid < 2:
            raise InputError(f"`grid` must be at least 2 points; got {grid!r}")
        grid = np.linspace(eps, 1.0 - eps, int(grid))
    else:
        try:
            grid = np.asarray(grid, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputTypeError(f"`grid` must be a number of points or an array of recalls; got {grid!r}") from None
        if grid.ndim != 1 or grid.size < 1:
            raise InputError(f"`grid` must be a 1-D array of recalls; got shape {grid.shape}")
        if np.any(~np.isfinite(grid)) or np.any(grid < eps - 1e-12) or np.any(grid > 1 - eps + 1e-12):
            raise InputError(f"`grid` recalls must lie in [eps, 1 - eps] = [{eps}, {1 - eps}]; "
                             f"got values in [{np.nanmin(grid)}, {np.nanmax(grid)}]")
        grid = np.unique(grid)
    return dict(level=level, method=method, n_boot=int(n_boot), bandwidth=bandwidth, p_tilde=p_tilde,
                eps=eps, grid=grid, rng=_rng_iv(seed), studentize=bool(studentize))


# --------------------------------------------------------------- the band
def pr_band(ties: TieTable, estimate: np.ndarray, *, grid: np.ndarray, level: float, method: str, n_boot: int,
            bandwidth: tuple[float, float] | None, p_tilde: float | None, eps: float,
            rng: np.random.Generator, keys: pl.DataFrame, by: Sequence[str], frame_kind: str,
            studentize: bool = False, stacklevel: int = 3) -> BandResult:
    r"""Band for every segment of ``ties``; ``estimate`` is Eq. (3) on ``grid``, shape (n_segments, n_grid).

    The array-level kernel behind :meth:`PrCurveResult.band`. Groups are
    processed one after another (each with a constant number of numpy calls
    per chunk of replicates); degenerate groups get NaN.

    With ``studentize`` (an extension, not in Algorithm 1) the replicates'
    process is divided by its weighted bootstrap standard deviation
    :math:`\sigma^*(\beta)` before the supremum, and the band is
    :math:`\widehat{PR}(\beta) \pm r(\delta)\,\sigma^*(\beta)/\sqrt n`: its width
    follows the curve's variability instead of being set by the noisiest
    recall. It holds the (n_boot, n_grid) process in memory.
    """
    n_groups = ties.n_segments
    m = grid.size
    n_pos, n_neg = ties.n_pos, ties.n_neg
    lower = np.full((n_groups, m), np.nan)
    upper = np.full((n_groups, m), np.nan)
    r_delta = np.full(n_groups, np.nan)
    ess = np.full(n_groups, np.nan)
    h_pos = np.zeros(n_groups)
    h_neg = np.zeros(n_groups)
    p_used = np.divide(n_pos, n_pos + n_neg, out=np.full(n_groups, np.nan), where=(n_pos + n_neg) > 0)
    low_ess = []
    for k in range(n_groups):
        if n_pos[k] == 0 or n_neg[k] == 0:
            continue
        pos, neg = _class_samples(ties, k)
        n = int(n_pos[k] + n_neg[k])
        p_hat = n_pos[k] / n
        est = estimate[k]
        if method in ("smoothed_bootstrap", "pointwise"):
            if bandwidth is None:
                pooled = _robust_scale(_ClassSample(*_merge(pos, neg)))
                h_pos[k] = default_bandwidth(pos, pooled)
                h_neg[k] = default_bandwidth(neg, pooled)
            else:
                h_pos[k], h_neg[k] = bandwidth
        if method == "pointwise":
            lower[k], upper[k] = _pointwise(pos, neg, grid, est, level, h_pos[k], h_neg[k])
            continue
        smoothed = method == "smoothed_bootstrap"
        if smoothed:
            p_used[k] = default_p_tilde(n, int(n_pos[k]))[0] if p_tilde is None else p_tilde
        out = _bootstrap_sups(pos, neg, grid, est, smoothed=smoothed, h_pos=h_pos[k], h_neg=h_neg[k],
                              p_tilde=p_used[k], n_boot=n_boot, rng=rng, keep_process=studentize)
        sups, log_w = out[0], out[1]
        finite = np.isfinite(log_w) & np.isfinite(sups)
        if not finite.any():
            continue
        # importance weights gamma_n, normalised in log space
        w = np.zeros(n_boot)
        w[finite] = np.exp(log_w[finite] - log_w[finite].max())
        ess[k] = w.sum() ** 2 / np.dot(w, w)
        scale = 1.0
        if studentize:
            process = np.where(finite[:, None], out[2], 0.0)
            mean = (w @ process) / w.sum()
            scale = np.sqrt((w @ (process - mean) ** 2) / w.sum())
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = np.where(scale > 0, np.abs(process) / scale, 0.0)
            sups = np.max(ratio, axis=1)
        r_delta[k] = weighted_quantile(sups, w, level)
        radius = r_delta[k] * scale / math.sqrt(n)
        lower[k] = np.clip(est - radius, 0.0, 1.0)
        upper[k] = np.clip(est + radius, 0.0, 1.0)
        if ess[k] < _ESS_WARN_FRACTION * n_boot:
            low_ess.append(k)
    if low_ess:
        labels = _describe(keys, by, low_ess)
        warnings.warn(
            f"the importance weights are degenerate: effective sample size below {_ESS_WARN_FRACTION:.0%} of "
            f"n_boot={n_boot} for {len(low_ess)} group(s) ({'; '.join(f'{l}: ESS={ess[k]:.1f}' for l, k in zip(labels, low_ess))}). "
            "The band's radius rests on few replicates; leave `p_tilde` at its default",
            LowEffectiveSampleSizeWarning, stacklevel=stacklevel)
    return BandResult(method=method, level=level, eps=eps, recall=grid, estimate=estimate, lower=lower,
                      upper=upper, r_delta=r_delta, ess=ess, n_boot=0 if method == "pointwise" else n_boot,
                      bandwidth_pos=h_pos, bandwidth_neg=h_neg, p_tilde=p_used, keys=keys, by=tuple(by),
                      n_pos=n_pos, n_neg=n_neg, frame_kind=frame_kind, studentized=studentize)


def _merge(a: _ClassSample, b: _ClassSample) -> tuple[np.ndarray, np.ndarray]:
    values = np.concatenate([a.values, b.values])
    counts = np.concatenate([a.counts, b.counts])
    order = np.argsort(values, kind="stable")
    return values[order], counts[order]


def _describe(keys: pl.DataFrame, by: Sequence[str], rows: Sequence[int]) -> list[str]:
    if not by:
        return ["all rows"]
    picked = keys.select(list(by))[list(rows)]
    return [", ".join(f"{c}={v!r}" for c, v in zip(by, row)) for row in picked.iter_rows()]


def _pointwise(pos: _ClassSample, neg: _ClassSample, grid: np.ndarray, est: np.ndarray, level: float,
               h_pos: float, h_neg: float) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise normal intervals from the corrected Eq. (9) with kernel density estimates."""
    n_pos, n_neg = pos.n, neg.n
    n = n_pos + n_neg
    p_hat = n_pos / n
    # the quantile G_hat^{-1}(1 - beta) (Eq. 3) and alpha_hat at it
    j = step_quantile_rank(n_pos, grid)
    desc_values = pos.values[::-1]
    desc_cum = np.cumsum(pos.counts[::-1])
    inside = j <= n_pos
    t = np.full(grid.shape, -np.inf)
    t[inside] = desc_values[np.searchsorted(desc_cum, j[inside], side="left")]
    cum_neg = np.concatenate([[0], neg.cum()])
    alpha = 1.0 - cum_neg[np.searchsorted(neg.values, t, side="right")] / n_neg
    finite = np.isfinite(t)
    slope = np.full(grid.shape, np.nan)
    if h_pos > 0 and h_neg > 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            slope[finite] = _kde(neg, h_neg, t[finite]) / _kde(pos, h_pos, t[finite])
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = pointwise_variance(grid, est, alpha, p_hat, slope)
    half = special.ndtri(0.5 + level / 2) * np.sqrt(variance / n)
    return np.clip(est - half, 0.0, 1.0), np.clip(est + half, 0.0, 1.0)
