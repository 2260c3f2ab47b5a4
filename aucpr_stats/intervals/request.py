"""What every interval method computes from: one request per ``conf_int`` call."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..resample import Streams, key_words, root_sequence

__all__ = ["IntervalRequest"]


class IntervalRequest:
    """A result, a level and checked options, with what the methods share.

    Attributes
    ----------
    result : EstimateResult
    level : float
    options : dict
        Every option of every method, checked, defaults filled in.
    estimators : tuple of Estimator
        The registry records of the result's estimators.
    usable : ndarray of int64
        The groups with both classes (the others get NaN and their note).
    usable_mask : ndarray of bool, shape (n_groups,)
    ties : TieTable
        The tie tables of the usable groups.
    extras : dict
        Side outputs of a method (the per-fold frame of cross-validation).
    """

    def __init__(self, result: Any, level: float, options: dict):
        self.result = result
        self.level = level
        self.options = options
        self.estimators = tuple(result.estimator_records())
        self.usable_mask = result.ties.has_both_classes()
        self.usable = np.flatnonzero(self.usable_mask)
        self.ties = result.ties if self.usable_mask.all() else result.ties.take(self.usable)
        self.extras: dict[str, Any] = {}
        self._root = None

    @property
    def shape(self) -> tuple[int, int]:
        """(groups, estimators): the shape of every array a method returns."""
        return self.result.n_groups, len(self.estimators)

    def blank(self) -> np.ndarray:
        """A (groups, estimators) array of NaN."""
        return np.full(self.shape, np.nan)

    def streams(self, purpose: str) -> Streams:
        """One random stream per usable group, from the seed, the purpose and the group's key.

        The root is drawn from ``seed`` once per request, so every method of
        one call shares it and a Generator ``seed`` advances once.
        """
        if self._root is None:
            self._root = root_sequence(self.options["seed"])
        keys = self.result.keys[self.usable.tolist()] if self.usable.size < self.result.n_groups else self.result.keys
        return Streams(self._root, purpose, key_words(keys, self.result.by))
