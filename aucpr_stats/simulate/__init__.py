"""Simulation with a known truth: Boyd, Eng & Page (2013), section 4.

:data:`SCENARIOS` holds the paper's three scenarios (binormal, bibeta, offset
uniform) with their true PR curves and true areas; :func:`bias_study` and
:func:`coverage_study` rerun the paper's bias-ratio and coverage experiments
for any sample sizes, prevalences, estimators and interval methods. Every
interval of a study is computed by the one coverage engine (:mod:`.coverage`:
``conf_int``'s own driver on a result whose groups are the simulated data
sets), for every method of the interval registry.
"""

from __future__ import annotations

from .arms import INTERVAL_METHODS
from .coverage import Intervals, block_intervals, simulated_result, study_methods, tally
from .studies import BOYD_ESTIMATORS, bias_study, coverage_study, simulate_ties
from .scenarios import SCENARIOS, Bibeta, Binormal, OffsetUniform, Scenario, class_counts
from .targets import at_auroc, get_scenario, true_auroc

__all__ = [
    "bias_study",
    "coverage_study",
    "simulate_ties",
    "INTERVAL_METHODS",
    "block_intervals",
    "simulated_result",
    "study_methods",
    "tally",
    "Intervals",
    "BOYD_ESTIMATORS",
    "SCENARIOS",
    "Scenario",
    "Binormal",
    "Bibeta",
    "OffsetUniform",
    "class_counts",
    "get_scenario",
    "at_auroc",
    "true_auroc",
]
