"""Confidence intervals and bands of the time-dependent areas: the influence function and the bootstrap.

``method="influence"`` (the default) takes the standard error of
:mod:`.influence` (Blanche et al. 2013: the estimation of the censoring
distribution included) and builds a Wald interval on the logit scale
(``scale="logit"``, inside (0, 1)) or on the area's own scale
(``scale="identity"``, truncated to [0, 1]: riskRegression's and timeROC's
interval). ``method="bootstrap"`` re-draws the rows, re-fits the censoring
distribution and takes the percentile interval (:mod:`.bootstrap`).

``band=True`` adds a simultaneous band over the horizons of each group and
score (``band_lower``, ``band_upper``): the estimate plus or minus ``q``
standard errors, where ``q`` is the ``level`` quantile of the largest
absolute standardised deviation over the horizons: simulated from the
normal law with the influence functions' correlation between horizons
(Blanche et al. 2013, section 3.3), or read off the bootstrap replicates
(the largest studentised deviation of each replicate).

Edges, flagged in the note: an area of exactly 0 or 1 has no logit interval
(NaN: use ``scale="identity"`` or the bootstrap, whose intervals are then
degenerate too); a Wald bound outside [0, 1] is truncated; bootstrap
replicates in which an area is undefined (no case or no control drawn) are
left out and counted; horizons with fewer cases than the coverage study
validated (:data:`MIN_CASES`) are noted and warned about.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv, flag_iv, level_iv, n_boot_iv, rng_iv
from ..distributions import expit, logit
from ..exceptions import SmallSampleWarning
from ..intervals import a_prime_gradient, average_precision_gradient, normal_quantile, percentile_interval
from ..intervals.boundaries import TRUNCATED_NOTE, UNSEEDED_NOTE, join_notes
from ..plot.time_dependent import time_dependent_curves
from ..report.display import FramedResult
from ..resample.streams import Streams
from .bootstrap import bootstrap_areas
from .influence import UnitTerms, unit_terms

__all__ = ["TimeDependentIntervals", "time_dependent_intervals", "influence_of", "small_sample_notes", "MIN_COUNT",
           "N_SIM"]

#: The fewest cases and controls at a horizon from which each (metric, method) held its coverage in the grid:
#: 0-60% censoring, n 100-1,000, AUC(t) 0.74 and 0.94 (benchmarks/survival_coverage_results.md). AUC(t)'s
#: influence interval failed only with 2-16 controls left; AP(t)'s at 25-30 cases and 26 controls (89-93%);
#: the percentile bootstrap fell to 91-93% in cells of 88-300 as well.
MIN_COUNT = {("auroc", "influence"): 20, ("aucpr", "influence"): 50, ("auroc", "bootstrap"): 100,
             ("aucpr", "bootstrap"): 100}

#: Normal draws for the quantile of the simultaneous band (Monte Carlo error of q about 0.01).
N_SIM = 20_000


@attrs.frozen(eq=False)
class TimeDependentIntervals(FramedResult):
    """Intervals of every (group, score, horizon) of a time-dependent result."""

    metric: str = "auroc"
    by: tuple = ()

    def plot(self, ax: Any = None, *, title: str | None = None):
        """The area against the horizon with its pointwise interval (shaded) and band (dashed), per group and score."""
        return time_dependent_curves(self.frame, metric=self.metric, by=self.by, ax=ax, title=title)


def influence_of(result: Any, conservative: bool = False) -> UnitTerms:
    """The influence terms of every unit for every area of ``result`` (:mod:`.influence`)."""
    if result.metric == "auroc":
        gradient = a_prime_gradient(result.ties)
    else:
        gradient = average_precision_gradient(result.ties, result.record.ties)
    return unit_terms(result.rows, result.ranks, result.weights, result.horizons, gradient, conservative)


def _on_scale(estimate: np.ndarray, scale: str):
    """The estimate on the interval's scale and the derivative of the transform."""
    if scale == "identity":
        return estimate, np.ones_like(estimate)
    with np.errstate(divide="ignore", invalid="ignore"):
        return logit(estimate), 1.0 / (estimate * (1.0 - estimate))


def _back(values: np.ndarray, scale: str) -> np.ndarray:
    return values if scale == "identity" else expit(values)


def _band_quantile(correlation: np.ndarray, level: float, rng: np.random.Generator) -> float:
    """The ``level`` quantile of max |Z| over the horizons, Z normal with this correlation."""
    values, vectors = np.linalg.eigh(correlation)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    draws = rng.standard_normal((N_SIM, correlation.shape[0])) @ root.T
    return float(np.quantile(np.abs(draws).max(axis=1), level))


def _influence(result: Any, level: float, scale: str, conservative: bool, band: bool, streams: Streams | None):
    terms = influence_of(result, conservative)
    t = terms.terms  # (M, H, U)
    est = result.estimates  # (G, M, H)
    variance = np.moveaxis(terms.covariance(t, t), -1, 0)
    se = np.where(np.isfinite(est), np.sqrt(np.maximum(variance, 0.0)), np.nan)  # no area, no spread
    centre, slope = _on_scale(est, scale)
    z = normal_quantile(level)
    with np.errstate(invalid="ignore"):  # an area of 0 or 1 has no logit interval: NaN, and a note (below)
        scaled_se = se * np.abs(slope)
        lower, upper = _back(centre - z * scaled_se, scale), _back(centre + z * scaled_se, scale)
    band_bounds = None
    if band:
        covariance = np.moveaxis(terms.covariance(t[:, :, None, :], t[:, None, :, :]), -1, 0)  # (G, M, H, H)
        band_bounds = _influence_band(est, se, covariance, centre, scaled_se, slope, level, scale, streams)
    return lower, upper, se, band_bounds


def _influence_band(est, se, covariance, centre, scaled_se, slope, level, scale, streams):
    lower, upper = np.full(est.shape, np.nan), np.full(est.shape, np.nan)
    n_groups, n_scores, _ = est.shape
    for g in range(n_groups):
        rng = streams[g]
        for m in range(n_scores):
            ok = np.isfinite(scaled_se[g, m]) & (scaled_se[g, m] > 0)
            if ok.sum() < 1:
                continue
            idx = np.flatnonzero(ok)
            cov = covariance[g, m][np.ix_(idx, idx)] * np.outer(slope[g, m, idx], slope[g, m, idx])
            sd = np.sqrt(np.diag(cov))
            q = _band_quantile(cov / np.outer(sd, sd), level, rng)
            lower[g, m, idx] = _back(centre[g, m, idx] - q * scaled_se[g, m, idx], scale)
            upper[g, m, idx] = _back(centre[g, m, idx] + q * scaled_se[g, m, idx], scale)
    return lower, upper


def _bootstrap(result: Any, level: float, band: bool, n_boot: int, seed: Any, progress: Any):
    reps = bootstrap_areas(result.rows, result.horizons, result.record, n_boot=n_boot, seed=seed,
                           progress=progress)
    lower, upper = percentile_interval(reps, level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(reps, axis=-1, ddof=1)
    undefined = np.isnan(reps).sum(axis=-1)
    band_bounds = None
    if band:
        with np.errstate(invalid="ignore", divide="ignore"):
            deviation = np.abs(reps - result.estimates[..., None]) / se[..., None]  # (G, M, H, B)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            largest = np.nanmax(np.where(np.isfinite(deviation), deviation, np.nan), axis=2)  # (G, M, B)
            q = np.nanquantile(largest, level, axis=-1)
        band_bounds = (np.clip(result.estimates - q[..., None] * se, 0, 1),
                       np.clip(result.estimates + q[..., None] * se, 0, 1))
    return lower, upper, se, band_bounds, undefined


def time_dependent_intervals(result: Any, method: Any = None, level: Any = 0.95, *, scale: Any = "logit",
                             conservative: Any = False, band: Any = False, n_boot: Any = 2000, rng: Any = None,
                             seed: Any = None, progress: Any = None) -> TimeDependentIntervals:
    """Intervals (and a band over horizons) of every area of ``result`` (see the module docstring)."""
    method = choice_iv("influence" if method is None else method, "method", ("influence", "bootstrap"))
    level = level_iv(level)
    scale = choice_iv(scale, "scale", ("logit", "identity"))
    conservative, band = flag_iv(conservative, "conservative"), flag_iv(band, "band")
    seed = rng_iv(rng, seed)
    est = result.estimates
    notes = np.array(result.notes, dtype=object)
    undefined = None
    if method == "influence":
        streams = Streams.for_keys(seed, result.rows.keys, result.rows.by, "band") if band else None
        lower, upper, se, band_bounds = _influence(result, level, scale, conservative, band, streams)
        if scale == "logit":
            edge = (est == 0) | (est == 1)
            text = np.where(est == 1, "estimate at 1", "estimate at 0").astype(object)
            notes = join_notes(notes, np.where(edge, text + ": no logit interval (use scale='identity' or the "
                                               "bootstrap)", None))
        else:
            truncated = (lower < 0) | (upper > 1)
            lower, upper = np.clip(lower, 0, 1), np.clip(upper, 0, 1)
            notes = join_notes(notes, np.where(truncated, TRUNCATED_NOTE.format(lo=0, hi=1), None))
    else:
        n_boot = n_boot_iv(n_boot)
        lower, upper, se, band_bounds, undefined = _bootstrap(result, level, band, n_boot, seed, progress)
        some = (undefined > 0) & np.isfinite(est)
        counted = np.char.add(undefined.astype(str), f" of {n_boot} replicates undefined (left out)")
        notes = join_notes(notes, np.where(some, counted.astype(object), None))
    if seed is None and (method == "bootstrap" or band):
        notes = join_notes(notes, UNSEEDED_NOTE)
    notes = small_sample_notes(result, method, notes)
    frame = result.to_polars().select(result.key_names() + ["horizon", "estimator", "estimate"])
    columns = {"method": [method] * frame.height, "level": [level] * frame.height,
               "lower": lower.ravel(), "upper": upper.ravel(), "se": se.ravel()}
    if band_bounds is not None:
        columns.update({"band_lower": band_bounds[0].ravel(), "band_upper": band_bounds[1].ravel()})
    counts = result.to_polars().select("n_pos", "n_neg", "prevalence")
    values = pl.DataFrame({k: pl.Series(v, nan_to_null=False) for k, v in columns.items()})
    frame = pl.concat([frame, values, counts, pl.DataFrame({"note": pl.Series(list(notes.ravel()),
                                                                             dtype=pl.String)})], how="horizontal")
    title = f"{result._title()}: {int(round(level * 100))}% intervals ({method}" + \
        (f", {scale} scale" if method == "influence" else f", {n_boot} replicates") + \
        (", simultaneous band" if band else "") + ")"
    return TimeDependentIntervals(frame=frame, frame_kind=result.frame_kind, title=title, metric=result.metric,
                                  by=result.rows.by)


def small_sample_notes(result: Any, method: str, notes: np.ndarray, what: str = "interval") -> np.ndarray:
    """Notes (and one warning) where a horizon has fewer cases or controls than the method was validated at.

    ``notes`` has the result's shape (group, score, horizon), or (group, horizon) for a comparison.
    """
    minimum = MIN_COUNT[(result.metric, method)]
    fewest = np.minimum(result.counts["n_cases"], result.counts["n_controls"])  # (G, H)
    if notes.ndim == 3:
        fewest = np.broadcast_to(fewest[:, None, :], notes.shape)
    estimates = result.estimates if notes.ndim == 3 else result.estimates[:, 0]
    low = (fewest < minimum) & np.isfinite(estimates)
    if not low.any():
        return notes
    text = f"fewer than {minimum} cases or controls at the horizon: coverage below 95% in the validation grid"
    notes = join_notes(notes, np.where(low, text, None))
    many = int(low.sum()) != 1
    warnings.warn(f"{int(low.sum())} time-dependent {what}{'s' * many} rest{'' if many else 's'} on fewer than "
                  f"{minimum} cases or controls at the horizon, where the coverage study found the "
                  f"{method} method below 95% (docs/time_to_event.md)", SmallSampleWarning, stacklevel=4)
    return notes
