"""Messages (issue 15, item 7): a wrong first argument, data without rows, numpy scalars as numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

from aucpr_stats import InputError, InputTypeError, OutcomeError, aucpr, auroc, compare, pr_curve, roc_curve
from aucpr_stats._validate import level_iv, number_iv, probability_iv
from aucpr_stats.simulate import Binormal

from .conftest import as_polars

NO_ROWS = "`data` has no rows (only column names); an AUC needs cases"


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    rng = np.random.default_rng(15)
    y = np.repeat([0, 1], [60, 40])
    return pl.DataFrame({"y": y, "s": rng.normal(size=100) + y, "t": rng.normal(size=100) + 0.5 * y,
                         "g": np.tile(["a", "b"], 50)})


# ------------------------------------------------------------------ first argument
@pytest.mark.parametrize("function", [aucpr, auroc, pr_curve, roc_curve])
@pytest.mark.parametrize("first, shown", [(123, "123 of type int"), (1.5, "1.5 of type float"),
                                          ([0, 1], "[0, 1] of type list"),
                                          (np.arange(3), "array([0, 1, 2]) of type ndarray")])
def test_wrong_first_argument_says_what_was_received(df, function, first, shown):
    name = function.__name__
    with pytest.raises(InputTypeError) as info:
        function(first, data=df, outcome="y", score="s")
    assert str(info.value) == (f"{name}() takes a formula string or the data frame as its first argument; "
                               f"got {shown}")
    assert "twice" not in str(info.value)


def test_wrong_first_argument_of_compare(df):
    with pytest.raises(InputTypeError, match=r"^compare\(\) takes a formula string or the data frame as its "
                                             r"first argument; got 123 of type int$"):
        compare(123, data=df, outcome="y", scores=["s", "t"])


def test_long_first_argument_is_cut_to_one_line(df):
    with pytest.raises(InputTypeError) as info:
        aucpr(list(range(1000)), data=df, outcome="y", score="s")
    message = str(info.value)
    assert "\n" not in message and "got [0, 1, 2, 3" in message and "... of type list" in message
    assert len(message) < 200


def test_a_frame_given_twice_is_still_said_so(df):
    with pytest.raises(InputTypeError, match="got `data` twice"):
        aucpr(df, data=df, outcome="y", score="s")


def test_a_non_frame_as_data_names_data(df):
    with pytest.raises(InputTypeError, match=r"`data` must be a pandas or polars DataFrame, a polars LazyFrame, "
                                             r"a pyarrow Table, .*; got int"):
        aucpr(123, "y", "s")


# ------------------------------------------------------------------ no rows
def _empty(kind: str, dtype):
    frame = pl.DataFrame(schema={"y": dtype, "s": dtype, "t": dtype, "g": pl.String})
    if kind == "pandas":
        return frame.to_pandas()
    return frame.lazy() if kind == "lazy" else frame


@pytest.mark.parametrize("kind", ["pandas", "polars", "lazy"])
@pytest.mark.parametrize("dtype", [pl.String, pl.Null, pl.Int64, pl.Float64])
@pytest.mark.parametrize("call", [
    lambda d: aucpr(d, "y", "s"),
    lambda d: aucpr(d, "y", "s", by="g"),
    lambda d: auroc(d, "y ~ s + t"),
    lambda d: pr_curve(d, "y", "s"),
    lambda d: compare(d, "y", ["s", "t"]),
])
def test_no_rows_says_no_rows(kind, dtype, call):
    data = _empty(kind, dtype)
    with pytest.raises(InputError) as info:
        call(data)
    assert str(info.value) == NO_ROWS


@pytest.mark.parametrize("kind", ["pandas", "polars", "lazy"])
def test_no_rows_comes_before_the_positive_level(kind):
    # a header-only file reads as text columns; --positive 1 is then the text "1"
    with pytest.raises(InputError) as info:
        aucpr(_empty(kind, pl.String), "y", "s", positive="1")
    assert str(info.value) == NO_ROWS


def test_header_only_csv_says_no_rows(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text("y,s\n", encoding="utf-8")
    for data in (pl.scan_csv(path), pl.read_csv(path), pd.read_csv(path)):
        with pytest.raises(InputError) as info:
            aucpr(data, "y", "s")
        assert str(info.value) == NO_ROWS


def test_text_scores_with_rows_are_still_not_numeric():
    data = pl.DataFrame({"y": [0, 1], "s": ["a", "b"]})
    for frame in (data, data.lazy()):
        with pytest.raises(InputTypeError, match=r"`score` column 's' must be numeric; got type String"):
            aucpr(frame, "y", "s")


# ------------------------------------------------------------------ numpy scalars
@pytest.mark.parametrize("level", [np.float16(0.9), np.float32(0.9), np.float64(0.9), np.longdouble(0.9)])
def test_level_accepts_numpy_floats(df, level):
    result = aucpr(df, "y", "s", by="g")
    assert result.conf_int(level=level).equals(result.conf_int(level=0.9))
    assert as_polars(result.conf_int(level=level))["level"].to_list() == [0.9, 0.9]
    assert level_iv(level) == 0.9


def test_numbers_accept_numpy_integers_and_floats():
    assert number_iv(np.float32(0.1), "eps") == 0.1
    assert number_iv(np.int32(3), "x") == 3.0
    assert probability_iv(np.float32(0.2), "prevalence") == 0.2
    assert number_iv(np.float32(1e-7), "x") == 1e-7


@pytest.mark.parametrize("value, kind", [(np.bool_(True), "bool"), ("0.9", "str"), (None, "NoneType"),
                                         (np.array([0.9]), "ndarray")])
def test_level_refuses_non_numbers_naming_the_type(df, value, kind):
    with pytest.raises(InputTypeError) as info:
        aucpr(df, "y", "s").conf_int(level=value)
    assert str(info.value) == f"`level` must be a number between 0 and 1; got {value!r} of type {kind}"


@pytest.mark.parametrize("level", [np.int64(1), np.float32(1.5), np.float32("nan")])
def test_level_out_of_range_as_numpy_is_a_value_error(df, level):
    with pytest.raises(InputError, match=r"`level` must be strictly between 0 and 1; got "):
        aucpr(df, "y", "s").conf_int(level=level)


def test_resampling_options_accept_numpy_integers(df):
    result = aucpr(df, "y", "s", by="g")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = result.conf_int(method="bootstrap", n_boot=np.int64(100), seed=np.int64(3), level=np.float32(0.9))
        assert boot.equals(result.conf_int(method="bootstrap", n_boot=100, seed=3, level=0.9))
        cv = result.conf_int(method="cross_validation", folds=np.int32(5), seed=np.uint8(3))
        assert cv.equals(result.conf_int(method="cross_validation", folds=5, seed=3))


@pytest.mark.parametrize("positive, outcome", [(np.int64(1), pl.Int64), (np.int8(1), pl.Int64),
                                               (np.float32(1), pl.Float64), (np.bool_(True), pl.Boolean),
                                               (np.str_("1"), pl.String)])
def test_positive_accepts_numpy_scalars(df, positive, outcome):
    data = df.with_columns(pl.col("y").cast(outcome))
    expected = aucpr(df, "y", "s", positive=1).to_frame()
    assert aucpr(data, "y", "s", positive=positive).to_frame().equals(expected)
    assert roc_curve(data, "y", "s", positive=positive).to_frame().equals(roc_curve(df, "y", "s").to_frame())


def test_positive_as_numpy_scalar_is_shown_as_a_number(df):
    with pytest.raises(OutcomeError) as info:
        aucpr(df, "y", "s", positive=np.int64(5))
    assert str(info.value).startswith("`positive`=5 does not occur in `outcome` column 'y'")


def test_column_names_as_numpy_strings(df):
    result = aucpr(df, np.str_("y"), np.str_("s"), by=[np.str_("g")])
    assert result.to_frame().equals(aucpr(df, "y", "s", by=["g"]).to_frame())


def test_compare_and_band_accept_numpy_scalars(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = compare(df, "y", ["s", "t"], metric="aucpr", level=np.float32(0.9), n_boot=np.int64(50),
                    seed=np.int64(1)).to_frame()
        b = compare(df, "y", ["s", "t"], metric="aucpr", level=0.9, n_boot=50, seed=1).to_frame()
        assert a.equals(b)
        curve = pr_curve(df, "y", "s")
        band = curve.band(level=np.float32(0.9), n_boot=np.int64(50), seed=np.int64(2), eps=np.float32(0.05),
                          grid=np.int64(21))
        same = curve.band(level=0.9, n_boot=50, seed=2, eps=0.05, grid=21)
        assert as_polars(band.to_frame()).equals(as_polars(same.to_frame()))


def test_simulation_arguments_accept_numpy_scalars():
    scenario = Binormal(mu=1.0)
    a = scenario.sample(np.int64(200), np.float32(0.1), seed=np.int64(4))
    assert a.equals(scenario.sample(200, 0.1, seed=4))


def test_messages_show_a_frame_by_type_and_shape(df):
    with pytest.raises(InputTypeError) as info:
        aucpr(df, "y", "s", missing=df)
    assert str(info.value) == "`missing` must be a string, one of ['error', 'drop']; got a DataFrame of shape (100, 4)"
    with pytest.raises(InputTypeError) as info:
        aucpr(df, "y", "s").conf_int(level=df.lazy())
    assert str(info.value) == "`level` must be a number between 0 and 1; got a LazyFrame of type LazyFrame"
    with pytest.raises(InputTypeError) as info:
        aucpr(df.to_pandas(), "y", df.to_pandas())
    assert str(info.value) == "`score` must be a column name (str) or a list of column names; got a DataFrame of " \
                              "shape (100, 4) of type DataFrame"
    with pytest.raises(InputTypeError) as info:
        aucpr(df, "y", "s", by=df)
    assert str(info.value) == ("`by` must be None, a column name or a list of column names; got DataFrame")


def test_table_digits_accept_numpy_integers_and_refuse_negative_ones():
    import numpy as np
    import polars as pl
    import pytest

    from aucpr_stats import aucpr, compare
    from aucpr_stats.exceptions import InputError
    from aucpr_stats.report import comparison_table, publication_table

    df = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0] * 10, "s": np.arange(60.0) % 7, "t": np.arange(60.0) % 5})
    assert publication_table(aucpr(df, "y", "s"), digits=np.int64(3), method=None).cells["AUCPR"][0] == \
        f"{aucpr(df, 'y', 's').estimate:.3f}"
    assert comparison_table(compare(df, "y", ["s", "t"]), digits=np.int32(2)).cells.height == 1
    with pytest.raises(InputError, match=r"`digits` must be at least 0; got -1"):
        publication_table(aucpr(df, "y", "s"), digits=-1)


# ------------------------------------------------------------------ issue 37: the last raw errors of the campaign
def test_float_negative_level_on_an_integer_outcome(df):
    # `negative=0.0` on an Int64 outcome raised polars' raw `is_in` error; it is the level 0, as `positive=1.0` is 1
    from sklearn.metrics import roc_auc_score

    three = df.with_columns(y=pl.when(pl.col("g") == "a").then(pl.col("y")).otherwise(pl.col("y") * 2))  # 0, 1, 2
    got = auroc(three, outcome="y", score="s", positive=1.0, negative=0.0, missing="drop")
    kept = three.filter(pl.col("y") <= 1)
    assert got.estimate == pytest.approx(roc_auc_score(kept["y"], kept["s"]), abs=1e-12)
    assert int(got.to_frame()["n_pos"][0] + got.to_frame()["n_neg"][0]) == kept.height


def test_table_labels_must_be_text(df):
    result = aucpr(df, outcome="y", score="s", by="g")
    with pytest.raises(InputTypeError, match=r"`labels` values must be text; 1 are not, e.g. 'g' -> 5 \(int\)"):
        result.table(labels={"g": 5})
    with pytest.raises(InputTypeError, match="`labels` must be a dict"):
        result.table(labels=["g"])
    assert "Site" in result.table(labels={"g": "Site"}).to_markdown()


def test_repr_of_a_heterogeneity_result_without_a_test(df):
    one_group = df.with_columns(g=pl.lit("a"))
    text = repr(aucpr(one_group, outcome="y", score="s", by="g").heterogeneity())
    assert "statistic=NaN" in text and "p_value=NaN" in text and "k=1" in text


def test_a_closed_duckdb_connection_is_named():
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    relation = con.sql("select * from (values (0, 0.1), (1, 0.9)) t(y, s)")
    con.close()
    with pytest.raises(InputError, match="its DuckDB connection is closed"):
        auroc(relation, outcome="y", score="s")


@pytest.mark.parametrize("column, bad", [("y", "x"), ("s", [1, 2])])
def test_a_pandas_column_polars_cannot_convert_is_named(column, bad):
    frame = pd.DataFrame({"y": np.tile([0, 1], 5).astype(object), "s": np.linspace(0, 1, 10).astype(object)})
    frame.loc[3, column] = bad
    with pytest.raises(InputTypeError, match=f"could not be converted from pandas to polars, column '{column}'"):
        auroc(frame, outcome="y", score="s")
