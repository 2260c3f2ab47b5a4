"""Stratified bootstrap percentile intervals (Boyd, Eng & Page 2013, section 3.2).

The replicates come from :mod:`aucpr_stats.resample` (multinomial draws of
the tie-table counts, exactly the distribution of resampling the rows of each
class, each group from its own random stream), on the smallest table every
requested estimator may read (:func:`aucpr_stats.estimators.reduction_for`).
The interval is the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of the
replicates; ``se`` is their standard deviation.

A result with ``cluster=`` resamples whole clusters within each group (the
cluster bootstrap), and one with ``weights=`` resamples rows with their
weights (the weighted stratified bootstrap); see
:mod:`aucpr_stats.resample.designs`.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import attrs
import numpy as np

from .._validate import integer_iv, n_boot_iv
from ..estimators import reduction_for
from ..progress import progress_bar, progress_enabled
from ..resample import DEFAULT_N_BOOT, bootstrap_estimates, group_batches
from ..resample.designs import ClusterUnits, WeightedRows, design_bootstrap_estimates
from .options import MethodOptions, rng_option

__all__ = ["Bootstrap", "percentile_interval", "replicate_summary", "bootstrap_method", "bootstrap_note"]


#: Tie rows x replicates from which a bootstrap without a bar is cut into pieces that time themselves.
LONG_WORK_ROWS = 10**9


def _chunk_size(value: Any) -> int | None:
    return None if value is None else integer_iv(value, "chunk_size", 1)


def _replicate_budget(value: Any) -> int | None:
    return None if value is None else integer_iv(value, "replicate_budget", 1)


@attrs.frozen(kw_only=True)
class Bootstrap(MethodOptions):
    """The stratified bootstrap percentile interval and its options: ``conf_int(method=Bootstrap(...))``.

    The same as ``conf_int(method="bootstrap", n_boot=..., rng=...)``.

    Attributes
    ----------
    n_boot : int
        Replicates, from 2 to 1,000,000 (default 1000).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        The randomness (SPEC 7; ``seed=`` is its alias in the keyword form):
        each group draws from its own stream, derived from it and the
        group's key (:mod:`aucpr_stats.resample.streams`). None: fresh
        entropy, so every call differs.
    chunk_size : int or None
        Replicates drawn at once per group (a bound on memory); the numbers
        do not depend on it.
    replicate_budget : int or None
        Replicate values held at once: the groups are bootstrapped in batches
        of at most this many groups x estimators x ``n_boot`` values (None:
        :data:`~aucpr_stats.resample.REPLICATE_BUDGET`, 64 MiB); lower it
        on a machine short of memory. The numbers do not depend on it.

    Examples
    --------
    >>> from aucpr_stats.intervals import Bootstrap
    >>> Bootstrap(n_boot=200, rng=1)
    Bootstrap(n_boot=200, rng=1, chunk_size=None, replicate_budget=None)
    """

    method: ClassVar[str] = "bootstrap"
    aliases: ClassVar[dict[str, str]] = {"seed": "rng"}

    n_boot: int = attrs.field(default=DEFAULT_N_BOOT, converter=n_boot_iv)
    rng: Any = attrs.field(default=None, converter=rng_option)
    chunk_size: int | None = attrs.field(default=None, converter=_chunk_size)
    replicate_budget: int | None = attrs.field(default=None, converter=_replicate_budget)


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
    if not np.isnan(replicates).any():
        lower, upper = np.quantile(replicates, [alpha, 1.0 - alpha], axis=-1)
        return lower, upper
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="All-NaN slice", category=RuntimeWarning)
        lower, upper = np.nanquantile(replicates, [alpha, 1.0 - alpha], axis=-1)
    return lower, upper


def replicate_summary(replicates: np.ndarray) -> dict[str, np.ndarray]:
    """Per row of ``replicates`` (last axis = replicates): count, mean, median and sd of the non-NaN values."""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        for message in ("All-NaN slice", "Degrees of freedom", "Mean of empty slice"):
            warnings.filterwarnings("ignore", message=message, category=RuntimeWarning)
        return {
            "n_boot": np.sum(~np.isnan(replicates), axis=-1),
            "boot_mean": np.nanmean(replicates, axis=-1),
            "boot_median": np.nanmedian(replicates, axis=-1),
            "se": np.nanstd(replicates, axis=-1, ddof=1),
        }


def bootstrap_method(request, stratified: bool = True) -> dict:
    """The ``bootstrap`` method of ``conf_int``: every estimator on the same replicates of every usable group.

    ``stratified``: each class resampled within itself (the areas, which
    condition on the classes), or the rows of a group whatever their class
    (calibration of a cohort, whose number of events is random).
    """
    out = {key: request.blank() for key in ("lower", "upper", "se", "n_boot", "boot_mean", "boot_median")}
    out["n_boot"][:] = 0
    if request.usable.size == 0:
        return out
    options = request.options
    n_boot = options.n_boot
    design = resampling_design(request, stratified)
    # where no row holds both classes the tie-aware estimators are their published twins, on every replicate
    estimators = [record.for_table(request.ties) for record in request.estimators]
    # exact: same estimates, same bootstrap law (a design resamples its own units: the full table)
    table = reduction_for(estimators)(request.ties) if design is None else request.ties
    streams = request.streams("bootstrap")
    # batches of groups: at most the replicate budget's values held at once, whatever groups x n_boot;
    # a group's replicates come from its own stream and rows, so the batching changes no number
    batches = group_batches(table.n_segments, len(request.estimators) * n_boot, options.replicate_budget)
    progress = request.progress
    # about 20 batches for a bar that moves, or, without a bar, for long work to project its time (see
    # aucpr_stats.progress); the same numbers (see above)
    if progress_enabled(progress) or (progress is not False and table.n_rows * n_boot > LONG_WORK_ROWS):
        per = -(-20 // len(batches))
        batches = [piece for batch in batches for piece in np.array_split(batch, min(batch.size, per))]
    with progress_bar(table.n_segments * n_boot, "bootstrap intervals", progress) as bar:
        for batch in batches:
            if design is None:
                part = table if len(batches) == 1 else table.take(batch)
                replicates = bootstrap_estimates(part, estimators, n_boot, streams=streams.take(batch),
                                                 chunk_size=options.chunk_size, stratified=stratified,
                                                 on_chunk=bar.update)  # the bar moves within a large group too
            else:
                part = design if len(batches) == 1 else design.take(batch)
                replicates = design_bootstrap_estimates(part, estimators, n_boot, streams.take(batch),
                                                        chunk_size=options.chunk_size, on_chunk=bar.update)
            _store(out, request, batch, replicates)
    return out


def resampling_design(request, stratified: bool = True) -> ClusterUnits | WeightedRows | None:
    """The units the bootstrap resamples for the usable groups: clusters, weighted rows, or None (rows).

    ``stratified``: weighted rows resampled within each class (the areas) or
    whatever their class (calibration); clusters are drawn whole either way.
    """
    result = request.result
    clusters = getattr(result, "clusters", None)
    if clusters is not None:
        design = ClusterUnits(result.ties, clusters.ties, clusters.group)
    elif getattr(result, "weighted_cells", None) is not None:
        cells = result.weighted_cells
        design = WeightedRows(result.ties, cells.cells, cells.weight, cells.target, stratified=stratified)
    else:
        return None
    return design if request.usable.size == result.n_groups else design.take(request.usable)


def _store(out: dict, request, batch: np.ndarray, replicates: np.ndarray) -> None:
    """The interval and replicate summaries of one batch of groups, written into ``out``."""
    replicates = np.moveaxis(replicates, 0, 1)  # (groups, estimators, replicates)
    rows = request.usable[batch]
    lower, upper = percentile_interval(replicates, request.level)
    out["lower"][rows], out["upper"][rows] = lower, upper
    for key, values in replicate_summary(replicates).items():
        out[key][rows] = values


def bootstrap_note(request, out) -> np.ndarray:
    notes = np.full(out["lower"].shape, None, dtype=object)
    requested = request.options.n_boot
    short = (out["n_boot"] < requested) & request.usable_mask[:, None]
    for i, j in zip(*np.nonzero(short)):  # only the groups with failed replicates
        notes[i, j] = f"{requested - int(out['n_boot'][i, j])} replicates gave no estimate and were left out"
    return notes
