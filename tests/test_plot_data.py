"""plot_data() of curves and bands, and forest_data(): the points other plotting tools draw."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import aucpr_stats as a
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.plot.forest import forest_data


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 500
    y = rng.integers(0, 2, n)
    return pl.DataFrame({"y": y, "s1": rng.normal(size=n) + y, "s2": rng.normal(size=n) + 0.3 * y,
                         "g": rng.choice(["a", "b"], n), "h": rng.choice(["x", "y"], n)})


def _brute_pr(y, s):
    """Recall and precision at every distinct threshold, by a loop over thresholds (the definition)."""
    out = [(0.0, 1.0)]
    for t in np.unique(s)[::-1]:
        tp = np.sum((s >= t) & (y == 1))
        fp = np.sum((s >= t) & (y == 0))
        out.append((tp / y.sum(), tp / (tp + fp)))
    return out


def test_pr_curve_points_match_brute_force(data):
    curve = a.pr_curve(data, "y", ["s1", "s2"], by=["g", "h"])
    pts = curve.plot_data()
    assert pts.columns == ["g", "h", "score", "x", "y", "x_name", "y_name"]
    assert set(pts["x_name"].to_list()) == {"recall"} and set(pts["y_name"].to_list()) == {"precision"}
    for (g, h, score), part in pts.group_by(["g", "h", "score"], maintain_order=True):
        sub = data.filter((pl.col("g") == g) & (pl.col("h") == h))
        want = _brute_pr(sub["y"].to_numpy(), sub[score].to_numpy())
        got = set(zip(np.round(part["x"].to_numpy(), 12), np.round(part["y"].to_numpy(), 12)))
        assert {(round(x, 12), round(p, 12)) for x, p in want[1:]} <= got


def test_roc_curve_points_match_brute_force(data):
    curve = a.roc_curve(data, "y", "s1", by="g")
    pts = curve.plot_data()
    assert pts.columns == ["g", "score", "x", "y", "x_name", "y_name"]
    assert set(pts["score"].to_list()) == {"s1"}
    for (g,), part in pts.group_by(["g"], maintain_order=True):
        sub = data.filter(pl.col("g") == g)
        y, s = sub["y"].to_numpy(), sub["s1"].to_numpy()
        for t in np.unique(s)[::7]:
            fpr = np.mean(s[y == 0] >= t)
            tpr = np.mean(s[y == 1] >= t)
            assert np.any(np.isclose(part["x"], fpr) & np.isclose(part["y"], tpr))


def test_band_plot_data_is_the_band(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        band = a.roc_curve(data, "y", "s1", by="g").band(n_boot=40, seed=2)
    frame, pts = band.to_polars(), band.plot_data()
    assert {"x", "y", "lower", "upper", "method", "level", "x_name", "y_name"} <= set(pts.columns)
    np.testing.assert_array_equal(pts["x"].to_numpy(), frame["fpr"].to_numpy())
    np.testing.assert_array_equal(pts["y"].to_numpy(), frame["estimate"].to_numpy())
    np.testing.assert_array_equal(pts["lower"].to_numpy(), frame["lower"].to_numpy())
    assert (pts["lower"] <= pts["upper"]).all()


def test_plot_data_refuses_non_curves(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cut = a.cutoffs(data, "y", "s1")
    with pytest.raises(InputError, match="curves and bands"):
        cut.plot_data()


def test_forest_data_rows_and_references(data):
    pr = a.aucpr(data, "y", "s1", by="g")
    roc = a.auroc(data, "y", "s1", by="g")
    overall = a.aucpr(data, "y", "s1")
    fd = forest_data([pr, roc, overall], method="logit")
    assert fd.columns == ["row", "label", "kind", "metric", "estimate", "lower", "upper", "n_pos", "n_neg",
                          "reference"]
    level_rows = fd.filter(pl.col("kind") == "level")
    pr_ci = pr.conf_int_polars(method="logit")
    for row in level_rows.filter(pl.col("metric") == "aucpr").iter_rows(named=True):
        want = pr_ci.filter(pl.col("g") == row["label"])
        assert row["estimate"] == pytest.approx(want["estimate"][0])
        assert row["lower"] == pytest.approx(want["lower"][0])
        assert row["upper"] == pytest.approx(want["upper"][0])
        sub = data.filter(pl.col("g") == row["label"])
        assert row["reference"] == pytest.approx(sub["y"].mean())  # the prevalence (Boyd et al. 2013)
        assert row["n_pos"] == sub["y"].sum()
    assert set(level_rows.filter(pl.col("metric") == "auroc")["reference"].to_list()) == {0.5}
    assert fd.filter(pl.col("kind") == "header")["label"].to_list() == ["g"]
    over = fd.filter(pl.col("kind") == "overall")
    assert over["estimate"][0] == pytest.approx(overall.to_polars()["estimate"][0])
    # rows are numbered from the top, headers included
    assert fd["row"].min() == 0 and fd["row"].max() == fd["row"].n_unique() - 1


def test_forest_data_point_only_and_bad_input(data):
    fd = forest_data(a.aucpr(data, "y", "s1", by="g"), method=None)
    assert fd["lower"].is_null().all() and fd["estimate"].is_not_null().all()
    with pytest.raises(InputError, match="at least one"):
        forest_data([])
    with pytest.raises(InputTypeError, match="results"):
        forest_data([object()])
