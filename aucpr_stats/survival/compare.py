"""The paired comparison of two scores at each horizon, on the same rows (and the same censoring fit).

``method="influence"``: the difference's influence terms are the
difference of the two areas' (:mod:`.influence`), so its variance holds
their covariance, the estimation of the censoring distribution included (as
riskRegression's ``Score`` contrasts); a Wald test and interval.
``method="bootstrap"``: both areas re-estimated on every replicate; the
percentile interval of the difference, and a Wald test with the bootstrap
standard error.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv, flag_iv, level_iv, n_boot_iv, rng_iv
from ..exceptions import InputError
from ..intervals import normal_quantile, percentile_interval
from ..intervals.boundaries import UNSEEDED_NOTE, join_notes
from ..report.display import FramedResult
from .bootstrap import bootstrap_areas
from .intervals import influence_of, small_sample_notes

__all__ = ["TimeDependentComparison", "compare_scores"]


@attrs.frozen(eq=False)
class TimeDependentComparison(FramedResult):
    """The difference of two scores' areas at every horizon of every group."""


def _pick(result: Any, first: Any, second: Any) -> tuple[int, int]:
    names = list(result.rows.score_names)
    if first is None and second is None:
        if len(names) != 2:
            raise InputError(f"compare() needs `first` and `second` when the result has {len(names)} scores "
                             f"({', '.join(names)})")
        return 0, 1
    for label, value in (("first", first), ("second", second)):
        if value not in names:
            raise InputError(f"`{label}`={value!r} is not a score of this result; it has {', '.join(names)}")
    if first == second:
        raise InputError(f"`first` and `second` are both {first!r}: compare two different scores")
    return names.index(first), names.index(second)


def _replicate_correlation(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson correlation over the last axis, on the replicates where both values are defined."""
    both = np.isfinite(first) & np.isfinite(second)
    count = both.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.where(both, first - np.where(both, first, 0.0).sum(axis=-1, keepdims=True) / count, 0.0)
        y = np.where(both, second - np.where(both, second, 0.0).sum(axis=-1, keepdims=True) / count, 0.0)
        return (x * y).sum(axis=-1) / np.sqrt((x * x).sum(axis=-1) * (y * y).sum(axis=-1))


def compare_scores(result: Any, first: Any = None, second: Any = None, *, method: Any = None, level: Any = 0.95,
                   conservative: Any = False, n_boot: Any = 2000, rng: Any = None, seed: Any = None,
                   progress: Any = None) -> TimeDependentComparison:
    """The paired comparison of two scores of ``result`` at each horizon (see the module docstring)."""
    from scipy.special import ndtr  # lazy: `import aucpr_stats` never loads scipy

    a, b = _pick(result, first, second)
    method = choice_iv("influence" if method is None else method, "method", ("influence", "bootstrap"))
    level = level_iv(level)
    conservative = flag_iv(conservative, "conservative")
    seed = rng_iv(rng, seed)
    est = result.estimates
    difference = est[:, a] - est[:, b]  # (G, H)
    notes = np.array(result.notes[:, a], dtype=object)
    z_level = normal_quantile(level)
    if method == "influence":
        terms = influence_of(result, conservative)
        t = terms.terms
        d = t[a] - t[b]
        se = np.where(np.isfinite(difference), np.sqrt(np.maximum(terms.covariance(d, d).T, 0.0)), np.nan)
        var_a, var_b = terms.covariance(t[a], t[a]).T, terms.covariance(t[b], t[b]).T
        with np.errstate(invalid="ignore", divide="ignore"):
            correlation = terms.covariance(t[a], t[b]).T / np.sqrt(var_a * var_b)
        lower, upper = difference - z_level * se, difference + z_level * se
    else:
        n_boot = n_boot_iv(n_boot)
        reps = bootstrap_areas(result.rows, result.horizons, result.record, n_boot=n_boot,
                               seed=seed, progress=progress)
        diff_reps = reps[:, a] - reps[:, b]
        lower, upper = percentile_interval(diff_reps, level)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            se = np.nanstd(diff_reps, axis=-1, ddof=1)
            correlation = _replicate_correlation(reps[:, a], reps[:, b])
        if seed is None:
            notes = join_notes(notes, UNSEEDED_NOTE)
    notes = small_sample_notes(result, method, notes, what="comparison")
    with np.errstate(invalid="ignore", divide="ignore"):
        z = difference / se
    p_value = 2.0 * ndtr(-np.abs(z))
    names = result.rows.score_names
    keys = result.to_polars()
    if result.rows.n_scores > 1:
        keys = keys.filter(pl.col("score") == names[a])  # one row per group and horizon
    keys = keys.select(result.key_names(with_score=False) + ["horizon"])
    frame = pl.concat([keys, pl.DataFrame({
        "score_a": [names[a]] * keys.height, "score_b": [names[b]] * keys.height,
        "estimate_a": est[:, a].ravel(), "estimate_b": est[:, b].ravel(), "difference": difference.ravel(),
        "se": se.ravel(), "z": z.ravel(), "p_value": p_value.ravel(), "lower": lower.ravel(),
        "upper": upper.ravel(), "correlation": np.asarray(correlation).ravel(),
        "method": [method] * keys.height, "level": [level] * keys.height,
        "n_pos": result.counts["n_cases"].ravel(), "n_neg": result.counts["n_controls"].ravel(),
        "note": pl.Series(list(notes.ravel()), dtype=pl.String)})], how="horizontal")
    title = f"{result._title()}: {names[a]} - {names[b]} ({method})"
    return TimeDependentComparison(frame=frame, frame_kind=result.frame_kind, title=title)
