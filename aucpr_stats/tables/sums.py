r"""A tie table that holds an engine's partial sums per group, not its rows.

When the collapsed tie table of an engine's input is larger than the limit on
what is collected, the statistics that are sums over the tie rows are still
exact without it: average precision, the lower trapezoid, A' and DeLong's
components ``S10`` and ``S01`` (the reader's sums road, ``docs/backends.md``).
:class:`EngineSums` is the source of a deferred
:class:`~aucpr_stats.ties.TieTable` holding one value of each per group and
the class counts. The estimator engine, A' and DeLong's components read the
stored values through :meth:`TieTable.stored <aucpr_stats.ties.TieTable.stored>`;
anything that needs the table's rows raises
:class:`~aucpr_stats.exceptions.TieTableTooLarge`, saying why the table was
not collected and what can be computed.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from ..exceptions import TieTableTooLarge
from ..ties import TieTable

__all__ = ["EngineSums", "summed_table"]


@attrs.frozen(eq=False)
class EngineSums:
    """The per-group statistics an engine summed, as the source of a deferred :class:`TieTable`.

    Attributes
    ----------
    n_pos, n_neg : ndarray of int64, shape (n_segments,)
        Class counts per group.
    values : dict
        Per-group arrays by key: estimator records (under the ``ties=`` rule
        they were summed with), ``"a_prime"``, ``"delong_s10"`` and
        ``"delong_s01"``. NaN for groups without both classes (and for
        ``S10``, ``S01`` below two cases of the class).
    reason : str
        Why the tie table was not collected.
    served : str
        What a result of these sums can give, for the message of what needs more.
    """

    n_pos: np.ndarray
    n_neg: np.ndarray
    values: dict
    reason: str
    served: str = ""

    @property
    def n_segments(self) -> int:
        return int(self.n_pos.size)

    def stored(self, key: Any) -> np.ndarray | None:
        """The stored values of ``key`` per group, or None."""
        return self.values.get(key)

    def _refuse(self) -> TieTableTooLarge:
        return TieTableTooLarge(
            f"this needs the rows of the tie table, and this result holds only the engine's partial sums per "
            f"group: {self.reason}. {self.served}. For the others, raise the limit with "
            "aucpr_stats.sql_input(data, max_tie_rows=...) if the driver has the memory, or coarsen the "
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
        return attrs.evolve(self, n_pos=self.n_pos[segments], n_neg=self.n_neg[segments],
                            values={key: value[segments] for key, value in self.values.items()})

    def spread(self, position: np.ndarray, n_groups: int) -> "EngineSums":
        """Group ``i`` moved to ``position[i]``, empty groups (no cases, NaN statistics) between."""
        def moved(values: np.ndarray, fill) -> np.ndarray:
            out = np.full(n_groups, fill, dtype=values.dtype)
            out[position] = values
            return out

        return attrs.evolve(self, n_pos=moved(self.n_pos, 0), n_neg=moved(self.n_neg, 0),
                            values={key: moved(value, np.nan) for key, value in self.values.items()})


def summed_table(n_pos: np.ndarray, n_neg: np.ndarray, values: dict, reason: str, served: str = "") -> TieTable:
    """The deferred :class:`TieTable` of an engine's partial sums (see :class:`EngineSums`)."""
    return TieTable.deferred(EngineSums(np.asarray(n_pos, dtype=np.int64), np.asarray(n_neg, dtype=np.int64),
                                        values, reason, served))
