r"""Paired comparison of two models' net benefit on the same rows: ``compare(..., metric="net_benefit")``.

At each threshold the two net benefits are sums over the same rows of their
linearisations (:func:`aucpr_stats.intervals.net_benefit.net_benefit_linearisation`:
a constant per class and side of the threshold, a row's own under each
model), so their difference is a sum over rows of the differences

.. math::

    \widehat{\mathrm{Var}}(\widehat{\mathrm{NB}}_A - \widehat{\mathrm{NB}}_B)
        = \frac{n}{n-1}\sum_i (g_{A,i} - g_{B,i})^2 ,

exact for net benefit (linear in the counts), with the correlation of the two
models included; at a stated prevalence the terms are centred within each
class and each class has its own factor. With ``band=(low, high)`` the
differences at every threshold of the range get a simultaneous (sup-t)
band, from their covariance across thresholds (the same row terms,
:func:`aucpr_stats.intervals.net_benefit_band.sup_t_quantile`), so that
"A beats B from 5% to 20%" is one statement at the band's level: the band's
lower bound above 0 at every threshold of the range. Independent rows (no
weights or clusters here yet).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl

from .. import _validate
from ..estimators.engine import evaluate
from ..estimators.net_benefit import NET_BENEFIT_STATISTICS, POLICIES
from ..estimators.registry import net_benefit_records
from ..exceptions import InputError
from ..front_door import open_data
from ..intervals.net_benefit import MIN_EQUIVALENT_COUNT, moments_count, net_benefit_linearisation, unit_factor
from ..intervals.net_benefit_band import sup_t_quantile
from ..resample import Streams
from .paired import paired_risks_iv, score_pairs
from .result import ComparisonResult
from .statistics import normal_test, paired_block

__all__ = ["compare_net_benefit"]

_FEW_DISCORDANT = ("few informative rows: the difference rests on few rows treated differently by the two models "
                   "(as skewed as a count below 10), so its interval and test may be off "
                   "(benchmarks/net_benefit_coverage_results.md)")

_SHAKY_BAND = ("the band covers thresholds where the difference rests on few rows or none (see those rows' notes): "
               "there it is held near the estimate and may miss the true difference")


def _join(first: str | None, second: str | None) -> str | None:
    return "; ".join(n for n in (first, second) if n) or None


#: Rows times thresholds held at once when the row terms are formed.
_CHUNK_CELLS = 4_000_000


def _row_terms(lin, table, rows: np.ndarray, positive: np.ndarray, group: np.ndarray,
               thresholds: np.ndarray) -> np.ndarray:
    """Each row's linearisation under one model at every record's threshold: (rows, records)."""
    risk = table.score[rows][:, None]
    above = risk >= thresholds[None, :]
    g = group[:, None]
    pos = np.where(above, lin.pos_above[g, np.arange(thresholds.size)], lin.pos_below[g, np.arange(thresholds.size)])
    neg = np.where(above, lin.neg_above[g, np.arange(thresholds.size)], lin.neg_below[g, np.arange(thresholds.size)])
    return np.where(positive[:, None], pos, neg)


def compare_net_benefit(data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
                        thresholds: Sequence[float], statistic: Any = "net_benefit", policy: str = "opt-in",
                        harm: float = 0.0, prevalence: float | None = None, band: Any = None,
                        n_draws: int = 100_000, rng: Any = None, reference: Any = None, level: float = 0.95,
                        positive: Any = None, missing: str = "error", negative: Any = None,
                        unused_levels: str = "keep") -> ComparisonResult:
    """The paired comparison of every pair of scores' net benefit at every threshold, per group (module docstring)."""
    names = _validate.names_or_all_iv(statistic, "estimator", list(NET_BENEFIT_STATISTICS))
    policy = _validate.choice_iv(policy, "policy", POLICIES)
    level = _validate.level_iv(level)
    records = net_benefit_records(names, thresholds, policy, prevalence, harm)
    _, ingested = open_data("compare", data_or_formula, data, outcome, score, by, positive=positive,
                            missing=missing, paired=True, negative=negative, unused_levels=unused_levels,
                            prevalence=prevalence, metric="net_benefit", records=records, stacklevel=4)
    spec, paired = ingested.spec, ingested.paired
    paired_risks_iv(ingested, reference, "net benefit")
    band_range = None if band is None else _band_iv(band)
    tables = paired.tables
    n_groups = tables[0].n_segments
    estimates = [evaluate(t, records) for t in tables]
    lins = [net_benefit_linearisation(t, records, policy, harm, prevalence) for t in tables]
    record_thresholds = np.array([r.threshold for r in records])
    order = np.argsort(paired.group, kind="stable")  # rows by group: sums per group are contiguous
    group = paired.group[order]
    is_pos = np.asarray(paired.positive, dtype=bool)[order]
    rows_pos = np.bincount(group, weights=is_pos, minlength=n_groups)
    rows_all = np.bincount(group, minlength=n_groups).astype(np.float64)
    in_band = (np.flatnonzero((record_thresholds >= band_range[0]) & (record_thresholds <= band_range[1])
                              & (np.array([r.statistic for r in records]) == names[0])) if band_range else None)
    blocks = []
    for a, b in score_pairs(spec.scores, reference):
        sums = np.zeros((2, n_groups, len(records)))  # squared differences of events, of non-events
        higher = np.zeros((2, n_groups, len(records)))  # third and fourth powers (the skewness of the difference)
        cross = None if in_band is None else np.zeros((2, n_groups, in_band.size, in_band.size))
        step = max(1, _CHUNK_CELLS // len(records))
        for lo in range(0, order.size, step):
            part = order[lo:lo + step]
            g, pos = group[lo:lo + step], is_pos[lo:lo + step]
            d = (_row_terms(lins[a], tables[a], paired.rows[a][part], pos, g, record_thresholds)
                 - _row_terms(lins[b], tables[b], paired.rows[b][part], pos, g, record_thresholds))
            np.add.at(higher[0], g, d ** 3)
            np.add.at(higher[1], g, d ** 4)
            for k, cls in ((0, pos), (1, ~pos)):
                np.add.at(sums[k], g[cls], d[cls] ** 2)
                if cross is not None:
                    sub = d[cls][:, in_band]
                    for h in np.unique(g[cls]):
                        mine = sub[g[cls] == h]
                        cross[k, h] += mine.T @ mine
        if prevalence is None:
            factor = unit_factor(rows_all)[:, None]
            variance = factor * (sums[0] + sums[1])
        else:
            variance = (unit_factor(rows_pos)[:, None] * sums[0]
                        + unit_factor(rows_all - rows_pos)[:, None] * sums[1])
        # one more row in each of the eight cells (class x side under A x side under B): an empty cell, no
        # event among the rows the models treat differently, is where the skewness hides
        extra = [getattr(lins[a], f"{c}_{sa}") - getattr(lins[b], f"{c}_{sb}")
                 for c in ("pos", "neg") for sa in ("above", "below") for sb in ("above", "below")]
        powers = [sum(v ** k for v in extra) for k in (2, 3, 4)]
        skewed = moments_count(rows_all[:, None] + 8.0, sums[0] + sums[1] + powers[0], higher[0] + powers[1],
                               higher[1] + powers[2]) < MIN_EQUIVALENT_COUNT
        # a band over thresholds where the difference is skewed or has no variance cannot hold its level
        shaky = (np.zeros(n_groups, dtype=bool) if in_band is None
                 else (skewed | (variance == 0))[:, in_band].any(axis=1))
        critical = _critical(cross, rows_pos, rows_all, prevalence, level, n_draws, rng, ingested, spec, a, b)
        for j, record in enumerate(records):
            diff = estimates[a][:, j] - estimates[b][:, j]
            se, z, p, lower, upper = normal_test(diff, variance[:, j], level)
            columns = {"threshold": np.full(n_groups, record.threshold), "difference": diff, "se": se, "z": z,
                       "p_value": p, "method": ["wald"] * n_groups, "level": [level] * n_groups,
                       "lower": lower, "upper": upper}
            if in_band is not None:
                inside = j in set(in_band.tolist())
                columns["lower_band"] = diff - critical * se if inside else np.full(n_groups, np.nan)
                columns["upper_band"] = diff + critical * se if inside else np.full(n_groups, np.nan)
                columns["critical"] = critical if inside else np.full(n_groups, np.nan)
            notes = [note if note is not None else (
                "no difference: a group without events or non-events" if not np.isfinite(diff[h])
                else "no row is treated differently by the two models: the difference has no variance"
                if se[h] == 0 else _FEW_DISCORDANT if skewed[h, j] else None)
                for h, note in enumerate(ingested.notes)]
            if in_band is not None and j in set(in_band.tolist()):
                notes = [_join(note, _SHAKY_BAND if shaky[h] else None) for h, note in enumerate(notes)]
            blocks.append(paired_block(ingested.keys, spec.by, spec.scores[a], spec.scores[b], record.statistic,
                                       estimates[a][:, j], estimates[b][:, j], columns, tables[0].n_pos,
                                       tables[0].n_neg, notes))
    table = pl.concat(blocks).sort("__group", maintain_order=True).drop("__group")
    return ComparisonResult(table=table, frame_kind=ingested.kind, paired=True, by=spec.by, between=None,
                            outcome=spec.outcome, scores=spec.scores, adjust=None, design={},
                            jackknife_source=None, seed=None, records=tuple(records), metric="net_benefit",
                            method="wald", level=level, reference=reference, estimators=tuple(names), n_boot=None)


def _band_iv(band: Any) -> tuple[float, float]:
    """``band``: (low, high), the threshold range of the simultaneous band."""
    try:
        low, high = (float(v) for v in band)
    except (TypeError, ValueError):
        raise InputError(f"`band` must be a (low, high) pair of thresholds; got {_validate.shown(band)}") from None
    if not 0.0 < low < high < 1.0:
        raise InputError(f"`band` must satisfy 0 < low < high < 1; got ({low!r}, {high!r})")
    return low, high


def _critical(cross, rows_pos, rows_all, prevalence, level, n_draws, rng, ingested, spec, a, b) -> np.ndarray:
    """The sup-t quantile of every group's differences over the band's thresholds (NaN without a band)."""
    n_groups = rows_all.size
    critical = np.full(n_groups, np.nan)
    if cross is None:
        return critical
    if prevalence is None:
        covariance = unit_factor(rows_all)[:, None, None] * (cross[0] + cross[1])
    else:
        covariance = (unit_factor(rows_pos)[:, None, None] * cross[0]
                      + unit_factor(rows_all - rows_pos)[:, None, None] * cross[1])
    streams = Streams.for_keys(rng, ingested.keys, spec.by, f"net benefit band {spec.scores[a]} {spec.scores[b]}")
    for h in range(n_groups):
        if np.all(np.isfinite(covariance[h])):
            critical[h] = sup_t_quantile(covariance[h], level, n_draws, streams[h])
    return critical
