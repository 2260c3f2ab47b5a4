"""The coverage engine: the intervals of simulated data sets, computed as ``conf_int`` computes them, scored against the truth.

Every coverage study of the package runs here: :func:`~.studies.coverage_study`
(through its arms, :mod:`.arms`), the simulated sample sizes of
:func:`aucpr_stats.sample_size`, and the validation report
(``benchmarks/validation.py``). A block of simulated data sets is one tie
table, one segment per data set (:func:`~.studies.simulate_ties`);
:func:`simulated_result` makes it a result whose groups are the data sets,
keyed by a ``sim`` column, and :func:`block_intervals` asks the interval
driver for each requested method, so that a study measures exactly the
interval a user gets: the method's own computation, the boundary fallback,
the truncation and the notes. Which methods a study runs, and how each is
centred, come from the interval records (:data:`aucpr_stats.intervals.INTERVAL_METHODS`):
:func:`study_methods` gives every method of a metric that serves an
estimator on independent rows.

A data set's draws come from its own stream, derived from the method's
``rng`` and its key (``sim``), as a group's do in ``conf_int``: the data set
``k`` of a block gives the same interval as ``aucpr(frame, by="sim")`` on
that block's rows with ``sim = ids[k]``.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any, Mapping, Sequence

import attrs
import numpy as np
import polars as pl

from ..estimators.engine import evaluate
from ..estimators.registry import Estimator
from ..exceptions import InputError, InputTypeError
from ..ingest.notes import group_notes
from ..intervals import INTERVAL_METHODS, IntervalMethod, conf_int_frame
from ..intervals.small_sample import is_flagged
from ..results import AucprResult, AurocResult, EstimateResult
from ..ties import TieTable

__all__ = ["Intervals", "simulated_result", "study_methods", "check_method_options", "block_intervals", "covered",
           "tally"]

_RESULTS = {"aucpr": AucprResult, "auroc": AurocResult}


def simulated_result(ties: TieTable, metric: str, records: Sequence[Estimator], *, ids: Any = None,
                     estimates: np.ndarray | None = None) -> EstimateResult:
    """A result whose groups are the simulated data sets (segments) of ``ties``, keyed by ``sim``.

    Parameters
    ----------
    ties : TieTable
        One segment per data set.
    metric : {"aucpr", "auroc"}
    records : sequence of Estimator
        The estimators' registry records.
    ids : array of int, optional
        The ``sim`` key of each data set (default ``0, 1, ...``): a data
        set's random streams derive from it.
    estimates : ndarray, shape (n_segments, len(records)), optional
        The estimates, when already computed (:func:`~aucpr_stats.estimators.engine.evaluate`).
    """
    n = ties.n_segments
    ids = np.arange(n, dtype=np.int64) if ids is None else np.asarray(ids)
    if ids.shape != (n,):
        raise InputError(f"`ids` must hold one key per data set ({n}); got shape {ids.shape}")
    records = tuple(records)
    estimates = evaluate(ties, records) if estimates is None else np.asarray(estimates, dtype=np.float64)
    keys = pl.DataFrame({"sim": ids, "n_missing": np.zeros(n, dtype=np.int64)})
    return _RESULTS[metric](ties=ties, keys=keys, by=("sim",), estimators=tuple(r.name for r in records),
                            estimates=estimates.reshape(n, len(records)),
                            notes=tuple(group_notes(ties.n_pos, ties.n_neg)), frame_kind="polars",
                            outcome="outcome", score="score", records=records)


def study_methods(metric: str, estimator: Estimator, design: str = "rows") -> list[str]:
    """The interval methods a study of ``estimator`` runs: every method of the metric serving it and the design."""
    return [name for name, m in INTERVAL_METHODS[metric].items()
            if design in m.designs and (m.serves is None or m.serves(estimator))]


def check_method_options(metric: str, method: str, options: Mapping[str, Any]) -> None:
    """Check a study's options of one method against its record's options spec, before any simulation."""
    spec = INTERVAL_METHODS[metric][method].options
    unknown = sorted(set(options) - set(spec.names()))
    if unknown:
        raise InputTypeError(f"unexpected option{'s' * (len(unknown) > 1)} {unknown} for method {method!r}; its "
                             f"options are {list(spec.names())}")
    spec.from_keywords(dict(options))


@attrs.frozen(eq=False)
class Intervals:
    """One method's intervals of one estimator, for every data set of a block.

    Attributes
    ----------
    lower, upper : ndarray of float64
        The bounds, as ``conf_int`` gives them (NaN where none is formed).
    location : ndarray of float64
        What the interval is centred on (the method record's ``location``:
        the estimate, the bootstrap median, the fold mean).
    notes : list of str or None
        The ``note`` column.
    warnings : tuple of str
        The categories of the warnings the call raised (``SmallSampleWarning`` ...).
    """

    lower: np.ndarray
    upper: np.ndarray
    location: np.ndarray
    notes: list
    warnings: tuple[str, ...] = ()


def block_intervals(ties: TieTable, metric: str, records: Sequence[Estimator], methods: Sequence[str],
                    level: float = 0.95, *, rng: Any = None, options: Mapping[str, Mapping[str, Any]] | None = None,
                    ids: Any = None, estimates: np.ndarray | None = None) -> dict[tuple[str, str], Intervals]:
    """Every interval of every data set of a block, by (estimator name, method name).

    Each method runs through ``conf_int``'s driver on :func:`simulated_result`
    (one call per method, every estimator at once), with its ``options``
    (keywords, by method name) and ``rng`` (given to each random method
    whose options do not name one). Warnings are caught and kept on the
    :class:`Intervals`.
    """
    result = simulated_result(ties, metric, records, ids=ids, estimates=estimates)
    registry = INTERVAL_METHODS[metric]
    out = {}
    n_est = len(records)
    for name in methods:
        method: IntervalMethod = registry[name]
        keywords = dict((options or {}).get(name, {}))
        if method.random and "rng" not in keywords and "seed" not in keywords:
            keywords["rng"] = rng
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame, _ = conf_int_frame(result, name, level, **keywords)
        raised = tuple(sorted({w.category.__name__ for w in caught}))
        columns = {key: frame[key].to_numpy() for key in ("lower", "upper", method.location)}
        notes = frame["note"].to_list()
        for j, record in enumerate(records):  # rows are group-major, then estimator
            rows = slice(j, None, n_est)
            out[(record.name, name)] = Intervals(columns["lower"][rows], columns["upper"][rows],
                                                 columns[method.location][rows], notes[rows], raised)
    return out


def covered(lower: np.ndarray, upper: np.ndarray, truth: float) -> tuple[np.ndarray, np.ndarray]:
    """(formed, hit) per data set: finite bounds, and ``lower <= truth <= upper``."""
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    formed = np.isfinite(lower) & np.isfinite(upper)
    with np.errstate(invalid="ignore"):
        return formed, formed & (lower <= truth) & (truth <= upper)


def tally(intervals: Intervals, truth: float) -> dict:
    """Additive counts of one block: data sets, intervals formed, hits, width sum, notes and warnings.

    Blocks add up (counts and widths summed, the notes' counters merged),
    so a study may run its blocks in any order and in parallel.
    """
    formed, hit = covered(intervals.lower, intervals.upper, truth)
    notes = [note for note in intervals.notes if note is not None]
    unflagged = ~np.array([is_flagged(note) for note in intervals.notes], dtype=bool)
    return {"n_sims": int(formed.size), "n_valid": int(formed.sum()), "hits": int(hit.sum()),
            "n_valid_unflagged": int((formed & unflagged).sum()), "hits_unflagged": int((hit & unflagged).sum()),
            "width_sum": float(np.sum((intervals.upper - intervals.lower)[formed])),
            "n_note": len(notes), "notes": dict(Counter(notes).most_common(3)),
            "warnings": sorted(intervals.warnings)}
