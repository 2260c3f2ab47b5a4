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
from aucpr_stats.estimators.registry import calibration_records, net_benefit_records, records
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
    def of(metric):
        names = list(ESTIMATORS[metric])
        if metric == "calibration":
            return calibration_records(names, weighted=weighted)
        if metric == "net_benefit":  # at thresholds between, and equal to, the risks of _rows mapped into (0, 1)
            return net_benefit_records(names, [0.1, 2.5 / 6.5, 0.5, 0.7]) + net_benefit_records(
                names, [0.2, 0.6], policy="opt-out", harm=0.01)
        return records(metric, names, ties)

    return [rec for metric in ESTIMATORS for rec in of(metric)]


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
        on_risks = rec.metric in ("calibration", "net_benefit")
        a, b = (weighted_risk, replicated_risk) if on_risks else (weighted, replicated)
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
        a, b = (scaled_risk, base_risk) if rec.metric in ("calibration", "net_benefit") else (scaled, base)
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


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), log_scale=st.floats(-300.0, 300.0))
def test_any_scale_of_the_weights_gives_the_same_results(seed, log_scale):
    """Issue 37: estimates and intervals do not depend on multiplying every weight by 10^-300 ... 10^300
    (weights all equal to 1e160 gave a NaN AUROC interval, to 5e-324 an average precision of 0.261 for 0.413)."""
    import warnings

    import polars as pl

    from aucpr_stats import aucpr, auroc, calibration

    rng = np.random.default_rng(seed)
    n = 120
    y = rng.random(n) < 0.35
    y[:2] = [True, False]
    s = np.round(rng.normal(size=n) + y, 1)
    frame = pl.DataFrame({"y": y, "s": s, "p": 1 / (1 + np.exp(-(s - 1))), "w": rng.uniform(0.2, 3.0, n)})
    scaled = frame.with_columns(w=pl.col("w") * 10.0 ** log_scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for verb, score, options in ((aucpr, "s", {}), (auroc, "s", {}),
                                     (calibration, "p", {"statistic": ["citl", "slope", "brier", "oe_ratio"]})):
            base = verb(frame, "y", score, weights="w", **options).conf_int_polars()
            other = verb(scaled, "y", score, weights="w", **options).conf_int_polars()
            for column in ("estimate", "lower", "upper", "se"):
                np.testing.assert_allclose(other[column].to_numpy(), base[column].to_numpy(), rtol=1e-9,
                                           err_msg=f"{verb.__name__} {column} at 10^{log_scale}")


@pytest.mark.parametrize("value", [5e-324, 1e-170, 1e160, 1.7e308])
def test_constant_weights_at_the_ends_of_the_doubles_equal_unit_weights(value):
    import warnings

    import polars as pl

    from aucpr_stats import aucpr, auroc

    rng = np.random.default_rng(3)
    y = rng.random(200) < 0.3
    frame = pl.DataFrame({"y": y, "s": rng.normal(size=200) + y, "w": np.full(200, value)})
    unit = frame.with_columns(w=pl.lit(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for verb in (aucpr, auroc):
            a, b = (verb(f, "y", "s", weights="w").conf_int_polars() for f in (frame, unit))
            for column in ("estimate", "lower", "upper", "se"):
                np.testing.assert_allclose(a[column].to_numpy(), b[column].to_numpy(), rtol=1e-12)
