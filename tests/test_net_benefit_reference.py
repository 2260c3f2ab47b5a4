"""net_benefit() against dcurves and against a brute-force oracle written from the definitions.

Two independent references:

* **dcurves** 1.1.7 (Python): its decision curves on the data sets of
  ``tests/reference/dcurves_data_*.csv`` are stored in ``tests/reference/dcurves_reference.json``,
  made by ``tests/reference/dcurves_reference.py`` (see its header; dcurves needs pandas < 3, so
  it runs in a separate environment). Net benefit, net interventions avoided per 100 and the
  treat-all / treat-none curves must agree to 1e-12 at every threshold, on pandas and polars input,
  with ties between risks and thresholds, a test harm, a case-control prevalence, groups (dcurves
  on each subset) and integer weights (dcurves on repeated rows).
* **the oracle** (:func:`oracle`): for each threshold it picks, with numpy masks on the raw rows, the
  (weighted) events and non-events at or above the threshold and applies the formulas of Vickers &
  Elkin (2006) and Kerr et al. (2016) directly, in exact rational arithmetic; no library code is
  used. It covers both policies, the standardized net benefit, weights, groups, a stated prevalence
  and the test's harm, on the reference data and on random small data sets (hypothesis) whose risks
  tie with the thresholds. Everything agrees to 1e-12, except that with non-integer weights
  interventions avoided is held to 1e-12 on the net-benefit scale (see
  :func:`check_group_against_oracle`).

Conventions the oracle encodes (those of ``aucpr_stats.net_benefit``): treat when ``risk >= t``;
``w = t / (1 - t)``; with ``pi`` the (weighted) prevalence of the group, or the stated prevalence,

* opt-in:  NB = TP/n - FP/n * w - harm; treat all = pi - (1 - pi) w; treat none = 0;
  standardized = NB / pi.
* opt-out: NB = TN/n - FN/n / w - harm; treat all = 0; treat none = (1 - pi) - pi / w;
  standardized = NB / (1 - pi).
* interventions avoided (either policy) = 100 (NB_opt-in - treat all_opt-in) / w, dcurves'
  ``net_intervention_avoided`` with ``nper=100``; under opt-out without harm it equals 100 NB_opt-out.
* a stated prevalence replaces TP/n, FN/n by pi TP/P, pi FN/P and FP/n, TN/n by (1 - pi) FP/N,
  (1 - pi) TN/N (P, N: the events' and non-events' totals), as dcurves' ``prevalence=``.
* weights: every count is a sum of weights, n the total weight; ``n_pos``/``n_neg`` stay row counts.
* a group without events or without non-events: NaN estimates with a note and a
  ``DegenerateGroupWarning``; its treat-all / treat-none references are still reported.
"""

from __future__ import annotations

import csv
import json
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aucpr_stats import net_benefit
from aucpr_stats.exceptions import DegenerateGroupWarning, OutcomeError

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
REFERENCE = json.loads((REFERENCE_DIR / "dcurves_reference.json").read_text())
CASES = REFERENCE["cases"]
TOL = 1e-12
KINDS = ("pandas", "polars")
STATISTICS = ("net_benefit", "standardized_net_benefit", "interventions_avoided")
DECIMAL_GRID = [i / 100 for i in range(1, 100)]


# ------------------------------------------------------------------------------------------ helpers
def read_data(file_name: str) -> pd.DataFrame:
    """A reference CSV (pandas' parser gives the exact doubles: see :func:`test_csv_parsing_is_exact`)."""
    return pd.read_csv(REFERENCE_DIR / file_name, dtype={"site": str})


def as_kind(frame: pd.DataFrame, kind: str):
    """``frame`` as a pandas or a polars DataFrame."""
    return frame if kind == "pandas" else pl.from_pandas(frame)


def library_table(frame: pd.DataFrame, kind: str, outcome: str, score, **options) -> pd.DataFrame:
    """``net_benefit(..., statistic="all").to_frame()`` on ``kind`` input, as pandas for the comparisons."""
    table = net_benefit(as_kind(frame, kind), outcome, score, statistic="all", **options).to_frame()
    assert isinstance(table, pd.DataFrame if kind == "pandas" else pl.DataFrame)
    return table if kind == "pandas" else table.to_pandas()


def select(table: pd.DataFrame, estimator: str, *, score: str | None = None, by: str | None = None,
           group=None) -> pd.DataFrame:
    """The rows of one statistic (and score and group), ascending in threshold."""
    rows = table[table["estimator"] == estimator]
    if score is not None and "score" in rows.columns:
        rows = rows[rows["score"] == score]
    if by is not None:
        rows = rows[rows[by] == group]
    return rows.sort_values("threshold", kind="stable")


def assert_close(got, expected, what: str, atol=TOL) -> None:
    """Equal to ``atol`` (absolute; default ``TOL``, or one per element), NaN matching NaN."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    assert np.array_equal(np.isnan(got), np.isnan(expected)), f"NaN pattern differs: {what}"
    bad = ~np.isnan(expected) & ~(np.abs(got - expected) <= atol)
    assert not bad.any(), (f"{what}: {bad.sum()} of {bad.size} differ; first at {np.flatnonzero(bad)[0]}: "
                           f"got {got[bad][0]!r}, expected {expected[bad][0]!r}")


# ------------------------------------------------------------------------------------------- oracle
def exact_weights(weights, size: int) -> np.ndarray:
    """The weights as exact rationals (``Fraction`` of each double; 1 without weights), an object array."""
    if weights is None:
        return np.array([Fraction(1)] * size, dtype=object)
    return np.array([Fraction(float(w)) for w in weights], dtype=object)


def oracle(y, risk, thresholds, *, weights=None, policy: str = "opt-in", harm: float = 0.0,
           prevalence: float | None = None) -> dict:
    """Decision-curve statistics of one group by brute force, straight from the definitions.

    For each threshold the rows at or above it are picked with a boolean mask and their weights
    summed; the formulas are then evaluated in exact rational arithmetic (``fractions.Fraction`` of
    the input doubles), so the oracle returns the correctly rounded values and the comparison at
    1e-12 is not spoiled by its own rounding. (Interventions avoided at t = 0.01 multiplies the
    difference of two net benefits by 100 / w = 9,900: evaluated in floating point, the oracle alone
    would be off by about 1e-12.)

    Parameters
    ----------
    y : array of 0/1
        Outcome of each row.
    risk : array of float
        Predicted risk of each row; a row is treated when ``risk >= t``.
    thresholds : sequence of float
    weights : array of float, optional
        Case weights: each row counts with its weight (default 1).
    policy : {"opt-in", "opt-out"}
    harm : float
        Subtracted from the net benefit (not from the references).
    prevalence : float, optional
        A stated population prevalence (case-control reading of the sample).

    Returns
    -------
    dict
        Float arrays over ``thresholds`` for ``net_benefit``, ``standardized_net_benefit``,
        ``interventions_avoided``, ``treat_all``, ``treat_none``; and the scalars ``prevalence``
        (the sample's weighted prevalence), ``n_pos``, ``n_neg`` (row counts) and ``note`` (None,
        "no positives", "no negatives", or "all weights zero" when a class present has zero weight).
    """
    y = np.asarray(y).astype(bool)
    risk = np.asarray(risk, dtype=float)
    wt = exact_weights(weights, y.size)
    total_pos, total_neg = sum(wt[y], Fraction(0)), sum(wt[~y], Fraction(0))
    n = total_pos + total_neg
    sample_pi = total_pos / n if n > 0 else None  # None: a group whose weights are all zero
    pi = sample_pi if prevalence is None else Fraction(prevalence)
    harm = Fraction(harm)
    if total_pos > 0 and total_neg > 0:
        note = None
    elif total_pos == 0 and total_neg == 0:
        note = "all weights zero"  # a zero-weight group: the library's wording is not pinned down
    elif not y.any():
        note = "no positives"
    elif y.all():
        note = "no negatives"
    else:
        note = "all weights zero"  # a class present with zero total weight: wording not pinned down

    out = {name: [] for name in (*STATISTICS, "treat_all", "treat_none")}
    for threshold in thresholds:
        t = Fraction(threshold)
        odds = t / (1 - t)
        treated = risk >= threshold
        if pi is None:
            all_in = none_out = None
        else:
            all_in = pi - (1 - pi) * odds  # treat everyone (opt-in); the baseline of interventions avoided
            none_out = (1 - pi) - pi / odds  # treat no one (opt-out)
        out["treat_all"].append(all_in if policy == "opt-in" else 0)
        out["treat_none"].append(0 if policy == "opt-in" else none_out)
        if note is not None:
            for name in STATISTICS:
                out[name].append(None)
            continue
        tp, fn = sum(wt[y & treated], Fraction(0)), sum(wt[y & ~treated], Fraction(0))
        fp, tn = sum(wt[~y & treated], Fraction(0)), sum(wt[~y & ~treated], Fraction(0))
        if prevalence is None:
            tp_rate, fn_rate, fp_rate, tn_rate = tp / n, fn / n, fp / n, tn / n
        else:
            tp_rate, fn_rate = pi * tp / total_pos, pi * fn / total_pos
            fp_rate, tn_rate = (1 - pi) * fp / total_neg, (1 - pi) * tn / total_neg
        nb_in = tp_rate - fp_rate * odds - harm
        if policy == "opt-in":
            nb, best = nb_in, pi
        else:
            nb, best = tn_rate - fn_rate / odds - harm, 1 - pi
        out["net_benefit"].append(nb)
        out["standardized_net_benefit"].append(nb / best)
        out["interventions_avoided"].append(100 * (nb_in - all_in) / odds)
    result = {name: np.array([np.nan if v is None else float(v) for v in values]) for name, values in out.items()}
    result.update(prevalence=np.nan if sample_pi is None else float(sample_pi), n_pos=int(y.sum()),
                  n_neg=int((~y).sum()), note=note)
    return result


def check_group_against_oracle(table: pd.DataFrame, frame: pd.DataFrame, *, outcome: str, score: str,
                               thresholds, by: str | None = None, group=None, weights: str | None = None,
                               **options) -> None:
    """Every statistic and reference of one score and group of ``table`` against :func:`oracle`."""
    rows = frame if by is None else frame[frame[by] == group]
    expected = oracle(rows[outcome], rows[score], thresholds,
                      weights=None if weights is None else rows[weights], **options)
    where = f"score={score!r}, group={group!r}, weights={weights!r}, options={options}"
    odds = np.asarray(thresholds, dtype=float) / (1.0 - np.asarray(thresholds, dtype=float))
    # Interventions avoided is 100 / w times a difference of net benefits (9,900 times at t = 0.01). With
    # non-integer weights the library's floating-point sums of weights carry a rounding error of about
    # 1e-14, which that factor lifts past 1e-12; so with weights it is held to 1e-12 on the scale of the
    # net benefit (the difference NB - NB_all), without weights (exact counts) to 1e-12 itself.
    atol = {"interventions_avoided": TOL if weights is None else TOL * 100.0 / odds}
    for statistic in STATISTICS:
        got = select(table, statistic, score=score, by=by, group=group)
        assert got["threshold"].tolist() == list(thresholds), where
        assert_close(got["estimate"], expected[statistic], f"{statistic}, {where}", atol.get(statistic, TOL))
        assert_close(got["treat_all"], expected["treat_all"], f"treat_all, {where}")
        assert_close(got["treat_none"], expected["treat_none"], f"treat_none, {where}")
        assert_close(got["prevalence"], np.full(len(got), expected["prevalence"]), f"prevalence, {where}")
        assert (got["n_pos"] == expected["n_pos"]).all() and (got["n_neg"] == expected["n_neg"]).all(), where
        notes = got["note"].tolist()
        if expected["note"] is None:
            assert all(pd.isna(note) for note in notes), (where, notes)
        elif expected["note"] == "all weights zero":
            assert all(isinstance(note, str) and "weights zero" in note for note in notes), (where, notes)
        else:
            assert all(note == expected["note"] for note in notes), (where, notes)


def check_against_oracle(table: pd.DataFrame, frame: pd.DataFrame, *, outcome: str, scores, thresholds,
                         by: str | None = None, **options) -> None:
    """Every score and group of ``table`` against :func:`oracle`; no group missing, none extra."""
    groups = [None] if by is None else sorted(frame[by].unique())
    if by is not None:
        assert sorted(table[by].unique()) == groups
    assert len(table) == len(groups) * len(scores) * len(STATISTICS) * len(thresholds)
    for score in scores:
        for group in groups:
            check_group_against_oracle(table, frame, outcome=outcome, score=score, thresholds=thresholds,
                                       by=by, group=group, **options)


# ------------------------------------------------------------------------------ the oracle itself
def test_oracle_by_hand():
    """The oracle on a case worked by hand, so that it is itself checked against arithmetic.

    Six rows, t = 0.5 (w = 1): treated (risk >= 0.5) are two events and one non-event (the tie at
    0.5 is treated); untreated one event and two non-events. Opt-in NB = 2/6 - 1/6 = 1/6; treat all
    = 1/2 - 1/2 = 0; interventions avoided = 100 (1/6 - 0) / 1; opt-out NB = 2/6 - 1/6 = 1/6,
    treat none = 1/2 - 1/2 = 0; standardized 1/3 under either policy.
    """
    y, risk = [1, 0, 1, 0, 0, 1], [0.8, 0.3, 0.5, 0.2, 0.5, 0.4]
    opt_in = oracle(y, risk, [0.5])
    assert opt_in["net_benefit"][0] == pytest.approx(1 / 6)
    assert opt_in["standardized_net_benefit"][0] == pytest.approx(1 / 3)
    assert opt_in["treat_all"][0] == pytest.approx(0.0)
    assert opt_in["interventions_avoided"][0] == pytest.approx(100 / 6)
    opt_out = oracle(y, risk, [0.5], policy="opt-out")
    assert opt_out["net_benefit"][0] == pytest.approx(1 / 6)
    assert opt_out["treat_none"][0] == pytest.approx(0.0)
    assert opt_out["interventions_avoided"][0] == pytest.approx(100 / 6)
    # Weight 3 on the non-event at 0.5: n = 8, pi = 3/8, t = 0.25 (w = 1/3). Treated: the three
    # events and the non-events at 0.3 (weight 1) and 0.5 (weight 3), so NB = 3/8 - 4/8 w.
    weighted = oracle(y, risk, [0.25], weights=[1, 1, 1, 1, 3, 1])
    assert weighted["net_benefit"][0] == pytest.approx(3 / 8 - (1 + 3) / 8 / 3)
    assert weighted["treat_all"][0] == pytest.approx(3 / 8 - 5 / 8 / 3)


# ------------------------------------------------------------------------------------- dcurves
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case_name", list(CASES))
def test_matches_dcurves(case_name: str, kind: str):
    """Net benefit, interventions avoided per 100, treat all and treat none equal dcurves' to 1e-12."""
    spec = CASES[case_name]
    frame = read_data(spec["data"])
    thresholds = spec["thresholds"]
    for model in spec["models"]:
        options = {"thresholds": thresholds, "by": spec["by"], "prevalence": spec["prevalence"],
                   "harm": (spec["harm"] or {}).get(model, 0.0), "weights": spec["integer_weights"]}
        table = library_table(frame, kind, spec["outcome"], model, **options)
        for curve in spec["curves"]:
            where = f"{case_name}, model={model}, group={curve['group']}"
            pick = {"score": model, "by": spec["by"], "group": curve["group"]}
            nb = select(table, "net_benefit", **pick)
            avoided = select(table, "interventions_avoided", **pick)
            assert nb["threshold"].tolist() == thresholds, where
            assert avoided["threshold"].tolist() == thresholds, where
            assert_close(nb["estimate"], curve["models"][model]["net_benefit"], f"net benefit, {where}")
            assert_close(avoided["estimate"], curve["models"][model]["net_intervention_avoided"],
                         f"interventions avoided, {where}")
            assert_close(nb["treat_all"], curve["all"]["net_benefit"], f"treat all, {where}")
            assert_close(nb["treat_none"], curve["none"]["net_benefit"], f"treat none, {where}")
            if spec["prevalence"] is None and spec["integer_weights"] is None:
                assert_close(nb["prevalence"], np.full(len(nb), curve["prevalence"]), f"prevalence, {where}")
                assert (nb["n_pos"] + nb["n_neg"] == curve["n"]).all(), where


def test_reference_cases_exercise_ties():
    """The ``ties`` data really has risks equal to thresholds, in both classes, and exact 0 and 1 risks."""
    spec = CASES["ties"]
    frame = read_data(spec["data"])
    grid = set(spec["thresholds"])
    for model in spec["models"]:
        on_grid = frame[model].isin(grid)
        assert on_grid[frame["y"] == 1].sum() > 50 and on_grid[frame["y"] == 0].sum() > 50
        for value in (0.0, 1.0):
            assert set(frame.loc[frame[model] == value, "y"]) == {0, 1}
    assert REFERENCE["dcurves_version"] == "1.1.7"


def test_csv_parsing_is_exact():
    """pandas reads every float of the reference CSVs as Python's ``float()`` does (correctly rounded)."""
    for path in sorted(REFERENCE_DIR.glob("dcurves_data_*.csv")):
        frame = read_data(path.name)
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        for column in frame.columns:
            if frame[column].dtype.kind == "f":
                exact = np.array([float(row[column]) for row in rows])
                assert np.array_equal(frame[column].to_numpy(), exact), (path.name, column)


# -------------------------------------------------------------------------- oracle on the ties data
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("harm", [0.0, 0.01])
@pytest.mark.parametrize("prevalence", [None, 0.2])
@pytest.mark.parametrize("by", [None, "site"])
@pytest.mark.parametrize("weights", [None, "w"])
@pytest.mark.parametrize("policy", ["opt-in", "opt-out"])
def test_matches_oracle_on_reference_data(policy, weights, by, prevalence, harm, kind):
    """Both models of the ``ties`` data, every statistic and reference, against the oracle."""
    frame = read_data(CASES["ties"]["data"])
    options = {"policy": policy, "harm": harm, "prevalence": prevalence, "weights": weights}
    table = library_table(frame, kind, "y", ["m1", "m2"], by=by, thresholds=DECIMAL_GRID, **options)
    check_against_oracle(table, frame, outcome="y", scores=["m1", "m2"], thresholds=DECIMAL_GRID, by=by,
                         **options)


@pytest.mark.parametrize("policy", ["opt-in", "opt-out"])
def test_matches_oracle_low_prevalence(policy):
    """The low-prevalence data on numpy's off-decimal ``arange`` grid, against the oracle."""
    spec = CASES["low_prevalence"]
    frame = read_data(spec["data"])
    table = library_table(frame, "polars", "y", spec["models"], thresholds=spec["thresholds"], policy=policy)
    check_against_oracle(table, frame, outcome="y", scores=spec["models"], thresholds=spec["thresholds"],
                         policy=policy)


# ----------------------------------------------------------------------------- degenerate groups
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("policy", ["opt-in", "opt-out"])
def test_groups_without_both_classes(policy, kind):
    """Groups without events or without non-events: NaN estimates, a note, a warning; others unaffected."""
    frame = pd.DataFrame({
        "y": [1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1],
        "p": [0.8, 0.3, 0.5, 0.5, 0.1, 0.9, 0.0, 1.0, 0.25, 0.5, 0.25, 0.9],
        "g": ["ok", "ok", "ok", "ok", "none", "none", "none", "all", "all", "all", "ok", "ok"],
        "w": [1.0, 2.0, 0.5, 1.5, 1.0, 1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 0.25],
    })
    thresholds = [0.1, 0.25, 0.5, 0.9]
    for weights in (None, "w"):
        with pytest.warns(DegenerateGroupWarning, match="2 groups"):
            table = library_table(frame, kind, "y", "p", by="g", thresholds=thresholds, policy=policy,
                                  weights=weights)
        for group, note in (("none", "no positives"), ("all", "no negatives")):
            rows = table[table["g"] == group]
            assert rows["estimate"].isna().all() and (rows["note"] == note).all()
        check_against_oracle(table, frame, outcome="y", scores=["p"], thresholds=thresholds, by="g",
                             policy=policy, weights=weights)


# --------------------------------------------------------------------- random small data sets
RISKS = (0.0, 0.1, 0.25, 0.5, 0.9, 1.0)
THRESHOLDS = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.25)


@st.composite
def small_problems(draw):
    """A data set of 1-30 rows with risks among :data:`RISKS`, and the options of one call."""
    n = draw(st.integers(1, 30))
    frame = pd.DataFrame({
        "y": draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)),
        "p": draw(st.lists(st.sampled_from(RISKS), min_size=n, max_size=n)),
        "q": draw(st.lists(st.sampled_from(RISKS), min_size=n, max_size=n)),
        "g": draw(st.lists(st.sampled_from(["g1", "g2", "g3"]), min_size=n, max_size=n)),
        "w": draw(st.lists(st.sampled_from(WEIGHTS), min_size=n, max_size=n)),
    })
    options = {
        "thresholds": sorted(draw(st.sets(st.sampled_from(THRESHOLDS), min_size=1))),
        "policy": draw(st.sampled_from(["opt-in", "opt-out"])),
        "harm": draw(st.sampled_from([0.0, 0.01, 0.2])),
        "prevalence": draw(st.sampled_from([None, 0.05, 0.3])),
        "weights": draw(st.sampled_from([None, "w"])),
        "by": draw(st.sampled_from([None, "g"])),
    }
    return frame, options, draw(st.sampled_from(KINDS))


def _problem(y, p, q, g, w, kind="pandas", **options):
    """An explicit example for :func:`test_matches_oracle_on_random_small_data`."""
    defaults = {"thresholds": [0.1, 0.25, 0.5, 0.9], "policy": "opt-in", "harm": 0.0, "prevalence": None,
                "weights": "w", "by": "g"}
    return pd.DataFrame({"y": y, "p": p, "q": q, "g": g, "w": w}), {**defaults, **options}, kind


@settings(max_examples=300, deadline=None)
@given(small_problems())
# All weights zero, at a stated prevalence (the references still defined) and without one.
@example(_problem([1, 0, 0, 1], [0.8, 0.3, 0.5, 0.25], [0.0, 1.0, 0.5, 0.5], ["g1", "g2"] * 2, [0.0] * 4,
                  prevalence=0.3, policy="opt-out"))
@example(_problem([1, 0, 0, 1], [0.8, 0.3, 0.5, 0.25], [0.0, 1.0, 0.5, 0.5], ["g1", "g2"] * 2, [0.0] * 4,
                  kind="polars"))
# One group whose events all weigh zero, next to a group with risks tied at every threshold.
@example(_problem([1, 0, 1, 0, 1, 0], [0.1, 0.25, 0.5, 0.5, 0.9, 0.9], [1.0, 0.0, 0.25, 0.25, 0.1, 0.1],
                  ["g1", "g1", "g2", "g2", "g2", "g2"], [0.0, 2.0, 0.5, 1.0, 3.25, 2.0], harm=0.2))
def test_matches_oracle_on_random_small_data(problem):
    """The library equals the oracle on random small data; groups lacking a class give NaN with a note."""
    frame, options, kind = problem
    if frame["y"].nunique() < 2:  # one outcome level in the whole data is an error, not a NaN
        with pytest.raises(OutcomeError):
            library_table(frame, kind, "y", ["p", "q"], **options)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = library_table(frame, kind, "y", ["p", "q"], **options)
    check_against_oracle(table, frame, outcome="y", scores=["p", "q"], **options)
    degenerate = table["note"].notna().any()
    assert degenerate == any(issubclass(w.category, DegenerateGroupWarning) for w in caught), (
        [str(w.message) for w in caught])
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
