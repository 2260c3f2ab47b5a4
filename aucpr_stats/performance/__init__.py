"""The whole performance report of a prediction-model paper in one call (TRIPOD+AI 12e, 23a, 23b).

:func:`report` (:mod:`.build`) runs the library's verbs for discrimination,
calibration and clinical utility per subgroup and overall, the tests across
subgroups and the figures; :class:`PerformanceReport` (:mod:`.result`)
renders them as a self-contained HTML page, a Word document, Markdown or
LaTeX; the methods paragraph is written from the registry records
(:mod:`.methods`).
"""

from __future__ import annotations

from .build import DEFAULT_CALIBRATION, DEFAULT_REPORT_THRESHOLDS, report
from .result import Block, Figure, PerformanceReport, TRIPOD_ITEMS

__all__ = ["report", "PerformanceReport", "Block", "Figure", "TRIPOD_ITEMS", "DEFAULT_CALIBRATION",
           "DEFAULT_REPORT_THRESHOLDS"]
