"""``result.conf_int(method=...)``: one driver for every metric.

The driver checks the arguments once (:data:`OPTIONS` holds every option of
every method with its check and default), asks each requested method of the
result's metric (:mod:`.registry`) for its (groups, estimators) arrays, and
assembles one frame: rows group-major, then estimator, then method; columns
the group keys, ``estimator``, ``estimate``, ``method``, ``level``,
``lower``, ``upper``, ``se``, the methods' extra columns, ``n_pos``,
``n_neg``, ``note``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import polars as pl

from .. import _frames
from .._validate import choice_iv, flag_iv, integer_iv, level_iv, n_boot_iv, names_or_all_iv, seed_iv
from ..estimators import ESTIMATORS
from ..exceptions import InputError, InputTypeError
from ..progress import progress_iv
from ..resample import DEFAULT_N_BOOT
from ..exceptions import TieTableTooLarge
from .boundaries import join_notes
from .edges import at_the_edges
from .small_sample import warn_small_sample
from .registry import INTERVAL_METHODS, IntervalMethod, default_method, design_of
from .request import IntervalRequest

__all__ = ["OPTIONS", "conf_int_frame", "fold_estimates", "accepted_options"]

#: The methods a result of an engine's partial sums serves (they need no tie rows).
_SUMMED_METHODS = {"aucpr": ("logit", "binomial", "wilson"), "auroc": ("delong", "logit", "hanley_mcneil", "newcombe")}

#: Extra columns that hold counts (integers; the others are floats).
_INTEGER_COLUMNS = ("n_boot", "folds")


def _folds_iv(value: Any, result: Any) -> Any:
    if value is None:
        return "column" if getattr(result, "folds", None) is not None else 10
    if isinstance(value, str):
        if value != "column":
            raise InputError(f"`folds` must be an integer >= 2 or 'column'; got {value!r}")
        if getattr(result, "folds", None) is None:
            raise InputError(
                "`folds='column'` uses the caller's fold column, which must be given when estimating: "
                "aucpr(data, outcome, score, fold='your_fold_column')"
            )
        return value
    return integer_iv(value, "folds", 2)


#: Every option of ``conf_int``: its default and its check ``(value, result) -> clean value``.
OPTIONS: dict[str, tuple[Any, Callable[[Any, Any], Any]]] = {
    "n_boot": (DEFAULT_N_BOOT, lambda value, result: n_boot_iv(value)),
    "seed": (None, lambda value, result: seed_iv(value)),
    "chunk_size": (None, lambda value, result: None if value is None else integer_iv(value, "chunk_size", 1)),
    "folds": (None, _folds_iv),
    "quantile": ("t", lambda value, result: choice_iv(value, "quantile", ("t", "normal"))),
    "return_folds": (False, lambda value, result: flag_iv(value, "return_folds")),
}


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
    accepted = {option for name in names if name in registry for option in registry[name].options}
    accepted.add("progress")
    # an option no method knows stays, so that conf_int names it in its error
    return {key: value for key, value in options.items() if key in accepted or key not in OPTIONS}


def _methods_iv(method: Any, result: Any) -> tuple[IntervalMethod, ...]:
    """The requested methods of the result's metric; ``"all"`` is every method that serves its estimators."""
    registry = INTERVAL_METHODS[result.metric]
    records = result.estimator_records()

    def serves_all(m: IntervalMethod) -> bool:
        return m.serves is None or all(m.serves(r) for r in records)

    design = design_of(result)
    # a result of an engine's partial sums holds no tie rows (ingest/engine_sums.py): only some methods serve
    summed = _SUMMED_METHODS[result.metric] if result.ties.stored_sums else tuple(registry)
    if isinstance(method, str) and method == "all":
        return tuple(m for m in registry.values() if serves_all(m) and design in m.designs and m.name in summed)
    methods = tuple(registry[name] for name in names_or_all_iv(method, "method", list(registry)))
    for m in methods:
        if m.name not in summed:
            raise TieTableTooLarge(f"method {m.name!r} needs the rows of the tie table, and this result holds only "
                                   f"the engine's partial sums per group ({result.ties.source.reason}); use "
                                   f"{list(summed)}, or raise the limit with "
                                   "aucpr_stats.sql_input(data, max_tie_rows=...)")
        if design not in m.designs:
            valid = [name for name, other in registry.items() if design in other.designs]
            raise InputError(f"method {m.name!r} {_DESIGN_REFUSALS[design]}; use {valid}")
        if not serves_all(m):
            served = [name for name, r in ESTIMATORS[result.metric].items() if m.serves(r)]
            unsupported = [r.name for r in records if not m.serves(r)]
            raise InputError(
                f"method {m.name!r} needs {m.needs}: {served}; got estimator"
                f"{'s' * (len(unsupported) > 1)} {unsupported}"
            )
    return methods


def _options_iv(methods: Sequence[IntervalMethod], options: dict, result: Any) -> dict:
    """Every option checked once; an option no requested method takes is a TypeError, as in Python."""
    allowed = {name for m in methods for name in m.options}
    unknown = sorted(set(options) - allowed)
    if unknown:
        by_method = "; ".join(f"{m.name}: {list(m.options)}" for m in INTERVAL_METHODS[result.metric].values()
                              if m.options)
        raise InputTypeError(
            f"unexpected option{'s' * (len(unknown) > 1)} {unknown} for method {[m.name for m in methods]}; "
            f"options by method are {by_method}"
        )
    return {name: check(options.get(name, default), result) if name in options or name == "folds" else default
            for name, (default, check) in OPTIONS.items()}


def conf_int_frame(result: Any, method: Any = None, level: float = 0.95, **options: Any):
    """Confidence intervals for every group and estimator of a result, as polars frames.

    ``result.conf_int()`` returns these in the caller's frame type;
    ``result.conf_int_polars()`` as they are.

    Parameters
    ----------
    result : AucprResult or AurocResult
    method : str, list of str or "all", optional
        The result's default when omitted (``"logit"`` for AUCPR, ``"delong"``
        for AUROC). AUCPR: ``"logit"``, ``"binomial"``, ``"wilson"``,
        ``"bootstrap"``, ``"cross_validation"``, ``"per_positive"``. AUROC:
        ``"delong"``, ``"logit"``, ``"hanley_mcneil"``, ``"newcombe"``,
        ``"bootstrap"``. ``"all"`` is every method that serves the result's
        estimators. See ``docs/intervals.md``. At the edges (``.edges``):
        one positive gives NaN; an estimate of 0 or 1, a standard error of 0
        or a zero-width interval gets the score interval (Wilson for AUCPR,
        Newcombe for AUROC); a bound outside [0, 1] is truncated; each says
        so in ``note``.
    level : float
        Confidence level, strictly between 0 and 1.
    **options
        ``bootstrap``: ``n_boot`` (1000), ``seed`` (None, an integer >= 0, a
        numpy Generator or SeedSequence; each group draws from its own stream,
        derived from the seed and its key), ``chunk_size`` (replicates per
        draw; memory bound). ``cross_validation``: ``folds`` (10 random
        stratified folds, or ``"column"`` for the fold column given to
        ``aucpr(..., fold=)``; the default when it was given), ``seed``,
        ``quantile`` (``"t"`` with ``k - 1`` degrees of freedom, or
        ``"normal"``), ``return_folds`` (also return the per-fold estimates).
        Any method: ``progress`` (None: a progress bar on a terminal once the
        work has run 2 seconds; True: always; False: never; see
        :mod:`aucpr_stats.progress`).

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
        coverage (:data:`.small_sample.MIN_POSITIVES`); the rows say so in ``note``.

    Raises
    ------
    InputError, InputTypeError
        Unknown method or option, bad level or option value, a method that
        does not serve an estimator (``per_positive`` needs a mean of
        per-positive contributions), ``folds="column"`` without a fold column.
    """

    if method is None:  # by metric, estimators (a partial area has no closed form) and design
        method = default_method(result)
    methods = _methods_iv(method, result)
    level = level_iv(level)
    progress = progress_iv(options.pop("progress", None))  # every method takes it; only the loops read it
    request = IntervalRequest(result, level, _options_iv(methods, options, result) | {"progress": progress})
    computed = [at_the_edges(request, m, m.compute(request)) for m in methods]
    _warn_small(request, methods, computed)
    frame = _assemble(request, methods, computed)
    return frame, request.extras.get("folds")


def fold_estimates(result: Any, folds: int | str | None = None, seed: Any = None):
    """Per-fold estimates of every group and estimator, as a frame in the caller's type.

    The same folds as ``result.conf_int(method="cross_validation", folds=...,
    seed=...)``: one row per group, estimator and fold, with columns the group
    keys, ``estimator``, ``fold``, ``estimate``, ``n_pos``, ``n_neg``.
    """
    options = {"seed": seed, "return_folds": True} | ({} if folds is None else {"folds": folds})
    _, frame = conf_int_frame(result, "cross_validation", 0.95, **options)
    return _frames.to_caller(frame, result.frame_kind)


def _warn_small(request: IntervalRequest, methods: Sequence[IntervalMethod], computed: list) -> None:
    """One SmallSampleWarning per call, naming the methods used below their minimum number of positives."""
    warn_small_sample({m.name: int(out["small_sample"].sum()) for m, out in zip(methods, computed)})


# ------------------------------------------------------------------ the frame
def _notes(request: IntervalRequest, methods: Sequence[IntervalMethod], computed: list) -> np.ndarray:
    """(groups, estimators, methods) notes: the group's own, else "no estimate", else the method's."""
    result = request.result
    shape = (*request.shape, len(methods))
    notes = np.full(shape, None, dtype=object)
    for k, (m, out) in enumerate(zip(methods, computed)):
        own = m.note(request, out) if m.note is not None else np.full(request.shape, None, dtype=object)
        notes[:, :, k] = np.where(out["edge_only"], out["edge_note"], join_notes(own, out["edge_note"]))
    notes[np.isnan(result.estimates)] = "no estimate"
    group_notes = np.asarray(result.notes, dtype=object)
    degenerate = np.flatnonzero([note is not None for note in result.notes])
    notes[degenerate] = group_notes[degenerate, None, None]
    return notes


def _assemble(request: IntervalRequest, methods: Sequence[IntervalMethod], computed: list) -> pl.DataFrame:
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
    body["note"] = pl.Series(_notes(request, methods, computed)[g, e, m].tolist(), dtype=pl.String)
    return result.with_keys(pl.DataFrame(body), g)
