"""Simulation with a known truth: Boyd, Eng & Page (2013), section 4.

:data:`SCENARIOS` holds the paper's three scenarios (binormal, bibeta, offset
uniform) with their true PR curves and true areas; :func:`bias_study` and
:func:`coverage_study` rerun the paper's bias-ratio and coverage experiments
for any sample sizes, prevalences, estimators and interval methods.
"""

from __future__ import annotations

from .arms import INTERVAL_METHODS
from .studies import BOYD_ESTIMATORS, bias_study, coverage_study, simulate_ties
from .scenarios import SCENARIOS, Bibeta, Binormal, OffsetUniform, Scenario, class_counts, get_scenario

__all__ = [
    "bias_study",
    "coverage_study",
    "simulate_ties",
    "INTERVAL_METHODS",
    "BOYD_ESTIMATORS",
    "SCENARIOS",
    "Scenario",
    "Binormal",
    "Bibeta",
    "OffsetUniform",
    "class_counts",
    "get_scenario",
]
