"""The shipped data sets are what data/README.md says they are."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import polars as pl
from sklearn.datasets import load_breast_cancer

DATA = Path(__file__).resolve().parents[1] / "data"


def _load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_breast_cancer_matches_the_source():
    frame = pl.read_csv(DATA / "breast_cancer_oof.csv")
    source = load_breast_cancer(as_frame=True)
    assert frame.height == 569 and frame["malignant"].sum() == 212
    # scikit-learn codes malignant as 0
    np.testing.assert_array_equal(frame["malignant"].to_numpy(), (source.target.to_numpy() == 0).astype(int))
    assert frame["diagnosis"].to_list() == ["malignant" if m else "benign" for m in frame["malignant"]]
    np.testing.assert_allclose(frame["mean_area"].to_numpy(), source.data["mean area"].to_numpy(), atol=0.05)
    for col in ("logistic", "forest", "texture"):
        assert frame[col].is_between(0, 1).all() and frame[col].null_count() == 0
    sizes = frame.group_by("size_group").agg(pl.len(), pl.col("malignant").sum()).sort("size_group")
    assert sizes["size_group"].to_list() == ["1 small", "2 medium", "3 large"]
    assert sizes["malignant"].to_list() == [6, 39, 167]


def test_synthetic_cohort_is_reproducible():
    module = _load_script("make_synthetic_cohort")
    shipped = pl.read_csv(DATA / "synthetic_cohort.csv")
    made = module.make()
    assert shipped.columns == made.columns and shipped.height == made.height
    assert shipped["disease"].to_list() == made["disease"].to_list()
    np.testing.assert_allclose(shipped["model_a"].to_numpy(), made["model_a"].to_numpy())


def test_scenario_cohort_truth_and_reproducibility():
    from aucpr_stats.simulate import get_scenario  # noqa: F401  (the module the script uses)

    module = _load_script("make_scenario_cohort")
    data, truth = module.make()
    shipped = pl.read_csv(DATA / "scenario_cohort.csv")
    shipped_truth = pl.read_csv(DATA / "scenario_cohort_truth.csv")
    assert shipped["outcome"].to_list() == data["outcome"].to_list()
    np.testing.assert_allclose(shipped["model_x"].to_numpy(), data["model_x"].to_numpy(), atol=1e-6)
    np.testing.assert_allclose(shipped_truth["true_aucpr"].to_numpy(), truth["true_aucpr"].to_numpy(), rtol=1e-12)
    # the truth is the scenario's true AUCPR at the realised prevalence (fixed class counts)
    counts = shipped.group_by("site").agg(pl.col("outcome").mean().alias("p"))
    for site, p in counts.iter_rows():
        n, prevalence, scen_x, _ = module.SITES[site]
        assert p == pytest.approx(prevalence)
        row = shipped_truth.filter((pl.col("site") == site) & (pl.col("score") == "model_x"))
        assert row["true_aucpr"][0] == pytest.approx(scen_x.true_aucpr(prevalence), rel=1e-9)
