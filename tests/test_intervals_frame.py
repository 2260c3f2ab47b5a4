"""`AucprResult.conf_int`: frame layout, types, methods, degenerate groups and argument errors."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError, SmallSampleWarning
from aucpr_stats.intervals import binomial_interval, binomial_se, logit_interval
from tests.conftest import as_polars, make_frame, random_scores, result_frame_type


def _data(seed: int = 1, n: int = 300):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n, prevalence=0.3)
    site = rng.choice(["x", "y", "z"], n)
    y = y & (site != "z")  # site z has no positives
    return {"outcome": y, "score": s, "site": site}


def _result(frame_kind="polars", **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        return aucpr(make_frame(_data(), frame_kind), "outcome", "score", by="site", **kwargs)


def test_frame_type_columns_and_dtypes(frame_kind):
    result = _result(frame_kind, estimator=["average_precision", "threshold_trapezoid"])
    out = result.conf_int(method=["logit", "bootstrap", "cross_validation"], n_boot=50, seed=1)
    assert isinstance(out, result_frame_type(frame_kind))
    frame = as_polars(out)
    assert frame.columns == ["site", "estimator", "estimate", "method", "level", "lower", "upper", "se",
                             "n_boot", "boot_mean", "boot_median", "folds", "fold_mean", "n_pos", "n_neg", "note"]
    assert frame.height == 3 * 2 * 3  # groups x estimators x methods
    assert frame["method"].to_list()[:3] == ["logit", "bootstrap", "cross_validation"]
    assert frame["estimator"].to_list()[:6] == ["average_precision"] * 3 + ["threshold_trapezoid"] * 3
    if frame_kind != "pandas":
        schema = frame.schema
        assert schema["estimate"] == pl.Float64 and schema["n_boot"] == pl.Int64 and schema["folds"] == pl.Int64
        assert schema["method"] == pl.String and schema["note"] == pl.String
        # method columns are null on the other methods' rows
        logit_rows = frame.filter(pl.col("method") == "logit")
        assert logit_rows["n_boot"].null_count() == logit_rows.height
        assert frame.filter(pl.col("method") == "bootstrap")["n_boot"].drop_nulls().to_list() == [50, 50, 50, 50, 0, 0]


def test_default_is_logit_and_matches_the_kernel():
    result = _result()
    frame = result.conf_int()
    assert set(frame["method"]) == {"logit"}
    estimates = result.estimates[:, 0]
    lower, upper, se = logit_interval(estimates, binomial_se(estimates, result.n_pos), 0.95)
    np.testing.assert_allclose(frame["lower"].to_numpy(), lower, equal_nan=True)
    np.testing.assert_allclose(frame["upper"].to_numpy(), upper, equal_nan=True)
    b_lower, _, _ = binomial_interval(estimates, result.n_pos, 0.9)
    np.testing.assert_allclose(result.conf_int(method="binomial", level=0.9)["lower"].to_numpy(), b_lower,
                               equal_nan=True)


def test_degenerate_group_keeps_its_row_with_nan_bounds_and_note():
    result = _result()
    frame = result.conf_int(method="all", n_boot=30, seed=2)
    z = frame.filter(pl.col("site") == "z")
    assert z.height == len(set(frame["method"]))
    assert z["lower"].is_nan().all() and z["upper"].is_nan().all()
    assert set(z["note"]) == {"no positives"}
    others = frame.filter(pl.col("site") != "z")
    assert others["lower"].is_nan().sum() == 0


def test_all_methods_include_per_positive_only_when_supported():
    assert "per_positive" in set(_result(estimator="average_precision").conf_int(method="all", n_boot=20)["method"])
    assert "per_positive" not in set(_result(estimator="lower_trapezoid").conf_int(method="all", n_boot=20)["method"])
    frame = _result(estimator="threshold_trapezoid").conf_int(method="per_positive")
    assert frame["se"].is_nan().sum() == 1  # the group without positives


def test_boundary_estimate_notes():
    df = pl.DataFrame({"y": [1, 1, 0, 0], "s": [4.0, 3.0, 2.0, 1.0]})
    with pytest.warns(SmallSampleWarning):
        frame = aucpr(df, "y", "s", estimator="average_precision").conf_int(method=["logit", "binomial"])
    assert frame["estimate"].to_list() == [1.0, 1.0]
    # issue 14: no longer [0, 1] (logit) or [1, 1] (binomial), but Wilson's [n/(n + z^2), 1] on n = 2 positives
    z2 = 1.959963984540054 ** 2
    assert frame["lower"].to_list() == pytest.approx([2 / (2 + z2)] * 2, abs=1e-12)
    assert frame["upper"].to_list() == [1.0, 1.0]
    assert all("boundary fallback: an estimate of 1, so the wilson score interval" in n for n in frame["note"])


def test_bootstrap_columns_and_reproducibility():
    result = _result()
    a = result.conf_int(method="bootstrap", n_boot=200, seed=11)
    b = result.conf_int(method="bootstrap", n_boot=200, seed=11)
    assert a.equals(b)
    ok = a.filter(pl.col("n_pos") > 0)
    assert (ok["lower"] <= ok["boot_median"]).all() and (ok["boot_median"] <= ok["upper"]).all()
    assert (ok["se"] > 0).all()


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"method": "jackknife"}, InputError, "`method` must be one of"),
        ({"method": 3}, InputTypeError, "`method`"),
        ({"level": 1.5}, InputError, "`level`"),
        ({"method": "logit", "n_boot": 10}, InputTypeError, "unexpected option"),
        ({"method": "bootstrap", "n_boot": 1}, InputError, "`n_boot`"),
        ({"method": "bootstrap", "seed": "a"}, InputTypeError, "`seed`"),
        ({"method": "cross_validation", "quantile": "z"}, InputError, "`quantile`"),
        ({"method": "cross_validation", "return_folds": 1}, InputTypeError, "`return_folds`"),
    ],
)
def test_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        _result().conf_int(**kwargs)
