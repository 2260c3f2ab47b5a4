"""Confidence intervals of a multiclass result: multivariate DeLong (AUROC) and the joint bootstrap.

Both methods keep what a per-class loop would lose: the areas of one group
share its rows, so an average's variance needs their covariance. DeLong's
comes from the linearisation of every area on the same rows
(:mod:`.delong`), the bootstrap's from re-estimating every area on the same
replicate (:mod:`.bootstrap`).

Edges, flagged in the note of the row:

* an area at 0 or 1 (a class perfectly separated) has a DeLong variance of
  0; its row takes Newcombe's (2006) score interval instead (never of zero
  width), and an average that uses such an area says that the area adds no
  variance to it;
* a Wald bound outside [0, 1] is truncated;
* rows whose smallest class has fewer cases than the method's validated
  minimum (:data:`MIN_CASES`, from the coverage grid in docs/validation.md)
  are noted and warned about (:class:`~aucpr_stats.exceptions.SmallSampleWarning`);
* bootstrap replicates in which an area is undefined are left out and counted.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv, level_iv, n_boot_iv, rng_iv
from ..exceptions import InputError, SmallSampleWarning
from ..intervals import normal_quantile, percentile_interval
from ..intervals.boundaries import (BOUNDARY_NOTE, TRUNCATED_NOTE, UNSEEDED_NOTE, join_notes, newcombe_interval,
                                    truncate, wilson_interval)
from ..plot.multiclass import multiclass_forest
from ..report.display import TabularResult
from ..report.multiclass_table import multiclass_table
from ..report.table import PublicationTable
from .bootstrap import bootstrap_replicates
from .delong import linearise, variance

__all__ = ["MulticlassIntervals", "multiclass_intervals", "MIN_CASES", "METHODS", "delong_parts"]

#: The interval methods of each metric.
METHODS = {"auroc": ("delong", "bootstrap"), "aucpr": ("bootstrap",)}

#: The fewest cases of the smallest class at which each method's coverage held in the grid (docs/validation.md).
MIN_CASES = {"delong": 50, "bootstrap": 200}  # benchmarks/multiclass_coverage_results.md (moderate models)

#: An area is near the boundary when min(cases, controls) x (1 - area) is below this (the binary rule).
MIN_BOUNDARY_COUNT = 10


@attrs.frozen(eq=False)
class MulticlassIntervals(TabularResult):
    """Intervals of every row of a multiclass result (its frame plus ``method``, ``level``, ``lower``, ``upper``, ``se``)."""

    frame: pl.DataFrame
    frame_kind: Any
    title: str
    lower: np.ndarray
    upper: np.ndarray
    se: np.ndarray
    metric: str = "auroc"
    scheme: str = "ovr"
    by: tuple = ()

    def to_polars(self) -> pl.DataFrame:
        return self.frame

    def _title(self) -> str:
        return self.title

    def table(self, digits: int = 2) -> PublicationTable:
        """The publication table: a row per class (pair) and average, a column per model (``to_markdown()``,
        ``to_latex()``, ``to_html()``, ``to_docx()``)."""
        return multiclass_table(self.frame, metric=self.metric, scheme=self.scheme, by=self.by, digits=digits,
                                frame_kind=str(self.frame_kind))

    def plot(self, title: str | None = None, digits: int = 2):
        """Forest plot of every row: classes as squares, averages as diamonds (matplotlib)."""
        return multiclass_forest(self.frame, metric=self.metric, by=self.by, title=title, digits=digits)


def default_method(result: Any, method: Any) -> str:
    """The checked method: DeLong for AUROC's A', the bootstrap otherwise."""
    allowed = METHODS[result.metric]
    if method is None:
        return "delong" if result.metric == "auroc" and result.estimator == "a_prime" else "bootstrap"
    method = choice_iv(method, "method", ("delong", "bootstrap"))
    if method not in allowed or (method == "delong" and result.estimator != "a_prime"):
        raise InputError(f"method={method!r} is not defined for a multiclass {result.metric} with estimator "
                         f"{result.estimator!r}: DeLong's variance is that of AUROC's A'; use method='bootstrap'")
    return method


def delong_parts(result: Any):
    """The linearisation of every reported row of every model (:func:`.delong.linearise`)."""
    micro_values = result.estimates[..., -1] if result.layout.micro else None
    return linearise(result.rows, result.cells, result.layout, result.area_values, result.micro, micro_values)


def smallest_class(result: Any) -> np.ndarray:
    """Per (group, row): the fewest cases among the classes the row uses."""
    counts = result.rows.class_counts().astype(np.float64)
    first, second = result.layout.first, result.layout.second
    smallest = np.where(counts.sum(axis=1) > 0, np.where(counts > 0, counts, np.inf).min(axis=1), 0)
    one = counts[:, np.maximum(first, 0)]
    two = np.where(second >= 0, counts[:, np.maximum(second, 0)], np.inf)
    return np.where(first >= 0, np.minimum(one, two), smallest[:, None])


def small_sample(result: Any, method: str, defined: np.ndarray, compare: bool = False) -> np.ndarray:
    """Notes of the rows below the method's minimum, and one warning for them.

    ``defined`` (n_groups, ..., n_rows): the rows that hold a value.
    """
    smallest = smallest_class(result)
    low = smallest.reshape(smallest.shape[:1] + (1,) * (defined.ndim - 2) + smallest.shape[1:]) < MIN_CASES[method]
    low = low & defined
    what = "test may not hold its size" if compare else "interval may under-cover"
    note = f"small sample: a class with fewer than {MIN_CASES[method]} cases, the {method} {what} (docs/multiclass.md)"
    notes = np.where(low, note, None).astype(object)
    if low.any():
        n_low = int(low.sum())
        warnings.warn(f"{n_low} multiclass row{'s' * (n_low != 1)} with a class of fewer than "
                      f"{MIN_CASES[method]} cases: the {method} {what} (see the `note` column)",
                      SmallSampleWarning, stacklevel=4)
    return notes


def near_boundary(result: Any, method: str) -> np.ndarray:
    """Notes of areas too close to 1 for their counts (and of the averages that use one), as for a binary area."""
    counts = result.counts()
    estimates = result.estimates
    is_area = np.array([k == "area" for k in result.layout.kind])
    with np.errstate(invalid="ignore"):
        close = (np.minimum(counts["n_pos"], counts["n_neg"]) * (1 - estimates) < MIN_BOUNDARY_COUNT) & (estimates < 1)
    close &= is_area
    averages = close.any(axis=-1, keepdims=True) & ~is_area & ~np.isnan(estimates)
    holds = "newcombe" if result.metric == "auroc" else "logit"
    note = (f"near the boundary: min(positives, negatives) x (1 - estimate) below {MIN_BOUNDARY_COUNT}, the "
            f"{method} interval may under-cover (for one class, the binary {holds} interval holds there; "
            "docs/intervals.md)")
    return np.where(close | averages, note, None).astype(object)


def multiclass_intervals(result: Any, *, method: Any, level: Any, n_boot: Any, rng: Any, seed: Any,
                         progress: Any) -> MulticlassIntervals:
    """Intervals of every row of ``result`` (see :meth:`MulticlassResult.conf_int`)."""
    method = default_method(result, method)
    level = level_iv(level)
    estimates = result.estimates
    notes = np.array(result.notes, dtype=object)
    extra: dict[str, Any] = {}
    if method == "delong":
        se = np.sqrt(np.maximum(variance(delong_parts(result)), 0.0))
        z = normal_quantile(level)
        lower, upper, cut = truncate(estimates - z * se, estimates + z * se)
        notes = join_notes(notes, np.where(cut, TRUNCATED_NOTE.format(lo=0, hi=1), None))
    else:
        n_boot = n_boot_iv(n_boot)
        seed = rng_iv(rng, seed)
        replicates = bootstrap_replicates(result.rows, result.cells, result.micro, result.layout, result.records,
                                          n_boot, seed, progress)
        lower, upper = percentile_interval(replicates, level)
        valid = (~np.isnan(replicates)).sum(axis=-1)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            se = np.nanstd(replicates, axis=-1, ddof=1)
        dropped = np.where((valid < n_boot) & ~np.isnan(estimates),
                           np.char.add(np.char.add((n_boot - valid).astype(str), f" of {n_boot} replicates "),
                                       "undefined (a class not drawn), left out").astype(object), None)
        notes = join_notes(notes, dropped)
        if seed is None:
            notes = join_notes(notes, np.where(np.isnan(estimates), None, UNSEEDED_NOTE))
        extra["n_boot"] = np.broadcast_to(valid, estimates.shape).ravel()
    lower, upper, se, notes = _boundary(result, lower, upper, se, notes, level)
    notes = join_notes(notes, near_boundary(result, method))
    undefined = np.isnan(estimates)
    lower, upper, se = (np.where(undefined, np.nan, x) for x in (lower, upper, se))
    notes = join_notes(notes, small_sample(result, method, ~undefined))
    base = result.to_polars().drop("note")
    frame = base.with_columns(
        pl.lit(method).alias("method"), pl.lit(level).alias("level"),
        pl.Series("lower", lower.ravel()), pl.Series("upper", upper.ravel()),
        pl.Series("se", se.ravel()), *(pl.Series(k, v) for k, v in extra.items()),
        pl.Series("note", list(notes.ravel()), dtype=pl.String))
    title = f"{result._title()}: {level:.0%} {method} intervals"
    return MulticlassIntervals(frame, result.frame_kind, title, lower, upper, se, result.metric, result.scheme,
                               result.rows.by)


def _boundary(result: Any, lower, upper, se, notes, level: float):
    """Rows whose area sits at 0 or 1: a score interval for an area, a note for an average.

    The score interval is Newcombe's (2006) for AUROC and Wilson's on the
    cases for AUCPR, as for a binary area at the boundary; DeLong's variance
    and the bootstrap's replicates are both 0 there.
    """
    estimates = result.estimates
    at_edge = (estimates == 0) | (estimates == 1)
    if not at_edge.any():
        return lower, upper, se, notes
    counts = result.counts()
    is_area = np.array([k == "area" for k in result.layout.kind])
    fallback = at_edge & is_area
    if fallback.any():
        if result.metric == "auroc":
            lo, hi, _ = newcombe_interval(estimates[fallback], counts["n_pos"][fallback],
                                          counts["n_neg"][fallback], level)
        else:
            lo, hi, _ = wilson_interval(estimates[fallback], counts["n_pos"][fallback], level)
        lower, upper = lower.copy(), upper.copy()
        lower[fallback], upper[fallback] = lo, hi
        name = "Newcombe" if result.metric == "auroc" else "Wilson"
        note = BOUNDARY_NOTE.format(reason="the area is 0 or 1, its variance 0", method=name)
        notes = join_notes(notes, np.where(fallback, note, None))
    edge_area = (result.area_values == 0) | (result.area_values == 1)
    if edge_area.any():
        uses = (result.layout.coefficients != 0)  # (G, R_summed, A)
        touched = np.einsum("gra,gma->gmr", uses.astype(float), edge_area.astype(float)) > 0
        touched = np.concatenate([touched, np.zeros(touched.shape[:2] + (estimates.shape[2] - touched.shape[2],),
                                                    dtype=bool)], axis=2)
        average = touched & ~is_area
        notes = join_notes(notes, np.where(average, "an area at 0 or 1 adds no variance (its classes perfectly "
                                                    "separated): the interval may be too narrow", None))
    return lower, upper, se, notes
