"""`direction=`: "lower" is "higher" on the negated score, exactly; "auto" follows pROC's rule.

Oracles: the same data with the score negated by hand (exact for floats and small integers); pROC's
rule for ``direction="auto"`` (``"<"``, larger = positive, when median(controls) <= median(cases)),
written with numpy medians.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from aucpr_stats import DirectionWarning, InputError, aucpr, auroc


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _frame(n: int = 300, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pl.DataFrame({"y": y, "s": np.round(rng.normal(size=n) - y, 1), "g": rng.choice(["a", "b", "c"], n)})


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b"])), min_size=4,
                     max_size=40))
def test_lower_equals_higher_on_the_negated_score_for_every_estimator(rows):
    df = pl.DataFrame(rows, schema={"y": pl.Boolean, "s": pl.Float64, "g": pl.String}, orient="row")
    assume(df["y"].n_unique() == 2)
    negated = df.with_columns(-pl.col("s"))
    for function in (aucpr, auroc):
        for by in (None, "g"):
            lower = _quiet(function, df, "y", "s", by=by, estimator="all", direction="lower")
            higher = _quiet(function, negated, "y", "s", by=by, estimator="all")
            np.testing.assert_array_equal(lower.estimates, higher.estimates)  # the same bits
            assert lower.options["direction"] == "lower"


def test_lower_auroc_is_one_minus_higher_and_intervals_agree():
    df = _frame()
    higher = auroc(df, "y", "s", by="g")
    lower = auroc(df, "y", "s", by="g", direction="lower")
    np.testing.assert_allclose(lower.estimates + higher.estimates, 1.0, rtol=0, atol=1e-15)
    by_hand = auroc(df.with_columns(-pl.col("s")), "y", "s", by="g")
    for method in ("delong", "logit", "hanley_mcneil"):
        a, b = _quiet(lower.conf_int, method=method), _quiet(by_hand.conf_int, method=method)
        np.testing.assert_array_equal(a["lower"].to_numpy(), b["lower"].to_numpy())
    boot = lower.conf_int(method="bootstrap", n_boot=60, seed=4)
    np.testing.assert_array_equal(boot["upper"].to_numpy(),
                                  by_hand.conf_int(method="bootstrap", n_boot=60, seed=4)["upper"].to_numpy())


def test_lower_is_exact_beyond_float_precision_and_at_signed_zero():
    big = 2**53
    df = pl.DataFrame({"y": [1, 0, 1, 0], "s": [big + 1, big, big + 1, big]})
    assert auroc(df, "y", "s").estimate == 1.0
    assert auroc(df, "y", "s", direction="lower").estimate == 0.0  # distinct int64 scores stay distinct
    zeros = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [0.0, -0.0, 1.0, 2.0, 2.0, -1.0], "g": ["a"] * 6})
    for by in (None, "g"):
        result = auroc(zeros, "y", "s", by=by, direction="lower")
        assert result.ties.score.size == 4  # 0.0 and -0.0 are one tie after negation
        assert result.estimates[0, 0] == pytest.approx(1 - auroc(zeros, "y", "s", by=by).estimates[0, 0])


def _proc_rule(scores: np.ndarray, positive: np.ndarray) -> str:
    """pROC's direction="auto": "<" (larger = positive) when median(controls) <= median(cases)."""
    return "higher" if np.median(scores[~positive]) <= np.median(scores[positive]) else "lower"


@settings(max_examples=40, deadline=None)
@given(pos=st.lists(st.integers(0, 6), min_size=1, max_size=12), neg=st.lists(st.integers(0, 6), min_size=1,
                                                                               max_size=12))
def test_auto_picks_the_direction_by_pROC_rule(pos, neg):
    scores = np.array(pos + neg, dtype=float)
    positive = np.array([True] * len(pos) + [False] * len(neg))
    df = pd.DataFrame({"y": positive.astype(int), "s": scores})
    expected = _proc_rule(scores, positive)
    with pytest.warns(DirectionWarning, match=r"direction='auto' chose.*biases the area upward"):
        result = auroc(df, "y", "s", direction="auto")
    assert result.options["direction"] == expected
    fixed = auroc(df, "y", "s", direction=expected)
    assert result.estimate == fixed.estimate


def test_auto_decides_once_per_score_pooled_over_groups():
    df = _frame(seed=2).with_columns(t=-pl.col("s"))
    with pytest.warns(DirectionWarning) as caught:
        result = aucpr(df, "y", ["s", "t"], by="g", direction="auto")
    assert len([w for w in caught if issubclass(w.category, DirectionWarning)]) == 1
    assert result.options["direction"] == {"s": "lower", "t": "higher"}  # s is lower for positives here
    pooled = {name: _proc_rule(df[name].to_numpy(), df["y"].to_numpy()) for name in ("s", "t")}
    assert result.options["direction"] == pooled
    fixed = aucpr(df, "y", "t", by="g")
    np.testing.assert_array_equal(result.to_frame().filter(pl.col("score") == "t")["estimate"].to_numpy(),
                                  fixed.to_frame()["estimate"].to_numpy())


def test_direction_is_checked():
    with pytest.raises(InputError, match=r"`direction` must be one of \['higher', 'lower', 'auto'\]; got '<'"):
        auroc(_frame(), "y", "s", direction="<")
    assert auroc(_frame(), "y", "s").options["direction"] == "higher"


def test_compare_reads_each_score_in_the_given_direction():
    from aucpr_stats import compare

    df = _frame(seed=5).with_columns(t=pl.col("s") * 0.5 + pl.int_range(pl.len()) % 3)
    lower = _quiet(compare, df, "y", ["s", "t"], by="g", direction="lower", metric="auroc").to_frame()
    by_hand = _quiet(compare, df.with_columns(-pl.col("s"), -pl.col("t")), "y", ["s", "t"], by="g",
                     metric="auroc").to_frame()
    for column in ("estimate_a", "estimate_b", "difference", "p_value"):
        np.testing.assert_array_equal(lower[column].to_numpy(), by_hand[column].to_numpy())


def test_summary_heading_says_which_scores_were_read_reversed():
    import warnings

    import numpy as np
    import polars as pl

    from aucpr_stats import auroc

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    df = pl.DataFrame({"y": y, "up": y + rng.normal(size=200), "down": -y + rng.normal(size=200)})
    assert auroc(df, "y", "up").summary().splitlines()[0] == "AUROC of up for outcome y"
    assert auroc(df, "y", "down", direction="lower").summary().splitlines()[0] == (
        "AUROC of down for outcome y; lower scores predict the positive outcome")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = auroc(df, "y", ["up", "down"], direction="auto")
    assert both.summary().splitlines()[0].endswith("; lower scores predict the positive outcome for down")
