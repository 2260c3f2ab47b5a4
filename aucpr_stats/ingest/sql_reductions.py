"""The engine's reductions of a group's cells before they are collected: runs of negatives collapsed, curves thinned.

Both take the SQL of the cells (one row per (keys, score value) with the
usable positives ``__aucpr_pos``, the usable rows ``__aucpr_n`` and the rows
with something missing ``__aucpr_m``; the score ``__aucpr_s`` is NULL for a
missing score) and return the SQL of the reduced cells, with the same
columns, computed by window functions over each group in the score's order:

* :func:`collapsed_query`: the table of :meth:`TieTable.collapsed
  <aucpr_stats.ties.TieTable.collapsed>` (about two rows per score holding a
  positive);
* :func:`thinned_query`: the table of :meth:`TieTable.thinned
  <aucpr_stats.ties.TieTable.thinned>` (at most ``8 grid + 1`` rows per group).

Each query reads each of its CTEs once: DuckDB 2.0 materialises a CTE read
twice, and such a query stopped responding when its result was cut short by
the ``LIMIT`` that bounds what is collected (10^5 rows sufficed;
``tests/test_duckdb_source.py::test_a_table_cut_at_the_limit_does_not_hang``).
"""

from __future__ import annotations

__all__ = ["collapsed_query", "thinned_query", "CELL_SCORE", "CELL_POSITIVES", "CELL_ROWS", "CELL_MISSING"]

#: The columns of the cells: the score, usable positives, usable rows, rows with something missing.
CELL_SCORE, CELL_POSITIVES, CELL_ROWS, CELL_MISSING = "__aucpr_s", "__aucpr_pos", "__aucpr_n", "__aucpr_m"
_S, _P, _N, _M = CELL_SCORE, CELL_POSITIVES, CELL_ROWS, CELL_MISSING


def _window(keys: list[str], direction: str, extra: tuple = ()) -> str:
    """The window of a group's cells in the score's order (missing scores last)."""
    partition = f"PARTITION BY {', '.join([*keys, *extra])} " if keys or extra else ""
    return f"{partition}ORDER BY {_S} {'DESC' if direction == 'higher' else 'ASC'} NULLS LAST"


def _rows_above(window: str, inclusive: bool = True) -> str:
    return f"({window} ROWS BETWEEN UNBOUNDED PRECEDING AND {'CURRENT ROW' if inclusive else '1 PRECEDING'})"


def _merged(keys: list[str], direction: str, source: str, group: str) -> str:
    """The cells of ``source`` summed per ``group`` (and keys), at the group's lowest score in ``direction``."""
    key_list = "".join(f"{k}, " for k in keys)
    lowest = "MIN" if direction == "higher" else "MAX"  # the last cell in the score's order
    return (f"SELECT {key_list}{lowest}({_S}) AS {_S}, CAST(SUM({_P}) AS BIGINT) AS {_P}, "
            f"CAST(SUM({_N}) AS BIGINT) AS {_N}, CAST(SUM({_M}) AS BIGINT) AS {_M} FROM {source} "
            f"GROUP BY {key_list}{group}")


def collapsed_query(cells: str, keys: list[str], direction: str) -> str:
    """The cells with each run of positive-free cells merged into one at its lowest score (in ``direction``)."""
    # run: the number of cells holding positives at or above a cell; a positive-free run shares it with the
    # positive cell above it, so (run, holds positives) tells them apart; missing scores (last) stay apart
    marked = (f"SELECT *, SUM(CASE WHEN {_P} > 0 THEN 1 ELSE 0 END) OVER {_rows_above(_window(keys, direction))} "
              f"AS __aucpr_run FROM cells")
    group = f"__aucpr_run, {_P} > 0, {_S} IS NULL"
    return f"WITH cells AS ({cells}), marked AS ({marked}) {_merged(keys, direction, 'marked', group)}"


def thinned_query(cells: str, keys: list[str], direction: str, grid: int, dialect) -> str:
    """The cells of :meth:`TieTable.thinned <aucpr_stats.ties.TieTable.thinned>`, in exact integer arithmetic.

    ``dialect`` is the engine's :class:`~aucpr_stats.ingest.sql_table.Dialect` (its integer division).

    A cell crosses when ``floor`` or ``ceil`` of its class's running count
    times ``grid`` over the class total changes; crossing cells, the cell
    above each and every group's last cell are kept, and each run of other
    cells is merged into the kept cell below it (at that cell's score). Cells
    without usable rows (missing scores or outcomes) are windowed apart and
    come back as one cell per group: they only count missing rows.
    """
    partition = f"PARTITION BY {', '.join(keys)}" if keys else ""
    window = _window(keys, direction)
    usable_window = _window(keys, direction, ("__aucpr_u",))
    div = dialect.integer_division.format

    def crosses(running: str, own: str, total: str) -> str:
        now, then = f"({running} * {grid})", f"(({running} - {own}) * {grid})"
        whole = f"NULLIF({total}, 0)"
        up = (lambda x: div(f"({x} + {total} - 1)", whole))
        return (f"COALESCE({total} > 0 AND ({div(now, whole)} > {div(then, whole)} OR {up(now)} > {up(then)}), "
                "FALSE)")

    negatives = f"({_N} - {_P})"
    run = (f"SELECT *, {_N} > 0 AS __aucpr_u, SUM({_P}) OVER {_rows_above(window)} AS __aucpr_tp, "
           f"SUM({negatives}) OVER {_rows_above(window)} AS __aucpr_fp, "
           f"SUM({_P}) OVER ({partition}) AS __aucpr_bp, SUM({negatives}) OVER ({partition}) AS __aucpr_bn "
           f"FROM cells")
    crossed = (f"SELECT *, ({crosses('__aucpr_tp', _P, '__aucpr_bp')} OR "
               f"{crosses('__aucpr_fp', negatives, '__aucpr_bn')}) AS __aucpr_x FROM run")
    # kept: a crossing, the usable cell above one, or a group's last usable cell (no usable cell below)
    kept = (f"SELECT *, (__aucpr_x OR COALESCE(LEAD(__aucpr_x) OVER ({usable_window}), TRUE)) AS __aucpr_keep "
            f"FROM crossed")
    # a cell's run: the number of kept cells above it (a kept cell closes its run)
    runs = (f"SELECT *, COALESCE(SUM(CASE WHEN __aucpr_keep THEN 1 ELSE 0 END) OVER "
            f"{_rows_above(usable_window, inclusive=False)}, 0) AS __aucpr_run FROM kept")
    group = "__aucpr_u, CASE WHEN __aucpr_u THEN __aucpr_run ELSE -1 END"
    return (f"WITH cells AS ({cells}), run AS ({run}), crossed AS ({crossed}), kept AS ({kept}), runs AS ({runs}) "
            f"{_merged(keys, direction, 'runs', group)}")
