"""The result of a multiclass call: per-class or per-pair areas and their averages, per group and model."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from ..estimators.registry import Estimator
from ..exceptions import InputError
from ..report.display import TabularResult
from ..plot.multiclass import multiclass_curves
from ..tables.multiclass import AreaCells
from .compare import compare_models
from .frames import key_columns, row_counts
from .intervals import multiclass_intervals
from .rows import Rows
from .statistics import Layout

__all__ = ["MulticlassResult"]

_SCHEME_WORDS = {"ovr": "one-vs-rest", "ovo": "one-vs-one", "hand_till": "Hand & Till"}


@attrs.frozen(eq=False)
class MulticlassResult(TabularResult):
    """Areas of a multiclass outcome (``multiclass=`` on :func:`~aucpr_stats.aucpr` and :func:`~aucpr_stats.auroc`).

    Attributes
    ----------
    metric : {"aucpr", "auroc"}
    scheme : {"ovr", "ovo", "hand_till"}
    outcome : str
    rows : Rows
        The usable rows, numbered by group (:mod:`aucpr_stats.multiclass.rows`).
    layout : Layout
        The reported rows (:mod:`aucpr_stats.multiclass.statistics`).
    cells, micro : AreaCells
        The tie tables of the binary areas and of the micro average.
    records : tuple of Estimator
    area_values : ndarray, shape (n_groups, n_models, n_areas)
    estimates : ndarray, shape (n_groups, n_models, n_rows)
    notes : ndarray of object, shape (n_groups, n_models, n_rows)
    """

    metric: str
    scheme: str
    outcome: str
    rows: Rows
    layout: Layout
    cells: AreaCells
    micro: AreaCells | None
    records: tuple[Estimator, ...]
    area_values: np.ndarray
    estimates: np.ndarray
    notes: np.ndarray

    @property
    def frame_kind(self) -> Any:
        return self.rows.output

    @property
    def n_models(self) -> int:
        return len(self.rows.models.names)

    @property
    def levels(self) -> tuple:
        return self.rows.levels

    @property
    def models(self) -> tuple[str, ...]:
        return self.rows.models.names

    @property
    def estimator(self) -> str:
        return self.records[0].name

    @property
    def estimate(self) -> float:
        """The one average of an ungrouped, one-model call (``average=`` naming one)."""
        averages = [r for r, kind in enumerate(self.layout.kind) if kind == "average"]
        if self.rows.by or self.n_models != 1 or len(averages) != 1:
            raise InputError("`.estimate` is the one average of an ungrouped call with one model and one "
                             "`average=`; this result has several rows: use .to_frame()")
        return float(self.estimates[0, 0, averages[0]])

    def counts(self) -> dict[str, np.ndarray]:
        """Per (group, model, row): the rows, the cases and the controls (class ``j`` and ``k`` for a pair)."""
        return row_counts(self.rows, self.layout, self.estimates.shape)

    def to_polars(self) -> pl.DataFrame:
        """One row per group, model (``score``, when several) and class, pair or average."""
        counts = self.counts()
        keys = key_columns(self.rows, self.layout, self.n_models)
        with np.errstate(invalid="ignore", divide="ignore"):
            prevalence = counts["n_pos"] / counts["n"]
        values = pl.DataFrame({
            "estimator": [self.estimator] * keys.height,
            "estimate": self.estimates.ravel(),
            "n": counts["n"].ravel().astype(np.int64),
            "n_pos": pl.Series(counts["n_pos"].ravel(), nan_to_null=True).cast(pl.Int64),
            "n_neg": pl.Series(counts["n_neg"].ravel(), nan_to_null=True).cast(pl.Int64),
            "prevalence": pl.Series(prevalence.ravel(), nan_to_null=True),
            "n_missing": np.repeat(self.rows.n_missing, self.n_models * self.layout.n_rows),
            "note": pl.Series(list(self.notes.ravel()), dtype=pl.String),
        })
        return pl.concat([keys, values], how="horizontal")

    def _title(self) -> str:
        what = "AUCPR" if self.metric == "aucpr" else "AUROC"
        return f"Multiclass {what} ({_SCHEME_WORDS[self.scheme]}) of {self.outcome}, {len(self.levels)} classes"

    def conf_int(self, method: str | None = None, level: float = 0.95, *, n_boot: int = 2000, rng: Any = None,
                 seed: Any = None, progress: Any = None):
        """Confidence intervals of every row: ``"delong"`` (AUROC) or ``"bootstrap"`` (every area).

        Parameters
        ----------
        method : {"delong", "bootstrap"}, optional
            ``"delong"`` (the default for AUROC's A'): the multivariate DeLong
            variance of the areas on the same rows (exact covariance of the
            classes' and pairs' areas), a Wald interval truncated to [0, 1]
            (:mod:`aucpr_stats.multiclass.delong`). ``"bootstrap"`` (the
            default for AUCPR): the class-stratified (or cluster) bootstrap,
            every area re-estimated on the same replicate, percentile interval
            (:mod:`aucpr_stats.multiclass.bootstrap`).
        level : float
        n_boot : int
        rng, seed
            The bootstrap's random state (``seed`` an alias).
        progress : bool, optional
            A progress bar for the bootstrap (:mod:`aucpr_stats.progress`).

        Returns
        -------
        MulticlassIntervals
        """
        return multiclass_intervals(self, method=method, level=level, n_boot=n_boot, rng=rng, seed=seed,
                                    progress=progress)

    def compare(self, first: str | None = None, second: str | None = None, *, method: str | None = None,
                level: float = 0.95, n_boot: int = 2000, rng: Any = None, seed: Any = None, progress: Any = None):
        """Paired comparison of two models on the same rows: every class (pair) and average, per group.

        ``first`` and ``second`` name models (the ``score`` column); by
        default the result's two models. ``method``: ``"delong"`` (AUROC:
        the difference's linearisation, DeLong's paired test on each area)
        or ``"bootstrap"`` (the same replicates for both models).

        Returns
        -------
        MulticlassComparison
        """
        return compare_models(self, first, second, method=method, level=level, n_boot=n_boot, rng=rng, seed=seed,
                              progress=progress)

    def plot(self, ax: Any = None, **kwargs: Any):
        """One-vs-rest curves, one per class (ROC for AUROC, precision-recall for AUCPR), per group and model.

        See :func:`aucpr_stats.plot.multiclass_curves`.
        """
        return multiclass_curves(self, ax=ax, **kwargs)
