"""The cluster bootstrap: the clusters of each group resampled with replacement, as group tie tables.

:class:`ClusterUnits` (Davison & Hinkley 1997, section 3.8; Field & Welsh
2007) draws, per group, as many clusters as it holds; a drawn cluster brings
all its rows, so the dependence within clusters is kept (the module
docstring of :mod:`.designs` has the laws of both designs).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import numpy as np

from ..exceptions import InputError
from ..ties import TieTable
from .counts import ReplicateChunk
from .streams import Streams
from .units import (CHUNK_ELEMENTS, MAX_REDRAWS, N_STRATA, STRATA, check_counts_match, check_stream_count,
                    local_rows, target_rows)

__all__ = ["ClusterUnits"]


@attrs.frozen(eq=False)
class ClusterUnits:
    """The cluster bootstrap: clusters resampled with replacement within each group.

    Parameters
    ----------
    group_ties : TieTable
        One segment per group (int64 counts, or float64 weighted counts).
    units : TieTable
        One segment per (group, cluster): the cluster's counts at each of its
        distinct scores (descending), segments ordered by group. Counts of
        the same type as ``group_ties``.
    unit_group : ndarray of int64, shape (units.n_segments,)
        The group of each unit segment (non-decreasing).
    strata : {"none", "composition"}
        How clusters are resampled within a group, see the notes. ``"none"``
        (the default) is the one whose coverage is at the nominal level in
        ``benchmarks/cluster_coverage.md``.

    Notes
    -----
    A replicate's counts at a score are the drawn clusters' counts there,
    with multiplicity; the mean replicate table is the observed one.

    ``strata="none"``: the clusters of a group are drawn together, as many
    as the group holds, uniformly with replacement (the cluster bootstrap
    of Davison & Hinkley 1997, section 3.8); the numbers of clusters of each
    kind vary as they would between studies. Replicates missing a class the
    group holds are drawn again from the same stream (the law is then
    conditional on both classes being present; with many clusters of each
    kind a redraw is vanishingly rare). Its variance of A' matches
    Obuchowski's (1997) up to the factor ``(I - 1) / I``. With clusters of
    one row it is the unstratified row bootstrap (class sizes vary).

    ``strata="composition"`` (the law first specified for this package; not
    the default): the clusters fall in three strata, holding positives
    only, negatives only, or both, and each stratum is resampled on its
    own, as many clusters as it holds. Every replicate holds both classes
    whenever the group does, and clusters of one row reduce it to the
    stratified row bootstrap (the strata are then the classes). *Where it
    fails*: when the composition of a cluster goes with what drives its
    scores (a patient effect raising both the chance of disease and the
    scores), fixing the numbers of clusters of each kind removes a real part
    of the variance: in ``benchmarks/cluster_coverage.py`` (150 clusters of
    4 rows, 1,000 data sets) its percentile intervals are 17% (A') and 29%
    (average precision) narrower than with ``"none"`` and cover 90% and 83%
    (Monte Carlo SE about 1%) instead of 95.5% and 95%.

    Both assume independent clusters, exchangeable (within a stratum); with
    few clusters (say under 20 of a kind) the variance is too small by about
    a factor ``(I - 1) / I``.

    Each unit row's row in the group table is found once; a block of
    replicates of one group costs one draw of integers per stratum and one
    :func:`numpy.bincount` per class over the group's unit rows.
    """

    group_ties: TieTable
    units: TieTable
    unit_group: np.ndarray = attrs.field(converter=lambda g: np.ascontiguousarray(g, dtype=np.int64))
    strata: str = "none"
    _local_target: np.ndarray = attrs.field(init=False, repr=False)
    _unit_start: np.ndarray = attrs.field(init=False, repr=False)
    _strata: np.ndarray = attrs.field(init=False, repr=False)
    _strata_start: np.ndarray = attrs.field(init=False, repr=False)
    _row_unit: np.ndarray = attrs.field(init=False, repr=False)
    _class_rows: tuple = attrs.field(init=False, repr=False)
    _class_at: tuple = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        group_ties, units, unit_group = self.group_ties, self.units, self.unit_group
        n_groups = group_ties.n_segments
        if unit_group.shape != (units.n_segments,):
            raise InputError(f"`unit_group` must have one group per unit segment ({units.n_segments:,}), "
                             f"got shape {unit_group.shape}")
        if unit_group.size and (unit_group.min() < 0 or unit_group.max() >= n_groups
                                or np.any(np.diff(unit_group) < 0)):
            raise InputError(f"`unit_group` must be non-decreasing group indices in [0, {n_groups})")
        if self.strata not in STRATA:
            raise InputError(f"`strata` must be one of {STRATA}; got {self.strata!r}")
        if (units.pos.dtype.kind == "f") != (group_ties.pos.dtype.kind == "f"):
            raise InputError("`units` and `group_ties` must both hold whole counts or both weighted counts")
        row_group = np.repeat(unit_group, units.lengths)
        target = target_rows(group_ties, row_group, units.score)
        check_counts_match(group_ties, target, units.pos, units.neg, "units")
        object.__setattr__(self, "_local_target", target - group_ties.offsets[:-1][row_group])
        unit_start = np.searchsorted(unit_group, np.arange(n_groups + 1))
        object.__setattr__(self, "_unit_start", unit_start.astype(np.int64))
        # stratum of each unit: 0 positives only, 1 negatives only, 2 both; units without rows take no part
        has_pos, has_neg = units.n_pos > 0, units.n_neg > 0
        stratum = np.where(has_pos & has_neg, 2, np.where(has_pos, 0, 1))
        if self.strata == "none":
            stratum = np.zeros_like(stratum)
        stratum = np.where(has_pos | has_neg, stratum, N_STRATA)
        # units ordered by (group, stratum), keeping their order within; strata_start[g * 4 + k] opens (g, k)
        bucket = unit_group * (N_STRATA + 1) + stratum
        order = np.argsort(bucket, kind="stable")
        start = np.zeros(n_groups * (N_STRATA + 1) + 1, dtype=np.int64)
        np.cumsum(np.bincount(bucket, minlength=n_groups * (N_STRATA + 1)), out=start[1:])
        object.__setattr__(self, "_strata", order.astype(np.int64))
        object.__setattr__(self, "_strata_start", start)
        # the unit of each unit row; the unit rows holding each class, and where each group's begin
        object.__setattr__(self, "_row_unit", units.segment_ids())
        first_rows = units.offsets[unit_start]
        rows = tuple(np.flatnonzero(counts > 0) for counts in (units.pos, units.neg))
        object.__setattr__(self, "_class_rows", rows)
        object.__setattr__(self, "_class_at", tuple(np.searchsorted(r, first_rows) for r in rows))

    @property
    def n_groups(self) -> int:
        return self.group_ties.n_segments

    def n_clusters(self) -> np.ndarray:
        """Clusters per group and kind, shape (n_groups, 3): positives only, negatives only, both."""
        has_pos, has_neg = self.units.n_pos > 0, self.units.n_neg > 0
        kind = np.where(has_pos & has_neg, 2, np.where(has_pos, 0, 1))
        kind = np.where(has_pos | has_neg, kind, N_STRATA)
        sizes = np.bincount(self.unit_group * (N_STRATA + 1) + kind, minlength=self.n_groups * (N_STRATA + 1))
        return sizes.reshape(self.n_groups, N_STRATA + 1)[:, :N_STRATA]

    def take(self, groups) -> ClusterUnits:
        """The design of some groups, in the given order (draw with ``streams.take(groups)``)."""
        groups = np.asarray(groups, dtype=np.int64)
        counts = self._unit_start[groups + 1] - self._unit_start[groups]
        unit_segments, _ = local_rows(self._unit_start, np.diff(self._unit_start), groups)
        new_group = np.repeat(np.arange(groups.size, dtype=np.int64), counts)
        return ClusterUnits(self.group_ties.take(groups), self.units.take(unit_segments), new_group, self.strata)

    def _draw(self, g: int, rng: np.random.Generator, n_rep: int) -> tuple[np.ndarray, np.ndarray]:
        """Counts of ``n_rep`` replicates of group ``g``, each of shape (n_rep, rows of g)."""
        group_ties, units = self.group_ties, self.units
        width = int(group_ties.lengths[g])
        u0, u1 = int(self._unit_start[g]), int(self._unit_start[g + 1])
        # how many times each of the group's units is drawn, per replicate: a uniform multinomial per stratum
        times = np.zeros((n_rep, u1 - u0))  # float64: the weights of the bincounts below
        for k in range(N_STRATA):
            lo, hi = self._strata_start[g * (N_STRATA + 1) + k], self._strata_start[g * (N_STRATA + 1) + k + 1]
            size = int(hi - lo)
            if size == 0:
                continue
            picks = rng.integers(0, size, size=(n_rep, size))
            picks += (np.arange(n_rep, dtype=np.int64) * size)[:, None]
            drawn = np.bincount(picks.ravel(), minlength=n_rep * size).reshape(n_rep, size)
            times[:, self._strata[lo:hi] - u0] = drawn
        if self.strata == "none":
            self._redraw_missing_classes(g, rng, times)
        # a replicate's count at a score: its drawn units' counts there, with multiplicity
        # (only the unit rows holding the class take part)
        first_row = (np.arange(n_rep, dtype=np.int64) * width)[:, None]
        integer = units.pos.dtype.kind != "f"
        result = []
        for counts, rows, at in ((units.pos, self._class_rows[0], self._class_at[0]),
                                 (units.neg, self._class_rows[1], self._class_at[1])):
            sel = rows[at[g]:at[g + 1]]
            out = self._local_target[sel] + first_row
            weight = np.take(times, self._row_unit[sel] - u0, axis=1)
            weight = weight * counts[sel] if not integer or np.any(counts[sel] != 1) else weight
            summed = np.bincount(out.ravel(), weights=weight.ravel(), minlength=n_rep * width).reshape(n_rep, width)
            # whole counts stay exact in float64 below 2**53
            result.append(summed.astype(np.int64) if integer else summed)
        return result[0], result[1]

    def _redraw_missing_classes(self, g: int, rng: np.random.Generator, times: np.ndarray) -> None:
        """Draw again (in place) the replicates of group ``g`` missing a class the group holds."""
        u0, u1 = int(self._unit_start[g]), int(self._unit_start[g + 1])
        lo, hi = self._strata_start[g * (N_STRATA + 1)], self._strata_start[g * (N_STRATA + 1) + 1]
        size = int(hi - lo)
        # indicators of the units holding each class; a replicate misses a class when it draws none of them
        has = [(self.units.n_pos[u0:u1] > 0).astype(np.float64), (self.units.n_neg[u0:u1] > 0).astype(np.float64)]
        has = [held for held in has if held.any()]
        for _ in range(MAX_REDRAWS):
            missing = np.zeros(times.shape[0], dtype=bool)
            for held in has:
                missing |= (times @ held) == 0
            redo = np.flatnonzero(missing)
            if redo.size == 0:
                return
            picks = rng.integers(0, size, size=(redo.size, size))
            picks += (np.arange(redo.size, dtype=np.int64) * size)[:, None]
            times[redo] = 0
            times[np.ix_(redo, self._strata[lo:hi] - u0)] = np.bincount(
                picks.ravel(), minlength=redo.size * size).reshape(redo.size, size)
        # left as drawn after MAX_REDRAWS tries: the estimators give NaN on such replicates

    def replicate_chunks(self, n_boot: int, streams: Streams, chunk_size: int | None = None
                         ) -> Iterator[ReplicateChunk]:
        """Cluster-bootstrap replicates of every group, chunk by chunk.

        Parameters
        ----------
        n_boot : int
            Replicates per group.
        streams : Streams
            One stream per group; group ``g`` draws only from ``streams[g]``.
        chunk_size : int, optional
            Replicates drawn per call for every group; by default as many as
            fit in about 2**20 array elements for that group. The draws
            depend on it, so keep it fixed for reproducible results.

        Yields
        ------
        ReplicateChunk
            Tables with the group table's scores and rows; every (group,
            replicate) pair appears once, a group's replicates in order.
        """
        check_stream_count(self.group_ties, streams)
        group_ties, units = self.group_ties, self.units
        unit_rows = units.offsets[self._unit_start[1:]] - units.offsets[self._unit_start[:-1]]
        per_replicate = group_ties.lengths + unit_rows + np.diff(self._unit_start)
        if chunk_size is not None:
            blocks = np.full(self.n_groups, max(1, min(int(chunk_size), n_boot)), dtype=np.int64)
        else:
            blocks = np.clip(CHUNK_ELEMENTS // np.maximum(per_replicate, 1), 1, max(n_boot, 1))
        pieces: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        cells = 0
        for g in range(self.n_groups):
            rng = streams[g]
            for start in range(0, n_boot, int(blocks[g])):
                size = min(int(blocks[g]), n_boot - start)
                work = size * int(per_replicate[g])
                if pieces and cells + work > CHUNK_ELEMENTS:
                    yield self._assemble(pieces)
                    pieces, cells = [], 0
                pieces.append((g, start, *self._draw(g, rng, size)))
                cells += work
        if pieces:
            yield self._assemble(pieces)

    def _assemble(self, pieces: list) -> ReplicateChunk:
        segment = np.concatenate([np.full(p[2].shape[0], p[0], dtype=np.int64) for p in pieces])
        replicate = np.concatenate([np.arange(p[1], p[1] + p[2].shape[0], dtype=np.int64) for p in pieces])
        rows, offsets = local_rows(self.group_ties.offsets, self.group_ties.lengths, segment)
        pos = np.concatenate([p[2].ravel() for p in pieces])
        neg = np.concatenate([p[3].ravel() for p in pieces])
        return ReplicateChunk(TieTable(self.group_ties.score[rows], pos, neg, offsets), segment, replicate)
