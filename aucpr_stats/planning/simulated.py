"""AUCPR sample size by simulation: studies drawn from a scenario whose true curve is known.

No closed form gives the sampling variance of an AUCPR estimator (it depends
on the whole curve and on the prevalence), so the size is found by
simulating the planned study (:mod:`aucpr_stats.simulate`: Boyd, Eng & Page
2013, section 4, with the true AUCPR by quadrature):

1. simulate ``n_sim`` studies at a few pilot sizes (positives ``n``, the
   negatives from the prevalence, class counts fixed as in Boyd et al.);
2. fit the mean interval half-width as ``c / sqrt(n)`` (the rate of every
   interval here) by least squares over the pilots;
3. solve for the target: half-width ``h`` gives ``n = (c / h)²``; power
   ``1 - beta`` against a null value ``theta0`` gives
   ``n = ((z_alpha + z_beta) c / (z_alpha |theta - theta0|))²`` (the
   half-width is ``z_alpha`` standard errors);
   for a power target the pilots' simulated powers refine this: a probit line
   ``Phi^-1(power) = a + b sqrt(n)`` through them is solved for the target;
4. confirm by simulating ``n_sim`` studies at that size; while the target
   is missed by more than two Monte Carlo standard errors (and by more than
   2% of a half-width target, or 0.02 of power), step to the size that a
   log-log line through the two simulated sizes nearest the target (or the
   probit line through the powers) gives, at most five times. The plan is
   the last simulated size; ``search`` shows every one.

The studies at a size are drawn from a stream that depends only on the seed
and that size, so a size's numbers do not depend on the search path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from ..distributions import normal_quantile as ndtri
from ..estimators import PR_ESTIMATORS
from ..estimators.engine import evaluate
from ..progress import progress_bar
from ..resample import root_sequence
from ..resample.budget import check_allocation
from ..simulate import INTERVAL_METHODS, simulate_ties

__all__ = ["PILOT_POSITIVES", "search_size", "simulate_size"]

#: Pilot numbers of positives of the search.
PILOT_POSITIVES = (25, 50, 100, 200)

#: A block of simulated studies holds about this many scores at once.
_BLOCK_CELLS = 2_000_000


def _negatives(n_pos: int, prevalence: float) -> int:
    """Negatives that go with ``n_pos`` positives at ``prevalence`` (rounded to the nearest)."""
    return max(1, math.floor(n_pos * (1.0 - prevalence) / prevalence + 0.5))


def simulate_size(scenario, n_pos: int, prevalence: float, *, estimator: str, method: str, level: float,
                  n_sim: int, seed: Any, theta0: float | None, truth: float, options: dict,
                  n_neg: int | None = None) -> dict:
    """Simulate ``n_sim`` studies of ``n_pos`` positives: mean half-width, coverage and power with MC errors.

    The negatives are ``n_neg``, or by default as many as ``prevalence`` gives.
    """
    n_neg = _negatives(n_pos, prevalence) if n_neg is None else n_neg
    root = root_sequence(seed)
    stream = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, 0x504C414E, n_pos))  # "PLAN"
    rng = np.random.default_rng(stream)
    record = PR_ESTIMATORS[estimator]
    block = max(1, _BLOCK_CELLS // (n_pos + n_neg))
    check_allocation(2 * n_sim, f"a planning simulation of {n_sim} studies", "lower `n_sim`")
    lowers, uppers = [], []
    done = 0
    bar = progress_bar(n_sim, f"simulating studies of {n_pos} positives", None, unit="study")
    while done < n_sim:  # the bar draws on a terminal; without one, a long run says its projected time
        size = min(block, n_sim - done)
        pos, neg = scenario.sample_arrays(size, n_pos, n_neg, rng)
        ties = simulate_ties(pos, neg)
        estimates = evaluate(ties, [record])[:, 0]
        with np.errstate(all="ignore"):
            lower, upper, _ = INTERVAL_METHODS[method](ties, estimates, record, level, rng, options)
        lowers.append(np.asarray(lower, dtype=np.float64))
        uppers.append(np.asarray(upper, dtype=np.float64))
        done += size
        bar.update(size)
    bar.close()
    lower, upper = np.concatenate(lowers), np.concatenate(uppers)
    ok = np.isfinite(lower) & np.isfinite(upper)
    half = (upper - lower)[ok] / 2.0
    n_ok = int(ok.sum())
    covered = ((lower <= truth) & (truth <= upper))[ok]
    row = {
        "n_pos": n_pos, "n_neg": n_neg, "n_total": n_pos + n_neg, "n_sim": n_sim, "n_valid": n_ok,
        "mean_half_width": float(half.mean()) if n_ok else math.nan,
        "mean_half_width_se": float(half.std(ddof=1) / math.sqrt(n_ok)) if n_ok > 1 else math.nan,
        "coverage": float(covered.mean()) if n_ok else math.nan,
    }
    row["coverage_se"] = math.sqrt(row["coverage"] * (1 - row["coverage"]) / n_ok) if n_ok else math.nan
    if theta0 is not None:
        rejected = ((lower > theta0) | (upper < theta0))[ok]
        row["power"] = float(rejected.mean()) if n_ok else math.nan
        row["power_se"] = math.sqrt(row["power"] * (1 - row["power"]) / n_ok) if n_ok else math.nan
    return row


def _required(c: float, *, half_width: float | None, theta: float, theta0: float | None, level: float,
              target_power: float | None) -> float:
    """Positives that the fitted half-width ``c / sqrt(n)`` says the target needs."""
    if half_width is not None:
        return (c / half_width) ** 2
    z_a = float(ndtri(0.5 + level / 2.0))
    z_b = float(ndtri(target_power))
    return ((z_a + z_b) * c / (z_a * abs(theta - theta0))) ** 2


def _probit_fit(rows: list[dict], target_power: float) -> int | None:
    """Positives where a probit line through the simulated powers (``Phi^-1(power) = a + b sqrt(n)``) meets the target.

    The power of a Wald-type test grows as ``Phi(b sqrt(n) - z)``; pilots with
    power 0 or 1 carry no slope and are left out. None when fewer than two remain.
    """
    n = np.array([r["n_pos"] for r in rows], dtype=np.float64)
    p = np.array([r["power"] for r in rows])
    use = (p > 0.01) & (p < 0.99)
    if use.sum() < 2:
        return None
    b, a = np.polyfit(np.sqrt(n[use]), ndtri(p[use]), 1)
    if b <= 0:
        return None
    return math.ceil(((float(ndtri(target_power)) - a) / b) ** 2)


def _loglog_step(rows: list[dict], half_width: float) -> int | None:
    """Positives for ``half_width`` on the line through the two simulated sizes nearest to it (log-log)."""
    ordered = sorted(rows, key=lambda r: abs(math.log(r["mean_half_width"] / half_width)))[:2]
    (n1, h1), (n2, h2) = ((r["n_pos"], r["mean_half_width"]) for r in ordered)
    if n1 == n2 or h1 == h2:
        return None
    slope = (math.log(h2) - math.log(h1)) / (math.log(n2) - math.log(n1))  # about -1/2
    if slope >= 0:
        return None
    return math.ceil(n1 * (half_width / h1) ** (1.0 / slope))


def search_size(scenario, prevalence: float, *, half_width: float | None, theta0: float | None,
                target_power: float | None, estimator: str, method: str, level: float, n_sim: int, seed: Any,
                truth: float, options: dict, min_positives: int) -> tuple[dict, pl.DataFrame, float]:
    """The search of the module docstring: (the chosen size's row, every simulated size, fitted c)."""
    common = {"estimator": estimator, "method": method, "level": level, "n_sim": n_sim, "seed": seed, "theta0": theta0,
                  "truth": truth, "options": options}
    rows = [simulate_size(scenario, n, prevalence, **common) for n in PILOT_POSITIVES if n >= min_positives]
    n = np.array([r["n_pos"] for r in rows], dtype=np.float64)
    h = np.array([r["mean_half_width"] for r in rows])
    x = 1.0 / np.sqrt(n)
    c = float(np.sum(x * h) / np.sum(x * x))  # least squares of h on 1/sqrt(n), no intercept
    target = {"half_width": half_width, "theta": truth, "theta0": theta0, "level": level, "target_power": target_power}
    n_pos = max(min_positives, math.ceil(_required(c, **target)))
    if half_width is None:
        n_pos = max(min_positives, _probit_fit(rows, target_power) or n_pos)
    for _ in range(5):
        row = simulate_size(scenario, n_pos, prevalence, **common)
        rows.append(row)
        if half_width is not None:
            off = abs(row["mean_half_width"] - half_width)
            if off <= max(2.0 * row["mean_half_width_se"], 0.02 * half_width):
                break
            proposal = _loglog_step(rows, half_width)
        else:
            if abs(row["power"] - target_power) <= max(2.0 * row["power_se"], 0.02):
                break
            proposal = _probit_fit(rows, target_power)
        if proposal is None or proposal == n_pos or any(r["n_pos"] == proposal for r in rows):
            break
        n_pos = max(min_positives, proposal)
    frame = pl.DataFrame(rows).with_columns(pl.lit(False).alias("chosen"))
    frame = frame.with_columns((pl.arange(0, frame.height) == frame.height - 1).alias("chosen"))
    return row, frame, c
