"""Comparisons pooled over multiply imputed data sets (``compare(..., imputation=".imp")``).

Each imputed data set gives the difference of two areas and its standard
error (DeLong's, Obuchowski's, the paired or unpaired bootstrap's); the
differences are pooled by Rubin's rules on their natural scale (a difference
is unbounded, Marshall et al. 2009) with Barnard-Rubin degrees of freedom,
and the test of no difference is :math:`\\bar Q / \\sqrt T` against Student's
t with those degrees of freedom. The two areas are pooled on the logit scale.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..combine.rubin import rubin_present
from ..distributions import expit, logit, t_sf

__all__ = ["pool_comparisons"]

#: Columns of a comparison frame that vary between imputations and are pooled or averaged.
_VALUES = ("estimate_a", "estimate_b", "difference", "se", "z", "p_value", "lower", "upper", "correlation",
           "n_pos", "n_neg", "n_missing", "n_pos_a", "n_neg_a", "n_pos_b", "n_neg_b", "p_adjusted", "note")


def pool_comparisons(table: pl.DataFrame, imputation: str, level: float) -> pl.DataFrame:
    """One row per comparison (keys, pair, estimator) pooled over the imputation column."""
    ids = [c for c in table.columns if c not in _VALUES and c not in (imputation, "method", "level")]
    keyed = table.select(ids).unique(maintain_order=True).with_row_index("__id")
    row_id = table.select(ids).join(keyed, on=ids, how="left", nulls_equal=True,
                                    maintain_order="left")["__id"].to_numpy().astype(np.int64)
    levels = table[imputation].unique(maintain_order=True)
    imp = table.select(imputation).join(levels.to_frame().with_row_index("__imp"), on=imputation, how="left",
                                        nulls_equal=True, maintain_order="left")["__imp"].to_numpy().astype(np.int64)
    m, n = levels.len(), keyed.height

    def cube(column: str) -> np.ndarray:
        out = np.full((m, n), np.nan)
        out[imp, row_id] = table[column].cast(pl.Float64).to_numpy()
        return out

    difference, se = cube("difference"), cube("se")
    present = np.isfinite(difference) & np.isfinite(se)
    counts = [c for c in ("n_pos", "n_neg", "n_pos_a", "n_neg_a", "n_pos_b", "n_neg_b") if c in table.columns]
    rows = sum(np.nan_to_num(cube(c)) for c in counts)
    complete_df = np.nanmean(np.where(present, rows - (2.0 if "n_pos_a" in counts else 1.0), np.nan), axis=0)
    with np.errstate(invalid="ignore"):
        pooled = rubin_present(np.where(present, difference, np.nan), np.where(present, se ** 2, np.nan), present,
                               np.nan_to_num(complete_df, nan=np.inf), level)
        total_se = np.sqrt(pooled["total"])
        statistic = pooled["estimate"] / total_se
        p_value = np.minimum(1.0, 2.0 * t_sf(np.abs(statistic), pooled["df"]))
    body: dict = {}
    for name in ("estimate_a", "estimate_b"):
        with np.errstate(divide="ignore", invalid="ignore"):
            body[name] = expit(np.nanmean(logit(cube(name)), axis=0))
    few = pooled["m"] < 2
    body |= {"difference": pooled["estimate"], "se": np.where(few, np.nan, total_se),
             "z": np.where(few, np.nan, statistic), "p_value": np.where(few, np.nan, p_value),
             "method": table["method"][0] if table.height else None, "level": level,
             "lower": np.where(few, np.nan, pooled["lower"]), "upper": np.where(few, np.nan, pooled["upper"]),
             "df": pooled["df"], "riv": pooled["riv"], "fmi": pooled["fmi"], "m": pooled["m"].astype(np.int64)}
    if "correlation" in table.columns:  # NaN for independent levels
        correlation = cube("correlation")
        seen = np.isfinite(correlation).any(axis=0)
        body["correlation"] = np.where(seen, np.nanmean(np.where(seen, correlation, 0.0), axis=0), np.nan)
    for c in counts + (["n_missing"] if "n_missing" in table.columns else []):
        body[c] = np.rint(np.nanmean(cube(c), axis=0)).astype(np.int64)
    notes = table.select(pl.Series("__id", row_id), "note").drop_nulls("note").unique(maintain_order=True)
    joined: list = [[] for _ in range(n)]
    for i, text in notes.iter_rows():
        joined[i].append(text)
    suffix = f"pooled over {m} imputations (Rubin's rules; t with Barnard-Rubin df)"
    body["note"] = pl.Series(["; ".join([*parts, suffix]) if not f else "; ".join(
        [*parts, "fewer than 2 imputations with a standard error: no pooled test"])
        for parts, f in zip(joined, few)], dtype=pl.String)
    return pl.concat([keyed.drop("__id"), pl.DataFrame(body)], how="horizontal")
