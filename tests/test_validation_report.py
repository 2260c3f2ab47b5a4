"""The validation report (benchmarks/validation.py) on a tiny grid: structure, and that coverage can fail.

The full report is not run here (it takes about half an hour); see docs/validation.md.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from aucpr_stats.compare import METHODS as TEST_METHODS
from aucpr_stats.estimators import DEFAULT_ESTIMATOR
from aucpr_stats.intervals.registry import INTERVAL_METHODS

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "validation.py"


@pytest.fixture(scope="module")
def validation():
    spec = importlib.util.spec_from_file_location("validation_report", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def tiny(validation):
    return replace(validation.Config(), n_sims=6, n_pos=(3, 10), prevalences=(0.1,), scenarios=("binormal",),
                   test_scenarios=("binormal",), n_boot=40, n_boot_test=40, seed=3)


@pytest.fixture(scope="module")
def results(validation, tiny):
    return validation.run_validation(tiny, workers=1)


def test_every_method_and_test_is_in_the_report(results, tiny):
    cells = results["cells"]
    intervals = {(c["metric"], c["method"]) for c in cells if c["kind"] == "interval"}
    # methods for independent rows; those needing clusters have their own study (benchmarks/cluster_coverage.py)
    assert intervals == {(m, name) for m in ("aucpr", "auroc") for name, record in INTERVAL_METHODS[m].items()
                         if "rows" in record.designs}
    tests = {(c["metric"], c["design"], c["method"]) for c in cells if c["kind"] == "test"}
    assert tests == {(m, d, t) for m in ("aucpr", "auroc") for t in TEST_METHODS[m] for d in ("paired", "unpaired")}
    estimators = {c["estimator"] for c in cells if c["metric"] == "aucpr"}
    assert estimators == {DEFAULT_ESTIMATOR["aucpr"], "average_precision"}
    # every cell of the grid, every statistic with its Monte Carlo SE
    for c in cells:
        assert c["n_pos"] in tiny.n_pos and c["prevalence"] == 0.1 and c["n_sims"] == tiny.n_sims
        assert c["n_neg"] == 9 * c["n_pos"]
        stat = "coverage" if c["kind"] == "interval" else "size"
        if c["n_valid"]:
            p = c[stat]
            assert 0.0 <= p <= 1.0
            assert c[f"{stat}_se"] == pytest.approx(math.sqrt(p * (1 - p) / c["n_valid"]))
        assert c["nan_share"] == pytest.approx(1 - c["n_valid"] / c["n_sims"])
    truths = [c["truth"] for c in cells if c["kind"] == "interval" and c["metric"] == "auroc"]
    assert truths == pytest.approx([0.7602499389065233] * len(truths))  # Phi(1 / sqrt 2), binormal mu = 1


def test_thresholds_and_page(validation, results):
    keys = {(t["kind"], t["metric"], t["design"], t["method"], t["estimator"]) for t in results["thresholds"]}
    assert keys == {(c["kind"], c["metric"], c["design"], c["method"], c["estimator"]) for c in results["cells"]}
    for t in results["thresholds"]:
        assert t["min_n_pos"] in (3, 10, None)
        assert (t["min_n_pos"] == 3) == (not t["failing_n_pos"])
    text = json.dumps(validation._json_ready(results))  # JSON-ready: no NaN
    assert "NaN" not in text
    page = validation.render(json.loads(text))
    assert "## Thresholds for the SmallSampleWarning" in page
    assert "python benchmarks/validation.py" in page
    assert "| 3 | 10 |" in page


def test_a_wrong_truth_gives_coverage_zero(validation, tiny):
    config = replace(tiny, n_pos=(10,), tests=False, metrics=("aucpr",))
    out = validation.run_validation(config, truth={("binormal", 0.1): {"aucpr": 10.0, "auroc": 10.0}})
    cells = out["cells"]
    assert cells and all(c["coverage"] == 0.0 and c["flag"] for c in cells if c["n_valid"])
    assert all(t["min_n_pos"] is None for t in out["thresholds"])
    right = validation.run_validation(config)
    assert any(c["coverage"] > 0.5 for c in right["cells"])


def test_the_threshold_rule(validation, tiny):
    def cell(n_pos, coverage):
        return {"kind": "interval", "metric": "aucpr", "design": None, "method": "m", "estimator": "e",
                "scenario": "s", "prevalence": 0.1, "n_pos": n_pos, "n_valid": 100, "coverage": coverage,
                "coverage_se": 0.01, "flag": coverage < 0.93}

    # a failure above a passing size moves the threshold up: coverage must *stay* within 2 points
    rows = [cell(2, 0.80), cell(5, 0.94), cell(10, 0.92), cell(20, 0.95), cell(50, 0.95)]
    (t,) = validation.thresholds(rows, tiny)
    assert t["min_n_pos"] == 20 and t["failing_n_pos"] == [2, 10]
    assert t["min_n_pos_2se"] == 5  # 92 ± 1 is within two SEs of 93
    assert t["worst"]["coverage"] == 0.80
