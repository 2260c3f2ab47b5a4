"""Plots (matplotlib, an optional extra: ``pip install "aucpr_stats[plot]"``).

matplotlib is imported only when a plotting function is called.

- :func:`forest_plot`: per-group estimates with confidence intervals.
"""

from __future__ import annotations

from .forest import forest_plot

__all__ = ["forest_plot"]
