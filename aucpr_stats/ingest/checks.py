"""The data checks of ingest: the errors raised after the one read of the data, whatever read it.

Every message names the column at fault, says what was wrong and how many
rows, and shows the first row numbers where that helps.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._validate import ColumnSpec
from ..exceptions import InputError, MissingValueError, OutcomeError

__all__ = ["check_stats", "check_key_names", "check_probabilities", "NO_ROWS", "RESULT_COLUMNS"]

#: The message for data with columns but no rows (a file with only a header).
NO_ROWS = "`data` has no rows (only column names); an AUC needs cases"


#: The columns of the frames results return (estimates, intervals, comparisons,
#: curves, bands, folds, publication tables) and the internal column ``n_rows``:
#: a grouping column cannot share a name with them.
RESULT_COLUMNS = frozenset({
    "estimator", "estimate", "n_pos", "n_neg", "prevalence", "note", "n_missing", "n_rows",
    "method", "level", "lower", "upper", "se", "z", "p_value", "correlation", "difference",
    "score", "score_a", "score_b", "estimate_a", "estimate_b", "n_pos_a", "n_pos_b", "n_neg_a", "n_neg_b",
    "boot_mean", "boot_median", "n_boot", "fold", "folds", "fold_mean",
    "threshold", "recall", "precision", "tp", "fp", "tpr", "fpr", "Positives", "Negatives",
})


def check_key_names(by: tuple, fold: str | None = None, between: tuple = ()) -> None:
    """Refuse, before any work, grouping columns whose names the result frames use.

    A key column sits next to the result's own columns in every frame, so a
    ``by`` (or ``between``, ``fold``) column named ``estimate`` or ``method``
    would give a frame with two columns of one name. Names that begin with two
    underscores are the library's internal columns.
    """
    roles = [("by", name) for name in by] + [("between", name) for name in between]
    roles += [("fold", fold)] if fold is not None else []
    for role, name in roles:
        # a fold column is not a key of the result frames (its folds have their own frame): only internal names
        if (name in RESULT_COLUMNS and role != "fold") or str(name).startswith("__"):
            why = ("names beginning with '__' (and 'n_rows') are reserved for the library's internal columns"
                   if str(name).startswith("__") or name == "n_rows" else
                   f"the result frames have a column {name!r} of their own")
            raise InputError(
                f"`{role}` column {name!r} cannot be used as a grouping column: {why}. "
                f"Rename it in `data` first (e.g. to {str(name).strip('_') + '_group'!r})"
            )
    for level_column in between:
        for suffix in ("_a", "_b"):  # a comparison between levels names its columns <between>_a, <between>_b
            if f"{level_column}{suffix}" in by:
                raise InputError(
                    f"`by` column {level_column + suffix!r} cannot be used with `between`={level_column!r}: "
                    f"the comparison frame names its level columns {level_column + '_a'!r} and "
                    f"{level_column + '_b'!r}. Rename it in `data` first"
                )


def _levels_text(counts: list[tuple]) -> str:
    """``'no' (50 rows), 'yes' (47 rows)`` from (level, rows) pairs."""
    return ", ".join(f"{level!r} ({rows} row{'s' * (rows != 1)})" for level, rows in counts)


def check_stats(stats: dict, spec: ColumnSpec, examples: Callable[[str, Any], Any],
                level_counts: Callable[[str], list] | None = None) -> None:
    """Raise the first applicable input error, naming column, problem and row count.

    ``stats`` holds the counts of one read of the data (see
    :mod:`aucpr_stats.ingest.stats`); ``examples(which,
    column)`` gives the first rows of a problem, for the message (row numbers,
    or a text such as ``index labels ['p17']``); ``level_counts(which)`` the
    outcome's levels with their row counts (``"all"``, or ``"neither"``
    positive nor negative), also only for messages.
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
    if spec.negative is not None:  # before the missing values: a misnamed level would make every row "neither"
        for role, count, named in (("positive", stats["n_positive"], spec.positive),
                                   ("negative", stats.get("n_negative", 1), list(spec.negative))):
            if count == 0:
                found = (_levels_text(level_counts("all")) if level_counts is not None
                         else repr(list(stats["levels"])))
                raise OutcomeError(
                    f"`{role}`={named!r} does not occur in `outcome` column {spec.outcome!r}; its levels are "
                    f"{found}"
                )
    if stats["row_missing"]:
        if spec.missing == "error":
            parts = []
            neither = stats.get("y_neither") or 0
            if stats["y_missing"] - neither:
                parts.append(f"`outcome` column {spec.outcome!r}: {stats['y_missing'] - neither}")
            if neither:
                found = f" (levels {_levels_text(level_counts('neither'))})" if level_counts is not None else ""
                parts.append(f"`outcome` column {spec.outcome!r} neither `positive`={spec.positive!r} nor "
                             f"`negative`={list(spec.negative)!r}: {neither}{found}")
            for i, name in enumerate(spec.scores):
                if stats[f"s_missing_{i}"]:
                    parts.append(f"`score` column {name!r}: {stats[f's_missing_{i}']}")
            shown = examples("missing", None)
            what = "outcome or score" if not spec.multi_score else "outcome or score (in any score column)"
            what = f"a missing (null or NaN) {what}" + (", or an outcome neither positive nor negative"
                                                         if neither else "")
            raise MissingValueError(
                f"{stats['row_missing']} of {n_rows} rows have {what} "
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
    if spec.positive is not None and spec.negative is None and n_levels > 2:
        counts = level_counts("all") if level_counts is not None else [(level, "?") for level in levels]
        more = " ..." if n_levels > len(counts) else ""
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has {n_levels} levels: {_levels_text(counts)}{more}. "
            f"With `positive`={spec.positive!r}, pass `negative=` to name the negative level(s); rows with "
            "any other level then count as missing outcomes (an error, or dropped with missing='drop')"
        )
    if spec.positive is None and n_levels > 2:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has {n_levels} levels {shown}; "
            "pass `positive=` to name the positive level and `negative=` the negative one(s)"
        )
    if spec.positive is None and not set(levels) <= {0, 1, True, False}:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has levels {shown}, not 0/1; "
            "pass `positive=` to name the positive level"
        )


def check_probabilities(ties, ingested, what: str) -> None:
    """Refuse scores outside [0, 1]: a logit or a raw score is not a predicted probability."""
    buckets = ties.class_buckets()
    if buckets is not None and (buckets[0].size == 0 or (buckets[0].min() >= 0.0 and buckets[0].max() <= 1.0)):
        return  # a deferred table's sorted classes answer without a merge
    outside = (ties.score < 0.0) | (ties.score > 1.0)
    if not outside.any():
        return
    score = ingested.spec.score
    names = ", ".join(map(repr, score)) if isinstance(score, tuple) else repr(score)
    low, high = float(ties.score.min()), float(ties.score.max())
    rows = int(np.rint(np.sum((ties.pos + ties.neg)[outside]))) if ingested.weight_sums is None else None
    count = f"{rows:,} row{'s' * (rows != 1)}" if rows is not None else "some rows"
    hint = (" (it looks like a logit or linear predictor: pass 1 / (1 + exp(-score)))" if low < 0.0
            else " (a percentage? divide by 100)" if high <= 100.0 else "")
    raise InputError(f"{what} needs predicted probabilities in [0, 1]; score column {names} holds values from "
                     f"{low:g} to {high:g}, {count} outside{hint}")
