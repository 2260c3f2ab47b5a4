"""p-values and edges of comparisons (issue 14, items 3 and 7): never 0, "<x" at the floor, differences in [-1, 1]."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucpr_stats import aucpr, auroc
from aucpr_stats.compare import compare
from aucpr_stats.compare.statistics import bootstrap_p_value, difference_columns, p_value_floor
from aucpr_stats.exceptions import SmallSampleWarning
from aucpr_stats.report import comparison_table, format_p, publication_table


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([-0.3, -0.1, 0.0, 0.05, 0.2, np.nan]), min_size=1, max_size=30))
def test_bootstrap_p_value_is_one_plus_extreme_over_b_plus_one(values):
    reps = np.array(values, dtype=float)
    finite = reps[~np.isnan(reps)]
    p = float(bootstrap_p_value(reps))
    if finite.size == 0:
        assert np.isnan(p)
        return
    # brute force from the definition: extreme = replicates in the smaller tail (0 counts in both), doubled
    tail = min(sum(1 for x in finite if x <= 0), sum(1 for x in finite if x >= 0))
    assert p == pytest.approx(min(1.0, (1 + 2 * tail) / (finite.size + 1)), abs=1e-15)
    assert p >= 1 / (finite.size + 1) > 0  # never 0


def test_p_value_below_alpha_means_the_percentile_interval_excludes_zero():
    rng = np.random.default_rng(3)
    for shift in np.linspace(0.0, 0.4, 9):
        reps = rng.normal(shift, 0.1, size=999)
        p = float(bootstrap_p_value(reps))
        lo, hi = np.quantile(reps, [0.025, 0.975])
        if p <= 0.05:
            assert lo > 0 or hi < 0


def test_format_p_at_the_floor():
    assert format_p(1 / 1001, 3, floor=p_value_floor(1000)) == "<0.001"
    assert format_p(1 / 201, 3, floor=1 / 201) == "<0.005"  # the floor 0.004975 rounded up
    assert format_p(3 / 201, 3, floor=1 / 201) == "0.015"
    assert format_p(1 / 501, 4, floor=1 / 501) == "<0.0020"
    assert format_p(float("nan"), 3, floor=0.01) == "NA"


def _separated_pair(n=60):
    rng = np.random.default_rng(5)
    y = np.r_[np.ones(n // 2), np.zeros(n // 2)].astype(bool)
    return pl.DataFrame({"y": y, "good": y + rng.normal(0, 0.05, n), "bad": rng.normal(size=n)})


def test_bootstrap_p_value_at_the_floor_prints_as_less_than():
    df = _separated_pair()
    result = compare(df, "y", ["good", "bad"], metric="aucpr", n_boot=199, seed=1)
    assert result.p_value == pytest.approx(1 / 200, abs=1e-15)  # every replicate favours "good"
    table = comparison_table(result)
    assert table.cells["p"].to_list() == ["<0.005"]
    assert "<0.0050" in result.summary()
    assert " 0.0000" not in result.summary()


def test_difference_interval_is_truncated_to_minus_one_one():
    cols = difference_columns(np.array([0.9, 0.1]), "delong", 0.95, variance=np.array([0.01, 0.0001]),
                              correlation=np.array([np.nan, np.nan]))
    z = 1.959963984540054
    assert cols["upper"][0] == 1.0 and cols["lower"][0] == pytest.approx(0.9 - z * 0.1, abs=1e-14)
    assert cols["truncated"].tolist() == [True, False]
    assert cols["upper"][1] == pytest.approx(0.1 + z * 0.01, abs=1e-14)


def test_truncated_difference_is_noted_and_footnoted():
    # 4 positives: a large DeLong difference whose interval passes 1
    df = pl.DataFrame({"y": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0], "a": [9.0, 8, 7, 6, 1, 2, 3, 4, 5, 0],
                       "b": [1.0, 2, 3, 6.5, 9, 8, 7, 6, 5, 4]})
    with pytest.warns(SmallSampleWarning, match=r"delong \(1 row\)"):
        result = compare(df, "y", ["a", "b"], metric="auroc")
    row = result.to_polars().row(0, named=True)
    assert row["upper"] == 1.0 and row["difference"] + 1.959963984540054 * row["se"] > 1.0
    assert row["note"].startswith("truncated to [-1, 1]; small sample:")
    table = comparison_table(result)
    assert table.cells[0, "Difference (95% CI)"].endswith("\u2020\u00a7")
    assert "\u2020 interval truncated to [-1, 1]" in table.note


def test_publication_table_marks_truncated_and_fallback_cells():
    df = pl.DataFrame({"y": [1, 1, 1, 1, 1] * 2 + [0] * 40,
                       "s": np.r_[9.0, 8, 7, 6, 4.6, 19, 18, 17, 16, 15, np.linspace(0, 5, 20), np.linspace(0, 5, 20)],
                       "g": ["a"] * 5 + ["b"] * 5 + ["a"] * 20 + ["b"] * 20})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        table = publication_table(auroc(df, "y", "s", by="g"), method="delong")
        ci = auroc(df, "y", "s", by="g").conf_int(method="delong")
    cells = table.cells["AUROC (95% CI)"].to_list()
    assert cells[0].endswith("1.00)\u2020\u00a7")  # group a: DeLong passes 1, truncated
    assert cells[1].endswith("\u2021")  # group b: A' = 1, Newcombe's interval (valid from 2 positives: no \u00a7)
    assert cells[1].startswith(f"1.00 ({ci['lower'][1]:.2f}")
    assert "\u2020 interval truncated" in table.note and "\u2021 estimate at the boundary" in table.note
    plain = publication_table(aucpr(df.filter(pl.col("g") == "a"), "y", "s"))  # point estimates: no marks
    assert "\u2020" not in plain.to_text()


def test_paired_aucpr_bootstrap_is_withheld_below_its_minimum_and_kept_above():
    import warnings

    import polars as pl

    from aucpr_stats import compare
    from aucpr_stats.exceptions import SmallSampleWarning
    from aucpr_stats.compare import COMPARISON_METHODS

    assert COMPARISON_METHODS["aucpr"]["bootstrap"].withheld_below_minimum
    minimum = int(COMPARISON_METHODS["aucpr"]["bootstrap"].min_positives)
    rng = np.random.default_rng(3)
    rows = []
    for group, n_pos in (("small", minimum - 1), ("large", minimum + 20)):
        n_neg = 9 * n_pos
        y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
        x = rng.normal(size=y.size) + y
        rows.append(pl.DataFrame({"g": group, "y": y, "a": x + rng.normal(size=y.size),
                                  "b": x + rng.normal(size=y.size)}))
    df = pl.concat(rows)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = compare(df, "y", ["a", "b"], by="g", metric="aucpr", n_boot=200, seed=1).to_frame()
    assert any(issubclass(w.category, SmallSampleWarning) for w in caught)
    small = out.filter(pl.col("g") == "small").row(0, named=True)
    large = out.filter(pl.col("g") == "large").row(0, named=True)
    assert np.isfinite(small["difference"])  # the difference stays
    for column in ("p_value", "lower", "upper", "se", "z"):
        assert small[column] is None or np.isnan(small[column]), column
        assert np.isfinite(large[column]), column
    assert small["note"].startswith(f"no test: fewer than {minimum} positives")
    assert large["note"] is None or "no test" not in large["note"]
    # the paired AUROC tests are flagged, not withheld
    roc = compare(df, "y", ["a", "b"], by="g", metric="auroc").to_frame().filter(pl.col("g") == "small")
    assert np.isfinite(roc["p_value"][0])


def test_a_group_left_without_positives_has_no_test_statistics():
    """compare(missing="drop") on a group whose positives all lose a score: NaN difference, NaN p-value."""
    import warnings

    import polars as pl

    from aucpr_stats import compare

    rng = np.random.default_rng(0)
    n = 60
    y = rng.random(n) < 0.4
    g = np.where(np.arange(n) < 30, "x", "z")
    a = (rng.normal(size=n) + y).tolist()
    for i in np.flatnonzero((g == "z") & y):
        a[i] = None
    df = pl.DataFrame({"y": y, "a": pl.Series(a, dtype=pl.Float64), "b": rng.normal(size=n), "g": g})
    for metric in ("aucpr", "auroc"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = compare(df, "y", ["a", "b"], by="g", metric=metric, method="bootstrap", missing="drop",
                          n_boot=50, seed=1).to_frame()
        row = out.filter(pl.col("g") == "z").row(0, named=True)
        assert row["note"] == "no positives"
        for column in ("difference", "p_value", "se", "z", "lower", "upper"):
            assert row[column] is None or np.isnan(row[column]), (metric, column)
