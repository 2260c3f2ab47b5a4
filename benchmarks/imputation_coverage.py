r"""Coverage of the Rubin-pooled AUROC and AUCPR intervals over multiple imputations (``imputation=``) by simulation.

What is simulated
-----------------
External validation of a **fixed** prediction model when one of its predictors is partly missing.

* Cohort of ``n`` rows: ``(x1, x2)`` bivariate normal, unit variances, correlation 0.5; outcome
  ``y ~ Bernoulli(expit(b0 + x1 + x2))``, ``b0`` set (Gauss-Hermite quadrature, root finding) so that the
  prevalence is 0.2 (one cell 0.1).
* The model validated is fixed: ``score = 0.8 x1 + 0.8 x2`` (its linear predictor; a monotone function of
  the true risk, so its AUROC is the best attainable).
* ``x2`` is missing at random given ``x1`` **and** ``y``: ``P(missing) = expit(a + x1 + y)``, ``a`` set so the
  missing share is 0.2 or 0.5. Rows with ``x2`` observed over-represent events and high ``x1``, so the
  complete-case estimate is biased for the cohort's AUROC and AUCPR.
* Proper imputation (Rubin 1987, 5.3; mice's ``norm``): per cohort, the Bayesian linear regression of ``x2``
  on ``(1, x1, y)`` over the rows with ``x2`` observed: ``sigma*^2 = SSR / chi^2_{n_obs - 3}``,
  ``beta* ~ N(beta_hat, sigma*^2 (X'X)^{-1})``, then ``x2 = X beta* + N(0, sigma*^2)`` for each missing row,
  independently for each of the ``m`` imputations. **The outcome is in the imputation model**, as is
  standard practice (Moons et al. 2006; leaving it out biases the association towards 0). The imputation
  model is slightly misspecified (``x2 | x1, y`` is not exactly normal-linear when ``y`` is logistic in
  ``x1 + x2``), as in practice. The score is computed from the completed ``x2``.

The estimand is the population (cohort) value of the fixed score: AUROC ``P(s+ > s-)`` and AUCPR, the
population average precision ``int precision d recall``, which the library's default AUCPR estimator
(``average_precision``; continuous scores, no ties) estimates. **Truths by quadrature** on the linear
predictor ``L = x1 + x2 ~ N(0, 3)`` (1-D, 400,001-point trapezoid on +-12 sd), checked against the library's
own estimators (``auroc``, ``aucpr`` defaults) on one Monte Carlo sample of 5,000,000 rows (difference in
units of that sample's DeLong / logit SE). The complete-case *population* values (what the complete-case
estimate converges to) are reported from the same 5,000,000 rows after deletion.

Per grid cell: ``n`` in {500, 2000} x missing share in {0.2, 0.5} x ``m`` in {5, 20}, prevalence 0.2; plus
``n = 2000``, missing share 0.5, ``m = 5`` at prevalence 0.1; 2,000 data sets per cell. All data sets of a batch are **one** stacked
polars frame (``rep`` x ``.imp`` x rows) and one call per verb:

* **pooled**: ``auroc(df, "y", "score", by="rep", imputation=".imp").conf_int_polars()`` (DeLong within,
  the default) and ``aucpr(...).conf_int_polars()`` (Boyd's logit interval within, the default): Rubin's
  rules on the logit scale, Barnard-Rubin df;
* **single imputation**: the first imputed data set alone, its own DeLong / logit interval (ignores the
  imputation uncertainty);
* **complete case**: the rows with ``x2`` observed, DeLong / logit;
* **full data** (reference, not available in practice): the cohort before deletion, DeLong / logit: the
  coverage the within-imputation method has with no missing data at this ``n``.

Extra block: AUCPR pooled with ``method="bootstrap", n_boot=200`` within variances, ``n = 500``, missing
share 0.5, ``m = 5``, 1,000 data sets (its single-imputation bootstrap interval alongside).

Coverage is the share of finite intervals that contain the truth, with its Monte Carlo SE
``sqrt(c (1 - c) / k)``; also the misses below (``upper < truth``) and above, mean width, mean bias of the
estimate (estimate - truth), the ratio of the mean standard error to the empirical SD of the estimate
(``se/sd``; natural scale), and for the pooled intervals mean ``fmi``, mean ``riv`` and median ``df``.
A pooled coverage below 93.5% is bold.

Seeds: ``numpy.random.SeedSequence(seed)`` (default 20261127) spawns one child per cell (in the order of
``CELLS``), one for the bootstrap block and one for the truth check; every cell is reproducible on its
own.

Run (one core)::

    AUCPR_STATS_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/imputation_coverage.py
    python benchmarks/imputation_coverage.py --quick --out /tmp/imp_quick.md    # a smoke test, under a minute
    python benchmarks/imputation_coverage.py --render benchmarks/imputation_coverage_results.json \
        --reading reading.md    # only rewrite the page (with a hand-written reading) from a run's JSON
"""

from __future__ import annotations

import os

os.environ.setdefault("AUCPR_STATS_THREADS", "1")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import json
import re
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
from scipy import optimize
from scipy.special import expit

from aucpr_stats import aucpr, auroc
from _provenance import commit, machine  # noqa: E402

HERE = Path(__file__).resolve().parent
RHO = 0.5
COEF = 1.0  # the true log-odds per unit of x1 and of x2
SCORE_COEF = 0.8  # the fixed model: score = 0.8 x1 + 0.8 x2
MISS_X1, MISS_Y = 1.0, 1.0  # P(missing) = expit(a + x1 + y)
#: (prevalence, n, missing share, m)
CELLS = tuple((0.2, n, q, m) for n in (500, 2000) for q in (0.2, 0.5) for m in (5, 20)) + ((0.1, 2000, 0.5, 5),)
BOOT_CELL = (0.2, 500, 0.5, 5)
METHODS = ("pooled", "single", "complete_case", "full")
LABELS = {"pooled": "pooled (Rubin)", "single": "single imputation", "complete_case": "complete case",
          "full": "full data (reference)"}
GH_NODES, GH_WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
GH_WEIGHTS = GH_WEIGHTS / GH_WEIGHTS.sum()
SD_L = np.sqrt(2.0 + 2.0 * RHO)  # sd of x1 + x2
FLAG = 0.935


# ------------------------------------------------------------------ population values
def intercept_for(prevalence: float) -> float:
    """b0 with E[expit(b0 + L)] = prevalence, L = x1 + x2 ~ N(0, 2 + 2 rho)."""
    return optimize.brentq(lambda b: np.sum(GH_WEIGHTS * expit(b + COEF * SD_L * GH_NODES)) - prevalence,
                           -30, 30, xtol=1e-14)


def missing_intercept(b0: float, share: float) -> float:
    """a with E[expit(a + x1 + y)] = share (2-D Gauss-Hermite over x1 and x2 | x1)."""
    x1 = GH_NODES[:, None]
    x2 = RHO * x1 + np.sqrt(1 - RHO ** 2) * GH_NODES[None, :]
    w = GH_WEIGHTS[:, None] * GH_WEIGHTS[None, :]
    p1 = expit(b0 + COEF * (x1 + x2))

    def share_at(a):
        return np.sum(w * (p1 * expit(a + MISS_X1 * x1 + MISS_Y) + (1 - p1) * expit(a + MISS_X1 * x1)))

    return optimize.brentq(lambda a: share_at(a) - share, -30, 30, xtol=1e-14)


def population_values(b0: float, points: int = 400_001) -> dict:
    """AUROC and average precision of the score (monotone in L) by quadrature over L ~ N(0, SD_L^2)."""
    lv = np.linspace(-12 * SD_L, 12 * SD_L, points)
    h = lv[1] - lv[0]
    dens = np.exp(-0.5 * (lv / SD_L) ** 2) / (SD_L * np.sqrt(2 * np.pi))
    p1 = expit(b0 + COEF * lv)
    f1, f0 = dens * p1, dens * (1 - p1)

    def tail(f):  # int_l^inf f, trapezoid, from the right
        seg = 0.5 * (f[1:] + f[:-1]) * h
        return np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]])

    s1, s0 = tail(f1), tail(f0)
    prev, neg = s1[0], s0[0]
    # AUROC = P(L+ > L-) = int f1(l) F0(l) dl / (prev (1 - prev)), F0(l) = neg - s0(l)
    g = f1 * (neg - s0)
    auc = np.sum(0.5 * (g[1:] + g[:-1]) * h) / (prev * neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(s1 + s0 > 0, s1 / (s1 + s0), 1.0)
    g = f1 * precision
    ap = np.sum(0.5 * (g[1:] + g[:-1]) * h) / prev
    return {"prevalence": float(prev), "auroc": float(auc), "aucpr": float(ap)}


def truth_check(rng: np.random.Generator, prevalence: float, b0: float, a_by_share: dict, truth: dict,
                rows: int) -> dict:
    """The library's estimators on one large sample (and its complete-case rows) against the quadrature."""
    x1, x2, y = cohort(rng, 1, rows, b0)
    x1, x2, y = x1[0], x2[0], y[0]
    frame = pl.DataFrame({"y": y, "score": SCORE_COEF * (x1 + x2)})
    out = {"rows": rows, "prevalence_mc": float(y.mean())}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ra = auroc(frame, "y", "score").conf_int_polars(method="delong")
        rp = aucpr(frame, "y", "score")
        out["aucpr_estimator"] = str(rp.to_polars()["estimator"][0])
        rp = rp.conf_int_polars(method="logit")
    for name, ci in (("auroc", ra), ("aucpr", rp)):
        est, se = float(ci["estimate"][0]), float(ci["se"][0])
        out[f"{name}_mc"], out[f"{name}_mc_se"] = est, se
        out[f"{name}_z"] = (est - truth[name]) / se
    out["complete_case"] = {}
    for share, a in a_by_share.items():
        miss = rng.random(rows) < expit(a + MISS_X1 * x1 + MISS_Y * y)
        cc = frame.filter(pl.Series(~miss))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["complete_case"][str(share)] = {
                "missing_share_mc": float(miss.mean()),
                "prevalence_cc": float(y[~miss].mean()),
                "auroc": float(auroc(cc, "y", "score").estimate),
                "aucpr": float(aucpr(cc, "y", "score").estimate)}
    return out


# ------------------------------------------------------------------ data and imputation
def cohort(rng: np.random.Generator, reps: int, n: int, b0: float):
    z1, z2 = rng.standard_normal((reps, n)), rng.standard_normal((reps, n))
    x1 = z1
    x2 = RHO * z1 + np.sqrt(1 - RHO ** 2) * z2
    y = (rng.random((reps, n)) < expit(b0 + COEF * (x1 + x2))).astype(np.int8)
    return x1, x2, y


def impute(rng: np.random.Generator, x1: np.ndarray, x2: np.ndarray, y: np.ndarray, observed: np.ndarray,
           m: int) -> np.ndarray:
    """m proper imputations of x2 per cohort (Bayesian normal linear regression on 1, x1, y): (reps, m, n)."""
    reps, n = x1.shape
    design = np.stack([np.ones_like(x1), x1, y.astype(np.float64)], axis=-1)  # (reps, n, 3)
    w = observed.astype(np.float64)
    xtx = np.einsum("rni,rnj,rn->rij", design, design, w)
    xty = np.einsum("rni,rn->ri", design, np.where(observed, x2, 0.0))
    beta_hat = np.linalg.solve(xtx, xty[..., None])[..., 0]
    resid = np.where(observed, x2 - np.einsum("rni,ri->rn", design, beta_hat), 0.0)
    ssr = np.sum(resid ** 2, axis=1)
    dof = observed.sum(axis=1) - 3
    sigma2 = ssr[:, None] / rng.chisquare(dof[:, None], size=(reps, m))  # (reps, m)
    chol = np.linalg.cholesky(np.linalg.inv(xtx))  # (reps, 3, 3)
    beta = beta_hat[:, None, :] + np.sqrt(sigma2)[..., None] * np.einsum(
        "rij,rkj->rki", chol, rng.standard_normal((reps, m, 3)))  # (reps, m, 3)
    draws = np.einsum("rni,rki->rkn", design, beta) + np.sqrt(sigma2)[..., None] * rng.standard_normal((reps, m, n))
    return np.where(observed[:, None, :], x2[:, None, :], draws)


# ------------------------------------------------------------------ one batch of cohorts
class Tally:
    """Warnings and notes met on the way: message (first 110 characters, digits as #) -> count."""

    def __init__(self):
        self.warnings, self.notes = Counter(), Counter()

    def call(self, fn, *args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn(*args, **kwargs)
        for w in caught:
            self.warnings[f"{w.category.__name__}: {re.sub(r'[0-9]+', '#', str(w.message))[:110]}"] += 1
        return out

    def notes_of(self, frame: pl.DataFrame, where: str):
        if "note" in frame.columns:
            for note, count in frame.group_by("note").len().iter_rows():
                if note is not None:
                    self.notes[f"{where}: {re.sub(r'[0-9]+', '#', note)[:110]}"] += count


COLUMNS = ("estimate", "lower", "upper", "se")
POOLED_COLUMNS = COLUMNS + ("within", "between", "total", "df", "riv", "fmi", "m")


def take(frame: pl.DataFrame, reps: int, offset: int, columns) -> dict:
    """Per-rep arrays (ordered by rep) from a result frame with a ``rep`` column."""
    frame = frame.sort("rep")
    got = frame["rep"].to_numpy()
    if got.size != reps or not np.array_equal(got, np.arange(offset, offset + reps)):
        raise RuntimeError(f"expected reps {offset}..{offset + reps - 1}, got {got.size} rows")
    return {c: frame[c].cast(pl.Float64).to_numpy() for c in columns}


def hand_rubin(result, within: str, pooled: pl.DataFrame, n: int) -> float:
    """Rubin's rules by hand from the per-imputation intervals; the largest difference from the library's row."""
    from scipy import stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the per-imputation rows' own small-sample warnings (tallied elsewhere)
        per = result.per_imputation.conf_int_polars(method=within)
    per = per[0] if isinstance(per, tuple) else per
    per = per.with_columns(theta=(pl.col("estimate") / (1 - pl.col("estimate"))).log(),
                           u=(pl.col("se") / (pl.col("estimate") * (1 - pl.col("estimate")))) ** 2)
    g = per.group_by("rep").agg(q=pl.col("theta").mean(), ubar=pl.col("u").mean(), b=pl.col("theta").var(),
                                 m=pl.len()).sort("rep")
    m = g["m"].to_numpy().astype(float)
    q, ubar, b = g["q"].to_numpy(), g["ubar"].to_numpy(), g["b"].to_numpy()
    total = ubar + (1 + 1 / m) * b
    lam = (1 + 1 / m) * b / total
    nu_com = n - 1.0
    df_old = (m - 1) / lam ** 2
    df_obs = (nu_com + 1) / (nu_com + 3) * nu_com * (1 - lam)
    df = df_old * df_obs / (df_old + df_obs)
    half = stats.t.ppf(0.975, df) * np.sqrt(total)
    mine = np.column_stack([expit(q), expit(q - half), expit(q + half), df])
    theirs = pooled.sort("rep").select("estimate", "lower", "upper", "df").to_numpy()
    return float(np.max(np.abs(mine - theirs) / np.maximum(1.0, np.abs(theirs))))


def batch(rng: np.random.Generator, reps: int, offset: int, n: int, b0: float, a: float, m: int, tally: Tally,
          label: str, boot: dict | None = None) -> tuple[dict, dict]:
    """One stacked frame of ``reps`` cohorts x ``m`` imputations; per metric and method, per-rep arrays."""
    times = Counter()
    t0 = time.perf_counter()
    x1, x2, y = cohort(rng, reps, n, b0)
    observed = rng.random((reps, n)) >= expit(a + MISS_X1 * x1 + MISS_Y * y)
    completed = impute(rng, x1, x2, y, observed, m)  # (reps, m, n)
    rep_ids = np.arange(offset, offset + reps, dtype=np.int32)
    stacked = pl.DataFrame({
        "rep": np.repeat(rep_ids, m * n),
        ".imp": np.tile(np.repeat(np.arange(1, m + 1, dtype=np.int16), n), reps),
        "y": np.broadcast_to(y[:, None, :], (reps, m, n)).ravel(),
        "score": (SCORE_COEF * (x1[:, None, :] + completed)).ravel(),
    })
    full = pl.DataFrame({"rep": np.repeat(rep_ids, n), "y": y.ravel(), "score": (SCORE_COEF * (x1 + x2)).ravel()})
    complete = full.filter(pl.Series(observed.ravel()))
    first = stacked.filter(pl.col(".imp") == 1).drop(".imp")
    times["data"] += time.perf_counter() - t0
    out: dict = {"auroc": {}, "aucpr": {}}
    specs = {"auroc": (auroc, "delong"), "aucpr": (aucpr, "logit")}
    for metric, (verb, within) in specs.items():
        t1 = time.perf_counter()
        result = tally.call(verb, stacked, "y", "score", by="rep", imputation=".imp")
        pooled = tally.call(result.conf_int_polars)
        if set(pooled["method"].unique()) != {within}:
            raise RuntimeError(f"{metric}: pooled with {pooled['method'].unique().to_list()}, expected {within}")
        tally.notes_of(pooled, f"{label} {metric} pooled")
        out[metric]["pooled"] = take(pooled, reps, offset, POOLED_COLUMNS)
        if offset == 0:  # Rubin's rules by hand on the first batch of the cell
            out[f"{metric}_hand_check"] = np.array([hand_rubin(result, within, pooled, n)])
        times[f"{metric} pooled"] += time.perf_counter() - t1
        if boot is not None and metric == "aucpr":
            t1 = time.perf_counter()
            frame = tally.call(result.conf_int_polars, method="bootstrap", n_boot=boot["n_boot"], seed=boot["seed"])
            tally.notes_of(frame, f"{label} {metric} pooled bootstrap")
            out[metric]["pooled_bootstrap"] = take(frame, reps, offset, POOLED_COLUMNS)
            times["aucpr pooled bootstrap"] += time.perf_counter() - t1
        for name, data in (("single", first), ("complete_case", complete), ("full", full)):
            t1 = time.perf_counter()
            res = tally.call(verb, data, "y", "score", by="rep")
            frame = tally.call(res.conf_int_polars, method=within)
            tally.notes_of(frame, f"{label} {metric} {name}")
            out[metric][name] = take(frame, reps, offset, COLUMNS)
            if boot is not None and metric == "aucpr" and name == "single":
                frame = tally.call(res.conf_int_polars, method="bootstrap", n_boot=boot["n_boot"],
                                   seed=boot["seed"] + 1)
                tally.notes_of(frame, f"{label} {metric} single bootstrap")
                out[metric]["single_bootstrap"] = take(frame, reps, offset, COLUMNS)
            times[f"{metric} {name}"] += time.perf_counter() - t1
    out["missing_share"] = 1.0 - observed.mean(axis=1)
    out["prevalence"] = y.mean(axis=1)
    return out, dict(times)


def merge(parts: list[dict]) -> dict:
    if isinstance(parts[0], dict):
        return {k: merge([p[k] for p in parts if k in p]) for k in parts[0]}
    return np.concatenate(parts)


def summarise(values: dict, truth: float, pooled: bool) -> dict:
    est, lo, hi, se = (np.asarray(values[c]) for c in COLUMNS)
    finite = np.isfinite(lo) & np.isfinite(hi)
    k = int(finite.sum())
    cover = (lo[finite] <= truth) & (truth <= hi[finite])
    c = float(cover.mean()) if k else np.nan
    out = {"sets": int(est.size), "finite": k, "coverage": c,
           "mc_se": float(np.sqrt(c * (1 - c) / k)) if k else np.nan,
           "below": float(np.mean(hi[finite] < truth)) if k else np.nan,
           "above": float(np.mean(lo[finite] > truth)) if k else np.nan,
           "width": float(np.mean(hi[finite] - lo[finite])) if k else np.nan,
           "bias": float(np.nanmean(est - truth)), "sd": float(np.nanstd(est, ddof=1)),
           "mean_se": float(np.nanmean(se)),
           "rmse": float(np.sqrt(np.nanmean((est - truth) ** 2)))}
    out["se_over_sd"] = out["mean_se"] / out["sd"] if out["sd"] > 0 else np.nan
    if pooled:
        out["fmi"] = float(np.nanmean(values["fmi"]))
        out["riv"] = float(np.nanmean(values["riv"]))
        out["df_median"] = float(np.nanmedian(values["df"]))
        out["df_min"] = float(np.nanmin(values["df"]))
        out["m_min"] = float(np.nanmin(values["m"]))
        out["between_over_within"] = float(np.nanmean(values["between"] / values["within"]))
    return out


def run_cell(seq: np.random.SeedSequence, cell: tuple, reps: int, max_rows: int, params: dict, tally: Tally,
             boot: dict | None = None) -> dict:
    prevalence, n, share, m = cell
    b0 = params[str(prevalence)]["b0"]
    a = params[str(prevalence)]["a"][str(share)]
    rng = np.random.default_rng(seq)
    size = max(1, min(reps, max_rows // (n * m)))
    parts, times = [], Counter()
    t0 = time.perf_counter()
    label = f"prev {prevalence} n {n} miss {share} m {m}" + (" (bootstrap block)" if boot else "")
    for offset in range(0, reps, size):
        k = min(size, reps - offset)
        if boot is not None:
            boot = dict(boot, seed=int(rng.integers(2 ** 31)))
        got, t = batch(rng, k, offset, n, b0, a, m, tally, label, boot)
        parts.append(got)
        times.update(t)
    data = merge(parts)
    truth = params[str(prevalence)]["truth"]
    out = {"prevalence": prevalence, "n": n, "missing_share": share, "m": m, "reps": reps, "batch": size,
           "seconds": time.perf_counter() - t0, "times": dict(times),
           "missing_share_mean": float(np.mean(data["missing_share"])),
           "prevalence_mean": float(np.mean(data["prevalence"])), "auroc": {}, "aucpr": {},
           "hand_check": {k: float(np.max(data[f"{k}_hand_check"])) for k in ("auroc", "aucpr")}}
    for metric in ("auroc", "aucpr"):
        for method, values in data[metric].items():
            out[metric][method] = summarise(values, truth[metric], pooled=method.startswith("pooled"))
    return out


# ------------------------------------------------------------------ the page




def fingerprint() -> str:
    """sha256 (first 12 digits) of the package's .py files, by path: identifies uncommitted library code."""
    import hashlib
    import aucpr_stats
    root = Path(aucpr_stats.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def cov(s: dict, bold: bool = False) -> str:
    c = s["coverage"]
    if not np.isfinite(c):
        return "nan"
    text = f"{100 * c:.1f} ({100 * s['mc_se']:.1f})"
    if bold and c < FLAG:
        text = f"**{text}**"
    if s["finite"] < s["sets"]:
        text += f" nan {100 * (1 - s['finite'] / s['sets']):.0f}%"
    return text


def cell_name(c: dict) -> str:
    return f"| {c['prevalence']} | {c['n']} | {c['missing_share']} | {c['m']} | {c['reps']} |"


def markdown(res: dict) -> str:
    lines = ["# Coverage of the Rubin-pooled AUROC and AUCPR intervals over multiple imputations", "",
             f"Command: `{res['command']}`  ",
             f"Machine: {res['machine']}  ",
             f"Commit: `{res['commit']}` (run from a clone of the repository; sha256 of aucpr_stats/**/*.py "
             f"`{res.get('fingerprint', '?')}`)  ",
             f"Date: {res['date']}; wall time {res['seconds'] / 60:.1f} min "
             f"({', '.join(f'{k} {v / 60:.1f}' for k, v in res['times'].items())} min). Seed "
             f"{res['args']['seed']} (`SeedSequence(seed).spawn`, one child per cell).", "",
             "External validation of the fixed model `score = 0.8 x1 + 0.8 x2` (`x1, x2` bivariate normal, "
             "correlation 0.5; `y ~ Bernoulli(expit(b0 + x1 + x2))`) when `x2` is missing at random given `x1` "
             "and `y` (`P(missing) = expit(a + x1 + y)`). `x2` is imputed m times per cohort by Bayesian normal "
             "linear regression on `x1` **and `y`** (proper imputation, mice's `norm`; the outcome belongs in the "
             "imputation model). Details: the script's docstring.", "",
             "Nominal level 95%. Coverage in percent of the finite intervals (Monte Carlo SE) of the population "
             "(cohort) value; pooled coverage below 93.5% is **bold**. Methods:", "",
             "- **pooled**: `auroc(df, \"y\", \"score\", by=\"rep\", imputation=\".imp\").conf_int_polars()` "
             "(DeLong within) and `aucpr(...)` (Boyd's logit within), Rubin's rules on the logit scale, "
             "Barnard-Rubin df; all data sets of a batch in one stacked frame (`rep` x `.imp` x rows), one call;",
             "- **single**: the first imputed data set alone, its own DeLong / logit interval;",
             "- **complete case**: rows with `x2` observed, DeLong / logit;",
             "- **full data**: the cohort before deletion (not available in practice): the within-method's own "
             "coverage at this n.", ""]
    p = res["params"]
    lines += ["## Population values", "",
              "Quadrature over `L = x1 + x2 ~ N(0, 3)`; `mc` = the library's default estimator (`auroc`, "
              f"`aucpr` estimator `{res['truth_check'][next(iter(res['truth_check']))]['aucpr_estimator']}`) "
              f"on one sample of {res['args']['truth_rows']:,} rows, `z` = (mc - quadrature) / its DeLong "
              "(logit) SE. Complete case: the same sample after deletion (the value the complete-case estimate "
              "converges to).", "",
              "| prevalence | b0 | AUROC | AUROC mc (z) | AUCPR | AUCPR mc (z) | missing share | a | share mc | "
              "CC prevalence | CC AUROC | CC AUCPR |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for prev, v in p.items():
        chk = res["truth_check"][prev]
        for share, a in v["a"].items():
            cc = chk["complete_case"][share]
            lines.append(f"| {prev} | {v['b0']:.6f} | {v['truth']['auroc']:.6f} | {chk['auroc_mc']:.6f} "
                         f"({chk['auroc_z']:+.2f}) | {v['truth']['aucpr']:.6f} | {chk['aucpr_mc']:.6f} "
                         f"({chk['aucpr_z']:+.2f}) | {share} | {a:.6f} | {cc['missing_share_mc']:.4f} | "
                         f"{cc['prevalence_cc']:.4f} | {cc['auroc']:.4f} | {cc['aucpr']:.4f} |")
    lines.append("")
    for metric, name in (("auroc", "AUROC (DeLong within)"), ("aucpr", "AUCPR (logit within)")):
        lines += [f"## {name}", "", "Coverage:", "",
                  "| prevalence | n | missing | m | sets | pooled | single | complete case | full data |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for c in res["cells"]:
            s = c[metric]
            lines.append(cell_name(c) + f" {cov(s['pooled'], True)} | {cov(s['single'])} | "
                         f"{cov(s['complete_case'])} | {cov(s['full'])} |")
        lines += ["", "Misses below / above the truth (%), mean width, mean bias (estimate - truth), se/sd "
                  "(mean standard error over the empirical SD of the estimate):", "",
                  "| prevalence | n | missing | m | sets | misses pooled | misses single | misses CC | "
                  "width pooled | width single | width CC | width full | bias pooled | bias single | bias CC | "
                  "bias full | se/sd pooled | se/sd single | se/sd CC | se/sd full |",
                  "|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for c in res["cells"]:
            s = c[metric]
            miss = " | ".join(f"{100 * s[k]['below']:.1f} / {100 * s[k]['above']:.1f}"
                              for k in ("pooled", "single", "complete_case"))
            width = " | ".join(f"{s[k]['width']:.4f}" for k in METHODS)
            bias = " | ".join(f"{s[k]['bias']:+.4f}" for k in METHODS)
            ratio = " | ".join(f"{s[k]['se_over_sd']:.3f}" for k in METHODS)
            lines.append(cell_name(c) + f" {miss} | {width} | {bias} | {ratio} |")
        lines += ["", "Pooled: the Rubin quantities (means over the data sets; df the median and minimum):", "",
                  "| prevalence | n | missing | m | sets | fmi | riv | B / U | df median | df min | "
                  "missing share | prevalence |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for c in res["cells"]:
            s = c[metric]["pooled"]
            lines.append(cell_name(c) + f" {s['fmi']:.3f} | {s['riv']:.3f} | {s['between_over_within']:.3f} | "
                         f"{s['df_median']:.1f} | {s['df_min']:.1f} | {c['missing_share_mean']:.3f} | "
                         f"{c['prevalence_mean']:.3f} |")
        lines.append("")
    b = res.get("boot")
    if b:
        lines += [f"## AUCPR with bootstrap within variances (`method=\"bootstrap\", n_boot={res['args']['n_boot']}`)",
                  "", f"prevalence {b['prevalence']}, n {b['n']}, missing share {b['missing_share']}, m {b['m']}, "
                  f"{b['reps']} data sets (their own, not the grid cell's); {b['seconds']:.0f} s.", "",
                  "| interval | coverage | misses below / above | width | bias | se/sd | fmi | df median |",
                  "|---|---:|---|---:|---:|---:|---:|---:|"]
        for key, name in (("pooled_bootstrap", "pooled, bootstrap within"), ("pooled", "pooled, logit within"),
                          ("single_bootstrap", "single imputation, bootstrap"), ("single", "single imputation, logit"),
                          ("complete_case", "complete case, logit"), ("full", "full data, logit")):
            s = b["aucpr"][key]
            extra = (f"{s['fmi']:.3f} | {s['df_median']:.1f}" if "fmi" in s else " | ")
            lines.append(f"| {name} | {cov(s, key.startswith('pooled'))} | {100 * s['below']:.1f} / "
                         f"{100 * s['above']:.1f} | {s['width']:.4f} | {s['bias']:+.4f} | {s['se_over_sd']:.3f} | "
                         f"{extra} |")
        lines.append("")
    checks = [c["hand_check"] for c in res["cells"] if "hand_check" in c]
    if checks:
        lines += ["Rubin's rules recomputed by hand (scipy's t quantile; logit of each imputation's estimate, "
                  "delta-method variance from its `se`, complete-data df = n - 1) from `result.per_imputation`'s "
                  "intervals on the first batch of every cell: largest relative difference in estimate, lower, "
                  f"upper, df: AUROC {max(c['auroc'] for c in checks):.1e}, AUCPR "
                  f"{max(c['aucpr'] for c in checks):.1e}.", ""]
    lines += ["## Time per cell", "", "| prevalence | n | missing | m | sets | batch | seconds | "
              "rows per pooled call |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in res["cells"] + ([res["boot"]] if res.get("boot") else []):
        lines.append(cell_name(c) + f" {c['batch']} | {c['seconds']:.0f} | {c['batch'] * c['n'] * c['m']:,} |")
    lines += ["", "## Warnings and notes met", "", "Warnings (count):", ""]
    lines += [f"- {k} ({v})" for k, v in res["warnings"].items()] or ["- none"]
    lines += ["", "Notes on result rows (count):", ""]
    lines += [f"- {k} ({v})" for k, v in res["notes"].items()] or ["- none"]
    lines.append("")
    if res.get("reading"):
        lines += ["## What this shows (read by hand from this run)", "", res["reading"].strip(), ""]
    return "\n".join(lines)


def jsonable(v):
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        return float(v) if np.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v


def unjson(v):
    if isinstance(v, dict):
        return {k: unjson(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unjson(x) for x in v]
    return float("nan") if v is None else v


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="data sets per grid cell")
    parser.add_argument("--max-rows", type=int, default=8_000_000, help="rows of the stacked frame per call")
    parser.add_argument("--boot-reps", type=int, default=1000, help="data sets of the bootstrap block (0: skip)")
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--truth-rows", type=int, default=5_000_000)
    parser.add_argument("--cells", default="", help="comma-separated indices into CELLS (default all)")
    parser.add_argument("--quick", action="store_true", help="a small run to check the script")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--out", type=Path, default=HERE / "imputation_coverage_results.md")
    parser.add_argument("--render", type=Path, help="only write the page again from this run's JSON")
    parser.add_argument("--reading", type=Path, help="with --render: a hand-written reading, stored in the JSON")
    args = parser.parse_args(argv)
    if args.render:
        res = unjson(json.loads(args.render.read_text()))
        if args.reading:
            res["reading"] = args.reading.read_text()
            args.render.write_text(json.dumps(jsonable(res), indent=1))
        args.out.write_text(markdown(res))
        print(f"wrote {args.out}")
        return
    if args.quick:
        args.reps, args.boot_reps, args.n_boot, args.truth_rows = 40, 20, 50, 200_000
    start = time.perf_counter()
    seeds = np.random.SeedSequence(args.seed).spawn(len(CELLS) + 2)
    res = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
           "command": "python " + " ".join(sys.argv if argv is None else [__file__, *argv]),
           "machine": machine(), "commit": commit(), "fingerprint": fingerprint(), "date": time.strftime("%Y-%m-%d %H:%M"), "times": {}}
    params, checks = {}, {}
    truth_rng = np.random.default_rng(seeds[-1])
    for prev in sorted({c[0] for c in CELLS}, reverse=True):
        b0 = intercept_for(prev)
        shares = sorted({c[2] for c in CELLS if c[0] == prev})
        a = {str(q): missing_intercept(b0, q) for q in shares}
        truth = population_values(b0)
        params[str(prev)] = {"b0": b0, "a": a, "truth": truth}
        checks[str(prev)] = truth_check(truth_rng, prev, b0, {float(k): v for k, v in a.items()}, truth,
                                        args.truth_rows)
        print(f"prevalence {prev}: b0 {b0:.6f} a {a} truth {truth} check {checks[str(prev)]}", flush=True)
    res["params"], res["truth_check"] = params, checks
    res["times"]["truths"] = time.perf_counter() - start
    tally = Tally()
    chosen = [int(i) for i in args.cells.split(",")] if args.cells else range(len(CELLS))
    res["cells"] = []
    t0 = time.perf_counter()
    for i in chosen:
        cell = run_cell(seeds[i], CELLS[i], args.reps, args.max_rows, params, tally)
        res["cells"].append(cell)
        print(f"cell {CELLS[i]}: {cell['seconds']:.0f} s (total {time.perf_counter() - start:.0f} s); "
              f"AUROC pooled {cell['auroc']['pooled']['coverage']:.3f} single {cell['auroc']['single']['coverage']:.3f}"
              f" CC {cell['auroc']['complete_case']['coverage']:.3f}; AUCPR pooled "
              f"{cell['aucpr']['pooled']['coverage']:.3f} single {cell['aucpr']['single']['coverage']:.3f} CC "
              f"{cell['aucpr']['complete_case']['coverage']:.3f}", flush=True)
    res["times"]["grid"] = time.perf_counter() - t0
    if args.boot_reps:
        t0 = time.perf_counter()
        res["boot"] = run_cell(seeds[-2], BOOT_CELL, args.boot_reps, args.max_rows, params, tally,
                               boot={"n_boot": args.n_boot})
        res["times"]["bootstrap"] = time.perf_counter() - t0
        print(f"bootstrap block: {res['boot']['seconds']:.0f} s; pooled bootstrap "
              f"{res['boot']['aucpr']['pooled_bootstrap']['coverage']:.3f}", flush=True)
    res["warnings"], res["notes"] = dict(tally.warnings), dict(tally.notes)
    res["seconds"] = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(jsonable(res), indent=1))
    args.out.write_text(markdown(res))
    print(f"wrote {args.out} and its .json ({res['seconds'] / 60:.1f} min)")


if __name__ == "__main__":
    main()
