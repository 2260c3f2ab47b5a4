"""``cutoffs(..., imputation=)``: sensitivity, specificity and predictive values pooled over imputed data sets.

At each requested threshold every imputed data set gives each proportion
and its interval (Wilson, Clopper-Pearson, ...; with weights, clusters or a
stated prevalence, the design's own). The proportion is pooled on the logit
scale (Marshall et al. 2009) with Rubin's rules; its within-imputation
variance is read off the width of that imputation's interval on the logit
scale, :math:`((\\mathrm{logit}\\,u - \\mathrm{logit}\\,l) / (2 z))^2`, so
every design's interval carries over. A proportion of 0 or 1 in some
imputation (an interval reaching 0 or 1) is pooled on the natural scale, and
its note says so. A data-driven threshold (Youden, closest to the top-left
corner) is chosen in each imputed data set; the pooled row reports the mean
threshold and pools the proportions at each imputation's own choice (the
first of tied best thresholds).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from ..combine.rubin import rubin_present
from ..distributions import expit, logit, normal_quantile
from ..exceptions import InputError
from .._validate import digits_iv
from ..report.cells import format_cell, level_text
from ..report.display import TabularResult
from .imputed import check_imputations
from ..report.table import PublicationTable

__all__ = ["ImputedCutoffs"]

_MEASURES = ("sensitivity", "specificity", "ppv", "npv")


@attrs.frozen(eq=False, repr=False)
class ImputedCutoffs(TabularResult):
    """Cut-off measures pooled over m imputed data sets (Rubin's rules on the logit scale).

    Attributes
    ----------
    per_imputation : CutoffResult
        The cut-offs with the imputation column as one more key.
    imputation : str
    """

    per_imputation: Any = attrs.field(eq=False)
    imputation: str
    display_digits = 3

    def __attrs_post_init__(self) -> None:
        check_imputations(self.per_imputation.keys, self.imputation)
        asked = self.per_imputation.settings.threshold
        if asked == "all" or (isinstance(asked, (list, tuple)) and "all" in asked):
            raise InputError("threshold='all' lists each imputed data set's own thresholds, which cannot be "
                             "pooled; name the thresholds (numbers) or a criterion ('youden')")

    @property
    def frame_kind(self) -> str:
        return self.per_imputation.frame_kind

    @property
    def by(self) -> tuple:
        return tuple(c for c in self.per_imputation.by if c != self.imputation)

    @property
    def m(self) -> int:
        return self.per_imputation.keys[self.imputation].n_unique()

    def _slots(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Each per-imputation row's pooled row: its keys, criterion and (for a given number) threshold.

        The first of tied best thresholds stands for its imputation.
        """
        keys = [*self.by, self.imputation, "criterion"]
        slot = pl.when(pl.col("criterion") == "value").then(pl.col("threshold")).otherwise(None).alias("__value")
        frame = frame.with_columns(slot)
        first = frame.select(*keys, "__value", "threshold").unique(subset=[*keys, "__value"], keep="first",
                                                                    maintain_order=True)
        return frame.join(first.rename({"threshold": "__first"}), on=[*keys, "__value"], how="left",
                          nulls_equal=True).filter(pl.col("threshold").eq_missing(pl.col("__first")))

    def conf_int_polars(self, method: str | None = None, level: float | None = None) -> pl.DataFrame:
        """:meth:`conf_int` as a polars DataFrame."""
        frame = self._slots(self.per_imputation.conf_int_polars(method, level))
        level = float(frame["level"][0])
        ids = [*self.by, "criterion", "__value", "measure"]
        keyed = frame.select(ids).unique(maintain_order=True).with_row_index("__id")
        frame = frame.join(keyed, on=ids, how="left", nulls_equal=True, maintain_order="left")
        imps = frame[self.imputation].unique(maintain_order=True).to_frame().with_row_index("__imp")
        frame = frame.join(imps, on=self.imputation, how="left", nulls_equal=True, maintain_order="left")
        m, n = imps.height, keyed.height
        row, imp = frame["__id"].to_numpy().astype(np.int64), frame["__imp"].to_numpy().astype(np.int64)

        def cube(column: str) -> np.ndarray:
            out = np.full((m, n), np.nan)
            out[imp, row] = frame[column].cast(pl.Float64).to_numpy()
            return out

        p, low, high, threshold = cube("estimate"), cube("lower"), cube("upper"), cube("threshold")
        z = normal_quantile(0.5 + level / 2)
        with np.errstate(all="ignore"):
            theta = logit(p)
            within = ((logit(high) - logit(low)) / (2 * z)) ** 2
            on_logit = (np.isfinite(theta) & np.isfinite(within)) | np.isnan(p)
            natural = ~on_logit.all(axis=0)  # a proportion (or bound) at 0 or 1 somewhere: the natural scale
            theta = np.where(natural, p, theta)
            within = np.where(natural, ((high - low) / (2 * z)) ** 2, within)
        present = np.isfinite(theta) & np.isfinite(within)
        denominator = cube("n_pos") + cube("n_neg")
        complete = np.nanmean(np.where(present, denominator - 1.0, np.nan), axis=0)
        with np.errstate(invalid="ignore"):
            pooled = rubin_present(theta, within, present, np.nan_to_num(complete, nan=np.inf), level)
        back = lambda x: np.where(natural, x, expit(x))  # noqa: E731
        notes = []
        criterion = keyed["criterion"].to_list()
        for j in range(n):
            parts = []
            if criterion[j] != "value":
                parts.append(f"threshold chosen in each imputation ({criterion[j]}): the mean is shown")
            if natural[j]:
                parts.append("a proportion at 0 or 1 in some imputation: pooled on the natural scale")
            if pooled["m"][j] < m:
                parts.append(f"in {int(pooled['m'][j])} of {m} imputations")
            if pooled["m"][j] < 2:
                parts.append("fewer than 2 imputations with an interval: no pooled interval")
            notes.append("; ".join(parts) or None)
        few = pooled["m"] < 2
        with np.errstate(invalid="ignore"):
            body = pl.DataFrame({
                "threshold": np.nanmean(threshold, axis=0),
                "estimate": back(pooled["estimate"]), "method": str(frame["method"][0]), "level": level,
                "lower": np.where(few, np.nan, back(pooled["lower"])),
                "upper": np.where(few, np.nan, back(pooled["upper"])),
                "df": pooled["df"], "fmi": pooled["fmi"], "m": pooled["m"].astype(np.int64),
                "n_pos": pl.Series(np.rint(np.nanmean(cube("n_pos"), axis=0))).fill_nan(None).cast(pl.Int64),
                "n_neg": pl.Series(np.rint(np.nanmean(cube("n_neg"), axis=0))).fill_nan(None).cast(pl.Int64),
                "note": pl.Series(notes, dtype=pl.String),
            })
        front = keyed.select(*self.by, "criterion")
        out = pl.concat([front, body, keyed.select("measure")], how="horizontal")
        return out.select(*self.by, "criterion", "threshold", "measure",
                          *[c for c in body.columns if c != "threshold"])

    def conf_int(self, method: str | None = None, level: float | None = None):
        """Pooled intervals, one row per group, threshold and measure: keys, ``criterion``, ``threshold``,
        ``measure``, ``estimate``, ``method``, ``level``, ``lower``, ``upper``, ``df``, ``fmi``, ``m``,
        ``n_pos``, ``n_neg``, ``note``."""
        return _frames.to_caller(self.conf_int_polars(method, level), self.frame_kind)

    def to_polars(self) -> pl.DataFrame:
        """One row per group and threshold: the pooled proportions side by side (their intervals: :meth:`conf_int`)."""
        long = self.conf_int_polars()
        index = [*self.by, "criterion", "threshold"]
        wide = long.pivot(on="measure", index=index, values="estimate", aggregate_function="first",
                          maintain_order=True)
        extra = long.select(*index, "m", "n_pos", "n_neg", "note").unique(subset=index, keep="first",
                                                                         maintain_order=True)
        return wide.join(extra, on=index, how="left", nulls_equal=True, maintain_order="left").select(
            *index, *[c for c in _MEASURES if c in wide.columns], "m", "n_pos", "n_neg", "note")

    def table(self, method: str | None = None, level: float | None = None, *, digits: int = 2,
              sep: str = "\u2013") -> PublicationTable:
        """A publication table: one row per group and threshold, ``"estimate (lower–upper)"`` cells per measure."""
        digits = digits_iv(digits)
        long = self.conf_int_polars(method, level)
        index = [*self.by, "criterion", "threshold"]
        ci = f" ({level_text(float(long['level'][0]))} CI)"
        cells = long.with_columns(pl.Series("__cell", [format_cell(e, lo, hi, digits=digits, sep=sep) for e, lo, hi in
                                                       long.select("estimate", "lower", "upper").iter_rows()],
                                            dtype=pl.String))
        wide = cells.pivot(on="measure", index=index, values="__cell", aggregate_function="first",
                           maintain_order=True)
        wide = wide.with_columns(pl.col("threshold").map_elements(lambda t: f"{t:.{digits + 1}g}",
                                                                  return_dtype=pl.String))
        labels = {"criterion": "Criterion", "threshold": "Threshold", "sensitivity": "Sensitivity" + ci,
                  "specificity": "Specificity" + ci, "ppv": "PPV" + ci, "npv": "NPV" + ci}
        wide = wide.rename({c: labels.get(c, c) for c in wide.columns})
        numeric = tuple(c for c in wide.columns if c not in (*self.by, "Criterion"))
        note = (f"{self._title()}: {long['method'][0]} intervals of each imputed data set, pooled on the logit "
                "scale with Barnard-Rubin df; a threshold chosen in each imputation shows the mean")
        return PublicationTable(cells=wide, key_columns=tuple(self.by), numeric_columns=numeric, note=note,
                                frame_kind=self.frame_kind)

    def _title(self) -> str:
        return f"Cut-offs pooled over {self.m} imputed data sets (Rubin's rules, logit scale)"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(m={self.m}, rows={self.to_polars().height})"
