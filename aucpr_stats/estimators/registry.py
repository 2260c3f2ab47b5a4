"""The estimator registry: one record per estimator, and nothing else records what an estimator can do.

A record holds the estimator's function and the facts the rest of the
package needs about it:

``reads``
    What of the tie table the value depends on, from the least to the most:

    * ``"positive_rows"``: only the precision at the rows holding positives
      (and the number of positives). The table may have every run of
      negative-only rows merged into the next positive row
      (:meth:`~aucpr_stats.ties.TieTable.merged_negative_runs`), and a
      deferred table (one group or many) is read without merging its classes.
    * ``"negative_runs"``: the negatives only through their counts between
      consecutive positive rows. The table may have each run of negative-only
      rows collapsed into one row (:meth:`~aucpr_stats.ties.TieTable.collapsed`).
    * ``"every_row"``: anything, the score values included (binormal).

    The engine hands each estimator the smallest table it may read, and the
    bootstrap resamples the smallest table every requested estimator may
    read (:func:`reduction_for`); the tests check every claim against the full table.
``contributions``
    For an estimate that is a mean over positives of one contribution each
    (the addendum on the standard deviation of AUC-PR), the function giving
    the contribution of a positive in each tie row: the ``per_positive``
    interval needs it.
``replicate_kernel``
    A faster function with the same values on a chunk of bootstrap
    replicates (one segment per replicate), whose value for a segment
    depends on that segment's rows only.
``published``
    The record under ``ties="published"`` when it differs; ``ties`` says
    which convention a record follows.
``summable``
    Whether a SQL engine can compute the estimate from partial sums over
    the tie rows (:mod:`aucpr_stats.ingest.sums`), so that a table too
    large to collect still gives it (``result.ties.stored_sums``). Never at a
    stated prevalence, never for a partial area.
``partial``
    Its partial-area form: ``partial(ties, window, tie_blocks)``, the area
    over a :class:`~.partial.PartialRange` (:class:`~.partial_pr.PrCurve`
    for AUCPR, :func:`~.partial.roc_window_area` for A'); None when the
    estimator has no partial area. The record of a partial area is built
    from the base record and the typed window (:func:`records`), and
    carries that ``window``.

Adding an estimator is one pure function in a module of this package and one
record below (see ``docs/architecture.md``).
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable, Sequence

import attrs
import numpy as np

from ..exceptions import InputError
from ..ties import TieTable
from . import partial_pr
from .average_precision import average_precision, average_precision_contributions, average_precision_replicates
from .binormal import binormal
from .calibration import (CONSTANT, SEPARATED, brier, calibration_intercept, calibration_slope, citl, oe_ratio,
                          scaled_brier, spiegelhalter_p, spiegelhalter_z, with_prevalence)
from .calibration_curve import DEFAULT_KNOTS, FEW_DISTINCT, e50, e90, emax, ici
from .convex import interpolated_convex
from .net_benefit import NET_BENEFIT_STATISTICS, RuleSet, rule, rule_column
from .interpolated import interpolated_max, interpolated_mean, interpolated_median
from .partial import PartialRange, roc_window_area
from .prevalence import prevalence_records
from .roc import a_prime, a_prime_replicates
from .threshold_trapezoid import threshold_trapezoid, threshold_trapezoid_contributions
from .tie_blocks import DEFAULT_TIES, TIES, expected_average_precision
from .trapezoid import lower_trapezoid, upper_trapezoid

__all__ = [
    "Estimator",
    "READS",
    "PR_ESTIMATORS",
    "ROC_ESTIMATORS",
    "ESTIMATORS",
    "DEFAULT_ESTIMATOR",
    "DEFAULT_PR_ESTIMATOR",
    "DEFAULT_ROC_ESTIMATOR",
    "reduction_for",
    "records",
    "CALIBRATION_STATISTICS",
    "calibration_records",
    "NET_BENEFIT_RECORDS",
    "net_benefit_records",
    "TIES",
    "DEFAULT_TIES",
]

#: The note of a standardised partial AUROC that is NaN (McClish 1989, Eq. 6; pROC's NA).
_BELOW_DIAGONAL = ("no standardised partial area: the curve's partial area is below the diagonal's (McClish's "
                   "standardisation is undefined there; the raw partial area is not)")

#: The values of :attr:`Estimator.reads`, from the least read to the most.
READS = ("positive_rows", "negative_runs", "every_row")


@attrs.frozen(eq=False)
class Estimator:
    """One estimator and what it can do; calling the record calls the estimator.

    Attributes
    ----------
    name : str
        The public name accepted by ``estimator=``.
    metric : {"aucpr", "auroc"}
    function : callable
        ``function(TieTable) -> ndarray[n_segments]``, one value per segment;
        segments handed to it hold both classes.
    reads : {"positive_rows", "negative_runs", "every_row"}
        See the module docstring.
    contributions : callable, optional
        ``contributions(TieTable) -> ndarray[n_rows]``: the contribution of a
        positive in each tie row, when the estimate is their mean.
    replicate_kernel : callable, optional
        ``kernel(TieTable) -> ndarray[n_segments]`` on a chunk of replicates:
        the same values as ``function``, faster there.
    published : Estimator, optional
        The same estimator under ``ties="published"`` (the literal conventions
        of Boyd et al. 2013 and scikit-learn for tie blocks holding both
        classes), when it differs from this record's ``"interpolate"``
        handling (:mod:`.tie_blocks`).
    ties : {"interpolate", "published"}
        The convention this record's callables follow for tie blocks holding
        both classes (``"published"`` on a published twin).
    summable : bool
        Whether an engine computes it from partial sums over the tie rows.
    partial : callable, optional
        ``partial(ties, window, tie_blocks) -> ndarray[n_segments]``: the
        partial area over a :class:`~.partial.PartialRange`; None when the
        estimator has none.
    window : PartialRange, optional
        Set on the record of a partial area (its name is ``window.label(base)``).
    undefined : str, optional
        Why the estimate can be NaN for a group that holds both classes: the
        note such a row gets. None when it never is.
    coverage_caveat : str, optional
        The note every interval around this estimator gets (and a
        :class:`~aucpr_stats.exceptions.BiasedEstimatorWarning`): its
        intervals under-cover on the validation grid whatever the method and
        the sample size (benchmarks/aucpr_boundary_results.md). None when
        they hold.
    bounds : (float, float)
        The range the statistic can take; an interval's bounds are truncated
        to it ((0, 1) for an area; unbounded for a calibration slope).
    threshold : float, optional
        The risk threshold of a net-benefit record (its name is ``statistic@threshold``).
    citation : str
        What the statistic is and where it comes from, one phrase with its
        reference: the methods text of a report is written from it.
    """

    name: str
    metric: str
    function: Callable[[TieTable], np.ndarray]
    reads: str = attrs.field(default="every_row", validator=attrs.validators.in_(READS))
    contributions: Callable[[TieTable], np.ndarray] | None = None
    replicate_kernel: Callable[[TieTable], np.ndarray] | None = None
    published: "Estimator | None" = None
    ties: str = attrs.field(default=DEFAULT_TIES, validator=attrs.validators.in_(TIES))
    summable: bool = False
    partial: Callable[..., np.ndarray] | None = None
    window: PartialRange | None = None
    undefined: str | None = None
    coverage_caveat: str | None = None
    bounds: tuple[float, float] = (0.0, 1.0)
    threshold: float | None = None
    citation: str = attrs.field(default="", kw_only=True)

    @property
    def statistic(self) -> str:
        """The name without a net-benefit record's threshold (``"net_benefit@0.1"`` -> ``"net_benefit"``)."""
        return self.name.partition("@")[0]

    def under(self, ties: str) -> "Estimator":
        """The record to use under ``ties=`` (``"interpolate"`` or ``"published"``)."""
        if ties == "published" and self.published is not None:
            return self.published
        return self

    def for_table(self, ties: TieTable) -> "Estimator":
        """The record to run on ``ties``: the published twin when it reads less and no row holds both classes.

        The two conventions differ only in rows holding both classes, and a
        table without any (nor any resample of its rows) gives every
        tie-aware estimator the published value, to the bit (checked by the
        tests). Where the published twin reads a smaller table (average
        precision: the rows holding positives, not the collapsed table) it
        is the faster road to the same numbers; elsewhere the check would
        only cost time. A table of an engine's sums keeps its own record.
        """
        if (self.published is None or self.ties == "published" or ties.stored_sums
                or READS.index(self.published.reads) >= READS.index(self.reads)):
            return self
        return self if ties.ties_across_classes() else self.published

    def over(self, window: PartialRange) -> "Estimator":
        """The record of this estimator's partial area over ``window`` (a checked :class:`~.partial.PartialRange`).

        Its function is the record's ``partial`` form on the window, under
        the record's ``ties``; it reads what the estimator reads, has no
        per-positive contributions and is never a sum an engine can add up.
        """
        if self.partial is None:
            raise InputError(f"estimator {self.name!r} has no partial area")
        undefined = self.undefined
        if window.standardized and window.focus != "recall":
            undefined = _BELOW_DIAGONAL
        return Estimator(window.label(self.name), self.metric,
                         functools.partial(self.partial, window=window, tie_blocks=self.ties),
                         reads=self.reads, ties=self.ties, window=window, undefined=undefined)

    def __call__(self, ties: TieTable) -> np.ndarray:
        return self.function(ties)

    def view(self, ties: TieTable) -> TieTable:
        """The table to hand the estimator: the smallest it may read, when that costs nothing.

        A deferred table (one group or many) is read without merging its
        sorted classes: as it is for ``"positive_rows"``, collapsed for
        ``"negative_runs"``. A merged table is handed over as it is.
        """
        if ties.is_deferred and self.reads == "negative_runs":
            return ties.collapsed()
        return ties

    def __repr__(self) -> str:
        return f"Estimator({self.name!r}, metric={self.metric!r}, reads={self.reads!r})"


def _registry(*records: Estimator) -> dict[str, Estimator]:
    return {record.name: record for record in records}


def _published(function: Callable) -> Callable:
    return functools.update_wrapper(functools.partial(function, tie_blocks="published"), function)


def _tie_aware(name: str, function: Callable, reads: str, *, contributions: Callable | None = None,
               replicate_kernel: Callable | None = None, published_reads: str | None = None,
               **facts) -> Estimator:
    """A record under ``ties="interpolate"`` with its ``"published"`` twin (every kernel switched, the facts kept)."""
    twin = Estimator(name, "aucpr", _published(function), reads=published_reads or reads,
                     contributions=contributions and _published(contributions),
                     replicate_kernel=replicate_kernel and _published(replicate_kernel), ties="published", **facts)
    return Estimator(name, "aucpr", function, reads=reads, contributions=contributions,
                     replicate_kernel=replicate_kernel, published=twin, **facts)


def _caveat(name: str, why: str, coverage: str) -> str:
    """The note of the intervals around an estimator that under-covers whatever the sample size."""
    return (f"{name} is {why}: its logit intervals cover {coverage} on the validation grid "
            "(benchmarks/aucpr_boundary_results.md); average_precision holds")


#: AUCPR estimators by public name, in display order (Boyd, Eng & Page 2013, section 3.1; the addendum;
#: McSherry & Najork 2008). Each record handles tie blocks holding both classes as ``ties="interpolate"``;
#: ``record.under("published")`` gives the literal published convention.
PR_ESTIMATORS: dict[str, Estimator] = _registry(
    _tie_aware("lower_trapezoid", lower_trapezoid, "negative_runs", summable=True,
               partial=partial_pr.LOWER_TRAPEZOID),
    _tie_aware("upper_trapezoid", upper_trapezoid, "negative_runs", partial=partial_pr.UPPER_TRAPEZOID,
               coverage_caveat=_caveat("upper_trapezoid", "biased upward (each step joined at its upper corner)",
                                       "79-88% with 5-20 positives, 92.8% at 100 or more")),
    # crossing a mixed block needs its own negatives: the merged table would mix in the negatives above
    _tie_aware("average_precision", average_precision, "negative_runs", published_reads="positive_rows",
               contributions=average_precision_contributions, replicate_kernel=average_precision_replicates,
               summable=True, partial=partial_pr.AVERAGE_PRECISION_STEPS,
               citation="average precision, the mean precision at the positives' ranks, a block of tied scores "
                        "crossed as a random order would cross it on average (Boyd, Eng & Page 2013, section 3.1)"),
    Estimator("expected_average_precision", "aucpr", expected_average_precision, reads="negative_runs"),
    _tie_aware("interpolated_max", interpolated_max, "negative_runs", partial=partial_pr.INTERPOLATED_MAX,
               coverage_caveat=_caveat("interpolated_max", "biased upward (the best precision of each step)",
                                       "87-91% with 5-20 positives, 92.6% at 50 or more")),
    _tie_aware("interpolated_mean", interpolated_mean, "every_row", partial=partial_pr.INTERPOLATED_MEAN),
    _tie_aware("interpolated_median", interpolated_median, "every_row", partial=partial_pr.INTERPOLATED_MEDIAN),
    Estimator("interpolated_convex", "aucpr", interpolated_convex, reads="negative_runs",
              coverage_caveat=_caveat("interpolated_convex", "biased upward (the convex hull lies above the curve)",
                                      "86-89% at every size, 88.9% at 100 or more")),
    Estimator("binormal", "aucpr", binormal, undefined=(
        "no binormal fit: a class has fewer than two rows, or the negatives' scores are all equal")),
    _tie_aware("threshold_trapezoid", threshold_trapezoid, "negative_runs",
               contributions=threshold_trapezoid_contributions),
)

#: ROC AUC estimators by public name (Radcliffe 2013).
ROC_ESTIMATORS: dict[str, Estimator] = _registry(
    Estimator("a_prime", "auroc", a_prime, reads="negative_runs", summable=True, partial=roc_window_area,
              replicate_kernel=a_prime_replicates,
              citation="the Mann-Whitney area under the empirical ROC curve, ties counted one half (Hanley & McNeil "
                       "1982; Radcliffe 2013)"),
)

_UNBOUNDED = (-np.inf, np.inf)
_NO_CURVE = ("no calibration curve: " + FEW_DISTINCT.format(k="its") + ", or the spline fit did not converge "
             "(the events and non-events separated along the curve)")

#: Calibration statistics by public name, in display order (:mod:`.calibration`, :mod:`.calibration_curve`).
CALIBRATION_STATISTICS: dict[str, Estimator] = _registry(
    Estimator("oe_ratio", "calibration", oe_ratio, bounds=(0.0, np.inf),
              citation="the ratio of observed to expected events (O:E)"),
    Estimator("citl", "calibration", citl, bounds=_UNBOUNDED,
              citation="calibration-in-the-large, the intercept of a logistic recalibration with the linear "
                       "predictor as offset (Van Calster et al. 2016)"),
    Estimator("slope", "calibration", calibration_slope, bounds=_UNBOUNDED,
              citation="the calibration slope, the coefficient of the linear predictor in a logistic recalibration "
                       "(Cox 1958)",
              undefined=f"{CONSTANT}; or {SEPARATED}"),
    Estimator("intercept", "calibration", calibration_intercept, bounds=_UNBOUNDED,
              undefined=f"no joint intercept: {CONSTANT}; or {SEPARATED}"),
    Estimator("brier", "calibration", brier,
              citation="the Brier score, the mean squared difference of predicted risk and outcome (Brier 1950)"),
    Estimator("scaled_brier", "calibration", scaled_brier, bounds=(-np.inf, 1.0)),
    Estimator("ici", "calibration", ici, undefined=_NO_CURVE, coverage_caveat=(
        "ICI is a mean of absolute errors, biased upward: its bootstrap interval covers 77-92% with 50-200 events, "
        "92-96% with 1,000 (benchmarks/calibration_ici_coverage_results.md); 0% for a calibrated model (its true "
        "ICI, 0, is the edge); report it as a description, with CITL and the slope for inference")),
    Estimator("e50", "calibration", e50, undefined=_NO_CURVE),
    Estimator("e90", "calibration", e90, undefined=_NO_CURVE, coverage_caveat=(
        "E90 is biased upward: its bootstrap interval covers 60-92% with 50-200 events and 84-96% with 1,000 "
        "(benchmarks/calibration_ici_coverage_results.md); report it as a description")),
    Estimator("emax", "calibration", emax, undefined=_NO_CURVE, coverage_caveat=(
        "Emax is the largest error over the rows seen, so it grows with the sample: its interval has no fixed "
        "target; report it as a description")),
    Estimator("spiegelhalter_z", "calibration", spiegelhalter_z, bounds=_UNBOUNDED,
              undefined="no Spiegelhalter z: every prediction is 0, 1/2 or 1 (its null variance is 0)"),
    Estimator("spiegelhalter_p", "calibration", spiegelhalter_p,
              undefined="no Spiegelhalter z: every prediction is 0, 1/2 or 1 (its null variance is 0)"),
)

#: Net-benefit statistics by public name (:mod:`.net_benefit`): a record per statistic and threshold is made by
#: :func:`net_benefit_records`; these name what each statistic is (a difference of proportions, unbounded).
_NET_BENEFIT_CITATION = ("net benefit at a risk threshold t, true positives minus false positives weighted by "
                         "t/(1 - t), per person (Vickers & Elkin 2006)")
NET_BENEFIT_RECORDS = _registry(*(Estimator(name, "net_benefit", rule_column, bounds=_UNBOUNDED,
                                            citation=_NET_BENEFIT_CITATION if name == "net_benefit" else "")
                                  for name in NET_BENEFIT_STATISTICS))

#: Every registry by metric.
ESTIMATORS: dict[str, dict[str, Estimator]] = {"aucpr": PR_ESTIMATORS, "auroc": ROC_ESTIMATORS,
                                               "calibration": CALIBRATION_STATISTICS,
                                               "net_benefit": NET_BENEFIT_RECORDS}


def net_benefit_records(names: Sequence[str], thresholds: Sequence[float], policy: str = "opt-in",
                        prevalence: float | None = None, harm: float = 0.0) -> list[Estimator]:
    """One record per statistic of ``names`` and threshold (statistic-major), named ``statistic@threshold``.

    The records of one call share a :class:`~.net_benefit.RuleSet`, so a
    table's counts at every threshold are read once for all of them.
    """
    pairs = [(name, float(t)) for name in names for t in thresholds]
    rules = RuleSet(tuple(rule(name, t, policy, harm) for name, t in pairs), prevalence)
    bounds = {"standardized_net_benefit": (-np.inf, 1.0)}
    return [attrs.evolve(NET_BENEFIT_RECORDS[name], name=f"{name}@{t!r}", threshold=t,
                         function=functools.partial(rule_column, rules=rules, j=j),
                         bounds=bounds.get(name, _UNBOUNDED))
            for j, (name, t) in enumerate(pairs)]

#: Why Spiegelhalter's z is not given (weights; a stated prevalence).
_NO_Z = {"weights": "no Spiegelhalter z with weights= (its null variance needs the squared weights)",
         "prevalence": "no Spiegelhalter z at a stated prevalence (a test of the sample's own predictions)"}
_CURVE = ("ici", "e50", "e90", "emax")


def calibration_records(names: Sequence[str], prevalence: float | None = None, knots: int = DEFAULT_KNOTS,
                        weighted: bool = False) -> list[Estimator]:
    """The records of the calibration statistics ``names`` (checked), at a stated prevalence, with ``knots``.

    Spiegelhalter's z and its p-value are NaN with a note under weights or
    at a stated prevalence; every other statistic takes the prevalence
    (:mod:`.calibration`), the curve's four their number of knots.
    """
    chosen = []
    for name in names:
        record = CALIBRATION_STATISTICS[name]
        if name.startswith("spiegelhalter"):
            why = _NO_Z["weights"] if weighted else _NO_Z["prevalence"] if prevalence is not None else None
            if why is not None:
                record = attrs.evolve(record, function=_undefined, undefined=why)
        else:
            function = record.function
            if name in _CURVE:
                function = functools.update_wrapper(functools.partial(function, knots=knots, weighted=weighted),
                                                    function)
            record = attrs.evolve(record, function=with_prevalence(function, prevalence))
        chosen.append(record)
    return chosen


def _undefined(ties: TieTable) -> np.ndarray:
    return np.full(ties.n_segments, np.nan)

#: The default estimator of each metric. AUCPR: average precision, the one with the best worst-case coverage of
#: its default (logit) interval from weak to near-perfect scores (91.5% over the whole grid, >= 93% from 20
#: positives but for one cell within Monte Carlo error; the interpolated median's 85.8% near AUROC 0.999 with 10
#: positives, where it sits 0.06 below the truth), and the only one within 1.5x of its own time on every road
#: (one group, 10^3 groups, the bootstrap, the paired comparison, where the others take 2.4-4.1x as long);
#: benchmarks/aucpr_boundary_results.md, benchmarks/estimator_roads_results.md, docs/estimators.md.
DEFAULT_ESTIMATOR = {"aucpr": "average_precision", "auroc": "a_prime"}
DEFAULT_PR_ESTIMATOR = DEFAULT_ESTIMATOR["aucpr"]
DEFAULT_ROC_ESTIMATOR = DEFAULT_ESTIMATOR["auroc"]


def records(metric: str, names: Sequence[str], ties: str = DEFAULT_TIES, prevalence: float | None = None,
            window: PartialRange | None = None) -> list[Estimator]:
    """The registry records of ``names`` under ``ties=`` (names already checked).

    With ``window`` (a :class:`~.partial.PartialRange` from
    :func:`~.partial.partial_iv`), the records of the partial areas of
    ``names`` over it (:meth:`Estimator.over`); an estimator without a partial
    form is refused. With ``prevalence``, an AUCPR estimator is evaluated at
    that population prevalence (:mod:`.prevalence`); AUROC does not depend on it.
    """
    registry = ESTIMATORS[metric]
    chosen = [registry[name].under(ties) for name in names]
    if window is not None:
        refused = [record.name for record in chosen if record.partial is None]
        if refused:
            defined = [name for name, record in registry.items() if record.partial is not None]
            why = (" (their curve has no reading at every recall: a convex hull, a fitted binormal curve, an "
                   "expectation over tie orders or a threshold-averaged sum)") if metric == "aucpr" else ""
            axis = "`recall=`" if metric == "aucpr" else "`specificity=` or `sensitivity=`"
            raise InputError(f"a partial {metric.upper()} ({axis}) is defined for the estimators {defined}; got "
                             f"{refused}{why}")
        chosen = [record.over(window) for record in chosen]
    if prevalence is None or metric != "aucpr":
        return chosen
    return prevalence_records(chosen, prevalence)


def reduction_for(records: Iterable[Estimator]) -> Callable[[TieTable], TieTable]:
    """The exact table reduction valid for every estimator in ``records`` (identity if none is).

    Estimates and the bootstrap distribution are unchanged by it (see the
    module docstring); the resampled table is as small as they allow.
    """
    reads = max((READS.index(record.reads) for record in records), default=len(READS) - 1)
    if READS[reads] == "positive_rows":
        return TieTable.merged_negative_runs
    if READS[reads] == "negative_runs":
        return TieTable.collapsed
    return _identity


def _identity(ties: TieTable) -> TieTable:
    return ties
