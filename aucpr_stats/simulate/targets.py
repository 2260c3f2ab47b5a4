"""Scenarios at a chosen true AUROC: weak, strong and near-perfect scores for the validation grids.

Published prediction models sit near AUROC 0.9-0.999, where intervals behave
differently from the weak binormal score of Boyd et al. (2013). Three families
reach any target:

* ``"binormal"``: negatives ``N(0, 1)``, positives ``N(mu, 1)``; the ROC area
  is ``Phi(mu / sqrt 2)``, so ``mu = sqrt 2 Phi^{-1}(AUROC)``.
* ``"bibeta"``: negatives ``Beta(1, b)``, positives ``Beta(b, 1)``; the area
  ``P(Y > X) = int f_X(x) S_Y(x) dx`` by quadrature, ``b`` solved by Brent's method.
* ``"ordinal"``: the binormal score cut into ``levels`` ordered categories at
  the mixture's quantiles (:class:`~.scenarios.Discretized`); every level holds
  both classes, so every data set has ties across classes. Its true AUROC is
  the trapezoid between the population ROC points (a tie counted one half,
  as A' counts it), which is not exactly the target: :func:`true_auroc` gives it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..distributions import beta_sf, normal_cdf, normal_quantile
from ..exceptions import InputError, InputTypeError
from .scenarios import SCENARIOS, Bibeta, Binormal, Discretized, Scenario

__all__ = ["FAMILIES", "at_auroc", "get_scenario", "parse_target", "true_auroc"]

#: The families :func:`at_auroc` builds.
FAMILIES = ("binormal", "bibeta", "ordinal")


def _bibeta_auroc(b: float) -> float:
    """``P(Y > X)`` for ``X ~ Beta(1, b)``, ``Y ~ Beta(b, 1)``."""
    from scipy import integrate  # a lazy load: scipy.integrate costs about 0.3 s of import time
    from scipy.stats import beta  # a lazy load: scipy.stats costs about 0.5 s of import time

    return integrate.quad(lambda x: beta.pdf(x, 1.0, b) * beta_sf(b, 1.0, x), 0.0, 1.0,
                          limit=200, epsabs=1e-13)[0]


def at_auroc(family: str, auroc: float, levels: int = 5) -> Scenario:
    """The scenario of ``family`` whose continuous score has true ROC area ``auroc``.

    Parameters
    ----------
    family : {"binormal", "bibeta", "ordinal"}
    auroc : float
        Target area, in (0.5, 1).
    levels : int
        Categories of the ordinal family.

    Examples
    --------
    >>> round(true_auroc(at_auroc("binormal", 0.9)), 6)
    0.9
    """
    if family not in FAMILIES:
        raise InputError(f"`family` must be one of {list(FAMILIES)}; got {family!r}")
    if not 0.5 < auroc < 1.0:
        raise InputError(f"`auroc` must be in (0.5, 1); got {auroc!r}")
    mu = float(normal_quantile(auroc) * np.sqrt(2.0))
    if family == "binormal":
        return Binormal(mu)
    if family == "bibeta":
        from scipy import optimize  # a lazy load: scipy.optimize costs about 0.3 s of import time

        b = optimize.brentq(lambda b: _bibeta_auroc(b) - auroc, 1.0001, 5000.0, xtol=1e-12)
        return Bibeta(1.0, b)
    return Discretized(Binormal(mu), levels)


def true_auroc(scenario: Scenario) -> float:
    """The true ROC area of a scenario built by :func:`at_auroc` (A' for the ordinal family: ties count 1/2).

    Examples
    --------
    >>> round(true_auroc(Binormal(1.0)), 4)
    0.7602
    """
    if isinstance(scenario, Binormal):
        return float(normal_cdf(scenario.mu / np.sqrt(2.0)))
    if isinstance(scenario, Bibeta) and scenario.a == 1.0:
        return _bibeta_auroc(scenario.b)
    if isinstance(scenario, Discretized):
        tpr, fpr = scenario._points()
        return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))
    raise InputError(f"true_auroc knows the scenarios at_auroc builds; got {scenario!r}")


def parse_target(name: str) -> Scenario:
    """``"family@auroc"`` (e.g. ``"binormal@0.99"``) as :func:`at_auroc` builds it.

    Examples
    --------
    >>> parse_target("binormal@0.98").label
    'binormal, mu=2.90444'
    """
    family, _, value = name.partition("@")
    try:
        auroc = float(value)
    except ValueError:
        raise InputError(f"`scenario` {name!r}: the AUROC after '@' must be a number") from None
    return at_auroc(family, auroc)


def get_scenario(scenario: Any) -> Scenario:
    """A :class:`Scenario` from itself, its name in :data:`SCENARIOS`, or ``"family@auroc"``.

    ``"binormal@0.99"``, ``"bibeta@0.9"``, ``"ordinal@0.98"``: the family at that true AUROC
    (:func:`~aucpr_stats.simulate.targets.at_auroc`).
    """
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, str):
        if "@" in scenario:
            return parse_target(scenario)
        if scenario not in SCENARIOS:
            raise InputError(f"`scenario` must be one of {list(SCENARIOS)}, 'family@auroc' or a Scenario; "
                             f"got {scenario!r}")
        return SCENARIOS[scenario]
    raise InputTypeError(f"`scenario` must be a name or a Scenario; got {type(scenario).__name__}")
