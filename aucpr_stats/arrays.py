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

#: The column arguments of the frame entry points, and the array arguments that stand for them here.
_ARRAY_NAMES = {"by": "groups", "weights": "sample_weight", "cluster": "clusters", "data": "y_true and y_score",
                "outcome": "y_true", "score": "y_score"}


def _options_iv(options: dict, function: str) -> None:
    """Refuse a column argument of the frame entry points: here the data are arrays."""
    for name, instead in _ARRAY_NAMES.items():
        if name in options:
            raise InputError(f"`{name}` is a column name of {function}(); {function}_score takes the arrays "
                             f"themselves: pass `{instead}=`")


def _column(values: Any, argument: str) -> np.ndarray:
    if isinstance(values, (str, bytes)) or values is None or np.ndim(values) == 0:
        raise InputTypeError(f"`{argument}` must be a 1-D array-like; got {type(values).__name__}")
    array = np.asarray(values)
    if array.ndim == 2 and 1 in array.shape:
        array = array.ravel()
    if array.ndim != 1:
        raise InputError(f"`{argument}` must be 1-D; got an array of shape {array.shape}")
    return array


def _groups(groups: Any) -> Any:
    """The group labels; declared levels kept (a polars Enum, a pandas Categorical of text) for ``unused_levels``."""
    if isinstance(groups, pl.Series) and groups.dtype == pl.Enum:
        return groups
    categories = getattr(getattr(groups, "dtype", None), "categories", None)  # a pandas Categorical or Series
    if categories is not None and all(isinstance(c, str) for c in categories):
        labels = _column(np.asarray(groups, dtype=object), "groups")
        return pl.Series("group", labels.tolist(), dtype=pl.Enum(list(categories)))
    return _column(groups, "groups")


def _frame(y_true: Any, y_score: Any, groups: Any, sample_weight: Any = None,
           clusters: Any = None) -> tuple[pl.DataFrame, str | None, dict]:
    columns = {"y_true": _column(y_true, "y_true"), "y_score": _column(y_score, "y_score")}
    if groups is not None:
        columns["group"] = _groups(groups)
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
        frame = pl.DataFrame({name: values.alias(name) if isinstance(values, pl.Series) else pl.Series(name, values)
                              for name, values in columns.items()})
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        raise InputTypeError(f"`y_true`, `y_score` and `groups` must hold numbers, booleans or labels: {exc}") from None
    return frame, ("group" if groups is not None else None), design


def aucpr_score(y_true: Any, y_score: Any, *, groups: Any = None, sample_weight: Any = None,
                clusters: Any = None, positive: Any = None, negative: Any = None, missing: str = "error",
                direction: str = "higher", unused_levels: str = "keep", **options: Any) -> AucprResult:
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
    positive, negative, missing, direction, unused_levels
        As in :func:`aucpr_stats.aucpr` (``unused_levels`` applies to
        ``groups`` given as a pandas Categorical).
    **options
        Any other keyword argument of :func:`aucpr_stats.aucpr`
        (``estimator``, ``ties``, ``prevalence``, ``recall`` ...).

    Returns
    -------
    AucprResult

    Raises
    ------
    InputError
        As :func:`aucpr_stats.aucpr`; and for a column argument of the
        frame entry points (``by``, ``weights``, ``cluster``), which here are
        ``groups``, ``sample_weight`` and ``clusters``.

    Examples
    --------
    >>> from aucpr_stats import aucpr_score
    >>> round(aucpr_score([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.2, 0.1], estimator="average_precision").estimate, 4)
    0.7556
    """
    _options_iv(options, "aucpr")
    frame, by, design = _frame(y_true, y_score, groups, sample_weight, clusters)
    return aucpr(frame, "y_true", "y_score", by, **design, positive=positive, negative=negative, missing=missing,
                 direction=direction, unused_levels=unused_levels, **options)


def auroc_score(y_true: Any, y_score: Any, *, groups: Any = None, sample_weight: Any = None,
                clusters: Any = None, positive: Any = None, negative: Any = None, missing: str = "error",
                direction: str = "higher", unused_levels: str = "keep", **options: Any) -> AurocResult:
    """ROC AUC (A', ties counted one half) from arrays; the options of :func:`aucpr_stats.auroc`.

    ``groups``, ``sample_weight``, ``clusters`` and the data arguments
    (``positive``, ``negative``, ``missing``, ``direction``,
    ``unused_levels``) as in :func:`aucpr_score` (the AUC equals
    scikit-learn's ``roc_auc_score`` with the same ``sample_weight``).

    Examples
    --------
    >>> from aucpr_stats import auroc_score
    >>> auroc_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]).estimate
    0.75
    """
    _options_iv(options, "auroc")
    frame, by, design = _frame(y_true, y_score, groups, sample_weight, clusters)
    return auroc(frame, "y_true", "y_score", by, **design, positive=positive, negative=negative, missing=missing,
                 direction=direction, unused_levels=unused_levels, **options)
