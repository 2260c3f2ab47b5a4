"""``imputation=``: every statistic per imputed data set, pooled by Rubin's rules on the logit (or log) scale.

A verb given ``imputation=".imp"`` (mice's long format: the imputed data
sets stacked, a column numbering them) estimates with that column as one
more key, then returns an :class:`ImputedResult` holding that
per-imputation result. Its point values are :math:`\\bar Q` back-transformed
(the areas on the logit scale, Marshall et al. 2009; O/E on the log scale;
the other statistics on their own), and ``conf_int(method=)`` pools each
imputation's estimate with the variance of that interval method (DeLong,
Obuchowski's with ``cluster=``, Boyd's logit interval, the bootstrap, the
jackknife, the calibration and net-benefit Wald variances) by
:func:`~aucpr_stats.combine.rubin.rubin`, with Barnard & Rubin's degrees of
freedom (complete-data df: the group's rows - 1) and the fraction of missing
information per row.

What is allowed: imputations of different sizes (a pooled row says so, and
reports the mean counts), a group absent from some imputations (it is pooled
over those that have it, and says so). What is refused: one imputation.
Mice's ``.imp == 0`` (the incomplete original data, ``include=TRUE``) must
be dropped first: every level of the column is taken as an imputed data set.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from .._validate import level_iv
from ..compare.site_values import SiteValues
from ..exceptions import InputError, SmallSampleWarning
from ..report.display import TabularResult
from ..report.publication import publication_table
from .imputed_heterogeneity import imputed_heterogeneity
from .meta import default_scale, meta
from .meta_result import back_transform
from ..combine.rubin import rubin_present

__all__ = ["DEFAULT_METHODS", "ImputedResult", "check_imputations", "pooled_over_imputations", "pooling_scale", "within_variance"]

#: The within-imputation variance of ``conf_int`` when no method is named (Rubin's rules need a standard error).
DEFAULT_METHODS = {"auroc": "delong", "aucpr": "logit", "calibration": "wald", "net_benefit": "wald"}


def pooling_scale(metric: str, estimators: Any) -> np.ndarray:
    """The pooling scale of each estimator: logit for areas, log for O/E, natural otherwise."""
    return np.array([default_scale(metric, str(e)) for e in estimators], dtype=object)


def within_variance(estimate: np.ndarray, se: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The estimate and its variance on each entry's pooling scale (the delta method)."""
    with np.errstate(all="ignore"):
        theta = np.where(scale == "logit", np.log(estimate / (1.0 - estimate)),
                         np.where(scale == "log", np.log(estimate), estimate))
        variance = np.where(scale == "logit", (se / (estimate * (1.0 - estimate))) ** 2,
                            np.where(scale == "log", (se / estimate) ** 2, se ** 2))
    return theta, variance


@attrs.frozen(eq=False, repr=False)
class ImputedResult(TabularResult):
    """A result estimated on each of m imputed data sets, pooled by Rubin's rules.

    Attributes
    ----------
    per_imputation : AurocResult, AucprResult, CalibrationResult or NetBenefitResult
        The result with the imputation column as one more key.
    imputation : str
        The imputation column.
    """

    per_imputation: Any = attrs.field(eq=False)
    imputation: str

    def __attrs_post_init__(self) -> None:
        check_imputations(self.per_imputation.keys, self.imputation)

    # ------------------------------------------------------------ what the result is about
    @property
    def metric(self) -> str:
        return self.per_imputation.metric

    @property
    def frame_kind(self) -> str:
        return self.per_imputation.frame_kind

    @property
    def metric_label(self) -> str:
        return self.per_imputation.metric_label

    def estimator_records(self) -> list:
        """The registry records of the estimators (those of every imputation)."""
        return self.per_imputation.estimator_records()

    @property
    def by(self) -> tuple:
        return tuple(c for c in self.per_imputation.by if c != self.imputation)

    @property
    def score(self) -> Any:
        return self.per_imputation.score

    @property
    def estimators(self) -> Any:
        return self.per_imputation.estimators

    @property
    def request(self) -> Any:
        return self.per_imputation.request

    @property
    def design(self) -> Any:
        return self.per_imputation.design

    @property
    def stated_prevalence(self) -> Any:
        return getattr(self.per_imputation, "stated_prevalence", None)

    @property
    def m(self) -> int:
        """The number of imputed data sets."""
        return self.per_imputation.keys[self.imputation].n_unique()

    # ------------------------------------------------------------ the layout: (imputation, group, estimator)
    def _index(self) -> tuple[np.ndarray, np.ndarray, pl.DataFrame]:
        """Each per-imputation group's pooled group and imputation, and the pooled groups' keys."""
        keys = self.per_imputation.keys
        pooled_by = list(self.by)
        imps = keys.select(self.imputation).unique(maintain_order=True).with_row_index("__imp")
        imp = keys.select(self.imputation).join(imps, on=self.imputation, how="left", nulls_equal=True,
                                                maintain_order="left")["__imp"].to_numpy().astype(np.int64)
        if not pooled_by:
            return np.zeros(keys.height, dtype=np.int64), imp, pl.DataFrame()
        groups = keys.select(pooled_by).unique(maintain_order=True).with_row_index("__group")
        group = keys.select(pooled_by).join(groups, on=pooled_by, how="left", nulls_equal=True,
                                            maintain_order="left")["__group"].to_numpy().astype(np.int64)
        return group, imp, groups.drop("__group")

    def _cube(self, values: np.ndarray, missing: Any = np.nan) -> np.ndarray:
        """Per-imputation values (groups x estimators) as (imputations, pooled groups, estimators).

        ``missing`` fills a group absent from an imputation (NaN; None for notes, kept as objects).
        """
        group, imp, groups = self._index()
        out = np.full((self.m, max(groups.height, 1), values.shape[1]), missing,
                      dtype=object if missing is None else np.float64)
        out[imp, group] = values
        return out

    @property
    def keys(self) -> pl.DataFrame:
        """The pooled groups' key columns."""
        return self._index()[2]

    def _counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mean positives and negatives per pooled group, and whether they differ between imputations."""
        pos = self._cube(self.per_imputation.n_pos.astype(np.float64)[:, None])[:, :, 0]
        neg = self._cube(self.per_imputation.n_neg.astype(np.float64)[:, None])[:, :, 0]
        with np.errstate(invalid="ignore"):
            differ = (np.nanmax(pos + neg, axis=0) != np.nanmin(pos + neg, axis=0)) | (
                np.nanmax(pos, axis=0) != np.nanmin(pos, axis=0))
        return np.nanmean(pos, axis=0), np.nanmean(neg, axis=0), differ

    @property
    def n_pos(self) -> np.ndarray:
        return np.rint(self._counts()[0]).astype(np.int64)

    @property
    def n_neg(self) -> np.ndarray:
        return np.rint(self._counts()[1]).astype(np.int64)

    @property
    def estimates(self) -> np.ndarray:
        """Pooled point values (groups x estimators): the mean on the pooling scale, back-transformed."""
        cube = self._cube(self.per_imputation.estimates)
        scale = np.broadcast_to(pooling_scale(self.metric, self.estimators), cube.shape)
        theta, _ = within_variance(cube, np.zeros_like(cube), scale)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a group absent from every imputation
            mean = np.nanmean(theta, axis=0)
            # an estimate of 0 or 1 in some imputation has no logit: that group is pooled on its natural scale
            plain = np.nanmean(cube, axis=0)
        back = back_transform(scale[0], mean)
        out = np.where(np.isfinite(mean), back, plain)
        # a p-value is not a quantity to average over imputations (its z statistic is pooled instead)
        return np.where(np.asarray(self.estimators, dtype=object) == "spiegelhalter_p", np.nan, out)

    @property
    def estimate(self) -> float:
        values = self.estimates
        if values.size != 1:
            raise AttributeError(f"`.estimate` is defined for one group and estimator; this result has "
                                 f"{values.size}: use `.to_frame()`")
        return float(values.ravel()[0])

    # ------------------------------------------------------------ frames
    def _pooled_notes(self) -> np.ndarray:
        """Per pooled group and estimator: imputations missing, counts that differ, the imputations' own notes."""
        n_groups = max(self.keys.height, 1)
        present = self._cube(np.ones_like(self.per_imputation.estimates))
        notes = np.full((n_groups, len(self.estimators)), None, dtype=object)
        own = self._cube(self.per_imputation.estimate_notes(), None)
        differ = self._counts()[2]
        for g in range(n_groups):
            for e in range(len(self.estimators)):
                parts = []
                found = int(np.nansum(present[:, g, e]))
                if found < self.m:
                    parts.append(f"in {found} of {self.m} imputations")
                if differ[g]:
                    parts.append("counts differ between imputations (their means shown)")
                parts += sorted({n for n in own[:, g, e] if n is not None})
                if self.estimators[e] == "spiegelhalter_p":
                    parts.append("a p-value is not pooled over imputations: see spiegelhalter_z")
                notes[g, e] = "; ".join(parts) or None
        return notes

    def to_polars(self) -> pl.DataFrame:
        """One row per pooled group and estimator: keys, estimator, estimate, n_pos, n_neg, prevalence, m, note."""
        estimates = self.estimates
        n_groups, n_est = estimates.shape
        pos, neg, _ = self._counts()
        group = np.repeat(np.arange(n_groups), n_est)
        est = np.tile(np.arange(n_est), n_groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            prevalence = pos / (pos + neg)
        body = pl.DataFrame({
            "estimator": np.asarray(self.estimators, dtype=object)[est].tolist(),
            "estimate": estimates[group, est],
            "n_pos": np.rint(pos[group]).astype(np.int64),
            "n_neg": np.rint(neg[group]).astype(np.int64),
            "prevalence": prevalence[group],
            "m": np.full(group.size, self.m, dtype=np.int64),
            "note": pl.Series(self._pooled_notes()[group, est].tolist(), dtype=pl.String),
        })
        frame = body if not self.by else pl.concat([self.keys[group.tolist()], body], how="horizontal")
        return self._net_benefit_view(frame)

    def table(self, *others: Any, **options: Any):
        """Publication table of this result and any ``others`` (:func:`aucpr_stats.publication_table`)."""
        return publication_table([self, *others], **options)

    def _title(self) -> str:
        name = {"auroc": "AUROC", "aucpr": "AUCPR", "calibration": "Calibration",
                "net_benefit": "Net benefit"}[self.metric]
        return f"{name} pooled over {self.m} imputed data sets (Rubin's rules)"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.metric}, m={self.m}, groups={self.keys.height or 1})"

    # ------------------------------------------------------------ intervals
    def conf_int_polars(self, method: str | None = None, level: float = 0.95, **options: Any) -> pl.DataFrame:
        """:meth:`conf_int` as a polars DataFrame."""
        level = level_iv(level)
        if method is None:
            method = DEFAULT_METHODS[self.metric]
            if method == "delong" and self.design.kind == "cluster":
                method = "obuchowski"  # DeLong's variance made cluster-robust (Obuchowski 1997)
        if not isinstance(method, str):
            raise InputError(f"`method` must name one interval method for pooling; got {method!r}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SmallSampleWarning)  # the pooled rows carry their own notes
            frame = self.per_imputation.conf_int_polars(method=method, level=level, **options)
        frame = frame[0] if isinstance(frame, tuple) else frame
        se_column = frame["se"].cast(pl.Float64).to_numpy().copy() if "se" in frame.columns else None
        if se_column is None or not np.isfinite(se_column).any():
            raise InputError(f"method={method!r} gives no standard error, which Rubin's rules need; use "
                             f"method={DEFAULT_METHODS[self.metric]!r} or 'bootstrap'")
        n_est = len(self.estimators)
        se = self._cube(se_column.reshape(-1, n_est))
        cube = self._cube(self.per_imputation.estimates)
        scale = np.broadcast_to(pooling_scale(self.metric, self.estimators), cube.shape)
        _, within = within_variance(cube, se, scale)
        point, _ = within_variance(cube, np.zeros_like(cube), scale)
        # an estimate at 0 or 1 (or O/E of 0) in any imputation: that row is pooled on the natural scale
        off = (np.isfinite(cube) & ~np.isfinite(point)).any(axis=0)
        natural = np.broadcast_to(off, cube.shape)
        theta = np.where(natural, cube, point)
        within = np.where(natural, se ** 2, within)
        rows = (self.per_imputation.n_pos + self.per_imputation.n_neg).astype(np.float64)
        complete_df = np.nanmean(self._cube(rows[:, None] - 1.0)[:, :, 0], axis=0)
        n_groups = cube.shape[1]
        shape = (self.m, n_groups * n_est)
        present = np.isfinite(theta) & np.isfinite(within)
        pooled = rubin_present(theta.reshape(shape), within.reshape(shape), present.reshape(shape),
                                np.repeat(complete_df, n_est), level)
        row_scale = np.where(off, "natural", scale[0]).ravel()
        estimate = self.estimates.ravel()  # the mean on the pooling scale over every imputation with an estimate
        lower, upper = back_transform(row_scale, pooled["lower"]), back_transform(row_scale, pooled["upper"])
        # the standard error on the natural scale (the delta method at the pooled value)
        slope = np.where(row_scale == "logit", estimate * (1.0 - estimate),
                         np.where(row_scale == "log", estimate, 1.0))
        notes = self._pooled_notes().ravel()
        # the intervals' own notes in the imputations (near the boundary, few positives ...), said once
        own = self._cube(np.asarray(frame["note"].to_list(), dtype=object).reshape(-1, n_est), None)
        for j, (g, e) in enumerate(np.ndindex(n_groups, n_est)):
            said = list(dict.fromkeys(n for n in own[:, g, e] if n is not None))
            if said:
                text = "in some imputations: " + "; ".join(said[:2]) + ("; ..." if len(said) > 2 else "")
                notes[j] = _join(notes[j], text)
        extra = np.where(off.ravel(), "an estimate at the edge of its scale in some imputation: pooled on the "
                         "natural scale", None)
        few = pooled["m"] < 2
        extra2 = np.where(few, f"fewer than 2 imputations with a standard error from method {method!r}: no "
                               "pooled interval", None)
        note = [_join(a, b, c) for a, b, c in zip(notes, extra, extra2)]
        group = np.repeat(np.arange(n_groups), n_est)
        body = pl.DataFrame({
            "estimator": np.asarray(self.estimators, dtype=object)[np.tile(np.arange(n_est), n_groups)].tolist(),
            "estimate": estimate, "method": [method] * group.size, "level": np.full(group.size, level),
            "lower": np.where(few, np.nan, lower), "upper": np.where(few, np.nan, upper),
            "se": np.where(few, np.nan, np.sqrt(pooled["total"]) * slope),
            "scale": row_scale.tolist(), "within": pooled["within"], "between": pooled["between"],
            "total": pooled["total"], "df": pooled["df"], "riv": pooled["riv"], "fmi": pooled["fmi"],
            "m": pooled["m"].astype(np.int64),
            "n_pos": self.n_pos[group], "n_neg": self.n_neg[group],
            "note": pl.Series(note, dtype=pl.String),
        })
        frame = body if not self.by else pl.concat([self.keys[group.tolist()], body], how="horizontal")
        return self._net_benefit_view(frame)

    def _net_benefit_view(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Net benefit: the record name ``"net_benefit@0.1"`` as ``estimator`` and ``threshold``, and the mean
        treat-all and treat-none references over the imputations, as a result without imputations shows them."""
        if self.metric != "net_benefit":
            return frame
        names = frame["estimator"].to_list()
        frame = frame.with_columns(pl.Series("estimator", [n.partition("@")[0] for n in names], dtype=pl.String),
                                   pl.Series("threshold", [float(n.partition("@")[2]) for n in names]))
        keys = [*self.by, "estimator", "threshold"]
        references = self.per_imputation.to_polars().group_by(keys, maintain_order=True).agg(
            pl.col("treat_all").mean(), pl.col("treat_none").mean())
        frame = frame.join(references, on=keys, how="left", nulls_equal=True, maintain_order="left")
        order = [*self.by, "estimator", "threshold"]
        return frame.select(*order, *[c for c in frame.columns if c not in order])

    def conf_int(self, method: str | None = None, level: float = 0.95, **options: Any):
        """Rubin-pooled intervals, one row per group and estimator, in the caller's frame type.

        ``method`` names the within-imputation variance: an interval method of
        the metric that has a standard error (default ``"delong"`` for AUROC,
        ``"obuchowski"`` with ``cluster=``; ``"logit"`` for AUCPR; ``"wald"``
        for calibration and net benefit; ``"bootstrap"`` for any).
        Columns: keys, ``estimator``, ``estimate``, ``method``, ``level``,
        ``lower``, ``upper``, ``se`` (natural scale), ``scale`` (of the
        pooling), ``within``, ``between``, ``total`` (variances on that
        scale), ``df`` (Barnard-Rubin), ``riv`` (relative increase in
        variance), ``fmi`` (fraction of missing information), ``m``,
        ``n_pos``, ``n_neg``, ``note``.
        """
        return _frames.to_caller(self.conf_int_polars(method, level, **options), self.frame_kind)

    def heterogeneity(self, method: str | None = None, *, test: str = "D1", scale: str | None = None,
                      across: Any = None, **options: Any):
        """Test that the statistic is the same in every subgroup, pooled over the imputations.

        ``test``: ``"D1"`` (the pooled Wald test of the k - 1 contrasts, Li,
        Raghunathan & Rubin 1991; default) or ``"D2"`` (each imputation's
        Cochran Q pooled, Li, Meng, Raghunathan & Rubin 1991). ``method``,
        ``scale``, ``across`` and ``**options`` as for a result without
        imputations. See :func:`aucpr_stats.pooling.imputed_heterogeneity.imputed_heterogeneity`.
        """
        return imputed_heterogeneity(self, method, test=test, scale=scale, across=across, **options)

    # ------------------------------------------------------------ the sites' values, for meta()
    def site_values(self, method: str | None, scale: Any, options: dict, *, scales: tuple = ()) -> SiteValues:
        """Each pooled group's Rubin-pooled value and total variance on its pooling scale (for ``meta()``)."""
        if scale is not None and not isinstance(scale, np.ndarray):
            raise InputError("`scale` is the pooling scale of the imputations (logit for areas) for an imputed "
                             "result; leave it unset")
        frame = self.conf_int_polars(method, **options)
        estimate = frame["estimate"].to_numpy()
        row_scale = np.asarray(frame["scale"].to_list(), dtype=object)
        theta, _ = within_variance(estimate, np.zeros_like(estimate), row_scale)
        variance = frame["total"].to_numpy()
        reason = np.full(estimate.size, None, dtype=object)
        reason[~np.isfinite(variance)] = "no pooled variance"
        reason[~np.isfinite(theta)] = "an estimate at the edge of the pooling scale"
        n_est = len(self.estimators)
        group = np.repeat(np.arange(estimate.size // n_est), n_est)
        rows = frame.select([*self.by, "estimator"]).with_columns(pl.Series("value", estimate))
        return SiteValues(method=str(frame["method"][0]), scale=row_scale, rows=rows, theta=theta,
                          variance=variance, reason=reason, n_pos=self.n_pos[group], group=group)

    def meta(self, method: str = "REML", *, ci: str = "hksj", prediction_interval: Any = True,
             level: float = 0.95, variance: str | None = None, across: Any = None, **options: Any):
        """Random-effects meta-analysis across sites of the Rubin-pooled site values (see ``meta``)."""
        return meta(self, method, ci=ci, prediction_interval=prediction_interval, level=level, variance=variance,
                    across=across, **options)


def check_imputations(keys: pl.DataFrame, column: str) -> None:
    """Refuse an imputation column with fewer than two levels (Rubin's rules need a between variance)."""
    levels = keys[column].n_unique()
    if levels < 2:
        raise InputError(f"`imputation` column {column!r} has {levels} level(s); Rubin's rules need at least 2 "
                         "imputed data sets (drop nothing but mice's `.imp == 0`, the original data)")


def pooled_over_imputations(result: Any) -> Any:
    """The verb's result pooled over its imputation key (``imputation=``), or the result itself."""
    column = result.request.design.imputation
    return result if column is None else ImputedResult(per_imputation=result, imputation=column)


def _join(*parts: Any) -> str | None:
    kept = [p for p in parts if p is not None]
    return "; ".join(kept) or None
