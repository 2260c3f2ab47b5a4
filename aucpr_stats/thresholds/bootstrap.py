"""The uncertainty of a chosen threshold: the bootstrap of pROC's ``ci.coords(x="best")`` and ``ci.thresholds``.

A best threshold (Youden's, the closest to the top-left corner) is chosen on
the data its sensitivity and specificity are then read from; its Wilson
interval treats it as fixed in advance and is too narrow. The bootstrap
repeats the whole procedure: each stratified replicate (cases and controls
resampled within themselves, as pROC's ``boot.stratified=TRUE``) chooses its
own best threshold among its own thresholds (the midpoints between its
distinct scores, and ``±inf``), and the percentiles of the chosen thresholds
and of their sensitivities and specificities are the intervals (pROC's
``ci.coords(roc, x="best", ret=c("threshold", "sensitivity", "specificity"))``,
quantiles of type 7). A threshold given as a number stays fixed, and only its
sensitivity and specificity vary (pROC's ``ci.thresholds``).

A replicate reaches its best criterion at several thresholds now and then;
``ties="random"`` takes one of them at random (pROC's ``best.policy="random"``)
and ``ties="omit"`` drops that replicate (``"omit"``).

Every replicate of every group is a multinomial draw of counts over the
group's tie table (:mod:`aucpr_stats.resample`): no row is resampled, and a
group's draws depend only on the seed and its key.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv, level_iv, n_boot_iv, rng_iv
from ..exceptions import InputError, SmallSampleWarning
from ..grouped import direction_signs, read_direction
from ..progress import progress_bar, progress_iv
from ..report.display import FramedResult
from ..resample import DEFAULT_N_BOOT, Streams, evaluate_chunks, replicate_chunks
from ..ties import TieTable
from .points import all_thresholds, best_mask, counts_at, criterion

__all__ = ["ThresholdBootstrap", "bootstrap_thresholds", "percentile_type7", "TIE_POLICIES"]

#: What a replicate whose best criterion is reached at several thresholds contributes.
TIE_POLICIES = ("random", "omit")

_MEASURES = ("threshold", "sensitivity", "specificity")

#: Below this many positives (or negatives) the percentile intervals of the chosen threshold's sensitivity and
#: specificity under-covered in benchmarks/threshold_bootstrap_coverage.py (91.7% at 30 positives and AUROC 0.9;
#: 95.9-98.0% from 100): such rows get a note and the call one SmallSampleWarning.
MIN_CLASS_COUNT = 50


@attrs.frozen(eq=False)
class ThresholdBootstrap(FramedResult):
    """Bootstrap intervals of a best threshold and of its coordinates: one row per group, threshold and measure.

    Columns: the group keys, ``criterion``, ``measure`` (``threshold``,
    ``sensitivity``, ``specificity``), ``estimate`` (on the data), ``median``,
    ``lower``, ``upper`` (percentiles of the replicates), ``method``
    (``"bootstrap, re-chosen"`` or ``"bootstrap, fixed threshold"``),
    ``level``, ``n_boot``, ``n_used`` (replicates kept), ``n_pos``,
    ``n_neg``, ``note``.
    """


def _chosen(points, crit: np.ndarray, n_segments: int, uniforms: np.ndarray, policy: str):
    """The index (into ``points``) of each segment's best threshold; -1 where none (or a tie with ``omit``)."""
    best = best_mask(points, crit, n_segments)
    count = np.bincount(points.group[best], minlength=n_segments)
    rank = np.zeros(points.group.size, dtype=np.int64)  # 0-based rank of a best threshold within its segment
    where = np.flatnonzero(best)
    if where.size:
        firsts = np.concatenate(([0], np.cumsum(count)[:-1]))
        rank[where] = np.arange(where.size) - firsts[points.group[where]]
    pick = np.minimum((uniforms * count).astype(np.int64), np.maximum(count - 1, 0))
    if policy == "omit":
        pick = np.where(count == 1, 0, -1)
    take = best & (rank == pick[points.group])
    out = np.full(n_segments, -1, dtype=np.int64)
    out[points.group[take]] = np.flatnonzero(take)
    return out


def _replicate_values(table: TieTable, requests: list, weights: tuple, uniforms: np.ndarray, policy: str) -> np.ndarray:
    """``(n_requests, 3, n_segments)``: threshold, sensitivity and specificity of each request in each replicate."""
    table = table.compact()  # a replicate's thresholds are between the scores it drew (pROC's)
    out = np.full((len(requests), 3, table.n_segments), np.nan)
    points = None
    for r, (kind, value) in enumerate(requests):
        if kind == "value":
            at = counts_at(table, value[:, None])
            out[r] = at.threshold, at.sensitivity, at.specificity
            continue
        if points is None:
            points = all_thresholds(table)
        index = _chosen(points, criterion(points, kind, weights), table.n_segments, uniforms, policy)
        ok = index >= 0
        safe = np.where(ok, index, 0)
        for m, values in enumerate((points.threshold, points.sensitivity, points.specificity)):
            out[r, m] = np.where(ok, values[safe], np.nan)
    return out


def _requests(result: Any) -> tuple[list, pl.DataFrame, list]:
    """The criteria and the distinct given values of the result, and its rows with their keys."""
    body = result.with_keys(result.body, result.groups)
    criteria = body["criterion"].to_list()
    if "all" in criteria:
        raise InputError("a bootstrap of thresholds takes the best thresholds ('youden', 'closest_topleft') or "
                         "given numbers; threshold='all' has no single threshold to follow (pROC refuses it too)")
    kinds = list(dict.fromkeys(c for c in criteria if c != "value"))
    values = list(dict.fromkeys(t for c, t in zip(criteria, body["threshold"].to_list()) if c == "value"))
    return kinds, body, values


def bootstrap_thresholds(result: Any, *, n_boot: Any = DEFAULT_N_BOOT, level: Any = None, rng: Any = None,
                         seed: Any = None, ties: str = "random", progress: Any = None) -> ThresholdBootstrap:
    """The bootstrap of :meth:`aucpr_stats.CutoffResult.bootstrap` (see the module docstring)."""
    design = getattr(result.request, "design", None)
    if design is not None and (design.weights is not None or design.cluster is not None):
        raise InputError("the bootstrap of thresholds resamples independent rows; a cut-off with `weights=` or "
                         "`cluster=` is not supported by it yet")
    n_boot = n_boot_iv(n_boot)
    level = result.settings.level if level is None else level_iv(level)
    policy = choice_iv(ties, "ties", TIE_POLICIES)
    seed = rng_iv(rng, seed)
    progress = progress_iv(progress)
    kinds, body, values = _requests(result)
    signs = direction_signs(read_direction(result.directions), result.keys, result.score)
    ties_table: TieTable = result.ties
    n_seg = ties_table.n_segments
    # the internal threshold of a given value: a score read direction="lower" is negated in the tie table
    requests = [(kind, None) for kind in kinds] + [("value", signs * v) for v in values]
    streams = Streams.for_keys(seed, result.keys, result.by, "thresholds")
    tie_streams = Streams.for_keys(seed, result.keys, result.by, "threshold ties")
    uniforms = np.stack([tie_streams[g].random(n_boot) for g in range(n_seg)]) if n_seg else np.zeros((0, n_boot))
    draws = np.full((len(requests), 3, n_seg, n_boot), np.nan)
    usable = ties_table.has_both_classes()
    with progress_bar(n_seg * n_boot, "bootstrap of thresholds", progress) as bar:
        def evaluate(chunk) -> None:  # writes only this chunk's (group, replicate) cells
            u = uniforms[chunk.segment, chunk.replicate]
            draws[:, :, chunk.segment, chunk.replicate] = _replicate_values(
                chunk.table, [(k, None if v is None else v[chunk.segment]) for k, v in requests],
                result.settings.best_weights, u, policy)

        def reported(chunks):  # the bar moves on this thread, once a chunk is handed on
            for chunk in chunks:
                yield chunk
                bar.update(int(chunk.segment.size))

        evaluate_chunks(reported(replicate_chunks(ties_table, n_boot, streams)), evaluate)
    draws[:, :, ~usable, :] = np.nan
    draws[:, 0] *= signs[None, :, None]  # thresholds back on the caller's scale
    return _assemble(result, body, kinds, values, draws, level, n_boot, policy)


def percentile_type7(values: np.ndarray, q: float) -> np.ndarray:
    """R's quantile of type 7 along the last axis, NaNs left out, as pROC takes it; infinite values kept.

    The ``h = q (n - 1)``-th order statistic, interpolated linearly between
    its neighbours only where they differ (R's rule): a chosen threshold of
    ``+inf`` (nobody called positive) gives ``+inf``, never NaN.
    """
    ordered = np.sort(values, axis=-1)  # NaN sorts last
    n = np.isfinite(ordered).sum(axis=-1) + np.isinf(ordered).sum(axis=-1)
    h = q * np.maximum(n - 1, 0)
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    x_lo = np.take_along_axis(ordered, lo[..., None], axis=-1)[..., 0]
    x_hi = np.take_along_axis(ordered, hi[..., None], axis=-1)[..., 0]
    with np.errstate(invalid="ignore"):
        t = h - lo
        between = (1.0 - t) * x_lo + t * x_hi  # R's form: -inf or +inf at one end stays infinite
    out = np.where((x_hi == x_lo) | (h == lo), x_lo, between)
    return np.where(n > 0, out, np.nan)


def _assemble(result, body: pl.DataFrame, kinds: list, values: list, draws: np.ndarray, level: float, n_boot: int,
              policy: str) -> ThresholdBootstrap:
    alpha = (1.0 - level) / 2.0
    used = np.isfinite(draws[:, 1]).sum(axis=-1)  # (requests, groups)
    quantiles = np.stack([percentile_type7(draws, q) for q in (alpha, 0.5, 1.0 - alpha)])
    rows, small = [], set()
    key_columns = list(result.by)
    criteria = body["criterion"].to_list()
    thresholds = body["threshold"].to_list()
    group_of = result.groups
    for row_index, (crit, threshold) in enumerate(zip(criteria, thresholds)):
        g = int(group_of[row_index])
        r = kinds.index(crit) if crit != "value" else len(kinds) + values.index(threshold)
        record = body.row(row_index, named=True)
        for m, measure in enumerate(_MEASURES):
            if crit == "value" and measure == "threshold":
                continue  # a given threshold does not vary
            note = record.get("note")
            if min(record["n_pos"] or 0, record["n_neg"] or 0) < MIN_CLASS_COUNT and used[r, g] > 0:
                small.add(g)
                extra = (f"fewer than {MIN_CLASS_COUNT} positives or negatives: the bootstrap of the chosen "
                         "threshold may under-cover (docs/cutoffs.md)")
                note = extra if note is None else f"{note}; {extra}"
            if used[r, g] < n_boot:
                dropped = n_boot - int(used[r, g])
                extra = (f"{dropped} replicates without a single best threshold omitted" if policy == "omit"
                         else f"{dropped} replicates without both classes omitted")
                note = extra if note is None else f"{note}; {extra}"
            rows.append({**{c: record[c] for c in key_columns}, "criterion": crit, "threshold": threshold,
                         "measure": measure, "estimate": record[measure],
                         "median": quantiles[1, r, m, g], "lower": quantiles[0, r, m, g],
                         "upper": quantiles[2, r, m, g],
                         "method": "bootstrap, fixed threshold" if crit == "value" else "bootstrap, re-chosen",
                         "level": level, "n_boot": n_boot, "n_used": int(used[r, g]),
                         "n_pos": record["n_pos"], "n_neg": record["n_neg"], "note": note})
    if small:
        warnings.warn(f"{len(small)} group(s) with fewer than {MIN_CLASS_COUNT} positives or negatives: the "
                      "bootstrap intervals of a chosen threshold may under-cover there; see the `note` column",
                      SmallSampleWarning, stacklevel=4)
    frame = pl.DataFrame(rows, infer_schema_length=None)
    if result.by:
        frame = frame.with_columns([pl.Series(c, frame[c].to_list(), dtype=result.keys[c].dtype) for c in result.by])
    title = (f"Bootstrap of the chosen thresholds of {result.score} ({n_boot} stratified replicates, each choosing "
             f"its own best threshold; {level:.0%} percentile intervals; ties: {policy})")
    return ThresholdBootstrap(frame=frame, frame_kind=result.frame_kind, title=title)
