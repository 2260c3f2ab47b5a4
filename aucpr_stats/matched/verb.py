"""``matched_auroc()``: the within-matched-set AUROC of a matched case-control study, and its result.

The data come through the library's front door with the matched set as the
cluster (``cluster=matched_set``): the reader checks the outcome, the scores,
missing values and the set ids once, as for every verb, and hands back one
tie table per (group, set). The kernels of :mod:`.estimate` turn those into
the sets' win counts, the estimate and its variances.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import SCORE_KEY, choice_iv, level_iv, names_or_all_iv, shown
from ..distributions import normal_quantile
from ..exceptions import DegenerateGroupWarning, InputError, InputTypeError, SmallSampleWarning
from ..front_door import open_data
from ..report.display import FramedResult, TabularResult, direction_phrase
from .estimate import (jackknife_variance, matched_estimate, matched_interval, sandwich_variance,
                       table_set_counts)

__all__ = ["matched_auroc", "MatchedAurocResult", "MatchedAurocIntervals", "METHODS"]

#: Interval methods: the variance each takes and the scale of its Wald interval.
METHODS = {"logit": ("sandwich", "logit"), "wald": ("sandwich", "identity"), "jackknife": ("jackknife", "logit")}

_EDGE_NOTE = "estimate of {value:g}: no interval on the logit scale (use method='wald')"
_ONE_SET_NOTE = "fewer than 2 matched sets: no variance between sets"

#: The fewest matched sets the coverage grid validated (benchmarks/matched_coverage_results.md: the logit
#: interval 92.8-97.5% at 30 sets); fewer get a note and a SmallSampleWarning.
MIN_SETS = 30
_FEW_SETS_NOTE = f"fewer than {MIN_SETS} matched sets: the interval's coverage is not validated (docs/matched.md)"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (int(n) != 1)}"


@attrs.frozen(eq=False)
class MatchedAurocIntervals(FramedResult):
    """Intervals of every row of a :class:`MatchedAurocResult` (``.to_frame()``, ``.summary()``)."""


@attrs.frozen(eq=False)
class MatchedAurocResult(TabularResult):
    """The within-matched-set AUROC of every group and score (from :func:`matched_auroc`).

    Attributes
    ----------
    keys : polars.DataFrame
        One row per reported estimate: the ``by`` columns and ``score``.
    estimates : ndarray of float64, shape (n_rows,)
        The share of within-set (case, control) pairs the case wins, ties one half.
    n_sets, n_pos, n_neg, n_dropped : ndarray of int64, shape (n_rows,)
        The usable sets, their cases and controls, and the sets left out
        (no case or no control).
    n_missing : ndarray of int64, shape (n_rows,)
        Rows dropped for a missing outcome or score (``missing="drop"``; also in the note).
    n_pairs : ndarray of float64, shape (n_rows,)
        Within-set pairs, :math:`\\sum_k n_{1k} n_{0k}`.
    notes : tuple
        Per row, what was left out or why there is no estimate (None if nothing).
    wins, pairs : ndarray of float64, shape (n_usable_sets,)
        :math:`U_k` and :math:`P_k` of every usable set.
    set_row : ndarray of int64, shape (n_usable_sets,)
        The row (of ``keys``) of every usable set.
    outcome, matched_set : str
    direction : str
        ``"higher"`` or ``"lower"`` (the scores were read reversed).
    frame_kind : object
        The caller's frame type.
    level : float
        The default level of :meth:`conf_int`.
    """

    keys: pl.DataFrame
    estimates: np.ndarray
    n_sets: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    n_pairs: np.ndarray
    n_dropped: np.ndarray
    n_missing: np.ndarray
    notes: tuple
    wins: np.ndarray
    pairs: np.ndarray
    set_row: np.ndarray
    outcome: str
    matched_set: str
    direction: str
    frame_kind: Any
    level: float = 0.95

    @property
    def by(self) -> tuple[str, ...]:
        """The grouping columns (the key columns before ``score``)."""
        return tuple(c for c in self.keys.columns if c != SCORE_KEY)

    @property
    def estimate(self) -> float:
        """The one estimate of an ungrouped call with one score."""
        if self.keys.height != 1:
            raise InputError(f"`.estimate` is the one value of an ungrouped call with one score; this result has "
                             f"{self.keys.height} rows: use .to_frame()")
        return float(self.estimates[0])

    def to_polars(self) -> pl.DataFrame:
        """One row per group and score: keys, ``estimator``, ``estimate``, counts and ``note``."""
        n = self.keys.height
        values = pl.DataFrame({
            "estimator": ["matched"] * n,
            "estimate": pl.Series(self.estimates, nan_to_null=False),
            "n_sets": self.n_sets.astype(np.int64),
            "n_pos": self.n_pos.astype(np.int64),
            "n_neg": self.n_neg.astype(np.int64),
            "n_pairs": self.n_pairs.astype(np.int64),
            "note": pl.Series(list(self.notes), dtype=pl.String),
        })
        return pl.concat([self.keys, values], how="horizontal")

    def _title(self) -> str:
        return (f"Matched AUROC of {self.outcome} (case-control pairs within each {self.matched_set!r} set)"
                f"{direction_phrase(self.direction)}")

    def variances(self, method: str = "sandwich") -> np.ndarray:
        """Per row: the sandwich (delta-method over sets) or leave-one-set-out jackknife variance."""
        method = choice_iv(method, "method", ("sandwich", "jackknife"))
        kernel = sandwich_variance if method == "sandwich" else jackknife_variance
        return kernel(self.wins, self.pairs, self.set_row, self.keys.height)

    def conf_int(self, method: Any = "logit", level: float | None = None) -> MatchedAurocIntervals:
        """Confidence intervals of every row.

        Parameters
        ----------
        method : {"logit", "wald", "jackknife"}, a list of them, or "all"
            ``"logit"`` (default): the sandwich standard error over sets
            (:func:`~aucpr_stats.matched.estimate.sandwich_variance`), Wald
            interval on the logit scale, inside (0, 1). ``"wald"``: the same
            standard error on the area's own scale, truncated to [0, 1].
            ``"jackknife"``: the leave-one-set-out jackknife standard error,
            Wald interval on the logit scale.
        level : float, optional
            Confidence level; by default the ``level`` given to :func:`matched_auroc` (0.95).

        Returns
        -------
        MatchedAurocIntervals
            ``.to_frame()``: the rows of :meth:`to_frame` with ``method``,
            ``level``, ``lower``, ``upper`` and ``se``. An estimate of 0 or 1
            has no logit interval (NaN, noted); a row with fewer than two
            sets has no variance (NaN, noted).
        """
        methods = names_or_all_iv(method, "method", list(METHODS))
        level = self.level if level is None else level_iv(level)
        frames = [self._interval_frame(m, level) for m in methods]
        few = int(((self.n_sets >= 2) & (self.n_sets < MIN_SETS)).sum())
        if few:
            warnings.warn(f"{few} row(s) with fewer than {MIN_SETS} matched sets: their intervals are not validated "
                          "there; see the `note` column", SmallSampleWarning, stacklevel=2)
        frame = pl.concat(frames, how="vertical")
        title = f"{self._title()}: {level:.0%} intervals"
        return MatchedAurocIntervals(frame=frame, frame_kind=self.frame_kind, title=title)

    def _interval_frame(self, method: str, level: float) -> pl.DataFrame:
        variance, scale = METHODS[method]
        se = np.sqrt(self.variances(variance))
        lower, upper = matched_interval(self.estimates, se, level, scale)
        z = float(normal_quantile(0.5 + level / 2))
        notes = []
        for note, theta, s, k in zip(self.notes, self.estimates, se, self.n_sets):
            extra = _FEW_SETS_NOTE if 2 <= k < MIN_SETS else None
            if np.isfinite(theta) and np.isnan(s):
                extra = _ONE_SET_NOTE
            elif scale == "logit" and theta in (0.0, 1.0):
                extra = "; ".join(n for n in (extra, _EDGE_NOTE.format(value=theta)) if n)
            elif scale == "identity" and np.isfinite(theta) and s == 0:
                extra = "; ".join(n for n in (extra, f"standard error 0 at an estimate of {theta:g}: the interval "
                                                      "is a point") if n)
            elif scale == "identity" and np.isfinite(theta) and (theta - z * s < 0 or theta + z * s > 1):
                extra = "; ".join(n for n in (extra, "Wald bound truncated to [0, 1]") if n)
            notes.append("; ".join(n for n in (note, extra) if n) or None)
        base = self.to_polars().drop("note")
        position = base.columns.index("estimate") + 1
        added = pl.DataFrame({"method": [method] * base.height, "level": [level] * base.height,
                              "lower": lower, "upper": upper, "se": se})
        frame = pl.concat([base.select(base.columns[:position]), added, base.select(base.columns[position:])],
                          how="horizontal")
        return frame.with_columns(pl.Series("note", notes, dtype=pl.String))


def _read(data_or_formula: Any, data: Any, outcome: Any, score: Any, matched_set: Any, by: Any, **arguments: Any):
    """The front door and the reader, with ``cluster=`` spoken of as ``matched_set=`` in messages."""
    try:
        return open_data("matched_auroc", data_or_formula, data, outcome, score, by, cluster=matched_set,
                         stacklevel=3, **arguments)
    except (InputError, InputTypeError) as error:
        text = str(error).replace("`cluster`", "`matched_set`").replace("a cluster", "a matched set")
        text = text.replace("cluster column", "matched_set column")
        if text == str(error):
            raise
        raise type(error)(text) from None


def matched_auroc(data_or_formula: Any = None, /, outcome: Any = None, score: Any = None, matched_set: Any = None,
                  by: Any = None, *, data: Any = None, positive: Any = None, negative: Any = None,
                  missing: str = "error", direction: str = "higher", level: float = 0.95) -> MatchedAurocResult:
    r"""The within-matched-set AUROC of a matched case-control study (1:m or m:n).

    Only the comparisons of a case with the controls of its own matched set
    are informative in a matched design: the estimate is the share of
    within-set (case, control) pairs in which the case scores higher (ties
    count one half), pooled over the sets,
    :math:`\hat\theta = \sum_k U_k / \sum_k n_{1k} n_{0k}`. It estimates the
    **conditional (matched) AUROC**: the probability that a case outscores a
    control with the same matching factors, averaged over the sets (Janes &
    Pepe 2008; in a 1:m design the area under the covariate-adjusted ROC
    curve of Pepe 2003, chapter 6, and Janes & Pepe 2009). It is not the population AUROC of the unmatched marker, which
    matching distorts. See :mod:`aucpr_stats.matched.estimate` for the
    variances (:meth:`MatchedAurocResult.conf_int`).

    Parameters
    ----------
    data_or_formula : frame or str, optional
        The data (pandas, polars, pyarrow, or any input the other verbs
        read), or a formula ``"case ~ score"`` with ``data=``.
    outcome : str
        The case (positive) / control column.
    score : str or list of str
        One or several score columns (one estimate per score).
    matched_set : str
        The column of matched set ids (every row needs one). A set without
        a case or without a control has no within-set pair: it is left out,
        counted in the note, and warned about (:class:`DegenerateGroupWarning`).
    by : str or list of str, optional
        Grouping columns: one estimate per group (sets are read within groups).
    data : frame, optional
        With a formula.
    positive, negative
        The outcome's case and control levels (as for :func:`aucpr_stats.auroc`).
    missing : {"error", "drop"}
        Rows with a missing outcome or score: an error naming the column, or dropped.
    direction : {"higher", "lower"}
        Whether higher or lower scores predict a case.
    level : float
        The default confidence level of :meth:`MatchedAurocResult.conf_int`.

    Returns
    -------
    MatchedAurocResult
        ``.to_frame()`` (keys, ``score``, ``estimator="matched"``,
        ``estimate``, ``n_sets``, ``n_pos``, ``n_neg``, ``n_pairs``, ``note``),
        ``.conf_int(method="logit" | "wald" | "jackknife")``, ``.summary()``.

    Raises
    ------
    InputError, InputTypeError, ColumnNotFoundError, MissingValueError, OutcomeError
        ``matched_set`` not given, a missing set id, a column that is not
        there, a non-numeric score, missing values with ``missing="error"``.

    References
    ----------
    Janes H, Pepe MS (2008). Matching in studies of classification accuracy:
    implications for analysis, efficiency, and assessment of incremental
    value. *Biometrics* 64:1-9.
    Janes H, Pepe MS (2009). Adjusting for covariate effects on classification
    accuracy using the covariate-adjusted receiver operating characteristic
    curve. *Biometrika* 96:371-382.
    Pepe MS (2003). *The Statistical Evaluation of Medical Tests for
    Classification and Prediction*. Oxford University Press, chapter 6.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"set": [1, 1, 1, 2, 2, 2], "case": [1, 0, 0, 1, 0, 0],
    ...                    "marker": [3.0, 1.0, 2.0, 1.0, 2.0, 0.5]})
    >>> result = matched_auroc(df, "case", "marker", matched_set="set")
    >>> result.estimate
    0.75
    """
    if matched_set is None:
        raise InputError("`matched_set` is required: name the column of matched set ids (the strata of the "
                         "matched design)")
    if not isinstance(matched_set, str):
        raise InputTypeError(f"`matched_set` must be one column name; got {shown(matched_set)}")
    direction = choice_iv(direction, "direction", ("higher", "lower"))
    level = level_iv(level)
    request, ingested = _read(data_or_formula, data, outcome, score, matched_set, by, positive=positive,
                              negative=negative, missing=missing, direction=direction)
    keys = ingested.keys.drop("n_missing")
    if SCORE_KEY not in keys.columns:
        keys = keys.with_columns(pl.lit(request.columns.scores[0], dtype=pl.String).alias(SCORE_KEY))
    n_rows = keys.height
    sets = ingested.clusters
    counts = table_set_counts(sets.ties)
    usable = counts.usable
    row = np.asarray(sets.group, dtype=np.int64)
    # a set whose rows were all dropped (missing="drop") is in n_missing, not among the sets left out
    seen = (counts.n_pos + counts.n_neg) > 0
    dropped = np.bincount(row[seen & ~usable], minlength=n_rows)
    row_u = row[usable]
    wins, pairs = counts.wins[usable], counts.pairs[usable]
    estimates = matched_estimate(wins, pairs, row_u, n_rows)
    n_sets = np.bincount(row_u, minlength=n_rows)
    n_missing = ingested.keys["n_missing"].to_numpy()
    notes = tuple(_row_note(int(d), int(k), int(m)) for d, k, m in zip(dropped, n_sets, n_missing))
    if dropped.any():
        warnings.warn(f"{_plural(int(dropped.sum()), 'matched set')} without a case or without a control left out "
                      f"(no within-set pair; see the `note` column)", DegenerateGroupWarning, stacklevel=2)
    if (n_sets == 0).any():
        warnings.warn(f"{_plural(int((n_sets == 0).sum()), 'row')} without a usable matched set: NaN",
                      DegenerateGroupWarning, stacklevel=2)
    return MatchedAurocResult(
        keys=keys, estimates=estimates, n_sets=n_sets.astype(np.int64),
        n_pos=np.bincount(row_u, weights=counts.n_pos[usable], minlength=n_rows).astype(np.int64),
        n_neg=np.bincount(row_u, weights=counts.n_neg[usable], minlength=n_rows).astype(np.int64),
        n_pairs=np.bincount(row_u, weights=pairs, minlength=n_rows), n_dropped=dropped.astype(np.int64),
        n_missing=n_missing.astype(np.int64), notes=notes, wins=wins, pairs=pairs, set_row=row_u,
        outcome=request.columns.outcome, matched_set=matched_set, direction=direction, frame_kind=ingested.kind, level=level)


def _row_note(dropped: int, n_sets: int, n_missing: int) -> str | None:
    parts = [f"{_plural(n_missing, 'row')} with missing values dropped"] if n_missing else []
    if dropped:
        parts.append(f"{_plural(dropped, 'matched set')} without a case or without a control left out")
    if n_sets == 0:
        parts.append("no matched set holds both a case and a control: no estimate")
    return "; ".join(parts) or None
