"""Plots (matplotlib, an optional extra: ``pip install "aucpr_stats[plot]"``).

matplotlib is imported only when a plotting function is called.

- :func:`forest_plot`: per-group estimates with confidence intervals.
- :func:`plot_curve`: PR or ROC curves per group (and score), with the
  prevalence line; also ``curve_result.plot()``.
- :func:`plot_band`: a curve with its confidence band; also ``band.plot()``.
"""

from __future__ import annotations

from .curves import plot_band, plot_curve
from .forest import forest_plot

__all__ = ["forest_plot", "plot_curve", "plot_band"]
