"""Curves on a grid (``pr_curve(..., grid=)``, ``roc_curve(..., grid=)``): exact at the grid, bounded on engines.

Oracle: the same curve with every point (``grid=None``), itself checked
against scikit-learn and the brute-force formulas in tests/test_curves.py.
At recalls (false positive rates) ``m / grid`` both evaluation methods must
give the full curve's values exactly, every kept point must be a point of
the full curve, and an engine must thin its cells to the table the
in-memory code thins to.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from aucpr_stats import pr_curve, roc_curve
from aucpr_stats.exceptions import InputError, InputTypeError
from tests.backend_cases import cohort, with_missing

duckdb = pytest.importorskip("duckdb")


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups without both classes
        return call(*args, **kwargs)


def assert_exact_at_the_grid(frame: pl.DataFrame, grid: int, by, **kw) -> None:
    """Both curves, both methods: the thinned curve at m / grid equals the full curve; its points are the full curve's.

    Weighted counts are summed in another order once rows are merged, so they agree to rounding (1e-12).
    """
    at = np.arange(grid + 1) / grid
    exact = dict(check_exact=True) if kw.get("weights") is None else dict(check_exact=False, rel_tol=1e-12)
    for make in (pr_curve, roc_curve):
        full = _quiet(make, frame, "y", "s", by=by, **kw)
        thin = _quiet(make, frame, "y", "s", by=by, grid=grid, **kw)
        for method in ("step", "interpolated"):
            assert_frame_equal(thin.evaluate(at, method=method), full.evaluate(at, method=method), **exact)
        # every kept point is a point of the full curve: the same threshold, the same columns
        points, kept = full.to_frame(), thin.to_frame()
        on = [c for c in kept.columns if c in (*([by] if isinstance(by, str) else by or []), "threshold")]
        matched = kept.join(points, on=on, how="left", nulls_equal=True, suffix="_full")
        assert matched.height == kept.height
        for column in kept.columns:
            if column not in on:
                assert_frame_equal(matched.select(column), matched.select(pl.col(f"{column}_full").alias(column)),
                                   **exact)
        assert thin.ties.n_rows <= (8 * grid + 1) * thin.ties.n_segments
        assert thin.ties.thinned(grid).n_rows == thin.ties.n_rows  # thinning twice changes nothing


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 12), st.integers(0, 2)), min_size=2, max_size=80),
       st.integers(1, 12), st.sampled_from(["interpolate", "published"]))
def test_exact_at_the_grid_on_random_tables(rows, grid, ties):
    """Heavy ties (within and across classes), up to three groups, some with one class."""
    frame = pl.DataFrame(rows, schema={"y": pl.Boolean, "s": pl.Int64, "g": pl.Int64}, orient="row")
    if frame["y"].n_unique() < 2:
        return
    at = np.arange(grid + 1) / grid
    full = _quiet(pr_curve, frame, "y", "s", by="g", ties=ties)
    thin = _quiet(pr_curve, frame, "y", "s", by="g", ties=ties, grid=grid)
    for method in ("step", "interpolated"):
        assert_frame_equal(thin.evaluate(at, method=method), full.evaluate(at, method=method))
    assert_exact_at_the_grid(frame, grid, "g")


@pytest.mark.parametrize("grid", [1, 4, 20, 100])
def test_continuous_scores_shrink_to_the_grid(grid):
    rng = np.random.default_rng(grid)
    n = 20_000
    y = rng.random(n) < 0.2
    frame = pl.DataFrame({"y": y, "s": rng.normal(size=n) + y, "g": rng.integers(0, 3, n)})
    assert_exact_at_the_grid(frame, grid, "g")
    assert _quiet(pr_curve, frame, "y", "s", by="g", grid=grid).ties.n_rows <= 3 * (8 * grid + 1)


def test_weighted_and_reweighted_curves():
    """Float counts (weights=, prevalence=): the same exactness."""
    rng = np.random.default_rng(7)
    n = 3000
    y = rng.random(n) < 0.3
    frame = pl.DataFrame({"y": y, "s": np.round(rng.normal(size=n) + y, 2), "w": rng.uniform(0.2, 3.0, n)})
    assert_exact_at_the_grid(frame, 25, None, weights="w")
    at = np.arange(26) / 25
    full, thin = pr_curve(frame, "y", "s", prevalence=0.05), pr_curve(frame, "y", "s", prevalence=0.05, grid=25)
    assert_frame_equal(thin.evaluate(at), full.evaluate(at), check_exact=False, rel_tol=1e-12)


CASES = {
    "missing values dropped, null key, several scores": (
        lambda: with_missing(cohort()).with_columns(s3=pl.col("s2") + pl.col("s") / 1000), "site",
        {"missing": "drop", "score": ["s", "s3"]}),
    "two keys": (cohort, ["site", "sex"], {"score": "s2"}),
    "string outcome": (cohort, None, {"positive": "case", "negative": "control", "missing": "drop",
                                      "outcome": "label", "score": "s2"}),
}


def assert_engine_equal(to_engine, name: str, grid: int) -> None:
    """The engine's thinned cells give exactly the in-memory thinned curve (points and evaluations)."""
    make, by, kw = CASES[name]
    kw = dict(kw)
    frame = make()
    outcome, score = kw.pop("outcome", "y"), kw.pop("score")
    for curve in (pr_curve, roc_curve):
        want = _quiet(curve, frame, outcome, score, by=by, grid=grid, **kw)
        got = _quiet(curve, to_engine(frame), outcome, score, by=by, grid=grid, **kw)
        assert_frame_equal(got.to_frame(), want.to_frame())
        assert_frame_equal(got.evaluate([0.0, 0.25, 0.5, 1.0]), want.evaluate([0.0, 0.25, 0.5, 1.0]))


@pytest.mark.parametrize("grid", [1, 5, 40])
@pytest.mark.parametrize("name", list(CASES))
def test_duckdb_thins_before_collecting(name, grid):
    assert_engine_equal(lambda frame: duckdb.from_arrow(frame.to_arrow()), name, grid)


def test_bounded_on_an_engine():
    """Only the thinned cells are collected: a limit below the full table but above 8 grid + 1 per group."""
    from aucpr_stats import sql_input
    from aucpr_stats import TieTableTooLarge

    rel = duckdb.sql("SELECT (i % 4 = 0)::INT AS y, random() + (i % 4 = 0)::INT AS s, i % 3 AS g "
                     "FROM range(30000) t(i)")
    limited = sql_input(rel, max_tie_rows=3 * (8 * 50 + 1))
    curve = pr_curve(limited, "y", "s", by="g", grid=50)
    assert curve.ties.n_rows <= 3 * (8 * 50 + 1)
    with pytest.raises(TieTableTooLarge, match="tie table"):
        pr_curve(limited, "y", "s", by="g")
    with pytest.raises(TieTableTooLarge, match=r"curve thinned to grid=2000 \(at most 16,001 points per group\)"):
        roc_curve(limited, "y", "s", by="g", grid=2000)


def test_refusals():
    frame = cohort()
    thin = pr_curve(frame, "y", "s", grid=10)
    assert thin.options["grid"] == 10
    with pytest.raises(InputError, match=r"keeps only the points at a grid \(grid=10\)"):
        thin.band(n_boot=10, seed=1)
    roc = roc_curve(frame, "y", "s", grid=10)
    with pytest.raises(InputError, match="grid=10"):
        roc.band(n_boot=10, seed=1)
    with pytest.raises(InputError, match="grid=10"):
        roc.intervals(specificity=[0.9], n_boot=10, seed=1)
    with pytest.raises(InputError, match="`grid=` and `cluster=` cannot be combined"):
        roc_curve(frame, "y", "s", cluster="site", grid=10)
    with pytest.raises(InputError, match="`grid` must be at least 1"):
        pr_curve(frame, "y", "s", grid=0)
    with pytest.raises(InputError, match="`grid` must be at most 1,000,000"):
        pr_curve(frame, "y", "s", grid=10**7)
    with pytest.raises(InputTypeError, match="`grid`"):
        pr_curve(frame, "y", "s", grid=2.5)
