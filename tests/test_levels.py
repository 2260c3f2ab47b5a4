"""Subgroup order and levels: categoricals and enums keep their order and dtype, unused levels, null keys,
outcomes with more than two levels (`negative=`), and the rows errors cite.

Oracles: pandas ``groupby(observed=False, dropna=False)`` for the set and order of the groups; the same data
without the unused levels (a group's numbers do not depend on the other groups); the outcome recoded to 0/1
by hand for ``negative=``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aucpr_stats import (
    DegenerateGroupWarning,
    InputError,
    MissingKeyWarning,
    MissingValueError,
    OutcomeError,
    aucpr,
    auroc,
    compare,
    pr_curve,
    roc_curve,
)
from aucpr_stats.estimators import PR_ESTIMATORS, ROC_ESTIMATORS
from aucpr_stats.ingest import DROPPED_NOTE, UNUSED_NOTE

AGE_LABELS = ["<=22", "23-27", "28-32", ">32"]


def _cohort(n: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    age = rng.uniform(16, 45, n)
    return pd.DataFrame({
        "y": y.astype(int),
        "s": np.round(rng.normal(size=n) + y, 1),  # rounded: ties across classes
        "age": pd.cut(age, [0, 22, 27, 32, 100], labels=AGE_LABELS, ordered=True),
        "band": pd.cut(age, [0, 22, 27, 32, 100]),  # pd.Interval categories
        "site": rng.choice(["north", "south"], n),
    })


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ------------------------------------------------------------------ order and dtype


@pytest.mark.parametrize("column", ["age", "band"])
def test_pandas_categorical_keeps_declared_order_and_dtype_in_every_frame(column):
    df = _cohort()
    dtype = df[column].dtype
    for result in (_quiet(aucpr, df, "y", "s", by=column), _quiet(auroc, df, "y", "s", by=column)):
        frames = [result.to_frame(), _quiet(result.conf_int), _quiet(result.conf_int, method="bootstrap",
                                                                      n_boot=50, seed=1)]
        for frame in frames:
            assert isinstance(frame, pd.DataFrame)
            assert frame[column].dtype == dtype  # same categories, same order, same ordered flag
            assert frame[column].dtype.ordered == dtype.ordered
            assert frame[column].tolist() == list(dtype.categories)  # declared order, not lexical
    for curve in (_quiet(pr_curve, df, "y", "s", by=column), _quiet(roc_curve, df, "y", "s", by=column)):
        points = curve.to_frame()
        assert points[column].dtype == dtype
        assert list(dict.fromkeys(points[column].tolist())) == list(dtype.categories)


def test_unordered_numeric_categories_come_back_as_numbers():
    df = _cohort()
    df["dose"] = pd.Categorical(np.where(df["site"] == "north", 10, 2), categories=[10, 2, 5])
    frame = _quiet(auroc, df, "y", "s", by="dose").to_frame()
    assert frame["dose"].dtype == df["dose"].dtype and not frame["dose"].dtype.ordered
    assert frame["dose"].tolist() == [10, 2, 5]
    assert frame["n_pos"].tolist()[2] == 0 and frame["note"].tolist()[2] == UNUSED_NOTE


def test_table_prints_categorical_groups_in_declared_order():
    text = str(_quiet(_quiet(aucpr, _cohort(), "y", "s", by="age").table))
    positions = [text.index(label) for label in AGE_LABELS]
    assert positions == sorted(positions)


def test_polars_enum_keeps_order_and_dtype_polars_categorical_keeps_dtype():
    df = pl.from_pandas(_cohort().drop(columns="band")).with_columns(
        pl.col("age").cast(pl.String).cast(pl.Enum(AGE_LABELS)), site_cat=pl.col("site").cast(pl.Categorical))
    result = _quiet(aucpr, df, "y", "s", by="age")
    for frame in (result.to_frame(), _quiet(result.conf_int)):
        assert frame.schema["age"] == pl.Enum(AGE_LABELS)
        assert frame["age"].to_list() == AGE_LABELS
    categorical = _quiet(auroc, df, "y", "s", by="site_cat")
    assert categorical.to_frame().schema["site_cat"] == pl.Categorical
    assert _quiet(categorical.conf_int).schema["site_cat"] == pl.Categorical


# ------------------------------------------------------------------ unused levels


def _with_unused(kind: str = "pandas"):
    df = _cohort()
    df["age"] = df["age"].cat.add_categories(["unknown"]).cat.reorder_categories(["unknown", *AGE_LABELS])
    return df if kind == "pandas" else pl.from_pandas(df.drop(columns="band")).with_columns(
        pl.col("age").cast(pl.String).cast(pl.Enum(["unknown", *AGE_LABELS])))


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_unused_level_is_a_row_with_zero_counts_a_note_and_one_warning(kind):
    df = _with_unused(kind)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = aucpr(df, "y", "s", by="age").to_frame()
    degenerate = [w for w in caught if issubclass(w.category, DegenerateGroupWarning)]
    assert len(degenerate) == 1 and "age='unknown' (no rows: level not in the data)" in str(degenerate[0].message)
    frame = pl.from_pandas(frame, nan_to_null=False) if kind == "pandas" else frame
    assert frame["age"].cast(pl.String).to_list() == ["unknown", *AGE_LABELS]
    first = frame.row(0, named=True)
    assert (first["n_pos"], first["n_neg"], first["n_missing"], first["note"]) == (0, 0, 0, UNUSED_NOTE)
    assert np.isnan(first["estimate"])
    dropped = _quiet(aucpr, df, "y", "s", by="age", unused_levels="drop").to_frame()
    dropped = pl.from_pandas(dropped, nan_to_null=False) if kind == "pandas" else dropped
    assert dropped["age"].cast(pl.String).to_list() == AGE_LABELS
    assert dropped["estimate"].to_list() == frame["estimate"].to_list()[1:]


def test_level_absent_after_missing_drop_is_kept_or_dropped():
    df = _cohort()
    df.loc[df["age"] == "<=22", "s"] = np.nan
    kept = _quiet(auroc, df, "y", "s", by="age", missing="drop").to_frame()
    assert kept["age"].tolist() == AGE_LABELS
    assert kept["n_pos"].iloc[0] == 0 and kept["n_missing"].iloc[0] == (df["age"] == "<=22").sum()
    assert kept["note"].iloc[0] == DROPPED_NOTE
    dropped = _quiet(auroc, df, "y", "s", by="age", missing="drop", unused_levels="drop").to_frame()
    assert dropped["age"].tolist() == AGE_LABELS[1:]
    with pytest.raises(InputError, match=r"`unused_levels` must be one of \['keep', 'drop'\]"):
        auroc(df, "y", "s", by="age", unused_levels="hide")


_MAYBE = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cat=st.lists(st.sampled_from([None, "x", "y"]), min_size=6, max_size=30), data=st.data())
def test_groups_are_those_of_pandas_groupby_observed_false(cat, data):
    n = len(cat)
    other = data.draw(st.lists(_MAYBE, min_size=n, max_size=n))
    df = pd.DataFrame({
        "y": [i % 2 for i in range(n)],
        "s": data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
        "c": pd.Categorical(cat, categories=["z", "y", "x"]),
        "o": other,
    })
    for by in (["c", "o"], ["o", "c"], ["c"]):
        expected = df.groupby(by, observed=False, dropna=False).size()
        frame = _quiet(auroc, df, "y", "s", by=by).to_frame()
        got = list(zip(*[frame[c].astype(object).where(frame[c].notna(), None) for c in by]))
        want = [tuple(None if pd.isna(v) else v for v in (key if isinstance(key, tuple) else (key,)))
                for key in expected.index]
        assert got == want
        assert (frame["n_pos"] + frame["n_neg"]).tolist() == expected.tolist()


# every estimator and interval method meets an empty segment: the empty group is NaN, the others as without it
@pytest.mark.parametrize("metric", ["aucpr", "auroc"])
def test_every_estimator_and_interval_handles_an_empty_group(metric):
    function = aucpr if metric == "aucpr" else auroc
    df = _with_unused("polars").with_columns(fold=pl.int_range(pl.len()) % 5)
    registry = PR_ESTIMATORS if metric == "aucpr" else ROC_ESTIMATORS
    extra = {"fold": "fold"} if metric == "aucpr" else {}
    kept = _quiet(function, df, "y", "s", by="age", estimator="all", **extra)
    dropped = _quiet(function, df, "y", "s", by="age", estimator="all", unused_levels="drop", **extra)
    estimates = kept.to_frame()
    assert estimates.filter(pl.col("age") == "unknown")["estimate"].is_nan().all()
    assert estimates.filter(pl.col("age") == "unknown").height == len(registry)
    rest = estimates.filter(pl.col("age") != "unknown")
    assert rest["estimate"].to_list() == dropped.to_frame()["estimate"].to_list()
    ci_kept = _quiet(kept.conf_int, method="all", n_boot=40, seed=3)
    ci_dropped = _quiet(dropped.conf_int, method="all", n_boot=40, seed=3)
    empty = ci_kept.filter(pl.col("age") == "unknown")
    assert empty.height > 0 and empty["lower"].is_nan().all() and empty["upper"].is_nan().all()
    assert set(empty["method"].to_list()) == set(ci_dropped["method"].to_list())
    others = ci_kept.filter(pl.col("age") != "unknown")
    for column in ("estimate", "lower", "upper"):  # per-group streams: the same draws with or without it
        np.testing.assert_array_equal(others[column].to_numpy(), ci_dropped[column].to_numpy())


def test_curves_bands_and_comparisons_handle_an_empty_group():
    df = _with_unused("polars").with_columns(s2=pl.col("s") * 0.5 + pl.int_range(pl.len()) % 3)
    pr = _quiet(pr_curve, df, "y", "s", by="age")
    grid = pr.evaluate([0.25, 0.5])
    assert grid.filter(pl.col("age") == "unknown")["precision"].is_nan().all()
    band = _quiet(pr.band, n_boot=40, seed=2)
    assert band is not None
    roc = _quiet(roc_curve, df, "y", "s", by="age")
    assert roc.evaluate([0.5]).filter(pl.col("age") == "unknown")["tpr"].is_nan().all()
    paired = _quiet(compare, df, "y", ["s", "s2"], by="age", metric="auroc").to_frame()
    assert paired["age"].to_list() == ["unknown", *AGE_LABELS]
    assert np.isnan(paired["p_value"][0]) and not np.isnan(paired["p_value"][1])
    unpaired = _quiet(compare, df, "y", "s", between="age", metric="auroc").to_frame()
    involving = unpaired.filter((pl.col("age_a") == "unknown") | (pl.col("age_b") == "unknown"))
    assert involving.height == len(AGE_LABELS) and involving["p_value"].is_nan().all()


# ------------------------------------------------------------------ null keys


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_null_keys_form_their_own_group_last_with_one_warning(kind):
    df = _cohort().drop(columns="band")
    df.loc[[3, 7, 11], "site"] = None
    data = df if kind == "pandas" else pl.from_pandas(df)
    with pytest.warns(MissingKeyWarning, match=r"^3 rows have a missing value in `by` column 'site'; such rows "
                                               r"form a group of their own"):
        frame = auroc(data, "y", "s", by="site").to_frame()
    frame = pl.from_pandas(frame, nan_to_null=False) if kind == "pandas" else frame
    assert frame["site"].to_list() == ["north", "south", None]
    assert frame["n_pos"][2] + frame["n_neg"][2] == 3


# ------------------------------------------------------------------ outcomes with more than two levels


@pytest.mark.parametrize("kind", ["pandas", "polars", "lazy"])
def test_outcome_with_three_levels_needs_negative(kind):
    df = _cohort().drop(columns=["band", "age"])
    df["dx"] = np.where(df["y"] == 1, "yes", "no")
    df.loc[[0, 5], "dx"] = "unknown"
    data = df if kind == "pandas" else pl.from_pandas(df).lazy() if kind == "lazy" else pl.from_pandas(df)
    with pytest.raises(OutcomeError, match=r"has 3 levels: 'no' \(\d+ rows\), 'unknown' \(2 rows\), 'yes' "
                                           r"\(\d+ rows\).*pass `negative=`"):
        aucpr(data, "dx", "s", positive="yes")
    with pytest.raises(MissingValueError, match=r"2 of 240 rows have .*neither positive nor negative.*'unknown' "
                                                r"\(2 rows\).*first rows: \[0, 5\]"):
        aucpr(data, "dx", "s", positive="yes", negative="no")
    got = aucpr(data, "dx", "s", positive="yes", negative="no", missing="drop", estimator="all")
    kept = df.drop(index=[0, 5])
    want = aucpr(pd.DataFrame({"y": (kept["dx"] == "yes").astype(int), "s": kept["s"]}), "y", "s", estimator="all")
    assert got.estimates.tolist() == want.estimates.tolist()
    assert int(np.asarray(got.keys["n_missing"])[0]) == 2
    both = auroc(data, "dx", "s", positive="yes", negative=["no", "unknown"])
    one_vs_rest = auroc(pd.DataFrame({"y": (df["dx"] == "yes").astype(int), "s": df["s"]}), "y", "s")
    assert both.estimate == one_vs_rest.estimate
    with pytest.raises(OutcomeError, match=r"`negative`=\['nope'\] does not occur"):
        aucpr(data, "dx", "s", positive="yes", negative="nope")
    with pytest.raises(InputError, match=r"contains the `positive` level 'yes'"):
        aucpr(data, "dx", "s", positive="yes", negative=["no", "yes"])


def test_two_level_outcome_with_positive_works_as_before():
    df = _cohort()
    df["dx"] = np.where(df["y"] == 1, "yes", "no")
    assert auroc(df, "dx", "s", positive="yes").estimate == auroc(df, "y", "s").estimate


# ------------------------------------------------------------------ rows cited in errors


def test_errors_cite_pandas_index_labels_and_polars_row_numbers():
    df = pd.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [0.9, np.nan, 0.7, np.inf, 0.2, np.nan]},
                      index=[f"p{i}" for i in range(6)])
    with pytest.raises(InputError, match=r"1 infinite value \(first rows: index labels \['p3'\]\)"):
        auroc(df, "y", "s")
    df.loc["p3", "s"] = 0.5
    with pytest.raises(MissingValueError, match=r"first rows: index labels \['p1', 'p5'\]\)"):
        auroc(df, "y", "s")
    with pytest.raises(MissingValueError, match=r"first rows: \[1, 5\]\)"):
        auroc(pl.from_pandas(df, nan_to_null=False), "y", "s")
    with pytest.raises(MissingValueError, match=r"first rows: \[1, 5\]\)"):  # the default index: row numbers
        auroc(df.reset_index(drop=True), "y", "s")
    shuffled = df.reset_index(drop=True).iloc[::-1]
    with pytest.raises(MissingValueError, match=r"first rows: index labels \[5, 1\]\)"):
        auroc(shuffled, "y", "s")


def test_cli_negative_and_direction(tmp_path, capsys):
    from aucpr_stats.cli import main

    path = tmp_path / "dx.csv"
    path.write_text("dx,s\nyes,0.9\nno,0.1\nyes,0.8\nunknown,0.5\nno,0.3\nno,0.2\nyes,0.4\nno,0.6\n")
    assert main([str(path), "--outcome", "dx", "--score", "s", "--positive", "yes"]) != 0
    assert "pass --negative" in capsys.readouterr().err
    common = [str(path), "--outcome", "dx", "--score", "s", "--positive", "yes", "--metric", "auroc", "--raw",
              "--format", "csv"]
    assert main([*common, "--negative", "no", "unknown"]) == 0
    higher = capsys.readouterr().out
    assert main([*common, "--negative", "no", "unknown", "--direction", "lower"]) == 0
    lower = capsys.readouterr().out
    estimate = _quiet(auroc, pd.read_csv(path).assign(y=lambda d: (d["dx"] == "yes").astype(int)), "y", "s").estimate
    assert f"{estimate:.4f}"[:4] in higher and f"{1 - estimate:.4f}"[:4] in lower


def test_forest_plot_rows_follow_the_declared_order():
    import matplotlib

    matplotlib.use("Agg")
    from aucpr_stats.plot import forest_plot

    axes = _quiet(forest_plot, _quiet(aucpr, _cohort(), "y", "s", by="age"))
    ax = axes[0] if isinstance(axes, (list, tuple)) else axes
    labels = [t.get_text().split()[0] for t in ax.get_yticklabels()]
    assert [label for label in labels if label in AGE_LABELS] == AGE_LABELS
