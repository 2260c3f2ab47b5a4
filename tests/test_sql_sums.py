"""The partial-sum road (aucpr_stats.ingest.sums, tables.sums) against the in-memory estimators, to 1e-12.

Oracles: ``aucpr(estimator=["average_precision", "lower_trapezoid"])`` and
``auroc(...).conf_int(method="delong")`` on the same data in polars, and, for
counts too large to make rows of, the in-memory kernels on the tie table
built from the counts (floating point, so they cannot overflow).
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

duckdb = pytest.importorskip("duckdb")

from aucpr_stats import aucpr, auroc
from aucpr_stats.estimators import average_precision, lower_trapezoid
from aucpr_stats.estimators.roc import delong_components
from aucpr_stats.exceptions import InputError, InputTypeError, MissingValueError
from aucpr_stats import sql_sums
from aucpr_stats.ties import TieTable
from tests.backend_cases import cohort, with_missing

TOL = 1e-12


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    yield connection
    connection.close()


def in_memory(frame: pl.DataFrame, by, **kw) -> pl.DataFrame:
    """The same columns from the in-memory path."""
    ties = kw.pop("ties", "interpolate")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr = aucpr(frame, "y", "s", by=by, estimator=["average_precision", "lower_trapezoid"], ties=ties,
                   **kw).to_frame()
        ci = auroc(frame, "y", "s", by=by, **kw).conf_int(method="delong")
    keys = [by] if isinstance(by, str) else list(by or [])
    ap = pr.filter(pl.col("estimator") == "average_precision")
    lt = pr.filter(pl.col("estimator") == "lower_trapezoid")
    return ci.select(*keys, "n_pos", "n_neg").with_columns(n_missing=ap["n_missing"]).with_columns(
        average_precision=ap["estimate"], lower_trapezoid=lt["estimate"], a_prime=ci["estimate"], se=ci["se"],
        lower=ci["lower"], upper=ci["upper"], note=ap["note"])


def assert_close(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.columns == want.columns
    for name in got.columns:
        a, b = got[name], want[name]
        if a.dtype == pl.Float64:
            x, y = a.to_numpy(), b.to_numpy()
            np.testing.assert_array_equal(np.isnan(x), np.isnan(y), err_msg=name)  # the same NaN pattern
            np.testing.assert_allclose(x, y, rtol=TOL, atol=TOL, err_msg=name)
        else:
            assert a.to_list() == b.to_list(), name


SCENARIOS = {
    "ties across classes, by site": (cohort, "site", {}),
    "missing dropped, null key": (lambda: with_missing(cohort()), "site", {"missing": "drop"}),
    "direction lower, two keys": (cohort, ["site", "sex"], {"direction": "lower"}),
    "published tie rule": (cohort, "sex", {"ties": "published"}),
    "constant score": (lambda: cohort().with_columns(s=pl.lit(0.5)), "sex", {}),
    "perfect separation": (lambda: cohort().with_columns(s=pl.col("y").cast(pl.Float64) + pl.col("s2") / 100),
                           None, {}),
    "one to ten positives per group": (
        lambda: cohort().with_columns(y=(pl.int_range(pl.len()) % 40 < pl.col("fold") + 1).cast(pl.Int64),
                                      grp=pl.col("fold")),
        "grp", {}),
    "wide integers": (lambda: cohort().with_columns(s=pl.col("wide")), "sex", {}),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_equal_to_the_in_memory_path(con, name):
    make, by, kw = SCENARIOS[name]
    frame = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = sql_sums(con.from_arrow(frame.to_arrow()), "y", "s", by=by, **kw)
    assert_close(got, in_memory(frame, by, **kw))
    with warnings.catch_warnings(record=True) as expected:  # the same warnings as aucpr()
        warnings.simplefilter("always")
        aucpr(frame, "y", "s", by=by, **kw)
    assert [str(w.message) for w in caught] == [str(w.message) for w in expected]


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6), st.integers(0, 2)), min_size=1, max_size=30))
def test_random_small_tables(rows):
    """Scores with many ties, up to three groups (some with one class only)."""
    frame = pl.DataFrame(rows, schema={"y": pl.Boolean, "s": pl.Int64, "g": pl.Int64}, orient="row")
    if frame["y"].n_unique() < 2:
        return  # one level: both paths refuse (tested below)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups without both classes
        got = sql_sums(duckdb.from_arrow(frame.to_arrow()), "y", "s", by="g")
    assert_close(got, in_memory(frame, "g"))


def test_counts_beyond_64_bits(con):
    """Q = sum p u^2 near 1e24: 64-bit sums overflow; 128-bit sums give DeLong's components exactly.

    (Counts up to about 1e9 per class: beyond that the in-memory oracle's own int64 numerator of A'
    overflows.)
    """
    score = [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    pos = [3 * 10**7, 10**7, 2 * 10**7, 5 * 10**6, 10**7, 7]
    neg = [10**6, 2 * 10**7, 10**7, 3 * 10**7, 10**7, 4 * 10**7]
    rows = pl.DataFrame({"y": [1] * 6 + [0] * 6, "s": score * 2, "k": pos + neg})
    got = sql_sums(con.from_arrow(rows.to_arrow()), "y", "s", counts="k")
    ties = TieTable(score=score, pos=pos, neg=neg, offsets=[0, 6])
    big_n, u = sum(neg), [2 * (sum(neg) - sum(neg[: i + 1])) + neg[i] for i in range(6)]
    assert sum(p * x * x for p, x in zip(pos, u)) > 2**63  # the sum a 64-bit engine would overflow
    auc, s10, s01 = delong_components(ties)
    se = np.sqrt(s10 / sum(pos) + s01 / big_n)
    np.testing.assert_allclose(got["a_prime"][0], auc[0], rtol=TOL)
    np.testing.assert_allclose(got["se"][0], se[0], rtol=TOL)
    np.testing.assert_allclose(got["average_precision"][0], average_precision(ties)[0], rtol=TOL)
    np.testing.assert_allclose(got["lower_trapezoid"][0], lower_trapezoid(ties)[0], rtol=TOL)
    assert got["n_pos"][0] == sum(pos) and got["n_neg"][0] == big_n


def test_exact_integers_where_floats_cancel(con):
    """Variance from P Q - U^2 in integers: zero exactly under perfect separation at any size."""
    rows = pl.DataFrame({"y": [1, 1, 0, 0], "s": [4.0, 3.0, 2.0, 1.0], "k": [10**12, 3 * 10**12, 10**12, 7]})
    got = sql_sums(con.from_arrow(rows.to_arrow()), "y", "s", counts="k")
    assert got["a_prime"][0] == 1.0 and got["se"][0] == 0.0


def test_errors(con):
    frame = with_missing(cohort())
    rel = con.from_arrow(frame.to_arrow())
    with pytest.raises(MissingValueError) as got:
        sql_sums(rel, "y", "s")
    with pytest.raises(MissingValueError) as expected:
        aucpr(frame, "y", "s")
    assert str(got.value) == str(expected.value)
    with pytest.raises(InputTypeError, match="`counts` column 'label' must hold integers"):
        sql_sums(rel, "y", "s2", counts="label")
    with pytest.raises(InputTypeError, match="must be an engine's table"):
        sql_sums(frame, "y", "s2")
    with pytest.raises(InputError, match="single level"):
        sql_sums(con.sql("SELECT 1 AS y, 0.5 AS s"), "y", "s")


def test_several_scores_from_a_parquet_path(tmp_path):
    """A ``score`` key after ``by``, in the order given; missing values judged per score; a Parquet path."""
    frame = with_missing(cohort())
    frame.write_parquet(tmp_path / "cohort.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = sql_sums(str(tmp_path / "cohort.parquet"), "y", ["s2", "s"], by="sex", missing="drop")
        pr = aucpr(frame, "y", ["s2", "s"], by="sex", estimator="average_precision", missing="drop").to_frame()
        roc = auroc(frame, "y", ["s2", "s"], by="sex", missing="drop").to_frame()
    assert got.select("sex", "score", "n_pos", "n_neg", "n_missing").equals(
        pr.select("sex", "score", "n_pos", "n_neg", "n_missing"))
    np.testing.assert_allclose(got["average_precision"].to_numpy(), pr["estimate"].to_numpy(), rtol=TOL)
    np.testing.assert_allclose(got["a_prime"].to_numpy(), roc["estimate"].to_numpy(), rtol=TOL)


def test_direction_auto_is_reported_at_the_callers_line():
    import warnings

    import duckdb
    import numpy as np
    import polars as pl

    from aucpr_stats import DirectionWarning
    from aucpr_stats import sql_sums

    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.3
    df = pl.DataFrame({"y": y, "s": rng.normal(size=300) - y})  # lower scores point to positives
    relation = duckdb.sql("SELECT * FROM df")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = sql_sums(relation, "y", "s", direction="auto")
    chosen = [w for w in caught if issubclass(w.category, DirectionWarning)]
    assert len(chosen) == 1 and "lower scores predict the positive class" in str(chosen[0].message)
    assert chosen[0].filename == __file__
    assert out["a_prime"][0] == sql_sums(relation, "y", "s", direction="lower")["a_prime"][0] > 0.5
