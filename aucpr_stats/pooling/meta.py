"""``result.meta()``: a random-effects meta-analysis of a per-site result (TRIPOD+AI 12d and 23b).

The sites are the groups of the result (``by="site"``): each site's estimate
and within-site variance come from the result itself through
:func:`~aucpr_stats.compare.site_values.site_values` (DeLong for AUROC, the
jackknife of the logit for AUCPR, Obuchowski's cluster-robust DeLong or the
cluster bootstrap with ``cluster=``, the Wald variances of calibration and net
benefit), carried to the pooling scale (logit for the areas, as Debray et al.
2017 and metamisc's ``valmeta`` do; log for O/E; natural otherwise), and
pooled by :func:`~aucpr_stats.combine.random_effects.random_effects`: one
vectorised pass for every score, estimator and level of the other grouping
columns, and one more for every leave-one-site-out refit.

References
----------
Debray, T. P. A., Damen, J. A. A. G., Snell, K. I. E., et al. (2017). A guide
to systematic review and meta-analysis of prediction model performance. BMJ
356, i6460.
Debray, T. P. A., Collins, G. S., Riley, R. D., et al. (2023). Transparent
reporting of multivariable prediction models developed or validated using
clustered data (TRIPOD-Cluster). BMJ 380, e071018.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl

from .._validate import choice_iv, level_iv
from ..compare.heterogeneity import across_iv
from ..compare.prevalence import prevalence_notes
from ..compare.site_values import SCALES, none_mask, site_values
from ..distributions import normal_quantile
from ..exceptions import DegenerateGroupWarning, InputError, SmallSampleWarning
from ..ingest.notes import describe_keys
from .meta_result import MetaResult, back_transform
from ..combine.random_effects import CI_METHODS, TAU2_METHODS, random_effects

__all__ = ["MIN_SITES", "default_scale", "meta"]

#: The fewest sites from which each interval for the pooled mean held its level (coverage >= 93.5%) for every
#: between-site spread 0-0.5 (logit AUROC) in ``benchmarks/meta_coverage.py`` (``docs/pooling.md``): HKSJ from
#: 3 sites (the fewest tried; worst 93.5%), Wald at none of 3-30 (82.0% at 3, 92.0% at 20, 93.3-93.5% at 30
#: sites), so it is flagged up to 30 (beyond, unmeasured). With fewer, rows say so and a warning is given.
MIN_SITES = {"hksj": 3, "hksj_adhoc": 3, "wald": 31}
#: The prediction interval held its level from this many sites, and only where the spread between sites was
#: large against the sites' own precision (same study: tau 0.5 from 10 sites, tau 0.25 from 20, tau 0.1 never:
#: 83.6-91.1%). The estimated I² stands in for that ratio: below these values (at 10-19 sites, at 20 or more)
#: the row's note says the prediction interval may under-cover.
MIN_SITES_PREDICTION = 10
PREDICTION_I_SQUARED = (0.9, 0.7)
#: Pooled AUCPR: average precision is biased upward at few positives per site, and pooling many such sites turns
#: the bias into under-coverage (HKSJ 91.8% at 10 and 89.4% at 20 sites of 30-150 positives, mean 0.75).
AUCPR_BIAS_SITES, AUCPR_BIAS_POSITIVES = 10, 150

def default_scale(metric: str, estimator: str) -> str:
    """The pooling scale of a statistic: logit for areas, log for O/E, natural otherwise."""
    if metric in ("auroc", "aucpr"):
        return "logit"
    return "log" if estimator == "oe_ratio" else "natural"


def _cells(rows: pl.DataFrame, split: list) -> tuple[np.ndarray, np.ndarray, pl.DataFrame]:
    """Each row's meta-analysis (cell) and its place among that cell's sites, and the cells' keys."""
    distinct = rows.select(split).unique(maintain_order=True).with_row_index("__cell")
    cell = rows.select(split).join(distinct, on=split, nulls_equal=True, how="left",
                                   maintain_order="left")["__cell"].to_numpy().astype(np.int64)
    order = np.argsort(cell, kind="stable")
    starts = np.searchsorted(cell[order], np.arange(distinct.height))
    place = np.empty(cell.size, dtype=np.int64)
    place[order] = np.arange(cell.size) - starts[cell[order]]
    return cell, place, distinct.drop("__cell")


def _matrix(values: np.ndarray, cell: np.ndarray, place: np.ndarray, n_cells: int, width: int) -> np.ndarray:
    out = np.full((n_cells, width), np.nan)
    out[cell, place] = values
    return out


def meta(result: Any, method: str = "REML", *, ci: str = "hksj", prediction_interval: bool | str = True,
         level: float = 0.95, variance: str | None = None, scale: str | None = None, across: Any = None,
         **options: Any) -> MetaResult:
    """Random-effects meta-analysis of a per-site result: pooled value, tau², I², Q and a prediction interval.

    Parameters
    ----------
    result : AurocResult, AucprResult, CalibrationResult or NetBenefitResult
        Grouped by site (``by="site"``); with several scores, estimators,
        statistics or thresholds, one meta-analysis each.
    method : {"REML", "DL", "PM"}
        Estimator of the between-site variance tau² (restricted maximum
        likelihood, DerSimonian-Laird, Paule-Mandel).
    ci : {"hksj", "hksj_adhoc", "wald"}
        Interval for the pooled value: Hartung-Knapp-Sidik-Jonkman (t with k
        - 1 df; the default: the Wald interval under-covers with few sites,
        ``docs/pooling.md``), the same never narrower than Wald's, or Wald.
    prediction_interval : bool or "riley"
        Add the interval for the true value at a new site (Higgins et al.
        2009), with the interval's quantile (t with k - 1 df unless Wald, as
        metafor's ``predict``); ``"riley"``: with t on k - 2 df (Riley et al.
        2011).
    level : float
    variance : str, optional
        Where each site's variance comes from: a method of
        ``result.heterogeneity`` (``"delong"``, ``"logit"``, ``"bootstrap"``
        for AUROC; ``"jackknife"``, ``"logit"``, ``"bootstrap"`` for AUCPR;
        ``"wald"``, ``"bootstrap"`` for calibration and net benefit).
        Default: DeLong (cluster-robust with ``cluster=``), AUCPR's own
        jackknife of the logit (``"logit"`` with weights, ``"bootstrap"``
        with clusters), Wald.
    scale : {"logit", "log", "natural"}, optional
        The pooling scale; default logit for areas, log for O/E, natural for
        the other statistics. Pooled values and intervals are returned on
        the natural scale.
    across : str or list of str, optional
        The grouping columns that name the sites (default: all of ``by``);
        other grouping columns split the analyses (one per level).
    **options
        Options of the variance source (``n_boot``, ``seed`` for the
        bootstrap; ``max_units``, ``seed`` for the jackknife).

    Returns
    -------
    MetaResult

    Raises
    ------
    InputError
        An ungrouped result, an unknown method, interval, scale or column.
    """
    method = choice_iv(str(method).upper(), "method", TAU2_METHODS)
    ci = choice_iv(ci, "ci", CI_METHODS)
    level = level_iv(level)
    if not isinstance(prediction_interval, bool) and prediction_interval != "riley":
        raise InputError(f"`prediction_interval` must be True, False or 'riley'; got {prediction_interval!r}")
    across, split = across_iv(across, tuple(result.by))
    imputed = hasattr(result, "site_values")  # Rubin-pooled values and total variances per site
    if result.metric == "aucpr" and variance in (None, "jackknife") and not imputed:
        options.setdefault("pooled", False)  # each site's own jackknife variance, not one pooled per positive
    names = np.asarray(result.estimators, dtype=object)
    per_row = None
    if scale is None:
        per_row = np.tile([default_scale(result.metric, str(e)) for e in names], result.estimates.shape[0])
    else:
        scale = choice_iv(scale, "scale", SCALES)
    read = result.site_values if imputed else (lambda *a, **k: site_values(result, *a, **k))
    sites = read(variance, per_row if scale is None else scale, options, scales=SCALES)
    rows = sites.rows
    scale_of = np.broadcast_to(np.asarray(sites.scale, dtype=object), sites.theta.shape)
    cell, place, cells = _cells(rows, [*split, "estimator"])
    used = none_mask(sites.reason) & np.isfinite(sites.theta) & (sites.variance > 0)
    n_cells, width = cells.height, int(place.max()) + 1 if place.size else 0
    y = _matrix(np.where(used, sites.theta, np.nan), cell, place, n_cells, width)
    v = _matrix(np.where(used, sites.variance, np.nan), cell, place, n_cells, width)
    mask = np.isfinite(y) & np.isfinite(v)
    fit = random_effects(np.nan_to_num(y), np.where(mask, v, 1.0), mask, method=method, ci=ci, level=level,
                         prediction="riley" if prediction_interval == "riley" else "same")
    cell_scale = np.empty(n_cells, dtype=object)
    cell_scale[cell] = scale_of
    table = _pooled_table(cells, fit, cell_scale, method, ci, level, prediction_interval)
    notes = _notes(fit, cell, used, sites.reason, describe_keys(result.keys, across, sites.group.tolist()),
                   ci, prediction_interval, n_cells)
    if result.metric == "aucpr":  # few positives per site: the estimator's own bias adds up over sites
        positives = np.bincount(cell, weights=np.where(used, sites.n_pos, 0.0), minlength=n_cells)
        many = (fit["k"] >= AUCPR_BIAS_SITES) & (positives / np.maximum(fit["k"], 1) < AUCPR_BIAS_POSITIVES)
        bias = (f"average precision is biased upward at fewer than {AUCPR_BIAS_POSITIVES} positives per site; "
                f"pooled over {AUCPR_BIAS_SITES} or more such sites the bias outweighs the interval (coverage "
                "89-92% in docs/pooling.md)")
        notes = [f"{n}; {bias}" if flag and n else (bias if flag else n) for n, flag in zip(notes, many)]
    if result.metric == "aucpr" and getattr(result, "stated_prevalence", None) is None:
        # a pooled AUCPR mixes the sites' prevalences with their discrimination
        n_neg = np.asarray(result.n_neg)[sites.group]
        differ = prevalence_notes(cell, n_cells, sites.n_pos, n_neg, subject="the pooled value")
        notes = ["; ".join(p for p in (n, d) if p) or None for n, d in zip(notes, differ)]
    table = table.with_columns(pl.Series("note", notes, dtype=pl.String))
    # the sites: their values and intervals on the natural scale, weights as shares of each analysis
    z = normal_quantile(0.5 + level / 2)
    with np.errstate(all="ignore"):
        tau2 = np.nan_to_num(fit["tau2"])[cell]
        weight = np.where(used, 1.0 / (sites.variance + tau2), 0.0)
        share = weight / np.bincount(cell, weights=weight, minlength=n_cells)[cell]
        half = z * np.sqrt(sites.variance)
        lower, upper = back_transform(scale_of, sites.theta - half), back_transform(scale_of, sites.theta + half)
    site_frame = rows.rename({"value": "estimate"}).with_columns(
        pl.Series("lower", np.where(used, lower, np.nan)), pl.Series("upper", np.where(used, upper, np.nan)),
        pl.Series("scale", scale_of.tolist(), dtype=pl.String), pl.Series("theta", sites.theta),
        pl.Series("variance", sites.variance), pl.Series("weight", np.where(used, share, np.nan)),
        pl.Series("used", used), pl.Series("reason", sites.reason.tolist(), dtype=pl.String))
    _warn(fit, used, ci, prediction_interval)
    return MetaResult(table=table, sites=site_frame, result=result, method=method, ci=ci, level=level,
                      variance_method=sites.method, across=tuple(across), split=tuple(split),
                      prediction_interval=prediction_interval)


def _pooled_table(cells: pl.DataFrame, fit: dict, cell_scale: np.ndarray, method: str, ci: str, level: float,
                  prediction_interval: bool) -> pl.DataFrame:
    """One row per meta-analysis: the pooled value and intervals on the natural scale, tau², I², Q."""
    def back(values: np.ndarray) -> np.ndarray:
        return back_transform(cell_scale, values)

    columns = {
        "method": [method] * cells.height, "ci": [ci] * cells.height,
        "scale": cell_scale.tolist(), "k": fit["k"].astype(np.int64),
        "estimate": back(fit["pooled"]), "lower": back(fit["lower"]), "upper": back(fit["upper"]),
        "level": np.full(cells.height, level), "pooled": fit["pooled"], "se": fit["se"], "df": fit["df"],
    }
    if prediction_interval:
        columns |= {"pi_lower": back(fit["pi_lower"]), "pi_upper": back(fit["pi_upper"])}
    columns |= {name: fit[name] for name in ("tau2", "tau2_lower", "tau2_upper")}
    columns["tau"] = np.sqrt(fit["tau2"])
    columns |= {name: fit[name] for name in ("i_squared", "i_squared_lower", "i_squared_upper", "h_squared",
                                             "q", "q_df", "q_p_value")}
    return pl.concat([cells, pl.DataFrame(columns).with_columns(pl.col("scale").cast(pl.String))],
                     how="horizontal")


def _notes(fit: dict, cell: np.ndarray, used: np.ndarray, reason: np.ndarray, labels: list, ci: str,
           prediction_interval: bool, n_cells: int) -> list:
    """Per meta-analysis: too few sites, sites left out and why, no convergence."""
    notes = []
    for c in range(n_cells):
        parts = []
        k = int(fit["k"][c])
        if k < 2:
            parts.append(f"fewer than two sites with a variance ({k}): no pooling")
        elif k < MIN_SITES[ci]:
            parts.append(f"{k} sites: the Wald interval under-covered at every number of sites up to 30 (82-93.5%); "
                         "use ci='hksj'" if ci == "wald" else
                         f"{k} sites: the {ci} interval held its level from {MIN_SITES[ci]} sites")
        if 2 <= k < MIN_SITES_PREDICTION and prediction_interval:
            parts.append(f"prediction interval from {k} sites: it held its level only from {MIN_SITES_PREDICTION} "
                         "sites, and only with a large spread between them")
        elif k >= MIN_SITES_PREDICTION and prediction_interval:
            i2 = float(fit["i_squared"][c])
            needed = PREDICTION_I_SQUARED[0] if k < 20 else PREDICTION_I_SQUARED[1]
            if not i2 >= needed:
                parts.append(f"I\u00b2 = {i2:.0%}: with a spread between sites this small against their own "
                             f"precision the prediction interval under-covered (84-93%; it held from I\u00b2 "
                             f"near {needed:.0%} at {k} sites)")
        if k >= 2 and not fit["converged"][c]:
            parts.append("tau2 did not converge")
        gone = np.flatnonzero((cell == c) & ~used)
        if gone.size:
            listed = "; ".join(f"{labels[i]} ({reason[i] or 'no usable variance'})" for i in gone[:5])
            parts.append(f"{gone.size} site(s) left out: {listed}{'; ...' if gone.size > 5 else ''}")
        notes.append("; ".join(parts) or None)
    return notes


def _warn(fit: dict, used: np.ndarray, ci: str, prediction_interval: bool) -> None:
    k = fit["k"]
    few = (k >= 2) & (k < (MIN_SITES_PREDICTION if prediction_interval else MIN_SITES[ci]))
    if few.any():
        warnings.warn(f"a meta-analysis of {int(k[few].min())} sites: below the "
                      "number from which its intervals held their level; see the `note` column", SmallSampleWarning,
                      stacklevel=4)
    if (~used).any():
        warnings.warn(f"{int((~used).sum())} site(s) left out of the meta-analysis (no usable variance); see the "
                      "`note` column and `.sites_frame()`", DegenerateGroupWarning, stacklevel=4)
    if (k < 2).any():
        warnings.warn("a meta-analysis with fewer than two usable sites: its row is NaN", DegenerateGroupWarning,
                      stacklevel=4)
