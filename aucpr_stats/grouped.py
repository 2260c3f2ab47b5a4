"""What every per-group result shares: its key columns, its counts, and the request it came from.

:class:`GroupedResult` is the base of the result types (areas, curves,
cut-offs): it reads counts off the result's tie tables and the data
arguments of the call off its :class:`~aucpr_stats.request.Request`
(``result.design``, ``result.stated_prevalence``, ``result.direction``),
typed, never from a dict of strings. ``result.options`` is a read-only view
of the same facts, for code that printed or read it before.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

import numpy as np
import polars as pl

from ._validate import SCORE_KEY
from .estimators.tie_blocks import DEFAULT_TIES
from .exceptions import InputError
from .request import Design

__all__ = ["GroupedResult", "read_direction", "direction_signs"]


def read_direction(directions: Mapping) -> Any:
    """The direction the scores were read in: one word, or a dict by score when they differ (``"auto"``)."""
    chosen = set(directions.values())
    if not chosen:
        return "higher"
    return chosen.pop() if len(chosen) == 1 else dict(directions)


def direction_signs(direction: Any, keys: pl.DataFrame, score: Any) -> np.ndarray:
    """Per group, 1.0 where its score was read as given and -1.0 where it was negated (``direction="lower"``).

    ``direction`` is the word every score was read in (``"higher"`` or
    ``"lower"``), or a dict by score when ``direction="auto"`` read them
    different ways; with several scores ``keys`` holds the ``score`` key
    column that names each group's score. Thresholds read off a tie table
    are multiplied by the sign to return to the caller's scores.
    """
    n_groups = keys.height
    if not isinstance(direction, dict):
        return np.full(n_groups, -1.0 if direction == "lower" else 1.0)
    names = keys[SCORE_KEY].to_list() if isinstance(score, tuple) else [score] * n_groups
    return np.array([-1.0 if direction.get(name) == "lower" else 1.0 for name in names])


class GroupedResult:
    """What every per-group result shares: counts read off its tie tables (``self.ties``) and its key columns.

    The class needs ``ties``, ``keys`` (one row per group) and ``by`` (the key
    columns); a result made by a verb also has ``request`` (the
    :class:`~aucpr_stats.request.Request` of the call) and ``directions``
    (the direction each score was read in).
    """

    __slots__ = ()

    def key_frame(self, groups: np.ndarray) -> pl.DataFrame:
        """The key columns of the given groups, one row each (an empty frame when ungrouped)."""
        if not self.by:
            return pl.DataFrame()
        keys = self.keys.select(self.by)
        return keys[np.asarray(groups, dtype=np.int64).tolist()] if len(groups) else keys.clear()

    def with_keys(self, body: pl.DataFrame, groups: np.ndarray) -> pl.DataFrame:
        """``body`` (one row per entry of ``groups``) with the key columns of those groups in front."""
        if not self.by:
            return body
        shared = sorted(set(self.by) & set(body.columns))
        if shared:  # ingest refuses such key names; a result built by hand may still hold them
            raise InputError(f"group key column(s) {shared} have the names of result columns; rename them")
        return pl.concat([self.key_frame(groups), body], how="horizontal")

    @property
    def n_groups(self) -> int:
        """Number of groups (1 when ungrouped)."""
        return self.ties.n_segments

    @property
    def n_pos(self) -> np.ndarray:
        """Positives per group."""
        return self.ties.n_pos

    @property
    def n_neg(self) -> np.ndarray:
        """Negatives per group."""
        return self.ties.n_neg

    @property
    def prevalence(self) -> np.ndarray:
        """Observed proportion of positives per group (NaN for an empty group)."""
        total = self.n_pos + self.n_neg
        return np.divide(self.n_pos, total, out=np.full(total.shape, np.nan), where=total > 0)

    # ------------------------------------------------------------ the call's data arguments
    @property
    def design(self) -> Design:
        """How the rows were sampled (weights, clusters, folds, a stated prevalence): the request's design.

        A result made without a request (a simulation's tables) reads it off
        what it holds: clusters, weighted counts, or independent rows.
        """
        request = getattr(self, "request", None)
        if request is not None:
            return request.design
        if getattr(self, "clusters", None) is not None:
            return Design(cluster=self.clusters.column)
        return Design(weights="weights") if getattr(self, "weight_sums", None) is not None else Design()

    @property
    def stated_prevalence(self) -> float | None:
        """The population prevalence the areas are reported at (``prevalence=``), or None."""
        return self.design.prevalence

    @property
    def ties_rule(self) -> str:
        """How tie blocks holding both classes were crossed (``ties=``)."""
        request = getattr(self, "request", None)
        if request is not None:
            return request.ties
        records = getattr(self, "records", ())
        return records[0].ties if records else DEFAULT_TIES

    @property
    def direction(self) -> Any:
        """The direction the scores were read in: ``"higher"``, ``"lower"``, or a dict by score (``"auto"``)."""
        return read_direction(getattr(self, "directions", None) or {})

    @property
    def options(self) -> Mapping[str, Any]:
        """A read-only view of the call's data arguments (``positive``, ``direction``, ``prevalence`` ...).

        Every fact in it is also a typed attribute (:attr:`design`,
        :attr:`direction`, :attr:`stated_prevalence`, :attr:`ties_rule`, the
        request); nothing in the package reads this view.
        """
        request = getattr(self, "request", None)
        view: dict[str, Any] = {"ties": self.ties_rule, "direction": self.direction}
        if request is not None:
            spec, design = request.columns, request.design
            view |= {"positive": spec.positive, "negative": spec.negative, "missing": spec.missing,
                     "unused_levels": request.unused_levels}
            view |= {name: value for name, value in (("weights", design.weights), ("cluster", design.cluster),
                                                     ("fold", design.fold), ("prevalence", design.prevalence),
                                                     ("grid", request.reduction.grid)) if value is not None}
        window = next((record.window for record in getattr(self, "records", ()) if record.window is not None), None)
        if window is not None:
            view["partial"] = window.as_dict()
        settings = getattr(self, "settings", None)  # a cut-off call's own arguments
        if settings is not None:
            view |= settings.as_dict()
        return MappingProxyType(view)
