"""Cross-validation intervals: stratified folds, the caller's fold column, hand computations."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats
from sklearn.metrics import average_precision_score

from aucpr_stats import aucpr
from aucpr_stats.ties import TieTable
from aucpr_stats.estimators import PR_ESTIMATORS
from aucpr_stats.exceptions import ColumnNotFoundError, InputError
from aucpr_stats.intervals import cross_validation as cv
from aucpr_stats.resample import stratified_folds
from aucpr_stats.simulate.arms import INTERVAL_METHODS as STUDY_ARMS
from tests.conftest import as_polars, make_frame, random_scores


def _fold_data(seed: int = 1, n: int = 400):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n, prevalence=0.25, ties=True)
    return {"y": y, "s": s, "site": rng.choice(["a", "b"], n), "fold": rng.integers(1, 6, n)}


def test_stratified_folds_partition_every_row_and_balance_each_class():
    t = TieTable([5, 4, 3, 2, 1, 9, 8, 7], [30, 0, 5, 1, 4, 100, 200, 0], [3, 50, 2, 7, 0, 10, 0, 400], [0, 5, 8])
    k = 7
    folds = stratified_folds(t, k, np.random.default_rng(1))
    assert folds.n_segments == 2 * k
    for s in range(2):
        seg = t.segment(s)
        parts = [folds.segment(s * k + f) for f in range(k)]
        # every fold keeps the segment's scores, and the folds add up to the segment, row by row
        for part in parts:
            np.testing.assert_array_equal(part.score, seg.score)
        np.testing.assert_array_equal(sum(p.pos for p in parts), seg.pos)
        np.testing.assert_array_equal(sum(p.neg for p in parts), seg.neg)
        for klass in ("n_pos", "n_neg"):
            sizes = np.array([getattr(p, klass)[0] for p in parts])
            total = getattr(seg, klass)[0]
            assert set(sizes) <= {total // k, -(-total // k)}


def test_stratified_folds_are_random_hypergeometric_splits():
    # one row of 6 positives among 12: the count a fold of size 6 takes from it is hypergeometric
    t = TieTable([2.0, 1.0], [6, 6], [5, 5], [0, 2])
    rng = np.random.default_rng(2)
    draws = np.array([stratified_folds(t, 2, rng).pos[0] for _ in range(3000)])
    expected = stats.hypergeom(12, 6, 6)
    assert draws.mean() == pytest.approx(expected.mean(), abs=4.5 * expected.std() / np.sqrt(3000))
    assert draws.var() == pytest.approx(expected.var(), rel=0.15)


def test_cv_interval_by_hand():
    values = np.array([[0.5, 0.6, 0.7, np.nan], [0.2, np.nan, np.nan, np.nan]])
    out = cv.cv_interval(values, 0.95, "t")
    sd = np.std([0.5, 0.6, 0.7], ddof=1)
    half = stats.t.ppf(0.975, 2) * sd / np.sqrt(3)
    assert out["lower"][0] == pytest.approx(0.6 - half)
    assert out["upper"][0] == pytest.approx(0.6 + half)
    assert out["folds"].tolist() == [3, 1]
    assert np.isnan(out["lower"][1]) and out["mean"][1] == pytest.approx(0.2)
    normal = cv.cv_interval(values, 0.95, "normal")
    assert normal["upper"][0] == pytest.approx(0.6 + stats.norm.ppf(0.975) * sd / np.sqrt(3))


def test_fold_column_interval_equals_a_hand_computation(frame_kind):
    data = _fold_data()
    frame = make_frame(data, frame_kind)
    result = aucpr(frame, "y", "s", by="site", fold="fold", estimator="average_precision", ties="published")
    ci, per_fold = result.conf_int(method="cross_validation", level=0.9, return_folds=True)
    ci, per_fold = as_polars(ci), as_polars(per_fold)
    y, s, site, fold = (np.asarray(data[c]) for c in ("y", "s", "site", "fold"))
    for i, g in enumerate(["a", "b"]):
        values = []
        for f in range(1, 6):
            keep = (site == g) & (fold == f)
            values.append(average_precision_score(y[keep], s[keep]))
        values = np.array(values)
        mean, sd = values.mean(), values.std(ddof=1)
        half = stats.t.ppf(0.95, 4) * sd / np.sqrt(5)
        row = ci.row(i, named=True)
        assert row["site"] == g and row["method"] == "cross_validation"
        assert row["lower"] == pytest.approx(mean - half, abs=1e-12)
        assert row["upper"] == pytest.approx(mean + half, abs=1e-12)
        assert row["se"] == pytest.approx(sd / np.sqrt(5), abs=1e-12)
        assert row["folds"] == 5 and row["fold_mean"] == pytest.approx(mean, abs=1e-12)
        assert row["estimate"] == pytest.approx(average_precision_score(y[site == g], s[site == g]), abs=1e-12)
        mine = per_fold.filter(pl.col("site") == g).sort("fold")
        assert mine["fold"].to_list() == [1, 2, 3, 4, 5]
        np.testing.assert_allclose(mine["estimate"].to_numpy(), values, atol=1e-12)
        assert mine["n_pos"].to_list() == [int(((site == g) & (fold == f) & y).sum()) for f in range(1, 6)]


def test_fold_column_is_the_default_when_given_and_random_folds_on_request():
    data = _fold_data(3)
    result = aucpr(pl.DataFrame(data), "y", "s", fold="fold")
    default = result.conf_int(method="cross_validation")
    explicit = result.conf_int(method="cross_validation", folds="column")
    assert default.equals(explicit)
    assert default["folds"][0] == 5
    random10 = result.conf_int(method="cross_validation", folds=10, seed=1)
    assert random10["folds"][0] == 10
    assert random10.equals(result.conf_int(method="cross_validation", folds=10, seed=1))
    assert not random10.equals(result.conf_int(method="cross_validation", folds=10, seed=2))


def test_random_folds_interval_is_the_mean_of_fold_estimates():
    data = _fold_data(4)
    result = aucpr(pl.DataFrame(data), "y", "s", by="site")
    ci, per_fold = result.conf_int(method="cross_validation", folds=4, seed=3, quantile="normal", return_folds=True)
    for i, g in enumerate(["a", "b"]):
        values = per_fold.filter(pl.col("site") == g)["estimate"].to_numpy()
        assert values.size == 4
        half = stats.norm.ppf(0.975) * values.std(ddof=1) / 2
        assert ci["lower"][i] == pytest.approx(values.mean() - half)
        assert ci["fold_mean"][i] == pytest.approx(values.mean())
    # the per-fold counts add up to the group's
    sums = per_fold.group_by("site").agg(pl.col("n_pos").sum()).sort("site")
    assert sums["n_pos"].to_list() == ci["n_pos"].to_list()


def test_fold_estimates_function_matches_return_folds():
    from aucpr_stats.intervals import fold_estimates

    result = aucpr(pl.DataFrame(_fold_data(5)), "y", "s")
    _, per_fold = result.conf_int(method="cross_validation", folds=3, seed=9, return_folds=True)
    assert fold_estimates(result, folds=3, seed=9).equals(per_fold)


def test_folds_without_a_class_give_nan_with_a_note():
    # issue 14: a fold without positives means the k-fold interval cannot be formed (was: folds left out)
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], dtype=bool)
    s = np.arange(12, dtype=float)
    result = aucpr(pl.DataFrame({"y": y, "s": s}), "y", "s")
    out = result.conf_int(method="cross_validation", folds=5, seed=1)
    assert out["folds"][0] == 3
    assert np.isnan(out["lower"][0]) and np.isnan(out["upper"][0])
    assert out["note"][0].startswith("2 of 5 folds lack a class: no cross-validation interval")
    tiny = aucpr(pl.DataFrame({"y": [True, False, False, False], "s": [1.0, 2, 3, 4]}), "y", "s")
    out = tiny.conf_int(method="cross_validation", folds=2, seed=1)
    assert np.isnan(out["lower"][0]) and out["note"][0] == "1 positive: no interval can be formed"


def test_fold_column_errors():
    data = _fold_data(6)
    df = pl.DataFrame(data)
    with pytest.raises(ColumnNotFoundError, match="column 'nope' given as `fold` is not in `data`"):
        aucpr(df, "y", "s", fold="nope")
    with pytest.raises(InputError, match="already the `by` column"):
        aucpr(df, "y", "s", by="site", fold="site")
    with_null = df.with_columns(pl.when(pl.col("fold") == 3).then(None).otherwise(pl.col("fold")).alias("fold"))
    with pytest.raises(InputError, match=r"missing \(null or NaN\) values"):
        aucpr(with_null, "y", "s", fold="fold")
    plain = aucpr(df, "y", "s")
    with pytest.raises(InputError, match="fold="):
        plain.conf_int(method="cross_validation", folds="column")
    with pytest.raises(InputError, match="`folds`"):
        plain.conf_int(method="cross_validation", folds=1)


def test_study_interval_for_arrays_of_data_sets():
    t = TieTable([3, 2, 1, 3, 2, 1], [10, 5, 5, 20, 2, 2], [2, 10, 30, 3, 3, 40], [0, 3, 6])
    arm = STUDY_ARMS["cross_validation"]
    lower, upper, _ = arm(t, None, PR_ESTIMATORS["average_precision"], 0.95, np.random.default_rng(1), {"folds": 5})
    assert lower.shape == upper.shape == (2,)
    assert np.all(lower < upper)
