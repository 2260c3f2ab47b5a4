"""Bounded work (issue 15, item 4): n_boot's maximum, memory checked before allocating, batched replicates."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc, compare, pr_curve
from aucpr_stats._validate import MAX_N_BOOT
from aucpr_stats.exceptions import InputError
from aucpr_stats.intervals import Bootstrap
from aucpr_stats.resample import bootstrap_estimates, group_batches
from aucpr_stats.ties import TieTable
from tests.conftest import random_scores


def cohort(n=3000, groups=12, seed=2):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n, prevalence=0.3, ties=False)
    return pl.DataFrame({"y": y, "s": s, "s2": s + rng.normal(size=n), "g": rng.integers(0, groups, n)})


@pytest.mark.parametrize("call", [
    lambda df, n: aucpr(df, "y", "s").conf_int(method="bootstrap", n_boot=n),
    lambda df, n: auroc(df, "y", "s").conf_int(method="bootstrap", n_boot=n),
    lambda df, n: compare(df, "y", ["s", "s2"], metric="aucpr", n_boot=n),
    lambda df, n: pr_curve(df, "y", "s").band(n_boot=n),
])
def test_n_boot_above_the_maximum_is_refused_before_any_work(call):
    df = cohort(300, 1)
    for n in (MAX_N_BOOT + 1, 10**9, 2**63):
        with pytest.raises(InputError, match=r"`n_boot` must be at most 1,000,000 \(the documented maximum\)"):
            call(df, n)


def test_group_batches_cover_every_group_once_within_the_budget():
    batches = group_batches(10, 7, budget=20)
    assert [b.tolist() for b in batches] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    assert [b.tolist() for b in group_batches(3, 10**9, budget=20)] == [[0], [1], [2]]  # at least one group
    assert np.concatenate(group_batches(1000, 3)).tolist() == list(range(1000))


def test_batched_bootstrap_is_identical_to_one_batch():
    result = aucpr(cohort(), "y", "s", by="g", estimator=["average_precision", "lower_trapezoid"])
    whole = result.conf_int(method="bootstrap", n_boot=150, seed=4)
    budget = 2 * 150 * 3  # three groups per batch: four batches
    assert len(group_batches(12, 2 * 150, budget)) == 4
    batched = result.conf_int(method=Bootstrap(n_boot=150, rng=4, replicate_budget=budget))
    assert batched.equals(whole)


def test_a_request_that_would_not_fit_is_refused_with_its_estimate():
    # 200,000 groups x 1,000,000 replicates of float64: 1.5 TB, more than any machine here has
    n = 200_000
    t = TieTable(np.tile([2.0, 1.0], n), np.tile([3, 1], n), np.tile([1, 3], n), np.arange(0, 2 * n + 1, 2))
    with pytest.raises(InputError, match=r"a bootstrap of 200,000 groups x 1,000,000 replicates needs about [\d.]+ "
                                         r"GiB of memory for its replicates, more than the [\d.]+ (GiB|MiB) "
                                         r"available; lower `n_boot`"):
        bootstrap_estimates(t, lambda table: table.n_pos.astype(float), n_boot=1_000_000, seed=1)
    rng = np.random.default_rng(4)
    groups = 100_000  # a paired bootstrap keeps every pair's replicates: 2 x 100,000 x 1,000,000 values
    frame = pl.DataFrame({"g": np.repeat(np.arange(groups), 4), "y": np.tile([1, 0, 1, 0], groups),
                          "s": rng.normal(size=4 * groups), "s2": rng.normal(size=4 * groups)})
    with pytest.raises(InputError, match=r"a paired bootstrap of 2 scores x 100,000 groups x 1,000,000 replicates "
                                         r"needs about"):
        compare(frame, "y", ["s", "s2"], by="g", metric="aucpr", n_boot=1_000_000)
    # the batched interval bootstrap holds a budget, not groups x n_boot: a small budget still runs
    df = cohort(400, 4)
    out = aucpr(df, "y", "s", by="g").conf_int(method=Bootstrap(n_boot=500, rng=1, replicate_budget=1000))
    assert out["lower"].is_finite().all()
