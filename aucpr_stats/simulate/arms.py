"""The interval arms of the coverage study: one per AUCPR interval method of the registry, on the coverage engine.

Each arm is ``arm(ties, estimates, estimator, level, rng, options) -> (lower,
upper, location)`` with ``estimator`` a registry record
(:class:`~aucpr_stats.estimators.registry.Estimator`), one value per
simulated data set (segment of ``ties``). It runs the method through the
coverage engine (:func:`~.coverage.block_intervals`), that is through
``conf_int``'s own driver: the interval a user gets, boundary fallback and
truncation included, each data set drawing from its own stream. The location
is what the interval is centred on (Boyd et al. 2013, Fig. 8; the method
record's ``location``): the estimate for the closed forms, the median of the
bootstrap replicates, the mean of the fold estimates for cross-validation.

:data:`INTERVAL_METHODS` is a live view of the interval registry
(:data:`aucpr_stats.intervals.INTERVAL_METHODS`): every AUCPR method valid
for independent rows, a method registered there included, and nothing kept
here.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Callable, Iterator

import numpy as np

from ..intervals import INTERVAL_METHODS as REGISTRY
from .coverage import block_intervals

__all__ = ["Arm", "INTERVAL_METHODS"]


class Arm:
    """The coverage-study arm of one interval method of a metric (see the module docstring)."""

    def __init__(self, method: str, metric: str = "aucpr"):
        self.method, self.metric = method, metric

    def __call__(self, ties, estimates, estimator, level: float, rng: Any, options: dict
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``options``: the method's keyword options (``n_boot``, ``folds``, ...); ``rng``: its randomness."""
        estimates = None if estimates is None else np.asarray(estimates, dtype=np.float64).reshape(-1, 1)
        out = block_intervals(ties, self.metric, [estimator], [self.method], level, rng=rng,
                              options={self.method: dict(options)}, estimates=estimates)
        intervals = out[(estimator.name, self.method)]
        return intervals.lower, intervals.upper, intervals.location

    def __repr__(self) -> str:
        return f"Arm({self.method!r}, metric={self.metric!r})"


class _Arms(MutableMapping):
    """The arms of a metric's methods for independent rows, read from the interval registry when asked.

    An entry set here replaces the arm of that name until deleted (a hook for
    tests that watch an arm); nothing else is stored.
    """

    def __init__(self, metric: str):
        self.metric = metric
        self._replaced: dict[str, Callable] = {}

    def _names(self) -> list[str]:
        return [name for name, m in REGISTRY[self.metric].items() if "rows" in m.designs]

    def __getitem__(self, name: str) -> Callable:
        if name in self._replaced:
            return self._replaced[name]
        if name not in self._names():
            raise KeyError(name)
        return Arm(name, self.metric)

    def __setitem__(self, name: str, arm: Callable) -> None:
        self._replaced[name] = arm

    def __delitem__(self, name: str) -> None:
        del self._replaced[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._names(), *self._replaced]))

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __repr__(self) -> str:
        return f"INTERVAL_METHODS({list(self)})"


#: Interval arms of :func:`aucpr_stats.simulate.coverage_study`, by method name: every AUCPR method of the
#: interval registry valid for independent rows.
INTERVAL_METHODS = _Arms("aucpr")
