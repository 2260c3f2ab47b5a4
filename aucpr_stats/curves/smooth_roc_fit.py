r"""Smoothed ROC curves of every segment of a tie table: binormal, kernel density, fitted distributions.

The kernels behind :func:`aucpr_stats.curves.smooth_roc.smooth_roc`, on
arrays, vectorised over the segments of a :class:`~aucpr_stats.ties.TieTable`
(groups, or bootstrap replicates of groups). Each follows the definition of
pROC's ``smooth()`` (Robin et al. 2011), so that the numbers agree with it:

* ``"binormal"`` (Metz, Herman & Shen 1998, section 2): the empirical ROC
  points strictly inside the unit square (one after each distinct score) on
  probit axes, the ordinary least squares line of
  :math:`\Phi^{-1}(\mathrm{sp})` on :math:`\Phi^{-1}(\mathrm{se})`,

  .. math:: \Phi^{-1}(\mathrm{sp}) = a + b\,\Phi^{-1}(\mathrm{se}),

  read at ``n`` sensitivities :math:`0, 1/(n-1), \dots, 1`; its area is the
  closed form :math:`\Phi\big(a / \sqrt{1 + b^2}\big)` (Eq. 3 of Metz et al.
  in these coordinates);
* ``"density"``: each class's kernel density estimate on ``n`` equally
  spaced scores from ``min - 3 h`` to ``max + 3 h`` of the pooled scores,
  with the pooled bandwidth ``h`` (Silverman's rule ``"nrd0"``, Scott's
  ``"nrd"``, or a number, times ``adjust``), computed as R's ``density()``
  does: linear binning on a grid of ``max(n, 512)`` points (a power of two
  above 512) widened by ``4 h``, a circular convolution by FFT with the
  kernel, and linear interpolation at the ``n`` scores;
* ``"fitdistr"``: each class's maximum-likelihood normal, log-normal or
  exponential density (closed forms, as ``MASS::fitdistr``) on ``n``
  equally spaced scores from the pooled minimum to the maximum.

For the last two the curve is read off the densities at the grid scores as
sums (Riemann sums of the fitted distributions), sorted by specificity with
the end points (0, 1) and (1, 0) added, and its area is the trapezoid rule.

References
----------
Robin, X. et al. (2011). pROC: an open-source package for R and S+ to
analyze and compare ROC curves. BMC Bioinformatics 12, 77 (section
"Smoothing").
Metz, C. E., Herman, B. A., Shen, J.-H. (1998). Maximum likelihood estimation
of receiver operating characteristic (ROC) curves from continuously-distributed
data. Statistics in Medicine 17, 1033-1053.
Silverman, B. W. (1986). Density Estimation. Chapman & Hall, Eq. (3.31).
"""

from __future__ import annotations

import math

import attrs
import numpy as np

from ..distributions import normal_cdf, normal_quantile
from ..ties import TieTable

__all__ = [
    "BANDWIDTHS",
    "DISTRIBUTIONS",
    "KERNELS",
    "REASONS",
    "SMOOTH_METHODS",
    "Smoothed",
    "density_grid_size",
    "smooth_tables",
]

SMOOTH_METHODS = ("binormal", "density", "fitdistr")
KERNELS = ("gaussian", "epanechnikov", "rectangular", "triangular", "biweight", "cosine", "optcosine")
BANDWIDTHS = ("nrd0", "nrd")
DISTRIBUTIONS = ("normal", "lognormal", "exponential")

#: Why a segment has no smoothed curve, by code (0: it has one).
REASONS = {
    1: "a class is empty",
    2: "not smoothable: fewer than two empirical ROC points strictly inside the unit square, or all at one "
       "sensitivity or specificity",
    3: "a class has fewer than two distinct scores (the fitted spread is 0)",
    4: "scores outside the distribution's support (log-normal: > 0; exponential: >= 0)",
    5: "the bandwidth is not positive",
}

#: Array elements of one batch of FFT rows (segments times grid points).
_BATCH_ELEMENTS = 1 << 21


@attrs.frozen(eq=False)
class Smoothed:
    """Smoothed curves of every segment: ``n + 2`` points each, by increasing specificity.

    Attributes
    ----------
    specificity, sensitivity, threshold : ndarray, shape (n_segments, n + 2)
        The points (the first is (0, 1), the last (1, 0)); ``threshold`` on
        the caller's scale (NaN for the binormal curve's inner points).
    auc : ndarray, shape (n_segments,)
    reason : ndarray of int8, shape (n_segments,)
        0, or the key of :data:`REASONS` (the segment's row is NaN).
    parameters : dict of ndarray
        Per segment: ``intercept``, ``slope`` (binormal); ``bandwidth``
        (density); the fitted parameters of each class (fitdistr).
    """

    specificity: np.ndarray
    sensitivity: np.ndarray
    threshold: np.ndarray
    auc: np.ndarray
    reason: np.ndarray
    parameters: dict


def density_grid_size(n: int) -> int:
    """The FFT grid of R's ``density()``: ``max(n, 512)``, rounded up to a power of two above 512."""
    size = max(n, 512)
    return size if size <= 512 else 1 << math.ceil(math.log2(size))


# ----------------------------------------------------------------- moments
def _mean(ties: TieTable, counts: np.ndarray, values: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Mean of each segment's values with multiplicities, with one refinement pass (as R's ``mean``)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = ties.segment_sum(counts * values) / total
        return mean + ties.segment_sum(counts * (values - mean[ties.segment_ids()])) / total


def _variance(ties: TieTable, counts: np.ndarray, values: np.ndarray, total: np.ndarray, mean: np.ndarray):
    with np.errstate(invalid="ignore", divide="ignore"):
        return ties.segment_sum(counts * (values - mean[ties.segment_ids()]) ** 2) / (total - 1)


def _order_statistic(ties: TieTable, counts: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """The ``rank``-th smallest value (0-based) of each segment's values with multiplicities."""
    cum = np.cumsum(counts)
    start = np.concatenate([[0], cum])[ties.offsets[:-1]]
    total = np.concatenate([[0], cum])[ties.offsets[1:]] - start
    descending = total - 1 - rank  # the rows are in descending order of score
    row = np.searchsorted(cum, start + descending, side="right")
    return ties.score[np.minimum(row, ties.n_rows - 1)]


def _quantile7(ties: TieTable, counts: np.ndarray, total: np.ndarray, p: float) -> np.ndarray:
    """Hyndman & Fan's type 7 quantile (R's default) of each segment's values with multiplicities."""
    index = np.maximum(total - 1, 0) * p
    low = np.floor(index)
    x_low = _order_statistic(ties, counts, low)
    x_high = _order_statistic(ties, counts, np.ceil(index))
    h = index - low
    return np.where((index > low) & (x_high != x_low), (1 - h) * x_low + h * x_high, x_low)


def _bandwidth(ties: TieTable, values: np.ndarray, rule: str | float) -> np.ndarray:
    """The pooled bandwidth of every segment: Silverman's ``0.9 min(sd, IQR/1.34) N^(-1/5)``, Scott's, or a number."""
    counts = (ties.pos + ties.neg).astype(np.float64)
    total = ties.segment_sum(counts).astype(np.float64)
    if not isinstance(rule, str):
        return np.full(ties.n_segments, float(rule))
    mean = _mean(ties, counts, values, total)
    with np.errstate(invalid="ignore"):
        sd = np.sqrt(_variance(ties, counts, values, total, mean))
    iqr = np.abs(_quantile7(ties, counts, total, 0.75) - _quantile7(ties, counts, total, 0.25))
    spread = np.fmin(sd, iqr / 1.34)
    with np.errstate(invalid="ignore", divide="ignore"):
        if rule == "nrd":
            return 1.06 * spread * total ** (-1 / 5)
        # Silverman's fallbacks: the sd when the IQR is 0, then |a score| (all scores equal), then 1
        first = np.zeros(ties.n_segments)
        present = counts > 0
        np.maximum.at(first, ties.segment_ids()[present], np.abs(values[present]))
        spread = np.where(spread == 0, sd, spread)
        spread = np.where(spread == 0, first, spread)
        spread = np.where(spread == 0, 1.0, spread)
        return 0.9 * spread * total ** (-0.2)


# ------------------------------------------------------------ the grids
def _evenly(start: np.ndarray, stop: np.ndarray, n: int) -> np.ndarray:
    """``n`` evenly spaced values from ``start`` to ``stop`` per segment, as R's ``seq(length.out=)``: shape (S, n)."""
    step = (stop - start) / max(n - 1, 1)
    out = start[:, None] + np.arange(n)[None, :] * step[:, None]
    if n > 1:
        out[:, -1] = stop
    return out


def _kernel(k: np.ndarray, bw: np.ndarray, kernel: str) -> np.ndarray:
    """Kernel of standard deviation ``bw`` (per row) at the offsets ``k`` (Silverman 1986, Table 3.1)."""
    a = np.abs(k)
    if kernel == "gaussian":
        z = a / bw
        return np.exp(-0.5 * z * z) / (math.sqrt(2 * math.pi) * bw)
    scale = {"rectangular": math.sqrt(3), "triangular": math.sqrt(6), "epanechnikov": math.sqrt(5),
             "biweight": math.sqrt(7), "cosine": 1 / math.sqrt(1 / 3 - 2 / math.pi ** 2),
             "optcosine": 1 / math.sqrt(1 - 8 / math.pi ** 2)}[kernel]
    h = bw * scale  # half-width of the support
    u = a / h
    value = {"rectangular": lambda: 0.5 / h + 0 * u, "triangular": lambda: (1 - u) / h,
             "epanechnikov": lambda: 0.75 * (1 - u * u) / h, "biweight": lambda: 15 / 16 * (1 - u * u) ** 2 / h,
             "cosine": lambda: (1 + np.cos(math.pi * u)) / (2 * h),
             "optcosine": lambda: math.pi / 4 * np.cos(math.pi * u / 2) / h}[kernel]()
    return np.where(u < 1, value, 0.0)


def _kde(ties: TieTable, rows: np.ndarray, counts: np.ndarray, values: np.ndarray, low: np.ndarray,
         high: np.ndarray, bw: np.ndarray, grid: np.ndarray, m: int, kernel: str) -> np.ndarray:
    """One class's density of segments ``rows`` (a range) at ``grid`` (S, n): binned, convolved by FFT, interpolated."""
    s = rows.size
    first, last = ties.offsets[rows[0]], ties.offsets[rows[-1] + 1]
    seg = ties.segment_ids()[first:last] - rows[0]
    c = counts[first:last].astype(np.float64)
    x = values[first:last]
    n_class = np.bincount(seg, weights=c, minlength=s)
    keep = c > 0
    seg, c, x = seg[keep], c[keep], x[keep]
    # linear binning of the weights 1 / n_class on m points from low to high
    delta = (high - low) / (m - 1)
    position = (x - low[seg]) / delta[seg]
    at = np.clip(np.floor(position), 0, m - 2)
    frac = position - at
    with np.errstate(invalid="ignore", divide="ignore"):
        w = c / n_class[seg]
    flat = seg * (2 * m) + at.astype(np.int64)
    binned = (np.bincount(flat, weights=w * (1 - frac), minlength=s * 2 * m)
              + np.bincount(flat + 1, weights=w * frac, minlength=s * 2 * m)).reshape(s, 2 * m)
    # the kernel at the circular offsets 0, d, ..., m d, then -(m - 1) d, ..., -d (d the doubled grid's step)
    offsets = _evenly(np.zeros(s), 2 * (high - low), 2 * m)
    offsets[:, m + 1:] = -offsets[:, m - 1:0:-1]
    weights = _kernel(offsets, bw[:, None], kernel)
    smooth = np.fft.ifft(np.fft.fft(binned, axis=1) * np.conj(np.fft.fft(weights, axis=1)), axis=1).real[:, :m]
    smooth = np.maximum(smooth, 0.0)
    # linear interpolation at the grid (R's approx)
    nodes = _evenly(low, high, m)
    j = np.clip(np.floor((grid - low[:, None]) / delta[:, None]).astype(np.int64), 0, m - 2)
    j = np.where(np.take_along_axis(nodes, j, axis=1) > grid, np.maximum(j - 1, 0), j)
    j = np.where(np.take_along_axis(nodes, j + 1, axis=1) <= grid, np.minimum(j + 1, m - 2), j)
    x0, x1 = np.take_along_axis(nodes, j, axis=1), np.take_along_axis(nodes, j + 1, axis=1)
    y0, y1 = np.take_along_axis(smooth, j, axis=1), np.take_along_axis(smooth, j + 1, axis=1)
    value = y0 + (y1 - y0) * ((grid - x0) / (x1 - x0))
    return np.where(grid == x1, y1, np.where(grid == x0, y0, value))


# ------------------------------------------------------------ the curves
def _curve_from_densities(cases: np.ndarray, controls: np.ndarray, lower: np.ndarray):
    """Sensitivity and specificity at each grid score from the class densities there (pROC's ``perfs.dens``).

    Larger scores positive: a case is called positive at or above the grid
    score; smaller scores positive (``lower``): at or below it, and a negative
    negative when strictly above it.
    """
    def left(d):  # sum over j <= i
        return np.cumsum(d, axis=1)

    def right(d):  # sum over j >= i
        return np.cumsum(d[:, ::-1], axis=1)[:, ::-1]

    def shift_left(d):  # sum over j > i
        return np.concatenate([right(d)[:, 1:], np.zeros((d.shape[0], 1))], axis=1)

    with np.errstate(invalid="ignore", divide="ignore"):
        total_cases, total_controls = cases.sum(axis=1, keepdims=True), controls.sum(axis=1, keepdims=True)
        sp_high = np.concatenate([np.zeros((controls.shape[0], 1)), left(controls)[:, :-1]], axis=1)
        se_high = right(cases)
        se = np.where(lower[:, None], left(cases), se_high) / total_cases
        sp = np.where(lower[:, None], shift_left(controls), sp_high) / total_controls
    return se, sp


def _finish(se: np.ndarray, sp: np.ndarray, threshold: np.ndarray, lower: np.ndarray):
    """Sorted by specificity where it decreases (pROC's rule), with (0, 1) and (1, 0) added; the trapezoid area."""
    with np.errstate(invalid="ignore"):
        unsorted = np.any(np.diff(sp, axis=1) < 0, axis=1)
    flip = unsorted[:, None]
    se, sp, threshold = (np.where(flip, a[:, ::-1], a) for a in (se, sp, threshold))
    s = se.shape[0]
    ones, zeros = np.ones((s, 1)), np.zeros((s, 1))
    se = np.concatenate([ones, se, zeros], axis=1)
    sp = np.concatenate([zeros, sp, ones], axis=1)
    ends = np.where(lower, np.inf, -np.inf)[:, None]
    threshold = np.concatenate([ends, threshold, -ends], axis=1)
    auc = np.sum((sp[:, 1:] - sp[:, :-1]) * ((se[:, 1:] + se[:, :-1]) / 2), axis=1)
    return se, sp, threshold, auc


def _binormal(ties: TieTable, n: int, reason: np.ndarray):
    tp, fp = ties.segment_cumsum(ties.pos), ties.segment_cumsum(ties.neg)
    seg = ties.segment_ids()
    n_pos, n_neg = ties.n_pos.astype(np.float64), ties.n_neg.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z_se = normal_quantile(tp / n_pos[seg])
        z_sp = normal_quantile((n_neg[seg] - fp) / n_neg[seg])
    use = ((ties.pos + ties.neg) > 0) & np.isfinite(z_se) & np.isfinite(z_sp)
    k = np.bincount(seg[use], minlength=ties.n_segments).astype(np.float64)
    x, y, g = z_se[use], z_sp[use], seg[use]
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = np.bincount(g, weights=x, minlength=ties.n_segments) / k
        my = np.bincount(g, weights=y, minlength=ties.n_segments) / k
        dx, dy = x - mx[g], y - my[g]
        slope = np.bincount(g, weights=dx * dy, minlength=ties.n_segments) / np.bincount(
            g, weights=dx * dx, minlength=ties.n_segments)
        intercept = my - slope * mx
    # a line needs two distinct sensitivities (lm's slope is NA otherwise) and a slope that is not 0
    big, small = np.full(ties.n_segments, -np.inf), np.full(ties.n_segments, np.inf)
    np.maximum.at(big, g, x)
    np.minimum.at(small, g, x)
    with np.errstate(invalid="ignore"):
        spread = big - small
    bad = (reason == 0) & ((k < 2) | ~(spread > 0) | ~np.isfinite(slope) | (slope == 0))
    reason = np.where(bad, 2, reason)
    intercept, slope = np.where(reason == 0, intercept, np.nan), np.where(reason == 0, slope, np.nan)
    z = normal_quantile(np.minimum(np.arange(n) * (1 / (n - 1)), 1.0))
    se = np.broadcast_to(normal_cdf(z), (ties.n_segments, n)).copy()
    with np.errstate(invalid="ignore"):
        sp = normal_cdf(intercept[:, None] + z[None, :] * slope[:, None])
    se, sp, threshold, _ = _finish(se, sp, np.full(se.shape, np.nan), np.zeros(ties.n_segments, dtype=bool))
    with np.errstate(invalid="ignore"):
        auc = normal_cdf(intercept / np.sqrt(1 + slope ** 2))
    return se, sp, threshold, auc, reason, {"intercept": intercept, "slope": slope}


def _density(ties, values, lower, n, bandwidth, adjust, kernel, reason):
    bw = _bandwidth(ties, values, bandwidth) * adjust
    reason = np.where((reason == 0) & ~(bw > 0), 5, reason)
    bw = np.where(reason == 0, bw, 1.0)
    present = (ties.pos + ties.neg) > 0
    big, small = np.full(ties.n_segments, -np.inf), np.full(ties.n_segments, np.inf)
    np.maximum.at(big, ties.segment_ids()[present], values[present])
    np.minimum.at(small, ties.segment_ids()[present], values[present])
    big, small = np.where(reason == 0, big, 1.0), np.where(reason == 0, small, 0.0)
    start, stop = small - 3 * bw, big + 3 * bw
    low, high = start - 4 * bw, stop + 4 * bw
    grid = _evenly(start, stop, n)
    m = density_grid_size(n)
    cases, controls = np.empty((ties.n_segments, n)), np.empty((ties.n_segments, n))
    batch = max(1, _BATCH_ELEMENTS // (2 * m))
    for b in range(0, ties.n_segments, batch):  # batches of segments: bounded FFT memory
        rows = np.arange(b, min(b + batch, ties.n_segments))
        part = slice(rows[0], rows[-1] + 1)
        cases[part] = _kde(ties, rows, ties.pos, values, low[part], high[part], bw[part], grid[part], m, kernel)
        controls[part] = _kde(ties, rows, ties.neg, values, low[part], high[part], bw[part], grid[part], m, kernel)
    se, sp = _curve_from_densities(cases, controls, lower)
    se, sp, threshold, auc = _finish(se, sp, grid, lower)
    return se, sp, threshold, auc, reason, {"bandwidth": np.where(reason == 0, bw, np.nan)}


def _fit(ties, values, counts, family, reason):
    """Closed-form maximum-likelihood fit of one class per segment (MASS::fitdistr's estimates)."""
    total = ties.segment_sum(counts).astype(np.float64)
    present = counts > 0
    seg = ties.segment_ids()
    outside = np.zeros(ties.n_segments, dtype=bool)
    if family == "lognormal":
        np.logical_or.at(outside, seg[present], values[present] <= 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.log(np.where(values > 0, values, 1.0))
    elif family == "exponential":
        np.logical_or.at(outside, seg[present], values[present] < 0)
    c = counts.astype(np.float64)
    mean = _mean(ties, c, values, total)
    reason = np.where((reason == 0) & outside, 4, reason)
    if family == "exponential":
        with np.errstate(divide="ignore"):
            scale = 1 / (1 / mean)
        reason = np.where((reason == 0) & ~(scale > 0), 3, reason)
        return (scale,), reason
    with np.errstate(invalid="ignore"):
        sd = np.sqrt((total - 1) / total) * np.sqrt(_variance(ties, c, values, total, mean))
    reason = np.where((reason == 0) & ~(sd > 0), 3, reason)
    return (mean, sd), reason


def _fitted_density(x: np.ndarray, family: str, parameters) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if family == "exponential":
            scale = parameters[0][:, None]
            return np.where(x >= 0, np.exp(-x / scale) / scale, 0.0)
        mean, sd = parameters[0][:, None], parameters[1][:, None]
        if family == "normal":
            z = (x - mean) / sd
            return np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi) / sd
        z = (np.log(np.where(x > 0, x, 1.0)) - mean) / sd
        return np.where(x > 0, np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi) / (x * sd), 0.0)


def _fitdistr(ties, values, lower, n, distributions, reason):
    controls_family, cases_family = distributions
    cases_fit, reason = _fit(ties, values, ties.pos, cases_family, reason)
    controls_fit, reason = _fit(ties, values, ties.neg, controls_family, reason)
    present = (ties.pos + ties.neg) > 0
    big, small = np.full(ties.n_segments, -np.inf), np.full(ties.n_segments, np.inf)
    np.maximum.at(big, ties.segment_ids()[present], values[present])
    np.minimum.at(small, ties.segment_ids()[present], values[present])
    big, small = np.where(reason == 0, big, 1.0), np.where(reason == 0, small, 0.0)
    grid = _evenly(small, big, n)
    cases = _fitted_density(grid, cases_family, cases_fit)
    controls = _fitted_density(grid, controls_family, controls_fit)
    bad = reason != 0
    cases[bad], controls[bad] = 1.0, 1.0
    se, sp = _curve_from_densities(cases, controls, lower)
    se, sp, threshold, auc = _finish(se, sp, grid, lower)
    names = {"normal": ("mean", "sd"), "lognormal": ("meanlog", "sdlog"), "exponential": ("scale",)}
    parameters = {}
    for role, family, fit in (("controls", controls_family, controls_fit), ("cases", cases_family, cases_fit)):
        for name, value in zip(names[family], fit):
            parameters[f"{role}_{name}"] = np.where(reason == 0, value, np.nan)
    return se, sp, threshold, auc, reason, parameters


def smooth_tables(ties: TieTable, method: str = "binormal", n: int = 512, *, lower=None,
                  bandwidth: str | float = "nrd0", adjust: float = 1.0, kernel: str = "gaussian",
                  distributions: tuple[str, str] = ("normal", "normal")) -> Smoothed:
    """Smoothed ROC curve and its area for every segment of ``ties`` (arguments checked by the caller).

    Parameters
    ----------
    ties : TieTable
        One segment per group or replicate, scores oriented so that larger
        is more positive (rows with zero counts are ignored).
    method : {"binormal", "density", "fitdistr"}
    n : int
        Points of the smoothed curve (at least 2), before the end points.
    lower : ndarray of bool, optional
        Per segment, True where the caller's scores were negated
        (``direction="lower"``): densities are then estimated on the
        caller's scale, as pROC does for ``direction=">"``.
    bandwidth : {"nrd0", "nrd"} or float
        ``"density"``: the pooled bandwidth rule, or a bandwidth on the caller's scale.
    adjust : float
        ``"density"``: multiplies the bandwidth.
    kernel : str
        ``"density"``: one of :data:`KERNELS` (bandwidth = the kernel's standard deviation).
    distributions : (str, str)
        ``"fitdistr"``: the family of the negatives (controls) and of the
        positives (cases), each one of :data:`DISTRIBUTIONS`.

    Returns
    -------
    Smoothed
    """
    lower = np.zeros(ties.n_segments, dtype=bool) if lower is None else np.asarray(lower, dtype=bool)
    reason = np.where((ties.n_pos > 0) & (ties.n_neg > 0), 0, 1).astype(np.int8)
    if method == "binormal":
        out = _binormal(ties, n, reason)
    else:
        values = np.where(lower[ties.segment_ids()], -ties.score, ties.score) + 0.0  # the caller's scale
        if method == "density":
            out = _density(ties, values, lower, n, bandwidth, adjust, kernel, reason)
        else:
            out = _fitdistr(ties, values, lower, n, distributions, reason)
    se, sp, threshold, auc, reason, parameters = out
    bad = reason != 0
    se, sp, auc = (np.where(bad[:, None], np.nan, se), np.where(bad[:, None], np.nan, sp),
                   np.where(bad, np.nan, auc))
    return Smoothed(specificity=sp, sensitivity=se, threshold=threshold, auc=auc, reason=reason.astype(np.int8),
                    parameters=parameters)
