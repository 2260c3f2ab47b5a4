"""Heterogeneity across subgroups of an imputed result: the pooled tests D1 and D2 over the imputations.

In each imputed data set the k subgroups give estimates :math:`\\theta_l`
(on the logit scale for the areas) with independent variances. That all are
equal is :math:`C\\theta = 0` for the (k - 1) x k contrast matrix
:math:`C = [I_{k-1}, -1]`: D1 pools the Wald test of it (each imputation's
:math:`C\\theta_l` and :math:`C\\,\\mathrm{diag}(v_l)\\,C^\\top`), D2 pools
each imputation's Cochran Q (:mod:`aucpr_stats.combine.rubin`). A subgroup
without a usable variance in some imputation is left out of its test (the
note says which and why).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl

from .._validate import choice_iv
from ..compare.heterogeneity import MIN_POSITIVES_CHECKED, HeterogeneityResult, across_iv
from ..compare.site_values import none_mask, site_values
from ..distributions import expit
from ..exceptions import DegenerateGroupWarning
from ..combine.rubin import d1_test, d2_test

__all__ = ["TESTS", "imputed_heterogeneity"]

#: The pooled tests (the first is the default).
TESTS = ("D1", "D2")


def _one_test(theta: np.ndarray, variance: np.ndarray, test: str) -> dict:
    """D1 or D2 of equal values across the k columns of (imputations x k) estimates and variances."""
    m, k = theta.shape
    contrast = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    if test == "D1":
        within = np.einsum("ij,lj,kj->lik", contrast, variance, contrast)  # C diag(v_l) C'
        out = d1_test(theta @ contrast.T, within)
    else:
        w = 1.0 / variance
        mean = (w * theta).sum(axis=1, keepdims=True) / w.sum(axis=1, keepdims=True)
        out = d2_test((w * (theta - mean) ** 2).sum(axis=1), k - 1.0)
    w = 1.0 / variance.mean(axis=0)
    out["pooled"] = float((w * theta.mean(axis=0)).sum() / w.sum())  # the fixed-effect mean of the pooled values
    return out


def imputed_heterogeneity(result: Any, method: str | None = None, *, test: str = "D1", scale: str | None = None,
                          across: Any = None, **options: Any) -> HeterogeneityResult:
    """Test that a statistic is the same in every subgroup, pooled over imputations (D1 or D2).

    Parameters
    ----------
    result : ImputedResult
    method : str, optional
        Where each imputation's variances come from (as ``heterogeneity``'s
        ``method``; AUCPR's jackknife keeps each group's own variance).
    test : {"D1", "D2"}
    scale : {"natural", "logit"}, optional
    across : str or list of str, optional
        The grouping columns compared (default all of ``by``).
    """
    test = choice_iv(test, "test", TESTS)
    per = result.per_imputation
    across, split = across_iv(across, tuple(result.by))
    if per.metric == "aucpr" and method in (None, "jackknife"):
        options.setdefault("pooled", False)
    sites = site_values(per, method, scale, options)
    rows = sites.rows
    cells = [*split, "estimator"]
    keyed = rows.select(cells).unique(maintain_order=True).with_row_index("__cell")
    cell = rows.select(cells).join(keyed, on=cells, how="left", nulls_equal=True,
                                   maintain_order="left")["__cell"].to_numpy()
    imputation = rows[result.imputation].to_list()
    levels = list(dict.fromkeys(imputation))
    imp = np.array([levels.index(v) for v in imputation])
    labels = [", ".join(f"{c}={v!r}" for c, v in zip(across, values)) for values in rows.select(across).iter_rows()]
    usable = none_mask(sites.reason) & np.isfinite(sites.theta) & (sites.variance > 0)
    records, left_out_total = [], 0
    for c in range(keyed.height):  # one test per score, estimator and level of the other keys: few
        here = np.flatnonzero(cell == c)
        names = list(dict.fromkeys(labels[i] for i in here))
        theta = np.full((len(levels), len(names)), np.nan)
        variance = np.full_like(theta, np.nan)
        why: dict[str, str] = {}
        positives = np.zeros(len(names))
        for i in here:
            j = names.index(labels[i])
            positives[j] = max(positives[j], sites.n_pos[i])
            if usable[i]:
                theta[imp[i], j], variance[imp[i], j] = sites.theta[i], sites.variance[i]
            else:
                why.setdefault(names[j], f"{sites.reason[i] or 'no usable variance'} in imputation {imputation[i]}")
        keep = np.isfinite(theta).all(axis=0) & np.isfinite(variance).all(axis=0)
        for j in np.flatnonzero(~keep):
            why.setdefault(names[j], "absent from some imputations")
        k = int(keep.sum())
        out = (_one_test(theta[:, keep], variance[:, keep], test) if k >= 2 else
               {"statistic": np.nan, "df1": np.nan, "df2": np.nan, "p_value": np.nan, "riv": np.nan, "pooled": np.nan})
        parts = [] if k >= 2 else [f"fewer than two groups with a variance in every imputation ({k}): no test"]
        if why:
            listed = "; ".join(f"{name} ({reason})" for name, reason in list(why.items())[:5])
            parts.append(f"{len(why)} group(s) left out: {listed}{'; ...' if len(why) > 5 else ''}")
        small = int((keep & (positives < MIN_POSITIVES_CHECKED)).sum())
        if small and k >= 2:
            parts.append(f"{small} group(s) with fewer than {MIN_POSITIVES_CHECKED} positives: size not checked there")
        if k >= 2:  # docs/pooling.md: below the level when the imputation model leaves the subgroups out
            parts.append("the pooled tests rejected less often than their level when the imputation model did not "
                         "include the subgroups (docs/pooling.md)")
        left_out_total += len(why)
        records.append({"method": sites.method, "scale": sites.scale, "test": test, "statistic": out["statistic"],
                        "df": None if k < 2 else k - 1, "df2": out["df2"], "p_value": out["p_value"],
                        "riv": out["riv"], "pooled": float(expit(out["pooled"])) if sites.scale == "logit"
                        else out["pooled"], "k": k, "m": len(levels), "n_left_out": len(why),
                        "note": "; ".join(parts) or None})
    table = pl.concat([keyed.drop("__cell"), pl.DataFrame(records, schema_overrides={
        "df": pl.Int64, "df2": pl.Float64, "statistic": pl.Float64, "p_value": pl.Float64, "riv": pl.Float64,
        "pooled": pl.Float64, "note": pl.String})], how="horizontal")
    if left_out_total:
        warnings.warn(f"{left_out_total} group(s) left out of the pooled heterogeneity test; see the `note` column",
                      DegenerateGroupWarning, stacklevel=3)
    groups = rows.with_columns(pl.Series("variance", sites.variance), pl.Series("used", usable),
                               pl.Series("reason", sites.reason.tolist(), dtype=pl.String))
    what = "" if not isinstance(result.score, str) else f"of {result.score}"
    return HeterogeneityResult(table=table, groups=groups, kind="heterogeneity", metric=result.metric,
                               method=sites.method, scale=sites.scale, across=tuple(across),
                               frame_kind=result.frame_kind, what=what, reference=test)
