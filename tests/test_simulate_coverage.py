"""The one coverage engine (aucpr_stats.simulate.coverage): a study measures the interval a user gets.

Oracle: the public call on a frame holding the same simulated data sets,
``aucpr(frame, "y", "s", by="sim").conf_int(method=...)``, for every method
of the interval registry.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc
from aucpr_stats.estimators import ESTIMATORS
from aucpr_stats.intervals import INTERVAL_METHODS
from aucpr_stats.simulate import SCENARIOS, block_intervals, coverage_study, simulate_ties, study_methods, tally
from aucpr_stats.simulate import INTERVAL_METHODS as STUDY_ARMS


def _data_sets(n_sims=12, n_pos=15, n_neg=45, seed=3):
    rng = np.random.default_rng(seed)
    pos, neg = SCENARIOS["binormal"].sample_arrays(n_sims, n_pos, n_neg, rng)
    ids = np.arange(100, 100 + n_sims)
    frame = pl.DataFrame({"sim": np.repeat(ids, n_pos + n_neg),
                          "y": np.tile(np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)], n_sims),
                          "s": np.round(np.concatenate([pos, neg], axis=1), 2).ravel()})
    return simulate_ties(np.round(pos, 2), np.round(neg, 2)), ids, frame


@pytest.mark.parametrize("metric, estimator", [("aucpr", "average_precision"), ("aucpr", "interpolated_median"),
                                               ("auroc", "a_prime")])
def test_block_intervals_are_conf_int_of_the_same_data_sets(metric, estimator):
    ties, ids, frame = _data_sets()
    record = ESTIMATORS[metric][estimator]
    methods = study_methods(metric, record)
    options = {name: {"n_boot": 50} for name in methods if "n_boot" in INTERVAL_METHODS[metric][name].options.names()}
    block = block_intervals(ties, metric, [record], methods, 0.9, rng=11, options=options, ids=ids)
    verb = aucpr if metric == "aucpr" else auroc
    result = verb(frame, "y", "s", by="sim", estimator=estimator)
    for name in methods:
        randomness = {"seed": 11} if INTERVAL_METHODS[metric][name].random else {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            want = result.conf_int(method=name, level=0.9, **randomness, **options.get(name, {}))
        got = block[(estimator, name)]
        location = INTERVAL_METHODS[metric][name].location
        np.testing.assert_array_equal(got.lower, want["lower"].to_numpy(), err_msg=name)
        np.testing.assert_array_equal(got.upper, want["upper"].to_numpy(), err_msg=name)
        np.testing.assert_array_equal(got.location, want[location].to_numpy(), err_msg=name)
        assert got.notes == want["note"].to_list()
        assert got.warnings == tuple(sorted({w.category.__name__ for w in caught}))


def test_study_methods_are_what_conf_int_all_runs():
    ties, ids, frame = _data_sets()
    for metric, verb in (("aucpr", aucpr), ("auroc", auroc)):
        for name, record in ESTIMATORS[metric].items():
            result = verb(frame, "y", "s", by="sim", estimator=name)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                listed = result.conf_int(method="all", n_boot=20, seed=1)["method"].unique(maintain_order=True)
            assert study_methods(metric, record) == listed.to_list(), name


def test_tally_counts_add_up_over_blocks():
    ties, ids, _ = _data_sets(n_sims=20)
    record = ESTIMATORS["aucpr"]["average_precision"]
    whole = block_intervals(ties, "aucpr", [record], ["logit"], ids=ids)[("average_precision", "logit")]
    halves = [block_intervals(ties.take(np.arange(k, k + 10)), "aucpr", [record], ["logit"], ids=ids[k:k + 10])
              [("average_precision", "logit")] for k in (0, 10)]
    truth = 0.5
    one, two = tally(whole, truth), [tally(h, truth) for h in halves]
    for key in ("n_sims", "n_valid", "hits", "n_note"):
        assert one[key] == two[0][key] + two[1][key]
    assert one["width_sum"] == pytest.approx(two[0]["width_sum"] + two[1]["width_sum"])
    formed = np.isfinite(whole.lower) & np.isfinite(whole.upper)
    assert one["hits"] == int(np.sum(formed & (whole.lower <= truth) & (truth <= whole.upper)))


def test_the_coverage_study_runs_every_method_of_the_registry():
    """Not a drifted subset: every AUCPR method for independent rows, each estimator with the methods serving it."""
    assert list(STUDY_ARMS) == [name for name, m in INTERVAL_METHODS["aucpr"].items() if "rows" in m.designs]
    out = coverage_study("binormal", n_total=200, estimators=["average_precision", "interpolated_median"],
                         methods="all", n_sims=10, seed=1, method_options={"bootstrap": {"n_boot": 30}})
    for name in ("average_precision", "interpolated_median"):
        rows = out.filter(pl.col("estimator") == name)["method"].to_list()
        assert rows == study_methods("aucpr", ESTIMATORS["aucpr"][name])
    assert set(out["method"]) == set(STUDY_ARMS)
    boot = out.filter(pl.col("method") == "bootstrap")
    assert (boot["location_ratio"] != boot["bias_ratio"]).all()  # centred on the replicates' median
