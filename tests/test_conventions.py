"""Python conventions (issue 16, item 6, in part): python -m, --version, py.typed, notebook display, headings."""

from __future__ import annotations

import importlib.resources
import subprocess
import sys
import warnings

import numpy as np
import polars as pl

import aucpr_stats
from aucpr_stats import aucpr, auroc, compare, pr_curve, roc_curve


def _frame():
    rng = np.random.default_rng(3)
    n = 400
    y = rng.random(n) < 0.3
    return pl.DataFrame({"y": y, "s": rng.normal(size=n) + y, "t": rng.normal(size=n) + 0.5 * y,
                         "site": rng.choice(["north", "south"], n)})


def test_python_dash_m_runs_the_command_line_and_prints_the_version():
    out = subprocess.run([sys.executable, "-m", "aucpr_stats", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"aucpr-stats {aucpr_stats.__version__}"
    out = subprocess.run([sys.executable, "-m", "aucpr_stats", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("usage: aucpr-stats")


def test_the_package_is_marked_as_typed():
    assert importlib.resources.files("aucpr_stats").joinpath("py.typed").is_file()


def test_every_result_displays_in_a_notebook_with_a_heading_in_words():
    df = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = {
            "aucpr": aucpr(df, "y", ["s", "t"], by="site"),
            "auroc": auroc(df, "y", "s"),
            "pr_curve": pr_curve(df, "y", "s", by="site"),
            "roc_curve": roc_curve(df, "y", "s"),
            "band": pr_curve(df, "y", "s").band(n_boot=50, seed=1, grid=5),
            "compare": compare(df, "y", ["s", "t"], by="site", metric="auroc"),
            "table": aucpr(df, "y", "s", by="site").table(),
        }
    for name, result in results.items():
        html = result._repr_html_()
        assert "<table" in html, name
        assert "[" not in html.split("<table")[0] and "'" not in html.split("<table")[0], name  # no reprs
    assert results["aucpr"]._repr_html_().startswith("<p><b>AUCPR of s, t for outcome y, by site</b></p>")
    assert results["aucpr"].summary().splitlines()[0] == "AUCPR of s, t for outcome y, by site"
    assert results["compare"].summary().splitlines()[0].startswith("Paired comparison of AUROC (DeLong test) of "
                                                                   "scores s, t, outcome y, by site;")
    # the table in the display holds the numbers of the result
    estimates = results["auroc"].to_frame()["estimate"][0]
    assert f"{estimates:.6f}"[:6] in results["auroc"]._repr_html_()


def test_compare_spells_score_as_aucpr_does_and_keeps_the_earlier_name():
    import pytest

    from aucpr_stats.exceptions import InputError

    df = _frame()
    by_name = compare(df, "y", score=["s", "t"], by="site", metric="auroc").to_polars()
    assert by_name.equals(compare(df, "y", ["s", "t"], by="site", metric="auroc").to_polars())
    assert by_name.equals(compare(df, "y", scores=["s", "t"], by="site", metric="auroc").to_polars())
    with pytest.raises(InputError, match=r"give the score columns once, as `score`"):
        compare(df, "y", score=["s", "t"], scores=["s", "t"], metric="auroc")
    with pytest.raises(InputError, match=r"`score` must name at least two columns for a paired comparison"):
        compare(df, "y", score=["s"], metric="auroc")


def test_the_array_interface_matches_scikit_learn_and_returns_the_usual_results():
    import pytest
    from sklearn.metrics import average_precision_score, roc_auc_score

    from aucpr_stats import AucprResult, AurocResult, aucpr_score, auroc_score
    from aucpr_stats.exceptions import InputError, InputTypeError

    rng = np.random.default_rng(8)
    y = rng.random(500) < 0.3
    s = np.round(rng.normal(size=500) + y, 1)
    g = rng.choice(["a", "b"], 500)
    ap = aucpr_score(y, s, estimator="average_precision", ties="published")
    assert isinstance(ap, AucprResult) and ap.estimate == pytest.approx(average_precision_score(y, s), abs=1e-12)
    roc = auroc_score(y.astype(int).tolist(), s.reshape(-1, 1))  # lists and column vectors too
    assert isinstance(roc, AurocResult) and roc.estimate == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    grouped = aucpr_score(y, s, groups=g, estimator="average_precision", ties="published").to_frame()
    for key in ("a", "b"):
        row = grouped.filter(pl.col("group") == key)
        assert row["estimate"][0] == pytest.approx(average_precision_score(y[g == key], s[g == key]), abs=1e-12)
    assert np.isfinite(auroc_score(y, s).conf_int()["lower"][0])
    with pytest.raises(InputError, match=r"the arrays must have one length; got \{'y_true': 500, 'y_score': 499\}"):
        aucpr_score(y, s[:-1])
    with pytest.raises(InputError, match=r"`y_score` must be 1-D; got an array of shape \(250, 2\)"):
        aucpr_score(y, s.reshape(250, 2))
    with pytest.raises(InputTypeError, match=r"`y_true` must be a 1-D array-like; got str"):
        aucpr_score("y", s)


def test_repr_counts_rows_once_with_several_scores():
    rng = np.random.default_rng(4)
    df = pl.DataFrame({"y": rng.integers(0, 2, 300), "s": rng.normal(size=300), "t": rng.normal(size=300),
                       "g": rng.choice(["a", "b"], 300)})
    n_pos, n_neg = int(df["y"].sum()), int(300 - df["y"].sum())
    assert f"n_pos={n_pos}, n_neg={n_neg} (each of 2 scores)" in repr(aucpr(df, "y", ["s", "t"], by="g"))
    assert f"n_pos={n_pos}, n_neg={n_neg})" in repr(auroc(df, "y", "s", by="g"))
    # scores with different missing rows: counts per score
    holes = df.with_columns(pl.when(pl.int_range(300) < 10).then(None).otherwise(pl.col("t")).alias("t"))
    text = repr(aucpr(holes, "y", ["s", "t"], missing="drop"))
    n_pos_t = int(holes.filter(pl.col("t").is_not_null())["y"].sum())
    assert f"s: n_pos={n_pos}, n_neg={n_neg}" in text and f"t: n_pos={n_pos_t}, n_neg={290 - n_pos_t}" in text
