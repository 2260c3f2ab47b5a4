"""Bounded work (issue 15, item 4): n_boot's maximum, memory checked before allocating, batched replicates."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc, compare, pr_curve
from aucpr_stats._validate import MAX_N_BOOT
from aucpr_stats.exceptions import InputError
from aucpr_stats.resample import budget, bootstrap_estimates, group_batches
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


def test_batched_bootstrap_is_identical_to_one_batch(monkeypatch):
    result = aucpr(cohort(), "y", "s", by="g", estimator=["average_precision", "lower_trapezoid"])
    whole = result.conf_int(method="bootstrap", n_boot=150, seed=4)
    monkeypatch.setattr(budget, "REPLICATE_BUDGET", 2 * 150 * 3)  # three groups per batch: four batches
    assert len(group_batches(12, 2 * 150)) == 4
    batched = result.conf_int(method="bootstrap", n_boot=150, seed=4)
    assert batched.equals(whole)


def test_a_request_that_would_not_fit_is_refused_with_its_estimate(monkeypatch):
    monkeypatch.setattr(budget, "available_memory", lambda: 2**20)  # pretend 1 MiB is free
    t = TieTable([2.0, 1.0], [3, 1], [1, 3], [0, 2])
    with pytest.raises(InputError, match=r"a bootstrap of 1 groups x 1,000,000 replicates needs about 8 MiB of memory "
                                         r"for its replicates, more than the 1 MiB available; lower `n_boot`"):
        bootstrap_estimates(t, lambda table: table.n_pos.astype(float), n_boot=1_000_000, seed=1)
    df = cohort(400, 4)
    with pytest.raises(InputError, match=r"a paired bootstrap of 2 scores x 4 groups x 50,000 replicates needs about"):
        compare(df, "y", ["s", "s2"], by="g", metric="aucpr", n_boot=50_000)
    # the batched interval bootstrap holds a budget, not groups x n_boot: it still runs
    monkeypatch.setattr(budget, "REPLICATE_BUDGET", 1000)
    out = aucpr(df, "y", "s", by="g").conf_int(method="bootstrap", n_boot=500, seed=1)
    assert out["lower"].is_finite().all()
