"""Case weights (``weights=``): their checks, after the one read of the data.

A weight column turns every count of the tie table into a sum of weights:
``pos`` at a score is the total weight of the positives with that score, and
likewise ``neg`` (so :class:`~aucpr_stats.ties.TieTable` holds float64 counts).
Every estimator reads those as counts. The rows are reduced by one group-by
on (keys, score, weight): a cell holds the rows of one class count for each
distinct (score, weight) pair (:mod:`aucpr_stats.tables.weighted`). The
weight column is read as float64 by :mod:`.coding`; here negative and
infinite weights are refused, and missing ones unless ``missing="drop"``.

What the weights mean: frequency weights (a row standing for ``w`` identical
rows: integer weights give exactly the result of replicating rows), sampling
or inverse-probability weights (a row standing for ``w`` population members).
Not supported: a full survey design (strata and primary sampling units
beyond one ``cluster=`` column, finite-population corrections, calibration).
"""

from __future__ import annotations

from ..exceptions import InputError, MissingValueError

__all__ = ["check_weights"]


def check_weights(stats: dict, name: str, missing_policy: str, examples) -> None:
    """Refuse negative or infinite weights, and missing ones unless ``missing="drop"``; the message names rows."""
    for key, what in (("w_negative", "negative"), ("w_infinite", "infinite")):
        count = stats.get(key, 0)
        if count:
            raise InputError(
                f"`weights` column {name!r} has {count} {what} value{'s' * (count != 1)} (first rows: "
                f"{examples(key, None)}); weights must be finite and >= 0"
            )
    count = stats.get("w_missing", 0)
    if count and missing_policy == "error":
        raise MissingValueError(
            f"`weights` column {name!r} has {count} missing (null or NaN) value{'s' * (count != 1)} "
            f"(first rows: {examples('w_missing', None)}). Pass missing='drop' to drop those rows; the result "
            "then records how many were dropped per group"
        )
