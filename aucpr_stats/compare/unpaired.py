r"""Unpaired comparisons: one score between independent groups of rows (``between="site"``).

The levels of ``between`` (hospitals, data sets stacked with a ``source``
column) hold different rows, so their AUCs are independent: the variance of
the difference is the sum of the variances (DeLong), or the levels are
bootstrapped independently, each from its own random stream.

**Reference distribution.** The unpaired DeLong statistic
:math:`z = (\hat A_a - \hat A_b)/\sqrt{V_a + V_b}` is referred to the
standard normal distribution (DeLong, DeLong & Clarke-Pearson 1988), for
the p-value and the interval. pROC's ``roc.test(paired = FALSE)`` refers the
same statistic to a Student t with
:math:`\nu = (V_a + V_b)^2 / (V_a^2/(N_a - 1) + V_b^2/(N_b - 1))` degrees of
freedom (``N`` the cases of a group), which gives a slightly larger p-value
in small groups; ``docs/compare.md`` shows how to compute it from the table.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl

from ..estimators.engine import evaluate
from ..estimators.registry import reduction_for
from ..estimators.roc import delong_components
from ..exceptions import InputError
from ..ingest import Ingested
from ..progress import progress_bar, progress_enabled
from ..resample import Streams, bootstrap_estimates
from ..resample.designs import design_bootstrap_estimates
from .clustered import cluster_design, segment_variances, weighted_design
from .statistics import difference_columns, warn_small_rows, with_edge_notes

__all__ = ["compare_unpaired"]


def compare_unpaired(ingested: Ingested, between: str, estimators: Sequence[Any], seed: Any, common: dict,
                     progress: bool | None = None) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """The comparison table of every pair of levels of ``between``, per (by, score) cell and estimator.

    Also the two cells (segments of ``ingested.ties``) of each pair compared, in the table's order of pairs.
    """
    ties, keys, notes = ingested.ties, ingested.keys, ingested.notes
    n_pos, n_neg = ties.n_pos, ties.n_neg
    usable = ties.has_both_classes()
    level = common["level"]
    reference = common["reference"]
    levels = keys[between].unique(maintain_order=True).to_list()
    if reference is not None and reference not in levels:
        raise InputError(f"`reference` must be a level of `between` column {between!r} {levels[:20]}; got {reference!r}")
    # pair the levels of `between` within each (by, score) cell
    match = [c for c in ingested.key_columns if c != between]
    indexed = keys.with_row_index("__seg").with_columns(
        pl.col(between).rank("dense").fill_null(len(levels) + 1).alias("__rank"))
    right = indexed.select(*match, pl.col(between).alias("__level_b"), pl.col("__seg").alias("__seg_b"),
                           pl.col("__rank").alias("__rank_b"))
    left = indexed.select(*match, pl.col(between).alias("__level_a"), pl.col("__seg").alias("__seg_a"),
                          pl.col("__rank").alias("__rank_a"))
    joined = left.join(right, on=match, nulls_equal=True, maintain_order="left") if match else left.join(right, how="cross")
    if reference is None:
        joined = joined.filter(pl.col("__rank_a") < pl.col("__rank_b"))
    else:
        joined = joined.filter((pl.col("__level_b") == reference) & (pl.col("__level_a") != reference))
    joined = joined.sort([*match, "__rank_a", "__rank_b"], nulls_last=True, maintain_order=True)
    seg_a = joined["__seg_a"].to_numpy().astype(np.int64)
    seg_b = joined["__seg_b"].to_numpy().astype(np.int64)
    names = common["estimators"]
    n_seg = ties.n_segments
    estimates = evaluate(ties, estimators).T  # (estimators, segments)
    sub = ties.take(np.flatnonzero(usable))
    clustered = ingested.clusters is not None
    if common["method"] == "delong":
        var = np.full(n_seg, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            if clustered:  # Obuchowski's cluster-robust variance of each cell's A'
                var[usable] = segment_variances(ingested, np.flatnonzero(usable)).variance
            else:
                _, s10, s01 = delong_components(sub)
                var[usable] = s10 / sub.n_pos + s01 / sub.n_neg
    else:
        # every (by, score, level) cell from its own stream: independent groups, independent draws
        streams = Streams.for_keys(seed, keys.filter(pl.Series(usable)), ingested.key_columns, "compare")
        replicates = np.full((len(estimators), n_seg, common["n_boot"]), np.nan)
        # with a bar, a few batches of cells so that it moves; each cell's draws are its own stream's
        n_pieces = max(1, min(sub.n_segments, 20 if progress_enabled(progress) else 1))
        pieces = np.array_split(np.arange(sub.n_segments), n_pieces)
        columns = np.flatnonzero(usable)
        # the smallest exact table (as conf_int's bootstrap): the same draws whether or not an engine collapsed it
        # where no row holds both classes the tie-aware estimators are their published twins, on every replicate
        fitted = [record.for_table(sub) for record in estimators]
        resampled = reduction_for(fitted)(sub)
        design = (cluster_design(ingested, columns) if clustered
                  else weighted_design(ingested, columns) if ingested.weighted_cells is not None else None)
        with progress_bar(sub.n_segments * common["n_boot"], "unpaired bootstrap", progress) as bar:
            for piece in pieces:
                if design is not None:  # whole clusters, or weighted rows, resampled within each cell
                    replicates[:, columns[piece]] = design_bootstrap_estimates(
                        design if len(pieces) == 1 else design.take(piece), fitted, common["n_boot"],
                        streams.take(piece), on_chunk=bar.update)  # the bar moves within a large cell too
                    continue
                part = resampled if len(pieces) == 1 else resampled.take(piece)
                replicates[:, columns[piece]] = bootstrap_estimates(part, fitted, common["n_boot"],
                                                                    streams=streams.take(piece), on_chunk=bar.update)
    blocks, flagged = [], {}
    for j in range(len(estimators)):
        diff = estimates[j, seg_a] - estimates[j, seg_b]
        # independent groups: no covariance (DeLong) and no correlation
        columns = difference_columns(diff, common["method"], level,
                                     variance=var[seg_a] + var[seg_b] if common["method"] == "delong" else None,
                                     replicates=(replicates[j, seg_a], replicates[j, seg_b])
                                     if common["method"] == "bootstrap" else None,
                                     correlation=np.full(diff.size, np.nan))
        note = []
        for a, b in zip(seg_a, seg_b):
            parts = [f"a: {notes[a]}" if notes[a] else None, f"b: {notes[b]}" if notes[b] else None]
            parts = [x for x in parts if x]
            if not parts and common["method"] == "delong" and (np.isnan(var[a]) or np.isnan(var[b])):
                parts = ["DeLong variance needs >= 2 positives and >= 2 negatives"]
            note.append("; ".join(parts) or None)
        note = with_edge_notes(columns, note, common["metric"], common["method"],
                               np.minimum(n_pos[seg_a], n_pos[seg_b]), flagged, unpaired=True)
        count = seg_a.size
        if clustered and common["method"] == "delong":
            columns["method"] = ["obuchowski"] * count
        block = pl.DataFrame({
            "estimator": [names[j]] * count,
            "estimate_a": estimates[j, seg_a],
            "estimate_b": estimates[j, seg_b],
            **columns,
            "n_pos_a": n_pos[seg_a],
            "n_neg_a": n_neg[seg_a],
            "n_pos_b": n_pos[seg_b],
            "n_neg_b": n_neg[seg_b],
            "note": pl.Series(note, dtype=pl.String),
        })
        head = joined.select(*match, pl.col("__level_a").alias(f"{between}_a"), pl.col("__level_b").alias(f"{between}_b"))
        blocks.append(pl.concat([head, block], how="horizontal").with_columns(pl.Series("__pair", np.arange(count))))
    warn_small_rows(flagged)
    return pl.concat(blocks).sort("__pair", maintain_order=True).drop("__pair"), seg_a, seg_b
