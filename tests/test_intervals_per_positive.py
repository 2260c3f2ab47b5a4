"""threshold_trapezoid and the per-positive interval (the addendum) against brute force."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from aucpr_stats import aucpr
from aucpr_stats.ties import TieTable
from aucpr_stats.tables import tie_table_from_sorted
from aucpr_stats.estimators import PR_ESTIMATORS, average_precision
from aucpr_stats.estimators.threshold_trapezoid import threshold_trapezoid
from aucpr_stats.exceptions import InputError
from aucpr_stats.estimators import Estimator
from aucpr_stats.intervals.per_positive import per_positive_interval, per_positive_se
from tests.conftest import random_scores


# ----------------------------------------------------------- brute force
def _thresholds(y: np.ndarray, s: np.ndarray):
    """Recall and precision at every threshold 'score >= t', t over the distinct scores, descending."""
    ts = np.unique(s)[::-1]
    n = y.sum()
    recall = np.array([(y & (s >= t)).sum() / n for t in ts])
    precision = np.array([(y & (s >= t)).sum() / (s >= t).sum() for t in ts])
    return ts, recall, precision


def brute_trapezoid(y, s) -> float:
    """Trapezoid rule through (0, p_1), every threshold's point, then down to (1, 0)."""
    _, recall, precision = _thresholds(y, s)
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[precision[0]], precision, [0.0]])
    return float(np.sum(np.diff(r) * (p[1:] + p[:-1]) / 2))


def brute_contributions(y, s) -> np.ndarray:
    """f_j of every positive: the sum of w_t = (prec_(t-1) - prec_(t+1)) / 2 over the thresholds admitting j.

    Thresholds t = 1..T are the distinct scores, then T + 1 is the vertical drop
    (recall 1, precision 0); borders prec_0 = prec_1 and precision 0 beyond.
    """
    ts, _, precision = _thresholds(y, s)
    prec = np.concatenate([[precision[0]], precision, [0.0, 0.0]])  # index 0 .. T + 2
    T = ts.size
    w = np.array([(prec[t - 1] - prec[t + 1]) / 2 for t in range(1, T + 2)])  # thresholds 1 .. T + 1
    f = []
    for score in s[y]:
        admits = np.concatenate([score >= ts, [True]])  # the drop point admits everyone
        f.append(w[admits].sum())
    return np.array(f)


def brute_ap_contributions(y, s) -> np.ndarray:
    """Precision at the tie block of each positive."""
    return np.array([(y & (s >= v)).sum() / (s >= v).sum() for v in s[y]])


def _table(y, s) -> TieTable:
    order = np.argsort(-s, kind="stable")
    return tie_table_from_sorted(np.zeros(y.size, dtype=np.int64), s[order], y[order], 1)


def _data(seed: int, n: int, ties: bool):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n, prevalence=0.3, ties=ties)
    return y, s


# ------------------------------------------------------------------ tests
@pytest.mark.parametrize("seed,ties", [(1, False), (2, True), (3, True), (4, False)])
def test_threshold_trapezoid_matches_brute_force_trapezoid_and_mean_of_f(seed, ties):
    """The brute-force oracles follow the addendum literally: ``ties="published"``."""
    y, s = _data(seed, 80, ties)
    t = _table(y, s)
    value = threshold_trapezoid(t, "published")[0]
    assert value == pytest.approx(brute_trapezoid(y, s), abs=1e-12)
    assert value == pytest.approx(brute_contributions(y, s).mean(), abs=1e-12)


def test_threshold_trapezoid_small_example_by_hand():
    # scores 3 (pos), 2 (neg), 1 (pos): points (0, 1), (1/2, 1), (1/2, 1/2), (1, 2/3), drop to (1, 0)
    t = TieTable([3.0, 2.0, 1.0], [1, 0, 1], [0, 1, 0], [0, 3])
    assert threshold_trapezoid(t)[0] == pytest.approx(0.5 * 1 + 0.5 * (0.5 + 2 / 3) / 2)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=30).filter(
        lambda rows: 0 < sum(r[0] for r in rows) < len(rows)
    )
)
def test_threshold_trapezoid_brute_force_property(rows):
    y = np.array([r[0] for r in rows])
    s = np.array([float(r[1]) for r in rows])
    assert threshold_trapezoid(_table(y, s), "published")[0] == pytest.approx(brute_trapezoid(y, s), abs=1e-12)


def test_zero_count_rows_and_several_segments_change_nothing():
    y1, s1 = _data(5, 50, True)
    y2, s2 = _data(6, 70, False)
    a, b = _table(y1, s1), _table(y2, s2)
    both = TieTable(np.concatenate([a.score, b.score]), np.concatenate([a.pos, b.pos]),
                    np.concatenate([a.neg, b.neg]), np.concatenate([a.offsets, b.offsets[1:] + a.n_rows]))
    expected = [brute_trapezoid(y1, s1), brute_trapezoid(y2, s2)]
    np.testing.assert_allclose(threshold_trapezoid(both, "published"), expected, atol=1e-12)
    # insert empty rows (as a bootstrap draw makes) at the top, middle and bottom of each segment
    seg = both.segment_ids()
    rows = np.arange(both.n_rows)
    extra = np.concatenate([both.offsets[:-1], both.offsets[:-1] + 2, both.offsets[1:] - 1])
    index = np.sort(np.concatenate([rows, extra]))
    is_copy = np.zeros(index.size, dtype=bool)
    is_copy[np.searchsorted(index, extra, side="left")] = True  # first copy of each duplicated row is empty
    pos = np.where(is_copy, 0, both.pos[index])
    neg = np.where(is_copy, 0, both.neg[index])
    offsets = np.concatenate([[0], np.cumsum(np.bincount(seg[index], minlength=2))])
    padded = TieTable(both.score[index], pos, neg, offsets)
    np.testing.assert_allclose(threshold_trapezoid(padded, "published"), expected, atol=1e-12)
    for ties in ("interpolate", "published"):
        np.testing.assert_allclose(average_precision(padded, ties), average_precision(both, ties), atol=1e-12)
        np.testing.assert_allclose(threshold_trapezoid(padded, ties), threshold_trapezoid(both, ties), atol=1e-12)
        for name in ("average_precision", "threshold_trapezoid"):
            record = PR_ESTIMATORS[name].under(ties)
            np.testing.assert_allclose(per_positive_se(padded, record)[1], per_positive_se(both, record)[1],
                                       atol=1e-12)


@pytest.mark.parametrize("seed,ties", [(7, False), (8, True)])
def test_per_positive_se_is_the_se_of_the_brute_force_contributions(seed, ties):
    y, s = _data(seed, 120, ties)
    t = _table(y, s)
    for name, f in (("average_precision", brute_ap_contributions(y, s)),
                    ("threshold_trapezoid", brute_contributions(y, s))):
        record = PR_ESTIMATORS[name].under("published")  # the oracles' convention
        mean, se = per_positive_se(t, record)
        assert mean[0] == pytest.approx(f.mean(), abs=1e-12)
        assert se[0] == pytest.approx(f.std(ddof=1) / np.sqrt(f.size), rel=1e-10)
        lower, upper, se2 = per_positive_interval(t, record, 0.9)
        assert lower[0] == pytest.approx(f.mean() - 1.6448536269514722 * se[0], abs=1e-12)
        assert upper[0] == pytest.approx(f.mean() + 1.6448536269514722 * se[0], abs=1e-12)
    assert per_positive_se(t, PR_ESTIMATORS["average_precision"].under("published"))[0][0] == pytest.approx(
        average_precision_score(y, s), abs=1e-12)


def test_one_positive_has_no_se():
    t = TieTable([2.0, 1.0], [1, 0], [0, 3], [0, 2])
    mean, se = per_positive_se(t, "average_precision")
    assert mean[0] == 1.0 and np.isnan(se[0])


def test_other_estimators_get_a_clear_error(monkeypatch):
    t = TieTable([2.0, 1.0], [1, 1], [1, 3], [0, 2])
    with pytest.raises(InputError, match="average_precision.*threshold_trapezoid"):
        per_positive_se(t, "lower_trapezoid")
    # an estimator is its registry record: one without per-positive contributions
    monkeypatch.setitem(PR_ESTIMATORS, "dummy_estimator", Estimator("dummy_estimator", "aucpr", average_precision))
    df = pl.DataFrame({"y": [1, 0, 1, 0], "s": [0.9, 0.5, 0.4, 0.1]})
    result = aucpr(df, "y", "s", estimator=["average_precision", "dummy_estimator"])
    with pytest.raises(InputError, match=r"'average_precision', 'threshold_trapezoid'.*dummy_estimator"):
        result.conf_int(method="per_positive")


def test_registered_and_reachable_from_aucpr():
    assert PR_ESTIMATORS["threshold_trapezoid"].function is threshold_trapezoid
    y, s = _data(9, 60, True)
    result = aucpr(pl.DataFrame({"y": y, "s": s}), "y", "s", estimator="threshold_trapezoid", ties="published")
    assert result.estimate == pytest.approx(brute_trapezoid(y, s), abs=1e-12)
    frame = result.conf_int(method="per_positive", level=0.95)
    f = brute_contributions(y, s)
    assert frame["se"][0] == pytest.approx(f.std(ddof=1) / np.sqrt(f.size), rel=1e-10)
