"""Tests of cv_curves: ROC and PR curves and their areas averaged over cross-validation folds.

Oracles: the expected averaged curves of precrec's own test suite (precrec
cannot be installed here: no Debian package, no CRAN); a brute-force loop
per fold (ROC by sklearn.metrics.roc_curve and np.interp, PR by the
Davis-Goadrich interpolation in exact fractions), the mean, SD, normal band
and t interval by hand with scipy.stats; the fold areas by sklearn's
roc_auc_score and average_precision_score, or by aucpr()/auroc() on each
fold's rows.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from scipy import stats
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

from aucpr_stats import aucpr, auroc
from aucpr_stats.curves.cv_average import CvCurvesResult, cv_curves, fold_curve_values
from aucpr_stats.estimators.pr_points import dg_interpolate
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError
from aucpr_stats.ties import TieTable


# ---------------------------------------------------------------------------------------------- oracles
def _counts(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """fpr, tpr and the integer fp, tp at every threshold (start point first), from sklearn."""
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    n_pos, n_neg = int(y.sum()), int((1 - y).sum())
    return fpr, tpr, np.rint(fpr * n_neg).astype(int), np.rint(tpr * n_pos).astype(int)


def roc_oracle(y, s, bins: int) -> np.ndarray:
    """precrec's rows: x = 0 (start), 0, 1/B .. (B-1)/B, 1 (first point at fpr 1), 1; np.interp takes the
    last of tied x values, the top of a vertical run."""
    fpr, tpr, _, _ = _counts(y, s)
    x = np.arange(bins + 1) / bins
    inner = np.interp(x, fpr, tpr)
    first_at_one = tpr[np.flatnonzero(fpr == 1.0)[0]]
    return np.concatenate([[0.0], inner[:bins], [first_at_one], [inner[bins]]])


def pr_oracle(y, s, bins: int) -> np.ndarray:
    """Davis & Goadrich (2006): between points A and B each extra true positive brings
    (FP_B - FP_A) / (TP_B - TP_A) false positives; at a recall with several points the last one;
    at recall 0 precrec's rule (the precision of the first threshold); exact fractions."""
    _, _, fp, tp = _counts(y, s)
    n_pos = int(y.sum())
    out = []
    for j in range(bins + 1):
        target = Fraction(j, bins) * n_pos
        if j == 0:
            out.append(Fraction(tp[1], tp[1] + fp[1]))
            continue
        lo = max(i for i in range(tp.size) if tp[i] <= target)
        hi = min(lo + 1, tp.size - 1)
        if tp[hi] == tp[lo]:
            out.append(Fraction(tp[lo], tp[lo] + fp[lo]))
            continue
        extra = target - tp[lo]
        false_pos = fp[lo] + extra * Fraction(int(fp[hi] - fp[lo]), int(tp[hi] - tp[lo]))
        out.append(target / (target + false_pos))
    first = int(np.flatnonzero(tp == n_pos)[0])
    values = [float(v) for v in out]
    return np.array([values[0]] + values[:bins] + [tp[first] / (tp[first] + fp[first]), values[bins]])


def _data(seed: int, groups=("a", "b"), n=(60, 41), k=(5, 3), decimals=1) -> pl.DataFrame:
    """Per group ``n`` rows in ``k`` folds of unequal sizes, each fold holding both classes; tied scores."""
    rng = np.random.default_rng(seed)
    frames = []
    for g, rows, folds in zip(groups, n, k):
        y = np.zeros(rows, dtype=int)
        y[: rows // 3] = 1
        rng.shuffle(y)
        fold = rng.integers(0, folds, rows)
        fold[:2 * folds] = np.repeat(np.arange(folds), 2)  # every fold has rows
        for f in range(folds):  # both classes in every fold
            members = np.flatnonzero(fold == f)
            y[members[0]], y[members[1]] = 1, 0
        s = np.round(rng.normal(y * 1.0, 1.0), decimals)
        frames.append(pl.DataFrame({"g": [g] * rows, "fold": fold, "y": y, "s": s}))
    return pl.concat(frames)


def _brute_force(df: pl.DataFrame, curve: str, bins: int, by="g") -> dict:
    """Per group: the fold curves (folds sorted) by the oracles."""
    oracle = roc_oracle if curve == "roc" else pr_oracle
    out = {}
    for (g,), part in df.sort(by).partition_by(by, as_dict=True, maintain_order=True).items():
        curves = [oracle(f["y"].to_numpy(), f["s"].to_numpy(), bins)
                  for _, f in sorted(part.partition_by("fold", as_dict=True).items())]
        out[g] = np.array(curves)
    return out


# ---------------------------------------------------------------------------------------------- precrec
# precrec's tests/testthat/test_pl6_2_calc_avg_curves.R (x_bins = 4, cb_alpha = 0.05): the expected
# averaged curves of its data sets, compared there at tolerance 1e-3.
PRECREC_SETS = {
    "d1": ([1, 2, 3, 4], [1, 0, 1, 1]),
    "d2": ([5, 6, 7, 8], [0, 1, 1, 1]),
    "d3": ([2, 4, 6, 8], [1, 1, 0, 1]),
}
PRECREC_EXPECTED = {
    # three data sets as three folds of one model ("sm test data")
    ("sm", "roc"): {"mean": [0, 0.6666, 0.6666, 0.6666, 0.6666, 0.6666, 1],
                    "se": [0, 0.1924, 0.1924, 0.1924, 0.1924, 0.1924, 0],
                    "upper": [0, 1.043704, 1.043704, 1.043704, 1.043704, 1.043704, 1],
                    "lower": [0, 0.2894, 0.2894, 0.2894, 0.2894, 0.2894, 1]},
    ("sm", "pr"): {"mean": [1, 1, 1, 0.8666, 0.7948, 0.8333, 0.75],
                   "se": [0, 0, 0, 0.1333, 0.1025, 0.0833, 0],
                   "upper": [1, 1, 1, 1.127868, 0.9958, 0.9966, 0.75],
                   "lower": [1, 1, 1, 0.6053, 0.5938, 0.67, 0.75]},
    # model m1: d1 and d3 as two folds ("mm test data")
    ("m1", "roc"): {"mean": [0, 0.5, 0.5, 0.5, 0.5, 0.5, 1], "se": [0, 0.1666, 0.1666, 0.1666, 0.1666, 0.1666, 0],
                    "upper": [0, 0.8266, 0.8266, 0.8266, 0.8266, 0.8266, 1],
                    "lower": [0, 0.1733, 0.1733, 0.1733, 0.1733, 0.1733, 1]},
    ("m1", "pr"): {"mean": [1, 1, 1, 0.8, 0.6923, 0.75, 0.75], "se": [0, 0, 0, 0.2, 0, 0, 0],
                   "upper": [1, 1, 1, 1.192, 0.6923, 0.75, 0.75], "lower": [1, 1, 1, 0.408, 0.6923, 0.75, 0.75]},
    # model m2: d2 and d3 as two folds
    ("m2", "roc"): {"mean": [0, 0.6666, 0.6666, 0.6666, 0.6666, 0.6666, 1],
                    "se": [0, 0.3333, 0.3333, 0.3333, 0.3333, 0.3333, 0],
                    "upper": [0, 1.319868, 1.319868, 1.319868, 1.319868, 1.319868, 1],
                    "lower": [0, 0.013333, 0.013333, 0.013333, 0.013333, 0.013333, 1]},
    ("m2", "pr"): {"mean": [1, 1, 1, 0.8, 0.8461, 0.875, 0.75], "se": [0, 0, 0, 0.2, 0.1538, 0.125, 0],
                   "upper": [1, 1, 1, 1.192, 1.147548, 1.12, 0.75], "lower": [1, 1, 1, 0.408, 0.5446, 0.63, 0.75]},
}
PRECREC_MODELS = {"sm": ("d1", "d2", "d3"), "m1": ("d1", "d3"), "m2": ("d2", "d3")}


def _precrec_frame() -> pl.DataFrame:
    rows = []
    for model, sets in PRECREC_MODELS.items():
        for d in sets:
            scores, labels = PRECREC_SETS[d]
            rows += [{"model": model, "dsid": d, "score": float(s), "label": lab} for s, lab in zip(scores, labels)]
    return pl.DataFrame(rows)


@pytest.mark.parametrize("curve", ["roc", "pr"])
def test_precrec_expected_averages(curve):
    result = cv_curves(_precrec_frame(), "label", "score", "dsid", "model", curve=curve, grid=5)
    frame = result.to_frame()
    for model, sets in PRECREC_MODELS.items():
        part = frame.filter(pl.col("model") == model)
        assert part["x"].to_list() == [0, 0, 0.25, 0.5, 0.75, 1, 1]
        assert part["n_folds"].to_list() == [len(sets)] * 7
        for column, expected in PRECREC_EXPECTED[(model, curve)].items():
            if column in ("lower", "upper"):  # precrec leaves the band past 0 and 1; here it is cut there
                expected = np.clip(expected, 0.0, 1.0)
            np.testing.assert_allclose(part[column].to_numpy(), expected, atol=1e-3, err_msg=f"{model} {column}")


# ---------------------------------------------------------------------------------------------- brute force
@pytest.mark.parametrize("curve", ["roc", "pr"])
@pytest.mark.parametrize("grid,seed", [(101, 1), (7, 2), (40, 3)])
def test_curves_match_brute_force(curve, grid, seed):
    df = _data(seed)
    result = cv_curves(df, "y", "s", "fold", "g", curve=curve, grid=grid, level=0.9)
    oracle = _brute_force(df, curve, grid - 1)
    frame, folds = result.to_frame(), result.folds
    z = stats.norm.ppf(0.95)
    for g, values in oracle.items():
        k = values.shape[0]
        got_folds = folds.filter(pl.col("g") == g)
        np.testing.assert_allclose(got_folds["y"].to_numpy().reshape(k, -1), values, rtol=0, atol=1e-12)
        mean = values.mean(axis=0)
        se = values.std(axis=0, ddof=1) / np.sqrt(k)
        part = frame.filter(pl.col("g") == g)
        np.testing.assert_allclose(part["mean"].to_numpy(), mean, atol=1e-12)
        np.testing.assert_allclose(part["se"].to_numpy(), se, atol=1e-12)
        np.testing.assert_allclose(part["lower"].to_numpy(), np.clip(mean - z * se, 0, 1), atol=1e-12)
        np.testing.assert_allclose(part["upper"].to_numpy(), np.clip(mean + z * se, 0, 1), atol=1e-12)
        assert (part["n_folds"] == k).all() and (part["level"] == 0.9).all()
        x = [0.0, 0.0] + [j / (grid - 1) for j in range(1, grid - 1)] + [1.0, 1.0]
        assert part["x"].to_list() == x


@pytest.mark.parametrize("curve", ["roc", "pr"])
def test_small_random_cases_match_brute_force(curve):
    """Tiny folds (2-9 rows), few distinct scores, odd grids: every fold curve as the oracle's."""
    rng = np.random.default_rng(20)
    for _ in range(40):
        k = int(rng.integers(2, 5))
        sizes = rng.integers(2, 10, k)
        fold = np.repeat(np.arange(k), sizes)
        y = (rng.random(fold.size) < rng.uniform(0.2, 0.8)).astype(int)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        y[starts], y[starts + 1] = 1, 0
        s = rng.integers(0, int(rng.integers(1, 5)), fold.size).astype(float)
        grid = int(rng.integers(2, 30))
        df = pl.DataFrame({"g": ["a"] * fold.size, "fold": fold, "y": y, "s": s})
        got = cv_curves(df, "y", "s", "fold", curve=curve, grid=grid).folds["y"].to_numpy()
        expected = _brute_force(df, curve, grid - 1)["a"]
        np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=0, atol=1e-12)


def test_pr_pieces_are_davis_goadrich():
    """Inside a piece with positive recall at both ends the fold value is dg_interpolate's (never a straight line)."""
    t = TieTable(score=[5.0, 4.0, 3.0, 2.0, 1.0], pos=[1, 0, 2, 1, 0], neg=[0, 2, 1, 0, 3], offsets=[0, 5])
    bins = 20
    values = fold_curve_values(t, "pr", bins)[0]
    r = np.arange(1, bins) / bins
    inside = (r > 0.25) & (r < 0.75)  # between the points (recall 1/4, precision 1/3) and (3/4, 1/2)
    expected = dg_interpolate(0.25, 1 / 3, 0.75, 0.5, r[inside])
    np.testing.assert_allclose(values[2:bins + 1][inside], expected, atol=1e-12)
    straight = 1 / 3 + (r[inside] - 0.25) / 0.5 * (0.5 - 1 / 3)
    assert np.abs(values[2:bins + 1][inside] - straight).max() > 1e-3


# ---------------------------------------------------------------------------------------------- areas
def test_areas_match_sklearn_and_t_interval():
    df = _data(7, decimals=8)  # no ties across classes: sklearn's AP is the package's average precision
    level = 0.9
    roc = cv_curves(df, "y", "s", "fold", "g", curve="roc", level=level).areas()
    pr = cv_curves(df, "y", "s", "fold", "g", curve="pr", level=level).areas()
    for frame, metric, name in ((roc, roc_auc_score, "a_prime"), (pr, average_precision_score, "average_precision")):
        for (g,), part in df.sort("g").partition_by("g", as_dict=True, maintain_order=True).items():
            per_fold = np.array([metric(f["y"].to_numpy(), f["s"].to_numpy())
                                 for _, f in sorted(part.partition_by("fold", as_dict=True).items())])
            rows = frame.filter(pl.col("g") == g)
            fold_rows = rows.filter(pl.col("statistic") == "fold")
            assert fold_rows["fold"].to_list() == sorted(part["fold"].unique().to_list())
            assert set(fold_rows["estimator"]) == {name}
            np.testing.assert_allclose(fold_rows["estimate"].to_numpy(), per_fold, atol=1e-12)
            k = per_fold.size
            mean, sd = per_fold.mean(), per_fold.std(ddof=1)
            half = stats.t.ppf((1 + level) / 2, k - 1) * sd / np.sqrt(k)
            summary = rows.filter(pl.col("statistic") == "mean").row(0, named=True)
            assert summary["fold"] is None and summary["n_folds"] == k and summary["level"] == level
            expected = [mean, sd, sd / np.sqrt(k), max(mean - half, 0.0), min(mean + half, 1.0)]  # cut at 0, 1
            np.testing.assert_allclose([summary["estimate"], summary["sd"], summary["se"], summary["lower"],
                                        summary["upper"]], expected, atol=1e-12)
            assert rows["statistic"].to_list()[-1] == "mean"  # each group's summary after its folds


def test_areas_with_ties_match_each_folds_own_estimate():
    df = _data(11, decimals=0)  # heavy ties across classes
    result = cv_curves(df, "y", "s", "fold", "g", curve="pr", estimator=["average_precision", "lower_trapezoid"])
    frame = result.areas(level=0.8).filter(pl.col("statistic") == "fold")
    for (g, f), part in df.partition_by(["g", "fold"], as_dict=True).items():
        for name in ("average_precision", "lower_trapezoid"):
            own = aucpr(part, "y", "s", estimator=name).estimate
            got = frame.filter((pl.col("g") == g) & (pl.col("fold") == f) & (pl.col("estimator") == name))
            np.testing.assert_allclose(got["estimate"].to_numpy(), np.ravel(own), atol=1e-12)
    roc = cv_curves(df, "y", "s", "fold", "g").areas().filter(pl.col("statistic") == "fold")
    part = df.filter((pl.col("g") == "a") & (pl.col("fold") == 0))
    np.testing.assert_allclose(roc.filter((pl.col("g") == "a") & (pl.col("fold") == 0))["estimate"].to_numpy(),
                               np.ravel(auroc(part, "y", "s").estimate), atol=1e-12)


# ---------------------------------------------------------------------------------------------- edge cases
def _small(y, s, fold):
    return pl.DataFrame({"y": y, "s": s, "fold": fold})


def test_fold_without_both_classes_gives_nan_note_and_warning():
    df = _small([1, 0, 1, 0, 1, 1, 1, 0, 0], [0.9, 0.1, 0.8, 0.3, 0.7, 0.6, 0.5, 0.4, 0.2], [1, 1, 2, 2, 3, 3, 3, 4, 4])
    with pytest.warns(DegenerateGroupWarning, match="folds without both classes"):
        result = cv_curves(df, "y", "s", "fold", curve="pr")
    frame = result.to_frame()
    assert frame["mean"].is_nan().all() and frame["lower"].is_nan().all()
    assert frame["note"][0] == ("2 of 4 folds lack a class: no average over the folds "
                                "(use fewer folds than positives and negatives)")
    folds = result.folds
    assert folds.filter(pl.col("fold").is_in([3, 4]))["y"].is_nan().all()
    assert not folds.filter(pl.col("fold").is_in([1, 2]))["y"].is_nan().any()
    areas = result.areas()
    assert areas.filter(pl.col("fold").is_in([3, 4]))["estimate"].is_nan().all()
    summary = areas.filter(pl.col("statistic") == "mean")
    assert np.isnan(summary["estimate"][0]) and summary["n_folds"][0] == 2
    assert "2 of 4 folds" in result.summary()


def test_one_fold_is_refused():
    df = _small([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], [1, 1, 1, 1])
    with pytest.raises(InputError, match="at least two folds"):
        cv_curves(df, "y", "s", "fold")
    two_groups = df.with_columns(g=pl.Series(["a", "a", "b", "b"]), fold=pl.Series([1, 2, 1, 1]))
    with pytest.raises(InputError, match="1 of 2 groups have only one fold"):
        cv_curves(two_groups, "y", "s", "fold", "g")


def test_perfect_separation_and_constant_scores():
    df = _small([1, 0, 1, 0, 0, 1, 0], [0.9, 0.1, 0.8, 0.3, 0.2, 0.7, 0.6], [1, 1, 2, 2, 2, 3, 3])
    for curve in ("roc", "pr"):
        frame = cv_curves(df, "y", "s", "fold", curve=curve, grid=11).to_frame()
        expected = np.ones(13)
        if curve == "roc":
            expected[0] = 0.0
        else:  # the last row: each fold's prevalence, 1/2, 1/3, 1/2
            expected[-1] = (0.5 + 1 / 3 + 0.5) / 3
        np.testing.assert_allclose(frame["mean"].to_numpy(), expected, atol=1e-15)
    constant = df.with_columns(s=pl.lit(0.5))
    roc = cv_curves(constant, "y", "s", "fold", grid=5).to_frame()
    np.testing.assert_allclose(roc["mean"].to_numpy(), [0, 0, 0.25, 0.5, 0.75, 1, 1], atol=1e-15)
    pr = cv_curves(constant, "y", "s", "fold", curve="pr", grid=5).to_frame()
    np.testing.assert_allclose(pr["mean"].to_numpy(), np.full(7, (0.5 + 1 / 3 + 0.5) / 3), atol=1e-15)
    np.testing.assert_allclose(pr["se"].to_numpy(), np.full(7, np.std([0.5, 1 / 3, 0.5], ddof=1) / np.sqrt(3)))


def test_tiny_folds_of_two_cases():
    df = _small([1, 0, 0, 1], [0.2, 0.6, 0.3, 0.9], [1, 1, 2, 2])  # fold 1 reversed, fold 2 perfect
    frame = cv_curves(df, "y", "s", "fold", grid=3).to_frame()
    np.testing.assert_allclose(frame["mean"].to_numpy(), [0, 0.5, 0.5, 0.5, 1], atol=1e-15)
    areas = cv_curves(df, "y", "s", "fold", grid=3).areas()
    np.testing.assert_allclose(areas["estimate"].to_numpy(), [0.0, 1.0, 0.5])


def test_direction_lower_is_the_negated_score():
    df = _data(5)
    lower = cv_curves(df, "y", "s", "fold", "g", curve="pr", direction="lower")
    negated = cv_curves(df.with_columns(-pl.col("s")), "y", "s", "fold", "g", curve="pr")
    np.testing.assert_allclose(lower.to_frame()["mean"].to_numpy(), negated.to_frame()["mean"].to_numpy())


def test_pandas_in_pandas_out_and_formula():
    pd = pytest.importorskip("pandas")
    df = _data(4)
    result = cv_curves(df.to_pandas(), "y", "s", "fold", "g")
    assert isinstance(result, CvCurvesResult)
    assert isinstance(result.to_frame(), pd.DataFrame) and isinstance(result.folds, pd.DataFrame)
    assert isinstance(result.areas(), pd.DataFrame)
    assert list(result.to_frame().columns) == ["g", "x", "mean", "se", "lower", "upper", "level", "n_folds", "note"]
    formula = cv_curves("y ~ s | g", data=df, fold="fold")
    np.testing.assert_allclose(formula.to_frame()["mean"].to_numpy(), result.to_frame()["mean"].to_numpy())


def test_several_scores_and_string_folds():
    df = _data(6).with_columns(t=pl.col("s") * 0.5 + pl.col("y"), fold=pl.format("fold {}", pl.col("fold")))
    result = cv_curves(df, "y", ["s", "t"], "fold", "g", curve="pr", grid=11)
    frame = result.to_frame()
    assert frame.columns[:2] == ["g", "score"] and frame.height == 2 * 2 * 13
    alone = cv_curves(df, "y", "t", "fold", "g", curve="pr", grid=11).to_frame()
    np.testing.assert_allclose(frame.filter(pl.col("score") == "t")["mean"].to_numpy(), alone["mean"].to_numpy())
    assert result.areas()["fold"].dtype == pl.String


def test_summary_and_repr():
    result = cv_curves(_data(8), "y", "s", "fold", "g")
    text = result.summary()
    assert "not independent" in text and "a_prime" in text
    assert repr(result).startswith("CvCurvesResult(curve='roc'")


def test_plot_draws_mean_band_and_folds():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = cv_curves(_data(9), "y", "s", "fold", "g", curve="pr", grid=21)
    ax = result.plot()
    assert len(ax.lines) == 5 + 3 + 2  # folds of both groups, then each group's mean
    np.testing.assert_allclose(ax.lines[5].get_ydata(), result.to_frame().filter(pl.col("g") == "a")["mean"])
    plt.close("all")


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs,error,message", [
    ({"curve": "prc"}, InputError, "`curve` must be one of"),
    ({"grid": 1}, InputError, "`grid` must be at least 2"),
    ({"grid": 10**7}, InputError, "`grid` must be at most"),
    ({"grid": 10.0}, InputTypeError, "`grid` must be an integer"),
    ({"level": 1.5}, InputError, "`level` must be strictly between"),
    ({"estimator": "average_precision"}, InputError, "estimator"),
    ({"fold": None}, InputError, "`fold` is required"),
    ({"fold": "nope"}, InputError, "nope"),
])
def test_bad_input(kwargs, error, message):
    df = _data(10)
    arguments = {"fold": "fold", **kwargs}
    with pytest.raises(error, match=message):
        cv_curves(df, "y", "s", by="g", **arguments)


def test_missing_fold_values_are_refused():
    df = _small([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], [1, 1, None, 2])
    with pytest.raises(InputError, match="missing"):
        cv_curves(df, "y", "s", "fold")


def test_no_warning_for_clean_folds():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cv_curves(_data(12), "y", "s", "fold", "g", curve="pr")
