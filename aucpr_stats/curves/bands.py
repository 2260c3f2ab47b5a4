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
negative draws above it. :func:`aucpr_stats.resample.exceedance_at_order_statistics`
draws both exactly in distribution without drawing the :math:`n` scores, so a
chunk of replicates costs a fixed number of numpy calls on arrays of shape
(replicates, grid), independent of :math:`n`. For the plain bootstrap the
cdfs are the empirical ones (exactly the stratified bootstrap); for the
smoothed bootstrap :math:`\tilde G` and :math:`\tilde H` are tabulated once
per group (:func:`aucpr_stats.curves.smoothing.smoothed_cdf_table`, error
below :math:`10^{-4}` in cdf, far below the bootstrap noise). Each group
draws from its own random stream (:mod:`aucpr_stats.resample.streams`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from .._validate import choice_iv, flag_iv, level_iv, n_boot_iv, number_iv, probability_iv, rng_iv, seed_iv
from ..exceptions import InputError, InputTypeError, LowEffectiveSampleSizeWarning
from ..ingest.notes import describe_keys
from ..intervals import normal_quantile
from ..progress import progress_bar, progress_iv
from ..resample import Streams, check_allocation, exceedance_at_order_statistics
from ..plot.curves import plot_band
from ..report.display import TabularResult
from ..ties import TieTable
from ..grouped import GroupedResult
from .points import pr_step, step_quantile_rank
from .smoothing import (
    ClassSample,
    class_samples,
    default_bandwidth,
    default_p_tilde,
    kde,
    merged,
    pointwise_variance,
    robust_scale,
    smoothed_cdf_table,
    weighted_quantile,
)

__all__ = ["BAND_METHODS", "BandResult", "band_iv", "bootstrap_sups", "pr_band"]

#: Band methods of :meth:`PrCurveResult.band <aucpr_stats.curves.PrCurveResult.band>`.
BAND_METHODS = ("smoothed_bootstrap", "bootstrap", "pointwise")


#: Replicates per chunk are chosen so a chunk holds about this many grid cells.
_CHUNK_CELLS = 1 << 19


#: Warn when the effective sample size falls below this fraction of n_boot.
_ESS_WARN_FRACTION = 0.25


# ----------------------------------------------------- bootstrap replicates
def bootstrap_sups(pos: ClassSample, neg: ClassSample, grid: np.ndarray, estimate: np.ndarray, *,
                    smoothed: bool, h_pos: float, h_neg: float, p_tilde: float, n_boot: int,
                    rng: np.random.Generator, keep_process: bool = False, split_ties: bool = True, bar: Any = None):
    """``sup_beta |R*_n(beta)|`` and log importance weights of ``n_boot`` replicates (Algorithm 1, steps 2-4).

    ``smoothed=False`` is the plain stratified bootstrap (class sizes fixed,
    empirical cdfs); ``smoothed=True`` draws the class sizes under
    ``p_tilde`` and the scores from the Gaussian-smoothed cdfs with bandwidths
    ``h_pos`` and ``h_neg`` (Remark 4). ``grid`` and ``estimate`` are the
    recalls and Eq. (3) on them, ascending. With ``split_ties`` (and both
    classes unsmoothed), negatives tied with the positive quantile count in
    the share of the tied positives passed, as in
    :func:`~aucpr_stats.curves.points.pr_step` with ``tie_blocks="interpolate"``.

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

    cdf_at_quantile = _cdf_at_quantile(pos, neg, smoothed, h_pos, h_neg, split_ties)

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
        alpha = exceedance_at_order_statistics(rng, ranks, npos_eff, nneg_eff, cdf_at_quantile)
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
        if bar is not None:  # a progress bar counting replicates (aucpr_stats.progress)
            bar.update(b)
    if keep_process:
        return sups, log_w, process
    return sups, log_w


def _cdf_at_quantile(pos: ClassSample, neg: ClassSample, smoothed: bool, h_pos: float, h_neg: float,
                     split_ties: bool):
    """``u -> H(G^{-1}(u))``: the negatives' cdf at the positives' ``u``-quantile (empirical or smoothed).

    With empirical cdfs for both classes and ``split_ties``, the negatives tied
    with the quantile ``t`` count below it in the share of the tied positives
    below ``u``: ``H(t-) + (1 - s)(H(t) - H(t-))`` with
    ``s = (G(t) - u) / (G(t) - G(t-))``, the random-order split of the tie.
    """
    n_pos, n_neg = pos.n, neg.n
    cum_pos = pos.cum()
    smooth_pos, smooth_neg = smoothed and h_pos > 0, smoothed and h_neg > 0
    if smooth_pos:
        quantile = smoothed_cdf_table(pos.values, pos.counts, h_pos).inverse
    if smooth_neg:
        cdf = smoothed_cdf_table(neg.values, neg.counts, h_neg)
    cum_neg = np.concatenate([[0], neg.cum()]) / n_neg

    def empirical_cdf(t, side="right"):  # P(Z <= t) (side="left": P(Z < t))
        return cum_neg[np.searchsorted(neg.values, t, side=side)]

    def composite(u):
        if smooth_pos:
            t = quantile(u)
            return cdf(t) if smooth_neg else empirical_cdf(t)
        # generalised inverse of the positives' empirical cdf
        idx = np.minimum(np.searchsorted(cum_pos, u * n_pos, side="left"), pos.values.size - 1)
        t = pos.values[idx]
        if smooth_neg:
            return cdf(t)
        below = empirical_cdf(t)
        if not split_ties:
            return below
        strictly_below = empirical_cdf(t, side="left")
        g_at = cum_pos[idx] / n_pos
        g_before = (cum_pos[idx] - pos.counts[idx]) / n_pos
        passed = np.clip((g_at - u) / (g_at - g_before), 0.0, 1.0)
        return below - passed * (below - strictly_below)

    return composite


# ------------------------------------------------------------------ result
@attrs.frozen(eq=False, repr=False)
class BandResult(TabularResult, GroupedResult):
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
    ties : TieTable
        The groups' tie tables (counts, prevalence).
    keys : polars.DataFrame
        Group keys (``by`` order).
    by : tuple of str
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
    ties: TieTable = attrs.field(eq=False)
    keys: pl.DataFrame = attrs.field(eq=False)
    by: tuple
    frame_kind: str = "polars"
    studentized: bool = False

    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame."""
        m = self.recall.size
        body = pl.DataFrame({
            "method": [self.method] * (self.n_groups * m),
            "level": np.full(self.n_groups * m, self.level),
            "recall": np.tile(self.recall, self.n_groups),
            "estimate": self.estimate.ravel(),
            "lower": self.lower.ravel(),
            "upper": self.upper.ravel(),
        })
        return self.with_keys(body, np.repeat(np.arange(self.n_groups), m))

    def to_frame(self):
        """One row per group and grid recall, in the caller's frame type.

        Columns: group keys, ``method``, ``level``, ``recall``, ``estimate``
        (Eq. 3), ``lower``, ``upper``.
        """
        return _frames.to_caller(self.to_polars(), self.frame_kind)

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
        return self.with_keys(body, np.arange(self.n_groups))

    def groups_frame(self):
        """One row per group: ``r_delta``, the half-width ``r_delta / sqrt(n)`` (NaN when studentised), ``ess``,
        ``p_tilde``, bandwidths."""
        return _frames.to_caller(self._groups_polars(), self.frame_kind)

    def plot(self, ax=None, **kwargs):
        """Plot the curve with its band shaded, one colour per group; see :func:`aucpr_stats.plot.curves.plot_band`."""
        return plot_band(self, ax=ax, **kwargs)

    def _title(self) -> str:
        """A heading in words: "95% smoothed bootstrap band of the precision-recall curve, by site"."""
        kind = "pointwise intervals" if self.method == "pointwise" else f"{self.method.replace('_', ' ')} band"
        grouping = f", by {', '.join(self.by)}" if self.by else ""
        return f"{self.level:.0%} {kind} of the precision-recall curve{grouping}"

    def __repr__(self) -> str:
        extra = ""
        if self.studentized:
            extra = ", studentized"
        if self.method != "pointwise":
            extra += f", r_delta={np.round(self.r_delta, 4).tolist()}, ess={np.round(self.ess, 1).tolist()}"
        return (f"BandResult(method={self.method!r}, level={self.level}, groups={self.n_groups}, "
                f"grid={self.recall.size} recalls in [{self.recall[0]:.3g}, {self.recall[-1]:.3g}]{extra})")


def band_iv(level: Any, method: Any, n_boot: Any, bandwidth: Any, p_tilde: Any, eps: Any,
            grid: Any, seed: Any, studentize: Any = False) -> dict:
    """Check and normalise the arguments of :meth:`PrCurveResult.band <aucpr_stats.curves.PrCurveResult.band>`.

    ``seed`` is the randomness, already given as ``rng=`` or ``seed=`` (:func:`~aucpr_stats._validate.rng_iv`).
    """
    level = level_iv(level)
    method = choice_iv(method, "method", BAND_METHODS)
    studentize = flag_iv(studentize, "studentize")
    if studentize and method == "pointwise":
        raise InputError("`studentize` applies to the bootstrap methods; got method='pointwise'")
    n_boot = n_boot_iv(n_boot, minimum=1)
    eps = number_iv(eps, "eps", low=0.0, high=0.5, what="in (0, 0.5)")
    if bandwidth is not None:
        if method not in ("smoothed_bootstrap", "pointwise"):
            raise InputError(f"`bandwidth` applies to method='smoothed_bootstrap' or 'pointwise'; got method={method!r}")
        pair = bandwidth if isinstance(bandwidth, (tuple, list)) else (bandwidth, bandwidth)
        if len(pair) != 2:
            raise InputError(f"`bandwidth` must be a number or a pair (positives, negatives); got {bandwidth!r}")
        zero_ok = method != "pointwise"
        bandwidth = tuple(number_iv(b, "bandwidth", low=0.0, closed="left" if zero_ok else "neither",
                                    what=f"a {'non-negative' if zero_ok else 'positive'} finite number") for b in pair)
    if p_tilde is not None:
        if method != "smoothed_bootstrap":
            raise InputError(f"`p_tilde` applies to method='smoothed_bootstrap' only; got method={method!r}")
        p_tilde = probability_iv(p_tilde, "p_tilde")
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        if grid < 2:
            raise InputError(f"`grid` must be at least 2 points; got {grid!r}")
        check_allocation(int(grid) * (n_boot + 1), f"a band of {grid:,} recalls x {n_boot:,} replicates", "lower `grid`")
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
    return dict(level=level, method=method, n_boot=n_boot, bandwidth=bandwidth, p_tilde=p_tilde,
                eps=eps, grid=grid, seed=seed_iv(seed), studentize=studentize)


def pr_band(curve: Any, *, level: Any = 0.95, method: Any = "smoothed_bootstrap", n_boot: Any = 2000,
            bandwidth: Any = None, p_tilde: Any = None, eps: Any = 0.05, grid: Any = 201, seed: Any = None,
            studentize: Any = False, stacklevel: int = 3, progress: Any = None, rng: Any = None) -> BandResult:
    r"""Band for every group of a PR curve result (:meth:`PrCurveResult.band <aucpr_stats.curves.PrCurveResult.band>`).

    Groups are processed one after another (each with a constant number of
    numpy calls per chunk of replicates, each from its own random stream);
    degenerate groups get NaN.

    With ``studentize`` (an extension, not in Algorithm 1) the replicates'
    process is divided by its weighted bootstrap standard deviation
    :math:`\sigma^*(\beta)` before the supremum, and the band is
    :math:`\widehat{PR}(\beta) \pm r(\delta)\,\sigma^*(\beta)/\sqrt n`: its width
    follows the curve's variability instead of being set by the noisiest
    recall. It holds the (n_boot, n_grid) process in memory. ``progress``: see :mod:`aucpr_stats.progress`.
    ``rng`` (SPEC 7; ``seed`` is its alias): the randomness, one stream per group.
    """
    options = band_iv(level, method, n_boot, bandwidth, p_tilde, eps, grid, rng_iv(rng, seed), studentize)
    progress = progress_iv(progress)
    level, method, n_boot, bandwidth = options["level"], options["method"], options["n_boot"], options["bandwidth"]
    p_tilde, grid, studentize = options["p_tilde"], options["grid"], options["studentize"]
    ties = curve.ties
    split_ties = curve.tie_blocks == "interpolate"
    estimate, _ = pr_step(ties, grid, curve.tie_blocks)
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
    streams = Streams.for_keys(options["seed"], curve.keys, curve.by, "band") if method != "pointwise" else None
    low_ess = []
    bar = progress_bar(n_groups * n_boot if method != "pointwise" else 0, "PR band", progress)
    for k in range(n_groups):  # one group at a time: its own smoothing, weights and stream
        if n_pos[k] == 0 or n_neg[k] == 0:
            continue
        pos, neg = class_samples(ties, k)
        n = int(n_pos[k] + n_neg[k])
        est = estimate[k]
        if method in ("smoothed_bootstrap", "pointwise"):
            if bandwidth is None:
                pooled = robust_scale(ClassSample(*merged(pos, neg)))
                h_pos[k] = default_bandwidth(pos, pooled)
                h_neg[k] = default_bandwidth(neg, pooled)
            else:
                h_pos[k], h_neg[k] = bandwidth
            low = min(pos.values.min(), neg.values.min())
            high = max(pos.values.max(), neg.values.max())
            with np.errstate(over="ignore", invalid="ignore"):
                reach = (high - low) + 20.0 * max(h_pos[k], h_neg[k])  # the smoothed cdf's table spans this
            if not np.isfinite(reach):
                raise InputError(
                    f"score {curve.score!r} spreads wider than floating point allows for kernel smoothing (values "
                    f"from {low:.3g} to {high:.3g}); rescale it "
                    "(ranks, a logarithm) or use method='bootstrap', which needs no smoothing")
        if method == "pointwise":
            lower[k], upper[k] = _pointwise(pos, neg, grid, est, level, h_pos[k], h_neg[k])
            continue
        smoothed = method == "smoothed_bootstrap"
        if smoothed:
            p_used[k] = default_p_tilde(n, int(n_pos[k]))[0] if p_tilde is None else p_tilde
        out = bootstrap_sups(pos, neg, grid, est, smoothed=smoothed, h_pos=h_pos[k], h_neg=h_neg[k],
                              p_tilde=p_used[k], n_boot=n_boot, rng=streams[k], keep_process=studentize,
                              split_ties=split_ties, bar=bar)
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
    bar.close()
    if low_ess:
        labels = describe_keys(curve.keys, curve.by, low_ess)
        warnings.warn(
            f"the importance weights are degenerate: effective sample size below {_ESS_WARN_FRACTION:.0%} of "
            f"n_boot={n_boot} for {len(low_ess)} group(s) ({'; '.join(f'{l}: ESS={ess[k]:.1f}' for l, k in zip(labels, low_ess))}). "
            "The band's radius rests on few replicates; leave `p_tilde` at its default",
            LowEffectiveSampleSizeWarning, stacklevel=stacklevel)
    return BandResult(method=method, level=level, eps=options["eps"], recall=grid, estimate=estimate, lower=lower,
                      upper=upper, r_delta=r_delta, ess=ess, n_boot=0 if method == "pointwise" else n_boot,
                      bandwidth_pos=h_pos, bandwidth_neg=h_neg, p_tilde=p_used, ties=ties, keys=curve.keys,
                      by=tuple(curve.by), frame_kind=curve.frame_kind, studentized=studentize)


def _pointwise(pos: ClassSample, neg: ClassSample, grid: np.ndarray, est: np.ndarray, level: float,
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
            slope[finite] = kde(neg, h_neg, t[finite]) / kde(pos, h_pos, t[finite])
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = pointwise_variance(grid, est, alpha, p_hat, slope)
    half = normal_quantile(level) * np.sqrt(variance / n)
    return np.clip(est - half, 0.0, 1.0), np.clip(est + half, 0.0, 1.0)

