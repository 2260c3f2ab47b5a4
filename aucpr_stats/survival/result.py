"""The result of a time-to-event call: AUC(t) or AP(t) per group, score and horizon."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from ..estimators.registry import Estimator
from ..exceptions import InputError
from ..report.display import TabularResult
from ..ties import TieTable
from .areas import HorizonWeights, ScoreRanks
from .compare import TimeDependentComparison, compare_scores
from .intervals import TimeDependentIntervals, time_dependent_intervals
from .rows import SurvivalRows

__all__ = ["TimeDependentResult"]


@attrs.frozen(eq=False)
class TimeDependentResult(TabularResult):
    """Cumulative/dynamic areas of a time-to-event outcome (``time=``, ``event=``, ``horizon=`` on the verbs).

    At each horizon ``t`` the cases are the rows with an event by ``t``, the
    controls the rows event-free after ``t``, both weighted by the inverse
    probability of not being censored (:mod:`aucpr_stats.survival.areas`).
    ``n_pos`` and ``n_neg`` count them (unweighted), ``n_censored`` the rows
    censored by ``t`` (neither), and ``prevalence`` is the censoring-weighted
    cumulative incidence :math:`\\hat P(T \\le t)`: the share of the weight
    that is cases.

    Attributes
    ----------
    metric : {"aucpr", "auroc"}
    rows : SurvivalRows
    horizons : ndarray of float64
    record : Estimator
    ranks : ScoreRanks
    weights : HorizonWeights
        The censoring weights of the data (one weighting).
    ties : TieTable
        Segments (group, score, horizon).
    estimates : ndarray, shape (n_groups, n_scores, H)
    counts : dict of ndarray, each (n_groups, H)
    notes : ndarray of object, shape (n_groups, n_scores, H)
    """

    metric: str
    rows: SurvivalRows
    horizons: np.ndarray
    record: Estimator
    ranks: ScoreRanks
    weights: HorizonWeights
    ties: TieTable
    estimates: np.ndarray
    counts: dict
    notes: np.ndarray

    @property
    def frame_kind(self) -> Any:
        return self.rows.output

    @property
    def estimator(self) -> str:
        return self.record.name

    @property
    def estimate(self) -> float:
        """The one area of an ungrouped call with one score and one horizon."""
        if self.estimates.size != 1:
            raise InputError("`.estimate` is the one area of an ungrouped call with one score and one horizon; "
                             f"this result has {self.estimates.size}: use .to_frame()")
        return float(self.estimates.ravel()[0])

    def key_names(self, with_score: bool = True) -> list[str]:
        """The key columns of the frame: the groups', then ``score`` when there are several."""
        return list(self.rows.by) + (["score"] if with_score and self.rows.n_scores > 1 else [])

    def to_polars(self) -> pl.DataFrame:
        """One row per group, score (``score``, when several) and horizon."""
        rows = self.rows
        n_groups, n_scores, n_horizons = self.estimates.shape
        per_cell = n_scores * n_horizons
        columns: dict[str, Any] = {}
        if rows.by:
            keys = rows.keys.select(list(rows.by))
            columns.update({c: keys.get_column(c).gather(np.repeat(np.arange(n_groups), per_cell))
                            for c in rows.by})
        if n_scores > 1:
            columns["score"] = np.tile(np.repeat(np.array(rows.score_names, dtype=object), n_horizons),
                                       n_groups).tolist()
        size = n_groups * per_cell

        def by_horizon(values: np.ndarray) -> np.ndarray:  # (G, H) -> every (g, m, h)
            return np.repeat(values[:, None, :], n_scores, axis=1).ravel()

        columns.update({
            "horizon": np.tile(self.horizons, n_groups * n_scores),
            "estimator": [self.estimator] * size,
            "estimate": self.estimates.ravel(),
            "n": by_horizon(self.counts["n"]),
            "n_pos": by_horizon(self.counts["n_cases"]),
            "n_neg": by_horizon(self.counts["n_controls"]),
            "n_censored": by_horizon(self.counts["n_censored"]),
            "prevalence": pl.Series(by_horizon(self.counts["incidence"]), nan_to_null=True),
            "n_missing": np.repeat(rows.n_missing, per_cell),
            "note": pl.Series(list(self.notes.ravel()), dtype=pl.String),
        })
        return pl.DataFrame(columns)

    def _title(self) -> str:
        what = "AUC(t)" if self.metric == "auroc" else "AP(t)"
        return (f"Time-dependent {what} (cumulative/dynamic, censoring-weighted) of {self.rows.time_name} with "
                f"event {self.rows.event_name}")

    def conf_int(self, method: str | None = None, level: float = 0.95, *, scale: str = "logit",
                 conservative: bool = False, band: bool = False, n_boot: int = 2000, rng: Any = None,
                 seed: Any = None, progress: Any = None) -> TimeDependentIntervals:
        """Confidence intervals of every area, and optionally a simultaneous band over the horizons.

        Parameters
        ----------
        method : {"influence", "bootstrap"}, optional
            ``"influence"`` (default): the influence-function (iid) standard
            error with the estimation of the censoring distribution included
            (Blanche, Dartigues & Jacqmin-Gadda 2013;
            :mod:`aucpr_stats.survival.influence`). ``"bootstrap"``: rows (or
            clusters) re-drawn within each group, the censoring distribution
            re-fitted in each replicate, percentile interval
            (:mod:`aucpr_stats.survival.bootstrap`).
        level : float
        scale : {"logit", "identity"}
            The influence interval's scale: the logit (default; inside (0, 1))
            or the area's own (truncated to [0, 1]; riskRegression's and
            timeROC's interval).
        conservative : bool
            Leave the censoring distribution's estimation out of the variance
            (riskRegression's ``conservative=TRUE``): wider in general.
        band : bool
            Add ``band_lower``/``band_upper``: a simultaneous band over the
            horizons of each group and score (see :mod:`aucpr_stats.survival.intervals`).
        n_boot : int
        rng, seed
            The bootstrap's and the band's random state (``seed`` an alias).
        progress : bool, optional
            A progress bar for the bootstrap.

        Returns
        -------
        TimeDependentIntervals
        """
        return time_dependent_intervals(self, method, level, scale=scale, conservative=conservative, band=band,
                                        n_boot=n_boot, rng=rng, seed=seed, progress=progress)

    def compare(self, first: str | None = None, second: str | None = None, *, method: str | None = None,
                level: float = 0.95, conservative: bool = False, n_boot: int = 2000, rng: Any = None,
                seed: Any = None, progress: Any = None) -> TimeDependentComparison:
        """Paired comparison of two scores at every horizon and group (see :mod:`aucpr_stats.survival.compare`).

        ``first`` and ``second`` name score columns (by default the result's
        two); ``method`` is ``"influence"`` (default) or ``"bootstrap"``.
        """
        return compare_scores(self, first, second, method=method, level=level, conservative=conservative,
                              n_boot=n_boot, rng=rng, seed=seed, progress=progress)

    def plot(self, ax: Any = None, *, method: str | None = None, band: bool = True, level: float = 0.95,
             rng: Any = None, seed: Any = None, title: str | None = None):
        """The area against the horizon with pointwise intervals and a simultaneous band (needs two or more horizons).

        ``rng``/``seed`` fix the band's quantile; see :meth:`conf_int`.
        """
        if self.horizons.size < 2:
            raise InputError("a curve over time needs two or more horizons: pass horizon=[...] (e.g. "
                             "numpy.linspace over the follow-up)")
        intervals = self.conf_int(method, level, band=band, rng=rng, seed=seed)
        return intervals.plot(ax, title=title)
