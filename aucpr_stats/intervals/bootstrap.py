"""Stratified bootstrap on tie-table counts (Boyd, Eng & Page 2013, section 3.2).

A stratified bootstrap replicate resamples the ``n`` positive rows with
replacement and, separately, the ``m`` negative rows, so the prevalence is
exact in every replicate. Every statistic here depends on the rows only
through the tie table, and resampling ``n`` positives with replacement puts
a multinomial number of them on each tie row:

.. math:: (P^*_1, \\dots, P^*_K) \\sim \\mathrm{Multinomial}(n;\\ p_1/n, \\dots, p_K/n)

where ``p_k`` is the number of positives at the ``k``-th distinct score, and
likewise for the negatives, independently. So a replicate is the original
table with new counts: exactly the distribution of row resampling, with no
re-sort, at a cost of O(rows + draws) per replicate.

Draws are vectorised over replicates in memory-bounded chunks (a constant
number of numpy calls per chunk, none per replicate or per group). Two exact
samplers (up to the double-precision rounding of uniform draws and Poisson
probabilities) are used per class, whichever is cheaper for the table:

* *unit by unit*: each of the ``n`` resampled positives picks one of the
  ``n`` original positives uniformly (``Generator.integers``, or Lemire's
  multiply-shift with rejection when groups differ in size), and the picks
  are counted per tie row; cost O(n) per replicate. Used when rows hold one
  or two units each (continuous scores);
* *Poisson with completion* (:class:`_PoissonFillSampler`): independent
  Poisson counts per tie row, completed unit by unit to exactly ``n``; cost
  O(tie rows) per replicate. Used when rows hold many units (ties, or the
  merged tables below).

Before resampling, the table is reduced exactly for the estimators asked for
(:func:`reduce_for`): for average precision every run of negative-only rows
is merged into the next row with positives (:func:`merge_negative_runs`),
for the trapezoids and a few others each such run becomes one row
(:func:`collapse_negative_runs`). Estimates and bootstrap distribution are
unchanged, and a continuous-score table shrinks from ``n + m`` rows to about
``n`` (or ``2n``). Average precision of a chunk of replicates is computed on
(replicate, row) arrays (:func:`_average_precision_replicates`, the same
values as the estimator).

Replicate tables are laid out replicate-major: segment ``b * n_segments + s``
is replicate ``b`` of segment ``s``.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

import numpy as np

from .._ties import TieTable
from ..estimators import PR_ESTIMATORS

__all__ = [
    "DEFAULT_N_BOOT",
    "as_generator",
    "iter_replicates",
    "stratified_counts",
    "bootstrap_estimates",
    "percentile_interval",
    "merge_negative_runs",
    "collapse_negative_runs",
    "reduce_for",
    "POSITIVE_ROW_ESTIMATORS",
    "NEGATIVE_RUN_ESTIMATORS",
    "study_interval",
]

#: Replicates of a bootstrap interval, as in Boyd et al. (2013).
DEFAULT_N_BOOT = 1000

#: Default memory budget of one chunk, in array elements (about 8 MB per int64 array).
DEFAULT_CHUNK_ELEMENTS = 1 << 20

#: Estimators that depend on a tie table only through the precision at the
#: rows holding positives (and the number of positives), so that merging each
#: run of negative-only rows into the next row with a positive changes neither
#: the estimate nor, because multinomial counts aggregate, the bootstrap
#: distribution. The bootstrap of these runs on the merged, smaller table.
#: Read off the estimators' own marks (:func:`aucpr_stats._ties.positive_rows_only`).
POSITIVE_ROW_ESTIMATORS = frozenset(
    name for name, fn in PR_ESTIMATORS.items() if getattr(fn, "positive_rows_only", False))

#: Estimators unchanged when each run of consecutive negative-only rows is
#: collapsed into one row (:func:`collapse_negative_runs`); checked in the
#: tests for every name listed here. The bootstrap of these runs on the
#: collapsed table (about ``2 n`` rows for continuous scores). Read off the
#: estimators' marks (:func:`aucpr_stats._ties.negative_runs_invariant`).
NEGATIVE_RUN_ESTIMATORS = frozenset(
    name for name, fn in PR_ESTIMATORS.items() if getattr(fn, "negative_runs_invariant", False))

_TWO32 = np.uint64(1 << 32)
_LOW32 = np.uint64(0xFFFFFFFF)


def as_generator(seed) -> np.random.Generator:
    """``seed`` (None, an int or a Generator) as a numpy Generator; a Generator is used as is."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


# ------------------------------------------------------------------ sampling
def _uniform_below(rng: np.random.Generator, high: np.ndarray, rows: int) -> np.ndarray:
    """Exactly uniform integers in ``[0, high[j])``, shape (rows, high.size).

    Lemire (2019), "Fast random integer generation in an interval": for a
    uniform 32-bit ``x``, ``(x * h) >> 32`` is uniform on ``[0, h)`` once the
    draws whose low 32 bits fall below ``2**32 mod h`` are rejected. Rejected
    draws (a fraction below ``h / 2**32``) are redrawn with
    :meth:`~numpy.random.Generator.integers`, which keeps the result exactly
    uniform and independent. ``high`` may differ per column (groups of
    different sizes), which ``Generator.integers`` handles ten times slower.
    """
    n = rows * high.size
    raw = rng.bit_generator.random_raw((n + 1) // 2)
    x = raw.view(np.uint32)[:n].reshape(rows, high.size)
    h = high.astype(np.uint64)
    m = x * h  # uint32 * uint64 -> uint64, exact since both factors < 2**32
    out = (m >> np.uint64(32)).astype(np.int64)
    bad = (m & _LOW32) < ((_TWO32 - h) % h)
    if bad.any():
        rr, cc = np.nonzero(bad)
        out[rr, cc] = rng.integers(0, high[cc])
    return out


class _UnitSampler:
    """Replicate counts of one class by resampling its units (rows of that class) one by one.

    Each of the ``N`` resampled units of a segment picks one of the segment's
    ``N`` original units uniformly at random; the picks are counted per tie
    row. Cost O(N) per replicate.
    """

    def __init__(self, ties: TieTable, counts: np.ndarray):
        n_seg = ties.n_segments
        self.n_rows = ties.n_rows
        self.n_seg = n_seg
        self.totals = ties.segment_sum(counts)
        # unit u of segment s is the u-th unit of this class in s, at row unit_row[u]
        self.unit_row = np.repeat(np.arange(ties.n_rows, dtype=np.int64), counts)
        self.seg_unit_start = np.zeros(n_seg, dtype=np.int64)
        np.cumsum(self.totals[:-1], out=self.seg_unit_start[1:])
        seg_of_unit = np.repeat(np.arange(n_seg), self.totals)
        sizes = np.unique(self.totals[self.totals > 0])
        # one segment size: Generator.integers with a scalar bound (fastest);
        # several: Lemire's method with a bound per unit
        self.high = int(sizes[0]) if sizes.size == 1 else self.totals[seg_of_unit]
        self.unit_start = None if n_seg == 1 else self.seg_unit_start[seg_of_unit]

    def draw(self, rng: np.random.Generator, n_rep: int) -> np.ndarray:
        """Counts of ``n_rep`` replicates, replicate-major, shape (n_rep * n_rows,)."""
        n_units = self.unit_row.size
        if n_units == 0:
            return np.zeros(n_rep * self.n_rows, dtype=np.int64)
        if isinstance(self.high, int):
            picks = rng.integers(0, self.high, size=(n_rep, n_units))
        else:
            picks = _uniform_below(rng, self.high, n_rep)
        if self.unit_start is not None:
            picks += self.unit_start
        rows = self.unit_row[picks]
        rows += (np.arange(n_rep, dtype=np.int64) * self.n_rows)[:, None]
        return np.bincount(rows.ravel(), minlength=n_rep * self.n_rows)

    def draw_some(self, rng: np.random.Generator, deficit: np.ndarray) -> np.ndarray:
        """``deficit[b, s]`` extra units for segment ``s`` of replicate ``b``; counts (n_rep * n_rows,)."""
        n_rep = deficit.shape[0]
        which = np.repeat(np.arange(deficit.size, dtype=np.int64), deficit.ravel())
        if which.size == 0:
            return np.zeros(n_rep * self.n_rows, dtype=np.int64)
        rep, seg = np.divmod(which, self.n_seg)
        picks = _uniform_below(rng, self.totals[seg], 1)[0]
        rows = self.unit_row[picks + self.seg_unit_start[seg]] + rep * self.n_rows
        return np.bincount(rows, minlength=n_rep * self.n_rows)


class _PoissonFillSampler:
    r"""Replicate counts of one class in O(tie rows), for rows holding many units.

    Multinomial counts by Poissonisation with completion. Draw independent
    :math:`C_k \sim \mathrm{Poisson}(\lambda c_k)` for the rows of a segment
    (``c_k`` the row's count, :math:`\lambda = 1 - 3/\sqrt N`), so that
    :math:`S = \sum_k C_k` is a little below ``N``. Given ``S``, the vector
    ``C`` is Multinomial(S; c/N); adding ``N - S`` units drawn one by one from
    the same probabilities makes it exactly Multinomial(N; c/N). When
    ``S > N`` (probability about 0.1%) the segment's draw is discarded and all
    ``N`` units are drawn one by one, which is also exactly multinomial, so
    the result is exact whatever ``S`` is.

    Poisson variates come from inversion of the Poisson CDF with one uniform
    each: a guide table over 256 cells of [0, 1) per distinct mean points to a
    starting count, followed by a short vectorised search (Devroye 1986,
    section III.2.4). Means above 64 (or too many distinct means) use
    :meth:`numpy.random.Generator.poisson`.
    """

    CELLS = 256
    MAX_MEAN = 64.0
    MAX_DISTINCT = 2048

    def __init__(self, ties: TieTable, counts: np.ndarray, units: _UnitSampler):
        from scipy.stats import poisson

        self.units = units
        self.n_rows = ties.n_rows
        self.offsets = ties.offsets
        self.totals = units.totals
        seg_of_row = ties.segment_ids()
        lam = np.where(self.totals >= 16, 1.0 - 3.0 / np.sqrt(np.maximum(self.totals, 1)), 0.0)
        mean = lam[seg_of_row] * counts
        active = np.flatnonzero(mean > 0)
        mean = mean[active]
        small = mean <= self.MAX_MEAN
        values, inverse = np.unique(mean[small], return_inverse=True)
        if values.size > self.MAX_DISTINCT:
            small[:] = False
            values, inverse = values[:0], inverse[:0]
        self.rows_small, self.rows_large = active[small], active[~small]
        self.mean_large = mean[~small]
        self.seg_of_row = seg_of_row
        if values.size:
            width = int(np.ceil(values.max() + 12.0 * np.sqrt(values.max()) + 40.0))
            cdf = poisson.cdf(np.arange(width)[None, :], values[:, None])
            cdf[:, -1] = 2.0  # sentinel above every uniform; the mass beyond is < 1e-30
            grid = np.arange(self.CELLS) / self.CELLS
            # guide[d, i] = number of CDF values <= i / CELLS: the count at the cell's lower edge
            guide = np.stack([np.searchsorted(row, grid, side="right") for row in cdf])
            self.cdf = cdf.ravel()
            self.cdf_base = inverse.astype(np.int64) * width
            self.guide = guide.ravel().astype(np.int64)
            self.guide_base = inverse.astype(np.int64) * self.CELLS

    def draw(self, rng: np.random.Generator, n_rep: int) -> np.ndarray:
        counts = np.zeros((n_rep, self.n_rows), dtype=np.int64)
        if self.rows_small.size:
            u = rng.random((n_rep, self.rows_small.size))
            cell = (u * self.CELLS).astype(np.int64)
            cell += self.guide_base
            index = self.guide[cell]
            index += self.cdf_base
            # walk up while F(count) <= u: most draws stop within a step or two,
            # so each pass only revisits the draws still walking
            flat_index, flat_u = index.reshape(-1), u.reshape(-1)
            walking = np.flatnonzero(self.cdf[flat_index] <= flat_u)
            while walking.size:
                flat_index[walking] += 1
                walking = walking[self.cdf[flat_index[walking]] <= flat_u[walking]]
            index -= self.cdf_base
            counts[:, self.rows_small] = index
        if self.rows_large.size:
            counts[:, self.rows_large] = rng.poisson(self.mean_large, size=(n_rep, self.rows_large.size))
        # per-segment totals S; deficits N - S are completed unit by unit
        nonempty = np.flatnonzero(self.offsets[:-1] < self.offsets[1:])
        sums = np.zeros((n_rep, self.totals.size), dtype=np.int64)
        if nonempty.size:
            sums[:, nonempty] = np.add.reduceat(counts, self.offsets[:-1][nonempty], axis=1)
        deficit = self.totals[None, :] - sums
        over = deficit < 0
        if over.any():  # S > N: discard and draw the whole segment unit by unit
            counts[over[:, self.seg_of_row]] = 0
            deficit[over] = np.broadcast_to(self.totals, over.shape)[over]
        counts = counts.ravel()
        counts += self.units.draw_some(rng, deficit)
        return counts


def _class_sampler(ties: TieTable, counts: np.ndarray):
    """The cheaper exact sampler for one class: unit by unit, or Poisson with completion."""
    units = _UnitSampler(ties, counts)
    busy_rows = int(np.count_nonzero(counts))
    # ~12 ns per unit against ~30 ns per busy row (numpy 2.4)
    if units.unit_row.size > 2.5 * busy_rows and units.unit_row.size >= 64:
        return _PoissonFillSampler(ties, counts, units)
    return units


def _chunk_size(ties: TieTable, chunk_size: int | None) -> int:
    if chunk_size is not None:
        return max(1, int(chunk_size))
    per_replicate = max(1, ties.n_rows + int(ties.pos.sum()) + int(ties.neg.sum()))
    return max(1, DEFAULT_CHUNK_ELEMENTS // per_replicate)


def iter_replicates(ties: TieTable, n_boot: int, rng: np.random.Generator,
                    chunk_size: int | None = None) -> Iterator[tuple[int, int, TieTable]]:
    """Stratified bootstrap replicates of every segment of ``ties``, chunk by chunk.

    Parameters
    ----------
    ties : TieTable
        Segments to resample (each class is resampled within its segment; a
        segment without positives keeps zero positives, and likewise).
    n_boot : int
        Number of replicates.
    rng : numpy.random.Generator
        Source of randomness (see :func:`as_generator`).
    chunk_size : int, optional
        Replicates per chunk; by default as many as fit in about 2**20 array
        elements. The draws depend on the chunk size, so keep it fixed for
        reproducible results.

    Yields
    ------
    start, stop : int
        The replicates ``start:stop`` held by this chunk.
    table : TieTable
        Segment ``b * ties.n_segments + s`` is replicate ``start + b`` of
        segment ``s``: the same scores with stratified resampled counts.
    """
    n_seg, n_rows = ties.n_segments, ties.n_rows
    per_chunk = min(_chunk_size(ties, chunk_size), max(n_boot, 1))
    positives, negatives = _class_sampler(ties, ties.pos), _class_sampler(ties, ties.neg)
    # scores and offsets of a full chunk, built once and sliced for the last
    score = np.tile(ties.score, per_chunk)
    offsets = (ties.offsets[:-1][None, :] + (np.arange(per_chunk) * n_rows)[:, None]).ravel()
    offsets = np.append(offsets, per_chunk * n_rows)
    for start in range(0, n_boot, per_chunk):
        stop = min(n_boot, start + per_chunk)
        size = stop - start
        pos = positives.draw(rng, size)
        neg = negatives.draw(rng, size)
        if size == per_chunk:
            table = TieTable(score, pos, neg, offsets)
        else:
            table = TieTable(score[: size * n_rows], pos, neg,
                             np.append(offsets[: size * n_seg], size * n_rows))
        yield start, stop, table


def stratified_counts(ties: TieTable, n_boot: int = DEFAULT_N_BOOT, seed=None,
                      chunk_size: int | None = None) -> TieTable:
    """All ``n_boot`` replicates in one table (replicate-major; see :func:`iter_replicates`).

    Convenient for small tables; use :func:`bootstrap_estimates` to keep
    memory bounded on large ones.
    """
    rng = as_generator(seed)
    parts = list(iter_replicates(ties, n_boot, rng, chunk_size))
    if not parts:
        return TieTable(np.empty(0), np.empty(0), np.empty(0), np.zeros(1))
    tables = [t for _, _, t in parts]
    offsets = [np.zeros(1, dtype=np.int64)]
    base = 0
    for t in tables:
        offsets.append(t.offsets[1:] + base)
        base += t.n_rows
    return TieTable(np.concatenate([t.score for t in tables]), np.concatenate([t.pos for t in tables]),
                    np.concatenate([t.neg for t in tables]), np.concatenate(offsets))


def _average_precision_replicates(table: TieTable, n_rep: int, template: TieTable) -> np.ndarray:
    """Average precision of a chunk of replicates, on (replicate, row) arrays.

    The same statistic as :func:`aucpr_stats.estimators.average_precision`
    (Boyd et al. 2013, Eq. 9: the mean over positives of ``TP / (TP + FP)`` at
    the bottom of each positive's tie block), specialised to the layout of
    :func:`iter_replicates`: every replicate repeats the rows of ``template``,
    so the running sums are plain cumulative sums along the rows, restarted per
    segment, and the class sizes are those of ``template`` (stratified).
    """
    n_rows = template.n_rows
    pos = table.pos.reshape(n_rep, n_rows)
    tp = np.cumsum(pos, axis=1)
    admitted = np.cumsum(table.neg.reshape(n_rep, n_rows), axis=1)
    admitted += tp
    starts = template.offsets[:-1]
    nonempty = np.flatnonzero(starts < template.offsets[1:])
    if template.n_segments > 1:
        # restart the running sums at each segment: subtract what came before it
        before = np.zeros((n_rep, template.n_segments), dtype=np.int64)
        later = nonempty[starts[nonempty] > 0]
        before[:, later] = tp[:, starts[later] - 1]
        tp -= np.repeat(before, template.lengths, axis=1)
        before[:, later] = admitted[:, starts[later] - 1]
        admitted -= np.repeat(before, template.lengths, axis=1)
    precision_sum = np.divide(pos * tp, admitted, out=np.zeros(pos.shape), where=pos > 0)
    out = np.full((n_rep, template.n_segments), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[:, nonempty] = np.add.reduceat(precision_sum, starts[nonempty], axis=1) / template.n_pos[nonempty]
    return out.ravel()


def _replicate_kernel(fn: Callable):
    """A faster kernel for ``fn`` on replicate chunks, if there is one (same values)."""
    from ..estimators import average_precision

    return _average_precision_replicates if fn is average_precision else None


def bootstrap_estimates(ties: TieTable, fns: Callable | Sequence[Callable], n_boot: int = DEFAULT_N_BOOT,
                        seed=None, chunk_size: int | None = None) -> np.ndarray:
    """Statistics of stratified bootstrap replicates of every segment.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive and one negative.
    fns : callable or sequence of callables
        ``fn(TieTable) -> ndarray[n_segments]``, e.g. registered estimators.
        All statistics see the same replicates (paired).
    n_boot : int
        Number of replicates.
    seed : None, int or numpy.random.Generator
        Same seed (and chunk size), same replicates.
    chunk_size : int, optional
        Replicates per chunk (memory bound), see :func:`iter_replicates`.

    Returns
    -------
    ndarray, shape (n_segments, n_boot), or (len(fns), n_segments, n_boot)
        when ``fns`` is a sequence.

    Examples
    --------
    >>> from aucpr_stats._ties import TieTable
    >>> from aucpr_stats.estimators import average_precision
    >>> t = TieTable([3.0, 2.0, 1.0, 0.0], [2, 0, 1, 0], [0, 1, 1, 2], [0, 4])
    >>> bootstrap_estimates(t, average_precision, n_boot=200, seed=1).shape
    (1, 200)
    """
    single = callable(fns)
    funcs = [fns] if single else list(fns)
    out = np.full((len(funcs), ties.n_segments, n_boot), np.nan)
    rng = as_generator(seed)
    kernels = [_replicate_kernel(fn) for fn in funcs]
    for start, stop, table in iter_replicates(ties, n_boot, rng, chunk_size):
        for j, fn in enumerate(funcs):
            with np.errstate(all="ignore"):
                if kernels[j] is not None:
                    values = kernels[j](table, stop - start, ties)
                else:
                    values = np.asarray(fn(table), dtype=np.float64)
            out[j, :, start:stop] = values.reshape(stop - start, ties.n_segments).T
    return out[0] if single else out


def percentile_interval(replicates: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval: the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles over the last axis.

    NaN replicates are ignored; all-NaN rows give NaN bounds. Quantiles use
    numpy's default (linear interpolation between order statistics).
    """
    alpha = (1.0 - level) / 2.0
    replicates = np.asarray(replicates, dtype=np.float64)
    if replicates.shape[-1] == 0:
        nan = np.full(replicates.shape[:-1], np.nan)
        return nan, nan.copy()
    finite = ~np.isnan(replicates)
    if finite.all():
        lower, upper = np.quantile(replicates, [alpha, 1.0 - alpha], axis=-1)
        return lower, upper
    with np.errstate(invalid="ignore"), _quiet_all_nan():
        lower, upper = np.nanquantile(replicates, [alpha, 1.0 - alpha], axis=-1)
    return lower, upper


class _quiet_all_nan:
    """Silence numpy's 'All-NaN slice' RuntimeWarning (all-NaN rows give NaN by design)."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.filterwarnings("ignore", message="All-NaN slice", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message="Degrees of freedom", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message="Mean of empty slice", category=RuntimeWarning)
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def replicate_summary(replicates: np.ndarray) -> dict[str, np.ndarray]:
    """Per row of ``replicates`` (last axis = replicates): count, mean, median and sd of the non-NaN values."""
    with np.errstate(invalid="ignore"), _quiet_all_nan():
        return {
            "n_boot": np.sum(~np.isnan(replicates), axis=-1),
            "boot_mean": np.nanmean(replicates, axis=-1),
            "boot_median": np.nanmedian(replicates, axis=-1),
            "se": np.nanstd(replicates, axis=-1, ddof=1),
        }


# ------------------------------------------------------------- table reduction
def _merge_into_next(ties: TieTable, keep: np.ndarray) -> TieTable:
    """Add the counts of every dropped row to the first kept row at or after it (same segment).

    The last row of every non-empty segment must be kept.
    """
    n_rows = ties.n_rows
    index = np.where(keep, np.arange(n_rows), n_rows)
    target = np.minimum.accumulate(index[::-1])[::-1]
    new_index = np.cumsum(keep) - 1
    n_kept = int(keep.sum())
    pos = np.bincount(new_index[target], weights=ties.pos, minlength=n_kept).astype(np.int64)
    neg = np.bincount(new_index[target], weights=ties.neg, minlength=n_kept).astype(np.int64)
    kept = ties.segment_sum(keep.astype(np.int64))
    offsets = np.zeros(ties.n_segments + 1, dtype=np.int64)
    np.cumsum(kept, out=offsets[1:])
    return TieTable(ties.score[keep], pos, neg, offsets)


def _segment_last_rows(ties: TieTable) -> np.ndarray:
    last = np.zeros(ties.n_rows, dtype=bool)
    nonempty = ties.lengths > 0
    last[ties.offsets[1:][nonempty] - 1] = True
    return last


def merge_negative_runs(ties: TieTable) -> TieTable:
    """Merge every run of negative-only rows into the next row holding positives.

    Within each segment, a row without positives is merged into the first
    following row that has positives (its negatives join that tie block);
    rows after the last positive are merged into the segment's last row. The
    precision at every row holding positives is unchanged, so estimators in
    :data:`POSITIVE_ROW_ESTIMATORS` give the same value; and since the
    negative counts of merged rows add up, multinomial resampling of the
    merged table has exactly the distribution of the merged counts of a
    resampled original table. The bootstrap of average precision on
    continuous scores thereby runs on about ``n`` rows instead of ``n + m``.
    """
    ties = ties.collapsed()  # a deferred table: without merging its classes (same result)
    if ties.n_rows == 0:
        return ties
    return _merge_into_next(ties, (ties.pos > 0) | _segment_last_rows(ties))


def collapse_negative_runs(ties: TieTable) -> TieTable:
    """Collapse every run of consecutive negative-only rows into one row (its last).

    The PR points inside such a run share one recall and fall in precision;
    estimators that only use, at each recall, the first and last of them (and
    the ROC convex hull, on which the run is a horizontal segment) are
    unchanged: :data:`NEGATIVE_RUN_ESTIMATORS`. As for
    :func:`merge_negative_runs`, multinomial resampling commutes with the
    merge, so the bootstrap distribution is the same. Scores of the dropped
    rows are lost, so estimators that use score values (binormal) are not
    in the set.
    """
    if ties.is_deferred:
        return ties.collapsed()  # built from the sorted classes, the same rows
    if ties.n_rows == 0:
        return ties
    has_pos = ties.pos > 0
    last = _segment_last_rows(ties)
    next_has_pos = np.zeros(ties.n_rows, dtype=bool)
    next_has_pos[:-1] = has_pos[1:]
    return _merge_into_next(ties, has_pos | last | next_has_pos)


def reduce_for(names) -> Callable[[TieTable], TieTable]:
    """The exact table reduction valid for every estimator in ``names`` (identity if none is)."""
    names = set(names)
    if names <= POSITIVE_ROW_ESTIMATORS:
        return merge_negative_runs
    if names <= NEGATIVE_RUN_ESTIMATORS:
        return collapse_negative_runs
    return lambda ties: ties


# --------------------------------------------------- simulation-study arm
def study_interval(ties: TieTable, estimator: Callable, level: float = 0.95, rng=None,
                   n_boot: int = DEFAULT_N_BOOT, chunk_size: int | None = None,
                   reduce_table: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap percentile interval of ``estimator`` for every segment: (lower, upper).

    The array-level entry point of the simulation study (one segment per
    simulated data set). The table is first reduced exactly for the estimator
    (:func:`reduce_for`) unless ``reduce_table=False``.
    """
    from ..estimators import PR_ESTIMATORS

    names = [name for name, fn in PR_ESTIMATORS.items() if fn is estimator]
    table = reduce_for(names)(ties) if reduce_table and names else ties
    replicates = bootstrap_estimates(table, estimator, n_boot=n_boot, seed=as_generator(rng), chunk_size=chunk_size)
    return percentile_interval(replicates, level)
