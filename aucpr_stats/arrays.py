"""Array entry points for scikit-learn users: ``aucpr_score(y_true, y_score)`` and ``auroc_score(y_true, y_score)``.

They take array-likes, as ``sklearn.metrics.average_precision_score`` and
``roc_auc_score`` do, and return the same result objects as
:func:`aucpr_stats.aucpr` and :func:`aucpr_stats.auroc` (``.estimate``,
``.conf_int()``, ``.summary()``, ``.to_frame()`` as polars), so intervals and
tables are one method call away. ``groups=`` gives one estimate per group.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .api import aucpr, auroc
from .exceptions import InputError, InputTypeError
from .results import AucprResult, AurocResult

__all__ = ["aucpr_score", "auroc_score"]


def _column(values: Any, argument: str) -> np.ndarray:
    if isinstance(values, (str, bytes)) or values is None or np.ndim(values) == 0:
        raise InputTypeError(f"`{argument}` must be a 1-D array-like; got {type(values).__name__}")
    array = np.asarray(values)
    if array.ndim == 2 and 1 in array.shape:
        array = array.ravel()
    if array.ndim != 1:
        raise InputError(f"`{argument}` must be 1-D; got an array of shape {array.shape}")
    return array


def _frame(y_true: Any, y_score: Any, groups: Any, sample_weight: Any = None,
           clusters: Any = None) -> tuple[pl.DataFrame, str | None, dict]:
    columns = {"y_true": _column(y_true, "y_true"), "y_score": _column(y_score, "y_score")}
    if groups is not None:
        columns["group"] = _column(groups, "groups")
    design = {}
    if sample_weight is not None:
        columns["sample_weight"] = _column(sample_weight, "sample_weight")
        design["weights"] = "sample_weight"
    if clusters is not None:
        columns["cluster"] = _column(clusters, "clusters")
        design["cluster"] = "cluster"
    lengths = {name: len(values) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise InputError(f"the arrays must have one length; got {lengths}")
    try:
        frame = pl.DataFrame({name: pl.Series(name, values) for name, values in columns.items()})
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        raise InputTypeError(f"`y_true`, `y_score` and `groups` must hold numbers, booleans or labels: {exc}") from None
    return frame, ("group" if groups is not None else None), design


def aucpr_score(y_true: Any, y_score: Any, *, groups: Any = None, sample_weight: Any = None,
                clusters: Any = None, **options: Any) -> AucprResult:
    """AUCPR of scores against a binary truth, from arrays (the scikit-learn calling convention).

    Parameters
    ----------
    y_true : array-like, shape (n,)
        The outcome: booleans, 0/1, or labels with ``positive=``.
    y_score : array-like, shape (n,)
        Scores, larger meaning more likely positive (``direction="lower"``
        for the other way round).
    groups : array-like, shape (n,), optional
        A group label per row: one estimate per group (key column ``group``).
    sample_weight : array-like, shape (n,), optional
        Case weights (``weights=`` of :func:`aucpr_stats.aucpr`; average
        precision equals scikit-learn's with the same ``sample_weight``).
    clusters : array-like, shape (n,), optional
        A cluster id per row (``cluster=``): intervals resample whole clusters.
    **options
        Any keyword argument of :func:`aucpr_stats.aucpr` (``estimator``,
        ``positive``, ``negative``, ``missing``, ``ties``, ``direction``,
        ``prevalence``).

    Returns
    -------
    AucprResult

    Examples
    --------
    >>> from aucpr_stats.arrays import aucpr_score
    >>> round(aucpr_score([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.2, 0.1], estimator="average_precision").estimate, 4)
    0.7556
    """
    frame, by, design = _frame(y_true, y_score, groups, sample_weight, clusters)
    return aucpr(frame, "y_true", "y_score", by, **design, **options)


def auroc_score(y_true: Any, y_score: Any, *, groups: Any = None, sample_weight: Any = None,
                clusters: Any = None, **options: Any) -> AurocResult:
    """ROC AUC (A', ties counted one half) from arrays; the options of :func:`aucpr_stats.auroc`.

    ``sample_weight`` and ``clusters`` as in :func:`aucpr_score` (the AUC equals
    scikit-learn's ``roc_auc_score`` with the same ``sample_weight``).

    Examples
    --------
    >>> from aucpr_stats.arrays import auroc_score
    >>> auroc_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]).estimate
    0.75
    """
    frame, by, design = _frame(y_true, y_score, groups, sample_weight, clusters)
    return auroc(frame, "y_true", "y_score", by, **design, **options)
