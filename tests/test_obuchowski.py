"""Obuchowski's cluster-robust variance of A' (intervals/obuchowski.py) against a brute force from the formula.

The oracle works on explicit rows with double loops over (positive,
negative) pairs: A' as the mean of the pair kernel, each cluster's sums of
placements, then S10, S01, S11 and the variance exactly as written in
Obuchowski (1997), and the covariance of two scores on the same clusters.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats.estimators.roc import delong_components
from aucpr_stats.exceptions import InputError
from aucpr_stats.intervals import obuchowski_components, obuchowski_covariance
from tests.design_cases import cluster_tables as tables


def psi(x, y):
    return 1.0 if x > y else 0.5 if x == y else 0.0


def oracle(cluster, y, s, t=None):
    """Obuchowski (1997) from the rows of one group: (A, S10, S01, S11, Var), or the covariance with score t."""
    def parts(score):
        pos = [j for j in range(len(y)) if y[j] == 1]
        neg = [k for k in range(len(y)) if y[k] == 0]
        big_m, big_n = len(pos), len(neg)
        a = sum(psi(score[j], score[k]) for j in pos for k in neg) / (big_m * big_n)
        ids = sorted(set(cluster))
        v10 = {i: sum(psi(score[j], score[k]) for j in pos if cluster[j] == i for k in neg) / big_n for i in ids}
        v01 = {i: sum(psi(score[j], score[k]) for k in neg if cluster[k] == i for j in pos) / big_m for i in ids}
        m = {i: sum(1 for j in pos if cluster[j] == i) for i in ids}
        n = {i: sum(1 for k in neg if cluster[k] == i) for i in ids}
        d10 = {i: v10[i] - m[i] * a for i in ids}
        d01 = {i: v01[i] - n[i] * a for i in ids}
        return a, d10, d01, m, n, big_m, big_n, ids

    a, d10, d01, m, n, big_m, big_n, ids = parts(s)
    e10, e01 = (d10, d01) if t is None else parts(t)[1:3]
    i10 = sum(1 for i in ids if m[i] > 0)
    i01 = sum(1 for i in ids if n[i] > 0)
    i_all = len(ids)
    s10 = i10 / ((i10 - 1) * big_m) * sum(d10[i] * e10[i] for i in ids)
    s01 = i01 / ((i01 - 1) * big_n) * sum(d01[i] * e01[i] for i in ids)
    s11 = i_all / (i_all - 1) * sum(d10[i] * e01[i] for i in ids)
    s11_ba = i_all / (i_all - 1) * sum(e10[i] * d01[i] for i in ids)
    value = s10 / big_m + s01 / big_n + (s11 + s11_ba) / (big_m * big_n)
    return a, s10, s01, s11, value


def clustered(rng, n_clusters, size, ties=False):
    cluster = np.repeat(np.arange(n_clusters), rng.integers(1, size + 1, n_clusters))
    effect = rng.normal(size=n_clusters)[cluster]
    y = (rng.random(cluster.size) < 1 / (1 + np.exp(0.5 - effect))).astype(int)
    s = effect + y + rng.normal(size=cluster.size)
    return cluster, y, np.round(s, 0) if ties else s


@pytest.mark.parametrize("ties", [False, True])
def test_matches_the_brute_force_formula(ties):
    rng = np.random.default_rng(4 + ties)
    cluster, y, s = clustered(rng, 14, 4, ties=ties)
    c = obuchowski_components(*tables(np.zeros_like(cluster), cluster, y, s))
    a, s10, s01, s11, var = oracle(cluster, y, s)
    assert np.allclose([c.auc[0], c.s10[0], c.s01[0], c.s11[0], c.variance[0]], [a, s10, s01, s11, var],
                       rtol=1e-12, atol=1e-15)
    assert c.note[0] == ""
    assert c.clusters[0] == 14 and c.m.sum() == y.sum() and c.n.sum() == (1 - y).sum()


def test_clusters_of_one_row_give_delong():
    rng = np.random.default_rng(9)
    y = (rng.random(60) < 0.3).astype(int)
    s = np.round(rng.normal(size=60) + y, 1)
    group_ties, units, unit_group = tables(np.zeros(60, dtype=int), np.arange(60), y, s)
    c = obuchowski_components(group_ties, units, unit_group)
    auc, d10, d01 = delong_components(group_ties)
    assert c.s11[0] == pytest.approx(0.0, abs=1e-15)
    assert c.auc[0] == auc[0]
    assert c.variance[0] == pytest.approx(d10[0] / y.sum() + d01[0] / (60 - y.sum()), rel=1e-12)
    assert c.s10[0] == pytest.approx(d10[0], rel=1e-12) and c.s01[0] == pytest.approx(d01[0], rel=1e-12)


def test_groups_are_computed_each_on_its_own():
    rng = np.random.default_rng(2)
    parts = [clustered(rng, k, 3) for k in (8, 12, 5)]
    group = np.concatenate([np.full(p[0].size, g) for g, p in enumerate(parts)])
    cluster = np.concatenate([p[0] + 100 * g for g, p in enumerate(parts)])
    y = np.concatenate([p[1] for p in parts])
    s = np.concatenate([p[2] for p in parts])
    together = obuchowski_components(*tables(group, cluster, y, s))
    for g, (cl, yy, ss) in enumerate(parts):
        alone = obuchowski_components(*tables(np.zeros_like(cl), cl, yy, ss))
        assert together.variance[g] == alone.variance[0]  # the same bits
        assert together.auc[g] == alone.auc[0]
        assert np.isclose(together.variance[g], oracle(cl, yy, ss)[4], rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.booleans(), st.integers(0, 4)), min_size=4, max_size=24))
def test_random_small_clustered_data(rows):
    cluster = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    s = np.array([float(r[2]) for r in rows])
    c = obuchowski_components(*tables(np.zeros_like(cluster), cluster, y, s))
    i10 = len(set(cluster[y == 1]))
    i01 = len(set(cluster[y == 0]))
    if i10 < 2 or i01 < 2:
        assert np.isnan(c.variance[0]) and c.note[0] != ""
        return
    a, s10, s01, s11, var = oracle(cluster, y, s)
    assert np.allclose([c.auc[0], c.s10[0], c.s01[0], c.s11[0], c.variance[0]], [a, s10, s01, s11, var],
                       rtol=1e-10, atol=1e-14)
    assert c.variance[0] >= -1e-15  # a sum over clusters of squares (the linearisation), up to rounding


def test_one_cluster_holding_positives_is_nan_with_a_reason():
    cluster = np.array([0, 0, 0, 1, 1, 2, 2])
    y = np.array([1, 1, 0, 0, 0, 0, 0])
    s = np.array([5.0, 4, 3, 2, 4.5, 1, 0])
    c = obuchowski_components(*tables(np.zeros(7, dtype=int), cluster, y, s))
    assert np.isnan(c.variance[0]) and "positives" in c.note[0]
    assert c.auc[0] == pytest.approx(0.9)  # 5 beats all five negatives, 4 all but 4.5: 9 of 10 pairs
    # no negatives at all: another reason
    c = obuchowski_components(*tables(np.zeros(3, dtype=int), [0, 1, 2], [1, 1, 1], [1.0, 2, 3]))
    assert np.isnan(c.variance[0]) and c.note[0] == "no negatives"


def test_perfect_separation_has_zero_variance():
    cluster = np.array([0, 0, 1, 1, 2, 3, 3])
    y = np.array([1, 0, 1, 1, 0, 0, 1])
    s = np.array([9.0, 1, 8, 7, 2, 3, 6])
    c = obuchowski_components(*tables(np.zeros(7, dtype=int), cluster, y, s))
    assert c.auc[0] == 1.0 and c.variance[0] == pytest.approx(0.0, abs=1e-15) and c.note[0] == ""


def test_integer_weights_equal_replicated_rows_within_their_cluster():
    rng = np.random.default_rng(6)
    cluster, y, s = clustered(rng, 10, 3)
    w = rng.integers(1, 4, y.size)
    weighted = obuchowski_components(*tables(np.zeros_like(cluster), cluster, y, s, w.astype(float)))
    rows = np.repeat(np.arange(y.size), w)
    replicated = obuchowski_components(*tables(np.zeros(rows.size, dtype=int), cluster[rows], y[rows], s[rows]))
    assert weighted.variance[0] == pytest.approx(replicated.variance[0], rel=1e-12)
    assert weighted.auc[0] == pytest.approx(replicated.auc[0], rel=1e-12)


def test_paired_covariance_matches_the_brute_force():
    rng = np.random.default_rng(12)
    cluster, y, s = clustered(rng, 12, 4)
    t = np.round(s + rng.normal(size=s.size), 0)  # a second score on the same rows, with ties
    zero = np.zeros_like(cluster)
    a = obuchowski_components(*tables(zero, cluster, y, s))
    b = obuchowski_components(*tables(zero, cluster, y, t))
    assert obuchowski_covariance(a, b)[0] == pytest.approx(oracle(cluster, y, s, t)[4], rel=1e-12)
    assert obuchowski_covariance(a, a)[0] == pytest.approx(a.variance[0], rel=1e-12)
    assert obuchowski_covariance(a, b)[0] == pytest.approx(obuchowski_covariance(b, a)[0], rel=1e-12)
    # one row per cluster: DeLong's paired covariance, written from the placements
    single = np.arange(y.size)
    a1, b1 = (obuchowski_components(*tables(zero, single, y, score)) for score in (s, t))
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    va = np.array([[psi(s[j], s[k]) for k in neg] for j in pos])
    vb = np.array([[psi(t[j], t[k]) for k in neg] for j in pos])
    delong = (np.cov(va.mean(axis=1), vb.mean(axis=1))[0, 1] / pos.size
              + np.cov(va.mean(axis=0), vb.mean(axis=0))[0, 1] / neg.size)
    assert obuchowski_covariance(a1, b1)[0] == pytest.approx(delong, rel=1e-12)


def test_bad_inputs_are_refused():
    group_ties, units, unit_group = tables(np.zeros(6, dtype=int), [0, 0, 1, 1, 2, 2], [1, 0, 1, 0, 1, 0],
                                           [6.0, 5, 4, 3, 2, 1])
    with pytest.raises(InputError, match="one group per unit"):
        obuchowski_components(group_ties, units, unit_group[:2])
    with pytest.raises(InputError, match="do not add up"):
        obuchowski_components(group_ties, units.take([0, 1]), unit_group[:2])
    other = obuchowski_components(*tables(np.zeros(6, dtype=int), [0, 0, 0, 1, 1, 2], [1, 0, 1, 0, 1, 0],
                                          [6.0, 5, 4, 3, 2, 1]))
    with pytest.raises(InputError, match="same clusters"):
        obuchowski_covariance(obuchowski_components(group_ties, units, unit_group), other)
