"""The test that three or more areas are equal (Stata roccomp's chi-square; issue 38, must-hold 3).

Oracle: DeLong's covariance matrix of k AUCs written from the paper with explicit loops over the
positive-negative pairs, a different contrast matrix (successive differences) and the chi-square
by matrix inversion.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from aucpr_stats import InputError, compare


def _delong_by_hand(y: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AUCs and their covariance (DeLong et al. 1988, Eqs. 2-4) by loops over the pairs."""
    pos, neg = scores[:, y == 1], scores[:, y == 0]
    k, m = pos.shape
    n = neg.shape[1]
    psi = np.zeros((k, m, n))
    for r in range(k):
        for i in range(m):
            for j in range(n):
                psi[r, i, j] = 1.0 if pos[r, i] > neg[r, j] else (0.5 if pos[r, i] == neg[r, j] else 0.0)
    theta = psi.mean(axis=(1, 2))
    v10 = psi.mean(axis=2)  # structural components of the positives
    v01 = psi.mean(axis=1)
    s10 = np.atleast_2d(np.cov(v10, ddof=1))
    s01 = np.atleast_2d(np.cov(v01, ddof=1))
    return theta, s10 / m + s01 / n


def _chi_square_by_hand(theta: np.ndarray, covariance: np.ndarray) -> tuple[float, int]:
    k = theta.size
    contrast = np.zeros((k - 1, k))
    for i in range(k - 1):  # successive differences: another contrast than the library's
        contrast[i, i], contrast[i, i + 1] = 1.0, -1.0
    d = contrast @ theta
    middle = contrast @ covariance @ contrast.T
    return float(d @ np.linalg.solve(middle, d)), k - 1


@pytest.fixture(scope="module")
def data() -> pl.DataFrame:
    gen = np.random.default_rng(38)
    n = 160
    y = (gen.random(n) < 0.35).astype(np.int64)
    shared = gen.normal(size=n)
    return pl.DataFrame({
        "y": y,
        "a": np.round(shared + 1.0 * y + gen.normal(size=n), 1),  # ties within and across classes
        "b": shared + 0.8 * y + gen.normal(size=n),
        "c": np.round(gen.normal(size=n) + 0.4 * y, 0),
        "d": gen.normal(size=n) + 0.9 * y,
        "g": np.tile(["x", "y"], n // 2),
    })


@pytest.mark.parametrize("columns", [["a", "b", "c"], ["a", "b", "c", "d"], ["a", "c"]])
def test_roccomp_chi_square_equals_the_hand_computation(data, columns):
    test = compare(data, "y", columns, metric="auroc").equality_test().to_polars()
    theta, covariance = _delong_by_hand(data["y"].to_numpy(), data.select(columns).to_numpy().T)
    statistic, df = _chi_square_by_hand(theta, covariance)
    assert test["statistic"][0] == pytest.approx(statistic, rel=1e-12, abs=1e-12)
    assert test["df"][0] == df and test["k"][0] == len(columns)
    assert test["p_value"][0] == pytest.approx(stats.chi2.sf(statistic, df), rel=1e-10)
    assert test["n_pos"][0] == int(data["y"].sum()) and test["n_neg"][0] == data.height - int(data["y"].sum())


def test_two_areas_give_the_square_of_the_pairwise_z(data):
    pair = compare(data, "y", ["a", "b"], metric="auroc")
    test = pair.equality_test().to_polars()
    assert test["statistic"][0] == pytest.approx(pair.to_polars()["z"][0] ** 2, rel=1e-12)
    assert test["p_value"][0] == pytest.approx(pair.p_value, rel=1e-9)


def test_each_group_has_its_own_test(data):
    test = compare(data, "y", ["a", "b", "c"], metric="auroc", by="g").equality_test().to_polars()
    assert test["g"].to_list() == ["x", "y"]
    for level, row in zip(["x", "y"], test.iter_rows(named=True)):
        part = data.filter(pl.col("g") == level)
        theta, covariance = _delong_by_hand(part["y"].to_numpy(), part.select(["a", "b", "c"]).to_numpy().T)
        assert row["statistic"] == pytest.approx(_chi_square_by_hand(theta, covariance)[0], rel=1e-12)


def test_independent_levels_give_cochrans_q(data):
    # between levels the areas are independent: the chi-square is the sum of weighted squared deviations
    three = data.with_columns(site=pl.Series(np.arange(data.height) % 3))
    test = compare(three, "y", ["b"], between="site", metric="auroc").equality_test().to_polars()
    theta, variance = [], []
    for level in range(3):
        part = three.filter(pl.col("site") == level)
        t, c = _delong_by_hand(part["y"].to_numpy(), part.select(["b"]).to_numpy().T)
        theta.append(t[0])
        variance.append(c[0, 0])
    w = 1.0 / np.array(variance)
    mean = np.sum(w * theta) / np.sum(w)
    assert test["statistic"][0] == pytest.approx(np.sum(w * (np.array(theta) - mean) ** 2), rel=1e-10)
    assert test["df"][0] == 2


def test_bootstrap_covariance_of_aucpr(data):
    # the paired bootstrap's chi-square uses the covariance of the replicate differences: the same as the
    # sample covariance of the replicates' contrasts, which the table's pairwise SEs determine exactly
    result = compare(data, "y", ["a", "b", "d"], n_boot=400, rng=5)
    test = result.equality_test("bootstrap").to_polars()
    frame = result.to_polars()
    se = {(r["score_a"], r["score_b"]): r["se"] for r in frame.iter_rows(named=True)}
    diff = {(r["score_a"], r["score_b"]): r["difference"] for r in frame.iter_rows(named=True)}
    d = np.array([diff[("a", "b")], diff[("a", "d")]])
    cov = 0.5 * (se[("a", "b")] ** 2 + se[("a", "d")] ** 2 - se[("b", "d")] ** 2)
    middle = np.array([[se[("a", "b")] ** 2, cov], [cov, se[("a", "d")] ** 2]])
    assert test["statistic"][0] == pytest.approx(d @ np.linalg.solve(middle, d), rel=1e-10)
    assert test["method"][0] == "paired bootstrap covariance"


def test_a_duplicated_score_loses_one_degree_of_freedom(data):
    twice = data.with_columns(a2=pl.col("a") * 2.0 + 1.0)  # the same order as `a`
    test = compare(twice, "y", ["a", "a2", "c"], metric="auroc").equality_test().to_polars()
    theta, covariance = _delong_by_hand(data["y"].to_numpy(), data.select(["a", "c"]).to_numpy().T)
    assert test["df"][0] == 1
    assert test["statistic"][0] == pytest.approx(_chi_square_by_hand(theta, covariance)[0], rel=1e-9)
    assert "rank 1 < 2" in test["note"][0]


def test_a_reference_comparison_is_refused(data):
    result = compare(data, "y", ["a", "b", "c"], metric="auroc", reference="a")
    with pytest.raises(InputError, match="needs every pair's variance.*without `reference=`"):
        result.equality_test()


def test_a_group_without_variance_has_no_test():
    frame = pl.DataFrame({"y": [1, 0, 0, 1, 0, 0, 1, 1, 0, 0], "a": np.arange(10.0), "b": np.arange(10.0)[::-1],
                          "c": np.r_[np.arange(5.0), np.arange(5.0)], "g": ["u"] * 3 + ["v"] * 7})
    with pytest.warns(Warning):
        test = compare(frame, "y", ["a", "b", "c"], metric="auroc", by="g").equality_test().to_polars()
    assert np.isnan(test["statistic"][0]) and np.isnan(test["p_value"][0])
    assert "variance is missing" in test["note"][0]
    assert np.isfinite(test["statistic"][1])


def _average_precision(y: np.ndarray, s: np.ndarray) -> float:
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(y, s))


def test_jackknife_covariance_of_aucpr_equals_a_brute_force_two_sample_jackknife():
    # continuous scores (no ties): every row its own deletion unit; the two-sample jackknife deletes one row of
    # one class at a time, and the covariance of the k estimates sums the two classes' spreads
    gen = np.random.default_rng(11)
    n = 60
    y = (np.arange(n) % 3 == 0).astype(np.int64)
    scores = np.stack([gen.normal(size=n) + 0.9 * y, gen.normal(size=n) + 0.6 * y, gen.normal(size=n) + 0.3 * y])
    frame = pl.DataFrame({"y": y, "a": scores[0], "b": scores[1], "c": scores[2]})
    test = compare(frame, "y", ["a", "b", "c"], n_boot=50, rng=1).equality_test().to_polars()
    theta = np.array([_average_precision(y, s) for s in scores])
    covariance = np.zeros((3, 3))
    for cls in (0, 1):
        rows = np.flatnonzero(y == cls)
        leave = np.array([[_average_precision(np.delete(y, i), np.delete(s, i)) for s in scores] for i in rows])
        centred = leave - leave.mean(axis=0)
        covariance += (rows.size - 1) / rows.size * centred.T @ centred
    statistic, df = _chi_square_by_hand(theta, covariance)
    assert test["method"][0] == "paired jackknife covariance"
    assert test["statistic"][0] == pytest.approx(statistic, rel=1e-9)
    assert test["df"][0] == df


def test_aucpr_tests_below_the_validated_size_are_flagged():
    from aucpr_stats import SmallSampleWarning
    import warnings

    gen = np.random.default_rng(100)
    for n, flagged in ((120, True), (700, False)):
        y = (np.arange(n) % 2).astype(np.int64)
        frame = pl.DataFrame({"y": y, **{k: gen.normal(size=n) + y for k in ("a", "b", "c")}})
        result = compare(frame, "y", ["a", "b", "c"], n_boot=20, rng=1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            note = result.equality_test().to_polars()["note"][0]
        assert any(issubclass(w.category, SmallSampleWarning) for w in caught) == flagged
        assert (note is not None and "fewer than 100 positives" in note) == flagged
