"""The study designs of the entry points: ``prevalence=``, ``weights=`` and ``cluster=``.

Oracles: replicated rows (integer weights, an integer negative weight for a
stated prevalence), scikit-learn's ``sample_weight``, DeLong's variance for
clusters of one row; bad input gets a message naming the column and rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from aucpr_stats import aucpr, auroc
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError, MissingValueError


def _frame(seed=0, n=300, clusters=60):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, clusters, n)
    effect = rng.normal(size=clusters)[cluster]
    y = rng.random(n) < 1 / (1 + np.exp(-(effect - 1)))
    y[:2] = [True, False]
    return pl.DataFrame({
        "y": y,
        "s": np.round(rng.normal(size=n) + y + effect, 1),  # ties, also across classes
        "s2": rng.normal(size=n) + 0.5 * y,
        "w": rng.uniform(0.2, 4.0, n),
        "k": rng.integers(1, 4, n),
        "g": rng.choice(["a", "b"], n),
        "c": cluster,
    })


# ------------------------------------------------------------------ weights
@pytest.mark.parametrize("kind", ["polars", "pandas"])
def test_weighted_average_precision_and_a_prime_equal_scikit_learn(kind):
    df = _frame(1)
    data = df.to_pandas() if kind == "pandas" else df
    for g in ("a", "b"):
        part = df.filter(pl.col("g") == g)
        y, s, w = part["y"].to_numpy(), part["s"].to_numpy(), part["w"].to_numpy()
        ap = aucpr(data, "y", "s", by="g", estimator="average_precision", weights="w", ties="published").to_polars()
        assert ap.filter(pl.col("g") == g)["estimate"][0] == pytest.approx(
            average_precision_score(y, s, sample_weight=w), abs=1e-12)
        a = auroc(data, "y", "s", by="g", weights="w").to_polars()
        assert a.filter(pl.col("g") == g)["estimate"][0] == pytest.approx(roc_auc_score(y, s, sample_weight=w),
                                                                          abs=1e-12)


def test_integer_weights_give_the_result_of_replicated_rows_for_every_estimator():
    df = _frame(2)
    replicated = df.select(pl.all().repeat_by(pl.col("k")).explode())
    weighted = aucpr(df, "y", ["s", "s2"], by="g", estimator="all", weights="k").to_polars()
    plain = aucpr(replicated, "y", ["s", "s2"], by="g", estimator="all").to_polars()
    np.testing.assert_allclose(weighted["estimate"].to_numpy(), plain["estimate"].to_numpy(), rtol=1e-12)
    assert weighted["prevalence"].to_list() == pytest.approx(plain["prevalence"].to_list())
    # n_pos and n_neg count rows, not weight
    assert weighted["n_pos"].sum() < plain["n_pos"].sum()
    a_weighted = auroc(df, "y", "s", by="g", weights="k").to_polars()["estimate"]
    assert a_weighted.to_list() == pytest.approx(auroc(replicated, "y", "s", by="g").to_polars()["estimate"].to_list(),
                                                 abs=1e-14)


def test_rescaling_the_weights_changes_nothing_but_the_frequency_estimators():
    df = _frame(3).with_columns(w10=pl.col("w") * 10)
    names = ["lower_trapezoid", "average_precision", "interpolated_median", "interpolated_convex"]
    a = aucpr(df, "y", "s", estimator=names, weights="w").to_polars()["estimate"].to_numpy()
    b = aucpr(df, "y", "s", estimator=names, weights="w10").to_polars()["estimate"].to_numpy()
    np.testing.assert_allclose(a, b, rtol=1e-10)


def test_weighted_bootstrap_is_reproducible_and_differs_from_the_unweighted():
    df = _frame(4)
    result = aucpr(df, "y", "s", by="g", weights="w")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = result.conf_int(method="bootstrap", n_boot=200, seed=7)
        again = aucpr(df.sample(fraction=1.0, shuffle=True, seed=1).to_pandas(), "y", "s", by="g",
                      weights="w").conf_int(method="bootstrap", n_boot=200, seed=7)
        plain = aucpr(df, "y", "s", by="g").conf_int(method="bootstrap", n_boot=200, seed=7)
    assert first["lower"].to_list() == list(again["lower"])  # row order and frame type change nothing
    assert first["lower"].to_list() != plain["lower"].to_list()
    assert result.conf_int_polars()["method"].unique().to_list() == ["logit"]  # the default for weights (Kish)


def test_missing_weights_are_an_error_or_dropped_and_counted():
    df = _frame(5).with_columns(pl.when(pl.int_range(pl.len()) % 50 == 3).then(None).otherwise(pl.col("w"))
                                .alias("w"))
    with pytest.raises(MissingValueError, match=r"`weights` column 'w' has 6 missing \(null or NaN\) values"):
        aucpr(df, "y", "s", weights="w")
    frame = aucpr(df, "y", "s", by="g", weights="w", missing="drop").to_polars()
    assert frame["n_missing"].sum() == 6
    kept = df.drop_nulls("w")
    assert frame["estimate"].to_list() == aucpr(kept, "y", "s", by="g", weights="w").to_polars()["estimate"].to_list()


@pytest.mark.parametrize("bad, message", [
    (-1.0, r"`weights` column 'w' has 1 negative value \(first rows: \[7\]\); weights must be finite and >= 0"),
    (np.inf, r"`weights` column 'w' has 1 infinite value \(first rows: \[7\]\)"),
])
def test_negative_and_infinite_weights_are_refused_with_the_rows(bad, message):
    df = _frame(6)
    w = df["w"].to_numpy().copy()
    w[7] = bad
    with pytest.raises(InputError, match=message):
        aucpr(df.with_columns(w=pl.Series(w)), "y", "s", weights="w")


def test_pandas_index_labels_name_the_rows_of_bad_weights():
    df = _frame(6).to_pandas()
    df.index = [f"r{i}" for i in range(len(df))]
    df.loc["r9", "w"] = -2.0
    with pytest.raises(InputError, match=r"index labels \['r9'\]"):
        aucpr(df, "y", "s", weights="w")


def test_weight_column_type_and_role_are_checked():
    df = _frame(7)
    with pytest.raises(InputTypeError, match="`weights` column 'g' must be numeric"):
        aucpr(df, "y", "s", weights="g")
    with pytest.raises(InputError, match="`weights` column 's' is already the `score` column"):
        aucpr(df, "y", "s", weights="s")
    with pytest.raises(InputError, match="column"):
        aucpr(df, "y", "s", weights="nope")


def test_a_class_with_zero_total_weight_gives_a_note_and_a_warning():
    df = _frame(8).with_columns(w=pl.when((pl.col("g") == "b") & pl.col("y")).then(0.0).otherwise(pl.col("w")))
    with pytest.warns(DegenerateGroupWarning, match="all weights zero among the positives"):
        frame = aucpr(df, "y", "s", by="g", weights="w").to_polars()
    row = frame.filter(pl.col("g") == "b")
    assert np.isnan(row["estimate"][0]) and row["note"][0] == "all weights zero among the positives"
    assert row["n_pos"][0] > 0  # the rows are there


# ------------------------------------------------------------- prevalence
def test_a_stated_prevalence_equals_replicating_the_negatives_for_every_estimator():
    df = _frame(9)
    n_pos, n_neg = int(df["y"].sum()), int((~df["y"]).sum())
    prevalence = n_pos / (n_pos + 3 * n_neg)  # each negative weighs exactly 3
    stated = aucpr(df, "y", "s", estimator="all", prevalence=prevalence).to_polars()
    replicated = df.select(pl.all().repeat_by(pl.when(pl.col("y")).then(1).otherwise(3)).explode())
    oracle = aucpr(replicated, "y", "s", estimator="all").to_polars()
    np.testing.assert_allclose(stated["estimate"].to_numpy(), oracle["estimate"].to_numpy(), rtol=1e-12)
    assert stated["stated_prevalence"].to_list() == [prevalence] * stated.height
    assert stated["prevalence"][0] == pytest.approx(n_pos / (n_pos + n_neg))  # the sample's
    assert stated["n_neg"][0] == n_neg


def test_a_stated_prevalence_per_group_and_its_bootstrap_keep_the_class_sizes():
    df = _frame(10)
    result = aucpr(df, "y", "s", by="g", prevalence=0.05)
    assert "at a stated prevalence of 0.05" in result.summary()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = result.conf_int(n_boot=300, seed=3)
    assert ci["method"].unique().to_list() == ["bootstrap"]  # the default at a stated prevalence
    assert (ci["lower"] < ci["estimate"]).all() and (ci["estimate"] < ci["upper"]).all()
    # a lower prevalence gives a lower area (precision falls at every threshold)
    lower = aucpr(df, "y", "s", by="g", prevalence=0.01).to_polars()["estimate"].to_numpy()
    assert (lower < result.to_polars()["estimate"].to_numpy()).all()


@pytest.mark.parametrize("bad", [0, 1, -0.2, 1.5, float("nan")])
def test_a_prevalence_outside_zero_one_is_refused(bad):
    with pytest.raises(InputError, match=r"`prevalence` must be in \(0, 1\)"):
        aucpr(_frame(11), "y", "s", prevalence=bad)


# --------------------------------------------------------------- clusters
def test_clusters_of_one_row_give_delong_exactly():
    df = _frame(12).with_row_index("row")
    clustered = auroc(df, "y", "s", by="g", cluster="row").conf_int_polars()
    rows = auroc(df, "y", "s", by="g").conf_int_polars(method="delong")
    assert clustered["method"].unique().to_list() == ["obuchowski"]
    np.testing.assert_allclose(clustered["se"].to_numpy(), rows["se"].to_numpy(), rtol=1e-10)


def test_clustered_intervals_are_wider_than_row_intervals_on_correlated_rows():
    df = _frame(13, n=800, clusters=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clustered = auroc(df, "y", "s", cluster="c").conf_int_polars()["se"][0]
        rows = auroc(df, "y", "s").conf_int_polars()["se"][0]
        boot_c = aucpr(df, "y", "s", cluster="c").conf_int_polars(n_boot=400, seed=2)["se"][0]
        boot_r = aucpr(df, "y", "s").conf_int_polars(method="bootstrap", n_boot=400, seed=2)["se"][0]
    assert clustered > rows and boot_c > boot_r


def test_row_level_methods_are_refused_for_clustered_rows():
    result = auroc(_frame(14), "y", "s", cluster="c")
    with pytest.raises(InputError, match="method 'delong' treats rows as independent"):
        result.conf_int(method="delong")
    with pytest.raises(InputError, match="method 'obuchowski' needs cluster ids"):
        auroc(_frame(14), "y", "s").conf_int(method="obuchowski")


def test_cluster_bootstrap_is_reproducible_whatever_the_other_groups():
    df = _frame(15)
    both = aucpr(df, "y", "s", by="g", cluster="c").conf_int_polars(n_boot=200, seed=5)
    alone = aucpr(df.filter(pl.col("g") == "a"), "y", "s", by="g", cluster="c").conf_int_polars(n_boot=200, seed=5)
    assert both.filter(pl.col("g") == "a")["lower"][0] == alone["lower"][0]


def test_weights_and_clusters_together():
    df = _frame(16)
    result = aucpr(df, "y", "s", by="g", weights="k", cluster="c")
    replicated = df.select(pl.all().repeat_by(pl.col("k")).explode())
    assert result.to_polars()["estimate"].to_list() == pytest.approx(
        aucpr(replicated, "y", "s", by="g").to_polars()["estimate"].to_list(), rel=1e-12)
    ci = result.conf_int_polars(n_boot=200, seed=1)
    assert ci["method"].unique().to_list() == ["bootstrap"] and ci["se"].is_not_nan().all()


def test_a_cluster_spanning_groups_is_a_unit_of_each_group():
    df = _frame(17)
    assert df.group_by("c").agg(pl.col("g").n_unique())["g"].max() == 2  # clusters span both groups
    result = aucpr(df, "y", "s", by="g", cluster="c")
    per_group = df.group_by("g").agg(pl.col("c").n_unique()).sort("g")["c"].to_list()
    units = np.bincount(result.clusters.group, minlength=2).tolist()
    assert units == per_group


def test_a_missing_cluster_id_is_refused_with_the_rows():
    df = _frame(18).with_columns(c=pl.when(pl.int_range(pl.len()) < 3).then(None).otherwise(pl.col("c")))
    with pytest.raises(InputError, match=r"`cluster` column 'c' has 3 missing \(null or NaN\) values; every row needs "
                                         "a cluster"):
        aucpr(df, "y", "s", cluster="c")


def test_cluster_with_fold_or_pandas_input():
    df = _frame(19)
    with pytest.raises(InputError, match="`fold=` and `cluster=` cannot be combined"):
        aucpr(df, "y", "s", cluster="c", fold="g")
    pandas = aucpr(df.to_pandas(), "y", "s", by="g", cluster="c")
    assert pandas.to_frame()["estimate"].tolist() == aucpr(df, "y", "s", by="g").to_frame()["estimate"].to_list()
    assert isinstance(pandas.to_frame(), pd.DataFrame)


# ------------------------------------------------------------------ curves
def test_weighted_curves_equal_the_curves_of_replicated_rows():
    from aucpr_stats import pr_curve, roc_curve

    df = _frame(20)
    replicated = df.select(pl.all().repeat_by(pl.col("k")).explode())
    grid = np.linspace(0, 1, 21)
    for method in ("step", "interpolated"):
        a = pr_curve(df, "y", "s", by="g", weights="k").evaluate(grid, method=method)
        b = pr_curve(replicated, "y", "s", by="g").evaluate(grid, method=method)
        np.testing.assert_allclose(a["precision"].to_numpy(), b["precision"].to_numpy(), rtol=1e-12)
    a = roc_curve(df, "y", "s", weights="k").evaluate(grid)
    np.testing.assert_allclose(a["tpr"].to_numpy(), roc_curve(replicated, "y", "s").evaluate(grid)["tpr"].to_numpy())


def test_a_curve_at_a_stated_prevalence_and_its_band_refused():
    from aucpr_stats import pr_curve

    df = _frame(21)
    n_pos, n_neg = int(df["y"].sum()), int((~df["y"]).sum())
    prevalence = n_pos / (n_pos + 2 * n_neg)
    stated = pr_curve(df, "y", "s", prevalence=prevalence).to_frame()
    replicated = df.select(pl.all().repeat_by(pl.when(pl.col("y")).then(1).otherwise(2)).explode())
    oracle = pr_curve(replicated, "y", "s").to_frame()
    np.testing.assert_allclose(stated["precision"].to_numpy(), oracle["precision"].to_numpy(), rtol=1e-12)
    with pytest.raises(InputError, match="bands are not available for curves made with `prevalence=`"):
        pr_curve(df, "y", "s", prevalence=0.1).band()


# --------------------------------------------------------------------- CLI
def test_command_line_design_flags_reach_the_table_and_its_footnote(tmp_path):
    from aucpr_stats.cli import main

    df = _frame(22)
    path = tmp_path / "d.csv"
    df.with_columns(pl.col("y").cast(pl.Int8)).write_csv(path)
    out = tmp_path / "t.csv"
    args = [str(path), "--outcome", "y", "--score", "s", "--by", "g", "--metric", "aucpr", "--metric", "auroc",
            "--seed", "3", "--n-boot", "200", "--raw", "-o", str(out)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*args, "--cluster", "c", "--weights", "w"]) == 0
    raw = pl.read_csv(out)
    python = aucpr(df, "y", "s", by="g", weights="w", cluster="c").conf_int_polars(n_boot=200, seed=3)
    assert raw.filter(pl.col("metric") == "aucpr")["upper"].to_list() == pytest.approx(python["upper"].to_list())
    assert raw.filter(pl.col("metric") == "auroc")["method"].unique().to_list() == ["obuchowski"]
    text = tmp_path / "t.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([str(path), "--outcome", "y", "--score", "s", "--prevalence", "0.02", "--seed", "1",
                     "-o", str(text)]) == 0
    assert "at a stated prevalence of 0.02" in text.read_text() and "bootstrap" in text.read_text()


def test_duckdb_input_clusters_and_weights_like_memory():
    duckdb = pytest.importorskip("duckdb")
    df = _frame(23)
    relation = duckdb.sql("select * from df")
    # weights: the engine reduces the rows to (group, score, weight) cells, as polars does in memory
    engine, memory = aucpr(relation, "y", "s", by="g", weights="w"), aucpr(df, "y", "s", by="g", weights="w")
    assert engine.to_frame().equals(memory.to_frame()) and engine.conf_int_polars().equals(memory.conf_int_polars())
    assert engine.conf_int_polars(method="bootstrap", n_boot=100, seed=4).equals(
        memory.conf_int_polars(method="bootstrap", n_boot=100, seed=4))
    via_sql = aucpr(relation, "y", "s", by="g", cluster="c").conf_int_polars(n_boot=100, seed=4)
    memory = aucpr(df, "y", "s", by="g", cluster="c").conf_int_polars(n_boot=100, seed=4)
    assert via_sql["upper"].to_list() == memory["upper"].to_list()


# ------------------------------------------------------------ comparisons
def _two_scores(seed=24):
    rng = np.random.default_rng(seed)
    patient = np.repeat(np.arange(120), 4)
    u = rng.normal(size=120)[patient]
    y = rng.random(patient.size) < 1 / (1 + np.exp(1 - 2 * u))
    return pl.DataFrame({"y": y, "a": (1 + u) * y + u + rng.normal(size=y.size),
                         "b": 0.7 * (1 + u) * y + u + rng.normal(size=y.size), "patient": patient,
                         "g": rng.choice(["x", "z"], y.size)}).with_row_index("row")


def test_clustered_paired_comparison_reduces_to_delong_for_clusters_of_one_row():
    from aucpr_stats.compare import compare

    df = _two_scores()
    one_row = compare(df, "y", ["a", "b"], by="g", cluster="row", metric="auroc").to_frame()
    rows = compare(df, "y", ["a", "b"], by="g", metric="auroc").to_frame()
    assert one_row["method"].unique().to_list() == ["obuchowski"]
    for column in ("difference", "se", "p_value", "correlation"):
        np.testing.assert_allclose(one_row[column].to_numpy(), rows[column].to_numpy(), rtol=1e-10)
    clustered = compare(df, "y", ["a", "b"], cluster="patient", metric="auroc").to_frame()["se"][0]
    assert clustered != pytest.approx(compare(df, "y", ["a", "b"], metric="auroc").to_frame()["se"][0], rel=1e-3)


def test_clustered_paired_bootstrap_draws_the_same_patients_for_both_scores():
    from aucpr_stats.compare import compare

    df = _two_scores().with_columns(a2=pl.col("a"))  # a score compared with itself
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = compare(df, "y", ["a", "a2"], metric="aucpr", cluster="patient", seed=1, n_boot=200).to_frame()
        again = compare(df.reverse(), "y", ["a", "b"], metric="aucpr", cluster="patient", seed=1,
                        n_boot=200).to_frame()
        first = compare(df, "y", ["a", "b"], metric="aucpr", cluster="patient", seed=1, n_boot=200).to_frame()
    assert same["difference"][0] == 0 and same["se"][0] == 0  # paired: identical replicates
    assert again["se"][0] == first["se"][0]  # the row order changes nothing


def test_comparison_at_a_stated_prevalence_and_refusals():
    from aucpr_stats.compare import compare

    df = _two_scores()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stated = compare(df, "y", ["a", "b"], metric="aucpr", prevalence=0.05, seed=2, n_boot=100).to_frame()
    expected = aucpr(df, "y", ["a", "b"], prevalence=0.05).to_polars()["estimate"].to_list()
    assert [stated["estimate_a"][0], stated["estimate_b"][0]] == pytest.approx(expected)
    with pytest.raises(InputError, match="`prevalence=` applies to AUCPR"):
        compare(df, "y", ["a", "b"], prevalence=0.05, metric="auroc")


def test_unpaired_comparison_of_clustered_rows():
    from aucpr_stats.compare import compare

    df = _two_scores()
    one_row = compare(df, "y", "a", between="g", cluster="row", metric="auroc").to_frame()
    rows = compare(df, "y", "a", between="g", metric="auroc").to_frame()
    assert one_row["method"][0] == "obuchowski"
    assert one_row["se"][0] == pytest.approx(rows["se"][0], rel=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = compare(df, "y", "a", between="g", metric="aucpr", cluster="patient", seed=3, n_boot=150).to_frame()
        alone = aucpr(df, "y", "a", by="g", cluster="patient").conf_int_polars(n_boot=150, seed=3)
    assert boot["difference"][0] == pytest.approx(alone["estimate"][0] - alone["estimate"][1])


def test_array_interface_takes_sample_weight_and_clusters_as_scikit_learn_spells_them():
    from aucpr_stats.arrays import aucpr_score, auroc_score

    df = _frame(25)
    y, s, w, c = (df[name].to_numpy() for name in ("y", "s", "w", "c"))
    ap = aucpr_score(y, s, sample_weight=w, estimator="average_precision", ties="published").estimate
    assert ap == pytest.approx(average_precision_score(y, s, sample_weight=w), abs=1e-12)
    assert auroc_score(y, s, sample_weight=w).estimate == pytest.approx(roc_auc_score(y, s, sample_weight=w),
                                                                        abs=1e-12)
    assert auroc_score(y, s, clusters=c).conf_int_polars()["method"][0] == "obuchowski"


def test_weighted_comparisons():
    from aucpr_stats.compare import compare

    df = _two_scores().with_columns(one=pl.lit(1.0), k=(pl.col("row") % 3 + 1).cast(pl.Int64), a2=pl.col("a"))
    # unit weights: the unweighted paired DeLong test
    np.testing.assert_allclose(compare(df, "y", ["a", "b"], weights="one", metric="auroc").to_frame()["se"].to_numpy(),
                               compare(df, "y", ["a", "b"], metric="auroc").to_frame()["se"].to_numpy(), rtol=1e-10)
    replicated = df.select(pl.all().repeat_by(pl.col("k")).explode())
    weighted = compare(df, "y", ["a", "b"], weights="k", metric="auroc").to_frame()
    copies = compare(replicated, "y", ["a", "b"], metric="auroc").to_frame()
    assert weighted["difference"][0] == pytest.approx(copies["difference"][0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = compare(df.to_pandas(), "y", ["a", "a2"], metric="aucpr", weights="k", seed=1, n_boot=100).to_frame()
        unpaired = compare(df, "y", "a", between="g", metric="aucpr", weights="k", seed=1, n_boot=100).to_frame()
    assert same["se"][0] == 0 and isinstance(same, pd.DataFrame)  # paired: the same rows for both scores
    assert unpaired["se"][0] > 0
    with pytest.raises(InputError, match="unpaired weighted comparison of AUROC uses method='bootstrap'"):
        compare(df, "y", "a", between="g", weights="k", metric="auroc")


def test_forest_plot_and_table_of_clustered_results_pass_each_method_its_options():
    import matplotlib

    matplotlib.use("Agg")
    from aucpr_stats import publication_table
    from aucpr_stats.plot import forest_plot

    df = _two_scores()
    results = [aucpr(df, "y", "a", by="g", cluster="patient"), auroc(df, "y", "a", by="g", cluster="patient")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        axes = forest_plot(results, seed=1, n_boot=100)  # the seed reaches the bootstrap, not Obuchowski's
        table = publication_table(results, method_options={"bootstrap": {"seed": 1, "n_boot": 100}})
    assert len(axes) == 2
    assert "Obuchowski cluster-robust" in table.note and "rows clustered by patient" in table.note
    with pytest.raises(InputTypeError, match="unexpected option"):
        forest_plot(results, sead=1)


def test_heterogeneity_of_clustered_and_weighted_results_uses_their_variances():
    df = _two_scores()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clustered = auroc(df, "y", "a", by="g", cluster="patient").heterogeneity()
        obuchowski = auroc(df, "y", "a", by="g", cluster="patient").conf_int_polars()["se"].to_numpy()
        boot = aucpr(df, "y", "a", by="g", cluster="patient").heterogeneity(n_boot=100, seed=1)
        weighted = aucpr(df.with_columns(k=(pl.col("row") % 3 + 1)), "y", "a", by="g", weights="k").heterogeneity()
    estimates = auroc(df, "y", "a", by="g").to_polars()["estimate"].to_numpy()
    # Cochran's Q with Obuchowski's variances, by hand
    w = 1 / obuchowski ** 2
    pooled = np.sum(w * estimates) / np.sum(w)
    assert clustered.statistic == pytest.approx(np.sum(w * (estimates - pooled) ** 2), rel=1e-10)
    assert boot.method == "bootstrap" and weighted.method == "logit"
    with pytest.raises(InputError, match="method='jackknife' leaves out single rows, which `cluster=`"):
        aucpr(df, "y", "a", by="g", cluster="patient").heterogeneity(method="jackknife")


def test_roc_bands_of_clustered_curves_resample_clusters_and_pr_bands_are_refused():
    from aucpr_stats import pr_curve, roc_curve

    df = _two_scores()
    clustered = roc_curve(df, "y", "a", by="g", cluster="patient")
    assert clustered.to_frame()["tpr"].to_list() == roc_curve(df, "y", "a", by="g").to_frame()["tpr"].to_list()
    wide = clustered.band(n_boot=200, seed=1).to_frame()
    narrow = roc_curve(df, "y", "a", by="g").band(n_boot=200, seed=1).to_frame()
    assert (wide["upper"] - wide["lower"]).mean() > (narrow["upper"] - narrow["lower"]).mean()
    with pytest.raises(InputError, match="bands are not available for PR curves made with `cluster=`"):
        pr_curve(df, "y", "a", cluster="patient").band()


# ---------------------------------------------------------------- cut-offs
def _wilson(p, n, level=0.95):
    from scipy.stats import norm

    z = norm.ppf(0.5 + level / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_cutoff_intervals_of_clustered_rows_use_the_ratio_variance():
    from aucpr_stats import cutoffs

    df = _two_scores()
    result = cutoffs(df, "y", "a", threshold=[0.5], cluster="patient")
    frame = result.to_polars()
    sensitivity = result.conf_int().filter(pl.col("measure") == "sensitivity")
    # brute force: sensitivity as a ratio over patients, its linearisation variance, Wilson on n* = p(1-p)/var
    per = (df.filter(pl.col("y")).group_by("patient")
           .agg(x=(pl.col("a") >= 0.5).sum().cast(pl.Float64), m=pl.len().cast(pl.Float64)))
    x, m = per["x"].to_numpy(), per["m"].to_numpy()
    p = x.sum() / m.sum()
    variance = len(m) / (len(m) - 1) * np.sum((x - p * m) ** 2) / m.sum() ** 2
    lower, upper = _wilson(p, p * (1 - p) / variance)
    assert frame["sensitivity"][0] == pytest.approx(p, rel=1e-12)
    assert [sensitivity["lower"][0], sensitivity["upper"][0]] == pytest.approx([lower, upper], rel=1e-10)
    # clusters of one row: the binomial variance times n/(n-1), i.e. Wilson on n - 1 cases
    one = cutoffs(df, "y", "a", threshold=[0.5], cluster="row").conf_int().filter(pl.col("measure") == "sensitivity")
    n = int(df["y"].sum())
    assert [one["lower"][0], one["upper"][0]] == pytest.approx(list(_wilson(p, n - 1)), rel=1e-10)
    # the counts do not change
    plain = cutoffs(df, "y", "a", threshold=[0.5]).to_polars()
    assert frame.select("tp", "fp", "tn", "fn").rows() == plain.select("tp", "fp", "tn", "fn").rows()


def test_weighted_cutoffs_equal_replicated_rows_and_unit_weights_one_row_clusters():
    from aucpr_stats import cutoffs

    df = _two_scores().with_columns(k=(pl.col("row") % 3 + 1).cast(pl.Float64), one=pl.lit(1.0))
    replicated = df.select(pl.all().repeat_by(pl.col("k").cast(pl.Int64)).explode())
    weighted = cutoffs(df, "y", "a", weights="k").to_polars()  # the weighted Youden threshold
    copies = cutoffs(replicated, "y", "a").to_polars()
    for column in ("threshold", "tp", "fp", "sensitivity", "specificity", "ppv", "npv"):
        assert weighted[column].to_list() == pytest.approx(copies[column].to_list(), rel=1e-12)
    unit = cutoffs(df, "y", "a", threshold=[0.0, 1.0], weights="one").conf_int()
    rows = cutoffs(df, "y", "a", threshold=[0.0, 1.0], cluster="row").conf_int()
    assert unit["measure"].to_list() == rows["measure"].to_list()
    for column in ("lower", "upper"):
        np.testing.assert_allclose(unit[column].to_numpy(), rows[column].to_numpy(), rtol=1e-10)


def test_the_clustered_small_sample_rule_counts_clusters_not_positives():
    """30 patients of 4 rows hold more than 50 positives: flagged by their clusters (min_clusters), not their rows."""
    import warnings

    from aucpr_stats.exceptions import SmallSampleWarning
    from aucpr_stats.intervals import INTERVAL_METHODS

    rng = np.random.default_rng(5)
    sizes = {"few": 30, "many": 60}
    rows = []
    for name, n in sizes.items():
        patient = np.repeat(np.arange(n), 4)
        y = rng.random(4 * n) < 0.6  # about 70 (few) and 145 (many) positive rows, above the 50 positives
        rows.append(pl.DataFrame({"g": name, "patient": patient + (0 if name == "few" else 1000), "y": y,
                                  "s": rng.normal(size=4 * n) + y}))
    frame = pl.concat(rows)
    minimum = INTERVAL_METHODS["auroc"]["obuchowski"].min_clusters
    with pytest.warns(SmallSampleWarning, match="clusters"):
        ci = auroc(frame, "y", "s", by="g", cluster="patient").conf_int()
    notes = dict(zip(ci["g"].to_list(), ci["note"].fill_null("").to_list()))
    assert (ci["n_pos"] >= 50).all()
    assert f"fewer than {minimum} clusters" in notes["few"] and "clusters" not in notes["many"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows_only = auroc(frame, "y", "s", by="g").conf_int(method="delong")
    assert "clusters" not in " ".join(rows_only["note"].fill_null("").to_list())


def test_a_case_control_sample_with_few_controls_per_case_is_flagged_with_advice():
    import warnings

    from aucpr_stats.exceptions import SmallSampleWarning
    from aucpr_stats.intervals import INTERVAL_METHODS

    rng = np.random.default_rng(8)
    frames = []
    for name, controls in (("four", 4), ("forty", 40)):
        y = np.r_[np.ones(200, bool), np.zeros(200 * controls, bool)]
        frames.append(pl.DataFrame({"k": name, "y": y, "s": rng.normal(size=y.size) + y}))
    frame = pl.concat(frames)
    rule = INTERVAL_METHODS["aucpr"]["logit"].max_control_weight
    weight = {"four": 49 / 4, "forty": 49 / 40}  # cohort controls per sampled control at pi = 0.02
    assert weight["four"] >= rule > weight["forty"]  # one group on each side (the test can fail)
    with pytest.warns(SmallSampleWarning, match="controls per case"):
        ci = aucpr(frame, "y", "s", by="k", prevalence=0.02).conf_int(method="logit")
    notes = dict(zip(ci["k"].to_list(), ci["note"].fill_null("").to_list()))
    # the advice: (1 - pi) / pi / rule controls per case, 49 / 1.5 = 32.7 at pi = 0.02
    assert f"a cohort has 49 controls per case, sample at least {49 / rule:.3g} per case" in notes["four"]
    assert rule == 1.5 and f"{49 / rule:.3g}" == "32.7"
    assert "case-control" not in notes["forty"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        aucpr(frame, "y", "s", by="k").conf_int(method="logit")  # no stated prevalence: no case-control rule


def test_prevalence_overall_states_the_data_share_of_positives_for_every_group():
    import warnings

    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(3), 400)
    y = rng.random(g.size) < np.array([0.1, 0.2, 0.3])[g]
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + y})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        overall = aucpr(frame, "y", "s", by="g", prevalence="overall").to_polars()
        stated = aucpr(frame, "y", "s", by="g", prevalence=float(y.mean())).to_polars()
    assert overall["stated_prevalence"].to_list() == [float(y.mean())] * 3
    assert overall["estimate"].to_list() == stated["estimate"].to_list()  # bit for bit the numeric call
    with pytest.raises(InputError, match="'overall'"):
        aucpr(frame, "y", "s", prevalence="sample")
    with pytest.raises(InputError, match="weights="):
        aucpr(frame.with_columns(w=pl.lit(1.0)), "y", "s", prevalence="overall", weights="w")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_weighted_areas_of_a_perfect_score_stay_within_one(seed):
    """Float weights can round a perfect area to 1 + 2e-16: every area stays in [0, 1], as do its replicates."""
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    frame = pl.DataFrame({"y": y, "s": y + rng.uniform(0, 0.5, n), "w": rng.uniform(0.1, 3.0, n)})
    for verb in (aucpr, auroc):
        result = verb(frame, "y", "s", weights="w")
        assert 1.0 - 1e-12 <= result.estimate <= 1.0
    boot = aucpr(frame, "y", "s", weights="w").conf_int(method="bootstrap", n_boot=50, seed=1)
    assert boot["upper"][0] <= 1.0
