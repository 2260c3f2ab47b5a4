"""Bias and coverage studies of Boyd, Eng & Page (2013), section 4, for any grid.

Every cell of the grid (scenario x n_total x prevalence) simulates ``n_sims``
data sets with fixed class counts (:func:`.scenarios.class_counts`), computes
the estimates, and compares them with the true AUCPR of the scenario.

Vectorised across simulations: the data sets of a block are drawn as one
``(n_sims, n)`` array, sorted row-wise by numpy, and run-length encoded into
ONE :class:`~aucpr_stats.ties.TieTable` with one segment per data set, so
each estimator is called once per block, exactly as it is called once for all
groups of a user's frame. Every interval method of the registry is an arm of
:mod:`.arms`, run by the coverage engine (:mod:`.coverage`) on the same table
through ``conf_int``'s own driver.

Definitions (Boyd et al. section 4):

- **bias ratio** = mean estimated AUCPR / true AUCPR (1 for an unbiased
  estimator); Monte Carlo SE = sd(estimate) / sqrt(n_sims) / true AUCPR.
- **coverage** = share of simulated data sets whose interval contains the true
  AUCPR (``lower <= theta <= upper``); Monte Carlo SE = sqrt(c (1 - c) / n_sims).
- **mean width** = mean of ``upper - lower``; **ideal width** (Fig. 7) = the
  central ``level`` range of the estimates across the simulations (the width
  an interval would need if the sampling distribution were known), and
  ``width_ratio`` = mean width / ideal width.
"""

from __future__ import annotations

import itertools
from typing import Any, Mapping

import numpy as np
import polars as pl

from .._validate import integer_iv, level_iv, names_or_all_iv, probability_iv, seed_iv
from ..estimators.registry import records
from ..estimators.tie_blocks import DEFAULT_TIES, ties_iv
from ..estimators import PR_ESTIMATORS
from ..estimators.engine import evaluate
from ..exceptions import InputError, InputTypeError
from ..intervals import INTERVAL_METHODS as REGISTRY
from ..progress import progress_bar
from ..resample.budget import check_allocation
from ..tables import tie_table_from_sorted
from ..ties import TieTable
from .arms import INTERVAL_METHODS
from .coverage import check_method_options, covered
from .scenarios import SCENARIOS, Scenario, class_counts
from .targets import get_scenario

__all__ = [
    "bias_study",
    "coverage_study",
    "simulate_ties",
    "INTERVAL_METHODS",
    "BOYD_ESTIMATORS",
    "BOYD_N_TOTAL",
    "BOYD_CI_N_TOTAL",
]

#: The eight estimators of Boyd et al. section 3.1, by their registry names.
BOYD_ESTIMATORS = (
    "lower_trapezoid",
    "upper_trapezoid",
    "interpolated_max",
    "interpolated_mean",
    "interpolated_median",
    "interpolated_convex",
    "average_precision",
    "binormal",
)
#: The three estimators kept for the interval study (end of section 4.1).
BOYD_CI_ESTIMATORS = ("lower_trapezoid", "average_precision", "interpolated_median")
#: n + m of Fig. 4 (prevalence 0.1) and of Figs. 6-7.
BOYD_N_TOTAL = (100, 200, 500, 1000, 5000, 10000)
BOYD_CI_N_TOTAL = (200, 500, 1000, 5000, 10000)

#: Sorting a block of data sets holds about this many scores in memory at once.
_BLOCK_CELLS = 2_000_000


# ---------------------------------------------------------------- simulation
def simulate_ties(pos: np.ndarray, neg: np.ndarray) -> TieTable:
    """One tie table holding many simulated data sets, one segment each.

    Parameters
    ----------
    pos, neg : ndarray of float, shapes (n_sims, n_pos) and (n_sims, n_neg)
        Scores of the positives and negatives of each data set (row), e.g.
        from :meth:`Scenario.sample_arrays`.

    Returns
    -------
    TieTable
        Segment ``k`` is data set ``k``. Rows are sorted by score descending
        within each data set by one row-wise numpy sort (O(n log n) per data
        set, no Python loop), then equal scores are merged into tie rows.
    """
    pos = np.asarray(pos, dtype=np.float64)
    neg = np.asarray(neg, dtype=np.float64)
    if pos.ndim != 2 or neg.ndim != 2 or pos.shape[0] != neg.shape[0]:
        raise InputError(
            f"`pos` and `neg` must be 2-D arrays with one row per data set; got shapes {pos.shape} and {neg.shape}"
        )
    n_sims, n_pos = pos.shape
    scores = np.concatenate([pos, neg], axis=1)
    order = np.argsort(scores, axis=1)[:, ::-1]  # descending within each data set
    sorted_scores = np.take_along_axis(scores, order, axis=1)
    positive = order < n_pos  # the first n_pos columns were the positives
    group = np.repeat(np.arange(n_sims, dtype=np.int64), scores.shape[1])
    return tie_table_from_sorted(group, sorted_scores.ravel(), positive.ravel(), n_sims)


# ---------------------------------------------------------------- validation
def _grid_iv(scenarios, n_total, prevalence, n_sims) -> tuple[list[Scenario], list[int], list[float], int]:
    if isinstance(scenarios, (str, Scenario)):
        scenarios = [scenarios]
    if not isinstance(scenarios, (list, tuple)) or not scenarios:
        raise InputTypeError(f"`scenarios` must be a name, a Scenario, or a non-empty list of them; got {scenarios!r}")
    scen = [get_scenario(s) for s in scenarios]
    sizes = [n_total] if np.ndim(n_total) == 0 else list(n_total)
    sizes = [integer_iv(n, "n_total", 2) for n in sizes]
    prevs = [prevalence] if np.ndim(prevalence) == 0 else list(prevalence)
    prevs = [probability_iv(p, "prevalence") for p in prevs]
    if not sizes or not prevs:
        raise InputError("`n_total` and `prevalence` must hold at least one value each")
    for n, p in itertools.product(sizes, prevs):
        class_counts(n, p)  # raises when a class would be empty
    return scen, sizes, prevs, integer_iv(n_sims, "n_sims", 2)


# ---------------------------------------------------------------- the engine
def _cells(scenarios, sizes, prevs):
    return list(itertools.product(scenarios, sizes, prevs))


def _blocks(n_sims: int, n_total: int, block_size: int | None) -> list[int]:
    size = max(1, _BLOCK_CELLS // n_total) if block_size is None else integer_iv(block_size, "block_size", 1)
    full, rest = divmod(n_sims, size)
    return [size] * full + ([rest] if rest else [])


def _simulate_cell(scenario: Scenario, n_total: int, prevalence: float, n_sims: int, rng: np.random.Generator,
                   block_size: int | None):
    """Yield (tie table, block rng) per block of simulated data sets in one cell."""
    n_pos, n_neg = class_counts(n_total, prevalence)
    blocks = _blocks(n_sims, n_total, block_size)
    for size, block_rng in zip(blocks, rng.spawn(len(blocks))):
        data_rng, method_rng = block_rng.spawn(2)
        pos, neg = scenario.sample_arrays(size, n_pos, n_neg, data_rng)
        yield simulate_ties(pos, neg), method_rng


class _Truth:
    """True AUCPR per (scenario, prevalence), integrated once per study."""

    def __init__(self):
        self._cache: dict[tuple[Scenario, float], float] = {}

    def __call__(self, scenario: Scenario, prevalence: float) -> float:
        key = (scenario, prevalence)
        if key not in self._cache:
            self._cache[key] = scenario.true_aucpr(prevalence)
        return self._cache[key]


def _mc_summary(values: np.ndarray) -> tuple[int, float, float]:
    """Count, mean and Monte Carlo SE of the finite values in ``values``."""
    ok = values[np.isfinite(values)]
    if ok.size == 0:
        return 0, np.nan, np.nan
    se = ok.std(ddof=1) / np.sqrt(ok.size) if ok.size > 1 else np.nan
    return int(ok.size), float(ok.mean()), float(se)


def bias_study(
    scenarios: Any = tuple(SCENARIOS),
    n_total: Any = BOYD_N_TOTAL,
    prevalence: Any = 0.1,
    *,
    estimators: Any = "all",
    n_sims: int = 1000,
    seed: Any = None,
    block_size: int | None = None,
    ties: str = DEFAULT_TIES,
) -> pl.DataFrame:
    """Bias ratio of AUCPR estimators on simulated data (Boyd et al. Figs. 4 and 5).

    Parameters
    ----------
    scenarios : str, Scenario or list of them
        Names in :data:`~aucpr_stats.simulate.SCENARIOS` or Scenario objects
        (other parameters, e.g. ``Binormal(mu=2)``). Default: all three.
    n_total : int or list of int
        Data set sizes ``n + m``. Default: 100, 200, 500, 1000, 5000, 10000.
    prevalence : float or list of float
        Skew ``pi``; the number of positives is fixed at ``round(pi * n_total)``.
    estimators : str, list of str or "all"
        Names in :data:`aucpr_stats.estimators.PR_ESTIMATORS`.
    n_sims : int
        Simulated data sets per cell (the paper uses 10,000).
    seed : int, None or numpy Generator
        Same seed and arguments, same frame.
    block_size : int, optional
        Data sets simulated and sorted together; default keeps about two
        million scores per block. Results depend on it only through the
        random stream, so keep it fixed to reproduce a study.
    ties : {"interpolate", "published"}
        How the estimators cross tie blocks holding both classes (see
        :func:`aucpr_stats.aucpr`); matters for ordinal scenarios
        (:class:`~aucpr_stats.simulate.scenarios.Discretized`).

    Returns
    -------
    polars.DataFrame
        One row per scenario x n_total x prevalence x estimator, with
        ``scenario, n_total, prevalence, n_pos, n_neg, estimator, n_sims,
        n_valid, true_aucpr, mean_estimate, sd_estimate, bias_ratio,
        bias_ratio_se`` (``n_valid`` counts finite estimates, over which
        the means are taken).

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 4.1.

    Examples
    --------
    >>> from aucpr_stats.simulate import bias_study
    >>> out = bias_study("offset_uniform", n_total=200, estimators="average_precision", n_sims=200, seed=1)
    >>> out.select("scenario", "n_total", "estimator", "n_sims").row(0)
    ('offset_uniform', 200, 'average_precision', 200)
    """
    scen, sizes, prevs, n_sims = _grid_iv(scenarios, n_total, prevalence, n_sims)
    names = names_or_all_iv(estimators, "estimators", list(PR_ESTIMATORS))
    chosen = records("aucpr", names, ties_iv(ties))
    root = np.random.default_rng(seed_iv(seed))
    rows = []
    truth = _Truth()
    cells = _cells(scen, sizes, prevs)
    check_allocation(n_sims * len(names), f"a bias study of {n_sims} data sets per cell", "lower `n_sims`")
    bar = progress_bar(len(cells) * n_sims, "bias study", None, unit="data set")
    for (scenario, n, p), cell_rng in zip(cells, root.spawn(len(cells))):
        theta = truth(scenario, p)
        blocks = _simulate_cell(scenario, n, p, n_sims, cell_rng, block_size)
        estimates = np.concatenate([evaluate(table, chosen) for table, _ in blocks])
        bar.update(n_sims)  # a bar on a terminal; without one, a time estimate if the study runs long
        n_pos, n_neg = class_counts(n, p)
        for j, name in enumerate(names):
            n_valid, mean, se = _mc_summary(estimates[:, j])
            sd = float(np.nanstd(estimates[:, j], ddof=1)) if n_valid > 1 else np.nan
            rows.append((scenario.label, n, p, n_pos, n_neg, name, n_sims, n_valid, theta,
                         mean, sd,
                         mean / theta, se / theta))
    bar.close()
    schema = {"scenario": pl.String, "n_total": pl.Int64, "prevalence": pl.Float64, "n_pos": pl.Int64,
              "n_neg": pl.Int64, "estimator": pl.String, "n_sims": pl.Int64, "n_valid": pl.Int64,
              "true_aucpr": pl.Float64, "mean_estimate": pl.Float64, "sd_estimate": pl.Float64,
              "bias_ratio": pl.Float64, "bias_ratio_se": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def coverage_study(
    scenarios: Any = tuple(SCENARIOS),
    n_total: Any = BOYD_CI_N_TOTAL,
    prevalence: Any = 0.1,
    *,
    estimators: Any = BOYD_CI_ESTIMATORS,
    methods: Any = ("binomial", "logit"),
    n_sims: int = 1000,
    level: float = 0.95,
    seed: Any = None,
    method_options: Mapping[str, Mapping[str, Any]] | None = None,
    block_size: int | None = None,
) -> pl.DataFrame:
    """Coverage and width of AUCPR confidence intervals on simulated data (Boyd et al. Figs. 6, 7).

    Parameters
    ----------
    scenarios, n_total, prevalence, n_sims, seed, block_size
        As in :func:`bias_study`. Default sizes: 200, 500, 1000, 5000, 10000.
    estimators : str, list of str or "all"
        Default: lower trapezoid, average precision and interpolated median,
        the three the paper keeps for its interval study.
    methods : str, list of str or "all"
        Names in :data:`INTERVAL_METHODS`: every AUCPR interval method of the
        registry valid for independent rows (``logit``, ``binomial``,
        ``wilson``, ``bootstrap``, ``influence``, ``cross_validation``,
        ``per_positive``, and any method registered there). A method that
        does not serve an estimator (``per_positive`` needs a mean of
        per-positive contributions, ``influence`` average precision) has no
        row for it.
    level : float
        Nominal coverage, 0.95 in the paper.
    method_options : dict, optional
        Keyword options per method, as ``result.conf_int`` takes them (the
        method's options spec checks them): for ``bootstrap`` ``n_boot``
        (default 1000 as in the paper) and ``chunk_size``; for
        ``cross_validation`` ``folds`` (default 10) and ``quantile`` ("t" by
        default, "normal" for the paper's normal approximation). Each arm's
        randomness comes from ``seed``.

    Returns
    -------
    polars.DataFrame
        One row per scenario x n_total x prevalence x estimator x method:
        ``scenario, n_total, prevalence, n_pos, n_neg, estimator, method,
        level, n_sims, n_valid, true_aucpr, bias_ratio, bias_ratio_se,
        coverage, coverage_se, mean_width, mean_width_se, ideal_width,
        width_ratio, location_ratio, location_ratio_se``. ``n_valid`` counts
        data sets whose interval is finite; coverage, width and location are
        taken over those. ``bias_ratio`` is that of the point estimate on the
        full data set (over all finite estimates); ``location_ratio`` is the
        mean location of the interval over the true AUCPR (Fig. 8): the
        estimate for binomial and logit, the median of the bootstrap
        replicates, the mean of the fold estimates for cross-validation.

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 4.2.
    """
    scen, sizes, prevs, n_sims = _grid_iv(scenarios, n_total, prevalence, n_sims)
    names = names_or_all_iv(estimators, "estimators", list(PR_ESTIMATORS))
    arms = names_or_all_iv(methods, "methods", list(INTERVAL_METHODS))
    level = level_iv(level)
    options = {m: dict((method_options or {}).get(m, {})) for m in arms}
    unknown = set(method_options or {}) - set(INTERVAL_METHODS)
    if unknown:
        raise InputError(f"`method_options` keys must be among {list(INTERVAL_METHODS)}; got {sorted(unknown)}")
    for m in arms:
        check_method_options("aucpr", m, options[m])
    # the (estimator, method) pairs the registry serves
    pairs = [(name, m) for name in names for m in arms
             if REGISTRY["aucpr"][m].serves is None or REGISTRY["aucpr"][m].serves(PR_ESTIMATORS[name])]
    root = np.random.default_rng(seed_iv(seed))
    rows = []
    truth = _Truth()
    cells = _cells(scen, sizes, prevs)
    check_allocation(n_sims * (len(names) + 3 * len(pairs)), f"a coverage study of {n_sims} data sets per cell",
                     "lower `n_sims`")
    bar = progress_bar(len(cells) * n_sims, "coverage study", None, unit="data set")
    for (scenario, n, p), cell_rng in zip(cells, root.spawn(len(cells))):
        theta = truth(scenario, p)
        est_blocks = []
        bounds: dict[tuple[str, str], list[tuple[np.ndarray, np.ndarray]]] = {pair: [] for pair in pairs}
        for ties, method_rng in _simulate_cell(scenario, n, p, n_sims, cell_rng, block_size):
            estimates = evaluate(ties, [PR_ESTIMATORS[name] for name in names])
            est_blocks.append(estimates)
            bar.update(estimates.shape[0])  # a bar on a terminal; without one, a time estimate if long
            arm_rngs = dict(zip(arms, method_rng.spawn(len(arms))))
            for j, name in enumerate(names):
                for m in arms:
                    if (name, m) not in bounds:
                        continue
                    with np.errstate(all="ignore"):
                        lower, upper, location = INTERVAL_METHODS[m](ties, estimates[:, j], PR_ESTIMATORS[name],
                                                                     level, arm_rngs[m], options[m])
                    bounds[(name, m)].append(tuple(np.asarray(a, dtype=np.float64) for a in (lower, upper, location)))
        estimates = np.concatenate(est_blocks)
        n_pos, n_neg = class_counts(n, p)
        for j, name in enumerate(names):
            _, mean, se = _mc_summary(estimates[:, j])
            finite = estimates[np.isfinite(estimates[:, j]), j]
            tail = (1.0 - level) / 2.0
            ideal = float(np.quantile(finite, 1.0 - tail) - np.quantile(finite, tail)) if finite.size else np.nan
            for m in arms:
                if (name, m) not in bounds:
                    continue
                lower = np.concatenate([b[0] for b in bounds[(name, m)]])
                upper = np.concatenate([b[1] for b in bounds[(name, m)]])
                ok, hit = covered(lower, upper, theta)
                n_valid, coverage, _ = _mc_summary(hit[ok].astype(np.float64))
                cov_se = float(np.sqrt(coverage * (1 - coverage) / n_valid)) if n_valid else np.nan
                _, width, width_se = _mc_summary((upper - lower)[ok])
                location = np.concatenate([b[2] for b in bounds[(name, m)]])
                _, loc_mean, loc_se = _mc_summary(location[ok])
                rows.append((scenario.name, n, p, n_pos, n_neg, name, m, level, n_sims, n_valid, theta,
                             mean / theta, se / theta, coverage, cov_se, width, width_se, ideal,
                             width / ideal if ideal > 0 else np.nan, loc_mean / theta, loc_se / theta))
    bar.close()
    schema = {"scenario": pl.String, "n_total": pl.Int64, "prevalence": pl.Float64, "n_pos": pl.Int64,
              "n_neg": pl.Int64, "estimator": pl.String, "method": pl.String, "level": pl.Float64,
              "n_sims": pl.Int64, "n_valid": pl.Int64, "true_aucpr": pl.Float64, "bias_ratio": pl.Float64,
              "bias_ratio_se": pl.Float64, "coverage": pl.Float64, "coverage_se": pl.Float64,
              "mean_width": pl.Float64, "mean_width_se": pl.Float64, "ideal_width": pl.Float64,
              "width_ratio": pl.Float64, "location_ratio": pl.Float64, "location_ratio_se": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")
