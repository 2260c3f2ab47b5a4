"""Multiclass areas: points against scikit-learn and pROC, intervals against the binary machinery and brute force."""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from aucpr_stats import aucpr, auroc, compare
from aucpr_stats.exceptions import (ColumnNotFoundError, DegenerateGroupWarning, InputError, MissingValueError,
                                    OutcomeError, SmallSampleWarning)

REFERENCE = pathlib.Path(__file__).parent / "reference"
DATASETS = ["k3_balanced", "k4_imbalanced", "k5_ties", "k3_separated", "iris"]

pytestmark = pytest.mark.filterwarnings("ignore::aucpr_stats.exceptions.SmallSampleWarning")


def load(name: str) -> pl.DataFrame:
    return pl.read_csv(REFERENCE / f"multiclass_data_{name}.csv")


def levels_of(frame: pl.DataFrame) -> list:
    return sorted(frame["y"].unique().to_list())


def matrix(frame: pl.DataFrame, prefix: str = "p") -> np.ndarray:
    return frame.select([f"{prefix}_{v}" for v in levels_of(frame)]).to_numpy()


def column(result, name: str = "estimate", model: str | None = None) -> dict:
    frame = result.to_polars() if hasattr(result, "to_polars") else result
    if model is not None:
        frame = frame.filter(pl.col("score") == model)
    return dict(zip(frame["class"], frame[name]))


def as_polars(value) -> pl.DataFrame:
    """A binary result's frame (conf_int hands back a frame; comparisons a result)."""
    return value if isinstance(value, pl.DataFrame) else value.to_polars()


# ---------------------------------------------------------------- point values
@pytest.mark.parametrize("name", [n for n in DATASETS if n != "k5_ties"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_one_vs_rest_auroc_equals_scikit_learn(name, average):
    frame = load(name)
    y, p = frame["y"].to_numpy(), matrix(frame)
    got = auroc(frame, "y", "p_{level}", multiclass="ovr", average=average)
    assert got.estimate == pytest.approx(roc_auc_score(y, p, multi_class="ovr", average=average), abs=1e-12)
    per_class = roc_auc_score(y, p, multi_class="ovr", average=None)
    values = column(got)
    assert [values[str(v)] for v in levels_of(frame)] == pytest.approx(list(per_class), abs=1e-12)


@pytest.mark.parametrize("name", [n for n in DATASETS if n != "k5_ties"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_pairs_equal_scikit_learn_one_vs_one(name, average):
    frame = load(name)
    y, p = frame["y"].to_numpy(), matrix(frame)
    got = auroc(frame, "y", "p_{level}", multiclass="ovo", average=average)
    assert got.estimate == pytest.approx(roc_auc_score(y, p, multi_class="ovo", average=average), abs=1e-12)


@pytest.mark.parametrize("name", DATASETS)
def test_micro_auroc_is_the_binary_area_of_the_stacked_cells(name):
    frame = load(name)
    y, p = frame["y"].to_numpy(), matrix(frame)
    indicator = (y[:, None] == np.array(levels_of(frame))[None, :]).astype(int)
    got = auroc(frame, "y", "p_{level}", multiclass="ovr", average="micro")
    assert got.estimate == pytest.approx(roc_auc_score(indicator.ravel(), p.ravel()), abs=1e-12)


@pytest.mark.parametrize("name", DATASETS)
def test_average_precision_published_equals_scikit_learn_in_every_row(name):
    frame = load(name)
    y, p = frame["y"].to_numpy(), matrix(frame)
    indicator = (y[:, None] == np.array(levels_of(frame))[None, :]).astype(int)
    got = column(aucpr(frame, "y", "p_{level}", multiclass="ovr", average="all", ties="published"))
    per_class = average_precision_score(indicator, p, average=None)
    assert [got[str(v)] for v in levels_of(frame)] == pytest.approx(list(per_class), abs=1e-12)
    for average in ("macro", "weighted", "micro"):
        assert got[average] == pytest.approx(average_precision_score(indicator, p, average=average), abs=1e-12)


def test_tie_aware_average_precision_differs_only_where_a_tie_holds_both_classes():
    frame = load("k5_ties")
    published = column(aucpr(frame, "y", "p_{level}", multiclass="ovr", ties="published"))
    aware = column(aucpr(frame, "y", "p_{level}", multiclass="ovr"))
    assert published != aware  # every column has ties across classes after rounding
    separated = load("k3_separated")
    assert column(aucpr(separated, "y", "p_{level}", multiclass="ovr", ties="published"))["3"] == 1.0


PROC = json.loads((REFERENCE / "multiclass_reference.json").read_text())


@pytest.mark.parametrize("name,model", [(n, m) for n, d in PROC["datasets"].items() for m in d["models"]])
def test_hand_till_equals_proc_multiclass_roc(name, model):
    """pROC 1.18 ``multiclass.roc(response, matrix)``: M and every pair's two directions, to 1e-12."""
    reference = PROC["datasets"][name]["models"][model]["multivariate"]
    frame = load(name)
    got = auroc(frame, "y", f"{model}_{{level}}", multiclass="hand_till")
    assert got.estimate == pytest.approx(reference["auc"], abs=1e-12)
    pairs = column(got)
    for pair in reference["pairs"]:
        label = f"{pair['level_i']} vs {pair['level_j']}"
        assert pairs[label] == pytest.approx(pair["mean_auc"], abs=1e-12)
        # each direction: pROC's control is the column's own class (direction ">")
        for roc in pair["rocs"]:
            own, other = roc["control"], roc["case"]
            binary = frame.filter(pl.col("y").cast(pl.String).is_in([str(own), str(other)]))
            value = auroc(binary.with_columns(own=pl.col("y").cast(pl.String) == str(own)), "own",
                          roc["predictor_column"]).estimate
            assert value == pytest.approx(roc["auc"], abs=1e-12)


# ---------------------------------------------------------------- intervals
@pytest.mark.parametrize("name", ["k3_balanced", "k4_imbalanced", "k5_ties"])
def test_each_class_delong_interval_is_the_binary_one(name):
    frame = load(name)
    got = auroc(frame, "y", "p_{level}", multiclass="ovr").conf_int().to_polars()
    for level in levels_of(frame):
        binary = auroc(frame.with_columns(case=pl.col("y") == level), "case", f"p_{level}").conf_int("delong")
        row = got.filter(pl.col("class") == str(level))
        for name_ in ("estimate", "se", "lower", "upper"):
            assert row[name_][0] == pytest.approx(as_polars(binary)[name_][0], abs=1e-14)


def test_each_class_paired_difference_is_delongs_paired_test():
    frame = load("k3_balanced")
    result = auroc(frame, "y", {"p": "p_{level}", "q": "q_{level}"}, multiclass="ovr", average="macro")
    got = result.compare(method="delong").to_polars()
    for level in levels_of(frame):
        binary = compare(frame.with_columns(case=pl.col("y") == level), "case", [f"p_{level}", f"q_{level}"],
                         metric="auroc", method="delong")
        binary = as_polars(binary)
        row = got.filter(pl.col("class") == str(level))
        assert row["difference"][0] == pytest.approx(binary["difference"][0], abs=1e-14)
        assert row["p_value"][0] == pytest.approx(binary["p_value"][0], rel=1e-10)
        assert row["se"][0] == pytest.approx(binary["se"][0], rel=1e-10)


def brute_force_influence(y: np.ndarray, p: np.ndarray, k: int) -> tuple[float, np.ndarray]:
    """A one-vs-rest area and each row's linearisation term, from every pair of rows (the paper's sums)."""
    cases, controls = np.flatnonzero(y == k), np.flatnonzero(y != k)
    kernel = (p[cases, k][:, None] > p[controls, k][None, :]) + 0.5 * (p[cases, k][:, None] == p[controls, k][None, :])
    area = kernel.mean()
    phi = np.zeros(y.size)
    phi[cases] = (kernel.mean(axis=1) - area) / cases.size
    phi[controls] = (kernel.mean(axis=0) - area) / controls.size
    return area, phi


@pytest.mark.parametrize("name", ["k3_balanced", "k4_imbalanced"])
def test_macro_and_weighted_delong_variance_from_every_pair(name):
    """The macro and weighted averages' variance: the rows' summed terms, n/(n-1), from a pairwise oracle."""
    frame = load(name)
    levels = levels_of(frame)
    y = np.searchsorted(levels, frame["y"].to_numpy())
    p = matrix(frame)
    n, n_levels = y.size, len(levels)
    areas, phis = zip(*(brute_force_influence(y, p, k) for k in range(n_levels)))
    share = np.bincount(y, minlength=n_levels) / n
    macro_phi = np.mean(phis, axis=0)
    weighted_phi = np.sum(share[:, None] * np.array(phis), axis=0)  # class counts fixed (stratified design)
    got = column(auroc(frame, "y", "p_{level}", multiclass="ovr", average=["macro", "weighted"]).conf_int(), "se")
    assert got["macro"] == pytest.approx(np.sqrt(n / (n - 1) * np.sum(macro_phi**2)), rel=1e-12)
    assert got["weighted"] == pytest.approx(np.sqrt(n / (n - 1) * np.sum(weighted_phi**2)), rel=1e-12)


def test_delong_and_bootstrap_standard_errors_agree():
    frame = load("iris")
    result = auroc(frame, "y", "p_{level}", multiclass="ovr", average="all")
    delong = column(result.conf_int("delong"), "se")
    boot = column(result.conf_int("bootstrap", n_boot=3000, seed=3), "se")
    for name in ("versicolor", "virginica", "macro", "weighted", "micro"):
        assert boot[name] == pytest.approx(delong[name], rel=0.15)


def test_two_classes_macro_se_is_the_binary_se():
    """With K = 2 and p_1 = 1 - p_0 the two one-vs-rest areas are one area: the macro's variance is its own."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    p0 = 1 / (1 + np.exp(-(1.2 * (y == 0) + rng.normal(size=300))))
    frame = pl.DataFrame({"y": y, "p_0": p0, "p_1": 1 - p0})
    got = column(auroc(frame, "y", "p_{level}", multiclass="ovr", average="macro").conf_int(), "se")
    binary = auroc(frame.with_columns(case=pl.col("y") == 0), "case", "p_0").conf_int("delong")["se"][0]
    assert got["0"] == pytest.approx(binary, rel=1e-12)
    assert got["macro"] == pytest.approx(binary, rel=0.01)  # n/(n-1) for the average, per class for one area


def test_cluster_delong_of_one_class_is_obuchowski():
    rng = np.random.default_rng(5)
    n = 400
    cluster = np.repeat(np.arange(100), 4)
    frailty = rng.normal(size=100)[cluster]
    y = rng.integers(0, 3, n)
    z = rng.normal(size=(n, 3)) + 1.3 * (y[:, None] == np.arange(3)) + frailty[:, None] * np.array([1, 0, -1])
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    frame = pl.DataFrame({"y": y, "c": cluster, **{f"p_{k}": p[:, k] for k in range(3)}})
    got = column(auroc(frame, "y", "p_{level}", multiclass="ovr", cluster="c").conf_int(), "se")
    for k in range(3):
        binary = auroc(frame.with_columns(case=pl.col("y") == k), "case", f"p_{k}", cluster="c")
        assert got[str(k)] == pytest.approx(binary.conf_int("obuchowski")["se"][0], rel=1e-12)


def test_bootstrap_reproducible_and_independent_of_other_groups_and_frame_type():
    frame = pl.concat([load("k3_balanced").with_columns(site=pl.lit(s)) for s in ("x", "y", "z")])
    frame = frame.with_columns(pl.col("p_a") + np.random.default_rng(0).normal(0, 0.01, frame.height))
    one = auroc(frame, "y", "p_{level}", "site", multiclass="ovr", average="all").conf_int("bootstrap", n_boot=200,
                                                                                           seed=11).to_polars()
    alone = auroc(frame.filter(pl.col("site") == "y"), "y", "p_{level}", "site", multiclass="ovr",
                  average="all").conf_int("bootstrap", n_boot=200, seed=11).to_polars()
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=2).to_pandas()
    again = auroc(shuffled, "y", "p_{level}", "site", multiclass="ovr", average="all").conf_int(
        "bootstrap", n_boot=200, seed=11).to_frame()
    assert isinstance(again, pd.DataFrame)
    np.testing.assert_array_equal(one.filter(pl.col("site") == "y")["lower"].to_numpy(), alone["lower"].to_numpy())
    np.testing.assert_array_equal(one["upper"].to_numpy(), again["upper"].to_numpy())


def test_perfectly_separated_class_takes_newcombe_and_the_average_says_so():
    frame = load("k3_separated")
    got = auroc(frame, "y", "p_{level}", multiclass="ovr", average="macro").conf_int().to_polars()
    separated = got.filter(pl.col("class") == "3")
    assert separated["estimate"][0] == 1.0 and separated["lower"][0] < 1.0
    assert "Newcombe" in separated["note"][0]
    assert "adds no variance" in got.filter(pl.col("class") == "macro")["note"][0]
    boot = aucpr(frame, "y", "p_{level}", multiclass="ovr", average="all").conf_int(n_boot=200, seed=1)
    assert np.isfinite(boot.to_polars()["lower"].to_numpy()).all()


# ---------------------------------------------------------------- groups, weights, formula
def test_grouped_rows_equal_separate_calls_and_weights_match_scikit_learn():
    frame = load("iris").with_columns(site=pl.int_range(pl.len()) % 3, w=(pl.int_range(pl.len()) % 4 + 1) * 0.5)
    grouped = auroc(frame, "y", "p_{level}", "site", multiclass="ovr", average="all").to_polars()
    for site in range(3):
        alone = auroc(frame.filter(pl.col("site") == site), "y", "p_{level}", multiclass="ovr", average="all")
        np.testing.assert_array_equal(grouped.filter(pl.col("site") == site)["estimate"].to_numpy(),
                                      alone.to_polars()["estimate"].to_numpy())
    y, p, w = frame["y"].to_numpy(), matrix(frame), frame["w"].to_numpy()
    weighted = auroc(frame, "y", "p_{level}", multiclass="ovr", average="weighted", weights="w").estimate
    assert weighted == pytest.approx(roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=w),
                                     abs=1e-12)
    indicator = (y[:, None] == np.array(levels_of(frame))[None, :]).astype(int)
    ap = aucpr(frame, "y", "p_{level}", multiclass="ovr", average="macro", weights="w", ties="published").estimate
    assert ap == pytest.approx(average_precision_score(indicator, p, average="macro", sample_weight=w), abs=1e-12)


def test_formula_and_dict_and_plain_columns_mean_the_same():
    frame = load("k3_balanced")
    template = auroc(frame, "y", "p_{level}", multiclass="ovr", average="macro").estimate
    mapping = auroc(frame, "y", {"a": "p_a", "b": "p_b", "c": "p_c"}, multiclass="ovr", average="macro").estimate
    formula = auroc("y ~ p_c + p_a + p_b", data=frame, multiclass="ovr", average="macro").estimate
    assert template == mapping == formula


@given(st.permutations(range(60)), st.sampled_from(["ovr", "hand_till"]))
@settings(max_examples=15, deadline=None)
def test_row_order_and_monotone_rescaling_of_a_column_change_nothing(order, scheme):
    frame = load("k3_balanced")
    base = auroc(frame, "y", "p_{level}", multiclass=scheme, average="macro").conf_int().to_polars()
    moved = frame[list(order)].with_columns(p_a=pl.col("p_a") ** 3 * 10)  # monotone: the areas are ranks
    again = auroc(moved, "y", "p_{level}", multiclass=scheme, average="macro").conf_int().to_polars()
    np.testing.assert_allclose(again["estimate"].to_numpy(), base["estimate"].to_numpy(), atol=1e-15)
    np.testing.assert_allclose(again["se"].to_numpy(), base["se"].to_numpy(), rtol=1e-12)


# ---------------------------------------------------------------- bad input and degenerate groups
def test_a_class_absent_from_a_group_gives_nan_rows_with_notes_and_one_warning():
    frame = load("k3_balanced").with_columns(site=pl.when(pl.col("y") == "c").then(0).otherwise(
        pl.int_range(pl.len()) % 2))
    frame = frame.filter(~((pl.col("site") == 1) & (pl.col("y") == "c")))
    with pytest.warns(DegenerateGroupWarning, match="undefined"):
        got = auroc(frame, "y", "p_{level}", "site", multiclass="ovr", average="all").to_polars()
    site1 = got.filter(pl.col("site") == 1)
    assert np.isnan(site1.filter(pl.col("class") == "c")["estimate"][0])
    assert site1.filter(pl.col("class") == "c")["note"][0] == "no rows of class 'c'"
    assert "no rows of class 'c'" in site1.filter(pl.col("class") == "macro")["note"][0]
    assert np.isfinite(site1.filter(pl.col("class") == "weighted")["estimate"][0])  # class c's weight is 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        result = auroc(frame, "y", "p_{level}", "site", multiclass="ovr", average="all")
    ci = result.conf_int().to_polars()
    assert np.isnan(ci.filter((pl.col("site") == 1) & (pl.col("class") == "c"))["lower"][0])


def test_bad_input_is_refused_clearly():
    frame = load("k3_balanced")
    with pytest.raises(ColumnNotFoundError, match="'p_b'"):
        auroc(frame.drop("p_b"), "y", "p_{level}", multiclass="ovr")
    with pytest.raises(OutcomeError, match="one level|1 level"):
        auroc(frame.with_columns(y=pl.lit("a")), "y", "p_{level}", multiclass="ovr")
    with pytest.raises(MissingValueError, match="'p_a' holds 1 missing"):
        auroc(frame.with_columns(p_a=pl.when(pl.int_range(pl.len()) == 3).then(None).otherwise(pl.col("p_a"))),
              "y", "p_{level}", multiclass="ovr")
    with pytest.raises(InputError, match="ambiguous|both end"):
        auroc(frame.with_columns(xa=pl.col("p_a")), "y", ["p_a", "p_b", "xa"], multiclass="ovr")
    with pytest.raises(InputError, match="auroc only"):
        aucpr(frame, "y", "p_{level}", multiclass="ovo")
    with pytest.raises(InputError, match="micro"):
        auroc(frame, "y", "p_{level}", multiclass="ovo", average="micro")
    with pytest.raises(InputError, match="`positive` is not defined"):
        auroc(frame, "y", "p_{level}", multiclass="ovr", positive="a")
    with pytest.raises(InputError, match="method='bootstrap'"):
        aucpr(frame, "y", "p_{level}", multiclass="ovr").conf_int("delong")
    with pytest.raises(InputError, match="two models"):
        auroc(frame, "y", "p_{level}", multiclass="ovr").compare()
    with pytest.raises(OutcomeError, match="level 'd'"):
        auroc(frame.with_columns(y=pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("d")).otherwise("y")), "y",
              {"a": "p_a", "b": "p_b", "c": "p_c"}, multiclass="ovr")


def test_missing_rows_dropped_and_counted_and_off_simplex_rows_noted():
    frame = load("k5_ties").with_columns(
        p_a=pl.when(pl.int_range(pl.len()) < 3).then(float("nan")).otherwise(pl.col("p_a")))
    got = auroc(frame, "y", "p_{level}", multiclass="ovr", average="all", missing="drop").to_polars()
    assert (got["n_missing"] == 3).all() and (got["n"] == 97).all()
    assert "not probabilities summing to 1" in got.filter(pl.col("class") == "micro")["note"][0]


def test_small_classes_are_noted_and_warned():
    frame = load("k4_imbalanced")
    with pytest.warns(SmallSampleWarning):
        got = auroc(frame, "y", "p_{level}", multiclass="ovr", average="macro").conf_int().to_polars()
    flagged = dict(zip(got["class"], got["note"].str.contains("small sample")))
    assert flagged == {"1": True, "2": True, "3": True, "4": True, "macro": True}  # 40, 15, 8, 5 cases (< 50)
    wine = pl.read_csv(REFERENCE.parents[1] / "data" / "wine_oof.csv")
    rows = auroc(wine, "cultivar", "short_{level}", multiclass="ovr").conf_int().to_polars()
    noted = dict(zip(rows["class"], rows["note"].fill_null("").str.contains("small sample")))
    assert noted == {"barbera": True, "barolo": False, "grignolino": False}  # 48, 59, 71 cases


def test_curves_figure_has_one_line_per_class():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    frame = load("iris")
    figure = auroc(frame, "y", "p_{level}", multiclass="ovr").plot()
    assert len(figure.axes[0].get_lines()) == 3 + 1  # three classes and the diagonal
    figure = aucpr(frame, "y", "p_{level}", multiclass="ovr").plot()
    assert len(figure.axes[0].get_lines()) == 3 + 3  # three classes and their prevalences
    with pytest.raises(InputError, match="one-vs-rest"):
        auroc(frame, "y", "p_{level}", multiclass="ovo").plot()


# ---------------------------------------------------------------- inputs and the command line
def test_every_input_type_gives_the_same_numbers_and_declared_levels_keep_their_order():
    duckdb = pytest.importorskip("duckdb")
    frame = load("k4_imbalanced").with_columns(site=pl.int_range(pl.len()) % 2)
    base = auroc(frame, "y", "p_{level}", "site", multiclass="ovr", average="all").conf_int().to_polars()
    for data in (frame.lazy(), frame.to_arrow(), frame.to_pandas(), duckdb.from_arrow(frame.to_arrow())):
        got = auroc(data, "y", "p_{level}", "site", multiclass="ovr", average="all").conf_int().to_polars()
        np.testing.assert_array_equal(got["estimate"].to_numpy(), base["estimate"].to_numpy())
        np.testing.assert_array_equal(got["se"].to_numpy(), base["se"].to_numpy())
    table = frame.to_pandas()
    table["y"] = pd.Categorical(table["y"].astype(str), categories=["4", "3", "2", "1", "5"])
    got = auroc(table, "y", "p_{level}", multiclass="ovr").to_frame()
    assert got["class"].tolist() == ["4", "3", "2", "1"]  # "5" has no rows and no column: left out
    table["p_5"] = 0.0
    with pytest.warns(DegenerateGroupWarning):
        got = auroc(table, "y", "p_{level}", multiclass="ovr", average="macro").to_frame()
    assert got["class"].tolist() == ["4", "3", "2", "1", "5", "macro"]
    assert got["note"].tolist()[-2:] == ["no rows of class '5'", "undefined: no rows of class '5'"]


def test_command_line(tmp_path, capsys):
    from aucpr_stats.cli import main

    path = REFERENCE / "multiclass_data_k3_balanced.csv"
    out = tmp_path / "table.md"
    assert main([str(path), "--outcome", "y", "--score", "p_{level}", "q_{level}", "--multiclass", "ovr",
                 "--metric", "auroc", "-o", str(out)]) == 0
    text = out.read_text()
    assert "p: AUROC (95% CI)" in text and "Macro average" in text
    assert main([str(path), "--formula", "y ~ p_a + p_b + p_c", "--multiclass", "hand_till", "--raw",
                 "--format", "csv"]) == 0
    raw = pl.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    expected = PROC["datasets"]["k3_balanced"]["models"]["p"]["multivariate"]["auc"]
    assert raw.filter(pl.col("class") == "macro")["estimate"][0] == pytest.approx(expected, abs=1e-12)
    assert main([str(path), "--outcome", "y", "--score", "p_{level}", "--multiclass", "ovr", "--positive",
                 "a"]) == 2
    assert "--positive is not defined with --multiclass" in capsys.readouterr().err
    assert main([str(path), "--outcome", "y", "--score", "p_{level}", "q_{level}", "--multiclass", "ovr",
                 "--metric", "aucpr", "--compare", "--seed", "3", "--n-boot", "200", "--format", "csv"]) == 0
    compared = pl.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert set(compared["class"]) == {"a", "b", "c", "macro", "weighted", "micro"}
    assert (compared["method"] == "bootstrap").all()


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=10, deadline=None)
def test_bootstrap_does_not_depend_on_row_order_threads_or_frame(seed):
    frame = load("k5_ties")
    first = aucpr(frame, "y", "p_{level}", multiclass="ovr", average="all").conf_int(n_boot=60, seed=seed)
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed % 1000).to_pandas()
    second = aucpr(shuffled, "y", "p_{level}", multiclass="ovr", average="all").conf_int(n_boot=60, seed=seed)
    np.testing.assert_array_equal(first.lower, second.lower)
    np.testing.assert_array_equal(first.upper, second.upper)


def test_weighted_class_interval_is_the_binary_weighted_delong():
    wine = pl.read_csv(REFERENCE.parents[1] / "data" / "wine_oof.csv").with_columns(
        w=(pl.int_range(pl.len()) % 4 + 1) * 0.5)
    got = auroc(wine, "cultivar", "short_{level}", multiclass="ovr", weights="w").conf_int().to_polars()
    for level in ("barbera", "barolo", "grignolino"):
        binary = auroc(wine.with_columns(case=pl.col("cultivar") == level), "case", f"short_{level}",
                       weights="w").conf_int("delong")
        row = got.filter(pl.col("class") == level)
        assert row["estimate"][0] == pytest.approx(binary["estimate"][0], abs=1e-14)
        assert row["se"][0] == pytest.approx(binary["se"][0], rel=1e-12)


def pair_influence(y: np.ndarray, p: np.ndarray, j: int, k: int) -> np.ndarray:
    """Each row's linearisation term of A(j|k): column j separating class j from class k, every pair of rows."""
    cases, controls = np.flatnonzero(y == j), np.flatnonzero(y == k)
    kernel = (p[cases, j][:, None] > p[controls, j][None, :]) + 0.5 * (p[cases, j][:, None] == p[controls, j][None, :])
    phi = np.zeros(y.size)
    phi[cases] = (kernel.mean(axis=1) - kernel.mean()) / cases.size
    phi[controls] = (kernel.mean(axis=0) - kernel.mean()) / controls.size
    return phi


@pytest.mark.parametrize("name", ["k4_imbalanced", "k5_ties"])
def test_hand_till_and_micro_delong_variance_from_every_pair(name):
    frame = load(name)
    levels = levels_of(frame)
    y = np.searchsorted(levels, frame["y"].to_numpy())
    p = matrix(frame)
    n, n_levels = y.size, len(levels)
    ordered = [(j, k) for j in range(n_levels) for k in range(n_levels) if j != k]
    m_phi = np.mean([pair_influence(y, p, j, k) for j, k in ordered], axis=0)
    got = column(auroc(frame, "y", "p_{level}", multiclass="hand_till").conf_int(), "se")
    assert got["macro"] == pytest.approx(np.sqrt(n / (n - 1) * np.sum(m_phi**2)), rel=1e-12)
    # micro: one area over the n x K cells; a row's term is the sum of its K cells' terms
    cell_score, cell_case = p.ravel(), (y[:, None] == np.arange(n_levels)).ravel()
    cases, controls = np.flatnonzero(cell_case), np.flatnonzero(~cell_case)
    kernel = ((cell_score[cases][:, None] > cell_score[controls][None, :])
              + 0.5 * (cell_score[cases][:, None] == cell_score[controls][None, :]))
    cell_phi = np.zeros(cell_score.size)
    cell_phi[cases] = (kernel.mean(axis=1) - kernel.mean()) / cases.size
    cell_phi[controls] = (kernel.mean(axis=0) - kernel.mean()) / controls.size
    row_phi = cell_phi.reshape(n, n_levels).sum(axis=1)
    micro = column(auroc(frame, "y", "p_{level}", multiclass="ovr", average="micro").conf_int(), "se")["micro"]
    assert micro == pytest.approx(np.sqrt(n / (n - 1) * np.sum(row_phi**2)), rel=1e-12)


def test_clustered_paired_difference_of_one_class_is_obuchowskis_paired_test():
    rng = np.random.default_rng(5)
    n = 400
    cluster = np.repeat(np.arange(100), 4)
    frailty = rng.normal(size=100)[cluster]
    y = rng.integers(0, 3, n)

    def probabilities(shift: float) -> np.ndarray:
        z = rng.normal(size=(n, 3)) + shift * (y[:, None] == np.arange(3)) + frailty[:, None] * np.array([1, 0, -1])
        return np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)

    p, q = probabilities(1.3), probabilities(0.9)
    frame = pl.DataFrame({"y": y, "c": cluster, **{f"p_{k}": p[:, k] for k in range(3)},
                          **{f"q_{k}": q[:, k] for k in range(3)}})
    got = auroc(frame, "y", {"p": "p_{level}", "q": "q_{level}"}, multiclass="ovr", average="macro",
                cluster="c").compare().to_polars()
    for k in range(3):
        binary = as_polars(compare(frame.with_columns(case=pl.col("y") == k), "case", [f"p_{k}", f"q_{k}"],
                                   metric="auroc", cluster="c"))
        assert binary["method"][0] == "obuchowski"
        row = got.filter(pl.col("class") == str(k))
        for name in ("difference", "se", "p_value"):
            assert row[name][0] == pytest.approx(binary[name][0], rel=1e-10)
    assert np.isfinite(got.filter(pl.col("class") == "macro")["se"][0])
