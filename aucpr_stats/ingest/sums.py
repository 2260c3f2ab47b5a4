r"""The engine's partial sums: nothing proportional to the rows reaches Python.

When the collapsed tie table of an engine's input is over ``max_tie_rows``
(continuous scores at a high prevalence keep about two rows per positive),
average precision, the lower trapezoid, A' and DeLong's components are
still exact: each is a sum over a group's tie rows of a function of the
row's counts and the running totals down to it
(:mod:`aucpr_stats.estimators.from_sums` has the formulas and finishes
them). :func:`sums_query` computes the sums with window sums over each
group's cells in the score's order, one row per group; the integer sums in
128-bit decimals (``DECIMAL(38, 0)`` on DuckDB, Spark and polars), the
precision sums in floating point (summed in the engine's order, so they
agree with the in-memory road to about 1e-15, not bit for bit).

``U`` and ``Q`` read, for a cell with ``p`` positives and ``n`` negatives, the
negatives ranked below it: ``u = 2 (N - fp) + n`` with ``fp`` the running
negatives down to the cell and ``N`` the group's. The group total ``N`` on
every cell would cost the engine a second window; instead the engine sums
``p w`` and ``p w^2`` with ``w = 2 fp - n`` (no total needed), and
:func:`summed_rows` finishes ``U = 2 N P - sum(p w)`` and
``Q = 4 N^2 P - 4 N sum(p w) + sum(p w^2)`` in exact Python integers.

For a row holding both classes (``ties="interpolate"``) the precision is
the mean precision of its Davis-Goadrich crossing
(:func:`~aucpr_stats.estimators.tie_blocks.crossing_precision`, written
here as an expression with the same series below ``u = 0.05``).
"""

from __future__ import annotations

from typing import Sequence

import narwhals as nw
import numpy as np
import polars as pl

from .cells import M, N, P, cells_query, window_sum
from .coding import Coding, indicator

__all__ = ["sums_query", "SUM_COLUMNS", "summed_rows"]

#: The columns of one row of sums per group (after the keys).
SUM_COLUMNS = ("n_pos", "n_neg", "n_missing", "ap_sum", "lt_sum", "pw", "pw2", "r", "positive_cells")

_WIDE = nw.Decimal(38, 0)


def _series(u: nw.Expr, coefficients: list[float]) -> nw.Expr:
    """Horner form of ``sum_k c_k u^k``."""
    out = nw.lit(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        out = c + u * out
    return out


def _crossing(a: nw.Expr, f: nw.Expr, b: nw.Expr, n: nw.Expr) -> nw.Expr:
    """The mean precision over a tie block's Davis-Goadrich crossing (``a, f``: TP, FP above; ``b, n``: the block)."""
    c, d = a + f, b + n
    safe_c = nw.when(c > 0).then(c).otherwise(1.0)
    u = d / safe_c
    safe_u = nw.when(u > 0).then(u).otherwise(1.0)
    log = (1.0 + u).log()
    phi1 = nw.when(u < 0.05).then(_series(u, [(-1) ** k / (k + 1) for k in range(12)])).otherwise(log / safe_u)
    phi2 = nw.when(u < 0.05).then(_series(u, [(-1) ** k / (k + 2) for k in range(12)])).otherwise(
        (u - log) / (safe_u * safe_u))
    safe_d = nw.when(d > 0).then(d).otherwise(1.0)
    return nw.when(c > 0).then((a * phi1 + b * phi2) / safe_c).otherwise(b / safe_d)


def sums_query(lf: nw.LazyFrame, coding: Coding, name: str, by: Sequence[str], direction: str,
               ties: str, counts: str | None = None) -> nw.LazyFrame:
    """One score's sums per group: class counts, missing rows, precision sums, ``U``, ``Q``, ``R``.

    ``counts``: a column of integer case counts (each row stands for that many cases).
    """
    keys = list(by)
    cells = cells_query(lf, coding, name, keys, counts=counts)
    negatives = nw.col(N) - nw.col(P)

    runs = cells.with_columns(negatives.alias("n"), window_sum(nw.col(P), keys, direction).alias("tp"),
                              window_sum(negatives, keys, direction).alias("fp"))
    p, n, tp, fp = nw.col(P), nw.col("n"), nw.col("tp"), nw.col("fp")
    as_float = (lambda e: e.cast(nw.Float64))
    a, f, b, nn = as_float(tp - p), as_float(fp - n), as_float(p), as_float(n)
    tf = as_float(tp + fp)
    at = as_float(tp) / nw.when(tf > 0).then(tf).otherwise(1.0)
    above = nw.when((tp - p + fp - n) > 0).then(a / nw.when((a + f) > 0).then(a + f).otherwise(1.0)).otherwise(1.0)
    mixed = (n > 0) if ties == "interpolate" else nw.lit(False)
    cross = _crossing(a, f, b, nn)
    w = (2 * fp - n).cast(_WIDE)  # u = 2 N - w (module docstring)
    v = (2 * (tp - p) + p).cast(_WIDE)
    wide_p, wide_n = p.cast(_WIDE), n.cast(_WIDE)
    terms = runs.with_columns(
        nw.when(p == 0).then(0.0).when(mixed).then(b * cross).otherwise(b * at).alias("ap_term"),
        nw.when(p == 0).then(0.0).when(mixed).then(b * cross).otherwise(b * (above + at) / 2).alias("lt_term"),
        (wide_p * w).alias("pw_term"), (wide_p * w * w).alias("pw2_term"), (wide_n * v * v).alias("r_term"),
        indicator(p > 0, nw.Int64).alias("pc_term"))
    sums = [p.sum().alias("n_pos"), n.sum().alias("n_neg"), nw.col(M).sum().alias("n_missing"),
            nw.col("ap_term").sum().alias("ap_sum"), nw.col("lt_term").sum().alias("lt_sum"),
            nw.col("pw_term").sum().alias("pw"), nw.col("pw2_term").sum().alias("pw2"),
            nw.col("r_term").sum().alias("r"),
            nw.col("pc_term").sum().alias("positive_cells")]
    summed = terms.group_by(keys).agg(*sums) if keys else terms.select(*sums)
    # counts in 64 bits (DuckDB sums a BIGINT to a HUGEINT, read back one Python Decimal at a time)
    return summed.with_columns(nw.col("n_pos", "n_neg", "n_missing", "positive_cells").cast(nw.Int64))


def summed_rows(frame: pl.DataFrame) -> dict[str, list | np.ndarray]:
    """The columns of collected sums as exact Python integers (counts, ``u``, ``q``, ``r``) and float arrays.

    ``u`` and ``q`` are finished here from ``pw`` and ``pw2`` (module docstring).
    """
    def as_int(name: str) -> list[int]:
        return [0 if v is None else int(v) for v in frame[name].to_list()]

    out: dict = {name: as_int(name) for name in ("n_pos", "n_neg", "n_missing", "pw", "pw2", "r", "positive_cells")}
    pw, pw2 = out.pop("pw"), out.pop("pw2")
    out["u"] = [2 * n * p - a for p, n, a in zip(out["n_pos"], out["n_neg"], pw)]
    out["q"] = [4 * n * n * p - 4 * n * a + b for p, n, a, b in zip(out["n_pos"], out["n_neg"], pw, pw2)]
    for name in ("ap_sum", "lt_sum"):
        out[name] = frame[name].cast(pl.Float64).fill_null(0.0).to_numpy()
    return out
