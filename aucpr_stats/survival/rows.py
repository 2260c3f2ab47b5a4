"""The rows of a time-to-event call: read once through the one detection, checked, and put in canonical order.

A censoring-weighted area needs the rows themselves: a row's weight at a
horizon depends on its own time and on a Kaplan-Meier fit of everybody's
censoring, and the influence of one row reaches every other row's weight.
The needed columns are collected (an engine runs the selection; narwhals
reads every input), checked with messages naming the column, the problem
and how many rows, and sorted by group, censoring stratum, time, event,
scores and weight: rows equal in all of these are interchangeable, so every
number (the bootstrap's too) is the same whatever the caller's row order.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv, columns_exist, names_iv, scores_iv, shown
from ..exceptions import InputError, InputTypeError, MissingValueError, OutcomeError
from ..ingest.row_columns import cluster_codes, group_codes, plural, row_numbers, weight_column
from ..ingest.source import detect

__all__ = ["SurvivalRows", "read_survival_rows"]


@attrs.frozen(eq=False)
class SurvivalRows:
    """The usable rows of a time-to-event call, in canonical order.

    Attributes
    ----------
    keys : polars.DataFrame
        One row per group (the ``by`` columns), sorted; one empty-keyed row when ungrouped.
    by : tuple of str
    score_names : tuple of str
        The score columns (``direction="lower"`` negates them on reading).
    group : ndarray of int64, shape (n,)
        Each row's group (a row of ``keys``).
    cell : ndarray of int64, shape (n,)
        Each row's censoring cell: its group, or its group and censoring stratum
        (the Kaplan-Meier fit of the censoring is made within each cell).
    time : ndarray of float64, shape (n,)
    event : ndarray of bool, shape (n,)
    scores : ndarray of float64, shape (n_scores, n)
    weights : ndarray of float64, shape (n,), or None
    cluster : ndarray of int64, shape (n,), or None
        Cluster codes, unique across groups.
    n_missing : ndarray of int64, shape (n_groups,)
    output : object
        The caller's frame type (:class:`aucpr_stats._frames.Output`).
    time_name, event_name : str
    """

    keys: pl.DataFrame
    by: tuple[str, ...]
    score_names: tuple[str, ...]
    group: np.ndarray
    cell: np.ndarray
    time: np.ndarray
    event: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    cluster: np.ndarray | None
    n_missing: np.ndarray
    output: Any
    time_name: str
    event_name: str

    @property
    def n_groups(self) -> int:
        return self.keys.height if self.by else 1

    @property
    def n_scores(self) -> int:
        return len(self.score_names)

    @property
    def unit_weights(self) -> np.ndarray:
        """The caller's weights, or ones."""
        return np.ones(self.time.size) if self.weights is None else self.weights

    def group_bounds(self) -> np.ndarray:
        """Row offsets of the groups (rows are sorted by group), shape (n_groups + 1,)."""
        return np.searchsorted(self.group, np.arange(self.n_groups + 1))

    def take_groups(self, first: int, last: int) -> "SurvivalRows":
        """The rows of groups ``first`` .. ``last - 1`` alone, renumbered from 0."""
        bounds = self.group_bounds()
        a, b = int(bounds[first]), int(bounds[last])
        cell = self.cell[a:b]
        cluster = None if self.cluster is None else self.cluster[a:b]
        return attrs.evolve(
            self, keys=self.keys[first:last] if self.by else self.keys, group=self.group[a:b] - first,
            cell=cell - (cell.min() if cell.size else 0), time=self.time[a:b], event=self.event[a:b],
            scores=self.scores[:, a:b], weights=None if self.weights is None else self.weights[a:b],
            cluster=None if cluster is None else cluster - (cluster.min() if cluster.size else 0),
            n_missing=self.n_missing[first:last])


def _numeric(frame: pl.DataFrame, column: str, role: str) -> np.ndarray:
    dtype = frame.schema[column]
    if not (dtype.is_numeric() or dtype == pl.Boolean):
        raise InputTypeError(f"{role} column {column!r} must be numeric; it holds {dtype}")
    return frame.get_column(column).cast(pl.Float64).fill_null(np.nan).to_numpy()


def _event_codes(frame: pl.DataFrame, column: str) -> np.ndarray:
    """The event indicator as 1.0 / 0.0 (NaN where missing); other codes refused, competing risks named."""
    values = _numeric(frame, column, "event")
    present = values[~np.isnan(values)]
    odd = ~np.isin(present, (0.0, 1.0))
    if odd.any():
        codes = np.unique(present[odd])
        risk = " (a competing-risk code? cause-specific areas are not offered: recode the event of interest " \
               "as 1 and every other outcome, competing events included, as 0 only if that is the estimand " \
               "you want)" if np.all((codes == np.round(codes)) & (codes >= 2)) else ""
        raise OutcomeError(f"event column {column!r} must be 0 (censored) or 1 (event); it holds "
                           f"{plural(int(odd.sum()), 'row')} coded {shown(codes[:5].tolist())}{risk}")
    return values


def read_survival_rows(data: Any, time: Any, event: Any, score: Any, by: Any, *, weights: Any = None,
                       cluster: Any = None, censoring_strata: Any = None, missing: str = "error",
                       direction: str = "higher") -> SurvivalRows:
    """Read, check and order the rows of a time-to-event call (see the module docstring).

    Raises
    ------
    ColumnNotFoundError, InputTypeError, MissingValueError, OutcomeError, InputError
        Each naming the column, the problem and the number of rows.
    """
    missing = choice_iv(missing, "missing", ("error", "drop"))
    direction = choice_iv(direction, "direction", ("higher", "lower"))
    for name, value in (("time", time), ("event", event)):
        if not isinstance(value, str):
            raise InputError(f"`{name}` must be one column name; got {shown(value)}")
    scores_given = scores_iv(score)
    score_names = (scores_given,) if isinstance(scores_given, str) else tuple(scores_given)
    by = names_iv(by, "by")
    source = detect(data)
    extra = {"weights": names_iv(weights, "weights"), "cluster": names_iv(cluster, "cluster"),
             "censoring_strata": names_iv(censoring_strata, "censoring_strata")}
    columns_exist(source.columns, {"time": [time], "event": [event], "score": score_names, "by": by, **extra})
    needed = list(dict.fromkeys([time, event, *score_names, *by, *extra["weights"], *extra["cluster"],
                                 *extra["censoring_strata"]]))
    frame = source.engine.collect([source.frame(needed, keys=by).select(needed)])[0]
    if frame.height == 0:
        raise InputError("`data` has no rows")
    t = _numeric(frame, time, "time")
    d = _event_codes(frame, event)
    s = np.stack([_numeric(frame, c, "score") for c in score_names])
    w = weight_column(frame, extra["weights"])
    bad = _missing_rows([(time, np.isnan(t)), (event, np.isnan(d))]
                        + [(c, np.isnan(s[m])) for m, c in enumerate(score_names)]
                        + ([(extra["weights"][0], np.isnan(w))] if w is not None else []), missing)
    _refuse(t, s, score_names, time, bad)
    keys, group = group_codes(frame, by)
    n_groups = keys.height if by else 1
    n_missing = np.bincount(group[bad], minlength=n_groups) if bad.any() else np.zeros(n_groups, np.int64)
    rows = np.flatnonzero(~bad)
    strata = _strata(frame, extra["censoring_strata"], group, rows)
    order = _canonical(group[rows], strata, t[rows], d[rows], s[:, rows], None if w is None else w[rows])
    rows = rows[order]
    cells = pl.DataFrame({"g": group[rows], "s": strata[order]})
    cell = cells.select(pl.struct("g", "s").rank("dense")).to_series().to_numpy().astype(np.int64) - 1
    if direction == "lower":
        s = -s
    w = None if w is None else _rescaled(w[rows], group[rows])
    return SurvivalRows(keys=keys, by=by, score_names=score_names, group=group[rows], cell=cell, time=t[rows],
                        event=d[rows] == 1.0, scores=np.ascontiguousarray(s[:, rows]),
                        weights=w,
                        cluster=cluster_codes(frame, extra["cluster"], group, rows),
                        n_missing=n_missing.astype(np.int64), output=source.output, time_name=time,
                        event_name=event)


def _rescaled(w: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Weights divided by a power of two near each group's largest: the numbers do not depend on their scale.

    Every statistic is invariant to multiplying a group's weights by one
    constant; a power of two changes no bit of them, and keeps products of
    weights (pairs of a case and a control) far from overflow and underflow.
    """
    largest = np.zeros(int(group.max(initial=-1)) + 1)
    np.maximum.at(largest, group, w)
    exponent = np.where(largest > 0, np.frexp(np.where(largest > 0, largest, 1.0))[1], 0)
    return np.ldexp(w, -exponent[group])


def _missing_rows(checks: Sequence[tuple[str, np.ndarray]], missing: str) -> np.ndarray:
    bad = np.zeros(checks[0][1].size, dtype=bool)
    for column, mask in checks:
        if missing == "error" and mask.any():
            raise MissingValueError(f"column {column!r} holds {plural(int(mask.sum()), 'missing value')} (rows "
                                    f"{row_numbers(mask)}); drop them first or pass missing='drop' (they are then "
                                    "counted per group in `n_missing`)")
        bad |= mask
    return bad


def _refuse(t: np.ndarray, s: np.ndarray, score_names: Sequence[str], time: str, bad: np.ndarray) -> None:
    """Negative or infinite times and infinite scores (missing ones were dealt with)."""
    wrong = ~bad & ((t < 0) | np.isinf(t))
    if wrong.any():
        raise InputError(f"time column {time!r} holds {plural(int(wrong.sum()), 'negative or infinite value')} "
                         f"(rows {row_numbers(wrong)}); times must be finite and >= 0")
    for m, column in enumerate(score_names):
        infinite = ~bad & np.isinf(s[m])
        if infinite.any():
            raise InputError(f"score column {column!r} holds {plural(int(infinite.sum()), 'infinite value')} "
                             f"(rows {row_numbers(infinite)}); scores must be finite")


def _strata(frame: pl.DataFrame, column: Sequence[str], group: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each usable row's censoring stratum within its group (zeros without ``censoring_strata=``)."""
    codes = cluster_codes(frame, column, group, rows, what="censoring stratum")
    return np.zeros(rows.size, dtype=np.int64) if codes is None else codes


def _canonical(group, strata, t, d, s, w) -> np.ndarray:
    """Rows by group, stratum, time, event, scores and weight: an order independent of the caller's."""
    columns = {"g": group, "c": strata, "t": t, "d": d, **{f"s{m}": v for m, v in enumerate(s)}}
    if w is not None:
        columns["w"] = w
    return pl.DataFrame(columns).select(pl.arg_sort_by(list(columns))).to_series().to_numpy()
