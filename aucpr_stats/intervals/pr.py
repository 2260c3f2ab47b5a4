"""``AucprResult.conf_int``: every interval method, per group and estimator, as one frame."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl

from .. import _frames
from .._validate import choice_iv, level_iv
from ..estimators import PR_ESTIMATORS
from ..exceptions import InputError, InputTypeError
from . import bootstrap as _boot
from . import cross_validation as _cv
from .closed_form import binomial_interval, logit_interval, normal_quantile
from .per_positive import PER_POSITIVE_ESTIMATORS, per_positive_se

__all__ = ["PR_METHODS", "DEFAULT_PR_METHOD", "pr_conf_int", "fold_estimates"]

#: Interval methods for AUCPR, in display order.
PR_METHODS = ("logit", "binomial", "bootstrap", "cross_validation", "per_positive")

#: The default method: Boyd et al. (2013) found binomial and logit valid (at
#: least nominal coverage) in every case study; logit also stays inside [0, 1].
DEFAULT_PR_METHOD = "logit"

_OPTIONS = {
    "bootstrap": {"n_boot", "seed", "chunk_size"},
    "cross_validation": {"folds", "seed", "quantile", "return_folds"},
}


# ---------------------------------------------------------------- validation
def _methods_iv(method: Any, estimators: Sequence[str]) -> tuple[str, ...]:
    if isinstance(method, str):
        if method == "all":
            supported = all(name in PER_POSITIVE_ESTIMATORS for name in estimators)
            return tuple(m for m in PR_METHODS if m != "per_positive" or supported)
        methods: Sequence[Any] = [method]
    elif isinstance(method, (list, tuple)) and method:
        methods = method
    else:
        raise InputTypeError(f"`method` must be one of {list(PR_METHODS)}, a list of them or 'all'; got {method!r}")
    return tuple(dict.fromkeys(choice_iv(m, "method", PR_METHODS) for m in methods))


def _int_iv(value: Any, argument: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputTypeError(f"`{argument}` must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise InputError(f"`{argument}` must be an integer >= {minimum}; got {value!r}")
    return int(value)


def _options_iv(methods: tuple[str, ...], options: dict, result) -> dict:
    allowed = set().union(*(_OPTIONS.get(m, set()) for m in methods))
    unknown = sorted(set(options) - allowed)
    if unknown:
        hint = "; ".join(f"{m}: {sorted(o)}" for m, o in _OPTIONS.items())
        raise InputTypeError(
            f"unexpected option{'s' * (len(unknown) > 1)} {unknown} for method {list(methods)}; "
            f"options by method are {hint}"
        )
    out: dict[str, Any] = {}
    seed = options.get("seed")
    if seed is not None and not isinstance(seed, (int, np.integer, np.random.Generator)) or isinstance(seed, bool):
        raise InputTypeError(f"`seed` must be None, an int or a numpy Generator; got {seed!r}")
    out["seed"] = seed
    out["n_boot"] = _int_iv(options.get("n_boot", _boot.DEFAULT_N_BOOT), "n_boot", 2)
    chunk = options.get("chunk_size")
    out["chunk_size"] = None if chunk is None else _int_iv(chunk, "chunk_size", 1)
    folds = options.get("folds")
    if folds is None:
        folds = "column" if getattr(result, "folds", None) is not None else 10
    if isinstance(folds, str):
        if folds != "column":
            raise InputError(f"`folds` must be an integer >= 2 or 'column'; got {folds!r}")
        if "cross_validation" in methods and getattr(result, "folds", None) is None:
            raise InputError(
                "`folds='column'` uses the caller's fold column, which must be given when estimating: "
                "aucpr(data, outcome, score, fold='your_fold_column')"
            )
    else:
        folds = _int_iv(folds, "folds", 2)
    out["folds"] = folds
    out["quantile"] = choice_iv(options.get("quantile", "t"), "quantile", ("t", "normal"))
    return_folds = options.get("return_folds", False)
    if not isinstance(return_folds, (bool, np.bool_)):
        raise InputTypeError(f"`return_folds` must be True or False; got {return_folds!r}")
    out["return_folds"] = bool(return_folds)
    return out


def _rng(seed) -> np.random.Generator:
    # a Generator is consumed in method order; an int or None seeds each method
    # afresh, so a method's interval does not depend on which others were asked for
    return _boot.as_generator(seed)


# ------------------------------------------------------------------ methods
def _usable(result) -> tuple[np.ndarray, Any]:
    ok = (result.n_pos > 0) & (result.n_neg > 0)
    idx = np.flatnonzero(ok)
    ties = result.ties if ok.all() else result.ties.take(idx)
    return idx, ties


def _blank(shape) -> np.ndarray:
    return np.full(shape, np.nan)


def _closed(result, level: float, kind: str) -> dict:
    kernel = binomial_interval if kind == "binomial" else logit_interval
    lower, upper, se = kernel(result.estimates, result.n_pos[:, None], level)
    return {"lower": lower, "upper": upper, "se": se}


def _per_positive(result, level: float) -> dict:
    shape = result.estimates.shape
    out = {"lower": _blank(shape), "upper": _blank(shape), "se": _blank(shape)}
    idx, ties = _usable(result)
    if idx.size == 0:
        return out
    z = normal_quantile(level)
    for j, name in enumerate(result.estimators):
        _, se = per_positive_se(ties, name)
        est = result.estimates[idx, j]
        out["se"][idx, j] = se
        out["lower"][idx, j] = est - z * se
        out["upper"][idx, j] = est + z * se
    return out


def _bootstrap(result, level: float, opts: dict) -> dict:
    shape = result.estimates.shape
    out = {key: _blank(shape) for key in ("lower", "upper", "se", "n_boot", "boot_mean", "boot_median")}
    idx, ties = _usable(result)
    if idx.size == 0:
        out["n_boot"][:] = 0
        return out
    names = result.estimators
    ties = _boot.reduce_for(names)(ties)  # exact: same estimates, same bootstrap distribution
    reps = _boot.bootstrap_estimates(ties, [PR_ESTIMATORS[n] for n in names], n_boot=opts["n_boot"],
                                     seed=_rng(opts["seed"]), chunk_size=opts["chunk_size"])
    reps = np.moveaxis(reps, 0, 1)  # (groups, estimators, replicates)
    lower, upper = _boot.percentile_interval(reps, level)
    summary = _boot.replicate_summary(reps)
    out["lower"][idx], out["upper"][idx] = lower, upper
    for key in ("se", "n_boot", "boot_mean", "boot_median"):
        out[key][idx] = summary[key]
    out["n_boot"][np.setdiff1d(np.arange(shape[0]), idx)] = 0
    return out


def _fold_values(result, opts: dict) -> tuple[np.ndarray, list, tuple]:
    """Fold estimates (groups, estimators, folds), the fold labels of each group, and (fold table, group of each fold segment)."""
    names = result.estimators
    n_groups = result.n_groups
    if opts["folds"] == "column":
        ft = result.folds
        values = _cv.evaluate_many(ft.ties, PR_ESTIMATORS, names)  # (segments, estimators)
        matrix, _ = _cv.folds_matrix(values, ft.group, n_groups)  # (groups, k, estimators)
        labels: list = [[] for _ in range(n_groups)]
        fold_values = ft.fold.to_list()
        for seg in np.argsort(ft.group, kind="stable"):
            labels[ft.group[seg]].append(fold_values[seg])
        fold_ties, fold_group = ft.ties, ft.group
    else:
        k = opts["folds"]
        idx, ties = _usable(result)
        table = _cv.stratified_folds(ties, k, _rng(opts["seed"]))
        values = _cv.evaluate_many(table, PR_ESTIMATORS, names)
        matrix = np.full((n_groups, k, len(names)), np.nan)
        matrix[idx] = values.reshape(idx.size, k, len(names))
        usable = set(idx.tolist())
        labels = [list(range(k)) if g in usable else [] for g in range(n_groups)]
        fold_ties, fold_group = table, np.repeat(idx, k)
    return np.moveaxis(matrix, 1, 2), labels, (fold_ties, fold_group)


def _cross_validation(result, level: float, opts: dict) -> tuple[dict, pl.DataFrame | None]:
    values, labels, (fold_ties, fold_group) = _fold_values(result, opts)
    out = _cv.cv_interval(values, level, opts["quantile"])
    folds_frame = _folds_frame(result, values, labels, fold_ties, fold_group) if opts["return_folds"] else None
    return {"lower": out["lower"], "upper": out["upper"], "se": out["se"], "folds": out["folds"].astype(np.float64),
            "fold_mean": out["mean"]}, folds_frame


def _folds_frame(result, values, labels, fold_ties, fold_group) -> pl.DataFrame:
    """One row per group, estimator and fold: the fold estimate with its counts."""
    n_pos, n_neg = fold_ties.n_pos, fold_ties.n_neg
    g_rows, e_rows, fold_col, est_col, pos_col, neg_col = [], [], [], [], [], []
    order = np.argsort(fold_group, kind="stable")
    seg_of = {}
    for rank_seg in order:
        seg_of.setdefault(int(fold_group[rank_seg]), []).append(int(rank_seg))
    for g in range(result.n_groups):
        segs = seg_of.get(g, [])
        for j, name in enumerate(result.estimators):
            for pos_in_group, seg in enumerate(segs):
                g_rows.append(g)
                e_rows.append(name)
                fold_col.append(labels[g][pos_in_group])
                est_col.append(values[g, j, pos_in_group])
                pos_col.append(int(n_pos[seg]))
                neg_col.append(int(n_neg[seg]))
    body = pl.DataFrame({
        "estimator": pl.Series(e_rows, dtype=pl.String),
        "fold": pl.Series(fold_col) if fold_col else pl.Series([], dtype=pl.Int64),
        "estimate": pl.Series(est_col, dtype=pl.Float64),
        "n_pos": pl.Series(pos_col, dtype=pl.Int64),
        "n_neg": pl.Series(neg_col, dtype=pl.Int64),
    })
    if result.by:
        return pl.concat([result._key_columns(np.asarray(g_rows, dtype=np.int64)), body], how="horizontal")
    return body


# ------------------------------------------------------------------- notes
def _method_note(method: str, estimate: float, n_pos: int, row: dict) -> str | None:
    if np.isnan(estimate):
        return "no estimate"
    if method == "logit" and estimate in (0.0, 1.0):
        return f"estimate is {estimate:g}: the logit interval is its limit [0, 1]"
    if method == "binomial" and estimate in (0.0, 1.0):
        return f"estimate is {estimate:g}: the binomial interval has zero width"
    if method == "per_positive" and n_pos < 2:
        return "fewer than 2 positives: no per-positive standard error"
    if method == "bootstrap" and row.get("n_boot_requested") and row["n_boot"] < row["n_boot_requested"]:
        return f"{row['n_boot_requested'] - int(row['n_boot'])} replicates gave no estimate and were left out"
    if method == "cross_validation":
        if row["folds"] < 2:
            return "fewer than 2 folds hold both classes: no cross-validation interval"
        if row["folds"] < row["folds_total"]:
            return f"{row['folds_total'] - int(row['folds'])} folds lack a class and were left out"
    return None


# ------------------------------------------------------------------ driver
def pr_conf_int(result, method: str | Sequence[str] = DEFAULT_PR_METHOD, level: float = 0.95, **options: Any):
    """Confidence intervals for every group and estimator of an AUCPR result.

    Parameters
    ----------
    result : AucprResult
    method : str, list of str or "all"
        ``"logit"`` (default), ``"binomial"``, ``"bootstrap"``,
        ``"cross_validation"``, ``"per_positive"``; see ``docs/intervals.md``.
        ``"all"`` is every method (``per_positive`` only when every estimator
        supports it).
    level : float
        Confidence level, strictly between 0 and 1.
    **options
        ``bootstrap``: ``n_boot`` (1000), ``seed`` (None, int or Generator),
        ``chunk_size`` (replicates per chunk; memory bound).
        ``cross_validation``: ``folds`` (10 random stratified folds, or
        ``"column"`` for the fold column given to ``aucpr(..., fold=)``; the
        default when it was given), ``seed``, ``quantile`` (``"t"`` with
        ``k - 1`` degrees of freedom, or ``"normal"``), ``return_folds``
        (also return the per-fold estimates).

    Returns
    -------
    frame
        In the caller's frame type; one row per group, estimator and method.
        Columns: the group keys, ``estimator``, ``estimate``, ``method``,
        ``level``, ``lower``, ``upper``, ``se``; then ``n_boot``,
        ``boot_mean``, ``boot_median`` (bootstrap); ``folds``, ``fold_mean``
        (cross-validation); then ``n_pos``, ``n_neg``, ``note``. Columns of
        methods not asked for are left out; they are null on the rows of the
        other methods. With ``return_folds=True``: a tuple ``(intervals,
        folds)``, the second with one row per group, estimator and fold.

    Raises
    ------
    InputError, InputTypeError
        Unknown method or option, bad level, ``per_positive`` with an estimator
        other than ``average_precision`` or ``threshold_trapezoid``,
        ``folds="column"`` without a fold column.
    """
    methods = _methods_iv(method, result.estimators)
    level = level_iv(level)
    opts = _options_iv(methods, options, result)
    if "per_positive" in methods:
        unsupported = [name for name in result.estimators if name not in PER_POSITIVE_ESTIMATORS]
        if unsupported:
            raise InputError(
                f"method 'per_positive' is defined for estimators {list(PER_POSITIVE_ESTIMATORS)} "
                f"(means of per-positive contributions); got estimator{'s' * (len(unsupported) > 1)} {unsupported}"
            )

    computed: dict[str, dict] = {}
    folds_frame = None
    for m in methods:
        if m in ("binomial", "logit"):
            computed[m] = _closed(result, level, m)
        elif m == "per_positive":
            computed[m] = _per_positive(result, level)
        elif m == "bootstrap":
            computed[m] = _bootstrap(result, level, opts)
        else:
            computed[m], folds_frame = _cross_validation(result, level, opts)

    frame = _assemble(result, methods, computed, level, opts)
    out = _frames.to_caller(frame, result.frame_kind)
    if opts["return_folds"] and "cross_validation" in methods:
        return out, _frames.to_caller(folds_frame, result.frame_kind)
    return out


def _assemble(result, methods: tuple[str, ...], computed: dict, level: float, opts: dict) -> pl.DataFrame:
    n_groups, n_est, n_meth = result.n_groups, len(result.estimators), len(methods)
    g, e, m = (a.ravel() for a in np.indices((n_groups, n_est, n_meth)))
    extra = []
    if "bootstrap" in methods:
        extra += ["n_boot", "boot_mean", "boot_median"]
    if "cross_validation" in methods:
        extra += ["folds", "fold_mean"]
    columns = {key: np.full(g.size, np.nan) for key in ("lower", "upper", "se", *extra)}
    for k, name in enumerate(methods):
        rows = m == k
        for key, values in computed[name].items():
            if key in columns:
                columns[key][rows] = values[g[rows], e[rows]]
    estimate = result.estimates[g, e]
    n_pos, n_neg = result.n_pos[g], result.n_neg[g]
    method_names = np.asarray(methods, dtype=object)[m]
    folds_total = (opts["folds"] if isinstance(opts["folds"], int) else None)
    notes = []
    for i in range(g.size):
        base = result.notes[g[i]]
        if base is not None:
            notes.append(base)
            continue
        row = {key: columns[key][i] for key in extra}
        if method_names[i] == "bootstrap":
            row["n_boot_requested"] = opts["n_boot"]
        if method_names[i] == "cross_validation":
            row["folds_total"] = folds_total if folds_total is not None else _n_column_folds(result, g[i])
        notes.append(_method_note(method_names[i], float(estimate[i]), int(n_pos[i]), row))

    body: dict[str, pl.Series] = {
        "estimator": pl.Series(np.asarray(result.estimators, dtype=object)[e].tolist(), dtype=pl.String),
        "estimate": pl.Series(estimate, dtype=pl.Float64),
        "method": pl.Series(method_names.tolist(), dtype=pl.String),
        "level": pl.Series(np.full(g.size, level), dtype=pl.Float64),
        "lower": pl.Series(columns["lower"], dtype=pl.Float64),
        "upper": pl.Series(columns["upper"], dtype=pl.Float64),
        "se": pl.Series(columns["se"], dtype=pl.Float64),
    }
    for key in extra:
        values = columns[key]
        present = _present(method_names, key)
        if key in ("n_boot", "folds"):
            series = pl.Series(np.where(present, values, 0).astype(np.int64), dtype=pl.Int64)
        else:
            series = pl.Series(values, dtype=pl.Float64)
        body[key] = _mask(series, present)
    body["n_pos"] = pl.Series(n_pos, dtype=pl.Int64)
    body["n_neg"] = pl.Series(n_neg, dtype=pl.Int64)
    body["note"] = pl.Series(notes, dtype=pl.String)
    frame = pl.DataFrame(body)
    if result.by:
        frame = pl.concat([result._key_columns(g.astype(np.int64)), frame], how="horizontal")
    return frame


def _present(method_names: np.ndarray, key: str) -> np.ndarray:
    owner = "bootstrap" if key in ("n_boot", "boot_mean", "boot_median") else "cross_validation"
    return method_names == owner


def _mask(series: pl.Series, present: np.ndarray) -> pl.Series:
    """Null where the column does not belong to the row's method."""
    return series.scatter(np.flatnonzero(~present), None)


def _n_column_folds(result, group: int) -> int:
    return int(np.sum(result.folds.group == group))


def fold_estimates(result, folds: int | str | None = None, seed=None):
    """Per-fold estimates of every group and estimator, as a frame in the caller's type.

    The same folds as ``result.conf_int(method="cross_validation", folds=...,
    seed=...)``: one row per group, estimator and fold, with columns the group
    keys, ``estimator``, ``fold``, ``estimate``, ``n_pos``, ``n_neg``.
    """
    opts = _options_iv(("cross_validation",), {"folds": folds, "seed": seed}, result)
    opts["return_folds"] = True
    _, folds_frame = _cross_validation(result, 0.95, opts)
    return _frames.to_caller(folds_frame, result.frame_kind)
