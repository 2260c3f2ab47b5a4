"""PR and ROC curves: points against scikit-learn, evaluations against brute-force oracles."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

from aucpr_stats.curves import pr_curve, roc_curve
from aucpr_stats.curves.points import pr_interpolated, pr_step, roc_interpolated, roc_step
from aucpr_stats.estimators.pr_points import dg_interpolate
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError
from aucpr_stats.ties import TieTable

from .conftest import as_polars, make_frame, random_scores, result_frame_type


# ------------------------------------------------------------------ oracles
def eq3_oracle(y: np.ndarray, s: np.ndarray, beta: float) -> float:
    """Clémençon & Vayatis Eq. (3) read literally, with the generalised inverse of the class cdf."""
    pos, neg = s[y], s[~y]
    n_pos, n_neg = pos.size, neg.size
    # the implementation reads a recall within 1e-9 / n_pos of a step k / n_pos as on the step
    # when it picks the quantile (the formula itself uses beta as given)
    on_step = round(n_pos * beta) / n_pos if abs(n_pos * beta - round(n_pos * beta)) < 1e-9 else beta
    u = 1.0 - on_step
    # G_hat^{-1}(u) = inf{x : G_hat(x) >= u}, G_hat(x) = mean(pos <= x); -inf when u = 0
    if u <= 0:
        t = -np.inf
    else:
        candidates = np.sort(pos)
        t = next(x for x in candidates if np.mean(pos <= x) >= u - 1e-12)
    alpha = 1.0 - np.mean(neg <= t)  # 1 - H_hat(t)
    if n_pos * beta == 0:
        return 1.0 if alpha == 0 else 0.0
    return n_pos * beta / (n_pos * beta + n_neg * alpha)


def roc_step_oracle(y: np.ndarray, s: np.ndarray, a: float) -> float:
    """Remark 1's ROC(alpha) = 1 - G_hat(H_hat^{-1}(1 - alpha)), literally."""
    pos, neg = s[y], s[~y]
    if abs(neg.size * a - round(neg.size * a)) < 1e-9:
        a = round(neg.size * a) / neg.size
    u = 1.0 - a
    if u <= 0:
        t = -np.inf
    else:
        t = next(x for x in np.sort(neg) if np.mean(neg <= x) >= u - 1e-12)
    return 1.0 - np.mean(pos <= t)


def points_oracle(y, s):
    """(recall, precision) of the start point and one point per distinct score, by brute force."""
    thresholds = np.sort(np.unique(s))[::-1]
    recall, precision = [0.0], [1.0]
    for t in thresholds:
        called = s >= t
        tp = np.sum(called & y)
        recall.append(tp / y.sum())
        precision.append(tp / called.sum())
    return np.array(recall), np.array(precision)


def dg_oracle(y, s, beta):
    """Interpolated precision: first point with recall >= beta, DG line from the point before it."""
    r, p = points_oracle(y, s)
    if beta == 0:
        return 1.0
    i = int(np.argmax(r >= beta))
    return float(dg_interpolate(r[i - 1], p[i - 1], r[i], p[i], beta))


# ------------------------------------------------------------------- points
def test_points_match_sklearn(frame_kind):
    rng = np.random.default_rng(1)
    y, s = random_scores(rng, 300, ties=True)
    frame = make_frame({"y": y, "s": s}, frame_kind)
    out = pr_curve(frame, "y", "s").to_frame()
    assert isinstance(out, result_frame_type(frame_kind))
    out = as_polars(out)
    precision, recall, thresholds = metrics.precision_recall_curve(y, s)
    # sklearn: increasing thresholds, then the (recall 0, precision 1) end point
    np.testing.assert_allclose(out["threshold"].to_numpy()[1:], thresholds[::-1])
    np.testing.assert_allclose(out["recall"].to_numpy(), recall[::-1])
    np.testing.assert_allclose(out["precision"].to_numpy(), precision[::-1])
    assert out["threshold"][0] == np.inf
    assert out["tp"].to_list()[-1] == y.sum() and out["fp"].to_list()[-1] == (~y).sum()


def test_roc_points_match_sklearn(frame_kind):
    rng = np.random.default_rng(2)
    y, s = random_scores(rng, 250, ties=True)
    out = as_polars(roc_curve(make_frame({"y": y, "s": s}, frame_kind), "y", "s").to_frame())
    fpr, tpr, thresholds = metrics.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(out["fpr"].to_numpy(), fpr)
    np.testing.assert_allclose(out["tpr"].to_numpy(), tpr)
    np.testing.assert_allclose(out["threshold"].to_numpy(), thresholds)
    assert out.columns == ["threshold", "tp", "fp", "fpr", "tpr"]


def test_grouped_points_have_keys_first():
    rng = np.random.default_rng(3)
    y, s = random_scores(rng, 400)
    g = rng.choice(["a", "b", "c"], 400)
    out = pr_curve(pl.DataFrame({"y": y, "s": s, "g": g}), "y", "s", by="g").to_frame()
    assert out.columns == ["g", "threshold", "tp", "fp", "recall", "precision"]
    for key in "abc":
        sub = out.filter(pl.col("g") == key)
        r, p = points_oracle(y[g == key], s[g == key])
        np.testing.assert_allclose(sub["recall"].to_numpy(), r)
        np.testing.assert_allclose(sub["precision"].to_numpy(), p)


# ---------------------------------------------------------- step evaluation
def test_step_matches_eq3_oracle_with_ties():
    rng = np.random.default_rng(4)
    y, s = random_scores(rng, 120, ties=True)
    grid = np.concatenate([[0.0, 1.0], np.linspace(0.01, 0.99, 57), np.arange(1, y.sum()) / y.sum()])
    out = pr_curve(pl.DataFrame({"y": y, "s": s}), "y", "s", ties="published").evaluate(grid, method="step")
    expected = [eq3_oracle(y, s, b) for b in out["recall"].to_numpy()]
    np.testing.assert_allclose(out["precision"].to_numpy(), expected, rtol=1e-12)


def test_step_convention_on_a_hand_example():
    # positives 0.9, 0.7, 0.1; negatives 0.8, 0.7 (tied with a positive), 0.2
    df = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.7, 0.1, 0.2]})
    out = pr_curve(df, "y", "s", ties="published").evaluate([0.2, 1 / 3, 0.5, 2 / 3, 0.9, 1.0], method="step")
    # [0, 1/3): top positive 0.9, no negative above -> precision 1
    # [1/3, 2/3): 2nd positive 0.7: one negative strictly above (0.8); the tied 0.7 negative is not counted
    # [2/3, 1): 3rd positive 0.1: three negatives above; at 1: -inf, all negatives
    expected = [1.0, 1 / (1 + 1), 1.5 / (1.5 + 1), 2 / (2 + 3), 2.7 / (2.7 + 3), 3 / 6]
    np.testing.assert_allclose(out["precision"].to_numpy(), expected)
    np.testing.assert_allclose(out["threshold"].to_numpy(), [0.9, 0.7, 0.7, 0.1, 0.1, -np.inf])


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(4, 40),
    seed=st.integers(0, 10_000),
    levels=st.integers(2, 6),
    beta=st.lists(st.floats(0, 1), min_size=1, max_size=6),
)
def test_step_and_interpolated_match_oracles_property(n, seed, levels, beta):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    y[0], y[1] = True, False
    s = rng.integers(0, levels, n).astype(float)  # heavy ties
    curve = pr_curve(pl.DataFrame({"y": y, "s": s}), "y", "s", ties="published")  # the oracles as written
    beta = np.array(beta)
    step = curve.evaluate(beta, method="step")["precision"].to_numpy()
    np.testing.assert_allclose(step, [eq3_oracle(y, s, b) for b in beta], rtol=1e-12)
    interp = curve.evaluate(beta, method="interpolated")["precision"].to_numpy()
    np.testing.assert_allclose(interp, [dg_oracle(y, s, b) for b in beta], rtol=1e-12, atol=1e-15)
    assert np.all((step >= 0) & (step <= 1)) and np.all((interp >= 0) & (interp <= 1))


def test_step_is_vectorised_over_groups_like_separate_calls():
    rng = np.random.default_rng(5)
    y, s = random_scores(rng, 600, ties=True)
    g = rng.integers(0, 4, 600)
    grid = np.linspace(0, 1, 23)
    grouped = pr_curve(pl.DataFrame({"y": y, "s": s, "g": g}), "y", "s", by="g").evaluate(grid)
    for k in range(4):
        alone = pr_curve(pl.DataFrame({"y": y[g == k], "s": s[g == k]}), "y", "s").evaluate(grid)
        np.testing.assert_array_equal(grouped.filter(pl.col("g") == k)["precision"].to_numpy(),
                                      alone["precision"].to_numpy())


def test_step_ends():
    df = pl.DataFrame({"y": [1, 0, 1, 1, 0, 0, 0], "s": [5.0, 4, 3, 2, 1, 0, -1]})
    out = pr_curve(df, "y", "s").evaluate([0.0, 1.0])["precision"].to_list()
    assert out == [1.0, 3 / 7]  # recall 0: nothing above the top positive; recall 1: all rows
    df = pl.DataFrame({"y": [0, 1, 1], "s": [5.0, 4, 3]})
    assert pr_curve(df, "y", "s").evaluate([0.0])["precision"].to_list() == [0.0]


def test_interpolated_hand_example():
    # points: (0,1) (1/2, 1) (1/2, 1/2) (1, 2/3)
    df = pl.DataFrame({"y": [1, 0, 1], "s": [3.0, 2, 1]})
    out = pr_curve(df, "y", "s").evaluate([0.25, 0.5, 0.75, 1.0], method="interpolated")
    # recall 0.5 is reached first at precision 1; between (1/2, 1/2) and (1, 2/3) the DG line:
    # fp goes 1 -> 1 as tp goes 1 -> 2, so precision at tp = 1.5 is 1.5 / 2.5
    np.testing.assert_allclose(out["precision"].to_numpy(), [1.0, 1.0, 0.6, 2 / 3])


# ----------------------------------------------------------------------- ROC
def test_roc_step_and_interpolated_match_oracles():
    rng = np.random.default_rng(6)
    y, s = random_scores(rng, 150, ties=True)
    grid = np.concatenate([[0.0, 1.0], np.linspace(0.013, 0.987, 41)])
    curve = roc_curve(pl.DataFrame({"y": y, "s": s}), "y", "s")
    step = curve.evaluate(grid, method="step")
    np.testing.assert_allclose(step["tpr"].to_numpy(), [roc_step_oracle(y, s, a) for a in grid])
    interp = curve.evaluate(grid, method="interpolated")["tpr"].to_numpy()
    fpr, tpr, _ = metrics.roc_curve(y, s, drop_intermediate=False)
    # highest tpr at each fpr, then linear interpolation (np.interp uses the last of repeated x)
    np.testing.assert_allclose(interp, np.interp(grid, fpr, tpr))


# ---------------------------------------------------------------- plumbing
def test_degenerate_group_warns_and_gives_nan():
    df = pl.DataFrame({"y": [1, 0, 1, 0, 0, 0], "s": [0.9, 0.1, 0.8, 0.3, 0.2, 0.4], "g": [1, 1, 1, 1, 2, 2]})
    with pytest.warns(DegenerateGroupWarning, match="no positives"):
        curve = pr_curve(df, "y", "s", by="g")
    out = curve.evaluate([0.5])
    assert out["precision"][0] == 1.0 and np.isnan(out["precision"][1])
    assert np.isnan(curve.evaluate([0.5], method="interpolated")["precision"][1])


def test_validation_errors():
    df = pl.DataFrame({"y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.8, 0.3]})
    curve = pr_curve(df, "y", "s")
    with pytest.raises(InputError, match="`method`"):
        curve.evaluate([0.5], method="linear")
    with pytest.raises(InputError, match=r"`recall` values must lie in \[0, 1\]"):
        curve.evaluate([1.5])
    with pytest.raises(InputError, match="`fpr`"):
        roc_curve(df, "y", "s").evaluate([-0.1])


def test_formula_and_positive_level():
    df = pl.DataFrame({"y": ["d", "h", "d", "h"], "s": [0.9, 0.1, 0.8, 0.3], "t": [0.1, 0.9, 0.2, 0.3]})
    out = pr_curve("y ~ s + t", data=df, positive="d").evaluate([0.5])
    assert out["score"].to_list() == ["s", "t"]
    # score t: positives 0.1, 0.2; at recall 1/2 the threshold is 0.1 and both negatives lie above it
    assert out["precision"].to_list() == [1.0, 1 / 3]


def test_matplotlib_not_imported_until_plotting():
    code = ("import sys, numpy as np, polars as pl; from aucpr_stats.curves import pr_curve; "
            "c = pr_curve(pl.DataFrame({'y': [1, 0, 1, 0], 's': [.9, .1, .8, .3]}), 'y', 's'); "
            "c.evaluate([0.5]); c.band(n_boot=50, seed=1); print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_plots_draw_every_group():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(7)
    y, s = random_scores(rng, 900)
    g = rng.choice(["a", "b", "c"], 900)
    df = pl.DataFrame({"y": y, "s": s, "g": g})
    curve = pr_curve(df, "y", "s", by="g")
    ax = curve.band(n_boot=100, seed=1).plot()
    assert len(ax.collections) == 3  # one shaded band per group
    assert len(ax.get_legend().get_texts()) == 3 + 1  # one per group, and what the dashed lines are
    ax2 = curve.plot(method="interpolated")
    assert len(ax2.lines) == 6  # curve + prevalence line per group
    ax3 = roc_curve(df, "y", "s", by="g").plot()
    assert len(ax3.lines) == 4  # three curves and the diagonal
    plt.close("all")


# ------------------------------------------------------------------- direction
def test_direction_lower_is_the_curve_of_the_negated_score_with_thresholds_on_the_callers_scale():
    rng = np.random.default_rng(11)
    y, s = random_scores(rng, 300, ties=True)
    s = -s  # smaller scores now predict the positive class
    frame = pl.DataFrame({"y": y, "s": s})
    pr = pr_curve(frame, "y", "s", direction="lower").to_frame()
    precision, recall, thresholds = metrics.precision_recall_curve(y, -s)
    np.testing.assert_allclose(pr["recall"].to_numpy(), recall[::-1])
    np.testing.assert_allclose(pr["precision"].to_numpy(), precision[::-1])
    # a case is called positive when its score is <= threshold: the thresholds of -s, negated back
    np.testing.assert_allclose(pr["threshold"].to_numpy()[1:], -thresholds[::-1])
    assert pr["threshold"][0] == -np.inf
    for t, tp in zip(pr["threshold"].to_list()[1:], pr["tp"].to_list()[1:]):
        assert tp == int(np.sum(y & (s <= t)))
    roc = roc_curve(frame, "y", "s", direction="lower").to_frame()
    fpr, tpr, roc_thresholds = metrics.roc_curve(y, -s, drop_intermediate=False)
    np.testing.assert_allclose(roc["fpr"].to_numpy(), fpr)
    np.testing.assert_allclose(roc["tpr"].to_numpy(), tpr)
    np.testing.assert_allclose(roc["threshold"].to_numpy(), -roc_thresholds)


def test_direction_reaches_evaluate_titles_and_options():
    rng = np.random.default_rng(12)
    y, s = random_scores(rng, 200)
    frame = pl.DataFrame({"y": y, "s": s, "r": -s})
    lower = pr_curve(frame, "y", "r", direction="lower")
    higher = pr_curve(frame, "y", "s")
    assert lower.options["direction"] == "lower" and higher.options["direction"] == "higher"
    a, b = (as_polars(c.evaluate([0.25, 0.5, 0.9])) for c in (lower, higher))
    np.testing.assert_array_equal(a["precision"].to_numpy(), b["precision"].to_numpy())
    np.testing.assert_array_equal(a["threshold"].to_numpy(), -b["threshold"].to_numpy())
    assert "lower scores predict the positive outcome" in lower.summary().splitlines()[0]
    roc = roc_curve(frame, "y", "r", direction="lower").evaluate([0.1, 0.5])
    np.testing.assert_array_equal(roc["tpr"].to_numpy(), roc_curve(frame, "y", "s").evaluate([0.1, 0.5])["tpr"])


def test_direction_auto_reads_each_score_its_own_way_and_warns():
    from aucpr_stats import DirectionWarning

    rng = np.random.default_rng(13)
    y, s = random_scores(rng, 300)
    frame = pl.DataFrame({"y": y, "up": s, "down": -2.0 * s})
    with pytest.warns(DirectionWarning, match="'down': lower scores predict"):
        curve = roc_curve(frame, "y", ["up", "down"], direction="auto")
    assert curve.options["direction"] == {"up": "higher", "down": "lower"}
    out = as_polars(curve.to_frame())
    up, down = (out.filter(pl.col("score") == name) for name in ("up", "down"))
    np.testing.assert_array_equal(up["tpr"].to_numpy(), down["tpr"].to_numpy())
    np.testing.assert_allclose(down["threshold"].to_numpy(), -2.0 * up["threshold"].to_numpy())
    with pytest.raises(InputError, match=r"`direction` must be one of \['higher', 'lower', 'auto'\]"):
        pr_curve(frame, "y", "up", direction="<")


def test_curve_results_have_the_display_methods_of_every_result():
    df = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.2, 0.1, 0.5], "g": list("aabbab")})
    for curve in (pr_curve(df, "y", "s", by="g"), roc_curve(df.to_pandas(), "y", "s", by="g")):
        assert curve.to_polars().equals(as_polars(curve.to_frame()))
        assert isinstance(curve.to_polars(), pl.DataFrame)
        lines = curve.summary().splitlines()
        assert lines[0].endswith("curve of s for outcome y, by g")
        assert lines[1].split() == ["g", "n_pos", "n_neg", "prevalence", "n_points"]
        groups = as_polars(curve.groups_frame())
        assert groups["n_points"].to_list() == [4, 4]  # three distinct scores per group, and the start point
        assert str(curve) == curve.summary() and "<table" in curve._repr_html_()


# ------------------------------------------------------- segment independence
def _after_other_groups(score, pos, neg, before):
    """The group (score, pos, neg) as the last segment of a table, after the groups in ``before``."""
    scores, poss, negs, offsets = [], [], [], [0]
    for s, p, n in [*before, (score, pos, neg)]:
        scores += list(s)
        poss += list(p)
        negs += list(n)
        offsets.append(len(scores))
    dtype = np.float64 if any(isinstance(v, float) for v in poss + negs) else np.int64
    return TieTable(np.array(scores, dtype=np.float64), np.array(poss, dtype=dtype), np.array(negs, dtype=dtype),
                    offsets)


def test_interpolated_curves_of_a_group_do_not_depend_on_its_position():
    # recall 7/10 is reached twice (a vertical drop: 7/11 then 7/14); the grid's 0.7000000000000001 lies
    # just past it. A search key 2 * segment + recall rounded it onto the drop for every group but the first.
    score, pos, neg = [6.0, 5, 4, 3, 2, 1], [1, 3, 3, 0, 1, 2], [0, 2, 2, 3, 3, 2]
    grid = np.linspace(0, 1, 41)
    alone = _after_other_groups(score, pos, neg, [])
    for before in ([([9.0, 8], [2, 4], [0, 2])], [([9.0], [1], [1])] * 5):
        table = _after_other_groups(score, pos, neg, before)
        for curve in (pr_interpolated, roc_interpolated, pr_step, roc_step):
            got, want = curve(table, grid), curve(alone, grid)
            for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                np.testing.assert_array_equal(a[-1], b[0])


def test_weighted_step_curves_of_a_group_do_not_depend_on_the_groups_before_it():
    # weighted counts: the running sums of the step curves start at the group's own first row (a running
    # sum over every group carried the rounding of the groups before it into the rank search)
    score, pos, neg = [6.0, 5, 4, 3, 2, 1], [0.6, 0.7, 0.7, 0.5, 1.3, 1.3], [1.1, 0.3, 0.3, 0.3, 0.1, 0.5]
    grid = np.linspace(0, 1, 41)
    small = _after_other_groups(score, pos, neg, [([9.0], [1.0], [1.0])])
    # and alone: n_neg = 3 summed as among groups (np.sum gave 2.9999999999999996, so at fpr 0.675 the
    # third negative was out of reach: tpr 1 at threshold -inf instead of 0.977 at threshold 1)
    three = ([6.0, 5, 4, 3, 2, 1], [1.8, 0.1, 0.5, 0.7, 0.2, 0.1], [0.6, 1.1, 0.3, 0.3, 0.3, 0.4])
    alone, grouped = _after_other_groups(*three, []), _after_other_groups(*three, [([9.0], [1.0], [1.0])])
    for curve in (pr_step, roc_step):
        for a, b in zip(curve(alone, grid), curve(grouped, grid)):
            np.testing.assert_array_equal(a[0], b[-1])
    alone = _after_other_groups(score, pos, neg, [])
    for curve in (pr_step, roc_step, pr_interpolated, roc_interpolated):
        got, want = curve(alone, grid), curve(small, grid)
        for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_array_equal(a[0], b[-1])
    for before in ([([9.0, 8, 7], [0.07, 0.03, 0.09], [0.03, 0.07, 0.06])],
                   [([9.0, 8], [1e10 / 3, 0.1], [1e9 / 7, 2.0])]):
        table = _after_other_groups(score, pos, neg, before)
        for curve in (pr_step, roc_step, pr_interpolated, roc_interpolated):
            got, want = curve(table, grid), curve(small, grid)
            for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                np.testing.assert_array_equal(a[-1], b[-1])
