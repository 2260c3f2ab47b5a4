"""Confidence intervals for the ROC AUC (A'): Hanley-McNeil, DeLong, logit, bootstrap.

Array-level kernels (callable on their own, tested on their own) and
:func:`roc_conf_int`, which assembles the per-group frame for
:meth:`aucpr_stats.results.AurocResult.conf_int`.

=================  ==========================================================
method             interval
=================  ==========================================================
``delong``         A' +/- z SE, SE from DeLong's structural components (1988)
``logit``          the DeLong SE carried to logit(A') by the delta method,
                   back-transformed: always inside (0, 1)
``hanley_mcneil``  A' +/- z SE, SE from Hanley & McNeil (1982) with
                   Q1 = A/(2-A), Q2 = 2A^2/(1+A) (exponential model)
``bootstrap``      stratified bootstrap on tie-table counts, percentile
                   interval; ``se`` is the replicates' standard deviation
=================  ==========================================================

The Wald intervals (``delong``, ``hanley_mcneil``) are not truncated: near
A' = 1 or with few cases they can leave [0, 1], which is reported as is; use
``logit`` (or ``bootstrap``) there.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl
from scipy.special import expit, ndtri

from .. import _frames
from .._ties import TieTable
from .._validate import choice_iv, level_iv
from ..estimators.roc import a_prime, delong_components
from ..exceptions import InputError, InputTypeError

__all__ = [
    "ROC_METHODS",
    "normal_quantile",
    "hanley_mcneil_se",
    "hanley_mcneil_interval",
    "delong_se",
    "delong_interval",
    "logit_interval",
    "bootstrap_interval",
    "roc_conf_int",
]

#: Interval methods of :meth:`AurocResult.conf_int`, in display order.
ROC_METHODS = ("delong", "logit", "hanley_mcneil", "bootstrap")

#: Bootstrap replicates by default (as for AUCPR, :mod:`aucpr_stats.intervals.bootstrap`).
DEFAULT_N_BOOT = 1000


def normal_quantile(level: float) -> float:
    """The two-sided normal critical value ``z`` with ``P(|Z| <= z) = level``."""
    return float(ndtri(0.5 + level / 2.0))


# --------------------------------------------------------------- Hanley-McNeil
def hanley_mcneil_se(auc, n_pos, n_neg) -> np.ndarray:
    r"""Hanley & McNeil (1982) standard error of the ROC AUC.

    .. math::

        SE(A) = \sqrt{\frac{A(1-A) + (n_P - 1)(Q_1 - A^2) + (n_N - 1)(Q_2 - A^2)}{n_P n_N}},
        \qquad Q_1 = \frac{A}{2 - A}, \quad Q_2 = \frac{2A^2}{1 + A}.

    ``Q1`` (two positives both outscore one negative) and ``Q2`` (one positive
    outscores two negatives) come from Hanley & McNeil's exponential model,
    not from the data, so this SE depends on the data only through A and the
    class sizes.

    Parameters
    ----------
    auc, n_pos, n_neg : array_like
        Estimates and class sizes (broadcast together).

    Returns
    -------
    ndarray of float64

    References
    ----------
    Hanley, J. A., McNeil, B. J. (1982). The meaning and use of the area under
    a receiver operating characteristic (ROC) curve. Radiology 143, 29-36,
    Table 2 and Eq. (2).
    """
    a = np.asarray(auc, dtype=np.float64)
    m = np.asarray(n_pos, dtype=np.float64)
    n = np.asarray(n_neg, dtype=np.float64)
    q1 = a / (2.0 - a)
    q2 = 2.0 * a * a / (1.0 + a)
    a2 = a * a
    var = (a * (1.0 - a) + (m - 1.0) * (q1 - a2) + (n - 1.0) * (q2 - a2)) / (m * n)
    # Q1 - A^2 and Q2 - A^2 are >= 0 on [0, 1]; clip the rounding at A = 0 or 1
    return np.sqrt(np.maximum(var, 0.0))


def hanley_mcneil_interval(auc, n_pos, n_neg, level: float = 0.95):
    """Wald interval ``A +/- z SE`` with the Hanley-McNeil SE; returns (lower, upper, se)."""
    se = hanley_mcneil_se(auc, n_pos, n_neg)
    z = normal_quantile(level)
    auc = np.asarray(auc, dtype=np.float64)
    return auc - z * se, auc + z * se, se


# ---------------------------------------------------------------------- DeLong
def delong_se(ties: TieTable) -> tuple[np.ndarray, np.ndarray]:
    r"""A' and its DeLong standard error, per segment.

    :math:`SE = \sqrt{S_{10}/n_P + S_{01}/n_N}` with the structural-component
    variances of :func:`aucpr_stats.estimators.roc.delong_components`
    (DeLong, DeLong & Clarke-Pearson 1988). NaN when a segment has fewer than
    two positives or two negatives.

    Returns
    -------
    auc, se : ndarray of float64, shape (n_segments,)
    """
    auc, s10, s01 = delong_components(ties)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(s10 / ties.n_pos + s01 / ties.n_neg)
    return auc, se


def delong_interval(ties: TieTable, level: float = 0.95):
    """Wald interval ``A' +/- z SE`` with the DeLong SE; returns (lower, upper, se)."""
    auc, se = delong_se(ties)
    z = normal_quantile(level)
    return auc - z * se, auc + z * se, se


def logit_interval(auc, se, level: float = 0.95):
    r"""Interval on the logit scale, back-transformed; returns (lower, upper, se).

    By the delta method, :math:`SE(\operatorname{logit} A) = SE(A) / (A(1-A))`,
    and the interval :math:`\operatorname{expit}(\operatorname{logit} A \pm z\,
    SE(\operatorname{logit} A))` lies inside (0, 1). Undefined (NaN) when A is 0
    or 1. The returned ``se`` is the input SE on the AUC scale.
    """
    a = np.asarray(auc, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    inside = (a > 0.0) & (a < 1.0)
    safe = np.where(inside, a, 0.5)
    centre = np.log(safe) - np.log1p(-safe)
    se_logit = se / (safe * (1.0 - safe))
    z = normal_quantile(level)
    lower = np.where(inside, _expit(centre - z * se_logit), np.nan)
    upper = np.where(inside, _expit(centre + z * se_logit), np.nan)
    return lower, upper, se


def _expit(x: np.ndarray) -> np.ndarray:
    return expit(x)


# ------------------------------------------------------------------- bootstrap
def bootstrap_interval(ties: TieTable, level: float = 0.95, n_boot: int = DEFAULT_N_BOOT, seed=None):
    """Stratified bootstrap percentile interval of A'; returns (lower, upper, se).

    Each replicate redraws the positive counts of a segment multinomially from
    its ``n_pos`` positives over the tie rows, and the negatives likewise
    (exactly equivalent to resampling rows within each class, with no re-sort),
    with the shared counts kernel :func:`aucpr_stats.intervals.bootstrap.bootstrap_estimates`.
    The interval is the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of
    the replicates; ``se`` is their standard deviation.
    """
    lower, upper, summary = _bootstrap(ties, level, n_boot, seed)
    return lower, upper, summary["se"]


def _bootstrap(ties: TieTable, level: float, n_boot: int, seed, chunk_size: int | None = None):
    from .bootstrap import bootstrap_estimates, percentile_interval, replicate_summary

    replicates = bootstrap_estimates(ties, a_prime, n_boot=n_boot, seed=seed, chunk_size=chunk_size)
    lower, upper = percentile_interval(replicates, level)
    return lower, upper, replicate_summary(replicates)


# -------------------------------------------------------- assembly per group
def _methods_iv(method: Any) -> tuple[str, ...]:
    if isinstance(method, str):
        methods: Sequence[Any] = list(ROC_METHODS) if method == "all" else [method]
    elif isinstance(method, (list, tuple)) and method:
        methods = method
    else:
        raise InputTypeError(
            f"`method` must be one of {list(ROC_METHODS)}, a list of them or 'all'; got {method!r}"
        )
    return tuple(dict.fromkeys(choice_iv(m, "method", ROC_METHODS) for m in methods))


def _options_iv(methods: tuple[str, ...], options: dict) -> dict:
    allowed = {"n_boot", "seed", "chunk_size"} if "bootstrap" in methods else set()
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise InputError(
            f"unknown option{'s' * (len(unknown) > 1)} {unknown} for `method`={list(methods)}; "
            f"accepted: {sorted(allowed) or 'none'}"
        )
    n_boot = options.get("n_boot", DEFAULT_N_BOOT)
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)):
        raise InputTypeError(f"`n_boot` must be an integer; got {n_boot!r}")
    if n_boot < 2:
        raise InputError(f"`n_boot` must be at least 2; got {n_boot}")
    chunk_size = options.get("chunk_size")
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer))
                                   or chunk_size < 1):
        raise InputError(f"`chunk_size` must be a positive integer or None; got {chunk_size!r}")
    return {"n_boot": int(n_boot), "seed": options.get("seed"), "chunk_size": chunk_size}


def _method_notes(method: str, n_pos: np.ndarray, n_neg: np.ndarray, auc: np.ndarray, lower: np.ndarray) -> list:
    notes: list[str | None] = [None] * auc.size
    for i in np.flatnonzero(np.isnan(lower) & ~np.isnan(auc)):
        if method in ("delong", "logit") and (n_pos[i] < 2 or n_neg[i] < 2):
            notes[i] = "DeLong variance needs >= 2 positives and >= 2 negatives"
        elif method == "logit":
            notes[i] = "estimate is 0 or 1: logit interval undefined"
    return notes


def roc_conf_int(result, method: str | Sequence[str] = "delong", level: float = 0.95, **options: Any):
    """Confidence intervals of an :class:`~aucpr_stats.results.AurocResult`, per group.

    Parameters
    ----------
    result : AurocResult
    method : str or list of str
        ``"delong"`` (default), ``"logit"``, ``"hanley_mcneil"``,
        ``"bootstrap"``, a list of them, or ``"all"``.
    level : float
        Confidence level, strictly between 0 and 1.
    n_boot : int, default 1000
        Bootstrap replicates (``"bootstrap"`` only).
    seed : int, numpy Generator or None
        Randomness for ``"bootstrap"``; the same seed gives the same interval.
    chunk_size : int, optional
        Bootstrap replicates per chunk (memory bound), see
        :func:`aucpr_stats.intervals.bootstrap.iter_replicates`.

    Returns
    -------
    DataFrame (the caller's type)
        One row per group, estimator and method (in that order), with the
        columns of the AUCPR intervals: the group keys, ``estimator``,
        ``estimate``, ``method``, ``level``, ``lower``, ``upper``, ``se``;
        then ``n_boot``, ``boot_mean``, ``boot_median`` when ``"bootstrap"``
        is asked for (null on the other methods' rows); then ``n_pos``,
        ``n_neg``, ``note`` (why an interval is NaN).

    References
    ----------
    Hanley & McNeil (1982); DeLong, DeLong & Clarke-Pearson (1988), Biometrics
    44, 837-845.
    """
    methods = _methods_iv(method)
    level = level_iv(level)
    opts = _options_iv(methods, options)
    ties = result.ties
    n_groups, n_pos, n_neg = result.n_groups, ties.n_pos, ties.n_neg
    usable = (n_pos > 0) & (n_neg > 0)
    sub = ties if usable.all() else ties.take(np.flatnonzero(usable))
    auc = np.full(n_groups, np.nan)
    se_delong = np.full(n_groups, np.nan)
    if usable.any():
        auc[usable], se_delong[usable] = delong_se(sub)
    z = normal_quantile(level)

    # per method: lower, upper, se (and the bootstrap summary), one entry per group
    computed: dict[str, dict] = {}
    for name in methods:
        if name == "delong":
            out = {"lower": auc - z * se_delong, "upper": auc + z * se_delong, "se": se_delong}
        elif name == "logit":
            lower, upper, se = logit_interval(auc, se_delong, level)
            out = {"lower": lower, "upper": upper, "se": se}
        elif name == "hanley_mcneil":
            lower, upper, se = hanley_mcneil_interval(auc, n_pos, n_neg, level)
            out = {"lower": lower, "upper": upper, "se": se}
        else:
            out = {key: np.full(n_groups, np.nan) for key in ("lower", "upper", "se", "n_boot", "boot_mean", "boot_median")}
            out["n_boot"][:] = 0
            if usable.any():
                lower, upper, summary = _bootstrap(sub, level, opts["n_boot"], opts["seed"], opts["chunk_size"])
                out["lower"][usable], out["upper"][usable] = lower, upper
                for key in ("se", "n_boot", "boot_mean", "boot_median"):
                    out[key][usable] = summary[key]
        computed[name] = out
    return _frames.to_caller(_assemble(result, methods, computed, auc, level), result.frame_kind)


def _assemble(result, methods, computed, auc, level) -> pl.DataFrame:
    """Rows group-major, then estimator, then method; the columns of the AUCPR intervals."""
    n_groups, n_est, n_meth = result.n_groups, len(result.estimators), len(methods)
    g, e, m = (a.ravel() for a in np.indices((n_groups, n_est, n_meth)))
    method_names = np.asarray(methods, dtype=object)[m]
    n_pos, n_neg = result.n_pos, result.n_neg
    notes_by_method = {name: _method_notes(name, n_pos, n_neg, auc, computed[name]["lower"]) for name in methods}
    notes = [result.notes[gi] if result.notes[gi] is not None else notes_by_method[mi][gi]
             for gi, mi in zip(g, method_names)]

    def column(key):
        values = np.full(g.size, np.nan)
        for k, name in enumerate(methods):
            rows = m == k
            if key in computed[name]:
                values[rows] = computed[name][key][g[rows]]
        return values

    body = {
        "estimator": pl.Series(np.asarray(result.estimators, dtype=object)[e].tolist(), dtype=pl.String),
        "estimate": pl.Series(result.estimates[g, e], dtype=pl.Float64),
        "method": pl.Series(method_names.tolist(), dtype=pl.String),
        "level": pl.Series(np.full(g.size, level), dtype=pl.Float64),
        "lower": pl.Series(column("lower"), dtype=pl.Float64),
        "upper": pl.Series(column("upper"), dtype=pl.Float64),
        "se": pl.Series(column("se"), dtype=pl.Float64),
    }
    if "bootstrap" in methods:
        absent = np.flatnonzero(method_names != "bootstrap")
        body["n_boot"] = pl.Series(np.nan_to_num(column("n_boot")).astype(np.int64)).scatter(absent, None)
        for key in ("boot_mean", "boot_median"):
            body[key] = pl.Series(column(key), dtype=pl.Float64).scatter(absent, None)
    body["n_pos"] = pl.Series(n_pos[g], dtype=pl.Int64)
    body["n_neg"] = pl.Series(n_neg[g], dtype=pl.Int64)
    body["note"] = pl.Series(notes, dtype=pl.String)
    frame = pl.DataFrame(body)
    if result.by:
        frame = pl.concat([result._key_columns(g.astype(np.int64)), frame], how="horizontal")
    return frame
