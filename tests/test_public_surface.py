"""One public surface (issue 28, item 7): the same arguments, display methods, randomness and imports everywhere."""

from __future__ import annotations

import ast
import inspect
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

import aucpr_stats
from aucpr_stats import (
    InputError,
    aucpr,
    aucpr_score,
    auroc,
    auroc_score,
    compare,
    cutoffs,
    power,
    pr_curve,
    roc_curve,
    sample_size,
)

ROOT = Path(__file__).resolve().parents[1]


def _cohort(n: int = 400, seed: int = 5) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pl.DataFrame({
        "y": y, "s": rng.normal(size=n) + y, "t": rng.normal(size=n) + 0.5 * y,
        "g": rng.choice(["a", "b"], n), "patient": rng.integers(0, n // 2, n), "w": rng.uniform(0.5, 2.0, n),
    })


# ------------------------------------------------------------------ data arguments
DATA_ARGUMENTS = ("by", "weights", "cluster", "direction", "positive", "negative", "missing", "unused_levels")


@pytest.mark.parametrize("verb", [aucpr, auroc, pr_curve, roc_curve, compare, cutoffs],
                         ids=lambda f: f.__name__)
def test_every_data_verb_takes_the_same_data_arguments(verb):
    parameters = inspect.signature(verb).parameters
    assert [a for a in DATA_ARGUMENTS if a not in parameters] == []
    assert parameters["direction"].default == "higher"
    assert parameters["missing"].default == "error" and parameters["unused_levels"].default == "keep"


@pytest.mark.parametrize("function", [aucpr_score, auroc_score], ids=lambda f: f.__name__)
def test_array_entry_points_name_their_data_arguments(function):
    parameters = inspect.signature(function).parameters
    for name in ("groups", "sample_weight", "clusters", "direction", "positive", "negative", "missing",
                 "unused_levels"):
        assert name in parameters, name
    y, s = [1, 0, 1, 0, 1], [0.1, 0.8, 0.3, 0.9, 0.2]
    assert function(y, s, direction="lower").estimate == function(y, [-v for v in s]).estimate
    with pytest.raises(InputError, match="`weights` is a column name of au(cpr|roc).*pass `sample_weight=`"):
        function(y, s, weights=[1, 1, 1, 1, 1])


def test_negative_and_unused_levels_reach_cutoffs_and_curves():
    df = pl.DataFrame({"y": ["sick", "well", "sick", "other", "well", "sick", "well"],
                       "s": [0.9, 0.2, 0.7, 0.5, 0.4, 0.3, 0.1],
                       "g": pl.Series(["a", "a", "a", "a", "a", "a", "a"], dtype=pl.Enum(["a", "b"]))})
    two = df.filter(pl.col("y") != "other")
    for verb in (cutoffs, pr_curve, roc_curve):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kept = verb(df, "y", "s", by="g", positive="sick", negative="well", missing="drop")
            dropped = verb(df, "y", "s", by="g", positive="sick", negative="well", missing="drop",
                           unused_levels="drop")
        alone = verb(two, "y", "s", positive="sick")
        assert kept.keys["g"].to_list() == ["a", "b"] and dropped.keys["g"].to_list() == ["a"]
        got = dropped.to_polars().drop("g", *(["n_missing"] if verb is cutoffs else []))
        want = alone.to_polars().drop(*(["n_missing"] if verb is cutoffs else []))
        assert got.equals(want), verb.__name__


# ------------------------------------------------------------------ one metric policy
def test_compare_power_and_sample_size_default_to_aucpr_and_say_so():
    for function in (compare, power, sample_size):
        assert inspect.signature(function).parameters["metric"].default == "aucpr"
        assert "aucpr" in (function.__doc__ or "").lower()
    df = _cohort()
    default = compare(df, "y", ["s", "t"], n_boot=200, rng=3)
    explicit = compare(df, "y", ["s", "t"], metric="aucpr", n_boot=200, rng=3)
    assert default.metric == "aucpr" and default.to_polars().equals(explicit.to_polars())
    plan = sample_size(prevalence=0.2, half_width=0.1, n_sim=40, rng=7)
    assert plan.metric == "aucpr"
    assert plan.search.equals(sample_size("aucpr", prevalence=0.2, half_width=0.1, n_sim=40, rng=7).search)


@pytest.mark.parametrize("call,text", [
    (lambda: sample_size(auc=0.8), "`auc` is an argument of metric='auroc'; got metric='aucpr' (the default)"),
    (lambda: power(auc=0.7, n_pos=30, n_neg=90), "pass metric='auroc'"),
    (lambda: sample_size("auroc", auc=0.8, prevalence=0.1), "`prevalence` is an argument of metric='aucpr'"),
    (lambda: compare(_cohort(), "y", ["s", "t"], specificity=(0.8, 1)), "`specificity=` applies to AUROC"),
    (lambda: compare(_cohort(), "y", ["s", "t"], method="delong"), "which compares AUROC: pass metric='auroc'"),
])
def test_an_argument_of_the_other_metric_is_named(call, text):
    with pytest.raises(InputError) as info:
        call()
    assert text in str(info.value)


def test_aucpr_power_is_the_simulated_power_of_that_size():
    plan = sample_size("aucpr", prevalence=0.1, aucpr=0.2, power=0.8, n_sim=100, rng=1)
    row = plan.search.row(0, named=True)  # the first pilot size
    at = power(aucpr=0.2, n_pos=row["n_pos"], n_neg=row["n_neg"], n_sim=100, rng=1)
    # the studies of a size depend only on the seed and the size: the same simulated power
    assert at.power == row["power"] and at.power_se == row["power_se"]
    assert at.metric == "aucpr" and at.kind == "power" and at.true_aucpr == pytest.approx(0.2928, abs=1e-4)
    far = power(aucpr=0.02, n_pos=200, n_neg=1800, n_sim=50, rng=1)
    assert far.power == 1.0  # an interval around 0.29 from 200 positives never reaches 0.02
    with pytest.raises(InputError, match="whole number"):
        power(aucpr=0.2, n_pos=60.5, n_neg=540)
    with pytest.raises(InputError, match="`aucpr` is required"):
        power(n_pos=60, n_neg=540)


# ------------------------------------------------------------------ rng (SPEC 7)
def _random_calls():
    df = _cohort()
    curve = pr_curve(df, "y", "s", by="g")
    roc = roc_curve(df, "y", "s", by="g")
    grouped = compare(df, "y", ["s", "t"], by="g", n_boot=100, rng=1)
    return {
        "compare": lambda **r: compare(df, "y", ["s", "t"], by="g", n_boot=100, **r).to_polars(),
        "PrCurveResult.band": lambda **r: curve.band(n_boot=100, grid=11, **r).to_polars(),
        "RocCurveResult.band": lambda **r: roc.band(n_boot=100, grid=11, **r).to_polars(),
        "RocCurveResult.intervals": lambda **r: roc.intervals(specificity=[0.8, 0.9], n_boot=100, **r).to_polars(),
        "sample_size": lambda **r: sample_size(prevalence=0.2, half_width=0.1, n_sim=40, **r).search,
        "power": lambda **r: power(aucpr=0.3, n_pos=50, n_neg=200, n_sim=40, **r).to_polars(),
        "interaction": lambda **r: grouped.interaction(max_units=5, **r).to_polars(),
    }


CALLS = _random_calls()


@pytest.mark.parametrize("name", list(CALLS))
def test_rng_and_its_alias_seed_give_identical_frames_and_both_at_once_is_an_error(name):
    call = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_rng = call(rng=5)
        assert by_rng.equals(call(seed=5))
        assert by_rng.equals(call(rng=np.random.default_rng(5)))
        assert not by_rng.equals(call(rng=6))  # the interaction: random groups of a class above max_units
    with pytest.raises(InputError, match="give the randomness once, as `rng`"):
        call(rng=5, seed=5)


# ------------------------------------------------------------------ display methods
def _every_result():
    df = _cohort(200)
    curve = pr_curve(df, "y", "s", by="g")
    roc = roc_curve(df, "y", "s")
    comparison = compare(df, "y", ["s", "t"], by="g", metric="auroc")
    return {
        "AucprResult": aucpr(df, "y", "s", by="g"),
        "AurocResult": auroc(df, "y", "s"),
        "PrCurveResult": curve,
        "RocCurveResult": roc,
        "BandResult": curve.band(n_boot=50, grid=5, rng=1),
        "RocBandResult": roc.band(n_boot=50, grid=5, rng=1),
        "CutoffResult": cutoffs(df, "y", "s", by="g"),
        "ComparisonResult": comparison,
        "HeterogeneityResult": comparison.interaction(),
        "PlanResult": sample_size("auroc", auc=0.8),
        "PublicationTable": aucpr(df, "y", "s", by="g").table(),
    }


RESULTS = _every_result()
TABLES = ("AucprResult", "AurocResult", "CutoffResult", "ComparisonResult")


@pytest.mark.parametrize("name", list(RESULTS))
def test_every_result_type_has_the_display_methods(name):
    result = RESULTS[name]
    assert type(result).__name__ == name
    polars_frame = result.to_polars()
    assert isinstance(polars_frame, pl.DataFrame) and polars_frame.height > 0
    assert as_polars_frame(result.to_frame()).equals(polars_frame)
    text = result.summary()
    assert isinstance(text, str) and len(text.splitlines()) >= 2
    assert "<table" in result._repr_html_()
    if name in TABLES:
        table = result.table()
        assert type(table).__name__ == "PublicationTable" and table.to_polars().height > 0


def as_polars_frame(frame) -> pl.DataFrame:
    return pl.from_pandas(frame) if isinstance(frame, pd.DataFrame) else frame


def test_every_result_type_is_exported_from_the_top_level():
    for name in RESULTS:
        assert getattr(aucpr_stats, name) is type(RESULTS[name]), name


# ------------------------------------------------------------------ imports in docs
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "tutorials").glob("*.py"))]
#: Pages that explain the package's inside (how to add an estimator, a method, a backend): they name modules.
INSIDE_PAGES = {"architecture.md", "intervals.md", "simulation.md", "validation.md", "api.md"}


def _code(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    if page.suffix == ".py":
        return [text]
    return re.findall(r"^```python[^\n]*\n(.*?)^```", text, flags=re.S | re.M)


@pytest.mark.parametrize("page", [p for p in DOC_FILES if p.name not in INSIDE_PAGES],
                         ids=lambda p: p.name)
def test_user_docs_import_from_the_top_level_only(page):
    deep = []
    for code in _code(page):
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("aucpr_stats."):
                deep.append(node.module)
            if isinstance(node, ast.Import):
                deep += [a.name for a in node.names if a.name.startswith("aucpr_stats.")]
    assert deep == [], f"{page.name} imports {deep}: import from aucpr_stats itself"


def test_every_name_a_user_needs_is_exported():
    for name in ("aucpr", "auroc", "pr_curve", "roc_curve", "compare", "cutoffs", "power", "sample_size",
                 "aucpr_score", "auroc_score", "sql_input", "publication_table", "comparison_table", "forest_plot",
                 "plot_curve", "plot_band", "DirectionWarning", "MissingKeyWarning", "TieTableTooLarge",
                 "SmallSampleWarning", "DegenerateGroupWarning", "BandResult", "RocBandResult", "pr_points"):
        assert name in aucpr_stats.__all__ and hasattr(aucpr_stats, name), name
