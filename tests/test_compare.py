"""Paired and unpaired comparisons of AUCs: DeLong's test against a brute force, bootstraps."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import average_precision_score, roc_auc_score

from aucpr_stats.api import auroc
from aucpr_stats.compare import ComparisonResult, bootstrap_p_value, compare
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, MissingValueError

from .conftest import as_polars, make_frame, result_frame_type


def psi(x, y):
    return 1.0 if x > y else (0.5 if x == y else 0.0)


def brute_force_paired_delong(y, s1, s2):
    """DeLong, DeLong & Clarke-Pearson (1988) for two tests, written with explicit loops."""
    pos = [i for i in range(len(y)) if y[i]]
    neg = [j for j in range(len(y)) if not y[j]]
    m, n = len(pos), len(neg)
    tests = (s1, s2)
    v10 = [[sum(psi(s[i], s[j]) for j in neg) / n for i in pos] for s in tests]
    v01 = [[sum(psi(s[i], s[j]) for i in pos) / m for j in neg] for s in tests]
    theta = [sum(v) / m for v in v10]
    s10 = [[sum((v10[r][i] - theta[r]) * (v10[q][i] - theta[q]) for i in range(m)) / (m - 1) for q in range(2)]
           for r in range(2)]
    s01 = [[sum((v01[r][j] - theta[r]) * (v01[q][j] - theta[q]) for j in range(n)) / (n - 1) for q in range(2)]
           for r in range(2)]
    cov = [[s10[r][q] / m + s01[r][q] / n for q in range(2)] for r in range(2)]
    var = cov[0][0] + cov[1][1] - 2 * cov[0][1]
    diff = theta[0] - theta[1]
    z = diff / math.sqrt(var) if var > 0 else math.nan
    return {
        "estimate_a": theta[0],
        "estimate_b": theta[1],
        "difference": diff,
        "se": math.sqrt(var),
        "z": z,
        # documented convention: a zero SE gives p = 1 for a zero difference, else NaN
        "p_value": 2 * stats.norm.sf(abs(z)) if var > 0 else (1.0 if diff == 0 else math.nan),
        "correlation": cov[0][1] / math.sqrt(cov[0][0] * cov[1][1]) if cov[0][0] * cov[1][1] > 0 else math.nan,
    }


def tied_data(rng, n, groups=1):
    y = rng.random(n) < 0.4
    y[:2], y[2:4] = True, False
    s1 = rng.integers(0, 5, n) + 1.5 * y
    s2 = np.round(0.5 * s1 + rng.integers(0, 3, n), 0)  # correlated with s1, heavily tied
    g = rng.integers(0, groups, n)
    return y, s1.astype(float), s2.astype(float), g


def test_paired_delong_matches_brute_force_with_ties():
    rng = np.random.default_rng(8)
    for _ in range(25):
        n = int(rng.integers(8, 40))
        y, s1, s2, _ = tied_data(rng, n)
        if np.all(s1 == s2):
            continue
        row = compare(pl.DataFrame({"y": y, "s1": s1, "s2": s2}), "y", ["s1", "s2"], metric="auroc").to_frame().row(
            0, named=True)
        expected = brute_force_paired_delong(y, s1, s2)
        for column, value in expected.items():
            assert row[column] == pytest.approx(value, rel=1e-10, abs=1e-13), column
        z = stats.norm.ppf(0.975)
        assert (row["lower"], row["upper"]) == pytest.approx(
            (expected["difference"] - z * expected["se"], expected["difference"] + z * expected["se"]), rel=1e-10)


def test_paired_delong_per_group_and_frame_type(frame_kind):
    rng = np.random.default_rng(3)
    y, s1, s2, g = tied_data(rng, 300, groups=3)
    s3 = s1 + rng.normal(size=300)
    data = make_frame({"y": y.astype(int), "s1": s1, "s2": s2, "s3": s3, "g": g}, frame_kind)
    result = compare(data, "y", ["s1", "s2", "s3"], by="g", reference="s3", metric="auroc")
    assert isinstance(result, ComparisonResult)
    frame = result.to_frame()
    assert isinstance(frame, result_frame_type(frame_kind))
    assert list(frame.columns) == [
        "g", "score_a", "score_b", "estimator", "estimate_a", "estimate_b", "difference", "se", "z", "p_value",
        "method", "level", "lower", "upper", "correlation", "n_pos", "n_neg", "n_missing", "note",
    ]
    frame = as_polars(frame)
    assert frame.select("g", "score_a", "score_b").rows() == [
        (k, a, "s3") for k in range(3) for a in ("s1", "s2")
    ]
    columns = {"s1": s1, "s2": s2, "s3": s3}
    for row in frame.iter_rows(named=True):
        mask = g == row["g"]
        expected = brute_force_paired_delong(y[mask], columns[row["score_a"]][mask], s3[mask])
        assert row["p_value"] == pytest.approx(expected["p_value"], rel=1e-9)
        assert row["correlation"] == pytest.approx(expected["correlation"], rel=1e-9)
        assert row["estimate_a"] == pytest.approx(roc_auc_score(y[mask], columns[row["score_a"]][mask]), abs=1e-13)


def test_identical_scores_give_zero_difference():
    rng = np.random.default_rng(1)
    y, s1, _, _ = tied_data(rng, 200)
    data = pl.DataFrame({"y": y, "a": s1, "b": 2 * s1 + 1})  # same ranking
    delong = compare(data, "y", ["a", "b"])
    assert delong.difference == 0.0 and delong.p_value == 1.0
    boot = compare(data, "y", ["a", "b"], method="bootstrap", n_boot=200, seed=1).to_frame().row(0, named=True)
    assert boot["difference"] == 0.0 and boot["se"] == 0.0 and boot["p_value"] == 1.0
    assert boot["lower"] == boot["upper"] == 0.0


@pytest.mark.parametrize("metric", ["auroc", "aucpr"])
def test_paired_bootstrap_is_reproducible_and_paired(metric):
    rng = np.random.default_rng(4)
    n = 1500
    y = rng.random(n) < 0.3
    common = rng.normal(size=n)  # a shared component makes the two scores correlated
    a = common + 1.0 * y + 0.5 * rng.normal(size=n)
    b = common + 0.7 * y + 0.5 * rng.normal(size=n)
    data = pl.DataFrame({"y": y, "a": a, "b": np.round(b, 1)})
    estimator = "a_prime" if metric == "auroc" else "average_precision"
    options = dict(metric=metric, method="bootstrap", estimator=estimator, n_boot=1000, ties="published")
    first = compare(data, "y", ["a", "b"], seed=11, **options).to_frame()
    again = compare(data, "y", ["a", "b"], seed=np.random.default_rng(11), **options).to_frame()
    other = compare(data, "y", ["a", "b"], seed=12, **options).to_frame()
    assert first.equals(again) and not first.equals(other)
    row = first.row(0, named=True)
    score = roc_auc_score if metric == "auroc" else average_precision_score
    assert row["estimate_a"] == pytest.approx(score(y, a), abs=1e-12)
    assert row["estimate_b"] == pytest.approx(score(y, np.round(b, 1)), abs=1e-12)
    assert row["lower"] < row["difference"] < row["upper"]
    # pairing: the replicates are strongly correlated, so the difference is far more
    # precise than the two separate bootstrap SEs combined as if independent
    assert row["correlation"] > 0.5
    if metric == "auroc":
        delong = compare(data, "y", ["a", "b"], metric="auroc").to_frame().row(0, named=True)
        assert row["se"] == pytest.approx(delong["se"], rel=0.15)
        assert row["correlation"] == pytest.approx(delong["correlation"], abs=0.08)
        separate = as_polars(auroc(data, "y", ["a", "b"]).conf_int(method="delong"))["se"].to_numpy()
        assert delong["se"] < 0.8 * np.sqrt((separate**2).sum())


def test_bootstrap_p_value_formula():
    reps = np.array([[-0.2, 0.1, 0.3, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4, 0.5]])
    # issue 14: (1 + extreme) / (B + 1) with extreme = 2 * min(#<= 0, #>= 0)
    # first row: 2 replicates <= 0, 4 >= 0 -> (1 + 4) / 6; second: 0 <= 0 -> the floor 1 / 6
    np.testing.assert_allclose(bootstrap_p_value(reps), [5 / 6, 1 / 6])
    assert np.isnan(bootstrap_p_value(np.full((1, 3), np.nan))[0])


def test_unpaired_delong_adds_the_variances():
    rng = np.random.default_rng(6)
    n = 900
    y = rng.random(n) < 0.35
    s = rng.normal(size=n) + y
    site = rng.choice(["north", "south", "west"], n)
    data = pl.DataFrame({"y": y, "s": s, "site": site})
    result = compare(data, "y", "s", between="site", reference="north", metric="auroc")
    frame = as_polars(result.to_frame())
    assert frame.select("site_a", "site_b").rows() == [("south", "north"), ("west", "north")]
    assert result.paired is False
    per_site = as_polars(auroc(data, "y", "s", by="site").conf_int(method="delong"))
    se = dict(zip(per_site["site"], per_site["se"]))
    est = dict(zip(per_site["site"], per_site["estimate"]))
    for row in frame.iter_rows(named=True):
        assert row["difference"] == pytest.approx(est[row["site_a"]] - est[row["site_b"]], abs=1e-15)
        assert row["se"] == pytest.approx(math.hypot(se[row["site_a"]], se[row["site_b"]]), rel=1e-12)
        z = row["difference"] / row["se"]
        assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
        assert math.isnan(row["correlation"])
        mask = site == row["site_a"]
        assert (row["n_pos_a"], row["n_neg_a"]) == (int(y[mask].sum()), int((~y[mask]).sum()))


def test_unpaired_bootstrap_all_pairs_by_group():
    rng = np.random.default_rng(2)
    n = 800
    y = rng.random(n) < 0.4
    data = pl.DataFrame({"y": y, "s": rng.normal(size=n) + y, "src": rng.choice([1, 2, 3], n),
                         "sex": rng.choice(["F", "M"], n)})
    result = compare(data, "y", ["s"], by="sex", between="src", metric="aucpr", estimator="average_precision",
                     n_boot=300, seed=3)
    frame = result.to_frame()
    assert frame.select("sex", "src_a", "src_b").rows() == [
        (sex, a, b) for sex in ("F", "M") for a, b in ((1, 2), (1, 3), (2, 3))
    ]
    assert frame["method"].unique().to_list() == ["bootstrap"]
    again = compare(data, "y", ["s"], by="sex", between="src", metric="aucpr", estimator="average_precision",
                    n_boot=300, seed=3)
    assert again.to_frame().equals(frame)


def test_missing_drop_uses_complete_rows():
    rng = np.random.default_rng(5)
    y, s1, s2, _ = tied_data(rng, 120)
    s2 = s2.copy()
    s2[[5, 9, 30]] = np.nan
    data = pl.DataFrame({"y": y, "a": s1, "b": s2})
    with pytest.raises(MissingValueError):
        compare(data, "y", ["a", "b"], metric="auroc")
    row = compare(data, "y", ["a", "b"], missing="drop", metric="auroc").to_frame().row(0, named=True)
    keep = ~np.isnan(s2)
    assert row["n_missing"] == 3
    expected = brute_force_paired_delong(y[keep], s1[keep], s2[keep])
    assert row["se"] == pytest.approx(expected["se"], rel=1e-10)


def test_degenerate_group_is_noted():
    data = pl.DataFrame({"y": [1, 0, 1, 0, 1, 1, 0, 1], "a": [0.9, 0.1, 0.8, 0.3, 0.5, 0.4, 0.2, 0.7],
                         "b": [0.2, 0.1, 0.8, 0.9, 0.5, 0.4, 0.6, 0.3], "g": [1, 1, 1, 1, 2, 2, 1, 1]})
    with pytest.warns(DegenerateGroupWarning, match="no negatives"):
        frame = compare(data, "y", ["a", "b"], by="g", metric="auroc").to_frame()
    assert frame.filter(pl.col("g") == 2)["note"].to_list() == ["no negatives"]
    # issue 14: 4 positives, the difference's Wald interval passes -1 and is truncated, and the group is flagged
    assert frame.filter(pl.col("g") == 1)["note"].to_list() == [
        "truncated to [-1, 1]; small sample: fewer than 20 positives, the delong test may not hold its size "
        "(docs/validation.md)"]


def test_summary_and_repr():
    rng = np.random.default_rng(7)
    y, s1, s2, _ = tied_data(rng, 200)
    result = compare(pl.DataFrame({"y": y, "a": s1, "b": s2}), "y", ["a", "b"], metric="auroc")
    text = result.summary(digits=3)
    assert text.splitlines()[0].startswith("Paired comparison of AUROC (DeLong test) of scores a, b")
    assert text.splitlines()[1].split()[:4] == ["score_a", "score_b", "estimate_a", "estimate_b"]
    assert repr(result).startswith("ComparisonResult(auroc, delong, difference=")
    many = compare(pl.DataFrame({"y": y, "a": s1, "b": s2, "c": s1 - s2}), "y", ["a", "b", "c"], metric="auroc")
    with pytest.raises(AttributeError, match="3 rows"):
        many.p_value


def test_formula_interface():
    rng = np.random.default_rng(9)
    y, s1, s2, g = tied_data(rng, 150, groups=2)
    data = pl.DataFrame({"y": y, "a": s1, "b": s2, "g": g})
    assert compare("y ~ a + b | g", data=data, metric="auroc").to_frame().equals(
        compare(data, "y", ["a", "b"], by="g", metric="auroc").to_frame())


def test_argument_errors():
    data = pl.DataFrame({"y": [1, 0, 1, 0], "a": [0.9, 0.1, 0.8, 0.3], "b": [0.2, 0.1, 0.8, 0.9], "site": [1, 1, 2, 2]})
    with pytest.raises(InputError, match="at least two columns for a paired comparison"):
        compare(data, "y", ["a"])
    with pytest.raises(InputError, match=r"`method` must be one of \['bootstrap'\]; got 'delong'"):
        compare(data, "y", ["a", "b"], metric="aucpr", method="delong")
    with pytest.raises(InputError, match=r"`metric` must be one of \['auroc', 'aucpr'\]; got 'auc'"):
        compare(data, "y", ["a", "b"], metric="auc")
    with pytest.raises(InputError, match=r"`reference` must be one of `score` \['a', 'b'\]; got 'c'"):
        compare(data, "y", ["a", "b"], reference="c")
    with pytest.raises(InputError, match="`reference` must be a level of `between`"):
        compare(data, "y", ["a"], between="site", reference=3)
    with pytest.raises(InputError, match="`between` column 'a' is already the `score` column"):
        compare(data, "y", ["a"], between="a")
    with pytest.raises(InputError, match="`n_boot` must be at least 2"):
        compare(data, "y", ["a", "b"], n_boot=1)


def test_delong_p_values_are_uniform_under_the_null():
    """Two exchangeable scores (equal true AUC, correlated): p-values ~ U(0, 1), one group per data set."""
    rng = np.random.default_rng(2024)
    n_sets, n = 400, 120
    sim = np.repeat(np.arange(n_sets), n)
    y = rng.random(n_sets * n) < 0.4
    shared = rng.normal(size=n_sets * n) + 0.8 * y
    data = pl.DataFrame({"sim": sim, "y": y, "a": shared + rng.normal(size=sim.size),
                         "b": np.round(shared + rng.normal(size=sim.size), 1)})
    p = compare(data, "y", ["a", "b"], by="sim").to_frame()["p_value"].to_numpy()
    assert stats.kstest(p, "uniform").pvalue > 0.001
    assert 0.02 < np.mean(p < 0.05) < 0.09


rows_strategy = st.lists(st.tuples(st.booleans(), st.integers(-4, 4), st.integers(-4, 4)), min_size=6, max_size=40).filter(
    lambda rows: sum(r[0] for r in rows) >= 2 and sum(not r[0] for r in rows) >= 2
)


@settings(max_examples=25, deadline=None)
@given(rows=rows_strategy)
def test_delong_is_antisymmetric_and_rank_invariant(rows):
    y = np.array([r[0] for r in rows])
    a = np.array([r[1] for r in rows], dtype=float)
    b = np.array([r[2] for r in rows], dtype=float)
    data = pl.DataFrame({"y": y, "a": a, "b": b, "a3": a**3 + 5})
    ab = compare(data, "y", ["a", "b"], metric="auroc").to_frame().row(0, named=True)
    ba = compare(data, "y", ["b", "a"], metric="auroc").to_frame().row(0, named=True)
    assert ab["difference"] == -ba["difference"]
    assert ab["se"] == pytest.approx(ba["se"], rel=1e-12, abs=1e-15)
    assert ab["p_value"] == pytest.approx(ba["p_value"], rel=1e-9, abs=1e-12, nan_ok=True)
    transformed = compare(data, "y", ["a3", "b"], metric="auroc").to_frame().row(0, named=True)
    assert transformed["difference"] == pytest.approx(ab["difference"], abs=1e-15)
    assert transformed["se"] == pytest.approx(ab["se"], rel=1e-12, abs=1e-15)
    expected = brute_force_paired_delong(y, a, b)
    assert ab["se"] == pytest.approx(expected["se"], rel=1e-9, abs=1e-12)
    assert ab["p_value"] == pytest.approx(expected["p_value"], rel=1e-9, abs=1e-12, nan_ok=True)


def test_unpaired_degenerate_level_is_noted():
    data = pl.DataFrame({"y": [1, 0, 1, 0, 1, 1, 0, 1, 0, 1], "s": [0.9, 0.1, 0.8, 0.3, 0.5, 0.4, 0.2, 0.7, 0.6, 0.35],
                         "site": ["a", "a", "a", "a", "b", "b", "c", "c", "c", "c"]})
    with pytest.warns(DegenerateGroupWarning, match="no negatives"):
        frame = compare(data, "y", ["s"], between="site", metric="auroc").to_frame()
    notes = dict(zip(zip(frame["site_a"], frame["site_b"]), frame["note"]))
    assert notes[("a", "b")] == "b: no negatives"
    assert notes[("b", "c")] == "a: no negatives"
    assert notes[("a", "c")].startswith("small sample: fewer than 20 positives")  # issue 14: 2 and 3 positives
    assert frame.filter(pl.col("site_b") == "b")["difference"].is_nan().all()


def test_paired_bootstrap_matches_a_row_resampling_bootstrap():
    """The joint-cell counts bootstrap has the distribution of resampling rows within each class."""
    rng = np.random.default_rng(10)
    n = 60
    y = rng.random(n) < 0.4
    a = rng.integers(0, 6, n) + 2.0 * y
    b = np.round(0.5 * a + rng.integers(0, 4, n), 0)
    data = pl.DataFrame({"y": y, "a": a.astype(float), "b": b})
    n_boot = 4000
    row = compare(data, "y", ["a", "b"], method="bootstrap", n_boot=n_boot, seed=1, metric="auroc").to_frame().row(
        0, named=True)

    # brute force: draw row indices within each class, A' of both scores on the same rows
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    draw = np.random.default_rng(2)
    ip = pos[draw.integers(0, pos.size, (n_boot, pos.size))]
    ineg = neg[draw.integers(0, neg.size, (n_boot, neg.size))]

    def a_prime(s):
        x, z = s[ip][:, :, None], s[ineg][:, None, :]
        return ((x > z) + 0.5 * (x == z)).mean(axis=(1, 2))

    diff = a_prime(a) - a_prime(b)
    assert row["se"] == pytest.approx(diff.std(ddof=1), rel=0.07)
    lower, upper = np.quantile(diff, [0.025, 0.975])
    assert row["lower"] == pytest.approx(lower, abs=0.25 * row["se"])
    assert row["upper"] == pytest.approx(upper, abs=0.25 * row["se"])


def test_an_unpaired_bootstrap_test_has_its_own_minimum_of_positives():
    """Unpaired bootstrap tests are flagged below ``min_positives_unpaired`` (100: 7.7-8.0% at 50 positives on
    ordinal scores, docs/validation.md); a paired test with the same positives is not."""
    from aucpr_stats.compare import COMPARISON_METHODS
    from aucpr_stats.exceptions import SmallSampleWarning

    for metric in ("aucpr", "auroc"):
        record = COMPARISON_METHODS[metric]["bootstrap"]
        assert record.unpaired().min_positives == 100 > record.min_positives
    rng = np.random.default_rng(12)
    y = np.tile(np.r_[np.ones(60, bool), np.zeros(240, bool)], 2)
    x = rng.normal(size=y.size) + y
    frame = pl.DataFrame({"arm": np.repeat(["A", "B"], 300), "y": y, "a": x + rng.normal(size=y.size),
                          "b": x + rng.normal(size=y.size)})
    with pytest.warns(SmallSampleWarning, match="tests below"):
        unpaired = compare(frame, "y", ["a"], between="arm", metric="aucpr", n_boot=100, seed=1).to_polars()
    assert "small sample: fewer than 100 positives" in unpaired["note"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        paired = compare(frame.filter(pl.col("arm") == "A"), "y", ["a", "b"], metric="aucpr", n_boot=100,
                         seed=1).to_polars()
    assert paired["note"][0] is None or "small sample" not in paired["note"][0]
