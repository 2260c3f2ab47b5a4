"""What every interval method computes from: one request per ``conf_int`` call, one view of it per method."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..resample import Streams, key_words, root_sequence
from .options import MethodOptions

__all__ = ["IntervalRequest"]


class IntervalRequest:
    """A result, a level and one method's checked options, with what the methods of a call share.

    The driver builds one request per call and hands each method its own
    view (:meth:`for_method`): the same result, groups, tables, ``extras``
    and random roots, with that method's options.

    Attributes
    ----------
    result : EstimateResult
    level : float
    options : MethodOptions
        The method's options (its record's ``options`` class), checked and
        resolved for the result: ``request.options.n_boot``.
    progress : bool or None
        Whether loops show a progress bar (:mod:`aucpr_stats.progress`).
    estimators : tuple of Estimator
        The registry records of the result's estimators.
    usable : ndarray of int64
        The groups with both classes (the others get NaN and their note).
    usable_mask : ndarray of bool, shape (n_groups,)
    ties : TieTable
        The tie tables of the usable groups.
    extras : dict
        Side outputs and caches shared by the methods of the call (the
        per-fold frame of cross-validation, Obuchowski's components).
    """

    def __init__(self, result: Any, level: float, options: MethodOptions | None = None, progress: Any = None):
        self.result = result
        self.level = level
        self.options = MethodOptions() if options is None else options
        self.progress = progress
        self.estimators = tuple(result.estimator_records())
        self.usable_mask = result.ties.has_both_classes()
        self.usable = np.flatnonzero(self.usable_mask)
        self.ties = result.ties if self.usable_mask.all() else result.ties.take(self.usable)
        self.extras: dict[str, Any] = {}
        self._roots: dict[int, tuple[Any, np.random.SeedSequence]] = {}

    def for_method(self, options: MethodOptions) -> "IntervalRequest":
        """This request with one method's options; everything else (extras, random roots) shared."""
        view = copy.copy(self)
        view.options = options
        return view

    @property
    def shape(self) -> tuple[int, int]:
        """(groups, estimators): the shape of every array a method returns."""
        return self.result.n_groups, len(self.estimators)

    def blank(self) -> np.ndarray:
        """A (groups, estimators) array of NaN."""
        return np.full(self.shape, np.nan)

    def streams(self, purpose: str) -> Streams:
        """One random stream per usable group, from the method's ``rng``, the purpose and the group's key.

        The root is drawn from ``rng`` once per call and value: methods of
        one call given the same ``rng`` (the keyword form) share it, and a
        Generator ``rng`` advances once.
        """
        rng = self.options.rng
        if id(rng) not in self._roots:  # the value is kept with its root, so its id is not reused
            self._roots[id(rng)] = (rng, root_sequence(rng))
        root = self._roots[id(rng)][1]
        keys = self.result.keys[self.usable.tolist()] if self.usable.size < self.result.n_groups else self.result.keys
        return Streams(root, purpose, key_words(keys, self.result.by))
