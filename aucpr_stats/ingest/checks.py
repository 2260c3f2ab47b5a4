"""The data checks of ingest: the errors raised after the one read of the data, whatever read it.

Every message names the column at fault, says what was wrong and how many
rows, and shows the first row numbers where that helps.
"""

from __future__ import annotations

from typing import Any, Callable

from .._validate import ColumnSpec
from ..exceptions import InputError, MissingValueError, OutcomeError

__all__ = ["check_stats", "NO_ROWS"]

#: The message for data with columns but no rows (a file with only a header).
NO_ROWS = "`data` has no rows (only column names); an AUC needs cases"


def check_stats(stats: dict, spec: ColumnSpec, examples: Callable[[str, Any], list]) -> None:
    """Raise the first applicable input error, naming column, problem and row count.

    ``stats`` holds the counts of one read of the data (see
    :class:`~aucpr_stats.ingest.polars_source.Collected`); ``examples(which,
    column)`` gives the first row numbers of a problem, for the message.
    """
    n_rows = stats["n_rows"]
    if n_rows == 0:
        raise InputError(NO_ROWS)
    for i, name in enumerate(spec.scores):
        count = stats[f"s_infinite_{i}"]
        if count:
            shown = examples("infinite", name)
            raise InputError(
                f"`score` column {name!r} has {count} infinite value{'s' * (count != 1)} "
                f"(first rows: {shown}); scores must be finite"
            )
    if stats["row_missing"]:
        if spec.missing == "error":
            parts = []
            if stats["y_missing"]:
                parts.append(f"`outcome` column {spec.outcome!r}: {stats['y_missing']}")
            for i, name in enumerate(spec.scores):
                if stats[f"s_missing_{i}"]:
                    parts.append(f"`score` column {name!r}: {stats[f's_missing_{i}']}")
            shown = examples("missing", None)
            what = "outcome or score" if not spec.multi_score else "outcome or score (in any score column)"
            raise MissingValueError(
                f"{stats['row_missing']} of {n_rows} rows have a missing (null or NaN) {what} "
                f"({'; '.join(parts)}; first rows: {shown}). Pass missing='drop' to drop them; "
                "the result then records how many were dropped per group"
            )
        if stats["row_missing"] == n_rows and not spec.multi_score:
            raise InputError(f"`data` has no rows left after dropping {n_rows} rows with missing values")
        for i, name in enumerate(spec.scores if spec.multi_score else ()):
            if stats[f"s_usable_{i}"] == 0:
                raise InputError(
                    f"`score` column {name!r} has no rows left after dropping rows with a missing "
                    "outcome or score"
                )

    levels = list(stats["levels"])
    n_levels = stats["n_levels"]
    shown = f"{levels}{' ...' if n_levels > len(levels) else ''}"
    if spec.positive is not None and stats["n_positive"] == 0:
        raise OutcomeError(
            f"`positive`={spec.positive!r} does not occur in `outcome` column {spec.outcome!r}; "
            f"its levels are {shown}"
        )
    if n_levels < 2:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has a single level {shown}; "
            "an AUC needs both positives and negatives"
        )
    if spec.positive is None and n_levels > 2:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has {n_levels} levels {shown}; "
            "pass `positive=` to name the positive level (all others are negative)"
        )
    if spec.positive is None and not set(levels) <= {0, 1, True, False}:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has levels {shown}, not 0/1; "
            "pass `positive=` to name the positive level"
        )
