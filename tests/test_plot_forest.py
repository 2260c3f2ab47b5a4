"""Forest plot: one row per group, markers at the estimates, bars at the interval bounds."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np
import polars as pl
import pytest
from matplotlib.collections import LineCollection

from aucpr_stats.api import aucpr, auroc
from aucpr_stats.exceptions import InputTypeError
from aucpr_stats.plot import forest_plot

from .conftest import as_polars, random_scores


def data(n=500, seed=5):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n)
    return pl.DataFrame({"y": y.astype(int), "s": s, "t": s + rng.normal(size=n),
                         "site": rng.choice(["A", "B", "C"], n)})


def test_forest_rows_markers_and_bars():
    import matplotlib.pyplot as plt

    r = auroc(data(), "y", "s", by="site")
    ax = forest_plot(r, method="delong", title="AUROC")
    ci = as_polars(r.conf_int(method="delong"))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"{site}  (n={p + q}, {p} pos)" for site, p, q in
                      as_polars(r.to_frame()).select("site", "n_pos", "n_neg").iter_rows()]
    marker = next(line for line in ax.get_lines() if line.get_marker() == "s")
    np.testing.assert_allclose(marker.get_xdata(), ci["estimate"].to_numpy())
    bars = next(c for c in ax.collections if isinstance(c, LineCollection))
    segs = np.array([seg[:, 0] for seg in bars.get_segments()])
    np.testing.assert_allclose(segs[:, 0], ci["lower"].to_numpy())
    np.testing.assert_allclose(segs[:, 1], ci["upper"].to_numpy())
    texts = [t.get_text() for t in ax.texts]
    assert texts[0] == "AUROC (95% CI)"  # the header over the values
    assert texts[1] == f"{ci['estimate'][0]:.2f} ({ci['lower'][0]:.2f}\u2013{ci['upper'][0]:.2f})"
    assert ax.get_title() == "AUROC"
    plt.close(ax.figure)


def test_forest_aucpr_prevalence_reference_and_several_scores(tmp_path):
    import matplotlib.pyplot as plt

    r = aucpr(data(), "y", ["s", "t"], by="site", estimator="average_precision")
    ax = forest_plot(r, method=None, labels={"t": "model T"})
    frame = as_polars(r.to_frame())
    assert len(ax.get_yticks()) == frame.height == 6
    assert ax.get_yticklabels()[1].get_text().startswith("A \u00b7 model T")
    prevalence = next(line for line in ax.get_lines() if line.get_label().startswith("prevalence"))
    np.testing.assert_allclose(prevalence.get_xdata(), frame["prevalence"].to_numpy())
    path = tmp_path / "forest.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 5000
    plt.close(ax.figure)


def test_forest_on_given_axes_and_errors():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    out = forest_plot(aucpr(data(), "y", "s", estimator="average_precision"), method=None, ax=ax, reference=0.3)
    assert out is ax and ax.get_yticklabels()[0].get_text().startswith("All")
    with pytest.raises(InputTypeError):
        forest_plot([object()])
    plt.close(fig)


def test_import_does_not_load_matplotlib():
    code = "import aucpr_stats, aucpr_stats.plot, aucpr_stats.report, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_forest_stacked_blocks_overall_and_metric_panels():
    """Table 2 as a figure: an Overall diamond, a header row per variable, one panel per metric sharing the rows."""
    import matplotlib.pyplot as plt

    df = data(n=900).with_columns(sex=pl.Series(np.random.default_rng(2).choice(["F", "M"], 900)))
    results = []
    for by in (None, "site", "sex"):
        results += [aucpr(df, "y", "s", by=by), auroc(df, "y", "s", by=by)]
    pr_ax, roc_ax = forest_plot(results, labels={"sex": "Sex"})
    labels = [t.get_text().split("  (")[0] for t in pr_ax.get_yticklabels()]
    assert labels == ["Overall", "site", "A", "B", "C", "Sex", "F", "M"]
    bold = [t.get_text().split("  (")[0] for t in pr_ax.get_yticklabels() if t.get_fontweight() == "bold"]
    assert bold == ["Overall", "site", "Sex"]
    # the rows of both panels hold the numbers of their own metric, read off the results
    for ax, metric in ((pr_ax, aucpr), (roc_ax, auroc)):
        expected = [metric(df, "y", "s").estimate]
        for by in ("site", "sex"):
            expected += as_polars(metric(df, "y", "s", by=by).to_frame())["estimate"].to_list()
        squares = next(line for line in ax.get_lines() if line.get_marker() == "s")
        diamond = next(line for line in ax.get_lines() if line.get_marker() == "D")
        np.testing.assert_allclose([*diamond.get_xdata(), *squares.get_xdata()], expected)
        np.testing.assert_allclose(diamond.get_ydata(), [7.0])  # the top row
    assert pr_ax.get_xlabel().startswith("AUCPR (") and roc_ax.get_xlabel().startswith("AUROC (")
    assert any(line.get_linestyle() == "--" and np.allclose(line.get_xdata(), 0.5) for line in roc_ax.get_lines())
    headers = [t.get_text() for t in pr_ax.texts if t.get_fontweight() == "bold"]
    assert headers == ["AUCPR (95% CI)", "Subgroup"]
    plt.close(pr_ax.figure)


def test_the_aucpr_baseline_is_the_prevalence_the_estimate_is_at():
    import warnings

    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(3), 300)
    y = rng.random(g.size) < np.array([0.2, 0.33, 0.45])[g]
    frame = pl.DataFrame({"g": g, "y": y, "s": rng.normal(size=g.size) + y})

    def baseline(result):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ax = forest_plot(result, method="logit")
        (line,) = [ln for ln in ax.get_lines() if "prevalence" in str(ln.get_label())]
        return np.sort(np.asarray(line.get_xdata(), dtype=float))

    sample = np.sort([y[g == k].mean() for k in range(3)])
    np.testing.assert_allclose(baseline(aucpr(frame, "y", "s", by="g")), sample)
    np.testing.assert_allclose(baseline(aucpr(frame, "y", "s", by="g", prevalence=0.05)), [0.05] * 3)
