"""Partial areas: pROC's numbers (tests/reference/partial_auc.R), brute-force oracles, intervals, compare."""

from __future__ import annotations

import itertools
import json
import pathlib
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from aucpr_stats import DEFAULT_PR_ESTIMATOR, aucpr, auroc
from aucpr_stats.compare import compare
from aucpr_stats.estimators import PR_ESTIMATORS
from aucpr_stats.estimators.partial import (
    mcclish,
    roc_partial_area,
)
from aucpr_stats.estimators.partial_pr import pr_partial_area
from aucpr_stats.estimators.partial_variance import mirrored, partial_auroc_se
from aucpr_stats.estimators.roc import delong_components
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.ties import TieTable

REFERENCE = json.loads((pathlib.Path(__file__).parent / "reference" / "partial_auc.json").read_text())
DATA_SETS = [name for name, value in REFERENCE.items() if isinstance(value, dict) and "partial" in value]
#: AUCPR estimators with a partial area: those whose record has a partial form.
PR_PARTIAL_ESTIMATORS = [name for name, record in PR_ESTIMATORS.items() if record.partial is not None]


def frame(y, s) -> pl.DataFrame:
    return pl.DataFrame({"y": [int(v) for v in y], "s": [float(v) for v in s]})


def table_of(y, s) -> TieTable:
    y, s = np.asarray(y, bool), np.asarray(s, float)
    distinct = np.unique(s)[::-1]
    return TieTable(score=distinct, pos=[int((y & (s == d)).sum()) for d in distinct],
                    neg=[int((~y & (s == d)).sum()) for d in distinct], offsets=[0, distinct.size])


# ------------------------------------------------------------------ pROC
@pytest.mark.parametrize("name", DATA_SETS)
def test_partial_auroc_equals_proc(name):
    """Every window, focus and correction of tests/reference/partial_auc.R, to 1e-9, NA included."""
    data = REFERENCE[name]
    df = frame(data["y"], data["s"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert auroc(df, "y", "s").estimate == pytest.approx(data["full"], abs=1e-12)
        for row in data["partial"]:
            est = auroc(df, "y", "s", standardized=row["correct"], **{row["focus"]: (row["lo"], row["hi"])}).estimate
            if row["value"] is None:
                assert np.isnan(est), row
            else:
                assert est == pytest.approx(row["value"], abs=1e-9), row


def test_reference_covers_the_edges():
    """The references include NA (below the diagonal) and bounds between and on curve points."""
    values = [row["value"] for name in DATA_SETS for row in REFERENCE[name]["partial"]]
    assert sum(v is None for v in values) >= 10
    assert REFERENCE["constant"]["partial"][1]["value"] == 0.5  # the diagonal: McClish gives exactly 1/2


# ------------------------------------------------------------------ brute force
def brute_roc_points(y, s):
    """(FPR, TPR) at every threshold between distinct scores, with loops over the thresholds."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    points = [(0.0, 0.0)]
    for t in sorted(set(s.tolist()), reverse=True):
        points.append((float(np.sum(~y & (s >= t)) / np.sum(~y)), float(np.sum(y & (s >= t)) / np.sum(y))))
    return points


def brute_partial(y, s, focus, lo, hi) -> float:
    """Numerical integration (scipy.quad on each straight piece) of the piecewise-linear curve over the window."""
    total = 0.0
    pts = brute_roc_points(y, s)
    for (f0, t0), (f1, t1) in itertools.pairwise(pts):
        if focus == "specificity":  # Se over Sp in [lo, hi]: TPR over FPR in [1 - hi, 1 - lo]
            x0, x1, y0, y1, a, b = f0, f1, t0, t1, 1 - hi, 1 - lo
        else:  # Sp = 1 - FPR over Se = TPR in [lo, hi]
            x0, x1, y0, y1, a, b = t0, t1, 1 - f0, 1 - f1, lo, hi
        left, right = max(x0, a), min(x1, b)
        if right > left:
            total += integrate.quad(lambda x, x0=x0, x1=x1, y0=y0, y1=y1: y0 + (y1 - y0) * (x - x0) / (x1 - x0),
                                    left, right)[0]
    return total


scores = st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=40).filter(
    lambda rows: len({r[0] for r in rows}) == 2)
bounds = st.tuples(st.floats(0, 1), st.floats(0, 1)).filter(lambda b: abs(b[0] - b[1]) > 1e-6)


@settings(max_examples=80, deadline=None)
@given(scores, bounds, st.sampled_from(["specificity", "sensitivity"]))
def test_partial_auroc_brute_force(rows, window, focus):
    y, s = [r[0] for r in rows], [r[1] for r in rows]
    lo, hi = sorted(window)
    got = roc_partial_area(table_of(y, s), focus, lo, hi)[0]
    assert got == pytest.approx(brute_partial(y, s, focus, lo, hi), abs=1e-9)
    # zero-count rows (bootstrap draws) change nothing; so does collapsing negative runs
    t = table_of(y, s)
    padded = TieTable(np.repeat(t.score, 2), np.ravel(np.c_[t.pos, np.zeros_like(t.pos)]),
                      np.ravel(np.c_[t.neg, np.zeros_like(t.neg)]), [0, 2 * t.n_rows])
    assert roc_partial_area(padded, focus, lo, hi)[0] == pytest.approx(got, abs=1e-12)
    assert roc_partial_area(t.collapsed(), focus, lo, hi)[0] == pytest.approx(got, abs=1e-12)


def test_partial_auroc_vectorised_over_segments():
    rng = np.random.default_rng(3)
    tables = [table_of(rng.random(30) < 0.4, rng.integers(0, 5, 30)) for _ in range(5)]
    tables = [t for t in tables if t.has_both_classes()[0]]
    joined = TieTable(np.concatenate([t.score for t in tables]), np.concatenate([t.pos for t in tables]),
                      np.concatenate([t.neg for t in tables]),
                      np.concatenate([[0], np.cumsum([t.n_rows for t in tables])]))
    each = [roc_partial_area(t, "sensitivity", 0.2, 0.9)[0] for t in tables]
    assert roc_partial_area(joined, "sensitivity", 0.2, 0.9) == pytest.approx(each, abs=1e-15)


def test_mcclish_closed_form():
    assert mcclish(0.2, 0.8, 1.0)[0] == 1.0  # the perfect test
    assert mcclish(0.02, 0.8, 1.0)[0] == 0.5  # the diagonal
    assert np.isnan(mcclish(0.0199, 0.8, 1.0)[0])
    assert mcclish(0.02 - 1e-16, 0.8, 1.0)[0] == pytest.approx(0.5)  # rounding on the diagonal: 1/2, as pROC


# ------------------------------------------------------------------ partial AUCPR
def brute_pr_points(y, s):
    """(recall, precision) at every threshold, the start point (0, 1) first, with loops."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    out = [(0.0, 1.0)]
    for t in sorted(set(s.tolist()), reverse=True):
        tp, fp = np.sum(y & (s >= t)), np.sum(~y & (s >= t))
        out.append((tp / y.sum(), tp / (tp + fp)))
    return out


def brute_interpolated_median(y, s, lo, hi) -> float:
    """Boyd et al. (2013): median precision per distinct recall, Theorem 1 between them, integrated by quad."""
    points = brute_pr_points(y, s)
    recalls = sorted({r for r, _ in points})
    summary = [(r, float(np.median([p for q, p in points if q == r]))) for r in recalls]
    total = 0.0
    for (r1, p1), (r2, p2) in itertools.pairwise(summary):
        left, right = max(r1, lo), min(r2, hi)
        if right <= left:
            continue
        if r1 == 0:  # the piece from recall 0: a rectangle at p2
            total += (right - left) * p2
            continue
        a = 1 + ((1 - p2) * r2 / p2 - (1 - p1) * r1 / p1) / (r2 - r1)  # Eq. (5)
        b = (1 - p1) * r1 / p1 + r1 - a * r1
        total += integrate.quad(lambda r, a=a, b=b: r / (a * r + b), left, right)[0]
    return total


def brute_average_precision(y, s, lo, hi) -> float:
    """The step curve of Eq. (9): each positive's precision over its recall step, clipped to the window."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    order = np.argsort(-s, kind="stable")
    n_pos, total, tp = y.sum(), 0.0, 0
    for k, i in enumerate(order):
        if y[i]:
            tp += 1
            precision = tp / (k + 1)
            left, right = max((tp - 1) / n_pos, lo), min(tp / n_pos, hi)
            total += max(right - left, 0.0) * precision
    return total


distinct_scores = st.lists(st.booleans(), min_size=2, max_size=30).filter(lambda y: 0 < sum(y) < len(y))


@settings(max_examples=60, deadline=None)
@given(distinct_scores, bounds, st.randoms(use_true_random=False))
def test_partial_aucpr_brute_force(y, window, rnd):
    """Without ties (every score distinct), against the formulas of the paper integrated numerically."""
    lo, hi = sorted(window)
    s = rnd.sample(range(1000), len(y))
    t = table_of(y, s)
    assert pr_partial_area(t, PR_ESTIMATORS["interpolated_median"].partial, lo, hi)[0] == pytest.approx(
        brute_interpolated_median(y, s, lo, hi), abs=1e-8)
    assert pr_partial_area(t, PR_ESTIMATORS["average_precision"].partial, lo, hi)[0] == pytest.approx(
        brute_average_precision(y, s, lo, hi), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(scores, st.floats(0.01, 0.99), st.sampled_from(["interpolate", "published"]))
def test_partial_aucpr_full_range_and_additive(rows, cut, ties):
    """[0, 1] gives the estimator itself; [0, c] + [c, 1] gives [0, 1] (ties across classes included)."""
    y, s = [r[0] for r in rows], [r[1] for r in rows]
    t = table_of(y, s)
    for name in PR_PARTIAL_ESTIMATORS:
        full = PR_ESTIMATORS[name].under(ties)(t)[0]
        curve = PR_ESTIMATORS[name].partial
        assert pr_partial_area(t, curve, 0.0, 1.0, ties)[0] == pytest.approx(full, abs=1e-12)
        split = pr_partial_area(t, curve, 0.0, cut, ties)[0] + pr_partial_area(t, curve, cut, 1.0, ties)[0]
        assert split == pytest.approx(full, abs=1e-12)
        assert 0.0 <= pr_partial_area(t, curve, cut, 1.0, ties)[0] <= 1.0 - cut + 1e-12


def test_partial_aucpr_constant_score_is_prevalence():
    """A constant score: every crossing is the prevalence, so the standardized partial area is the prevalence."""
    df = frame([1, 0, 0, 1, 0], [1] * 5)
    for name in PR_PARTIAL_ESTIMATORS:
        value = aucpr(df, "y", "s", estimator=name, recall=(0.3, 0.7), standardized=True).estimate
        assert value == pytest.approx(0.4, abs=1e-12), name


# ------------------------------------------------------------------ the API
@pytest.fixture(scope="module")
def df():
    rng = np.random.default_rng(7)
    y = rng.random(300) < 0.3
    return pl.DataFrame({"y": y, "a": np.round(rng.normal(size=300) + y, 1),
                         "b": np.round(rng.normal(size=300) + 0.5 * y, 1), "site": rng.integers(0, 2, 300)})


def test_labels_and_options(df):
    r = auroc(df, "y", "a", specificity=(1, 0.8), standardized=True)
    assert r.estimators == ("a_prime, specificity 0.8-1, standardized",)
    assert r.options["partial"] == {"focus": "specificity", "lo": 0.8, "hi": 1.0, "standardized": True}
    frame_ = aucpr(df, "y", "a", by="site", recall=(0.5, 1)).to_frame()
    assert frame_["estimator"].to_list() == [f"{DEFAULT_PR_ESTIMATOR}, recall 0.5-1"] * 2


def test_bootstrap_interval_of_a_partial_area(df):
    """The default method is the bootstrap; its replicates are the partial area of resampled tables."""
    r = auroc(df, "y", "a", by="site", specificity=(0.8, 1))
    ci = r.conf_int(n_boot=300, seed=2)
    assert ci["method"].to_list() == ["bootstrap"] * 2
    assert (ci["lower"] < ci["estimate"]).all() and (ci["estimate"] < ci["upper"]).all()
    assert (ci["upper"] <= 0.2).all()  # a partial area over specificity 0.8-1 is at most 0.2
    full = auroc(df, "y", "a", by="site").conf_int("bootstrap", n_boot=300, seed=2)
    assert not np.allclose(ci["upper"].to_numpy(), full["upper"].to_numpy())
    assert aucpr(df, "y", "a", recall=(0, 0.5)).conf_int(n_boot=200, seed=1)["upper"][0] <= 0.5


def test_closed_forms_are_refused(df):
    r = auroc(df, "y", "a", sensitivity=(0.9, 1))
    for method in ("logit", "hanley_mcneil", "newcombe"):
        with pytest.raises(InputError, match="full area"):
            r.conf_int(method)
    assert r.conf_int("all", n_boot=50, seed=1)["method"].to_list() == ["delong", "bootstrap"]
    with pytest.raises(InputError, match="full area"):
        aucpr(df, "y", "a", recall=(0.2, 0.4)).conf_int("logit")
    with pytest.raises(InputError, match="contributions"):
        aucpr(df, "y", "a", estimator="average_precision", recall=(0.2, 0.4)).conf_int("per_positive")


def test_partial_delong_over_the_whole_range_is_delong():
    """Over [0, 1] the clipped placement values are DeLong's: the same standard error, both foci."""
    rng = np.random.default_rng(11)
    for rounding in (None, 1):
        y = rng.random(200) < 0.35
        s = rng.normal(size=200) + y
        t = table_of(y, s if rounding is None else np.round(s, rounding))
        _, s10, s01 = delong_components(t)
        delong = np.sqrt(s10 / t.n_pos + s01 / t.n_neg)[0]
        assert partial_auroc_se(t, "specificity", 0.0, 1.0)[0] == pytest.approx(delong, rel=1e-12)
        assert partial_auroc_se(t, "sensitivity", 0.0, 1.0)[0] == pytest.approx(delong, rel=1e-12)
        # the sensitivity focus is the specificity focus of the mirrored table
        assert roc_partial_area(t, "sensitivity", 0.3, 0.9)[0] == pytest.approx(
            roc_partial_area(mirrored(t), "specificity", 0.3, 0.9)[0], abs=1e-14)


@pytest.mark.parametrize("window", [{"specificity": (0.8, 1)}, {"specificity": (0.5, 0.8)},
                                    {"sensitivity": (0.9, 1)}, {"specificity": (0.8, 1), "standardized": True}])
def test_partial_delong_agrees_with_the_bootstrap(window):
    """On 3000 continuous scores the clipped-placement SE is within 8% of the bootstrap SD (2000 replicates)."""
    rng = np.random.default_rng(12)
    y = rng.random(3000) < 0.3
    frame_ = pl.DataFrame({"y": y, "s": rng.normal(size=3000) + 1.2 * y})
    ci = auroc(frame_, "y", "s", **window).conf_int(["delong", "bootstrap"], n_boot=2000, seed=1)
    assert ci["se"][0] == pytest.approx(ci["se"][1], rel=0.08)


def test_a_partial_area_at_zero_keeps_its_bootstrap_interval():
    """No fallback to Newcombe's interval (a full-area score interval) when the partial area is 0."""
    df = frame([1, 1, 0, 0, 0, 0, 1, 0, 1, 0], [1, 2, 3, 4, 5, 6, 0, 7, 0.5, 8])
    ci = auroc(df, "y", "s", specificity=(0.9, 1)).conf_int(n_boot=200, seed=1)
    assert ci["estimate"][0] == 0.0 and ci["lower"][0] == 0.0
    assert ci["note"][0] is None or "newcombe" not in ci["note"][0]


def test_bad_arguments(df):
    with pytest.raises(InputError, match="`specificity` must span"):
        auroc(df, "y", "a", specificity=(0.5, 0.5))
    with pytest.raises(InputError, match="bounds must lie in"):
        auroc(df, "y", "a", sensitivity=(0.5, 1.5))
    with pytest.raises(InputTypeError, match="pair"):
        auroc(df, "y", "a", specificity=0.8)
    with pytest.raises(InputError, match="one partial range"):
        auroc(df, "y", "a", specificity=(0.8, 1), sensitivity=(0.8, 1))
    with pytest.raises(InputError, match="`standardized=True` applies"):
        auroc(df, "y", "a", standardized=True)
    with pytest.raises(InputError, match="partial AUCPR"):
        aucpr(df, "y", "a", estimator="binormal", recall=(0.5, 1))
    with pytest.raises(TypeError):
        aucpr(df, "y", "a", specificity=(0.5, 1))


def test_compare_partial_areas(df):
    """Paired bootstrap of a partial area; DeLong refused; the estimates are those of auroc()."""
    out = compare(df, "y", ["a", "b"], method="bootstrap", specificity=(0.8, 1), n_boot=200, seed=1,
                  metric="auroc").to_frame()
    assert out["estimator"][0] == "a_prime, specificity 0.8-1"
    assert out["estimate_a"][0] == pytest.approx(auroc(df, "y", "a", specificity=(0.8, 1)).estimate)
    with pytest.raises(InputError, match="bootstrap"):
        compare(df, "y", ["a", "b"], method="delong", specificity=(0.8, 1), metric="auroc")
    pr = compare(df, "y", ["a", "b"], metric="aucpr", recall=(0.5, 1), n_boot=100, seed=1).to_frame()
    assert pr["estimator"][0] == f"{DEFAULT_PR_ESTIMATOR}, recall 0.5-1"
