r"""The decomposable statistics as sums the engine computes: nothing proportional to the rows reaches Python.

When the tie table is too large to collect (continuous scores on many rows;
:class:`~aucpr_stats.ingest.sql_source.TieTableTooLarge`), four statistics can
still be computed exactly, because each is a sum over the tie rows of a group
(descending score) of a function of the row's counts ``p, n`` and the running
totals ``TP, FP`` down to it (inclusive), with ``P, N`` the class totals:

* **average precision** (Boyd, Eng & Page 2013, Eq. 9):
  :math:`\frac1P\sum_{p>0} p\,\pi`, with :math:`\pi = TP/(TP+FP)`, or for a
  row holding both classes (``ties="interpolate"``) the mean precision of its
  Davis-Goadrich crossing (:func:`~aucpr_stats.estimators.tie_blocks.crossing_precision`);
* **lower trapezoid** (Eq. 3): every row holding positives starts a new
  distinct recall, so the piece of area it adds is
  :math:`\frac{p}{P}\,\frac{\pi^- + \pi}{2}` with :math:`\pi^-` the precision
  just above the row (1 at the start), or the crossing's area for a mixed row;
* **A'** (Radcliffe 2013, Eq. 3): :math:`U/(2PN)` with the integer
  :math:`U = \sum p\,u`, :math:`u = 2(N - FP) + n` (twice a positive's midrank
  placement times ``N``);
* **DeLong's components** (DeLong et al. 1988): with
  :math:`Q = \sum p\,u^2` and, for the negatives, :math:`v = 2(TP - p) + p`,
  :math:`R = \sum n\,v^2`,

  .. math:: (P-1)\,S_{10} = \frac{PQ - U^2}{4N^2P}, \qquad
            (N-1)\,S_{01} = \frac{NR - U^2}{4P^2N}.

``U``, ``Q`` and ``R`` are integers; ``Q`` and ``R`` reach about
``4 P N^2`` (4e22 at 2.5e7 cases per class), beyond 64 bits, so the engine
sums them in 128-bit integers (DuckDB ``HUGEINT``, Spark ``DECIMAL(38, 0)``)
and Python finishes in its own integers, one rounding at the end. The
precision sums are floating point (summed in the engine's order, so they
agree with the in-memory path to about 1e-15, not bit for bit).

The engine sorts each group's cells by score in a window; only one row per
group comes back. :func:`sql_sums` returns them as a frame; ``aucpr`` and
``auroc`` return result objects built on the same sums when the tie table is
too large (:mod:`.engine_sums`), with the intervals those sums serve. The
bootstrap and the other estimators need the tie table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .. import _validate
from .._validate import SCORE_KEY
from ..estimators.tie_blocks import ties_iv
from ..exceptions import InputTypeError
from ..intervals import newcombe_interval, truncate, wald_interval
from .backends import is_backend_input, sql_table
from .checks import check_key_names, check_stats
from .direction import warn_auto_direction
from .levels import warn_missing_keys
from .notes import group_notes, warn_degenerate
from .sql_source import TABLE, SqlTable, read_sql, sql_conditions

__all__ = ["sql_sums", "sum_query", "summed_statistics", "SUM_COLUMNS"]

#: The statistics columns of :func:`sql_sums`, after the keys.
SUM_COLUMNS = ("n_pos", "n_neg", "n_missing", "average_precision", "lower_trapezoid", "a_prime", "se", "lower",
               "upper", "note")


def _series(u: str, coefficients: list[float]) -> str:
    """Horner form of ``sum_k c_k u^k`` in SQL."""
    text = repr(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        text = f"({c!r} + {u} * {text})"
    return text


def _crossing(a: str, f: str, b: str, n: str) -> str:
    """SQL of :func:`~aucpr_stats.estimators.tie_blocks.crossing_precision` (the same series below u = 0.05)."""
    c, d = f"({a} + {f})", f"({b} + {n})"
    u = f"({d} / NULLIF({c}, 0))"
    phi1 = (f"CASE WHEN {u} < 0.05 THEN {_series(u, [(-1) ** k / (k + 1) for k in range(12)])} "
            f"ELSE ln(1 + {u}) / NULLIF({u}, 0) END")
    phi2 = (f"CASE WHEN {u} < 0.05 THEN {_series(u, [(-1) ** k / (k + 2) for k in range(12)])} "
            f"ELSE ({u} - ln(1 + {u})) / NULLIF({u} * {u}, 0) END")
    return f"CASE WHEN {c} > 0 THEN ({a} * ({phi1}) + {b} * ({phi2})) / NULLIF({c}, 0) ELSE {b} / NULLIF({d}, 0) END"


def sum_query(table: SqlTable, name: str, sql, by, weight: str, direction: str, ties: str) -> str:
    """The query of one score's sums per group (class counts, missing rows, precision sums, ``U``, ``Q``, ``R``).

    ``weight`` is the SQL of each row's count (``"1"``, or a counts column).
    """
    q = table.dialect.quote
    wide = table.dialect.wide_integer
    missing = f"({sql.y_missing} OR {sql.s_missing[name]})"
    keys = [q(c) for c in by]
    score = f"CASE WHEN {missing} THEN NULL ELSE {q(name)} END"
    count = (lambda cond: f"CAST(COALESCE(SUM(CASE WHEN {cond} THEN {weight} ELSE 0 END), 0) AS BIGINT)")
    cells = (f"SELECT {', '.join([*keys, f'{score} AS s'])}, {count(f'NOT {missing} AND {sql.positive}')} AS p, "
             f"{count(f'NOT {missing} AND NOT {sql.positive}')} AS n, {count(missing)} AS m "
             f"FROM {TABLE} GROUP BY {', '.join([*keys, score])}")
    part = f"PARTITION BY {', '.join(keys)}" if keys else ""
    order = "DESC" if direction == "higher" else "ASC"
    running = f"({part} ORDER BY s {order} NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    runs = (f"SELECT *, SUM(p) OVER {running} AS tp, SUM(n) OVER {running} AS fp, SUM(p) OVER ({part}) AS big_p, "
            f"SUM(n) OVER ({part}) AS big_n FROM cells")
    d = "CAST({} AS DOUBLE)".format
    a, f, b, nn = d("tp - p"), d("fp - n"), d("p"), d("n")
    at = f"{d('tp')} / NULLIF({d('tp + fp')}, 0)"
    above = f"CASE WHEN tp - p + fp - n > 0 THEN {a} / NULLIF({a} + {f}, 0) ELSE 1.0 END"
    cross = _crossing(a, f, b, nn)
    mixed = "n > 0" if ties == "interpolate" else "FALSE"
    u = f"(2 * (CAST(big_n AS {wide}) - fp) + n)"
    v = f"(2 * (CAST(tp AS {wide}) - p) + p)"
    select = [*keys, "SUM(p) AS n_pos", "SUM(n) AS n_neg", "SUM(m) AS n_missing",
              f"SUM(CASE WHEN p = 0 THEN 0.0 WHEN {mixed} THEN {b} * ({cross}) ELSE {b} * ({at}) END) AS ap_sum",
              f"SUM(CASE WHEN p = 0 THEN 0.0 WHEN {mixed} THEN {b} * ({cross}) "
              f"ELSE {b} * (({above}) + ({at})) / 2 END) AS lt_sum",
              f"SUM(CAST(p AS {wide}) * {u}) AS u", f"SUM(CAST(p AS {wide}) * {u} * {u}) AS q",
              f"SUM(CAST(n AS {wide}) * {v} * {v}) AS r"]
    group = f" GROUP BY {', '.join(keys)}" if keys else ""
    return f"WITH cells AS ({cells}), runs AS ({runs}) SELECT {', '.join(select)} FROM runs{group}"


def _exact_ratio(numerator: list[int], denominator: list[int]) -> np.ndarray:
    """Correctly rounded quotients of Python integers (NaN where the denominator is 0)."""
    return np.array([num / den if den else np.nan for num, den in zip(numerator, denominator)], dtype=np.float64)


def _delong_interval(a_prime, se, n_pos, n_neg, level):
    """The DeLong interval as ``auroc(...).conf_int(method="delong")`` gives it (see ``intervals/edges.py``).

    Wald ``A' ± z SE``; none below two positives; at an estimate of 0 or 1 or
    a zero SE, Newcombe's score interval (the boundary fallback); bounds
    truncated to [0, 1].
    """
    lower, upper, _ = wald_interval(a_prime, se, level)
    lower, upper = np.where(n_pos < 2, np.nan, lower), np.where(n_pos < 2, np.nan, upper)
    with np.errstate(invalid="ignore"):
        edge = (np.isfinite(a_prime) & np.isfinite(lower) & np.isfinite(upper)
                & ((a_prime <= 0.0) | (a_prime >= 1.0) | (se == 0.0) | (lower == upper)))
    if edge.any():
        b_lower, b_upper, _ = newcombe_interval(a_prime, n_pos, n_neg, level)
        lower, upper = np.where(edge, b_lower, lower), np.where(edge, b_upper, upper)
    lower, upper, _ = truncate(lower, upper, 0.0, 1.0)
    return lower, upper


def sql_sums(data: Any, outcome: str, score: str, by: Any = None, *, positive: Any = None, negative: Any = None,
             missing: str = "error", direction: str = "higher", ties: str = "interpolate", level: float = 0.95,
             counts: str | None = None) -> pl.DataFrame:
    """Average precision, lower trapezoid, A' and DeLong's interval per group, summed by the engine.

    For a DuckDB relation, Parquet path or Spark DataFrame whose tie table is
    too large to collect; the same checks, messages and values (to 1e-12) as
    ``aucpr(..., estimator=["average_precision", "lower_trapezoid"])`` and
    ``auroc(...).conf_int(method="delong")`` on the same data.

    Parameters
    ----------
    data : duckdb.DuckDBPyRelation, Parquet path or pyspark.sql.DataFrame
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
        The keys (sorted ascending, nulls last; then ``score``), then :data:`SUM_COLUMNS`:
        ``se``, ``lower`` and ``upper`` are DeLong's standard error of A' and
        its interval at ``level`` as ``conf_int(method="delong")`` gives it
        (Newcombe's score interval at the boundary, truncated to [0, 1]); NaN estimates for groups without both
        classes (``note`` says why), NaN ``se`` below two cases of a class.

    Examples
    --------
    >>> import duckdb
    >>> from aucpr_stats.ingest.sql_sums import sql_sums
    >>> rel = duckdb.sql("SELECT (i % 3 = 0)::INT AS y, (i * 7919) % 1000 + (i % 3 = 0)::INT * 300 AS s "
    ...                  "FROM range(3000) t(i)")
    >>> sums = sql_sums(rel, "y", "s")
    >>> round(sums["a_prime"][0], 4), round(sums["se"][0], 4)
    (0.755, 0.009)
    >>> from aucpr_stats import auroc
    >>> bool(sums["a_prime"][0] == auroc(rel, "y", "s").to_frame()["estimate"][0])  # the tie-table road
    True
    """
    if not is_backend_input(data):
        raise InputTypeError("`data` of sql_sums() must be a DuckDB relation, a Parquet path or a Spark DataFrame; "
                             f"got {type(data).__name__}")
    spec = _validate.column_spec_iv(data, outcome, score, by, positive, missing, negative=negative,
                                    direction=direction)
    ties = ties_iv(ties)
    level = _validate.level_iv(level)
    check_key_names(spec.by)
    weight = "1"
    table = sql_table(data)
    if counts is not None:
        counts = _validate.extra_column_iv(data, counts, "counts", spec)
        if not table.schema[counts].is_integer():
            raise InputTypeError(f"`counts` column {counts!r} must hold integers; got type {table.schema[counts]}")
        weight = f"CAST({table.dialect.quote(counts)} AS BIGINT)"
    collected = read_sql(table, spec, spec.by, None, False, estimate_cells=False)
    check_stats(collected.stats, spec, collected.examples, collected.level_counts)
    sql = sql_conditions(table, spec)
    by = list(spec.by)
    parts = []
    for name in spec.scores:
        frame = _one_score(table.run(sum_query(table, name, sql, spec.by, weight, collected.directions[name],
                                                   ties)), by, level)
        parts.append(frame.with_columns(pl.lit(name).alias(SCORE_KEY)).select(by + [SCORE_KEY] + list(SUM_COLUMNS))
                     if spec.multi_score else frame)
    out = pl.concat(parts) if len(parts) > 1 else parts[0]
    key_columns = by + ([SCORE_KEY] if spec.multi_score else [])
    if spec.multi_score:  # keys first, then the scores in the order given (as the other results)
        order = {name: i for i, name in enumerate(spec.scores)}
        out = (out.with_columns(pl.col(SCORE_KEY).replace_strict(order, return_dtype=pl.Int64).alias("__aucpr_k"))
               .sort([*by, "__aucpr_k"], nulls_last=True).drop("__aucpr_k"))
    # the warnings of the entry points: the direction chosen, missing keys (rows counted once), degenerate groups
    warn_auto_direction(collected.directions, stacklevel=3)
    first = parts[0]
    rows = (first["n_pos"] + first["n_neg"] + first["n_missing"]).to_numpy()
    warn_missing_keys([(name, int(rows[first[name].is_null().to_numpy()].sum())) for name in by], stacklevel=3)
    warn_degenerate(out.select(key_columns), key_columns, out["note"].to_list(), stacklevel=3)
    return out


def summed_statistics(frame: pl.DataFrame) -> dict[str, np.ndarray]:
    """The statistics per group from the engine's sums (rows of :func:`sum_query`), exact integers to the end.

    Returns ``n_pos``, ``n_neg``, ``n_missing`` (int64), ``average_precision``,
    ``lower_trapezoid``, ``a_prime``, ``s10``, ``s01`` and ``se`` (DeLong's
    standard error of A'): NaN for groups without both classes, ``s10``
    (``s01``) NaN below two positives (negatives).
    """
    as_int = (lambda name: [int(v) for v in frame[name].to_list()])
    n_pos, n_neg = as_int("n_pos"), as_int("n_neg")
    u, q, r = as_int("u"), as_int("q"), as_int("r")
    a_prime = _exact_ratio(u, [2 * p * n for p, n in zip(n_pos, n_neg)])
    # DeLong: (P-1) S10 = (PQ - U^2) / (4 N^2 P), (N-1) S01 = (NR - U^2) / (4 P^2 N), exact integers to the end
    s10 = _exact_ratio([p * qq - uu * uu for p, qq, uu in zip(n_pos, q, u)],
                       [4 * n * n * p * (p - 1) if p > 1 else 0 for p, n in zip(n_pos, n_neg)])
    s01 = _exact_ratio([n * rr - uu * uu for n, rr, uu in zip(n_neg, r, u)],
                       [4 * p * p * n * (n - 1) if n > 1 else 0 for p, n in zip(n_pos, n_neg)])
    pos, neg = np.array(n_pos, dtype=np.float64), np.array(n_neg, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(s10 / pos + s01 / neg)
        ap = frame["ap_sum"].to_numpy().astype(np.float64) / pos
        lt = frame["lt_sum"].to_numpy().astype(np.float64) / pos
    both = (pos > 0) & (neg > 0)
    nan_outside = (lambda values: np.where(both, values, np.nan))
    return {"n_pos": np.array(n_pos, dtype=np.int64), "n_neg": np.array(n_neg, dtype=np.int64),
            "n_missing": np.array(as_int("n_missing"), dtype=np.int64),
            "average_precision": nan_outside(ap), "lower_trapezoid": nan_outside(lt),
            "a_prime": nan_outside(a_prime), "s10": nan_outside(s10), "s01": nan_outside(s01),
            "se": nan_outside(se)}


def _one_score(frame: pl.DataFrame, by: list[str], level: float) -> pl.DataFrame:
    """The columns of :func:`sql_sums` for one score, from the engine's sums per group."""
    if by:
        frame = frame.sort(by, nulls_last=True)
    stats = summed_statistics(frame)
    n_pos, n_neg = stats["n_pos"], stats["n_neg"]
    lower, upper = _delong_interval(stats["a_prime"], stats["se"], n_pos.astype(np.float64),
                                    n_neg.astype(np.float64), level)
    return pl.concat([frame.select(by), pl.DataFrame([
        pl.Series("n_pos", n_pos, dtype=pl.Int64), pl.Series("n_neg", n_neg, dtype=pl.Int64),
        pl.Series("n_missing", stats["n_missing"], dtype=pl.Int64),
        pl.Series("average_precision", stats["average_precision"]),
        pl.Series("lower_trapezoid", stats["lower_trapezoid"]), pl.Series("a_prime", stats["a_prime"]),
        pl.Series("se", stats["se"]), pl.Series("lower", lower), pl.Series("upper", upper),
        pl.Series("note", group_notes(n_pos, n_neg), dtype=pl.String)])], how="horizontal")
