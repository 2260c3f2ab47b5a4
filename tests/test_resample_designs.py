"""The weighted-row and cluster bootstraps (resample/designs.py): their laws, streams and edges.

The laws are checked against closed forms written in the tests: for a cell
count ``C ~ Multinomial(n; c/n)`` carrying weight ``w``, ``E = w c`` and
``Var = w^2 c (1 - c/n)``; for clusters drawn uniformly with replacement
within a stratum of ``I`` clusters, the count at a score is
``sum_u T_u c_u`` with ``T ~ Multinomial(I; 1/I)``, whose mean is the
observed count and whose variance is ``sum_u c_u^2 - (sum_u c_u)^2 / I``
per stratum. Means and variances of many replicates must agree within a
few Monte Carlo standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from aucpr_stats.estimators import a_prime, average_precision
from aucpr_stats.exceptions import InputError
from aucpr_stats.tables import tie_table_from_counts
from aucpr_stats.resample import (
    ClusterUnits,
    Streams,
    WeightedRows,
    bootstrap_estimates,
    design_bootstrap_estimates,
    replicate_chunks,
    target_rows,
)
from aucpr_stats.ties import TieTable
from tests.design_cases import cluster_tables


# ------------------------------------------------------------------ builders
def weighted_tables(group, y, s, w):
    """Group table (weighted counts), cell table and cell weights, from explicit rows."""
    group, y, s, w = (np.asarray(a) for a in (group, y, s, w))
    n_groups = int(group.max()) + 1
    group_ties = tie_table_from_counts(group, s, (w * y).astype(float), (w * (1 - y)).astype(float), n_groups)
    # cells: distinct (group, score, weight), descending score within group
    keys, inverse = np.unique(np.stack([group, -s, w]), axis=1, return_inverse=True)
    inverse = inverse.ravel()
    pos = np.bincount(inverse, weights=y, minlength=keys.shape[1]).astype(np.int64)
    neg = np.bincount(inverse, weights=1 - y, minlength=keys.shape[1]).astype(np.int64)
    offsets = np.searchsorted(keys[0], np.arange(n_groups + 1))
    cells = TieTable(-keys[1], pos, neg, offsets)
    return group_ties, cells, keys[2].astype(float)


def all_counts(design, n_boot, seed=1, chunk_size=None, purpose="bootstrap"):
    """pos and neg counts of every replicate, shape (n_boot, group rows), from the chunks."""
    table = design.group_ties
    pos = np.zeros((n_boot, table.n_rows))
    neg = np.zeros((n_boot, table.n_rows))
    streams = Streams.for_segments(seed, table.n_segments, purpose)
    for chunk in design.replicate_chunks(n_boot, streams, chunk_size):
        assert chunk.table.n_segments == chunk.segment.size
        for k, (g, b) in enumerate(zip(chunk.segment, chunk.replicate)):
            lo, hi = chunk.table.offsets[k], chunk.table.offsets[k + 1]
            assert np.array_equal(chunk.table.score[lo:hi], table.score[table.offsets[g]:table.offsets[g + 1]])
            pos[b, table.offsets[g]:table.offsets[g + 1]] = chunk.table.pos[lo:hi]
            neg[b, table.offsets[g]:table.offsets[g + 1]] = chunk.table.neg[lo:hi]
    return pos, neg


def assert_moments(samples, mean, var, z=5.0):
    """Column means and variances of ``samples`` agree with ``mean`` and ``var`` within z Monte Carlo SEs."""
    n = samples.shape[0]
    se_mean = np.sqrt(var / n)
    assert np.all(np.abs(samples.mean(axis=0) - mean) <= z * se_mean + 1e-12)
    # the SE of a sample variance: sqrt((mu4 - var^2) / n), with mu4 estimated from the sample
    centred = samples - samples.mean(axis=0)
    se_var = np.sqrt(np.maximum((centred ** 4).mean(axis=0) - var ** 2, 0) / n)
    assert np.all(np.abs(samples.var(axis=0, ddof=1) - var) <= z * se_var + 1e-12)


# ------------------------------------------------------------------ weights
def test_weights_one_give_the_stratified_bootstrap_exactly():
    rng = np.random.default_rng(3)
    group = np.repeat([0, 1, 2], [40, 25, 60])
    y = (rng.random(group.size) < 0.35).astype(int)
    s = np.round(rng.normal(size=group.size), 1)
    group_ties, cells, weight = weighted_tables(group, y, s, np.ones(group.size))
    design = WeightedRows(group_ties, cells, weight)
    as_int = group_ties.with_counts(group_ties.pos.astype(np.int64), group_ties.neg.astype(np.int64))
    for chunk_size in (None, 7):
        pos, neg = all_counts(design, 50, seed=9, chunk_size=chunk_size)
        want_pos, want_neg = np.zeros_like(pos), np.zeros_like(neg)
        for c in replicate_chunks(as_int, 50, Streams.for_segments(9, 3, "bootstrap"), chunk_size):
            for k, (g, b) in enumerate(zip(c.segment, c.replicate)):
                rows, chunk_rows = slice(as_int.offsets[g], as_int.offsets[g + 1]), slice(*c.table.offsets[k:k + 2])
                want_pos[b, rows], want_neg[b, rows] = c.table.pos[chunk_rows], c.table.neg[chunk_rows]
        assert np.array_equal(pos, want_pos) and np.array_equal(neg, want_neg)
        assert np.array_equal(pos.sum(axis=1), np.full(50, as_int.pos.sum()))  # row counts fixed
    # and the estimates through design_bootstrap_estimates equal bootstrap_estimates'
    got = design_bootstrap_estimates(design, a_prime, 40, Streams.for_segments(4, 3, "bootstrap"), threads=1)
    want = bootstrap_estimates(as_int, a_prime, 40, streams=Streams.for_segments(4, 3, "bootstrap"), threads=1)
    assert np.array_equal(got, want)


def test_weighted_counts_have_the_multinomial_law_times_the_weights():
    # one group: positives at scores 3, 2, 2, 1 with weights 1, 2, 5, 1.5; negatives at 2, 1, 0 with weights 3, 1, 1, 1
    s = np.array([3, 2, 2, 1, 2, 1, 0, 0], dtype=float)
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    w = np.array([1, 2, 5, 1.5, 3, 1, 1, 1])
    group_ties, cells, weight = weighted_tables(np.zeros(8, dtype=int), y, s, w)
    assert cells.n_rows == 7  # score 2 holds two positive cells (weights 2 and 5) and one negative
    pos, neg = all_counts(WeightedRows(group_ties, cells, weight), 6000, seed=5)

    def law(class_y):
        """Exact mean and variance of the weighted count at each distinct score, by brute force over rows."""
        rows = np.flatnonzero(y == class_y)
        n = rows.size
        scores = group_ties.score
        # row counts R ~ Multinomial(n; 1/n each): Cov(R_a, R_b) = n (1/n)(delta_ab - 1/n)
        cov = (np.eye(n) - 1.0 / n)
        a = np.array([[w[r] if s[r] == t else 0.0 for r in rows] for t in scores])  # (scores, rows)
        return a.sum(axis=1), np.einsum("ij,jk,ik->i", a, cov, a)

    for counts, class_y in ((pos, 1), (neg, 0)):
        mean, var = law(class_y)
        assert_moments(counts, mean, var)
    assert np.allclose(pos.mean(axis=0), group_ties.pos, rtol=0.05)  # the mean table is the observed one


def test_integer_weights_are_not_replicated_rows():
    # a positive of weight 3 is one row drawn with weight 3, not three rows: Var 9 (1 - 1/n) against 3 (1 - 3/n')
    s = np.array([4, 3, 2, 1, 0.5, 0], dtype=float)
    y = np.array([1, 1, 1, 0, 0, 0])
    w = np.array([3, 1, 1, 1, 1, 1])
    weighted, _ = all_counts(WeightedRows(*weighted_tables(np.zeros(6, dtype=int), y, s, w)), 6000, seed=2)
    rows = np.repeat(np.arange(6), w)
    replicated = TieTable(s, np.bincount(rows, weights=y[rows]).astype(int),
                          np.bincount(rows, weights=1 - y[rows]).astype(int), [0, 6])
    var_weighted = 9 * (1 - 1 / 3)  # n = 3 positive rows
    var_replicated = 5 * (3 / 5) * (1 - 3 / 5)  # n' = 5 positive rows, 3 of them at score 4
    assert abs(weighted[:, 0].var() - var_weighted) < 0.3
    reps = [c.table.pos.reshape(-1, 6) for c in replicate_chunks(replicated, 6000, Streams.for_segments(2, 1, "b"))]
    assert abs(np.concatenate(reps)[:, 0].var() - var_replicated) < 0.1
    assert var_weighted > 4 * var_replicated


def test_weighted_design_checks_its_inputs():
    group_ties, cells, weight = weighted_tables(np.zeros(4, dtype=int), [1, 0, 1, 0], [3.0, 2, 1, 0], [1, 2, 1, 1])
    with pytest.raises(InputError, match="cell_weight"):
        WeightedRows(group_ties, cells, -weight)
    with pytest.raises(InputError, match="one value per cell"):
        WeightedRows(group_ties, cells, weight[:2])
    with pytest.raises(InputError, match="do not add up"):
        WeightedRows(group_ties, cells, weight * 2)
    with pytest.raises(InputError, match="whole numbers"):
        WeightedRows(group_ties, group_ties, np.ones(4))
    with pytest.raises(InputError, match="not in their group"):
        target_rows(group_ties, [0], [2.5])


# ------------------------------------------------------------------ clusters
def clustered_rows(rng, n_clusters, size, n_groups=1):
    cluster = np.repeat(np.arange(n_clusters), size)
    group = cluster % n_groups
    effect = rng.normal(size=n_clusters)[cluster]
    y = (rng.random(cluster.size) < 1 / (1 + np.exp(1.0 - effect))).astype(int)
    s = np.round(effect + y + rng.normal(size=cluster.size), 1)
    return group, cluster, y, s


def cluster_law(group_ties, units, unit_group, g=0, strata="composition"):
    """Exact mean and variance of each class's count at each row of group g (a loop over clusters).

    Without strata the law is that of unconditional draws (the redraw of replicates missing a class is
    ignored: the examples make it vanishingly rare).
    """
    strata_kind = strata
    lo, hi = group_ties.offsets[g], group_ties.offsets[g + 1]
    scores = group_ties.score[lo:hi]
    out = []
    for counts in ("pos", "neg"):
        per_unit, strata = [], []
        for u in np.flatnonzero(unit_group == g):
            a, b = units.offsets[u], units.offsets[u + 1]
            c = np.zeros(scores.size)
            for score, value in zip(units.score[a:b], getattr(units, counts)[a:b]):
                c[np.flatnonzero(scores == score)[0]] += value
            per_unit.append(c)
            strata.append(0 if strata_kind == "none" else (units.pos[a:b].sum() > 0) + 2 * (units.neg[a:b].sum() > 0))
        per_unit, strata = np.array(per_unit), np.array(strata)
        var = np.zeros(scores.size)
        for k in np.unique(strata):
            block = per_unit[strata == k]
            var += (block ** 2).sum(axis=0) - block.sum(axis=0) ** 2 / block.shape[0]
        out.append((per_unit.sum(axis=0), var))
    return out


@pytest.mark.parametrize("strata", ["none", "composition"])
def test_cluster_counts_have_the_exact_mean_and_variance(strata):
    rng = np.random.default_rng(11)
    group, cluster, y, s = clustered_rows(rng, 9 if strata == "composition" else 30, 3)
    tables = cluster_tables(group, cluster, y, s)
    design = ClusterUnits(*tables, strata=strata)
    assert design.n_clusters().sum() == (9 if strata == "composition" else 30)
    pos, neg = all_counts(design, 6000, seed=3)
    (pos_mean, pos_var), (neg_mean, neg_var) = cluster_law(*tables, strata=strata)
    assert_moments(pos, pos_mean, pos_var)
    assert_moments(neg, neg_mean, neg_var)
    assert (pos.sum(axis=1) > 0).all() and (neg.sum(axis=1) > 0).all()


def test_unstratified_clusters_redraw_replicates_missing_a_class():
    # two clusters, one of each class: of the draws {A, A}, {B, B}, {A, B} only the last keeps both classes
    group_ties, units, unit_group = cluster_tables([0] * 4, [0, 0, 1, 1], [1, 1, 0, 0], [3.0, 2, 1, 0])
    pos, neg = all_counts(ClusterUnits(group_ties, units, unit_group, strata="none"), 200)
    assert np.array_equal(pos, np.tile(group_ties.pos, (200, 1)))
    assert np.array_equal(neg, np.tile(group_ties.neg, (200, 1)))
    # with three clusters the draws vary, always with both classes
    group_ties, units, unit_group = cluster_tables([0] * 5, [0, 0, 1, 1, 2], [1, 1, 0, 0, 0], [4.0, 3, 2, 1, 0])
    pos, neg = all_counts(ClusterUnits(group_ties, units, unit_group), 2000)
    assert (pos.sum(axis=1) > 0).all() and (neg.sum(axis=1) > 0).all()
    # cluster 0 drawn k ~ Binomial(3, 1/3) times, given 1 <= k <= 2: P(1) = 12/18, P(2) = 6/18, E = 4/3
    assert abs(pos[:, 0].mean() - 4 / 3) < 5 * np.sqrt(2 / 9 / 2000)
    with pytest.raises(InputError, match="strata"):
        ClusterUnits(group_ties, units, unit_group, strata="class")


def test_clusters_of_one_row_give_the_stratified_row_bootstrap():
    rng = np.random.default_rng(5)
    y = (rng.random(30) < 0.4).astype(int)
    s = np.round(rng.normal(size=30) + y, 0)
    tables = cluster_tables(np.zeros(30, dtype=int), np.arange(30), y, s)
    design = ClusterUnits(*tables, strata="composition")
    group_ties = tables[0]
    pos, neg = all_counts(design, 5000, seed=8)
    n_pos, n_neg = group_ties.n_pos[0], group_ties.n_neg[0]
    assert_moments(pos, group_ties.pos, group_ties.pos * (1 - group_ties.pos / n_pos))
    assert_moments(neg, group_ties.neg, group_ties.neg * (1 - group_ties.neg / n_neg))
    # the same law as the multinomial bootstrap: A' replicates indistinguishable (two-sample KS)
    clustered = design_bootstrap_estimates(design, a_prime, 3000, Streams.for_segments(1, 1, "bootstrap"))
    rows = bootstrap_estimates(group_ties, a_prime, 3000, seed=2)
    assert stats.ks_2samp(clustered[0], rows[0]).pvalue > 1e-3


def test_cluster_replicates_are_reproducible_and_depend_on_their_own_stream_only():
    rng = np.random.default_rng(7)
    group, cluster, y, s = clustered_rows(rng, 60, 4, n_groups=3)
    design = ClusterUnits(*cluster_tables(group, cluster, y, s))
    streams = Streams.for_segments(5, 3, "bootstrap")
    est = design_bootstrap_estimates(design, [a_prime, average_precision], 120, streams, threads=1)
    assert est.shape == (2, 3, 120)
    again = design_bootstrap_estimates(design, [a_prime, average_precision], 120,
                                       Streams.for_segments(5, 3, "bootstrap"), threads=2)
    assert np.array_equal(est, again)  # threads do not matter
    other_seed = design_bootstrap_estimates(design, a_prime, 120, Streams.for_segments(6, 3, "bootstrap"))
    assert not np.array_equal(est[0], other_seed)
    # a group alone, or the groups in another order, with their own streams: the same numbers
    for groups in ([2], [2, 0], [1, 0, 2]):
        part = design_bootstrap_estimates(design.take(groups), a_prime, 120,
                                          Streams.for_segments(5, 3, "bootstrap").take(groups), threads=1)
        assert np.array_equal(part, est[0][groups])
    # the chunk size changes the draws only as documented: a fixed chunk size gives fixed numbers
    small = design_bootstrap_estimates(design, a_prime, 120, Streams.for_segments(5, 3, "bootstrap"), chunk_size=7)
    assert np.array_equal(small, design_bootstrap_estimates(design, a_prime, 120,
                                                            Streams.for_segments(5, 3, "bootstrap"), chunk_size=7))


def test_weighted_replicates_depend_on_their_own_stream_only():
    rng = np.random.default_rng(8)
    group = rng.integers(0, 3, 150)
    y = (rng.random(150) < 0.3).astype(int)
    s = np.round(rng.normal(size=150) + y, 1)
    w = rng.choice([0.5, 1.0, 2.5], 150)
    design = WeightedRows(*weighted_tables(group, y, s, w))
    est = design_bootstrap_estimates(design, a_prime, 80, Streams.for_segments(5, 3, "bootstrap"), threads=1)
    part = design_bootstrap_estimates(design.take([2, 0]), a_prime, 80,
                                      Streams.for_segments(5, 3, "bootstrap").take([2, 0]), threads=2)
    assert np.array_equal(part, est[[2, 0]])
    assert np.all(np.isfinite(est))


def test_degenerate_and_empty_groups():
    # group 0: one cluster holding both classes; group 1: positives only; group 2: no rows at all
    group_ties = TieTable([2.0, 1.0, 5.0, 4.0], [1, 0, 2, 1], [1, 2, 0, 0], [0, 2, 4, 4])
    units = TieTable([2.0, 1.0, 5.0, 4.0, 5.0], [1, 0, 1, 1, 1], [1, 2, 0, 0, 0], [0, 2, 4, 5])
    design = ClusterUnits(group_ties, units, [0, 1, 1])
    pos, neg = all_counts(design, 30)
    assert np.array_equal(pos[:, :2], np.tile([1, 0], (30, 1)))  # one cluster: every replicate is the data
    assert np.array_equal(neg[:, :2], np.tile([1, 2], (30, 1)))
    # group 1 draws two of its clusters ({5, 4} and {5}): always 2 positives at 5, 0 to 2 at 4, no negatives
    assert (neg[:, 2:] == 0).all() and (pos[:, 2] == 2).all() and set(pos[:, 3]) == {0, 1, 2}
    est = design_bootstrap_estimates(design, a_prime, 30, Streams.for_segments(1, 3, "bootstrap"))
    assert np.all(est[0] == a_prime(group_ties.take([0]))[0])
    assert np.isnan(est[1:]).all()


def test_cluster_design_checks_its_inputs():
    group_ties, units, unit_group = cluster_tables([0] * 4, [0, 0, 1, 1], [1, 0, 1, 0], [3.0, 2, 1, 0])
    with pytest.raises(InputError, match="one group per unit"):
        ClusterUnits(group_ties, units, unit_group[:1])
    with pytest.raises(InputError, match="non-decreasing"):
        ClusterUnits(group_ties, units, [0, 1])
    with pytest.raises(InputError, match="do not add up"):
        ClusterUnits(group_ties, units.take([0]), [0])
    with pytest.raises(InputError, match="both hold whole counts"):
        ClusterUnits(group_ties.with_counts(group_ties.pos * 1.0, group_ties.neg * 1.0), units, unit_group)
    with pytest.raises(InputError, match="one stream per group"):
        next(ClusterUnits(group_ties, units, unit_group).replicate_chunks(5, Streams.for_segments(1, 2, "b")))


def test_weighted_clusters_keep_float_counts():
    rng = np.random.default_rng(2)
    group, cluster, y, s = clustered_rows(rng, 12, 3)
    w = rng.choice([0.5, 2.0], y.size)
    tables = cluster_tables(group, cluster, y, s, w)
    design = ClusterUnits(*tables, strata="composition")
    pos, neg = all_counts(design, 4000, seed=4)
    chunk = next(design.replicate_chunks(2, Streams.for_segments(1, 1, "b")))
    assert chunk.table.pos.dtype == np.float64
    (pos_mean, pos_var), (neg_mean, neg_var) = cluster_law(*tables)
    assert_moments(pos, pos_mean, pos_var)
    assert_moments(neg, neg_mean, neg_var)
