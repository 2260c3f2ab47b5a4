"""Weighted (float64) counts in the tie table: every estimator reads them as counts.

Oracles: replicating rows (integer weights), scikit-learn's ``sample_weight``
(average precision and A'), and invariance to rescaling all weights.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from aucpr_stats.estimators import ESTIMATORS
from aucpr_stats.estimators.registry import calibration_records, records
from aucpr_stats.tables import tie_table_from_rows
from aucpr_stats.ties import TieTable

# read the weights as frequencies (n - 1 denominators, expectations over row orders): not scale-invariant
# Spiegelhalter's z grows with the number of rows (a test statistic, not an estimate)
FREQUENCY_ONLY = {"binormal", "expected_average_precision", "spiegelhalter_z", "spiegelhalter_p"}


def _rows(rng, n):
    score = rng.integers(0, 6, n).astype(float)  # heavy ties, also across classes
    y = rng.random(n) < 0.4
    y[0], y[1] = True, False
    return score, y


def _weighted_table(score, y, w):
    """The tie table with weighted counts, built by a sort and bincount (independent of the ingest)."""
    values, inverse = np.unique(-score, return_inverse=True)
    pos = np.bincount(inverse, weights=w * y, minlength=values.size)
    neg = np.bincount(inverse, weights=w * ~y, minlength=values.size)
    return TieTable(-values, pos, neg, [0, values.size])


def _all_records(ties="interpolate", weighted=False):
    """Every record; calibration's as `calibration(weights=...)` builds them when ``weighted`` (weighted quantiles)."""
    return [rec for metric in ESTIMATORS
            for rec in (calibration_records(list(ESTIMATORS[metric]), weighted=weighted) if metric == "calibration"
                        else records(metric, list(ESTIMATORS[metric]), ties))]


@pytest.mark.parametrize("seed", range(6))
def test_integer_weights_equal_replicated_rows_for_every_estimator(seed):
    rng = np.random.default_rng(seed)
    score, y = _rows(rng, 25)
    w = rng.integers(1, 4, score.size)
    weighted = _weighted_table(score, y, w.astype(float))
    assert weighted.pos.dtype == np.float64
    replicated = tie_table_from_rows(np.zeros(w.sum(), dtype=np.int64), np.repeat(score, w), np.repeat(y, w), 1)
    # calibration reads the scores as probabilities: the same rows with scores mapped into (0, 1)
    risk = (score + 0.5) / 6.5
    weighted_risk = _weighted_table(risk, y, w.astype(float))
    replicated_risk = tie_table_from_rows(np.zeros(w.sum(), dtype=np.int64), np.repeat(risk, w), np.repeat(y, w), 1)
    for rec in _all_records():
        a, b = (weighted_risk, replicated_risk) if rec.metric == "calibration" else (weighted, replicated)
        np.testing.assert_allclose(rec(a), rec(b), rtol=1e-9, atol=1e-12, err_msg=rec.name)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), scale=st.floats(0.01, 100.0))
def test_rescaled_weights_change_no_scale_free_estimator(seed, scale):
    rng = np.random.default_rng(seed)
    score, y = _rows(rng, 20)
    w = rng.uniform(0.2, 3.0, score.size)
    base, scaled = _weighted_table(score, y, w), _weighted_table(score, y, w * scale)
    risk = (score + 0.5) / 6.5
    base_risk, scaled_risk = _weighted_table(risk, y, w), _weighted_table(risk, y, w * scale)
    for rec in _all_records(weighted=True):
        if rec.name in FREQUENCY_ONLY:
            continue
        a, b = (scaled_risk, base_risk) if rec.metric == "calibration" else (scaled, base)
        np.testing.assert_allclose(rec(a), rec(b), rtol=1e-8, atol=1e-12, err_msg=rec.name)


@pytest.mark.parametrize("seed", range(8))
def test_weighted_average_precision_and_a_prime_equal_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    score, y = _rows(rng, 40)
    w = rng.uniform(0.1, 5.0, score.size)
    table = _weighted_table(score, y, w)
    # scikit-learn crosses a mixed tie block at its bottom precision: our "published" convention
    (ap,) = records("aucpr", ["average_precision"], "published")
    assert ap(table)[0] == pytest.approx(average_precision_score(y, score, sample_weight=w), abs=1e-12)
    (a_prime,) = records("auroc", ["a_prime"], "interpolate")
    assert a_prime(table)[0] == pytest.approx(roc_auc_score(y, score, sample_weight=w), abs=1e-12)
    # without ties across classes both conventions agree with scikit-learn
    distinct = score + rng.permutation(score.size) * 1e-3
    table = _weighted_table(distinct, y, w)
    (ap,) = records("aucpr", ["average_precision"], "interpolate")
    assert ap(table)[0] == pytest.approx(average_precision_score(y, distinct, sample_weight=w), abs=1e-12)


def test_fractional_counts_stay_fractional_through_the_reductions():
    table = TieTable([3.0, 2.0, 1.0, 0.0], [0.5, 0.0, 0.25, 0.0], [0.0, 0.3, 0.0, 0.7], [0, 4])
    for reduced in (table.collapsed(), table.merged_negative_runs(), table.compact()):
        assert reduced.pos.dtype == np.float64
        assert reduced.n_pos[0] == pytest.approx(0.75)
        assert reduced.n_neg[0] == pytest.approx(1.0)
