r"""Paired comparison of two models' calibration on the same rows: ``compare(..., metric="calibration")``.

Two scores predicted for the same patients give two estimates of each
calibration statistic, correlated through the rows they share. Each
estimate is, to first order, a sum over the rows of its linearisation
(:func:`aucpr_stats.intervals.calibration.statistic_gradient`: the
estimating-equation terms of CITL, the intercept and the slope, the delta
method for O/E and the Brier scores), so their difference is the sum over
rows of the difference of the two terms:

.. math::

    \widehat{\mathrm{Var}}(\hat\theta_A - \hat\theta_B)
        = \frac{n}{n-1} \sum_i (u_{A,i} - u_{B,i})^2 ,

a Wald test and interval of the difference with the covariance of the two
models included (the same rows: their errors cancel in part). Rows with a
prediction of exactly 0 or 1 under a model contribute nothing to that
model's logit-scale terms, as in its fit. Independent rows; no weights or
clusters here yet.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl

from .. import _validate
from ..estimators.engine import evaluate
from ..estimators.registry import calibration_records
from ..front_door import open_data
from ..intervals.calibration import WALD_STATISTICS, statistic_gradient
from .paired import paired_risks_iv, score_pairs
from .result import ComparisonResult
from .statistics import normal_test, paired_block

__all__ = ["compare_calibration", "CALIBRATION_COMPARED"]

#: The statistics compared by default: mean and weak calibration, and the Brier score.
CALIBRATION_COMPARED = ("oe_ratio", "citl", "slope", "brier")


def compare_calibration(data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
                        statistic: str | Sequence[str] | None = None, reference: Any = None, level: float = 0.95,
                        positive: Any = None, missing: str = "error", negative: Any = None,
                        unused_levels: str = "keep") -> ComparisonResult:
    """The paired Wald comparison of every pair of scores' calibration statistics, per group (module docstring)."""
    names = _validate.names_or_all_iv(CALIBRATION_COMPARED if statistic is None else statistic, "estimator",
                                      list(WALD_STATISTICS))
    level = _validate.level_iv(level)
    chosen = calibration_records(names)
    _, ingested = open_data("compare", data_or_formula, data, outcome, score, by, positive=positive,
                            missing=missing, paired=True, negative=negative, unused_levels=unused_levels,
                            metric="calibration", records=chosen, stacklevel=4)
    spec, paired = ingested.spec, ingested.paired
    paired_risks_iv(ingested, reference, "calibration")
    tables = paired.tables
    n_groups = tables[0].n_segments
    n_pos, n_neg = tables[0].n_pos, tables[0].n_neg
    rows_per_group = np.bincount(paired.group, minlength=n_groups).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = np.where(rows_per_group > 1, rows_per_group / (rows_per_group - 1.0), np.nan)
    estimates = [evaluate(t, chosen) for t in tables]  # (groups, statistics) per score
    # every row's term under every score and statistic
    terms = [[_row_terms(t, name, paired.rows[k], paired.positive) for name in names]
             for k, t in enumerate(tables)]
    usable = tables[0].has_both_classes()
    extreme = [t.segment_sum(np.where((t.score == 0.0) | (t.score == 1.0), t.pos + t.neg, 0)) for t in tables]
    blocks = []
    for a, b in score_pairs(spec.scores, reference):
        for j, name in enumerate(names):
            diff = estimates[a][:, j] - estimates[b][:, j]
            u_a, u_b = terms[a][j], terms[b][j]

            def per_group(values: np.ndarray) -> np.ndarray:
                return factor * np.bincount(paired.group, weights=values, minlength=n_groups)

            variance = per_group((u_a - u_b) ** 2)
            with np.errstate(invalid="ignore", divide="ignore"):
                correlation = per_group(u_a * u_b) / np.sqrt(per_group(u_a ** 2) * per_group(u_b ** 2))
            se, z, p, lower, upper = normal_test(diff, variance, level)
            columns = {"difference": diff, "se": se, "z": z, "p_value": p, "method": ["wald"] * n_groups,
                       "level": [level] * n_groups, "lower": lower, "upper": upper, "correlation": correlation}
            notes = [note if note is not None else (None if usable[g] and np.isfinite(diff[g]) else
                                                    "no difference: a statistic is undefined for a score")
                     for g, note in enumerate(ingested.notes)]
            if name in _LOGIT_SCALE:
                notes = [_joined(note, extreme[a][g], extreme[b][g], spec.scores[a], spec.scores[b])
                         for g, note in enumerate(notes)]
            blocks.append(paired_block(ingested.keys, spec.by, spec.scores[a], spec.scores[b], name,
                                       estimates[a][:, j], estimates[b][:, j], columns, n_pos, n_neg, notes))
    table = pl.concat(blocks).sort("__group", maintain_order=True).drop("__group")
    return ComparisonResult(table=table, frame_kind=ingested.kind, paired=True, by=spec.by, between=None,
                            outcome=spec.outcome, scores=spec.scores, adjust=None, design={},
                            jackknife_source=None, seed=None, records=tuple(chosen), metric="calibration",
                            method="wald", level=level, reference=reference, estimators=tuple(names), n_boot=None)


_LOGIT_SCALE = ("citl", "intercept", "slope")


def _joined(note, count_a, count_b, score_a: str, score_b: str):
    """The group's note with the rows each score's logit-scale fit left out (predictions of exactly 0 or 1)."""
    parts = [f"{count:g} rows of {name} at a prediction of 0 or 1 left out of its fit"
             for count, name in ((count_a, score_a), (count_b, score_b)) if count > 0]
    return "; ".join(([note] if note else []) + parts) or None


def _row_terms(ties, name: str, rows: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """Every complete row's linearisation term of statistic ``name`` under one score (0 in unusable groups)."""
    usable = ties.has_both_classes()
    gradient = statistic_gradient(ties, name)
    with np.errstate(invalid="ignore"):
        term = np.where(positive, gradient.pos[rows], gradient.neg[rows])
    return np.where(np.isfinite(term), term, 0.0) * np.repeat(usable, ties.lengths)[rows]

