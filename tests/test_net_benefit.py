"""Net benefit (issue 32): intervals against brute-force variances in every design, the band, the paired
difference, bad input, engines, the figure and the command line.

The point values against dcurves and a brute-force oracle are in tests/test_net_benefit_reference.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import aucpr_stats as A
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError


def _cohort(n=3000, seed=1, shift=2.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(x - shift)))
    y = rng.binomial(1, p)
    p2 = 1 / (1 + np.exp(-(0.5 * x - shift)))
    return pl.DataFrame({"y": y, "p": np.round(p, 3), "p2": np.round(p2, 3), "w": rng.uniform(0.5, 2.0, n),
                         "site": rng.integers(0, 40, n), "g": rng.integers(0, 2, n)})


def _terms(y, p, t, statistic="net_benefit"):
    """Each row's contribution X_i with NB = mean(X) (brute force from the formula)."""
    w = t / (1 - t)
    above = (p >= t).astype(float)
    if statistic == "net_benefit":
        return np.where(y == 1, above, -w * above)
    if statistic == "interventions_avoided":  # 100 (TN - FN / w) / n
        return 100 * np.where(y == 1, -(1 - above) / w, 1 - above)
    raise ValueError(statistic)


@pytest.mark.parametrize("t", [0.02, 0.1, 0.25, 0.6])
@pytest.mark.parametrize("statistic", ["net_benefit", "interventions_avoided"])
def test_wald_se_rows_is_the_se_of_a_mean(t, statistic):
    df = _cohort()
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    x = _terms(y, p, t, statistic)
    ci = A.net_benefit(df, "y", "p", thresholds=t, statistic=statistic).conf_int()
    assert ci["estimate"][0] == pytest.approx(x.mean(), abs=1e-13)
    assert ci["se"][0] == pytest.approx(x.std(ddof=1) / np.sqrt(x.size), rel=1e-10)
    assert ci["lower"][0] == pytest.approx(x.mean() - 1.959963984540054 * ci["se"][0], abs=1e-12)


def test_wald_se_standardized_by_delta_method():
    df = _cohort()
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    t = 0.1
    x = _terms(y, p, t)
    n, pi = y.size, y.mean()
    est = x.mean() / pi
    influence = (x - est * y) / pi  # d(mean X / mean y)
    ci = A.net_benefit(df, "y", "p", thresholds=t, statistic="standardized_net_benefit").conf_int()
    assert ci["estimate"][0] == pytest.approx(est, abs=1e-12)
    assert ci["se"][0] == pytest.approx(np.sqrt(np.sum(influence ** 2) / (n * (n - 1))), rel=1e-10)


def test_wald_se_weights_cluster_prevalence():
    df = _cohort()
    y, p, w, c = (df[k].to_numpy() for k in ("y", "p", "w", "site"))
    t = 0.1
    x = _terms(y, p, t)
    n = y.size
    # weights: the sandwich of a ratio of weighted sums
    nb = np.sum(w * x) / w.sum()
    u = w * (x - nb) / w.sum()
    ci = A.net_benefit(df, "y", "p", thresholds=t, weights="w").conf_int()
    assert ci["estimate"][0] == pytest.approx(nb, abs=1e-13)
    assert ci["se"][0] == pytest.approx(np.sqrt(np.sum(u ** 2) * n / (n - 1)), rel=1e-10)
    # clusters: the terms summed per cluster
    s = np.bincount(c, weights=(x - x.mean()) / n)
    k = np.count_nonzero(np.bincount(c))
    ci = A.net_benefit(df, "y", "p", thresholds=t, cluster="site").conf_int()
    assert ci["se"][0] == pytest.approx(np.sqrt(np.sum(s ** 2) * k / (k - 1)), rel=1e-10)
    # a stated prevalence: two binomial proportions
    pi = 0.03
    pos, neg = y == 1, y == 0
    tpr, fpr = np.mean(p[pos] >= t), np.mean(p[neg] >= t)
    est = pi * tpr - (1 - pi) * fpr * t / (1 - t)
    var = (pi ** 2 * tpr * (1 - tpr) / (pos.sum() - 1)
           + ((1 - pi) * t / (1 - t)) ** 2 * fpr * (1 - fpr) / (neg.sum() - 1))
    ci = A.net_benefit(df, "y", "p", thresholds=t, prevalence=pi).conf_int()
    assert ci["estimate"][0] == pytest.approx(est, abs=1e-13)
    assert ci["se"][0] == pytest.approx(np.sqrt(var), rel=1e-10)
    assert ci["treat_all"][0] == pytest.approx(pi - (1 - pi) * t / (1 - t), abs=1e-15)


def test_bootstrap_agrees_with_wald_and_is_reproducible():
    df = _cohort(n=2000)
    result = A.net_benefit(df, "y", "p", thresholds=[0.05, 0.2])
    wald = result.conf_int()
    boot = result.conf_int(method="bootstrap", n_boot=2000, rng=3)
    assert np.allclose(boot["se"].to_numpy(), wald["se"].to_numpy(), rtol=0.1)
    again = A.net_benefit(df.to_pandas().sample(frac=1.0, random_state=1), "y", "p",
                          thresholds=[0.05, 0.2]).conf_int(method="bootstrap", n_boot=2000, seed=3)
    assert np.array_equal(boot["lower"].to_numpy(), again["lower"].to_numpy())


def test_paired_difference_matches_rowwise_variance():
    df = _cohort()
    y, pa, pb = df["y"].to_numpy(), df["p"].to_numpy(), df["p2"].to_numpy()
    table = A.compare(df, "y", ["p", "p2"], metric="net_benefit", thresholds=[0.05, 0.1, 0.3]).to_frame()
    for t in (0.05, 0.1, 0.3):
        d = _terms(y, pa, t) - _terms(y, pb, t)
        row = table.filter(pl.col("threshold") == t)
        assert row["difference"][0] == pytest.approx(d.mean(), abs=1e-13)
        assert row["se"][0] == pytest.approx(d.std(ddof=1) / np.sqrt(d.size), rel=1e-10)


def test_band_is_wider_than_pointwise_and_matches_the_rowwise_covariance():
    df = _cohort()
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    grid = np.round(np.arange(0.05, 0.21, 0.01), 2)
    result = A.net_benefit(df, "y", "p", thresholds=grid)
    band = result.band(0.05, 0.2, rng=1)
    assert band.height == grid.size
    assert np.all(band["lower_band"].to_numpy() < band["lower"].to_numpy())
    # the critical value from the brute-force correlation of the row terms
    x = np.column_stack([_terms(y, p, t) for t in grid])
    corr = np.corrcoef(x, rowvar=False)
    draws = np.abs(np.random.default_rng(5).multivariate_normal(np.zeros(grid.size), corr, 200_000)).max(axis=1)
    assert band["critical"][0] == pytest.approx(np.quantile(draws, 0.95), abs=0.02)
    assert 1.96 < band["critical"][0] < 3.2
    assert band.equals(result.band(0.05, 0.2, seed=1))
    paired = A.compare(df, "y", ["p", "p2"], metric="net_benefit", thresholds=grid, band=(0.05, 0.2),
                       rng=1).to_frame()
    assert np.all(paired["upper_band"].to_numpy() > paired["upper"].to_numpy())


def test_opt_out_and_harm():
    df = _cohort()
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    t, h = 0.3, 0.01
    below = p < t
    n = y.size
    out = A.net_benefit(df, "y", "p", thresholds=t, policy="opt-out", harm=h).to_frame()
    tn, fn = np.sum(below & (y == 0)), np.sum(below & (y == 1))
    assert out["estimate"][0] == pytest.approx(tn / n - fn / n * (1 - t) / t - h, abs=1e-14)
    assert out["treat_all"][0] == 0.0
    assert out["treat_none"][0] == pytest.approx(1 - y.mean() - y.mean() * (1 - t) / t, abs=1e-14)
    # interventions avoided per 100 equals 100 x the opt-out net benefit without harm
    ia = A.net_benefit(df, "y", "p", thresholds=t, statistic="interventions_avoided").estimate
    nb_out = A.net_benefit(df, "y", "p", thresholds=t, policy="opt-out").estimate
    assert ia == pytest.approx(100 * nb_out, abs=1e-12)


def test_heterogeneity_and_publication_table():
    df = _cohort()
    result = A.net_benefit(df, "y", "p", by="g", thresholds=[0.05, 0.1])
    het = result.heterogeneity().to_frame()
    ci = result.conf_int().filter(pl.col("threshold") == 0.1)
    est, se = ci["estimate"].to_numpy(), ci["se"].to_numpy()
    w = 1 / se ** 2
    pooled = np.sum(w * est) / w.sum()
    q = np.sum(w * (est - pooled) ** 2)
    assert het.filter(pl.col("estimator") == "net_benefit@0.1")["statistic"][0] == pytest.approx(q, rel=1e-10)
    table = A.auroc(df, "y", "p", by="g").table(result)
    text = str(table)
    assert "Net benefit at 10% (95% CI)" in text and "Net benefit at 5% (95% CI)" in text


def test_bad_input():
    df = _cohort(n=200)
    with pytest.raises(InputError, match="strictly between 0 and 1"):
        A.net_benefit(df, "y", "p", thresholds=[0.0, 0.5])
    with pytest.raises(InputError, match="strictly between 0 and 1"):
        A.net_benefit(df, "y", "p", thresholds=1.5)
    with pytest.raises(InputError, match="predicted"):
        A.net_benefit(df.with_columns(pl.col("p") * 100), "y", "p")
    with pytest.raises(InputError, match="policy"):
        A.net_benefit(df, "y", "p", policy="opt_in")
    with pytest.raises(InputError, match="statistic"):
        A.net_benefit(df, "y", "p", statistic="nb")
    with pytest.raises(InputError, match="band"):
        A.compare(df, "y", ["p", "p2"], metric="net_benefit", band=(0.3, 0.1))
    with pytest.raises(InputError, match="weights"):
        A.compare(df, "y", ["p", "p2"], metric="net_benefit", weights="w")
    with pytest.raises(InputError, match="net_benefit"):
        A.compare(df, "y", ["p", "p2"], metric="auroc", thresholds=[0.1])
    no_events = df.with_columns(pl.when(pl.col("g") == 1).then(0).otherwise(pl.col("y")).alias("y"))
    with pytest.warns(DegenerateGroupWarning):
        frame = A.net_benefit(no_events, "y", "p", by="g", thresholds=0.1).to_frame()
    row = frame.filter(pl.col("g") == 1)
    assert np.isnan(row["estimate"][0]) and "positive" in row["note"][0]


def test_duckdb_input_is_exact():
    duckdb = pytest.importorskip("duckdb")
    df = _cohort()
    con = duckdb.connect()
    relation = con.from_arrow(df.to_arrow())
    grid = [0.05, 0.1, 0.2, 0.5]
    a = A.net_benefit(relation, "y", "p", by="g", thresholds=grid, weights="w").conf_int()
    b = A.net_benefit(df, "y", "p", by="g", thresholds=grid, weights="w").conf_int()
    for column in ("estimate", "se", "treat_all"):
        assert np.array_equal(a[column].to_numpy(), b[column].to_numpy())


def test_frame_types_agree_and_plot(tmp_path):
    df = _cohort(n=1500)
    pandas_frame = A.net_benefit(df.to_pandas(), "y", ["p", "p2"], by="g", thresholds=[0.1, 0.2]).to_frame()
    polars_frame = A.net_benefit(df, "y", ["p", "p2"], by="g", thresholds=[0.1, 0.2]).to_frame()
    assert isinstance(pandas_frame, pd.DataFrame)
    assert np.array_equal(pandas_frame["estimate"].to_numpy(), polars_frame["estimate"].to_numpy())
    figure = A.net_benefit(df, "y", ["p", "p2"], by="g").plot()
    assert len([ax for ax in figure.axes if ax.get_visible()]) == 2
    figure.savefig(tmp_path / "curves.png")
    curve = A.net_benefit(df, "y", "p").curve().to_frame()
    assert {"threshold", "net_benefit", "lower", "upper", "treat_all", "treat_none"} <= set(curve.columns)


def test_cli(tmp_path, capsys):
    from aucpr_stats.cli import main

    df = _cohort(n=800)
    path = tmp_path / "d.csv"
    df.write_csv(path)
    plot = tmp_path / "dc.png"
    status = main(["net-benefit", str(path), "--outcome", "y", "--score", "p", "p2", "--thresholds", "0.1", "0.2",
                   "--plot", str(plot), "--format", "csv"])
    out = capsys.readouterr().out
    assert status == 0 and plot.exists()
    frame = pl.read_csv(out.encode())
    expected = A.net_benefit(df, "y", ["p", "p2"], thresholds=[0.1, 0.2]).conf_int()
    assert np.allclose(frame["estimate"].to_numpy(), expected["estimate"].to_numpy(), atol=1e-9)
    assert main(["net-benefit", str(path), "--outcome", "y", "--score", "p", "--thresholds", "1.0"]) == 2


def test_forest_plot_draws_a_panel_per_threshold():
    df = _cohort(n=1500)
    axes = A.forest_plot([A.auroc(df, "y", "p", by="g"), A.net_benefit(df, "y", "p", by="g", thresholds=[0.05, 0.1])])
    labels = [ax.get_xlabel() for ax in axes]
    assert any(label.startswith("Net benefit at 5%") for label in labels)
    assert any(label.startswith("Net benefit at 10%") for label in labels)


def test_few_informative_rows_are_noted():
    from aucpr_stats.intervals.net_benefit import moments_count

    # the equivalent count of a Poisson-like mean: n terms, k of them 1 and the rest 0, is about k
    n, k = 10_000, 6
    terms = np.r_[np.ones(k), np.zeros(n - k)]
    centred = terms - terms.mean()
    count = moments_count(n, *(np.sum(centred ** p) for p in (2, 3, 4)))
    assert count == pytest.approx(k, rel=0.01)
    # a threshold above all but three risks: net benefit rests on three treated rows
    df = _cohort(n=400, shift=0.0)
    p = df["p"].to_numpy()
    t = float(np.sort(p)[-3])
    frame = A.net_benefit(df, "y", "p", thresholds=[0.5, t]).conf_int()
    assert frame["note"][0] is None
    assert "few informative rows" in frame["note"][1]
    # two models that treat the same rows: no variance, said so
    same = A.compare(df.with_columns(q=pl.col("p")), "y", ["p", "q"], metric="net_benefit",
                     thresholds=[0.3]).to_frame()
    assert same["se"][0] == 0 and "no row is treated differently" in same["note"][0]
