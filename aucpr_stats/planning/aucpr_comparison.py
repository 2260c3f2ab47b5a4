"""Planning a comparison of two AUCPRs by simulation: the power of the paired test, and the size that reaches one.

No closed form gives the variance of a difference of two AUCPRs, so the
planned study is simulated: two scores on the same rows, each from a binormal
scenario (negatives ``N(0, 1)``, positives ``N(mu_r, 1)``), correlated
``correlation`` within each class (a bivariate normal, so each score keeps
its own scenario exactly), with ``n_pos`` positives and ``n_neg`` negatives.
Every simulated study is one group of a single :func:`aucpr_stats.compare`
call (the paired stratified bootstrap the study would run, each group with
its own random stream), and the power is the share of studies whose test
rejects equal AUCPRs at ``alpha``, with its Monte Carlo standard error. The
true AUCPRs at the study's prevalence come from the scenarios
(:meth:`~aucpr_stats.simulate.Scenario.true_aucpr`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from .. import _validate
from ..compare import compare
from ..exceptions import InputError
from ..resample import check_allocation, root_sequence
from ..simulate import Binormal, get_scenario
from .result import PlanResult

__all__ = ["comparison_power", "comparison_sample_size", "is_aucpr_comparison"]

#: Positives at which the size search starts (the paired AUCPR bootstrap test is withheld below 20).
FIRST_SIZE = 20
#: The largest number of positives the search tries.
LAST_SIZE = 20 * 2**8


def is_aucpr_comparison(scenario: Any) -> bool:
    """True when ``scenario`` names two scenarios: a comparison is planned."""
    return isinstance(scenario, (tuple, list))


def _pair_iv(scenario: Any) -> tuple[Binormal, Binormal]:
    if len(scenario) != 2:
        raise InputError(f"`scenario` for a comparison names two scenarios (one per score); got {len(scenario)}")
    pair = tuple(get_scenario(s) for s in scenario)
    if not all(isinstance(s, Binormal) for s in pair):
        raise InputError("a comparison of two AUCPRs is simulated for two binormal scenarios (correlated by a "
                         "bivariate normal), e.g. scenario=('binormal@0.85', 'binormal@0.75'); got "
                         f"{[s.label for s in pair]}")
    if pair[0].mu == pair[1].mu:
        raise InputError("the two scenarios are the same: no size gives power against no difference")
    return pair


def _studies(pair: tuple[Binormal, Binormal], correlation: float, n_pos: int, n_neg: int, n_sim: int,
             gen: np.random.Generator) -> pl.DataFrame:
    """``n_sim`` simulated studies stacked, numbered by ``study``: outcome ``y``, scores ``first``, ``second``."""
    rows = n_pos + n_neg
    check_allocation(6 * n_sim * rows, f"{n_sim:,} simulated studies of {rows:,} rows",
                     advice="lower `n_sim` or the size")
    cov = np.array([[1.0, correlation], [correlation, 1.0]])
    latent = gen.multivariate_normal(np.zeros(2), cov, size=n_sim * rows, method="cholesky")
    y = np.tile(np.r_[np.ones(n_pos, dtype=np.int8), np.zeros(n_neg, dtype=np.int8)], n_sim)
    shift = np.stack([pair[0].mu * y, pair[1].mu * y], axis=1)
    scores = latent + shift
    return pl.DataFrame({"study": np.repeat(np.arange(n_sim, dtype=np.int64), rows), "y": y,
                         "first": scores[:, 0], "second": scores[:, 1]})


def _power_at(pair, correlation: float, n_pos: int, n_neg: int, *, alpha: float, n_sim: int, n_boot: int,
              seed: np.random.SeedSequence, progress: Any) -> dict:
    data_seed, test_seed = seed.spawn(2)
    data = _studies(pair, correlation, n_pos, n_neg, n_sim, np.random.default_rng(data_seed))
    result = compare(data, "y", ["first", "second"], by="study", n_boot=n_boot, rng=test_seed, progress=progress)
    p = result.to_polars()["p_value"].to_numpy().astype(np.float64)
    tested = np.isfinite(p)
    power = float(np.mean(p[tested] < alpha)) if tested.any() else math.nan
    return {"n_pos": n_pos, "n_neg": n_neg, "power": power,
            "power_se": math.sqrt(power * (1 - power) / max(tested.sum(), 1)), "n_tested": int(tested.sum())}


def _common_iv(scenario, correlation, alpha, n_sim, method_options) -> tuple:
    pair = _pair_iv(scenario)
    if correlation is None:
        raise InputError("`correlation` is required for a comparison of two AUCPRs: the correlation of the two "
                         "scores within each class (0 for scores of independent tests)")
    correlation = _validate.number_iv(correlation, "correlation", low=-1.0, high=1.0, what="in (-1, 1)")
    options = dict(method_options or {})
    unknown = sorted(set(options) - {"n_boot"})
    if unknown:
        raise InputError(f"`method_options` of a simulated AUCPR comparison take 'n_boot'; got {unknown}")
    n_boot = _validate.n_boot_iv(options.get("n_boot", 500))
    return pair, correlation, _validate.probability_iv(alpha, "alpha"), _validate.integer_iv(n_sim, "n_sim", 20), n_boot


def _row(pair, correlation, alpha, n_boot, n_sim, found: dict) -> dict:
    prevalence = found["n_pos"] / (found["n_pos"] + found["n_neg"])
    truths = [s.true_aucpr(prevalence) for s in pair]
    return {"metric": "aucpr", "scenario1": pair[0].label, "scenario2": pair[1].label, "prevalence": prevalence,
            "true_aucpr1": truths[0], "true_aucpr2": truths[1], "difference": truths[0] - truths[1],
            "correlation": correlation, "alpha": alpha, "n_pos": found["n_pos"], "n_neg": found["n_neg"],
            "n_total": found["n_pos"] + found["n_neg"], "power": found["power"], "power_se": found["power_se"],
            "n_tested": found["n_tested"], "n_sim": n_sim, "n_boot": n_boot, "method": "simulation",
            "interval": "paired bootstrap test"}


def comparison_power(*, scenario: Any, correlation: Any, n_pos: Any, n_neg: Any, alpha: Any, n_sim: Any,
                     method_options: Any, seed: Any, progress: Any = None) -> PlanResult:
    """The power of the paired test of equal AUCPRs in the simulated study (see the module docstring)."""
    pair, correlation, alpha, n_sim, n_boot = _common_iv(scenario, correlation, alpha, n_sim, method_options)
    n_pos = _validate.integer_iv(n_pos, "n_pos", FIRST_SIZE)
    n_neg = _validate.integer_iv(n_neg, "n_neg", 1)
    found = _power_at(pair, correlation, n_pos, n_neg, alpha=alpha, n_sim=n_sim, n_boot=n_boot,
                      seed=root_sequence(seed), progress=progress)
    return PlanResult(kind="power", metric="aucpr", plan=pl.DataFrame([_row(pair, correlation, alpha, n_boot, n_sim,
                                                                            found)]))


def comparison_sample_size(*, scenario: Any, correlation: Any, prevalence: Any, power: float, alpha: Any,
                           n_sim: Any, method_options: Any, seed: Any, progress: Any = None) -> PlanResult:
    """The fewest positives (20, 40, 80 ... then halving the last step) whose simulated power reaches ``power``.

    Every size is simulated from the same root seed; the search doubles the
    positives until the power is reached, then bisects between the last two
    sizes three times. ``.search`` lists every simulated size.
    """
    pair, correlation, alpha, n_sim, n_boot = _common_iv(scenario, correlation, alpha, n_sim, method_options)
    if prevalence is None:
        raise InputError("`prevalence` is required: the prevalence of the planned study")
    prevalence = _validate.probability_iv(prevalence, "prevalence")
    root = root_sequence(seed)

    def at(n_pos: int) -> dict:
        n_neg = max(1, round(n_pos * (1 - prevalence) / prevalence))
        return _power_at(pair, correlation, n_pos, n_neg, alpha=alpha, n_sim=n_sim, n_boot=n_boot,
                         seed=np.random.SeedSequence(root.entropy, spawn_key=(n_pos,)), progress=progress)

    tried = [at(FIRST_SIZE)]
    while tried[-1]["power"] < power and tried[-1]["n_pos"] < LAST_SIZE:
        tried.append(at(tried[-1]["n_pos"] * 2))
    reached = [t for t in tried if t["power"] >= power]
    if not reached:
        raise InputError(f"{LAST_SIZE:,} positives do not reach power {power} in the simulation: the difference is "
                         "too small to plan for this way")
    high = reached[0]
    low = max((t for t in tried if t["n_pos"] < high["n_pos"]), key=lambda t: t["n_pos"], default=None)
    for _ in range(3):  # bisection between the last size short of the power and the first that reaches it
        if low is None or high["n_pos"] - low["n_pos"] <= 1:
            break
        middle = at((low["n_pos"] + high["n_pos"]) // 2)
        tried.append(middle)
        low, high = (middle, high) if middle["power"] < power else (low, middle)
    row = _row(pair, correlation, alpha, n_boot, n_sim, high)
    row["target_power"] = power
    search = pl.DataFrame(sorted(tried, key=lambda t: t["n_pos"]))
    return PlanResult(kind="sample_size", metric="aucpr", plan=pl.DataFrame([row]), search=search)
