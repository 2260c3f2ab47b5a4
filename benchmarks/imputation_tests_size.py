r"""Size of the tests pooled over multiple imputations (``imputation=``): heterogeneity D1 / D2 and the paired comparison.

What is simulated
-----------------
The set-up of ``imputation_coverage.py`` (imported from it, not copied): external validation of a fixed
model when one predictor, ``x2``, is missing at random given ``x1`` and the outcome ``y``
(``P(missing) = expit(a + x1 + y)``, ``a`` set for a missing share of 0.2 or 0.5), ``x2`` imputed ``m``
times per cohort by proper Bayesian normal linear regression (mice's ``norm``) with the outcome in the
imputation model. Prevalence 0.2. Each test is run where its null hypothesis holds; the nominal level is 5%.

1. **Heterogeneity across subgroups.** The cohort, its missingness and imputations are
   ``imputation_coverage``'s (``cohort``, ``impute``; ``score = 0.8 x1 + 0.8 x2``). A subgroup column ``g``
   with k = 3 or 5 levels is drawn uniformly at random per row, independent of everything (the same cohorts
   serve k = 3 and k = 5), so the AUROC and AUCPR are the same in every subgroup. One call per batch tests
   every data set::

       auroc(df, "y", "score", by=["rep", "g"], imputation=".imp").heterogeneity(test="D1", across="g")

   (one row per ``rep``), and ``test="D2"``; AUCPR: ``aucpr(...)`` (within-imputation variance: each
   group's own two-sample jackknife of the logit, the imputed default), ``test="D1"``. Reference: the same
   test on the cohort before deletion (not available in practice): ``auroc(full, ..., by=["rep", "g"])
   .heterogeneity(across="g")`` (DeLong, chi-square) and ``aucpr(full, ...).heterogeneity(across="g",
   pooled=False)`` (the same per-group jackknife as the imputed test; Welch's F).

   Two imputation models on the same cohorts, missingness and subgroups: **ignores g** is
   ``imputation_coverage.impute`` (``x2`` on ``1, x1, y``, the same in every subgroup: the scores of the
   coverage study); **within g** lets the model differ by subgroup (``1, x1, y`` and their interactions with
   the indicators of subgroups 2..k, one residual variance; a ridge of 1 (one pseudo-observation) on the
   interactions, so that a subgroup without an observed event borrows the reference slope), which is
   congenial with a subgroup analysis. AUROC D1 is recomputed by hand from ``result.per_imputation``'s
   DeLong SEs on the first 200 data sets of every cell.

2. **Paired comparison of two models with equal population AUROC and AUCPR.** ``x1 ~ N(0, 1)``;
   ``x2 = 0.5 x1 + sqrt(0.75) z2`` and ``x3 = 0.5 x1 + sqrt(0.75) z3`` (exchangeable given ``x1``);
   ``y ~ Bernoulli(expit(b0 + x1 + 0.5 x2 + 0.5 x3))``, ``b0`` set for prevalence 0.2. The models are
   ``score_a = x1 + x2`` and ``score_b = x1 + x3``: ``(score_a, y)`` and ``(score_b, y)`` have the same
   distribution, so every population area is equal. ``x2`` is missing (MAR on ``x1`` and ``y`` as above),
   ``x3`` complete: score a is imputed, score b is not. ``x2`` is imputed by Bayesian linear regression on
   ``(1, x1, x3, y)``. ``imputation_coverage.impute`` has its design ``(1, x1, y)`` built in, so this
   script has ``impute_on`` (the same draws for any design; checked at start-up to reproduce
   ``imputation_coverage.impute`` bit for bit with its design). Tests::

       compare(df, "y", ["score_a", "score_b"], by="rep", metric="auroc", imputation=".imp")

   (DeLong within; Rubin's rules on the difference, t with Barnard-Rubin df; one row per ``rep``) and, on
   fewer data sets, ``metric="aucpr", method="bootstrap", n_boot=200`` (paired bootstrap SE within).
   Reference: the same comparison on the cohort before deletion (DeLong test; AUCPR: the bootstrap p-value).

Grid (every block): ``n`` in {500, 2000} x missing share in {0.2, 0.5} at ``m = 5``, and ``n = 500``, share
0.5, ``m = 20``; heterogeneity k in {3, 5}. Data sets per cell (defaults): heterogeneity 1,500, AUROC
comparison 5,000, AUCPR comparison 1,000. The rejection rate is the share of finite p-values below 0.05, with its Monte
Carlo SE ``sqrt(r (1 - r) / K)``; above 7.5% is **bold**, below 2.5% *italic*. All data sets of a batch are
one stacked polars frame (``rep`` x ``.imp`` x rows) and one call per test.

Variance check (``variance_check``, seconds): for the contrast AUROC(g = 1) - AUROC(g = 3) (k = 3), the
Monte Carlo variance of the pooled estimate against the mean of Rubin's ``T``, per imputation model, in the
cells ``CHECK_CELLS``: where the heterogeneity tests' size comes from.

Seeds: ``numpy.random.SeedSequence(seed)`` (default 20261205) spawns one child per heterogeneity cell, one
per comparison cell and one per AUCPR-comparison cell (in the order of ``HET_CELLS``, ``CMP_CELLS``,
``AUCPR_CMP_CELLS``), and a last one for the variance check; every cell is reproducible on its own. A
bootstrap's seed is drawn from its cell's generator.

Run (one core)::

    AUCPR_STATS_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/imputation_tests_size.py
    python benchmarks/imputation_tests_size.py --quick --out /tmp/imp_tests_quick.md    # a smoke test
    python benchmarks/imputation_tests_size.py --render benchmarks/imputation_tests_size_results.json \
        --reading reading.md    # only rewrite the page (with a hand-written reading) from a run's JSON
    python benchmarks/imputation_tests_size.py --render benchmarks/imputation_tests_size_results.json \
        --variance-check    # run the variance check alone and add it to that JSON
"""

from __future__ import annotations

import os

os.environ.setdefault("AUCPR_STATS_THREADS", "1")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import json
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
from scipy import optimize
from scipy.special import expit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import imputation_coverage as ic  # the simulation and imputation of the coverage study

from aucpr_stats import aucpr, auroc, compare

PREVALENCE = 0.2
ALPHA = 0.05
HIGH, LOW = 0.075, 0.025
KS = (3, 5)
#: (n, missing share, m)
GRID = ((500, 0.2, 5), (500, 0.5, 5), (2000, 0.2, 5), (2000, 0.5, 5), (500, 0.5, 20))
HET_CELLS = GRID
CMP_CELLS = GRID
AUCPR_CMP_CELLS = GRID
CMP_HALF = 0.5  # y's log-odds per unit of x2 and of x3
SD_COND = np.sqrt(1.0 - ic.RHO ** 2)  # sd of x2 (and x3) given x1


# ------------------------------------------------------------------ the comparison's population
def cmp_lp(x1: np.ndarray, z: np.ndarray) -> np.ndarray:
    """x1 + 0.5 x2 + 0.5 x3 given x1 and a standard normal z: (1 + rho) x1 + 0.5 sqrt(2 (1 - rho^2)) z."""
    return (1.0 + 2 * CMP_HALF * ic.RHO) * x1 + CMP_HALF * SD_COND * np.sqrt(2.0) * z


def cmp_intercept(prevalence: float) -> float:
    x1, z = ic.GH_NODES[:, None], ic.GH_NODES[None, :]
    w = ic.GH_WEIGHTS[:, None] * ic.GH_WEIGHTS[None, :]
    return optimize.brentq(lambda b: np.sum(w * expit(b + cmp_lp(x1, z))) - prevalence, -30, 30, xtol=1e-14)


def cmp_missing_intercept(b0: float, share: float) -> float:
    x1, z = ic.GH_NODES[:, None], ic.GH_NODES[None, :]
    w = ic.GH_WEIGHTS[:, None] * ic.GH_WEIGHTS[None, :]
    p1 = expit(b0 + cmp_lp(x1, z))

    def share_at(a):
        return np.sum(w * (p1 * expit(a + ic.MISS_X1 * x1 + ic.MISS_Y) + (1 - p1) * expit(a + ic.MISS_X1 * x1)))

    return optimize.brentq(lambda a: share_at(a) - share, -30, 30, xtol=1e-14)


# ------------------------------------------------------------------ imputation with any design
def impute_on(rng: np.random.Generator, design: np.ndarray, target: np.ndarray, observed: np.ndarray,
              m: int, ridge: np.ndarray | None = None) -> np.ndarray:
    """``imputation_coverage.impute`` with the design given, (reps, n, p): m proper draws, (reps, m, n).

    The same random draws in the same order, so with design ``(1, x1, y)`` it returns exactly
    ``ic.impute``'s values (checked by ``check_impute_on``). ``ridge`` (p,): added to the diagonal of X'X
    (a normal prior centred on 0 for those coefficients, precision ``ridge / sigma^2``)."""
    reps, n, p = design.shape
    w = observed.astype(np.float64)
    xtx = np.einsum("rni,rnj,rn->rij", design, design, w)
    if ridge is not None:
        xtx = xtx + np.diag(ridge)
    xty = np.einsum("rni,rn->ri", design, np.where(observed, target, 0.0))
    beta_hat = np.linalg.solve(xtx, xty[..., None])[..., 0]
    resid = np.where(observed, target - np.einsum("rni,ri->rn", design, beta_hat), 0.0)
    dof = observed.sum(axis=1) - p
    sigma2 = np.sum(resid ** 2, axis=1)[:, None] / rng.chisquare(dof[:, None], size=(reps, m))
    chol = np.linalg.cholesky(np.linalg.inv(xtx))
    beta = beta_hat[:, None, :] + np.sqrt(sigma2)[..., None] * np.einsum(
        "rij,rkj->rki", chol, rng.standard_normal((reps, m, p)))
    draws = np.einsum("rni,rki->rkn", design, beta) + np.sqrt(sigma2)[..., None] * rng.standard_normal((reps, m, n))
    return np.where(observed[:, None, :], target[:, None, :], draws)


def check_impute_on() -> float:
    """Largest absolute difference between impute_on with design (1, x1, y) and ic.impute (same seed)."""
    rng = np.random.default_rng(7)
    b0 = ic.intercept_for(PREVALENCE)
    x1, x2, y = ic.cohort(rng, 4, 300, b0)
    observed = rng.random(x1.shape) >= expit(ic.missing_intercept(b0, 0.5) + x1 + y)
    theirs = ic.impute(np.random.default_rng(11), x1, x2, y, observed, 5)
    design = np.stack([np.ones_like(x1), x1, y.astype(np.float64)], axis=-1)
    mine = impute_on(np.random.default_rng(11), design, x2, observed, 5)
    return float(np.max(np.abs(mine - theirs)))


# ------------------------------------------------------------------ helpers
def take(frame: pl.DataFrame, reps: int, offset: int, columns) -> dict:
    """Per-rep arrays from a result frame with one row per ``rep`` (checked)."""
    if frame.height != reps:
        raise RuntimeError(f"expected one row per rep ({reps}), got {frame.height} rows")
    frame = frame.sort("rep")
    if not np.array_equal(frame["rep"].to_numpy(), np.arange(offset, offset + reps)):
        raise RuntimeError(f"expected reps {offset}..{offset + reps - 1}")
    return {c: frame[c].cast(pl.Float64).to_numpy() for c in columns if c in frame.columns}


def stack(rep_ids: np.ndarray, m: int, columns: dict) -> pl.DataFrame:
    """The stacked frame: rep x .imp x rows; a (reps, n) array is repeated over the imputations."""
    reps, n = next(iter(columns.values())).shape[0], next(iter(columns.values())).shape[-1]
    body = {"rep": np.repeat(rep_ids, m * n),
            ".imp": np.tile(np.repeat(np.arange(1, m + 1, dtype=np.int16), n), reps)}
    for name, v in columns.items():
        body[name] = (v if v.ndim == 3 else np.broadcast_to(v[:, None, :], (reps, m, n))).ravel()
    return pl.DataFrame(body)


def rejection(p: np.ndarray) -> dict:
    p = np.asarray(p, dtype=np.float64)
    ok = np.isfinite(p)
    k = int(ok.sum())
    r = float(np.mean(p[ok] < ALPHA)) if k else np.nan
    return {"sets": int(p.size), "finite": k, "rate": r, "mc_se": float(np.sqrt(r * (1 - r) / k)) if k else np.nan,
            "rate_01": float(np.mean(p[ok] < 0.01)) if k else np.nan,
            "rate_10": float(np.mean(p[ok] < 0.10)) if k else np.nan,
            "ks_uniform": float(ks_distance(p[ok])) if k else np.nan}


def ks_distance(p: np.ndarray) -> float:
    """Kolmogorov-Smirnov distance of the p-values from U(0, 1)."""
    from scipy import stats
    return stats.kstest(p, "uniform").statistic if p.size else np.nan


# ------------------------------------------------------------------ 1. heterogeneity
#: Prior precision (in units of one observation) of the subgroup deviations in the within-g imputation model.
WITHIN_RIDGE = 1.0


def within_design(x1: np.ndarray, y: np.ndarray, g: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(1, x1, y) and its interactions with the indicators of subgroups 1..k-1 (reference coding; one residual
    variance): the imputation model free to differ by subgroup, (reps, n, 3k); and the ridge on the
    deviations (a weak prior, so that a subgroup without an observed event borrows the reference's slope)."""
    base = np.stack([np.ones_like(x1), x1, y.astype(np.float64)], axis=-1)
    design = np.concatenate([base] + [base * (g == j)[..., None] for j in range(1, k)], axis=-1)
    return design, np.r_[np.zeros(3), np.full(3 * (k - 1), WITHIN_RIDGE)]


def hand_d1(result, group: str, pooled: pl.DataFrame, reps: int = 200) -> float:
    """D1 (Li, Raghunathan & Rubin 1991) by hand from the per-imputation DeLong SEs of the first ``reps``
    data sets (those without a group left out); the largest absolute difference from the library's p-values."""
    from scipy import stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per = result.per_imputation.conf_int_polars(method="delong")
    first = pooled.sort("rep")["rep"][:reps].to_list()
    per = per.filter(pl.col("rep").is_in(first)).sort("rep", ".imp", group)
    worst = 0.0
    whole = set(pooled.filter(pl.col("n_left_out") == 0)["rep"].to_list())  # a group left out: another test
    for (rep,), rows in per.group_by("rep", maintain_order=True):
        if rep not in whole:
            continue
        m = rows[".imp"].n_unique()
        theta = rows["estimate"].to_numpy().reshape(m, -1)
        v = rows["se"].to_numpy().reshape(m, -1) ** 2
        k = theta.shape[1]
        c = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
        q = theta @ c.T
        u = np.stack([c @ np.diag(v[i]) @ c.T for i in range(m)])
        qbar, ubar = q.mean(axis=0), u.mean(axis=0)
        bmat = np.cov(q, rowvar=False, ddof=1).reshape(k - 1, k - 1)
        p = k - 1
        r1 = (1 + 1 / m) * np.trace(bmat @ np.linalg.inv(ubar)) / p
        d1 = qbar @ np.linalg.solve(ubar, qbar) / (p * (1 + r1))
        t = p * (m - 1)
        nu = 4 + (t - 4) * (1 + (1 - 2 / t) / r1) ** 2 if t > 4 else t * (1 + 1 / p) * (1 + 1 / r1) ** 2 / 2
        theirs = float(pooled.filter(pl.col("rep") == rep)["p_value"][0])
        worst = max(worst, abs(float(stats.f.sf(d1, p, nu)) - theirs))
    return worst


def het_batch(rng, reps, offset, n, b0, a, m, tally: ic.Tally, label: str, do_aucpr: bool):
    times = Counter()
    t0 = time.perf_counter()
    x1, x2, y = ic.cohort(rng, reps, n, b0)
    observed = rng.random((reps, n)) >= expit(a + ic.MISS_X1 * x1 + ic.MISS_Y * y)
    completed = ic.impute(rng, x1, x2, y, observed, m)
    groups = {k: rng.integers(k, size=(reps, n)).astype(np.int8) for k in KS}
    within = {}
    for k, g in groups.items():
        design, ridge = within_design(x1, y, g, k)
        within[k] = impute_on(rng, design, x2, observed, m, ridge)
    rep_ids = np.arange(offset, offset + reps, dtype=np.int32)
    stacked = stack(rep_ids, m, {"y": y, "score": ic.SCORE_COEF * (x1[:, None, :] + completed),
                                 **{f"score_k{k}": ic.SCORE_COEF * (x1[:, None, :] + w) for k, w in within.items()},
                                 **{f"g{k}": g for k, g in groups.items()}})
    full = pl.DataFrame({"rep": np.repeat(rep_ids, n), "y": y.ravel(), "score": (ic.SCORE_COEF * (x1 + x2)).ravel(),
                         **{f"g{k}": g.ravel() for k, g in groups.items()}})
    times["data"] += time.perf_counter() - t0
    out: dict = {}
    cols = ("p_value", "statistic", "df2", "riv", "n_left_out")
    for k in KS:
        g = f"g{k}"
        for metric, verb, tests in (("auroc", auroc, ("D1", "D2")), ("aucpr", aucpr, ("D1",))):
            if metric == "aucpr" and not do_aucpr:
                continue
            for score, suffix in (("score", ""), (f"score_k{k}", " within")):
                t1 = time.perf_counter()
                result = tally.call(verb, stacked, "y", score, by=["rep", g], imputation=".imp")
                for test in tests:
                    h = tally.call(result.heterogeneity, test=test, across=g).to_polars()
                    tally.notes_of(h, f"{label} k {k} {metric} {test}{suffix}")
                    out[f"{metric} {test}{suffix} k{k}"] = take(h, reps, offset, cols)
                    if offset == 0 and metric == "auroc" and test == "D1":
                        out[f"hand_d1{suffix} k{k}"] = np.array([hand_d1(result, g, h)])
                times[f"{metric} pooled{suffix}"] += time.perf_counter() - t1
            t1 = time.perf_counter()
            ref = tally.call(verb, full, "y", "score", by=["rep", g])
            extra = {"pooled": False} if metric == "aucpr" else {}
            h = tally.call(ref.heterogeneity, across=g, **extra).to_polars()
            tally.notes_of(h, f"{label} k {k} {metric} full")
            out[f"{metric} full k{k}"] = take(h, reps, offset, ("p_value", "statistic"))
            times[f"{metric} full"] += time.perf_counter() - t1
    out["missing_share"] = 1.0 - observed.mean(axis=1)
    return out, dict(times)


def het_cell(seq, cell, reps, max_rows, tally, do_aucpr):
    n, share, m = cell
    b0 = ic.intercept_for(PREVALENCE)
    a = ic.missing_intercept(b0, share)
    rng = np.random.default_rng(seq)
    size = max(1, min(reps, max_rows // (n * m)))
    parts, times = [], Counter()
    t0 = time.perf_counter()
    for offset in range(0, reps, size):
        got, t = het_batch(rng, min(size, reps - offset), offset, n, b0, a, m, tally,
                           f"het n {n} miss {share} m {m}", do_aucpr)
        parts.append(got)
        times.update(t)
    data = ic.merge(parts)
    out = {"n": n, "missing_share": share, "m": m, "reps": reps, "batch": size,
           "seconds": time.perf_counter() - t0, "times": dict(times),
           "missing_share_mean": float(np.mean(data["missing_share"])), "tests": {}}
    out["hand_d1"] = {key: float(np.max(v)) for key, v in data.items() if key.startswith("hand_d1")}
    for key, v in data.items():
        if key == "missing_share" or key.startswith("hand_d1"):
            continue
        s = rejection(v["p_value"])
        if "riv" in v:
            s["riv_mean"] = float(np.nanmean(v["riv"]))
            s["df2_median"] = float(np.nanmedian(v["df2"]))
            s["left_out"] = int(np.nansum(v["n_left_out"]))
        out["tests"][key] = s
    return out


#: (n, missing share, m, data sets) of the variance check of one subgroup contrast (k = 3).
CHECK_CELLS = ((500, 0.2, 5, 1500), (500, 0.5, 5, 1500), (2000, 0.5, 5, 1000))


def variance_check(seq: np.random.SeedSequence) -> list[dict]:
    """Why the pooled heterogeneity tests reject too rarely: for the contrast AUROC(g = 1) - AUROC(g = 3)
    (k = 3), the Monte Carlo variance of the pooled estimate over the data sets against the mean of Rubin's
    ``T = Ubar + (1 + 1/m) B`` (per-imputation DeLong variances), per imputation model; full data:
    ``T = U``."""
    out = []
    for child, (n, share, m, reps) in zip(seq.spawn(len(CHECK_CELLS)), CHECK_CELLS):
        rng = np.random.default_rng(child)
        b0 = ic.intercept_for(PREVALENCE)
        x1, x2, y = ic.cohort(rng, reps, n, b0)
        observed = rng.random((reps, n)) >= expit(ic.missing_intercept(b0, share) + ic.MISS_X1 * x1 + ic.MISS_Y * y)
        ignores = ic.impute(rng, x1, x2, y, observed, m)
        g = rng.integers(3, size=(reps, n)).astype(np.int8)
        design, ridge = within_design(x1, y, g, 3)
        within = impute_on(rng, design, x2, observed, m, ridge)
        for name, completed in (("ignores g", ignores), ("within g", within), ("full data", x2[:, None, :])):
            mm = completed.shape[1]
            frame = stack(np.arange(reps), mm, {"y": y, "score": x1[:, None, :] + completed, "g": g})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                per = auroc(frame, "y", "score", by=["rep", "g", ".imp"]).conf_int_polars(method="delong")
            per = per.sort("rep", ".imp", "g")
            theta = per["estimate"].to_numpy().reshape(reps, mm, 3)
            v = per["se"].to_numpy().reshape(reps, mm, 3) ** 2
            q, u = theta[..., 0] - theta[..., 2], v[..., 0] + v[..., 2]
            qbar, ubar = q.mean(axis=1), u.mean(axis=1)
            b = q.var(axis=1, ddof=1) if mm > 1 else np.zeros(reps)
            total = ubar + (1 + 1 / mm) * b
            out.append({"n": n, "missing_share": share, "m": m, "reps": reps, "imputation": name,
                        "var_qbar": float(qbar.var(ddof=1)), "ubar": float(ubar.mean()), "b": float(b.mean()),
                        "t": float(total.mean()), "ratio": float(qbar.var(ddof=1) / total.mean())})
    return out


# ------------------------------------------------------------------ 2. paired comparison
def cmp_batch(rng, reps, offset, n, b0, a, m, tally: ic.Tally, label: str, metrics: dict):
    times = Counter()
    t0 = time.perf_counter()
    z = rng.standard_normal((3, reps, n))
    x1 = z[0]
    x2 = ic.RHO * x1 + SD_COND * z[1]
    x3 = ic.RHO * x1 + SD_COND * z[2]
    y = (rng.random((reps, n)) < expit(b0 + x1 + CMP_HALF * (x2 + x3))).astype(np.int8)
    observed = rng.random((reps, n)) >= expit(a + ic.MISS_X1 * x1 + ic.MISS_Y * y)
    design = np.stack([np.ones_like(x1), x1, x3, y.astype(np.float64)], axis=-1)
    completed = impute_on(rng, design, x2, observed, m)
    rep_ids = np.arange(offset, offset + reps, dtype=np.int32)
    stacked = stack(rep_ids, m, {"y": y, "score_a": x1[:, None, :] + completed, "score_b": x1 + x3})
    full = pl.DataFrame({"rep": np.repeat(rep_ids, n), "y": y.ravel(), "score_a": (x1 + x2).ravel(),
                         "score_b": (x1 + x3).ravel()})
    times["data"] += time.perf_counter() - t0
    out: dict = {}
    cols = ("p_value", "difference", "se", "df", "fmi", "riv")
    for metric, options in metrics.items():
        t1 = time.perf_counter()
        opts = dict(options)
        if opts.get("method") == "bootstrap":
            opts["seed"] = int(rng.integers(2 ** 31))
        res = tally.call(compare, stacked, "y", ["score_a", "score_b"], by="rep", metric=metric,
                         imputation=".imp", **opts).to_polars()
        tally.notes_of(res.with_columns(pl.col("note").str.replace(r"pooled over \d+ imputations.*$", "")
                                        .str.strip_chars("; ").replace("", None)), f"{label} {metric} pooled")
        out[f"{metric} pooled"] = take(res, reps, offset, cols)
        times[f"{metric} pooled"] += time.perf_counter() - t1
        t1 = time.perf_counter()
        if opts.get("method") == "bootstrap":
            opts["seed"] = int(rng.integers(2 ** 31))
        ref = tally.call(compare, full, "y", ["score_a", "score_b"], by="rep", metric=metric, **opts).to_polars()
        tally.notes_of(ref, f"{label} {metric} full")
        out[f"{metric} full"] = take(ref, reps, offset, ("p_value", "difference", "se"))
        times[f"{metric} full"] += time.perf_counter() - t1
    out["missing_share"] = 1.0 - observed.mean(axis=1)
    out["prevalence"] = y.mean(axis=1)
    return out, dict(times)


def cmp_cell(seq, cell, reps, max_rows, tally, metrics: dict, params: dict):
    n, share, m = cell
    b0, a = params["b0"], params["a"][str(share)]
    rng = np.random.default_rng(seq)
    size = max(1, min(reps, max_rows // (n * m)))
    parts, times = [], Counter()
    t0 = time.perf_counter()
    for offset in range(0, reps, size):
        got, t = cmp_batch(rng, min(size, reps - offset), offset, n, b0, a, m, tally,
                           f"compare n {n} miss {share} m {m}", metrics)
        parts.append(got)
        times.update(t)
    data = ic.merge(parts)
    out = {"n": n, "missing_share": share, "m": m, "reps": reps, "batch": size, "metrics": list(metrics),
           "seconds": time.perf_counter() - t0, "times": dict(times),
           "missing_share_mean": float(np.mean(data["missing_share"])),
           "prevalence_mean": float(np.mean(data["prevalence"])), "tests": {}}
    for key, v in data.items():
        if key in ("missing_share", "prevalence"):
            continue
        s = rejection(v["p_value"])
        d, se = v["difference"], v["se"]
        s["mean_difference"] = float(np.nanmean(d))
        s["sd_difference"] = float(np.nanstd(d, ddof=1))
        s["mean_se"] = float(np.nanmean(se))
        s["se_over_sd"] = s["mean_se"] / s["sd_difference"] if s["sd_difference"] > 0 else np.nan
        s["mean_z"] = float(np.nanmean(d / se))
        if "fmi" in v:
            s["fmi_mean"] = float(np.nanmean(v["fmi"]))
            s["df_median"] = float(np.nanmedian(v["df"]))
        out["tests"][key] = s
    return out


# ------------------------------------------------------------------ the page
def rate(s: dict) -> str:
    r = s["rate"]
    if not np.isfinite(r):
        return "nan"
    text = f"{100 * r:.1f} ({100 * s['mc_se']:.1f})"
    if r > HIGH:
        text = f"**{text}**"
    elif r < LOW:
        text = f"*{text}*"
    if s["finite"] < s["sets"]:
        text += f" nan {s['sets'] - s['finite']}"
    return text


def markdown(res: dict) -> str:
    a = res["args"]
    lines = ["# Size of the tests pooled over multiple imputations (heterogeneity D1 / D2, paired comparison)", "",
             f"Command: `{res['command']}`  ",
             f"Machine: {res['machine']}  ",
             f"Commit: `{res['commit']}` (run from a clone of the repository; sha256 of aucpr_stats/**/*.py "
             f"`{res.get('fingerprint', '?')}`)  ",
             f"Date: {res['date']}; wall time {res['seconds'] / 60:.1f} min "
             f"({', '.join(f'{k} {v / 60:.1f}' for k, v in res['times'].items())} min). Seed {a['seed']} "
             "(`SeedSequence(seed).spawn`, one child per cell).", "",
             "The set-up of `imputation_coverage.py` (its `cohort`, `impute`, intercepts; imported): `x2` missing "
             "at random given `x1` and `y` (`P(missing) = expit(a + x1 + y)`), imputed m times per cohort by "
             "Bayesian normal linear regression with `y` in the imputation model (proper imputation). "
             "Prevalence 0.2. Each test under its null hypothesis, nominal level 5%. Rejection rate = share of "
             "finite p-values below 0.05, in % (Monte Carlo SE); above 7.5% **bold**, below 2.5% *italic*; "
             "`nan j` = j data sets without a p-value. Details: the script's docstring.", "",
             "- **Heterogeneity**: subgroup `g` with k levels drawn at random per row (independent of everything, "
             "so the area is equal across subgroups); `auroc(df, \"y\", \"score\", by=[\"rep\", \"g\"], "
             "imputation=\".imp\").heterogeneity(test=\"D1\" | \"D2\", across=\"g\")`, one test per data set "
             "(`rep`) in one call per batch; AUCPR: `aucpr(...)` (each group's jackknife of the logit within), "
             "D1. Full data: the same cohort before deletion, `heterogeneity(across=\"g\")` (AUROC: DeLong, "
             "chi-square; AUCPR: `pooled=False`, the same per-group jackknife, Welch's F).",
             "- **Paired comparison**: `y ~ Bernoulli(expit(b0 + x1 + 0.5 x2 + 0.5 x3))`, `x2`, `x3` exchangeable "
             "given `x1` (each `0.5 x1 + N(0, 0.75)`); `score_a = x1 + x2` (x2 partly missing, imputed on "
             "`1, x1, x3, y`), `score_b = x1 + x3` (complete): equal population AUROC and AUCPR. "
             "`compare(df, \"y\", [\"score_a\", \"score_b\"], by=\"rep\", metric=\"auroc\", imputation=\".imp\")` "
             "(DeLong within, Rubin on the difference, t with Barnard-Rubin df); AUCPR with "
             f"`method=\"bootstrap\", n_boot={a['n_boot']}` within, on fewer data sets. Full data: the same "
             "comparison before deletion (DeLong test; AUCPR: the bootstrap p-value).", "",
             f"`impute_on` (any design) reproduces `imputation_coverage.impute` with its design `(1, x1, y)`: "
             f"largest difference {res['impute_check']:.1e}.", ""]
    p = res["cmp_params"]
    lines += [f"Comparison population: b0 {p['b0']:.6f} (prevalence 0.2), missing intercepts "
              + ", ".join(f"{k}: {v:.6f}" for k, v in p["a"].items()) + ".", ""]
    # heterogeneity
    cells = res["het"]
    names = ("auroc D1", "auroc D2", "auroc D1 within", "auroc D2 within", "auroc full", "aucpr D1",
             "aucpr D1 within", "aucpr full")
    lines += ["## Heterogeneity across k random subgroups", "",
              "Imputation model: **ignores g** = `imputation_coverage.impute` (`x2` on `1, x1, y`, the same in "
              "every subgroup; the scores of the coverage study); **within g** = the model free to differ by subgroup "
              "(`1, x1, y` and their interactions with the subgroup indicators, one residual variance; a weak "
              f"ridge {res.get('within_ridge', 1.0):g} on the interactions so that a subgroup without an observed "
              "event borrows the reference slope), the imputation congenial with a subgroup analysis. Same cohorts, missingness and subgroups.", "",
              "| n | missing | m | k | sets | AUROC D1 ignores g | AUROC D2 ignores g | AUROC D1 within g | "
              "AUROC D2 within g | AUROC full data | AUCPR D1 ignores g | AUCPR D1 within g | AUCPR full data |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in cells:
        for k in KS:
            t = c["tests"]
            got = " | ".join(rate(t[f"{x} k{k}"]) if f"{x} k{k}" in t else "" for x in names)
            lines.append(f"| {c['n']} | {c['missing_share']} | {c['m']} | {k} | {c['reps']} | {got} |")
    checks = [v for c in cells for v in c.get("hand_d1", {}).values()]
    if checks:
        lines += ["", "AUROC D1 recomputed by hand (numpy / scipy, the formulas of Li, Raghunathan & Rubin 1991) "
                  "from `result.per_imputation`'s DeLong SEs for the first 200 data sets of every cell (those without a "
                  "group left out), both "
                  f"imputation models: largest difference in the p-value {max(checks):.1e}."]
    if res.get("variance_check"):
        lines += ["", "Variance check (`variance_check`; its own data sets, seed child "
                  f"{len(HET_CELLS) + len(CMP_CELLS) + len(AUCPR_CMP_CELLS)}): the contrast AUROC(g = 1) - "
                  "AUROC(g = 3), k = 3; Monte Carlo variance of the pooled estimate over the data sets against the "
                  "mean of Rubin's `T = Ubar + (1 + 1/m) B` (per-imputation DeLong variances; full data: `T = U`). "
                  "A ratio below 1: T overstates the variance and the test rejects too rarely. Monte Carlo SE of the "
                  "ratio about `sqrt(2 / sets)`: 0.04 at 1,500 sets, 0.045 at 1,000.", "",
                  "| n | missing | m | sets | imputation | var(pooled contrast) | mean Ubar | mean B | mean T | "
                  "var / T |", "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
        for r in res["variance_check"]:
            lines.append(f"| {r['n']} | {r['missing_share']} | {r['m']} | {r['reps']} | {r['imputation']} | "
                         f"{r['var_qbar']:.2e} | {r['ubar']:.2e} | {r['b']:.2e} | {r['t']:.2e} | "
                         f"{r['ratio']:.3f} |")
    lines += ["", "Rejection at 1% and 10% (%), Kolmogorov-Smirnov distance of the p-values from uniform, mean "
              "`riv` and median denominator df of the pooled test:", "",
              "| n | missing | m | k | test | p < 0.01 | p < 0.10 | KS | riv | df2 median | groups left out |",
              "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for c in cells:
        for k in KS:
            for name in names:
                s = c["tests"].get(f"{name} k{k}")
                if s is None:
                    continue
                extra = (f"{s['riv_mean']:.3f} | {s['df2_median']:.1f} | {s['left_out']}" if "riv_mean" in s
                         else " | | ")
                lines.append(f"| {c['n']} | {c['missing_share']} | {c['m']} | {k} | {name} | "
                             f"{100 * s['rate_01']:.1f} | {100 * s['rate_10']:.1f} | {s['ks_uniform']:.3f} | "
                             f"{extra} |")
    # comparison
    lines += ["", "## Paired comparison of two models with equal areas (one score imputed, one complete)", "",
              "| metric | n | missing | m | sets | pooled | full data | mean difference pooled | sd | mean se | "
              "se/sd | mean z | fmi | df median | se/sd full |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in res["cmp"]:
        for metric in c["metrics"]:
            s, f = c["tests"][f"{metric} pooled"], c["tests"][f"{metric} full"]
            name = metric.upper() + (f" (bootstrap {a['n_boot']})" if metric == "aucpr" else " (DeLong)")
            lines.append(f"| {name} | {c['n']} | {c['missing_share']} | {c['m']} | {c['reps']} | {rate(s)} | "
                         f"{rate(f)} | {s['mean_difference']:+.4f} | {s['sd_difference']:.4f} | {s['mean_se']:.4f} | "
                         f"{s['se_over_sd']:.3f} | {s['mean_z']:+.3f} | {s['fmi_mean']:.3f} | {s['df_median']:.1f} | "
                         f"{f['se_over_sd']:.3f} |")
    lines += ["", "Rejection at 1% and 10% (%), KS distance from uniform:", "",
              "| metric | n | missing | m | test | p < 0.01 | p < 0.10 | KS |", "|---|---:|---:|---:|---|---:|---:|---:|"]
    for c in res["cmp"]:
        for metric in c["metrics"]:
            for which in ("pooled", "full"):
                s = c["tests"][f"{metric} {which}"]
                lines.append(f"| {metric} | {c['n']} | {c['missing_share']} | {c['m']} | {which} | "
                             f"{100 * s['rate_01']:.1f} | {100 * s['rate_10']:.1f} | {s['ks_uniform']:.3f} |")
    lines += ["", "## Time per cell", "", "| block | n | missing | m | sets | batch | seconds |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for block, key in (("heterogeneity", "het"), ("comparison", "cmp")):
        for c in res[key]:
            what = block if block == "heterogeneity" else f"comparison ({', '.join(c['metrics'])})"
            lines.append(f"| {what} | {c['n']} | {c['missing_share']} | {c['m']} | {c['reps']} | {c['batch']} | "
                         f"{c['seconds']:.0f} |")
    lines += ["", "## Warnings and notes met", "", "Warnings (count):", ""]
    lines += [f"- {k} ({v})" for k, v in res["warnings"].items()] or ["- none"]
    lines += ["", "Notes on result rows (count; the comparison's standard \"pooled over m imputations\" suffix "
              "left out):", ""]
    lines += [f"- {k} ({v})" for k, v in res["notes"].items()] or ["- none"]
    lines.append("")
    if res.get("reading"):
        lines += ["## What this shows (read by hand from this run)", "", res["reading"].strip(), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--het-reps", type=int, default=1500, help="data sets per heterogeneity cell")
    parser.add_argument("--cmp-reps", type=int, default=5000, help="data sets per AUROC comparison cell")
    parser.add_argument("--aucpr-cmp-reps", type=int, default=1000, help="data sets per AUCPR comparison cell")
    parser.add_argument("--aucpr-het-cells", default="all", help="'all', 'none' or indices into HET_CELLS")
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--max-rows", type=int, default=4_000_000, help="rows of the stacked frame per call")
    parser.add_argument("--blocks", default="het,cmp,aucpr_cmp")
    parser.add_argument("--quick", action="store_true", help="a small run to check the script")
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--out", type=Path, default=HERE / "imputation_tests_size_results.md")
    parser.add_argument("--render", type=Path, help="only write the page again from this run's JSON")
    parser.add_argument("--reading", type=Path, help="with --render: a hand-written reading, stored in the JSON")
    parser.add_argument("--variance-check", action="store_true",
                        help="with --render: run the variance check (seconds) and add it to that JSON")
    args = parser.parse_args(argv)
    n_cells = len(HET_CELLS) + len(CMP_CELLS) + len(AUCPR_CMP_CELLS)
    if args.render:
        res = ic.unjson(json.loads(args.render.read_text()))
        if args.variance_check:
            res["variance_check"] = variance_check(np.random.SeedSequence(res["args"]["seed"]).spawn(n_cells + 1)[-1])
            args.render.write_text(json.dumps(ic.jsonable(res), indent=1))
        if args.reading:
            res["reading"] = args.reading.read_text()
            args.render.write_text(json.dumps(ic.jsonable(res), indent=1))
        args.out.write_text(markdown(res))
        print(f"wrote {args.out}")
        return
    if args.quick:
        args.het_reps, args.cmp_reps, args.aucpr_cmp_reps, args.n_boot = 40, 40, 20, 50
    start = time.perf_counter()
    seeds = np.random.SeedSequence(args.seed).spawn(n_cells + 1)  # the last: the variance check
    blocks = set(args.blocks.split(","))
    res = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
           "command": "python " + " ".join(sys.argv if argv is None else [__file__, *argv]),
           "machine": ic.machine(), "commit": ic.commit(), "fingerprint": ic.fingerprint(),
           "date": time.strftime("%Y-%m-%d %H:%M"), "times": {}, "het": [], "cmp": []}
    res["impute_check"], res["within_ridge"] = check_impute_on(), WITHIN_RIDGE
    if res["impute_check"] != 0.0:
        raise RuntimeError(f"impute_on differs from imputation_coverage.impute by {res['impute_check']}")
    b0c = cmp_intercept(PREVALENCE)
    res["cmp_params"] = {"b0": b0c, "a": {str(q): cmp_missing_intercept(b0c, q) for q in (0.2, 0.5)}}
    tally = ic.Tally()
    aucpr_het = (set(range(len(HET_CELLS))) if args.aucpr_het_cells == "all" else set() if
                 args.aucpr_het_cells == "none" else {int(i) for i in args.aucpr_het_cells.split(",")})
    if "het" in blocks:
        t0 = time.perf_counter()
        for i, cell in enumerate(HET_CELLS):
            c = het_cell(seeds[i], cell, args.het_reps, args.max_rows, tally, i in aucpr_het)
            res["het"].append(c)
            print(f"het {cell}: {c['seconds']:.0f} s (total {time.perf_counter() - start:.0f} s); "
                  + "; ".join(f"{k} {100 * v['rate']:.1f}" for k, v in c["tests"].items()), flush=True)
        res["times"]["heterogeneity"] = time.perf_counter() - t0
    if "cmp" in blocks:
        t0 = time.perf_counter()
        for i, cell in enumerate(CMP_CELLS):
            c = cmp_cell(seeds[len(HET_CELLS) + i], cell, args.cmp_reps, args.max_rows, tally, {"auroc": {}},
                         res["cmp_params"])
            res["cmp"].append(c)
            print(f"cmp {cell}: {c['seconds']:.0f} s (total {time.perf_counter() - start:.0f} s); "
                  + "; ".join(f"{k} {100 * v['rate']:.1f}" for k, v in c["tests"].items()), flush=True)
        res["times"]["comparison auroc"] = time.perf_counter() - t0
    if "aucpr_cmp" in blocks:
        t0 = time.perf_counter()
        for i, cell in enumerate(AUCPR_CMP_CELLS):
            c = cmp_cell(seeds[len(HET_CELLS) + len(CMP_CELLS) + i], cell, args.aucpr_cmp_reps, args.max_rows,
                         tally, {"aucpr": {"method": "bootstrap", "n_boot": args.n_boot}}, res["cmp_params"])
            res["cmp"].append(c)
            print(f"aucpr cmp {cell}: {c['seconds']:.0f} s (total {time.perf_counter() - start:.0f} s); "
                  + "; ".join(f"{k} {100 * v['rate']:.1f}" for k, v in c["tests"].items()), flush=True)
        res["times"]["comparison aucpr"] = time.perf_counter() - t0
    res["variance_check"] = variance_check(seeds[-1])  # seconds
    res["warnings"], res["notes"] = dict(tally.warnings), dict(tally.notes)
    res["seconds"] = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(ic.jsonable(res), indent=1))
    args.out.write_text(markdown(res))
    print(f"wrote {args.out} and its .json ({res['seconds'] / 60:.1f} min)")


if __name__ == "__main__":
    main()
