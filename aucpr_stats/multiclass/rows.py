"""The rows of a multiclass call: read once through the one detection, checked, and numbered by group.

The areas of different classes share rows (a row is a positive of its own
class and a negative of every other), so their covariance and a joint
bootstrap need the rows themselves, not one tie table per area: the columns
needed are collected (an engine runs the selection; narwhals reads every
input), checked with messages that name the column, the problem and how
many rows, and handed to :mod:`aucpr_stats.tables.multiclass`, which makes
the tie tables.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv, columns_exist, names_iv, shown
from ..exceptions import InputError, InputTypeError, MissingValueError, OutcomeError
from ..ingest.row_columns import cluster_codes, group_codes, row_numbers, weight_column
from ..ingest.source import detect
from .spec import Models, declared_levels, level_text, score_columns

__all__ = ["Rows", "read_rows", "MAX_CLASSES"]

#: The most classes an outcome may have (beyond it, an id column was probably given as the outcome).
MAX_CLASSES = 100


@attrs.frozen(eq=False)
class Rows:
    """The usable rows of a multiclass call, numbered by group.

    Attributes
    ----------
    keys : polars.DataFrame
        One row per group (the ``by`` columns), sorted; one empty-keyed row when ungrouped.
    by : tuple of str
    group : ndarray of int64, shape (n,)
        Each row's group (a row of ``keys``); rows are sorted by group.
    y : ndarray of int64, shape (n,)
        Each row's class, an index into ``levels``.
    scores : ndarray of float64, shape (n_models, n_levels, n)
        ``scores[m, k]``: model ``m``'s score for class ``k``.
    weights : ndarray of float64, shape (n,), or None
    cluster : ndarray of int64, shape (n,), or None
        Cluster codes, unique across groups.
    levels : tuple
    models : Models
    n_missing : ndarray of int64, shape (n_groups,)
        Rows dropped per group (``missing="drop"``).
    off_simplex : ndarray of int64, shape (n_models, n_groups)
        Rows whose scores are not probabilities summing to 1 (to 1e-6).
    output : object
        The caller's frame type (:class:`aucpr_stats._frames.Output`).
    """

    keys: pl.DataFrame
    by: tuple[str, ...]
    group: np.ndarray
    y: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    cluster: np.ndarray | None
    levels: tuple
    models: Models
    n_missing: np.ndarray
    off_simplex: np.ndarray
    output: Any

    @property
    def n_groups(self) -> int:
        return self.keys.height if self.by else 1

    @property
    def n_levels(self) -> int:
        return len(self.levels)

    def canonical_order(self) -> np.ndarray:
        """The rows by group, class, then every score and weight: an order that does not depend on the caller's.

        Rows equal in all of these are interchangeable, so the bootstrap, which
        draws in this order, gives the same numbers whatever the input's row order.
        """
        columns = {"group": self.group, "y": self.y}
        columns.update({f"s{i}": s for i, s in enumerate(self.scores.reshape(-1, self.y.size))})
        if self.weights is not None:
            columns["w"] = self.weights
        return pl.DataFrame(columns).select(pl.arg_sort_by(list(columns))).to_series().to_numpy()

    def class_counts(self) -> np.ndarray:
        """Rows of each class in each group, shape (n_groups, n_levels) (weights not applied)."""
        counts = np.zeros((self.n_groups, self.n_levels), dtype=np.int64)
        np.add.at(counts, (self.group, self.y), 1)
        return counts

    def class_weights(self) -> np.ndarray:
        """The weight of each class in each group (the row counts when unweighted)."""
        if self.weights is None:
            return self.class_counts().astype(np.float64)
        totals = np.zeros((self.n_groups, self.n_levels))
        np.add.at(totals, (self.group, self.y), self.weights)
        return totals


def _has_column(score: Any, level: Any, columns: Sequence[str]) -> bool:
    """Whether every template of ``score`` names an existing column for ``level``."""
    templates = [score] if isinstance(score, str) else list(score.values()) if isinstance(score, dict) else score
    names = [t.replace("{level}", level_text(level)) for t in templates if isinstance(t, str) and "{level}" in t]
    return bool(names) and all(n in columns for n in names)


def _levels(frame: pl.DataFrame, outcome: str, score: Any, columns: Sequence[str] = ()) -> tuple:
    """The outcome's levels: a dict's keys in its order, an Enum's declared order, else sorted values.

    A declared level without rows stays (its rows then say it has none) when
    the templates name a column for it, and is left out otherwise.
    """
    series = frame.get_column(outcome)
    present = series.drop_nulls()
    if present.dtype.is_float():
        present = present.filter(~present.is_nan())
    values = present.unique().to_list()
    declared = declared_levels(score)
    if declared is not None:
        pass
    elif isinstance(series.dtype, pl.Enum):  # declared levels without rows are kept if they have a column
        declared = [v for v in series.dtype.categories if v in values or _has_column(score, v, columns)]
    else:
        try:
            declared = sorted(values)
        except TypeError:
            raise InputTypeError(f"outcome column {outcome!r} mixes types that cannot be ordered "
                                 f"({shown(values[:5])}); give score= as a dict to state the levels") from None
    texts = {level_text(v) for v in declared}
    unknown = [v for v in values if v not in declared and level_text(v) not in texts]
    if unknown:
        n = int(series.is_in(unknown).sum())
        raise OutcomeError(f"outcome {outcome!r} holds {n} row{'s' * (int(n) != 1)} of level {unknown[0]!r}, which "
                           f"score= gives no column (it maps {', '.join(map(repr, declared))})")
    if len(declared) < 2:
        raise OutcomeError(f"outcome {outcome!r} has {len(declared)} level{'s' * (int(len(declared)) != 1)} "
                           f"({', '.join(map(repr, declared))}): a multiclass area needs at least two")
    if len(declared) > MAX_CLASSES:
        raise OutcomeError(f"outcome {outcome!r} has {len(declared)} levels, more than {MAX_CLASSES}: is it an "
                           "identifier rather than a class?")
    return tuple(declared)




def _float_matrix(frame: pl.DataFrame, models: Models) -> np.ndarray:
    """The score columns as float64, shape (n_models, n_levels, n); a clear error for a non-numeric one."""
    out = np.empty((len(models.names), len(models.columns[0]), frame.height))
    for m, columns in enumerate(models.columns):
        for k, column in enumerate(columns):
            dtype = frame.schema[column]
            if not (dtype.is_numeric() or dtype == pl.Boolean):
                raise InputTypeError(f"score column {column!r} must be numeric; it holds {dtype}")
            out[m, k] = frame.get_column(column).cast(pl.Float64).fill_null(np.nan).to_numpy()
    return out


def read_rows(data: Any, outcome: str, score: Any, by: Any, *, weights: Any = None, cluster: Any = None,
              missing: str = "error") -> Rows:
    """Read, check and number the rows of a multiclass call (see the module docstring).

    Raises
    ------
    ColumnNotFoundError, InputTypeError, MissingValueError, OutcomeError, InputError
        Each naming the column, the problem and the number of rows.
    """
    missing = choice_iv(missing, "missing", ("error", "drop"))
    by = names_iv(by, "by")
    source = detect(data)
    extra = {"weights": names_iv(weights, "weights"), "cluster": names_iv(cluster, "cluster")}
    columns_exist(source.columns, {"outcome": [outcome], "by": by, **extra})
    keys = (*by, outcome)  # a pandas Categorical outcome keeps its declared levels (a polars Enum)
    lf = source.frame([outcome], keys=keys)
    levels = _levels(source.engine.collect([lf.select(outcome).unique()])[0], outcome, score, source.columns)
    models = score_columns(score, levels)
    columns_exist(source.columns, {"score": models.all_columns})
    needed = [outcome, *models.all_columns, *by, *extra["weights"], *extra["cluster"]]
    frame = source.engine.collect([source.frame(needed, keys=keys).select(list(dict.fromkeys(needed)))])[0]
    if frame.height == 0:
        raise InputError("`data` has no rows")
    scores = _float_matrix(frame, models)
    y = _class_index(frame.get_column(outcome), levels)
    w = weight_column(frame, extra["weights"])
    bad = _missing_rows(frame, outcome, y, scores, models, w, extra["weights"], missing)
    if np.isinf(scores).any():
        m, k = (int(i[0]) for i in np.nonzero(np.isinf(scores).any(axis=2)))
        column = models.columns[m][k]
        rows = np.isinf(scores[m, k])
        raise InputError(f"score column {column!r} holds {int(rows.sum())} infinite value"
                         f"{'s' * (int(rows.sum()) != 1)} (rows {row_numbers(rows)}); scores must be finite")
    keep = ~bad
    keys, group = group_codes(frame, by)
    n_groups = keys.height if by else 1
    n_missing = np.bincount(group[bad], minlength=n_groups) if bad.any() else np.zeros(n_groups, np.int64)
    rows = np.flatnonzero(keep)
    rows = rows[np.argsort(group[rows], kind="stable")]
    cluster = cluster_codes(frame, extra["cluster"], group, rows)
    scores = np.ascontiguousarray(scores[:, :, rows])
    deviation = np.abs(scores.sum(axis=1) - 1.0) > 1e-6
    deviation |= ((scores < 0) | (scores > 1)).any(axis=1)
    off = np.stack([np.bincount(group[rows], weights=d, minlength=n_groups) for d in deviation])
    return Rows(keys=keys, by=by, group=group[rows], y=y[rows], scores=scores,
                weights=None if w is None else w[rows], cluster=cluster, levels=levels, models=models,
                n_missing=n_missing.astype(np.int64), off_simplex=off.astype(np.int64), output=source.output)


def _class_index(series: pl.Series, levels: tuple) -> np.ndarray:
    """Each row's level as an index into ``levels`` (-1 for a missing outcome)."""
    lookup = {level_text(v): k for k, v in enumerate(levels)}
    present = series.drop_nulls().unique()
    if present.dtype.is_float():
        present = present.filter(~present.is_nan())
    old = present.to_list()
    new = [lookup[level_text(v)] for v in old]
    return series.replace_strict(old, new, default=-1, return_dtype=pl.Int64).to_numpy()




def _missing_rows(frame: pl.DataFrame, outcome: str, y: np.ndarray, scores: np.ndarray, models: Models,
                  w: np.ndarray | None, weights: Sequence[str], missing: str) -> np.ndarray:
    """Rows with a missing outcome, score or weight; an error naming the first such column unless dropped."""
    checks = [(outcome, y < 0)]
    checks += [(c, np.isnan(scores[m, k])) for m, cols in enumerate(models.columns) for k, c in enumerate(cols)]
    if w is not None:
        checks.append((weights[0], np.isnan(w)))
    bad = np.zeros(frame.height, dtype=bool)
    for column, mask in checks:
        if missing == "error" and mask.any():
            raise MissingValueError(f"column {column!r} holds {int(mask.sum())} missing value"
                                    f"{'s' * (int(mask.sum()) != 1)} (rows {row_numbers(mask)}); drop them first or "
                                    "pass missing='drop' (they are then counted per group in `n_missing`)")
        bad |= mask
    return bad



