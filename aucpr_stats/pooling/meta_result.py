"""The result of ``result.meta()``: pooled rows, the sites behind them, leave-one-site-out, the forest plot."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from ..plot.forest import forest_plot
from ..report.display import TabularResult
from ..combine.random_effects import random_effects

__all__ = ["MetaResult", "back_transform"]

_TAU2_NAMES = {"REML": "REML", "DL": "DerSimonian-Laird", "PM": "Paule-Mandel"}
_CI_NAMES = {"hksj": "Hartung-Knapp-Sidik-Jonkman", "hksj_adhoc": "Hartung-Knapp-Sidik-Jonkman (ad hoc)",
             "wald": "Wald"}


def back_transform(scale: Any, values: np.ndarray) -> np.ndarray:
    """Values on the pooling scale (one word, or one per value) back on the natural scale."""
    values = np.asarray(values, dtype=np.float64)
    scale = np.broadcast_to(np.asarray(scale, dtype=object), values.shape)
    with np.errstate(over="ignore"):
        return np.where(scale == "logit", 1.0 / (1.0 + np.exp(-values)),
                        np.where(scale == "log", np.exp(values), values))


@attrs.frozen(eq=False, repr=False)
class MetaResult(TabularResult):
    """Random-effects meta-analyses of a per-site result, one row per score, estimator and split level.

    Attributes
    ----------
    table : polars.DataFrame
        One row per meta-analysis: the splitting columns, ``estimator``,
        ``method`` (tau²), ``ci``, ``scale`` (of the pooling), ``k`` (sites
        pooled), ``estimate``, ``lower``, ``upper`` (the pooled value and its
        interval, natural scale), ``level``, ``pooled`` and ``se`` (on the
        pooling scale), ``df`` (of the t quantile; null for Wald),
        ``pi_lower``, ``pi_upper`` (prediction interval), ``tau2`` with
        ``tau2_lower``/``tau2_upper`` (Q-profile), ``tau``, ``i_squared``
        with its bounds, ``h_squared``, Cochran's ``q``, ``q_df``,
        ``q_p_value``, ``note``.
    sites : polars.DataFrame
        One row per site and analysis: keys, ``estimator``, ``estimate``,
        ``lower``/``upper`` (the site's Wald interval on the pooling scale,
        back-transformed), ``scale``, ``theta`` and ``variance`` (on the
        pooling scale), ``weight`` (share of the random-effects weight),
        ``used``, ``reason``.
    result : the per-site result pooled
    method, ci, level, variance_method, across, split, prediction_interval
        The choices of the call.
    """

    table: pl.DataFrame = attrs.field(eq=False)
    sites: pl.DataFrame = attrs.field(eq=False)
    result: Any = attrs.field(eq=False)
    method: str
    ci: str
    level: float
    variance_method: str
    across: tuple
    split: tuple
    prediction_interval: Any

    # ------------------------------------------------------------ what the result is about
    @property
    def frame_kind(self) -> str:
        return self.result.frame_kind

    @property
    def metric(self) -> str:
        return self.result.metric

    @property
    def by(self) -> tuple:
        return tuple(self.result.by)

    @property
    def score(self) -> Any:
        return self.result.score

    def to_polars(self) -> pl.DataFrame:
        """The pooled rows as a polars DataFrame."""
        return self.table

    def sites_frame(self):
        """The sites behind each analysis (used or left out, and why), in the caller's frame type."""
        return _frames.to_caller(self.sites, self.frame_kind)

    def _single(self, column: str) -> float:
        if self.table.height != 1:
            raise AttributeError(f"`.{column}` is defined for a result with one meta-analysis; this one has "
                                 f"{self.table.height}: use `.to_frame()`")
        value = self.table[column][0]
        return float("nan") if value is None else float(value)

    @property
    def estimate(self) -> float:
        """The pooled value (natural scale), for a result with one meta-analysis."""
        return self._single("estimate")

    @property
    def tau2(self) -> float:
        """The between-site variance on the pooling scale, for a result with one meta-analysis."""
        return self._single("tau2")

    def description(self) -> str:
        """The method in words, for titles and footnotes."""
        pi = {True: "; prediction interval with the same quantile", False: "",
              "riley": "; prediction interval with t on k - 2 df (Riley)"}[self.prediction_interval]
        return (f"random effects, tau\u00b2 by {_TAU2_NAMES[self.method]}, {_CI_NAMES[self.ci]} interval"
                f"{pi}; site variances: {self.variance_method}")

    def _title(self) -> str:
        metric = {"auroc": "AUROC", "aucpr": "AUCPR", "calibration": "Calibration",
                  "net_benefit": "Net benefit"}[self.metric]
        return f"Meta-analysis of {metric} across {', '.join(self.across)}: {self.description()}"

    def _shown(self, digits: int) -> pl.DataFrame:
        drop = ["ci", "method", "pooled", "se", "h_squared", "level", "i_squared_lower", "i_squared_upper"]
        frame = self.table.drop([c for c in drop if c in self.table.columns])
        return frame.drop("note") if frame["note"].null_count() == frame.height else frame

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.table.height == 1:
            row = self.table.row(0, named=True)
            return (f"{name}({self.metric}, {self.method}, {self.ci}, estimate={row['estimate']:.4g}, "
                    f"lower={row['lower']:.4g}, upper={row['upper']:.4g}, tau2={row['tau2']:.4g}, k={row['k']})")
        return f"{name}({self.metric}, {self.method}, {self.ci}, analyses={self.table.height})"

    # ------------------------------------------------------------ leave one site out
    def leave_one_out(self):
        """Each analysis refitted without each of its sites in turn (metafor's ``leave1out``).

        Returns
        -------
        DataFrame (the caller's type)
            One row per analysis and site left out: the splitting columns,
            ``estimator``, the site's keys (prefixed ``left_out_``),
            ``k``, ``estimate``, ``lower``, ``upper``, ``pi_lower``,
            ``pi_upper``, ``tau2``, ``i_squared``, ``q``, ``q_p_value``.
        """
        cells = [*self.split, "estimator"]
        sites = self.sites.filter(pl.col("used")).with_row_index("__row")
        keyed = sites.join(self.table.select(cells).with_row_index("__cell"), on=cells, nulls_equal=True,
                           how="left", maintain_order="left")
        cell = keyed["__cell"].to_numpy().astype(np.int64)
        theta, variance = sites["theta"].to_numpy(), sites["variance"].to_numpy()
        # the sites of each analysis side by side; problem i is site i's analysis without site i
        order = np.argsort(cell, kind="stable")
        starts = np.searchsorted(cell[order], cell[order])
        place = np.empty(cell.size, dtype=np.int64)
        place[order] = np.arange(cell.size) - starts
        width = int(place.max()) + 1 if place.size else 0
        n_cells = int(cell.max()) + 1 if cell.size else 0
        y = np.zeros((n_cells, width))
        v = np.ones((n_cells, width))
        held = np.zeros((n_cells, width), dtype=bool)
        y[cell, place], v[cell, place], held[cell, place] = theta, variance, True
        mask = held[cell].copy()
        mask[np.arange(cell.size), place] = False
        fit = random_effects(y[cell], v[cell], mask, method=self.method, ci=self.ci, level=self.level,
                             prediction="riley" if self.prediction_interval == "riley" else "same")
        scale = sites["scale"].to_numpy()
        site_keys = sites.select(list(self.across)).rename({c: f"left_out_{c}" for c in self.across})
        body = pl.DataFrame({
            "k": fit["k"].astype(np.int64),
            **{name: back_transform(scale, fit[key]) for name, key in (
                ("estimate", "pooled"), ("lower", "lower"), ("upper", "upper"), ("pi_lower", "pi_lower"),
                ("pi_upper", "pi_upper"))},
            "tau2": fit["tau2"], "i_squared": fit["i_squared"], "q": fit["q"], "q_p_value": fit["q_p_value"],
        })
        frame = pl.concat([sites.select(cells), site_keys, body], how="horizontal")
        return _frames.to_caller(frame, self.frame_kind)

    # ------------------------------------------------------------ tables
    def pooled_view(self, part: str = "pooled") -> "PooledView":
        """The pooled values (``part="pooled"``) or prediction intervals (``"prediction"``) as a one-row result.

        A publication table reads it as it reads an ungrouped result, so its
        columns (score, estimator) line up with the sites' table; the counts
        are the totals of the sites pooled.
        """
        return PooledView(self, part)

    # ------------------------------------------------------------ figures
    def plot(self, **options: Any):
        """Forest plot of the sites with the pooled diamond and the prediction interval (:func:`forest_plot`)."""
        return forest_plot(self, **options)


@attrs.frozen(eq=False)
class PooledView:
    """A meta-analysis's pooled rows shaped as an ungrouped result (``to_polars``, ``conf_int_polars``)."""

    meta: MetaResult
    part: str

    @property
    def metric(self) -> str:
        return self.meta.metric

    @property
    def metric_label(self) -> str:
        return self.meta.result.metric_label

    @property
    def by(self) -> tuple:
        return tuple(c for c in self.meta.by if c not in self.meta.across)

    @property
    def score(self) -> Any:
        return self.meta.score

    @property
    def estimators(self) -> Any:
        return self.meta.result.estimators

    @property
    def frame_kind(self) -> str:
        return self.meta.frame_kind

    @property
    def design(self) -> Any:
        return self.meta.result.design

    @property
    def stated_prevalence(self) -> Any:
        return getattr(self.meta.result, "stated_prevalence", None)

    def to_polars(self) -> pl.DataFrame:
        cells = [*self.meta.split, "estimator"]
        used = self.meta.sites.filter(pl.col("used"))
        counts = self.meta.result.to_polars().join(used.select([*self.meta.by, "estimator"]),
                                                   on=[*self.meta.by, "estimator"], how="semi", nulls_equal=True)
        totals = counts.group_by(cells, maintain_order=True).agg(pl.col("n_pos").sum(), pl.col("n_neg").sum())
        frame = self.meta.table.select(*cells, "estimate").join(totals, on=cells, how="left", nulls_equal=True,
                                                                maintain_order="left")
        return frame.with_columns(pl.col("n_pos").fill_null(0), pl.col("n_neg").fill_null(0))

    def conf_int_polars(self, method: Any = None, level: float = 0.95, **options: Any) -> pl.DataFrame:
        table = self.meta.table
        if self.part == "prediction":  # the interval alone: its cells print "(lower-upper)"
            table = table.with_columns(pl.lit(None, dtype=pl.Float64).alias("estimate"),
                                       pl.col("pi_lower").alias("lower"), pl.col("pi_upper").alias("upper"))
        return table.select(*self.meta.split, "estimator", "estimate", "lower", "upper").with_columns(
            method=pl.lit(self.meta.variance_method), note=pl.lit(None, dtype=pl.String))
