"""``sql_sums()``: average precision, the lower trapezoid, A' and DeLong's interval per group, as one frame.

The same numbers as ``aucpr(..., estimator=["average_precision",
"lower_trapezoid"])`` and ``auroc(...).conf_int(method="delong")`` on an
engine's partial sums (``docs/backends.md``), in one polars frame, with one
more option: ``counts=``, a column of case counts for aggregated data.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl

from . import _validate
from ._validate import SCORE_KEY
from .estimators import ESTIMATORS
from .estimators.engine import evaluate
from .estimators.tie_blocks import DEFAULT_TIES, ties_iv
from .exceptions import InputTypeError, SmallSampleWarning
from .ingest import SqlInput, detect, is_data
from .front_door import open_data
from .results import AurocResult

__all__ = ["sql_sums", "SUM_COLUMNS"]

#: The statistics columns of :func:`sql_sums`, after the keys.
SUM_COLUMNS = ("n_pos", "n_neg", "n_missing", "average_precision", "lower_trapezoid", "a_prime", "se", "lower",
               "upper", "note")


def sql_sums(data: Any, outcome: str, score: Any, by: Any = None, *, positive: Any = None, negative: Any = None,
             missing: str = "error", direction: str = "higher", ties: str = DEFAULT_TIES, level: float = 0.95,
             counts: str | None = None) -> pl.DataFrame:
    """Average precision, lower trapezoid, A' and DeLong's interval per group, summed by the engine.

    For an engine's table (DuckDB relation, Parquet path, Spark DataFrame,
    ibis table) whose tie table is too large to collect: the same checks,
    messages and values (to 1e-12) as ``aucpr(..., estimator=["average_precision",
    "lower_trapezoid"])`` and ``auroc(...).conf_int(method="delong")`` on the
    same data, one row per group.

    Parameters
    ----------
    data : an engine's table
    outcome : str
    score : str or list of str
        Several scores add a ``score`` key column after the ``by`` keys (one
        query per score; missing values judged per score, as for frames).
    by : str or list of str, optional
    positive, negative, missing, direction, ties, level
        As for :func:`aucpr_stats.aucpr` and :func:`aucpr_stats.auroc`
        (``direction="auto"`` is decided by the class medians, as there).
    counts : str, optional
        A column of non-negative integer counts: each row stands for that many
        cases (aggregated data). The data checks count rows.

    Returns
    -------
    polars.DataFrame
        The keys (sorted ascending, nulls last; then ``score``), then
        :data:`SUM_COLUMNS`: ``se``, ``lower`` and ``upper`` are DeLong's
        standard error of A' and its interval at ``level`` as
        ``conf_int(method="delong")`` gives it; NaN estimates for groups
        without both classes (``note`` says why).

    Examples
    --------
    >>> import duckdb
    >>> from aucpr_stats import auroc, sql_sums
    >>> rel = duckdb.sql("SELECT (i % 3 = 0)::INT AS y, (i * 7919) % 1000 + (i % 3 = 0)::INT * 300 AS s "
    ...                  "FROM range(3000) t(i)")
    >>> sums = sql_sums(rel, "y", "s")
    >>> round(sums["a_prime"][0], 4), round(sums["se"][0], 4)
    (0.755, 0.009)
    >>> bool(sums["a_prime"][0] == auroc(rel, "y", "s").to_frame()["estimate"][0])  # the tie-table road
    True
    """
    if not is_data(data) or (detect(data).in_memory and not isinstance(data, SqlInput)):
        raise InputTypeError("`data` of sql_sums() must be an engine's table (a DuckDB relation, a Parquet path, a "
                             f"Spark DataFrame, an ibis table); got {type(data).__name__}")
    ties = ties_iv(ties)
    level = _validate.level_iv(level)
    data = SqlInput(data.data, data.max_tie_rows, "always") if isinstance(data, SqlInput) else SqlInput(
        data, partial_sums="always")
    registry = ESTIMATORS["aucpr"]
    records = (registry["average_precision"].under(ties), registry["lower_trapezoid"].under(ties))
    request, ingested = open_data("sql_sums", data, None, outcome, score, by, positive=positive, missing=missing,
                                  negative=negative, direction=direction, unused_levels=None, counts=counts,
                                  metric="aucpr", records=records, ties=ties, stacklevel=2)
    ties_table = ingested.ties
    areas = evaluate(ties_table, list(records))
    a_prime = ESTIMATORS["auroc"]["a_prime"]
    roc = AurocResult(ties=ties_table, keys=ingested.keys, by=ingested.key_columns, estimators=("a_prime",),
                      estimates=evaluate(ties_table, [a_prime]), notes=ingested.notes, frame_kind=ingested.kind,
                      outcome=ingested.spec.outcome, score=ingested.spec.score, records=(a_prime,))
    with warnings.catch_warnings():  # the note says it per row; sql_sums() returns no notes of intervals
        warnings.simplefilter("ignore", SmallSampleWarning)
        delong = roc.conf_int_polars(method="delong", level=level)
    keys = ingested.keys.select(ingested.key_columns)
    body = pl.DataFrame([
        pl.Series("n_pos", ties_table.n_pos, dtype=pl.Int64), pl.Series("n_neg", ties_table.n_neg, dtype=pl.Int64),
        pl.Series("n_missing", ingested.keys["n_missing"], dtype=pl.Int64),
        pl.Series("average_precision", areas[:, 0]), pl.Series("lower_trapezoid", areas[:, 1]),
        pl.Series("a_prime", roc.estimates[:, 0]),
        pl.Series("se", _delong_se(roc)), delong["lower"], delong["upper"],
        pl.Series("note", list(ingested.notes), dtype=pl.String)])
    key_columns = [c for c in ingested.key_columns if c != SCORE_KEY] + (
        [SCORE_KEY] if SCORE_KEY in ingested.key_columns else [])
    return pl.concat([keys, body], how="horizontal").select(*key_columns, *SUM_COLUMNS)


def _delong_se(result: AurocResult) -> np.ndarray:
    """DeLong's standard error of A' per group (NaN below two cases of a class), from the stored components."""
    ties = result.ties
    s10, s01 = ties.stored("delong_s10"), ties.stored("delong_s01")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(s10 / ties.n_pos + s01 / ties.n_neg)
