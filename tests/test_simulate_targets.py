"""Scenarios at a target AUROC (aucpr_stats.simulate.targets), checked against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from aucpr_stats.exceptions import InputError
from aucpr_stats.simulate import get_scenario
from aucpr_stats.simulate.targets import FAMILIES, at_auroc, true_auroc


def _mann_whitney(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(Y > X) + P(Y = X) / 2 by scipy's rank-sum statistic (an independent oracle)."""
    u = stats.mannwhitneyu(pos, neg, alternative="two-sided").statistic
    return float(u) / (pos.size * neg.size)


@pytest.mark.parametrize("target", [0.75, 0.9, 0.98, 0.995, 0.999])
def test_the_continuous_families_hit_the_target(target):
    assert true_auroc(at_auroc("binormal", target)) == pytest.approx(target, abs=1e-12)
    assert true_auroc(at_auroc("bibeta", target)) == pytest.approx(target, abs=1e-9)


@pytest.mark.parametrize("family,target", [("binormal", 0.9), ("bibeta", 0.98), ("ordinal", 0.9),
                                           ("ordinal", 0.995)])
def test_the_truth_agrees_with_a_large_sample(family, target):
    """The truth against the rank statistic of 400,000 + 400,000 draws (Monte Carlo SE about 5e-4 or less);
    for the ordinal family the ties count one half, as A' counts them."""
    scenario = at_auroc(family, target)
    rng = np.random.default_rng(11)
    pos, neg = scenario.draw(rng, 400_000, True), scenario.draw(rng, 400_000, False)
    assert _mann_whitney(pos, neg) == pytest.approx(true_auroc(scenario), abs=2e-3)


def test_the_ordinal_family_has_ties_across_classes_at_every_level():
    scenario = at_auroc("ordinal", 0.98)
    rng = np.random.default_rng(2)
    pos, neg = scenario.draw(rng, 50_000, True), scenario.draw(rng, 50_000, False)
    assert set(np.unique(pos)) == set(np.unique(neg)) == set(range(5))
    assert true_auroc(scenario) < 0.98  # five levels lose some of the continuous score's separation


def test_names_with_a_target_reach_get_scenario_and_bad_ones_are_refused():
    assert get_scenario("bibeta@0.9") == at_auroc("bibeta", 0.9)
    assert set(FAMILIES) == {"binormal", "bibeta", "ordinal"}
    with pytest.raises(InputError, match="family"):
        get_scenario("gamma@0.9")
    with pytest.raises(InputError, match="number"):
        get_scenario("binormal@high")
    with pytest.raises(InputError, match=r"\(0.5, 1\)"):
        at_auroc("binormal", 1.0)
