"""The within-matched-set AUROC (aucpr_stats.matched) against brute force, closed forms and R.

Oracles: a double loop over the (case, control) pairs of every set (the
estimate), the leave-one-set-out jackknife by brute force, the closed form of
a 1:1 design without ties (a mean of 0/1 wins), the unmatched AUROC of one
set, and values computed by hand-written R on datasets::infert
(tests/reference/matched_infert.R).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

from aucpr_stats import auroc
from aucpr_stats.exceptions import (ColumnNotFoundError, DegenerateGroupWarning, InputError, InputTypeError,
                                    MissingValueError)
from aucpr_stats.matched import (jackknife_variance, matched_auroc, matched_estimate, sandwich_variance,
                                 set_counts)

REFERENCE = Path(__file__).parent / "reference"


def brute_wins(sets, case, score):
    """U_k and P_k of every set by a double loop over its cases and controls."""
    out = {}
    for k in sorted(set(sets)):
        cases = [s for g, y, s in zip(sets, case, score) if g == k and y]
        controls = [s for g, y, s in zip(sets, case, score) if g == k and not y]
        u = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in cases for b in controls)
        out[k] = (u, len(cases) * len(controls))
    return out


def brute_estimate(sets, case, score):
    wins = brute_wins(sets, case, score)
    total_u = sum(u for u, p in wins.values() if p > 0)
    total_p = sum(p for u, p in wins.values() if p > 0)
    return total_u / total_p if total_p else math.nan


def brute_jackknife(sets, case, score):
    """Leave each usable set out, recompute by brute force, (K-1)/K times the sum of squared deviations."""
    usable = [k for k, (u, p) in brute_wins(sets, case, score).items() if p > 0]
    values = []
    for k in usable:
        keep = [i for i, g in enumerate(sets) if g != k]
        values.append(brute_estimate([sets[i] for i in keep], [case[i] for i in keep], [score[i] for i in keep]))
    values = np.array(values)
    n = len(values)
    return (n - 1) / n * np.sum((values - values.mean()) ** 2)


def simulated(rng, n_sets, max_cases=3, max_controls=4, levels=5):
    """m:n matched sets with a set effect and integer scores (many ties within and across classes)."""
    n_pos = rng.integers(0, max_cases + 1, n_sets)
    n_neg = rng.integers(0, max_controls + 1, n_sets)
    sets = np.repeat(np.arange(n_sets), n_pos + n_neg)
    case = np.concatenate([np.r_[np.ones(a, bool), np.zeros(b, bool)] for a, b in zip(n_pos, n_neg)])
    shift = rng.normal(size=n_sets)[sets]
    score = np.floor(shift + case * 0.8 + rng.normal(size=sets.size)).clip(-levels, levels)
    perm = rng.permutation(sets.size)
    return sets[perm], case[perm], score[perm]


def frame(sets, case, score):
    return pl.DataFrame({"set": sets, "case": case.astype(np.int64), "s": score})


# --- the kernels against brute force -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_set_counts_match_double_loop(seed):
    rng = np.random.default_rng(seed)
    sets, case, score = simulated(rng, 25)
    codes = np.unique(sets, return_inverse=True)[1]
    counts = set_counts(codes, case, score)
    oracle = brute_wins(list(sets), list(case), list(score))
    expected_u = np.array([oracle[k][0] for k in np.unique(sets)])
    expected_p = np.array([oracle[k][1] for k in np.unique(sets)])
    np.testing.assert_array_equal(counts.wins, expected_u)
    np.testing.assert_array_equal(counts.pairs, expected_p)


@pytest.mark.parametrize("seed", range(6))
def test_verb_estimate_and_jackknife_match_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    sets, case, score = simulated(rng, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        result = matched_auroc(frame(sets, case, score), "case", "s", matched_set="set")
    assert result.estimate == pytest.approx(brute_estimate(list(sets), list(case), list(score)), abs=1e-14)
    jack = result.variances("jackknife")[0]
    assert jack == pytest.approx(brute_jackknife(list(sets), list(case), list(score)), rel=1e-10)
    row = result.conf_int("jackknife").to_frame().row(0, named=True)
    assert row["se"] == pytest.approx(math.sqrt(jack), rel=1e-12)


def test_sandwich_closed_form_one_to_one_without_ties():
    # 1:1 sets without ties: U_k in {0, 1}, P_k = 1, so the sandwich is theta (1 - theta) / (K - 1)
    rng = np.random.default_rng(7)
    k = 57
    wins = (rng.random(k) < 0.7).astype(float)
    group = np.zeros(k, dtype=np.int64)
    theta = wins.mean()
    assert matched_estimate(wins, np.ones(k), group, 1)[0] == pytest.approx(theta)
    assert sandwich_variance(wins, np.ones(k), group, 1)[0] == pytest.approx(theta * (1 - theta) / (k - 1))
    # the jackknife of a mean is the same number exactly
    assert jackknife_variance(wins, np.ones(k), group, 1)[0] == pytest.approx(theta * (1 - theta) / (k - 1))


def test_sandwich_agrees_with_jackknife_asymptotically():
    rng = np.random.default_rng(11)
    sets, case, score = simulated(rng, 3000)
    codes = np.unique(sets, return_inverse=True)[1]
    counts = set_counts(codes, case, score)
    use = counts.usable
    group = np.zeros(int(use.sum()), dtype=np.int64)
    sandwich = sandwich_variance(counts.wins[use], counts.pairs[use], group, 1)[0]
    jack = jackknife_variance(counts.wins[use], counts.pairs[use], group, 1)[0]
    assert abs(jack / sandwich - 1) < 0.01
    small = np.arange(use.sum()) < 40  # and they differ at small K (the check above could fail)
    s40 = sandwich_variance(counts.wins[use][small], counts.pairs[use][small], group[small], 1)[0]
    j40 = jackknife_variance(counts.wins[use][small], counts.pairs[use][small], group[small], 1)[0]
    assert s40 != j40


def test_groups_in_one_call_equal_separate_calls():
    rng = np.random.default_rng(3)
    parts = []
    for g in ("a", "b", "c"):
        sets, case, score = simulated(rng, 15)
        parts.append(frame(sets, case, score).with_columns(pl.lit(g).alias("site")))
    df = pl.concat(parts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        together = matched_auroc(df, "case", "s", matched_set="set", by="site").conf_int("all").to_frame()
        for g in ("a", "b", "c"):
            alone = matched_auroc(df.filter(pl.col("site") == g), "case", "s", matched_set="set")
            mine = together.filter(pl.col("site") == g).sort("method")
            theirs = alone.conf_int("all").to_frame().sort("method")
            for column in ("estimate", "se", "lower", "upper", "n_sets", "n_pos", "n_neg", "n_pairs"):
                np.testing.assert_allclose(mine[column].to_numpy(), theirs[column].to_numpy(), rtol=1e-13)


def test_one_set_is_the_unmatched_auroc():
    rng = np.random.default_rng(5)
    n = 40
    df = pl.DataFrame({"set": np.zeros(n, np.int64), "case": (rng.random(n) < 0.4).astype(np.int64),
                       "s": rng.integers(0, 6, n).astype(float)})
    assert matched_auroc(df, "case", "s", matched_set="set").estimate == pytest.approx(
        auroc(df, "case", "s").estimate, abs=1e-14)


# --- R reference (hand-written from the formula, on datasets::infert) ----------------------------------------


@pytest.fixture(scope="module")
def infert():
    return pl.read_csv(REFERENCE / "infert.csv"), json.loads((REFERENCE / "matched_infert.json").read_text())


@pytest.mark.parametrize("score", ["spontaneous", "induced", "lp"])
def test_infert_matches_r(infert, score):
    df, reference = infert
    expected = reference[score]
    result = matched_auroc(df, "case", score, matched_set="stratum")
    row = result.to_frame().row(0, named=True)
    assert row["estimate"] == pytest.approx(expected["estimate"], abs=1e-14)
    assert (row["n_sets"], row["n_pairs"], row["n_pos"], row["n_neg"]) == (expected["n_sets"], expected["n_pairs"],
                                                                           83, 165)
    assert float(result.wins.sum()) == expected["wins"]
    intervals = result.conf_int("all", level=reference["level"]).to_frame()
    for method, se_name in (("logit", "se_sandwich"), ("wald", "se_sandwich"), ("jackknife", "se_jackknife")):
        got = intervals.filter(pl.col("method") == method).row(0, named=True)
        assert got["se"] == pytest.approx(expected[se_name], rel=1e-12)
        assert (got["lower"], got["upper"]) == pytest.approx(tuple(expected[method]), rel=1e-12)
        assert got["level"] == 0.95


def test_infert_several_scores_one_call(infert):
    df, reference = infert
    result = matched_auroc(df, "case", ["spontaneous", "induced", "lp"], matched_set="stratum")
    out = result.to_frame()
    assert out["score"].to_list() == ["spontaneous", "induced", "lp"]
    np.testing.assert_allclose(out["estimate"].to_numpy(),
                               [reference[s]["estimate"] for s in ("spontaneous", "induced", "lp")], atol=1e-14)


# --- edges ---------------------------------------------------------------------------------------------------


def test_ties_across_classes_count_one_half():
    df = pl.DataFrame({"set": [1, 1, 1, 2, 2, 2], "case": [1, 0, 0, 1, 0, 0], "s": [2.0, 2.0, 1.0, 5.0, 5.0, 5.0]})
    # set 1: a win and a tie (1.5 of 2); set 2: two ties (1 of 2)
    assert matched_auroc(df, "case", "s", matched_set="set").estimate == pytest.approx(2.5 / 4)


def test_constant_scores_give_one_half_and_a_zero_variance():
    df = pl.DataFrame({"set": np.repeat(np.arange(6), 3), "case": np.tile([1, 0, 0], 6), "s": np.ones(18)})
    result = matched_auroc(df, "case", "s", matched_set="set")
    assert result.estimate == 0.5
    out = result.conf_int("wald").to_frame().row(0, named=True)
    assert out["se"] == 0.0 and out["lower"] == out["upper"] == 0.5


def test_perfect_separation_has_no_logit_interval():
    df = pl.DataFrame({"set": np.repeat(np.arange(5), 3), "case": np.tile([1, 0, 0], 5),
                       "s": np.tile([3.0, 1.0, 2.0], 5)})
    result = matched_auroc(df, "case", "s", matched_set="set")
    assert result.estimate == 1.0
    out = result.conf_int("all").to_frame()
    logit = out.filter(pl.col("method") == "logit").row(0, named=True)
    assert math.isnan(logit["lower"]) and math.isnan(logit["upper"]) and "no interval on the logit" in logit["note"]
    wald = out.filter(pl.col("method") == "wald").row(0, named=True)
    assert wald["lower"] == wald["upper"] == 1.0 and "point" in wald["note"]
    reverse = matched_auroc(df, "case", "s", matched_set="set", direction="lower")
    assert reverse.estimate == 0.0


@pytest.mark.parametrize("n_cases", [1, 2, 3])
def test_few_cases(n_cases):
    # n_cases sets of 1:2: with one set there is no variance (NaN, noted)
    df = pl.DataFrame({"set": np.repeat(np.arange(n_cases), 3), "case": np.tile([1, 0, 0], n_cases),
                       "s": np.tile([2.0, 1.0, 3.0], n_cases) + np.repeat(np.arange(n_cases), 3) * 0.1})
    df = df.with_columns(pl.when((pl.col("set") == 1) & (pl.col("case") == 1)).then(5.0).otherwise(pl.col("s"))
                         .alias("s"))
    result = matched_auroc(df, "case", "s", matched_set="set")
    assert result.estimate == pytest.approx(brute_estimate(df["set"].to_list(), df["case"].to_list(),
                                                           df["s"].to_list()))
    row = result.conf_int("wald").to_frame().row(0, named=True)
    if n_cases == 1:
        assert math.isnan(row["se"]) and "fewer than 2 matched sets" in row["note"]
    else:
        assert row["se"] > 0


def test_sets_without_a_case_or_control_are_dropped_with_a_warning():
    df = pl.DataFrame({"set": ["a", "a", "a", "b", "b", "c", "d", "d"], "case": [1, 0, 0, 1, 1, 0, 1, 0],
                       "s": [3.0, 1.0, 2.0, 1.0, 2.0, 0.0, 0.0, 1.0]})
    with pytest.warns(DegenerateGroupWarning, match="2 matched sets without a case or without a control"):
        result = matched_auroc(df, "case", "s", matched_set="set")
    row = result.to_frame().row(0, named=True)
    assert (row["n_sets"], row["n_pos"], row["n_neg"], row["n_pairs"]) == (2, 2, 3, 3)
    assert row["estimate"] == pytest.approx(2 / 3)
    assert "2 matched sets without a case or without a control left out" in row["note"]


def test_no_usable_set_gives_nan_and_a_note():
    df = pl.DataFrame({"set": [1, 1, 2, 2], "case": [1, 1, 0, 0], "s": [1.0, 2.0, 3.0, 4.0]})
    with pytest.warns(DegenerateGroupWarning):
        result = matched_auroc(df, "case", "s", matched_set="set")
    row = result.conf_int().to_frame().row(0, named=True)
    assert math.isnan(row["estimate"]) and math.isnan(row["lower"]) and row["n_sets"] == 0
    assert "no matched set holds both" in row["note"]


def test_row_order_and_direction():
    rng = np.random.default_rng(9)
    sets, case, score = simulated(rng, 30)
    df = frame(sets, case, score)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        a = matched_auroc(df, "case", "s", matched_set="set").conf_int("all").to_frame()
        b = matched_auroc(df.reverse(), "case", "s", matched_set="set").conf_int("all").to_frame()
        lower = matched_auroc(df.with_columns(-pl.col("s")), "case", "s", matched_set="set", direction="lower")
    assert a.equals(b)
    assert lower.estimate == a["estimate"][0]


def test_pandas_in_pandas_out_and_formula():
    df = pd.DataFrame({"set": [1, 1, 1, 2, 2, 2], "case": [1, 0, 0, 1, 0, 0], "s": [3.0, 1.0, 2.0, 1.0, 2.0, 0.5]})
    result = matched_auroc("case ~ s", data=df, matched_set="set")
    out = result.to_frame()
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["score", "estimator", "estimate", "n_sets", "n_pos", "n_neg", "n_pairs", "note"]
    assert out["estimate"].iloc[0] == 0.75
    ci = result.conf_int().to_frame()
    assert isinstance(ci, pd.DataFrame) and {"se", "lower", "upper", "method", "level"} <= set(ci.columns)
    assert "Matched AUROC" in result.summary() and "Matched AUROC" in result.conf_int().summary()


def test_missing_drop_counts_rows():
    df = pl.DataFrame({"set": [1, 1, 1, 2, 2, 2], "case": [1, 0, 0, 1, 0, 0],
                       "s": [3.0, None, 2.0, 1.0, 2.0, 0.5]})
    with pytest.raises(MissingValueError, match="'s'"):
        matched_auroc(df, "case", "s", matched_set="set")
    result = matched_auroc(df, "case", "s", matched_set="set", missing="drop")
    assert result.estimate == pytest.approx(brute_estimate([1, 1, 2, 2, 2], [1, 0, 1, 0, 0], [3, 2, 1, 2, 0.5]))
    assert "1 row with missing values dropped" in result.to_frame()["note"][0]


# --- bad input -----------------------------------------------------------------------------------------------


@pytest.fixture
def small():
    return pl.DataFrame({"set": [1, 1, 2, 2], "case": [1, 0, 1, 0], "s": [2.0, 1.0, 1.0, 2.0],
                         "txt": ["a", "b", "c", "d"]})


def test_matched_set_is_required(small):
    with pytest.raises(InputError, match="`matched_set` is required"):
        matched_auroc(small, "case", "s")
    with pytest.raises(InputTypeError, match="`matched_set` must be one column name"):
        matched_auroc(small, "case", "s", matched_set=["set", "case"])
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        matched_auroc(small, "case", "s", matched_set="nope")


def test_missing_set_ids_are_refused_naming_matched_set(small):
    bad = small.with_columns(pl.when(pl.col("s") > 1.5).then(None).otherwise(pl.col("set")).alias("set"))
    with pytest.raises(InputError, match=r"`matched_set` column 'set' has 2 missing"):
        matched_auroc(bad, "case", "s", matched_set="set")


def test_bad_arguments(small):
    with pytest.raises(InputTypeError, match="`score` column 'txt'"):
        matched_auroc(small, "case", "txt", matched_set="set")
    with pytest.raises(InputError, match="`direction`"):
        matched_auroc(small, "case", "s", matched_set="set", direction="auto")
    with pytest.raises(InputError, match="`level`"):
        matched_auroc(small, "case", "s", matched_set="set", level=1.5)
    result = matched_auroc(small, "case", "s", matched_set="set")
    with pytest.raises(InputError, match="`method`"):
        result.conf_int("delong")
    with pytest.raises(InputError, match="`level`"):
        result.conf_int(level=0)
    with pytest.raises(InputError, match="already"):
        matched_auroc(small, "case", "s", matched_set="case")


def test_outcome_levels_and_set_ids_within_groups():
    # the same set id in two groups is two sets; positive= names the case level
    df = pl.DataFrame({"site": ["a"] * 4 + ["b"] * 4, "set": [1, 1, 2, 2, 1, 1, 2, 2],
                       "status": ["case", "control"] * 4, "s": [2.0, 1.0, 1.0, 2.0, 3.0, 1.0, 2.0, 2.0]})
    out = matched_auroc(df, "status", "s", matched_set="set", by="site", positive="case").to_frame()
    assert out["site"].to_list() == ["a", "b"]
    assert out["estimate"].to_list() == [0.5, 0.75]
    assert out["n_sets"].to_list() == [2, 2]
    pooled = matched_auroc(df, "status", "s", matched_set="set", positive="case")
    # without by=, set 1 of site a and set 1 of site b are one set of 2:2 (4 pairs)
    assert pooled.estimate == pytest.approx(brute_estimate(df["set"].to_list(),
                                                           (df["status"] == "case").to_list(), df["s"].to_list()))
    assert pooled.to_frame()["n_sets"][0] == 2 and pooled.to_frame()["n_pairs"][0] == 8


def test_intervals_by_hand_at_another_level():
    rng = np.random.default_rng(21)
    sets, case, score = simulated(rng, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        result = matched_auroc(frame(sets, case, score), "case", "s", matched_set="set", level=0.9)
    wins = brute_wins(list(sets), list(case), list(score))
    u = np.array([w for w, p in wins.values() if p > 0])
    p = np.array([p for w, p in wins.values() if p > 0], dtype=float)
    theta = u.sum() / p.sum()
    k = u.size
    se = math.sqrt(k / (k - 1) * np.sum((u - theta * p) ** 2) / p.sum() ** 2)
    z = 1.6448536269514722  # the 95th percentile of the standard normal
    eta, tau = math.log(theta / (1 - theta)), se / (theta * (1 - theta))
    out = result.conf_int(["logit", "wald"]).to_frame()
    assert out["level"].to_list() == [0.9, 0.9]
    assert (out["lower"][0], out["upper"][0]) == pytest.approx(
        (1 / (1 + math.exp(-(eta - z * tau))), 1 / (1 + math.exp(-(eta + z * tau)))), rel=1e-12)
    assert (out["lower"][1], out["upper"][1]) == pytest.approx((theta - z * se, theta + z * se), rel=1e-12)


def test_lazy_and_arrow_inputs_give_the_same_numbers(infert):
    df, reference = infert
    for data in (df.lazy(), df.to_arrow()):
        assert matched_auroc(data, "case", "lp", matched_set="stratum").estimate == pytest.approx(
            reference["lp"]["estimate"], abs=1e-14)


def test_fewer_than_thirty_sets_are_flagged():
    from aucpr_stats import SmallSampleWarning
    from aucpr_stats.matched import matched_auroc as verb

    gen = np.random.default_rng(30)
    for n_sets, flagged in ((12, True), (40, False)):
        sets = np.repeat(np.arange(n_sets), 3)
        case = np.tile([1, 0, 0], n_sets)
        frame = pl.DataFrame({"set": sets, "case": case, "s": gen.normal(size=3 * n_sets) + case})
        result = verb(frame, "case", "s", matched_set="set")
        if flagged:
            with pytest.warns(SmallSampleWarning, match="fewer than 30 matched sets"):
                note = result.conf_int().to_frame()["note"][0]
            assert "coverage is not validated" in note
        else:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("error", SmallSampleWarning)
                assert result.conf_int().to_frame()["note"][0] is None
