"""``result.conf_int(method=...)``: one driver for every metric.

The driver checks the arguments once, asks each requested method of the
result's metric (:mod:`.registry`) for its (groups, estimators) arrays, and
assembles one frame: rows group-major, then estimator, then method; columns
the group keys, ``estimator``, ``estimate``, ``method``, ``level``,
``lower``, ``upper``, ``se``, the methods' extra columns, ``n_pos``,
``n_neg``, ``note``.

What a method accepts is its record's options spec (:mod:`.options`): a
method named by a string takes its options from ``conf_int``'s keywords
(each keyword goes to the requested methods that accept it; one that none
accepts is an error), a method object (``Bootstrap(n_boot=200, rng=1)``)
carries its own. Whether a method can serve a result of an engine's partial
sums (``result.ties.stored_sums``) is its record's ``needs_rows``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl

from .. import _frames
from .._validate import level_iv, names_or_all_iv, shown
from ..estimators import ESTIMATORS
from ..exceptions import InputError, InputTypeError, TieTableTooLarge
from ..progress import progress_iv
from .boundaries import UNSEEDED_NOTE, join_notes
from .edges import at_the_edges
from .options import MethodOptions
from .small_sample import warn_biased_estimator, warn_small_sample
from .registry import INTERVAL_METHODS, IntervalMethod, default_method, design_of
from .request import IntervalRequest

__all__ = ["conf_int_frame", "fold_estimates", "accepted_options"]

#: Extra columns that hold counts (integers; the others are floats).
_INTEGER_COLUMNS = ("n_boot", "folds")


#: Why a method is refused for a design (it is not valid there), by design.
_DESIGN_REFUSALS = {
    "rows": "needs cluster ids: estimate with `cluster=` (Obuchowski's variance reduces to DeLong's for "
            "clusters of one row)",
    "cluster": "treats rows as independent, and `cluster=` says they are not; estimate without `cluster=` for "
               "the row-level interval",
    "weights": "does not handle weighted rows (`weights=`); estimate without `weights=` for the unweighted "
               "interval",
}


def accepted_options(result: Any, method: Any, options: dict) -> dict:
    """The ``options`` that the method(s) ``conf_int`` would run for ``result`` accept (the rest left out).

    For callers that pass one set of options to results of several metrics
    or designs (a forest plot of AUCPR with the bootstrap and AUROC with a
    closed form): a seed goes to the resampling methods only. ``"default"``
    or None: the result's default method.
    """
    names = [default_method(result)] if method in (None, "default") else (
        [method] if isinstance(method, str) else list(method))
    registry = INTERVAL_METHODS[result.metric]
    accepted = {option for name in names if name in registry for option in registry[name].options.names()}
    accepted.add("progress")
    known = {option for m in registry.values() for option in m.options.names()}
    # an option no method knows stays, so that conf_int names it in its error
    return {key: value for key, value in options.items() if key in accepted or key not in known}


def _requested(method: Any, registry: dict) -> list[IntervalMethod | MethodOptions]:
    """The names (checked) and method objects of ``method``, in the order given, each once."""
    if isinstance(method, MethodOptions):
        method = [method]
    if not isinstance(method, (list, tuple)) or not any(isinstance(m, MethodOptions) for m in method):
        return list(names_or_all_iv(method, "method", list(registry)))
    out: list = []
    for m in method:
        if isinstance(m, MethodOptions):
            if m.method not in registry:
                raise InputError(f"`method` must be one of {list(registry)} or a method object of one of them; got "
                                 f"{shown(m)}")
            out.append(m)
        else:
            out.extend(names_or_all_iv([m], "method", list(registry)))
    names = [m if isinstance(m, str) else m.method for m in out]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InputError(f"`method` must name each method once; got {repeated} more than once")
    return out


def _methods_iv(method: Any, result: Any) -> list[tuple[IntervalMethod, MethodOptions | None]]:
    """The requested methods of the result's metric, each with its method object (None: named by a string).

    ``"all"`` is every method that serves the result's estimators and design
    (and, for a result of engine sums, needs no rows).
    """
    registry = INTERVAL_METHODS[result.metric]
    records = result.estimator_records()

    def serves_all(m: IntervalMethod) -> bool:
        return m.serves is None or all(m.serves(r) for r in records)

    design = design_of(result)
    # a result of an engine's partial sums holds no tie rows (tables/sums.py): only some methods serve
    summed = result.ties.stored_sums
    served = [name for name, m in registry.items() if not (summed and m.needs_rows)]
    if isinstance(method, str) and method == "all":
        return [(m, None) for m in registry.values() if serves_all(m) and design in m.designs and m.name in served]
    chosen = [(registry[m], None) if isinstance(m, str) else (registry[m.method], m)
              for m in _requested(method, registry)]
    for m, given in chosen:
        if given is not None and not isinstance(given, m.options):
            raise InputTypeError(f"the options of method {m.name!r} must be a {m.options.__name__}; got "
                                 f"{type(given).__name__}")
        if m.name not in served:
            raise TieTableTooLarge(f"method {m.name!r} needs the rows of the tie table, and this result holds only "
                                   f"the engine's partial sums per group ({result.ties.source.reason}); use "
                                   f"{served}, or raise the limit with "
                                   "aucpr_stats.sql_input(data, max_tie_rows=...)")
        if design not in m.designs:
            valid = [name for name, other in registry.items() if design in other.designs]
            raise InputError(f"method {m.name!r} {_DESIGN_REFUSALS[design]}; use {valid}")
        if not serves_all(m):
            served_by = [name for name, r in ESTIMATORS[result.metric].items() if m.serves(r)]
            unsupported = [r.name for r in records if not m.serves(r)]
            raise InputError(
                f"method {m.name!r} needs {m.needs}: {served_by}; got estimator"
                f"{'s' * (len(unsupported) > 1)} {unsupported}"
            )
    return chosen


def _options_iv(chosen: Sequence[tuple[IntervalMethod, MethodOptions | None]], options: dict,
                result: Any) -> list[MethodOptions]:
    """Each method's options, checked once and resolved for the result.

    A keyword goes to every method named by a string that accepts it; one
    that none of them accepts is a TypeError, as in Python. A method object
    carries its own options.
    """
    named = [m for m, given in chosen if given is None]
    allowed = {name for m in named for name in m.options.names()}
    unknown = sorted(set(options) - allowed)
    if unknown:
        by_method = "; ".join(f"{m.name}: {list(m.options.names())}" for m in INTERVAL_METHODS[result.metric].values()
                              if m.options.names())
        carried = [m.name for m, given in chosen if given is not None]
        tail = f" (method objects carry their own options: {carried})" if carried else ""
        raise InputTypeError(
            f"unexpected option{'s' * (len(unknown) > 1)} {unknown} for method {[m.name for m, _ in chosen]}; "
            f"options by method are {by_method}{tail}"
        )
    out = []
    for m, given in chosen:
        if given is None:
            given = m.options.from_keywords({key: value for key, value in options.items()
                                             if key in m.options.names()})
        out.append(given.resolved(result))
    return out


def conf_int_frame(result: Any, method: Any = None, level: float = 0.95, **options: Any):
    """Confidence intervals for every group and estimator of a result, as polars frames.

    ``result.conf_int()`` returns these in the caller's frame type;
    ``result.conf_int_polars()`` as they are.

    Parameters
    ----------
    result : AucprResult or AurocResult
    method : str, method object, list of them, or "all", optional
        The result's default when omitted (``"logit"`` for AUCPR, ``"delong"``
        for AUROC). AUCPR: ``"logit"``, ``"binomial"``, ``"wilson"``,
        ``"bootstrap"``, ``"influence"``, ``"cross_validation"``,
        ``"per_positive"``. AUROC: ``"delong"``, ``"logit"``,
        ``"hanley_mcneil"``, ``"newcombe"``, ``"bootstrap"``,
        ``"obuchowski"``. ``"all"`` is every method that serves the result's
        estimators. A method object carries its options:
        ``Bootstrap(n_boot=200, rng=1)``, ``CrossValidation(folds=5)``
        (:mod:`.options`). See ``docs/intervals.md``. At the edges (``.edges``):
        one positive gives NaN; an estimate of 0 or 1, a standard error of 0
        or a zero-width interval gets the score interval (Wilson for AUCPR,
        Newcombe for AUROC); a bound outside [0, 1] is truncated; each says
        so in ``note``.
    level : float
        Confidence level, strictly between 0 and 1.
    **options
        The options of the methods named by a string, each checked by the
        method's options spec (its record's ``options``):
        ``bootstrap`` (:class:`~.bootstrap.Bootstrap`): ``n_boot`` (1000),
        ``rng`` (None, an integer >= 0, a numpy Generator or SeedSequence;
        ``seed`` is its alias; each group draws from its own stream, derived
        from it and its key), ``chunk_size`` (replicates per draw; memory
        bound). ``cross_validation`` (:class:`~.cross_validation.CrossValidation`):
        ``folds`` (10 random stratified folds, or ``"column"`` for the fold
        column given to ``aucpr(..., fold=)``; the default when it was
        given), ``rng`` (or ``seed``), ``quantile`` (``"t"`` with ``k - 1``
        degrees of freedom, or ``"normal"``), ``return_folds`` (also return
        the per-fold estimates). Any method: ``progress`` (None: a progress
        bar on a terminal once the work has run 2 seconds; True: always;
        False: never; see :mod:`aucpr_stats.progress`).

    Returns
    -------
    frame : polars.DataFrame
        One row per group, estimator and method.
        Columns: the group keys, ``estimator``, ``estimate``, ``method``,
        ``level``, ``lower``, ``upper``, ``se``; then ``n_boot``,
        ``boot_mean``, ``boot_median`` (bootstrap); ``folds``, ``fold_mean``
        (cross-validation); then ``n_pos``, ``n_neg``, ``note`` (why an
        interval is missing or degenerate). Columns of methods not asked for
        are left out; they are null on the rows of the other methods.
    folds : polars.DataFrame or None
        With ``return_folds=True``: one row per group, estimator and fold.

    Warns
    -----
    SmallSampleWarning
        A method used with fewer positives than it needs to keep its
        coverage (its record's ``min_positives``); the rows say so in ``note``.

    Raises
    ------
    InputError, InputTypeError
        Unknown method or option, bad level or option value, a method that
        does not serve an estimator (``per_positive`` needs a mean of
        per-positive contributions), ``folds="column"`` without a fold column.
    TieTableTooLarge
        A method that needs the rows, for a result of an engine's partial sums.
    """

    if method is None:  # by metric, estimators (a partial area has no closed form) and design
        method = default_method(result)
    chosen = _methods_iv(method, result)
    level = level_iv(level)
    progress = progress_iv(options.pop("progress", None))  # every method takes it; only the loops read it
    checked = _options_iv(chosen, options, result)
    request = IntervalRequest(result, level, progress=progress)
    methods = [m for m, _ in chosen]
    views = [request.for_method(o) for o in checked]  # each method's options; one set of groups, extras, roots
    computed = [at_the_edges(view, m, m.compute(view)) for m, view in zip(methods, views)]
    _warn_small(methods, computed)
    frame = _assemble(request, methods, views, computed)
    return frame, request.extras.get("folds")


def fold_estimates(result: Any, folds: int | str | None = None, seed: Any = None, *, rng: Any = None):
    """Per-fold estimates of every group and estimator, as a frame in the caller's type.

    The same folds as ``result.conf_int(method="cross_validation", folds=...,
    rng=...)`` (``seed`` is the alias of ``rng``): one row per group,
    estimator and fold, with columns the group keys, ``estimator``, ``fold``,
    ``estimate``, ``n_pos``, ``n_neg``.
    """
    options = {"rng": rng, "seed": seed, "return_folds": True} | ({} if folds is None else {"folds": folds})
    _, frame = conf_int_frame(result, "cross_validation", 0.95, **options)
    return _frames.to_caller(frame, result.frame_kind)


def _warn_small(methods: Sequence[IntervalMethod], computed: list) -> None:
    """One SmallSampleWarning per call, naming the methods used below their minimum number of positives."""
    warn_small_sample({m.name: int(out["small_sample"].sum()) for m, out in zip(methods, computed)},
                      clusters=any(out["few_clusters"].any() for out in computed),
                      boundary=any(out.get("near_boundary", np.zeros(0, bool)).any() for out in computed),
                      case_control=any(out.get("sparse_controls", np.zeros(0, bool)).any() for out in computed))
    if any(out.get("biased_estimator", np.zeros(0, bool)).any() for out in computed):
        warn_biased_estimator()


# ------------------------------------------------------------------ the frame
def _notes(request: IntervalRequest, methods: Sequence[IntervalMethod], views: Sequence[IntervalRequest],
           computed: list) -> np.ndarray:
    """(groups, estimators, methods) notes: the group's own, else "no estimate", else the method's."""
    result = request.result
    shape = (*request.shape, len(methods))
    notes = np.full(shape, None, dtype=object)
    for k, (m, view, out) in enumerate(zip(methods, views, computed)):
        own = m.note(view, out) if m.note is not None else np.full(request.shape, None, dtype=object)
        notes[:, :, k] = np.where(out["edge_only"], out["edge_note"], join_notes(own, out["edge_note"]))
        if view.options.unseeded():  # a random interval without a seed: another run gives other limits
            with np.errstate(invalid="ignore"):
                formed = np.isfinite(np.asarray(out["lower"], dtype=np.float64))
            notes[:, :, k] = join_notes(notes[:, :, k], np.where(formed, UNSEEDED_NOTE, None))
    # a group's own note, else why its estimate is NaN (results.estimate_notes)
    estimate_notes = result.estimate_notes()
    noted = np.not_equal(estimate_notes, None)
    notes[noted] = estimate_notes[noted][:, None]
    return notes


def _assemble(request: IntervalRequest, methods: Sequence[IntervalMethod], views: Sequence[IntervalRequest],
              computed: list) -> pl.DataFrame:
    result = request.result
    n_groups, n_est = request.shape
    g, e, m = (a.ravel() for a in np.indices((n_groups, n_est, len(methods))))
    names = np.asarray([x.name for x in methods], dtype=object)[m]

    def column(key: str) -> np.ndarray:
        values = np.full(g.size, np.nan)
        for k, out in enumerate(computed):
            if key in out:
                rows = m == k
                values[rows] = np.asarray(out[key])[g[rows], e[rows]]
        return values

    body: dict[str, pl.Series] = {
        "estimator": pl.Series(np.asarray(result.estimators, dtype=object)[e].tolist(), dtype=pl.String),
        "estimate": pl.Series(result.estimates[g, e], dtype=pl.Float64),
        "method": pl.Series(names.tolist(), dtype=pl.String),
        "level": pl.Series(np.full(g.size, request.level), dtype=pl.Float64),
        **{key: pl.Series(column(key), dtype=pl.Float64) for key in ("lower", "upper", "se")},
    }
    for method in INTERVAL_METHODS[result.metric].values():  # extra columns in the registry's order
        if method not in methods:
            continue
        absent = np.flatnonzero(names != method.name)
        for key in method.columns:
            values = column(key)
            series = (pl.Series(np.nan_to_num(values).astype(np.int64), dtype=pl.Int64) if key in _INTEGER_COLUMNS
                      else pl.Series(values, dtype=pl.Float64))
            body[key] = series.scatter(absent, None)
    body["n_pos"] = pl.Series(result.n_pos[g], dtype=pl.Int64)
    body["n_neg"] = pl.Series(result.n_neg[g], dtype=pl.Int64)
    body["note"] = pl.Series(_notes(request, methods, views, computed)[g, e, m].tolist(), dtype=pl.String)
    return result.with_keys(pl.DataFrame(body), g)
