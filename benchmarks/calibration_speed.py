"""Calibration against a loop of statsmodels GLM fits: one group of 10^7 rows and 10^4 groups (issue 31).

``calibration()`` fits calibration-in-the-large and the logistic
recalibration by Newton's method on the tie table, every group at once; the
reference is what a user writes without it: ``statsmodels.GLM`` (binomial)
for the offset model and for the recalibration, per group, plus the Brier
score and O/E in numpy. The numbers are checked against each other (1e-6).
Run through ``benchmarks/run.py --cases calibration``.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

STATISTICS = ["oe_ratio", "citl", "slope", "intercept", "brier"]


def _data(rng: np.random.Generator, n_groups: int, size: int) -> pl.DataFrame:
    n = n_groups * size
    x = rng.standard_normal(n)
    p = 1 / (1 + np.exp(-(-2.0 + 1.1 * x)))
    y = rng.random(n) < 1 / (1 + np.exp(-(-2.2 + 0.9 * x)))
    return pl.DataFrame({"g": np.repeat(np.arange(n_groups), size), "y": y.astype(np.int8), "p": p})


def _reference(frame: pl.DataFrame) -> np.ndarray:
    import statsmodels.api as sm

    out = []
    for _, part in frame.group_by("g", maintain_order=True):
        y = part["y"].to_numpy().astype(float)
        p = part["p"].to_numpy()
        x = np.log(p / (1 - p))
        binomial = sm.families.Binomial()
        citl = sm.GLM(y, np.ones((y.size, 1)), family=binomial, offset=x).fit(tol=1e-12).params[0]
        intercept, slope = sm.GLM(y, np.column_stack([np.ones_like(x), x]), family=binomial).fit(tol=1e-12).params
        out.append([y.sum() / p.sum(), citl, slope, intercept, np.mean((y - p) ** 2)])
    return np.array(out)


def calibration_cases(scale: int) -> list:
    """The two cases of ``benchmarks/run.py`` (``scale`` 10 with ``--quick``)."""
    from aucpr_stats import calibration
    from run import Case

    rng = np.random.default_rng(31)
    big = _data(rng, 1, 10**7 // scale)
    many = _data(rng, 10**4 // scale, 1000)
    subset = many.filter(pl.col("g") < 500 // scale)

    def ours_big():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return calibration(big, "y", "p", statistic=STATISTICS).estimates

    def ours_many():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return calibration(many, "y", "p", by="g", statistic=STATISTICS).estimates

    def check_big(ours, ref):
        np.testing.assert_allclose(ours[0], ref[0], rtol=1e-6, atol=1e-8)

    def check_many(ours, ref):
        np.testing.assert_allclose(ours[: ref.shape[0]], ref, rtol=1e-6, atol=1e-8)

    return [
        Case("calibration_1group", f"calibration(): O/E, CITL, slope, intercept, Brier; one group of "
             f"{big.height:.0e} rows", ours_big, lambda: _reference(big), "statsmodels GLM (2 fits)",
             check=check_big, target="faster than the GLM fits", max_repeats=3),
        Case("calibration_groups", f"calibration(): the same, {many['g'].n_unique():,} groups of 1,000 rows",
             ours_many, lambda: _reference(subset), "loop of statsmodels GLM fits per group",
             reference_scale=many["g"].n_unique() / subset["g"].n_unique(), check=check_many,
             target="one vectorised pass, far faster than a loop of fits"),
    ]
