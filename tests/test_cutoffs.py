"""cutoffs(): pROC's coords numbers (kept references), a brute-force oracle, intervals and edges."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from aucpr_stats import DegenerateGroupWarning, InputError, InputTypeError, cutoffs
from aucpr_stats.thresholds import (
    bayes_interval,
    clopper_pearson_interval,
    proportion_interval,
)

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = json.loads((ROOT / "tests" / "reference" / "proc_reference.json").read_text())


def _number(text) -> float:
    return float(text)  # "Inf", "-Inf" and "%.17g" strings all parse


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _case_frame(case) -> pl.DataFrame:
    if "file" in case:
        frame = pl.read_csv(ROOT / case["file"])
        return frame.filter(pl.col("site") == case["group"]).select(y="disease", s="model_a")
    return pl.DataFrame({"y": case["y"], "s": [_number(v) for v in case["s"]]})


def _request(case):
    x = case["x"]
    if x == "best":
        return case["best_method"].replace(".", "_")
    if x == "all":
        return "all"
    return [_number(v) for v in _as_list(x)]


@pytest.mark.parametrize("case", REFERENCE["coords"], ids=[c["name"] for c in REFERENCE["coords"]])
def test_equals_proc_coords(case):
    expected = {k: _as_list(v) for k, v in case["coords"].items()}
    weights = tuple(case["best_weights"])
    out = cutoffs(_case_frame(case), "y", "s", threshold=_request(case), direction=case["direction"],
                  best_weights=weights).to_polars()
    assert out.height == len(expected["threshold"])
    # thresholds: the same doubles, in pROC's order (increasing specificity)
    assert out["threshold"].to_list() == [_number(t) for t in expected["threshold"]]
    for column in ("tp", "fp", "tn", "fn"):
        assert out[column].to_list() == [int(v) for v in expected[column]], column
    for column in ("sensitivity", "specificity", "ppv", "npv"):
        want = np.array([np.nan if v in (None, "NaN", "NA") else v for v in expected[column]], dtype=float)
        np.testing.assert_allclose(out[column].to_numpy(), want, rtol=1e-13, atol=0, err_msg=column)
    r = (1 - weights[1]) / (weights[0] * weights[1])
    se, sp = out["sensitivity"].to_numpy(), out["specificity"].to_numpy()
    # pROC's "youden" column is Se + r Sp; ours is Youden's J = Se + Sp - 1
    np.testing.assert_allclose(se + r * sp, expected["youden"], rtol=1e-13)
    np.testing.assert_allclose(out["youden"].to_numpy(), se + sp - 1, rtol=1e-13)
    np.testing.assert_allclose((1 - se) ** 2 + r * (1 - sp) ** 2, expected["closest.topleft"], rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------ brute force
def _brute_thresholds(s: np.ndarray) -> np.ndarray:
    """pROC's candidate thresholds, increasing: -inf, midpoints of adjacent distinct scores, +inf."""
    u = np.unique(s)
    mids = [(a + b) / 2 if (a + b) / 2 != a else b for a, b in itertools.pairwise(u)]
    return np.array([-np.inf, *mids, np.inf])


def _brute(y: np.ndarray, s: np.ndarray, t: float) -> tuple[int, int]:
    called = s >= t
    return int(np.sum(called & (y == 1))), int(np.sum(called & (y == 0)))


data_sets = st.integers(2, 30).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(lambda y: 0 < sum(y) < len(y)),
    st.lists(st.integers(-4, 4), min_size=n, max_size=n),
))


@settings(max_examples=60, deadline=None)
@given(data_sets, st.sampled_from(["youden", "closest_topleft"]))
def test_best_threshold_equals_brute_force(data, method):
    y, s = (np.asarray(v) for v in data)
    s = s / 2.0  # halves: midpoints are quarters, exact
    n_pos, n_neg = int(y.sum()), int((1 - y).sum())
    candidates = _brute_thresholds(s)
    counts = [_brute(y, s, t) for t in candidates]
    se = np.array([tp / n_pos for tp, _ in counts])
    sp = np.array([(n_neg - fp) / n_neg for _, fp in counts])
    crit = se + 1.0 * sp if method == "youden" else -((1 - se) ** 2 + 1.0 * (1 - sp) ** 2)
    best = candidates[crit == crit.max()]  # pROC compares the criteria as doubles
    out = cutoffs(pl.DataFrame({"y": y, "s": s}), "y", "s", threshold=method).to_polars()
    assert out["threshold"].to_list() == best.tolist()


@settings(max_examples=60, deadline=None)
@given(data_sets, st.lists(st.integers(-10, 10), min_size=1, max_size=5, unique=True), st.sampled_from(["<", ">"]))
def test_counts_at_given_thresholds_equal_brute_force(data, values, direction):
    y, s = (np.asarray(v) for v in data)
    values = [v / 2.0 for v in values]  # on, between and beyond the scores
    out = cutoffs(pl.DataFrame({"y": y, "s": s}), "y", "s", threshold=values, direction=direction).to_polars()
    sign = 1 if direction == "<" else -1
    want = [_brute(y, sign * s, sign * t) for t in values]
    assert list(zip(out["tp"].to_list(), out["fp"].to_list())) == want
    assert out["threshold"].to_list() == values


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 6)), min_size=4, max_size=40)
       .filter(lambda rows: len({y for _, y, _ in rows}) == 2))
def test_grouped_equals_each_group_alone(rows):
    frame = pl.DataFrame(rows, schema=["g", "y", "s"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        together = cutoffs(frame, "y", "s", by="g", threshold=["youden", "all", 2.5]).to_polars()
        for g in frame["g"].unique().to_list():
            if frame.filter(pl.col("g") == g)["y"].n_unique() < 2:
                continue  # one class alone is refused as an outcome; its grouped rows are tested elsewhere
            alone = cutoffs(frame.filter(pl.col("g") == g), "y", "s", threshold=["youden", "all", 2.5]).to_polars()
            mine = together.filter(pl.col("g") == g).drop("g", "n_missing")
            assert mine.equals(alone.drop("n_missing"))


def test_weighted_best_thresholds_keep_fractional_counts():
    # the counts at every threshold were held in int64: weighted (fractional) counts were truncated
    # (fp 0.25 -> 0) and the criteria computed on them
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([5.0, 4, 3, 2, 1, 0])
    w = np.array([0.5, 0.25, 1.5, 0.75, 2.5, 0.3])
    out = cutoffs(pl.DataFrame({"y": y, "s": s, "w": w}), "y", "s", threshold=["youden", "closest_topleft", "all"],
                  weights="w").to_polars()
    for t, tp, fp in zip(out["threshold"], out["tp"], out["fp"]):
        called = s >= t
        assert (tp, fp) == pytest.approx((w[called & (y == 1)].sum(), w[called & (y == 0)].sum()), abs=1e-12)
    candidates = _brute_thresholds(s)
    se = np.array([w[(s >= t) & (y == 1)].sum() for t in candidates]) / w[y == 1].sum()
    sp = 1.0 - np.array([w[(s >= t) & (y == 0)].sum() for t in candidates]) / w[y == 0].sum()
    youden = out.filter(pl.col("criterion") == "youden")["threshold"].to_list()
    assert youden == candidates[np.isclose(se + sp, (se + sp).max(), rtol=0, atol=1e-12)].tolist()


def test_weighted_counts_of_a_group_do_not_depend_on_the_groups_before_it():
    # counts at given thresholds: a running sum over every group minus the earlier groups' totals carried
    # their rounding into the later groups (weighted counts); now each group's sums start at its own rows
    s = [5.0, 4, 3, 2, 1, 0]
    y = [1, 0, 1, 0, 1, 0]
    w = [0.1, 0.7, 0.2, 0.3, 0.6, 1.1]
    alone = pl.DataFrame({"g": [1] * 6, "y": y, "s": s, "w": w})
    before = pl.DataFrame({"g": [0] * 4, "y": [1, 0, 1, 0], "s": [3.0, 2, 1, 0], "w": [1e10 / 3, 1e9 / 7, 0.3, 0.1]})
    options = {"threshold": [4.5, 3.5, 2.5, 1.5, 0.5], "weights": "w"}
    together = cutoffs(pl.concat([before, alone]), "y", "s", by="g", **options).to_polars().filter(pl.col("g") == 1)
    mine = cutoffs(alone, "y", "s", by="g", **options).to_polars()
    for column in ("tp", "fp", "tn", "fn", "sensitivity", "specificity"):
        assert together[column].to_list() == mine[column].to_list(), column


# ------------------------------------------------------------------ intervals
@pytest.mark.parametrize("method,sm", [("wilson", "wilson"), ("clopper_pearson", "beta")])
def test_proportion_intervals_equal_statsmodels(method, sm):
    k = np.array([0, 1, 3, 10, 19, 20, 0, 7])
    n = np.array([20, 20, 20, 20, 20, 20, 1, 7])
    lower, upper = proportion_interval(k, n, 0.9, method)
    want_lo, want_hi = proportion_confint(k, n, alpha=0.1, method=sm)
    np.testing.assert_allclose(lower, want_lo, atol=1e-12)
    np.testing.assert_allclose(upper, want_hi, atol=1e-12)


def test_clopper_pearson_without_trials_is_nan():
    lower, upper = clopper_pearson_interval([0], [0])
    assert math.isnan(lower[0]) and math.isnan(upper[0])


def _logit_ppv(se, sp, p):
    ppv = p * se / (p * se + (1 - p) * (1 - sp))
    return math.log(ppv / (1 - ppv))


def test_bayes_interval_equals_numerical_delta_method():
    tp, fn, tn, fp, p = 40, 10, 170, 30, 0.05
    se, sp = tp / (tp + fn), tn / (tn + fp)
    h = 1e-6
    d_se = (_logit_ppv(se + h, sp, p) - _logit_ppv(se - h, sp, p)) / (2 * h)
    d_sp = (_logit_ppv(se, sp + h, p) - _logit_ppv(se, sp - h, p)) / (2 * h)
    var = d_se ** 2 * se * (1 - se) / (tp + fn) + d_sp ** 2 * sp * (1 - sp) / (tn + fp)
    centre, half = _logit_ppv(se, sp, p), 1.959963984540054 * math.sqrt(var)
    lo, hi, _, _, adjusted = bayes_interval([tp], [fn], [tn], [fp], p, 0.95)
    assert not adjusted[0]
    assert lo[0] == pytest.approx(1 / (1 + math.exp(-(centre - half))), rel=1e-7)
    assert hi[0] == pytest.approx(1 / (1 + math.exp(-(centre + half))), rel=1e-7)


def test_ppv_at_a_given_prevalence_is_bayes_and_inside_its_interval():
    frame = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv")
    out = cutoffs(frame, "disease", "model_a", threshold=[0.0, 1.0, 10.0, -10.0], prevalence=0.02).to_polars()
    se, sp = out["sensitivity"].to_numpy(), out["specificity"].to_numpy()
    with np.errstate(invalid="ignore"):  # nobody called positive: PPV is 0/0
        np.testing.assert_allclose(out["ppv"].to_numpy(), 0.02 * se / (0.02 * se + 0.98 * (1 - sp)))
        np.testing.assert_allclose(out["npv"].to_numpy(), 0.98 * sp / (0.98 * sp + 0.02 * (1 - se)))
    assert math.isnan(out["ppv"][2])
    ci = cutoffs(frame, "disease", "model_a", threshold=[0.0, 1.0, 10.0, -10.0], prevalence=0.02).conf_int()
    for name in ("ppv", "npv", "sensitivity", "specificity"):
        rows = ci.filter(pl.col("measure") == name)
        est, lo, hi = (rows[c].to_numpy() for c in ("estimate", "lower", "upper"))
        np.testing.assert_array_equal(est, out[name].to_numpy())  # the long frame's estimate is the point value
        ok = ~np.isnan(est)
        assert np.all((lo[ok] <= est[ok]) & (est[ok] <= hi[ok])), name
        # at a stated prevalence PPV and NPV get Mercaldo's logit interval, whatever the proportion method
        assert rows["method"].unique().to_list() == (["logit"] if name in ("ppv", "npv") else ["wilson"])
    assert (out["prevalence"] == 0.02).all()
    everybody = ci.filter((pl.col("threshold") == -10.0) & pl.col("measure").is_in(["ppv", "npv"]))
    assert all("0.5 added" in note for note in everybody["note"])  # everybody called positive: tn = 0
    assert out["note"][3] is None or "0.5 added" not in out["note"][3]  # an interval's note, not the point's


def test_observed_prevalence_ppv_interval_is_a_proportion_of_the_called_positives():
    df = pl.DataFrame({"y": [0, 0, 1, 1, 1, 0, 1, 0, 1, 1], "s": list(range(10))})
    result = cutoffs(df, "y", "s", threshold=4.0, method="clopper_pearson", level=0.9)
    row = result.to_polars().row(0, named=True)
    tp, fp = row["tp"], row["fp"]
    lo, hi = proportion_confint(tp, tp + fp, alpha=0.1, method="beta")
    ppv = result.conf_int().filter(pl.col("measure") == "ppv").row(0, named=True)  # the call's method and level
    assert (ppv["lower"], ppv["upper"]) == pytest.approx((lo, hi), abs=1e-12)
    assert row["prevalence"] == 0.6 and ppv["method"] == "clopper_pearson" and ppv["level"] == 0.9


# ------------------------------------------------------------------ edges and messages
def test_group_without_positives_gets_a_nan_row_a_note_and_a_warning():
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 3, "y": [0, 1, 0, 1, 0, 0, 0], "s": [1, 2, 3, 4, 1, 2, 3]})
    with pytest.warns(DegenerateGroupWarning):
        out = cutoffs(df, "y", "s", by="g", threshold=["youden", 2.5]).to_polars()
    b = out.filter(pl.col("g") == "b")
    assert b["criterion"].to_list() == ["youden", "value"]
    assert math.isnan(b["threshold"][0]) and b["tp"][0] is None
    assert "no positives" in b["note"][0]
    assert b["fp"][1] == 1 and b["tn"][1] == 2 and math.isnan(b["sensitivity"][1])
    assert b["specificity"][1] == pytest.approx(2 / 3)


def test_pandas_in_pandas_out_with_keys_first():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"site": ["a", "a", "b", "b", "b"], "y": [0, 1, 0, 1, 1], "s": [0.1, 0.9, 0.5, 0.4, 0.8]})
    out = cutoffs(df, "y", "s", by="site").to_frame()
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns[:3]) == ["site", "criterion", "threshold"]


def test_summary_repr_and_html_name_the_choices():
    df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [1, 2, 3, 4]})
    result = cutoffs(df, "y", "s", prevalence=0.1, method="clopper_pearson")
    assert "Clopper-Pearson 95%" in result.summary() and "prevalence 0.1" in result.summary()
    assert "1.000 (" in result.summary()
    assert repr(result).startswith("CutoffResult(threshold='youden'")
    assert "<table" in result._repr_html_()


def test_several_scores_give_a_score_key():
    frame = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv")
    out = cutoffs(frame, "disease", ["model_a", "model_b"], by="site").to_polars()
    assert out.columns[:3] == ["site", "score", "criterion"]


@pytest.mark.parametrize("kwargs,error,text", [
    ({"threshold": "best"}, InputError, "`threshold` must be a number, one of"),
    ({"threshold": float("nan")}, InputError, "NaN"),
    ({"threshold": [True]}, InputTypeError, "`threshold`"),
    ({"threshold": []}, InputError, "at least one"),
    ({"method": "exact"}, InputError, "`method` must be one of"),
    ({"prevalence": 1.5}, InputError, "`prevalence`"),
    ({"direction": "up"}, InputError, "`direction` must be one of ['higher', 'lower', 'auto']"),
    ({"best_weights": (1, 1)}, InputError, "best_weights[1]"),
    ({"level": 95}, InputError, "`level`"),
])
def test_bad_options_are_named(kwargs, error, text):
    df = pl.DataFrame({"y": [0, 1], "s": [0.1, 0.9]})
    with pytest.raises(error, match=None) as info:
        cutoffs(df, "y", "s", **kwargs)
    assert text in str(info.value)


def test_a_grouping_column_named_like_a_result_column_is_refused():
    df = pl.DataFrame({"y": [0, 1], "s": [0.1, 0.9], "threshold": [1, 1]})
    with pytest.raises(InputError, match="'threshold'"):
        cutoffs(df, "y", "s", by="threshold")


# ------------------------------------------------------------------ one surface: direction, long intervals, table
def test_direction_speaks_higher_and_lower_with_procs_signs_as_aliases():
    frame = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv")
    for alias, word in (("<", "higher"), (">", "lower")):
        by_alias = cutoffs(frame, "disease", "model_a", by="site", threshold=["youden", 0.5], direction=alias)
        by_word = cutoffs(frame, "disease", "model_a", by="site", threshold=["youden", 0.5], direction=word)
        assert by_alias.to_polars().equals(by_word.to_polars())
        assert by_word.options["direction"] == word
        assert by_word.to_polars()["direction"].unique().to_list() == [word]
    # "lower": cases score <= threshold, the counts of the negated score at the negated threshold
    lower = cutoffs(frame, "disease", "model_a", threshold=[0.5, -1.0, "all"], direction="lower").to_polars()
    y, s = frame["disease"].to_numpy(), frame["model_a"].to_numpy()
    for t, tp, fp in lower.select("threshold", "tp", "fp").rows():
        assert (tp, fp) == (int(np.sum((s <= t) & (y == 1))), int(np.sum((s <= t) & (y == 0))))


def test_direction_auto_warns_and_reads_each_score_its_own_way():
    from aucpr_stats import DirectionWarning

    frame = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv").with_columns(down=-2.0 * pl.col("model_a"))
    with pytest.warns(DirectionWarning, match="'down': lower scores predict"):
        auto = cutoffs(frame, "disease", ["model_a", "down"], threshold=["youden", 1.0], direction="auto")
    assert auto.options["direction"] == {"model_a": "higher", "down": "lower"}
    out = auto.to_polars()
    up, down = (out.filter(pl.col("score") == name) for name in ("model_a", "down"))
    assert down["direction"].unique().to_list() == ["lower"]
    assert down["threshold"][0] == -2.0 * up["threshold"][0]  # the same cut, on the caller's scale of each score
    for column in ("tp", "fp", "sensitivity", "specificity"):
        assert down[column][0] == up[column][0]
    alone = cutoffs(frame, "disease", "down", threshold=1.0, direction="lower").to_polars()
    assert down.filter(pl.col("criterion") == "value").drop("score").equals(alone)


def test_conf_int_is_the_long_frame_of_every_measure_and_method():
    df = pl.DataFrame({"g": ["a"] * 10 + ["b"] * 10, "y": [0, 0, 1, 1, 1, 0, 1, 0, 1, 1] * 2,
                       "s": list(range(10)) + [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]})
    result = cutoffs(df, "y", "s", by="g", threshold=[4.0, "youden"], level=0.9)
    points = result.to_polars()
    assert "sensitivity_lower" not in points.columns and "lower" not in points.columns
    long = result.conf_int(method="all")
    assert long.columns == ["g", "criterion", "threshold", "measure", "estimate", "method", "level", "lower", "upper",
                            "n_pos", "n_neg", "note"]
    assert long.height == points.height * 4 * 2 and (long["level"] == 0.9).all()
    counts = {"sensitivity": ("tp", ("tp", "fn")), "specificity": ("tn", ("tn", "fp")),
              "ppv": ("tp", ("tp", "fp")), "npv": ("tn", ("tn", "fn"))}
    for i, row in enumerate(points.iter_rows(named=True)):
        for measure, (k, (a, b)) in counts.items():
            for method, sm in (("wilson", "wilson"), ("clopper_pearson", "beta")):
                got = long.filter((pl.col("g") == row["g"]) & (pl.col("threshold") == row["threshold"])
                                  & (pl.col("criterion") == row["criterion"]) & (pl.col("measure") == measure)
                                  & (pl.col("method") == method)).row(0, named=True)
                n = row[a] + row[b]
                assert got["estimate"] == pytest.approx(row[measure], nan_ok=True)
                if n == 0:
                    assert math.isnan(got["lower"])
                    continue
                lo, hi = proportion_confint(row[k], n, alpha=0.1, method=sm)
                assert (got["lower"], got["upper"]) == pytest.approx((lo, hi), abs=1e-12), (measure, method)
    # the call's method and level are the defaults; another level is one argument away
    assert result.conf_int()["method"].unique().to_list() == ["wilson"]
    assert (result.conf_int(level=0.5)["level"] == 0.5).all()
    with pytest.raises(InputError, match="`method` must be one of"):
        result.conf_int(method="exact")


def test_table_and_summary_show_the_cells_of_conf_int():
    df = pl.DataFrame({"y": [0, 0, 1, 1, 1, 0], "s": [0.1, 0.4, 0.35, 0.8, 0.4, 0.2]})
    result = cutoffs(df, "y", "s", threshold=[0.3], method="clopper_pearson")
    ci = result.conf_int().filter(pl.col("measure") == "sensitivity").row(0, named=True)
    cell = f"{ci['estimate']:.2f} ({ci['lower']:.2f}\u2013{ci['upper']:.2f})"
    table = result.table()
    assert table.to_polars()["Sensitivity (95% CI)"].to_list() == [cell]
    assert "Clopper-Pearson 95% intervals" in table.note
    assert "Sensitivity (90% CI)" in result.table(level=0.9).to_polars().columns
    assert f"{ci['estimate']:.3f} ({ci['lower']:.3f}\u2013{ci['upper']:.3f})" in result.summary()
    with pytest.raises(InputError, match="one interval method"):
        result.table(method="all")
