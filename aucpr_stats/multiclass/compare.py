"""Two models' multiclass areas compared on the same rows: every class (pair) and every average, per group.

The difference of two models' areas is one more weighted sum of areas on the
same rows, so its variance is read off the same linearisation
(:mod:`.delong`: on one class's area, DeLong's paired test exactly) or off
the same bootstrap replicates for both models (:mod:`.bootstrap`, the
percentile interval and its p-value, Davison & Hinkley 1997, Eq. 4.11).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import level_iv, n_boot_iv, rng_iv
from ..compare.statistics import bootstrap_p_value
from ..distributions import normal_cdf
from ..exceptions import InputError
from ..intervals import normal_quantile, percentile_interval
from ..intervals.boundaries import TRUNCATED_NOTE, UNSEEDED_NOTE, join_notes, truncate
from ..report.display import FramedResult
from .bootstrap import bootstrap_replicates
from .delong import variance
from .frames import key_columns
from .intervals import default_method, delong_parts, small_sample

__all__ = ["MulticlassComparison", "compare_models"]


@attrs.frozen(eq=False)
class MulticlassComparison(FramedResult):
    """The paired difference ``first - second`` of every row, with its interval and two-sided p-value."""


def _model_index(result: Any, name: Any, argument: str) -> int:
    names = list(result.models)
    if name not in names:
        raise InputError(f"`{argument}` must name one of the result's models ({', '.join(map(repr, names))}); "
                         f"got {name!r}")
    return names.index(name)


def compare_models(result: Any, first: Any, second: Any, *, method: Any, level: Any, n_boot: Any, rng: Any,
                   seed: Any, progress: Any) -> MulticlassComparison:
    """The comparison of two models of ``result`` (see :meth:`MulticlassResult.compare`)."""
    if result.n_models < 2:
        raise InputError("a comparison needs two models: give score= as {model: {level: column}} or a list of "
                         "templates such as ['a_{level}', 'b_{level}']")
    if first is None and second is None:
        if result.n_models != 2:
            raise InputError(f"the result holds {result.n_models} models: name `first` and `second`")
        first, second = result.models
    i, j = _model_index(result, first, "first"), _model_index(result, second, "second")
    if i == j:
        raise InputError(f"`first` and `second` name the same model {first!r}")
    method = default_method(result, method)
    level = level_iv(level)
    estimates = result.estimates
    difference = estimates[:, i] - estimates[:, j]
    notes = join_notes(result.notes[:, i], result.notes[:, j])
    if method == "delong":
        lin = delong_parts(result)
        se = np.sqrt(np.maximum(variance(lin, lin.u[:, i] - lin.u[:, j], lin.l[:, i] - lin.l[:, j]), 0.0))
        z = normal_quantile(level)
        lower, upper, cut = truncate(difference - z * se, difference + z * se, -1.0, 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            statistic = difference / se
        p_value = 2.0 * normal_cdf(-np.abs(statistic))
        notes = join_notes(notes, np.where(cut, TRUNCATED_NOTE.format(lo=-1, hi=1), None))
        notes = join_notes(notes, np.where((se == 0) & ~np.isnan(difference),
                                           "no variance (areas at 0 or 1 in both models): no test", None))
    else:
        n_boot = n_boot_iv(n_boot)
        seed = rng_iv(rng, seed)
        replicates = bootstrap_replicates(result.rows, result.cells, result.micro, result.layout, result.records,
                                          n_boot, seed, progress, purpose="multiclass compare")
        delta = replicates[:, i] - replicates[:, j]
        lower, upper = percentile_interval(delta, level)
        with np.errstate(invalid="ignore"):
            se = np.sqrt(np.nanvar(delta, axis=-1, ddof=1)) if delta.shape[-1] > 1 else np.full(difference.shape,
                                                                                                  np.nan)
            statistic = difference / se
        p_value = bootstrap_p_value(delta)
        if seed is None:
            notes = join_notes(notes, np.where(np.isnan(difference), None, UNSEEDED_NOTE))
    undefined = np.isnan(difference)
    lower, upper, se, statistic, p_value = (np.where(undefined, np.nan, x)
                                            for x in (lower, upper, se, statistic, p_value))
    notes = join_notes(notes, small_sample(result, method, ~undefined, compare=True))
    keys = key_columns(result.rows, result.layout, 1)
    frame = keys.with_columns(
        pl.lit(result.estimator).alias("estimator"), pl.lit(str(first)).alias("first"),
        pl.lit(str(second)).alias("second"), pl.Series("estimate_first", estimates[:, i].ravel()),
        pl.Series("estimate_second", estimates[:, j].ravel()), pl.Series("difference", difference.ravel()),
        pl.Series("se", se.ravel()), pl.Series("lower", lower.ravel()), pl.Series("upper", upper.ravel()),
        pl.Series("statistic", statistic.ravel()), pl.Series("p_value", p_value.ravel()),
        pl.lit(method).alias("method"), pl.lit(level).alias("level"),
        pl.Series("note", list(notes.ravel()), dtype=pl.String))
    title = f"{result._title()}: {first} - {second}, {level:.0%} {method} intervals"
    return MulticlassComparison(frame, result.frame_kind, title)
