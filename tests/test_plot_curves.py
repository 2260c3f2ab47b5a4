"""Curve plots: one panel per group on request, legends in words, the chance line once."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import polars as pl
import pytest

from aucpr_stats import pr_curve, roc_curve
from aucpr_stats.exceptions import InputError

from .conftest import random_scores


def data(n=600, seed=8):
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n)
    return pl.DataFrame({"y": y.astype(int), "s": s, "t": -s + rng.normal(size=n),
                         "age_band": rng.choice(["<50", "50-69", "70+"], n)})


def test_one_axes_legend_in_words():
    import matplotlib.pyplot as plt

    df = data()
    curve = pr_curve(df, "y", "s", by="age_band")
    ax = curve.plot()
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    n_pos = df.group_by("age_band").agg(pl.col("y").sum(), pl.len()).sort("age_band")
    expected = [f"age band {g} ({p} positives, prevalence {100 * p / n:.1f}%)" for g, p, n in n_pos.iter_rows()]
    assert texts == [*expected, "prevalence (random ranking)"]
    plt.close(ax.figure)


def test_facets_one_panel_per_group_with_its_curve():
    import matplotlib.pyplot as plt

    df = data()
    curve = pr_curve(df, "y", "s", by="age_band")
    axes = curve.plot(facet=True, title="PR curves")
    assert len(axes) == 3 and all(a.figure is axes[0].figure for a in axes)
    assert [a.get_title().splitlines()[0] for a in axes] == ["age band 50-69", "age band 70+", "age band <50"]
    grid = np.linspace(0, 1, 501)
    values, _ = curve.values_at(grid, "step")
    for k, axis in enumerate(axes):  # each panel holds its own group's curve, and only it
        lines = [line for line in axis.get_lines() if line.get_label() == "_curve"]
        assert len(lines) == 1
        np.testing.assert_allclose(lines[0].get_ydata(), values[k])
    assert axes[0].figure._suptitle.get_text() == "PR curves"
    with pytest.raises(InputError, match="facet=True"):
        curve.plot(ax=axes[0], facet=True)
    plt.close(axes[0].figure)


def test_roc_chance_line_once_and_scores_by_name():
    import matplotlib.pyplot as plt

    ax = roc_curve(data(), "y", ["s", "t"]).plot()
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[0].startswith("s (") and texts[1].startswith("t (") and texts.count("chance (AUROC 0.5)") == 1
    assert ax.get_xlabel() == "False positive rate (1 \u2212 specificity)"
    plt.close(ax.figure)


def test_band_facets():
    import matplotlib.pyplot as plt

    band = pr_curve(data(), "y", "s", by="age_band").band(n_boot=100, seed=2)
    axes = band.plot(facet=True)
    assert len(axes) == 3 and "positives, prevalence" in axes[1].get_title()
    assert axes[0].figure._suptitle.get_text().startswith("PR curve, 95%")
    plt.close(axes[0].figure)
