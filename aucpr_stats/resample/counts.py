r"""The stratified bootstrap on tie-table counts (Boyd, Eng & Page 2013, section 3.2).

A stratified bootstrap replicate resamples the ``n`` positive rows of a group
with replacement and, separately, its ``m`` negative rows, so the prevalence
is exact in every replicate. Every statistic here depends on the rows only
through the tie table, and resampling ``n`` positives with replacement puts
a multinomial number of them on each tie row:

.. math:: (P^*_1, \dots, P^*_K) \sim \mathrm{Multinomial}(n;\ p_1/n, \dots, p_K/n)

where ``p_k`` is the number of positives at the ``k``-th distinct score, and
likewise for the negatives, independently. So a replicate is the original
table with new counts: exactly the distribution of row resampling, with no
re-sort, at a cost of O(rows + draws) per replicate. A cluster bootstrap or
weights would change only the counts drawn here.

Two exact samplers (up to the double-precision rounding of uniform draws and
Poisson probabilities) are used per group and class, whichever is cheaper
for that group: unit by unit, or Poisson counts with completion
(:mod:`.samplers`).

Randomness: every group draws from its own stream (:mod:`.streams`), in
blocks of replicates whose size depends only on that group's table (or on
``chunk_size``), so its replicates do not depend on the other groups. Blocks
of several groups are evaluated together, with a constant number of numpy
calls per chunk of about 2**20 array elements; the chunks are evaluated on
worker threads (:mod:`.threads`) while the next ones are drawn, in the same
order on one thread, so the numbers do not depend on the number of threads.
A chunk's draws are made on the drawing thread; counting them per tie row is
left to the thread that evaluates the chunk (:class:`ReplicateChunk`).
"""

from __future__ import annotations

import functools
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator

import attrs
import numpy as np

from ..distributions import within_unit_interval
from ..scratch import release
from ..ties import TieTable
from .budget import check_allocation
from .samplers import ClassCounts
from .streams import Streams
from .threads import worker_threads

__all__ = [
    "DEFAULT_N_BOOT",
    "ReplicateChunk",
    "replicate_chunks",
    "cohort_chunks",
    "replicate_producers",
    "bootstrap_estimates",
    "estimates_of_chunks",
    "evaluate_chunks",
    "stratified_counts",
]

#: Replicates of a bootstrap, as in Boyd et al. (2013).
DEFAULT_N_BOOT = 1000

#: Memory budget of one chunk, in array elements (about 8 MB per int64 array).
CHUNK_ELEMENTS = 1 << 20


# ------------------------------------------------------------------ chunks
@attrs.define(eq=False)
class ReplicateChunk:
    """Some bootstrap replicates of some segments, as one tie table.

    Attributes
    ----------
    table : TieTable
        One segment per (source segment, replicate): the source segment's
        scores with resampled counts. Given as a function, the table is
        built when first read, by the thread that reads it: the random draws
        are made in stream order when the chunk is made, the counting of
        the draws where the replicates are evaluated (the same numbers).
    segment, replicate : ndarray of int64, shape (table.n_segments,)
        The source segment and the replicate index of each segment of ``table``.
    """

    _table: TieTable | Callable[[], TieTable] = attrs.field(alias="table")
    segment: np.ndarray
    replicate: np.ndarray

    @property
    def table(self) -> TieTable:
        if not isinstance(self._table, TieTable):
            self._table = self._table()
        return self._table


def _block_sizes(ties: TieTable, n_boot: int, chunk_size: int | None) -> np.ndarray:
    """Replicates drawn per call for each segment: from that segment's size alone (or ``chunk_size``)."""
    if chunk_size is not None:
        return np.full(ties.n_segments, max(1, min(int(chunk_size), n_boot)), dtype=np.int64)
    per_replicate = ties.lengths + ties.n_pos + ties.n_neg
    return np.clip(CHUNK_ELEMENTS // np.maximum(per_replicate, 1), 1, max(n_boot, 1)).astype(np.int64)


def replicate_chunks(ties: TieTable, n_boot: int, streams: Streams,
                     chunk_size: int | None = None) -> Iterator[ReplicateChunk]:
    """Stratified bootstrap replicates of every segment of ``ties``, chunk by chunk.

    Parameters
    ----------
    ties : TieTable
        Segments to resample (each class is resampled within its segment; a
        segment without positives keeps zero positives, and likewise).
    n_boot : int
        Replicates per segment.
    streams : Streams
        One random stream per segment (:class:`~aucpr_stats.resample.streams.Streams`).
    chunk_size : int, optional
        Replicates drawn per call for every segment; by default as many as fit
        in about 2**20 array elements for that segment. The draws depend on
        it, so keep it fixed for reproducible results.

    Yields
    ------
    ReplicateChunk
        Every (segment, replicate) pair appears in exactly one chunk; a
        segment's replicates come in increasing order.
    """
    if ties.n_segments != len(streams):
        raise ValueError("one stream per segment is needed")
    samplers = (ClassCounts(ties, ties.pos), ClassCounts(ties, ties.neg))
    yield from _range_chunks(ties, samplers, n_boot, streams, _block_sizes(ties, n_boot, chunk_size),
                             range(ties.n_segments))


def _range_chunks(ties: TieTable, samplers: tuple, n_boot: int, streams: Streams, blocks: np.ndarray,
                  segments: range) -> Iterator[ReplicateChunk]:
    """The chunks of :func:`replicate_chunks` over some consecutive ``segments``."""
    positives, negatives = samplers
    per_replicate = ties.lengths + ties.n_pos + ties.n_neg  # the work of one replicate of each segment
    pieces: list[tuple[int, int, np.ndarray, np.ndarray]] = []
    cells = 0
    for s in segments:
        rng = streams[s]
        for start in range(0, n_boot, int(blocks[s])):
            size = min(int(blocks[s]), n_boot - start)
            work = size * int(per_replicate[s])
            if pieces and cells + work > CHUNK_ELEMENTS:  # the chunk is full: evaluate it first
                yield _assemble(ties, pieces)
                pieces, cells = [], 0
            pieces.append((s, start, size, positives.draw_later(s, rng, size), negatives.draw_later(s, rng, size)))
            cells += work
    if pieces:
        yield _assemble(ties, pieces)


class _JointCounts:
    """The unstratified bootstrap's sampler: ``N`` rows drawn over the cells of both classes together.

    A cohort's bootstrap resamples its ``N`` rows with replacement, whatever
    their class, so the number of events varies from replicate to replicate
    (as it does from cohort to cohort): a multinomial over the ``2K`` cells
    (events and non-events at each of ``K`` scores). The cells are laid out
    as a table of twice the rows (row ``k``'s events at ``2k``, its
    non-events at ``2k + 1``) and drawn by the same exact samplers; the
    events' half is handed out by :meth:`draw_later`, the non-events' by the
    companion :attr:`second`, in the order :func:`_range_chunks` asks.
    """

    def __init__(self, ties: TieTable):
        cells = np.empty(2 * ties.n_rows, dtype=np.result_type(ties.pos, ties.neg))
        cells[0::2], cells[1::2] = ties.pos, ties.neg
        layout = TieTable(np.repeat(ties.score, 2), cells, np.zeros_like(cells), 2 * ties.offsets)
        self.sampler = ClassCounts(layout, cells)
        self.pending: deque = deque()
        self.second = _SecondHalf(self.pending)

    def draw_later(self, s: int, rng: np.random.Generator, n_rep: int) -> Callable[[], np.ndarray]:
        joint = functools.lru_cache(maxsize=1)(self.sampler.draw_later(s, rng, n_rep))
        self.pending.append(lambda: joint()[:, 1::2])
        return lambda: joint()[:, 0::2]


class _SecondHalf:
    """The non-events' half of the last joint draw (see :class:`_JointCounts`)."""

    def __init__(self, pending: deque):
        self.pending = pending

    def draw_later(self, s: int, rng: np.random.Generator, n_rep: int) -> Callable[[], np.ndarray]:
        return self.pending.popleft()


def cohort_chunks(ties: TieTable, n_boot: int, streams: Streams,
                  chunk_size: int | None = None) -> Iterator[ReplicateChunk]:
    """Unstratified bootstrap replicates of every segment: its rows resampled whatever their class.

    For statistics of a cohort whose number of events is random (calibration:
    observed/expected, calibration-in-the-large); the areas condition on the
    classes and use :func:`replicate_chunks`. A replicate may hold one class
    only (its statistics are then NaN, and the interval says how many).
    """
    if ties.n_segments != len(streams):
        raise ValueError("one stream per segment is needed")
    joint = _JointCounts(ties)
    yield from _range_chunks(ties, (joint, joint.second), n_boot, streams, _block_sizes(ties, n_boot, chunk_size),
                             range(ties.n_segments))


def replicate_producers(ties: TieTable, n_boot: int, streams: Streams, chunk_size: int | None = None,
                        threads: int | None = None) -> list[Iterator[ReplicateChunk]]:
    """The replicates of :func:`replicate_chunks`, split into producers over ranges of consecutive segments.

    Every segment's replicates are drawn from its own stream, in the same
    blocks and order as :func:`replicate_chunks`, so they are the same
    numbers; only the grouping of segments into chunks differs. Run the
    producers with :func:`~aucpr_stats.resample.threads.drain`: each range's
    draws are made on whichever thread advances it, so the draws of
    different groups run on several cores. About four ranges of equal work
    per thread (``threads`` as :func:`~aucpr_stats.resample.threads.worker_threads`),
    never fewer rows than a chunk's budget each.
    """
    if ties.n_segments != len(streams):
        raise ValueError("one stream per segment is needed")
    samplers = (ClassCounts(ties, ties.pos), ClassCounts(ties, ties.neg))
    blocks = _block_sizes(ties, n_boot, chunk_size)
    work = np.cumsum((ties.lengths + ties.n_pos + ties.n_neg + 1) * n_boot)  # +1: an empty segment costs a call
    total = int(work[-1]) if work.size else 0
    n_ranges = max(1, min(4 * worker_threads(threads), total // CHUNK_ELEMENTS, ties.n_segments))
    # cut after the segment where the running work passes each 1/n_ranges of the total
    cuts = np.unique(np.searchsorted(work, np.arange(1, n_ranges) * total / n_ranges) + 1)
    bounds = [0, *(int(c) for c in cuts if 0 < c < ties.n_segments), ties.n_segments]
    return [_range_chunks(ties, samplers, n_boot, streams, blocks, range(lo, hi))
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def _assemble(ties: TieTable, pieces: list) -> ReplicateChunk:
    """One chunk from pieces ``(segment, first replicate, n_rep, pos counts later, neg counts later)``.

    The counts are computed, and the table built, when the chunk's table is first read.
    """
    segment = np.concatenate([np.full(p[2], p[0], dtype=np.int64) for p in pieces])
    replicate = np.concatenate([np.arange(p[1], p[1] + p[2], dtype=np.int64) for p in pieces])
    return ReplicateChunk(functools.partial(_chunk_table, ties, pieces, segment), segment, replicate)


def _chunk_table(ties: TieTable, pieces: list, segment: np.ndarray) -> TieTable:
    lengths = ties.lengths
    offsets = np.zeros(segment.size + 1, dtype=np.int64)
    np.cumsum(lengths[segment], out=offsets[1:])
    if len({p[0] for p in pieces}) == 1:  # one source segment: its scores repeated
        s = pieces[0][0]
        score = np.tile(ties.score[ties.offsets[s]: ties.offsets[s + 1]], segment.size)
    else:
        starts = ties.offsets[:-1][segment]
        within = np.arange(offsets[-1], dtype=np.int64) - np.repeat(offsets[:-1], lengths[segment])
        score = ties.score[np.repeat(starts, lengths[segment]) + within]
    pos = np.concatenate([p[3]().ravel() for p in pieces]) if len(pieces) > 1 else pieces[0][3]().ravel()
    neg = np.concatenate([p[4]().ravel() for p in pieces]) if len(pieces) > 1 else pieces[0][4]().ravel()
    return TieTable(score, pos, neg, offsets)


def _streams(ties: TieTable, seed: Any, streams: Streams | None) -> Streams:
    return Streams.for_segments(seed, ties.n_segments, "bootstrap") if streams is None else streams


def bootstrap_estimates(ties: TieTable, estimators: Any, n_boot: int = DEFAULT_N_BOOT, seed: Any = None, *,
                        streams: Streams | None = None, chunk_size: int | None = None,
                        threads: int | None = None, stratified: bool = True,
                        on_chunk: Callable[[int], None] | None = None) -> np.ndarray:
    """Statistics of stratified (or, ``stratified=False``, cohort) bootstrap replicates of every segment.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive and one negative.
    estimators : callable or sequence of callables
        ``fn(TieTable) -> ndarray[n_segments]``, e.g. registry records
        (:class:`~aucpr_stats.estimators.registry.Estimator`, whose replicate
        kernel is then used). All statistics see the same replicates (paired).
    n_boot : int
        Number of replicates.
    seed : None, int, numpy Generator or SeedSequence
        Root of the segments' streams (keyed by segment index) when
        ``streams`` is not given.
    streams : Streams, optional
        One stream per segment (e.g. keyed by the groups' key values).
    chunk_size : int, optional
        Replicates per draw, see :func:`replicate_chunks`.
    stratified : bool
        True: each class resampled within itself (the areas); False: the rows
        resampled whatever their class (:func:`cohort_chunks`; calibration).
    threads : int, optional
        Threads evaluating the estimators on the replicates while this thread
        draws the next ones (default :func:`~aucpr_stats.resample.threads.worker_threads`:
        ``AUCPR_STATS_THREADS`` or the number of cores). The draws are made in
        the same order whatever the number, so the replicates are the same.
    on_chunk : callable, optional
        Called with the number of (segment, replicate) cells of each chunk once
        it is handed on: a progress bar's ``update``, which then moves within
        one large group too.

    Returns
    -------
    ndarray, shape (n_segments, n_boot), or (len(estimators), n_segments, n_boot)
        when ``estimators`` is a sequence.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> from aucpr_stats.estimators import average_precision
    >>> t = TieTable([3.0, 2.0, 1.0, 0.0], [2, 0, 1, 0], [0, 1, 1, 2], [0, 4])
    >>> bootstrap_estimates(t, average_precision, n_boot=200, seed=1).shape
    (1, 200)
    """
    chunks = (replicate_chunks if stratified else cohort_chunks)(ties, n_boot, _streams(ties, seed, streams),
                                                                 chunk_size)
    return estimates_of_chunks(chunks, estimators, ties.n_segments, n_boot, threads, on_chunk)


def counted(chunks: Iterator[ReplicateChunk], on_chunk: Callable[[int], None] | None) -> Iterator[ReplicateChunk]:
    """The chunks, each reported to ``on_chunk`` (its number of cells) once the consumer has taken it."""
    for chunk in chunks:
        yield chunk
        if on_chunk is not None:
            on_chunk(int(chunk.segment.size))


def estimates_of_chunks(chunks: Iterator[ReplicateChunk], estimators: Any, n_segments: int, n_boot: int,
                        threads: int | None = None, on_chunk: Callable[[int], None] | None = None) -> np.ndarray:
    """The statistics of every replicate of a stream of chunks (any resampling design), per segment.

    The chunks are drawn on this thread, in their order (the same numbers for
    any number of threads); the estimators of each chunk run on a pool of
    ``threads`` meanwhile, at most ``threads`` chunks waiting. A registry
    record's ``replicate_kernel`` is used where it has one.

    Returns
    -------
    ndarray, shape (n_segments, n_boot), or (len(estimators), n_segments, n_boot)
        when ``estimators`` is a sequence; NaN where a statistic is undefined.
    """
    single = callable(estimators)
    funcs = [estimators] if single else list(estimators)
    check_allocation(len(funcs) * n_segments * n_boot, f"a bootstrap of {n_segments:,} groups x "
                     f"{n_boot:,} replicates")
    out = np.full((len(funcs), n_segments, n_boot), np.nan)

    def evaluate(chunk: ReplicateChunk) -> None:  # writes only this chunk's (segment, replicate) cells
        for j, fn in enumerate(funcs):
            kernel = getattr(fn, "replicate_kernel", None) or fn  # the same values, faster on replicates
            with np.errstate(all="ignore"):
                values = within_unit_interval(np.asarray(kernel(chunk.table), dtype=np.float64), fn)
            out[j, chunk.segment, chunk.replicate] = values

    evaluate_chunks(counted(chunks, on_chunk), evaluate, threads)
    return out[0] if single else out


def evaluate_chunks(chunks: Iterator[ReplicateChunk], evaluate: Callable[[ReplicateChunk], None],
                    threads: int | None = None) -> None:
    """``evaluate(chunk)`` for every chunk, on a pool of threads while this thread draws the next chunks.

    The chunks are drawn here, in their order (the same numbers for any
    number of threads), at most ``threads`` of them waiting; ``evaluate``
    must write only its own chunk's results. With fewer than two threads
    (:func:`~aucpr_stats.resample.threads.worker_threads`) everything runs
    here, and this thread's work arrays (:mod:`aucpr_stats.scratch`) are
    freed at the end.
    """
    threads = worker_threads(threads)
    if threads < 2:
        try:
            for chunk in chunks:
                evaluate(chunk)
        finally:
            release()  # this thread's work arrays (a pool's threads take theirs with them)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        waiting: deque = deque()
        for chunk in chunks:
            waiting.append(pool.submit(evaluate, chunk))
            while len(waiting) > threads:
                waiting.popleft().result()
        for future in waiting:
            future.result()


def stratified_counts(ties: TieTable, n_boot: int = DEFAULT_N_BOOT, seed: Any = None, *,
                      streams: Streams | None = None, chunk_size: int | None = None) -> TieTable:
    """All ``n_boot`` replicates in one table, replicate-major: segment ``b * n_segments + s`` is replicate ``b`` of ``s``.

    Convenient for small tables and tests; :func:`bootstrap_estimates` keeps
    memory bounded on large ones. The same draws as :func:`replicate_chunks`.
    """
    n_seg, n_rows = ties.n_segments, ties.n_rows
    pos = np.zeros((n_boot, n_rows), dtype=np.int64)
    neg = np.zeros((n_boot, n_rows), dtype=np.int64)
    for chunk in replicate_chunks(ties, n_boot, _streams(ties, seed, streams), chunk_size):
        # row positions of every chunk row in the (replicate, row) layout
        lengths = ties.lengths[chunk.segment]
        within = np.arange(chunk.table.n_rows, dtype=np.int64) - np.repeat(chunk.table.offsets[:-1], lengths)
        rows = np.repeat(chunk.replicate * n_rows + ties.offsets[:-1][chunk.segment], lengths) + within
        pos.ravel()[rows] = chunk.table.pos
        neg.ravel()[rows] = chunk.table.neg
    offsets = np.append((ties.offsets[:-1][None, :] + (np.arange(n_boot) * n_rows)[:, None]).ravel(),
                        n_boot * n_rows)
    return TieTable(np.tile(ties.score, n_boot), pos.ravel(), neg.ravel(), offsets if n_seg else np.zeros(1))
