"""The reader: one request in, the tie tables of every group out, the data read once and checked first.

:func:`read` takes a :class:`~aucpr_stats.request.Request` (the front door
built it) and reads the data through narwhals, whatever holds it
(:mod:`.source`): one set of expressions (:mod:`.coding`, :mod:`.stats`)
counts what the checks need (:mod:`.checks`: missing values, infinite
scores, outcome levels, weights), and the tie step follows one of two roads:

* **in memory** (:mod:`.rows`): the rows, read by polars together with the
  checks in one ``collect_all``, go to the table factory's fast sorts;
* **an engine** (:mod:`.cells`, :mod:`.sums`): the engine reduces the rows
  to cells (runs of negatives collapsed, a curve thinned, or the partial
  sums, as the request's :class:`~aucpr_stats.request.Reduction` allows);
  at most ``max_tie_rows`` rows reach Python.

Both end in the same tables (:mod:`aucpr_stats.tables`), so a result is the
same whatever the input. What comes back (:class:`Ingested`): one table
segment per group (and per score, and per level of ``between``), the keys,
the units (folds, clusters) and weighted cells where asked for, the notes of
groups without both classes; the warnings of the call are raised here.
"""

from __future__ import annotations

from typing import Any

import attrs

from .checks import RESULT_COLUMNS
from .direction import warn_auto_direction
from .exact_scores import strictly_increasing
from .groups import FoldTables, Ingested, assemble
from .levels import DROPPED_NOTE, UNUSED_NOTE, warn_missing_keys
from .notes import group_notes, warn_degenerate, zero_weight_notes
from .reader import Reader
from .source import MAX_TIE_ROWS, PARTIAL_SUMS, Source, SqlInput, detect, is_data, sql_input

__all__ = ["Ingested", "FoldTables", "read", "detect", "is_data", "sql_input", "SqlInput", "Source",
           "MAX_TIE_ROWS", "PARTIAL_SUMS", "RESULT_COLUMNS", "UNUSED_NOTE", "DROPPED_NOTE", "strictly_increasing"]


def read(request: Any, stacklevel: int = 3) -> Ingested:
    """The tables of ``request``: check the data, build the tie tables, note (and warn about) degenerate groups.

    ``stacklevel`` of the warnings: as :func:`warnings.warn` counts it from this function's caller.

    Raises
    ------
    InputError, InputTypeError, MissingValueError, OutcomeError
        Empty data, missing values (``missing="error"``), infinite scores,
        non-numeric scores, outcomes that are not binary, missing units. The
        message names the column at fault.
    TieTableTooLarge
        An engine's table over ``max_tie_rows`` (see :func:`sql_input`).
    """
    with request.source.engine.session():  # DuckDB: a connection busy in another thread is refused clearly
        reader = Reader(request)
        built, keys, directions = reader.tables()
    keys, directions = reader.caller_names(keys, directions)
    ingested = assemble(request, attrs.evolve(built, keys=keys), directions)
    n_pos, n_neg = ingested.counts
    notes = group_notes(n_pos, n_neg)
    if ingested.weight_sums is not None:
        notes = zero_weight_notes(notes, ingested.weight_sums)
    if ingested.unused is not None:
        notes = [UNUSED_NOTE if unused else note for note, unused in zip(notes, ingested.unused)]
    if "n_missing" in ingested.keys.columns:  # a group whose rows were all dropped says so
        dropped = ingested.keys["n_missing"].to_numpy() > 0
        notes = [DROPPED_NOTE if note == "no rows" and gone else note for note, gone in zip(notes, dropped)]
    warn_auto_direction(directions, stacklevel=stacklevel + 2)
    warn_missing_keys(ingested.missing_keys, stacklevel=stacklevel + 2)
    warn_degenerate(ingested.keys, ingested.key_columns, notes, stacklevel=stacklevel + 2)
    directions = {k: v for k, v in directions.items() if not k.startswith("__")}
    return attrs.evolve(ingested, notes=tuple(notes), directions=directions)


