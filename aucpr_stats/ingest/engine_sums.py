r"""Results from the engine's partial sums: a tie table that holds its statistics, not its rows.

When the collapsed tie table of a DuckDB, Parquet or Spark input is larger
than ``max_tie_rows`` (continuous scores at a high prevalence keep about two
rows per positive), the statistics that are sums over the tie rows are still
exact without it (:mod:`.sql_sums`): average precision, the lower trapezoid,
A' and DeLong's components ``S10`` and ``S01``. :func:`summed_tables` runs
that query for every score and returns a deferred
:class:`~aucpr_stats.ties.TieTable` whose source, :class:`EngineSums`, holds
one value of each statistic per group, and the class counts. The estimator
engine (:func:`~aucpr_stats.estimators.engine.evaluate`), A' and DeLong's
components read the stored values through :meth:`TieTable.stored
<aucpr_stats.ties.TieTable.stored>`; so do the intervals that need nothing
more than an estimate, its standard error and the class counts:

* AUCPR: ``"logit"``, ``"binomial"``, ``"wilson"`` (Boyd, Eng & Page 2013,
  section 4), with the boundary fallback (perfect separation is A' = 1);
* AUROC: ``"delong"``, ``"logit"``, ``"hanley_mcneil"``, ``"newcombe"``.

Which estimators these are is their registry records' ``summable``; which
intervals, the interval records' ``needs_rows``. Anything that needs the
table's rows (the bootstrap, the other estimators, curves, the influence and
per-positive intervals) raises :class:`~aucpr_stats.exceptions.TieTableTooLarge`,
which says why the table was not collected and what can be computed.
"""

from __future__ import annotations

import attrs
import numpy as np
import polars as pl

from ..estimators.registry import ESTIMATORS
from ..exceptions import TieTableTooLarge
from ..ties import TieTable
from .sql_table import SCORE_INDEX

__all__ = ["EngineSums", "summed_tables"]


def _served() -> str:
    summed = {metric: ", ".join(name for name, record in registry.items() if record.summable)
              for metric, registry in ESTIMATORS.items()}
    return (f"From the partial sums this result can give the AUCPR estimators {summed['aucpr']} and the AUROC "
            f"estimator {summed['auroc']}, with the intervals that need only the estimate, its standard error and "
            "the class counts (conf_int(method='all') lists them)")


@attrs.frozen(eq=False)
class EngineSums:
    """The per-group statistics an engine summed, as the source of a deferred :class:`TieTable`.

    Attributes
    ----------
    n_pos, n_neg : ndarray of int64, shape (n_segments,)
        Class counts per group.
    values : dict
        Per-group arrays by key: the records of the summable estimators
        (under the ``ties=`` option they were summed with), ``"a_prime"``, ``"delong_s10"`` and ``"delong_s01"``.
        NaN for groups without both classes (and for ``S10``, ``S01``
        below two cases of the class).
    reason : str
        Why the tie table was not collected (for the message of what needs it).
    """

    n_pos: np.ndarray
    n_neg: np.ndarray
    values: dict
    reason: str

    @property
    def n_segments(self) -> int:
        return int(self.n_pos.size)

    def stored(self, key) -> np.ndarray | None:
        """The stored values of ``key`` per group, or None."""
        return self.values.get(key)

    def _refuse(self) -> TieTableTooLarge:
        return TieTableTooLarge(
            f"this needs the rows of the tie table, and this result holds only the engine's partial sums per "
            f"group: {self.reason}. {_served()}. For the others, raise the limit with "
            "aucpr_stats.ingest.sql_input(data, max_tie_rows=...) if the driver has the memory, or coarsen the "
            "scores in the engine first")

    def full_table(self) -> TieTable:
        raise self._refuse()

    def positive_rows(self):
        raise self._refuse()

    def collapsed_table(self) -> TieTable:
        """Itself: the statistics that read the collapsed table read the stored sums."""
        return TieTable.deferred(self)

    def take(self, segments: np.ndarray) -> "EngineSums":
        """The groups ``segments``, in that order."""
        return EngineSums(self.n_pos[segments], self.n_neg[segments],
                          {key: value[segments] for key, value in self.values.items()}, self.reason)

    def spread(self, position: np.ndarray, n_groups: int) -> "EngineSums":
        """Group ``i`` moved to ``position[i]``, empty groups (no cases, NaN statistics) between."""
        def moved(values: np.ndarray, fill) -> np.ndarray:
            out = np.full(n_groups, fill, dtype=values.dtype)
            out[position] = values
            return out

        return EngineSums(moved(self.n_pos, 0), moved(self.n_neg, 0),
                          {key: moved(value, np.nan) for key, value in self.values.items()}, self.reason)


def summed_tables(table, spec, sql, by: list[str], directions: dict, ties: str, reason: str
                  ) -> tuple[TieTable, pl.DataFrame]:
    """The deferred table of the engine's partial sums, and the keys frame, as ``Collected.build()`` returns them.

    One query per score (:func:`.sql_sums.sum_query`); groups sorted by their
    keys ascending, nulls last, then by score in the order given (the key
    column ``__aucpr_k`` with several scores), as the tie-table road sorts them.
    """
    from .sql_sums import sum_query, summed_statistics

    parts = []
    for k, name in enumerate(spec.scores):
        frame = table.run(sum_query(table, name, sql, by, "1", directions[name], ties))
        frame = frame.with_columns(pl.lit(k, dtype=pl.UInt32).alias(SCORE_INDEX)) if spec.multi_score else frame
        parts.append(frame)
    keys_by = [*by, *((SCORE_INDEX,) if spec.multi_score else ())]
    frame = pl.concat(parts, how="vertical_relaxed") if len(parts) > 1 else parts[0]
    if keys_by:
        frame = frame.sort(keys_by, nulls_last=True)
    stats = summed_statistics(frame)
    registry = ESTIMATORS["aucpr"]
    values = {registry["average_precision"].under(ties): stats["average_precision"],
              registry["lower_trapezoid"].under(ties): stats["lower_trapezoid"],
              "a_prime": stats["a_prime"], "delong_s10": stats["s10"], "delong_s01": stats["s01"]}
    sums = EngineSums(stats["n_pos"], stats["n_neg"], values, reason)
    n_missing = stats["n_missing"]
    counts = pl.DataFrame([pl.Series("n_missing", n_missing, dtype=pl.Int64),
                           pl.Series("n_rows", stats["n_pos"] + stats["n_neg"] + n_missing, dtype=pl.Int64)])
    keys = pl.concat([frame.select(keys_by), counts], how="horizontal") if keys_by else counts
    return TieTable.deferred(sums), keys
