r"""Coverage of the random-effects meta-analysis across sites (``result.meta()``) by simulation.

What is measured
----------------
A model is validated at ``k`` sites. Site ``i`` has a true logit AUROC
``mu + u_i`` with ``u_i ~ N(0, tau^2)`` (``tau`` is the true between-site spread of the logit area), and
its data are binormal with that AUROC: negatives ``N(0, 1)``, positives ``N(d_i, 1)`` with
``d_i = sqrt(2) Phi^{-1}(expit(mu + u_i))``. The site's positives are uniform on the integers 30..150 and
its negatives four times as many (prevalence 0.2), drawn afresh per site.

1. **AUROC grid**: ``k`` in 3, 5, 10, 20, 30 sites x ``tau`` in 0, 0.1, 0.25, 0.5 x the mean true AUROC
   ``expit(mu)`` 0.75 and 0.9. All replicates of a cell are one polars frame (columns ``rep, site, y,
   score``), ``auroc(df, "y", "score", by=["rep", "site"])`` once per batch of replicates, and on that result
   ``.meta(method=..., ci=..., across="site")`` for each tau² estimator (REML, DL, PM) x interval (hksj,
   hksj_adhoc, wald): one vectorised meta-analysis per replicate (the site variances are DeLong's, on the
   logit scale). One more call ``.meta(method="REML", ci="hksj", prediction_interval="riley")`` gives
   Riley's prediction interval (t on ``k - 2`` df).
2. **AUCPR block**: ``k`` in 5, 10, 20 x ``tau`` in 0, 0.25 x the same two means, ``aucpr(...)`` (average
   precision, each site's own jackknife variance of the logit) and ``.meta(method="REML", ci="hksj" | "wald",
   across="site")``. The truth: the population AUCPR of a binormal site with separation ``d`` at prevalence
   ``pi = 0.2`` is ``int_0^1 precision d(recall) = int pi Phi(z) / (pi Phi(z) + (1 - pi) Phi(z - d)) phi(z) dz``
   (``recall = Phi(z)``; adaptive quadrature on a grid of ``d``, a cubic spline between, checked against
   quadrature at other points); the target of the pooling is ``mu_pr = E_u[logit AUCPR(d(mu + u))]``, by Monte
   Carlo over 200,000 draws of ``u`` (checked against Gauss-Hermite quadrature).

Reported per cell:

* **coverage** of the pooled mean: the share of replicates with ``logit(lower) <= mu <= logit(upper)``, with
  its Monte Carlo SE ``sqrt(c (1 - c) / n)``;
* **prediction interval coverage**: for ``tau > 0`` the exact probability, given the replicate's interval,
  that a new site's true logit area falls in it, ``Phi((logit pi_upper - mu) / tau) - Phi((logit pi_lower -
  mu) / tau)``, averaged over replicates (Monte Carlo SE: its SD / sqrt(n)); for ``tau = 0`` the share of
  replicates whose prediction interval contains ``mu``;
* the mean width of the interval on the logit scale, the share of replicates with ``tau2 = 0``, the mean error
  of the pooled logit area (``pooled - mu``).

Run (one core; polars and BLAS limited to one thread)::

    python benchmarks/meta_coverage.py
    python benchmarks/meta_coverage.py --quick --out /tmp/meta_quick.md   # a smoke test, under a minute
    python benchmarks/meta_coverage.py --render benchmarks/meta_coverage_results.json  # the page again
"""

from __future__ import annotations

import os

os.environ.setdefault("AUCPR_STATS_THREADS", "1")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "POLARS_MAX_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl
from scipy import integrate, interpolate, stats
from scipy.special import expit, logit

from aucpr_stats import DegenerateGroupWarning, SmallSampleWarning, aucpr, auroc
from _provenance import commit, machine  # noqa: E402

HERE = Path(__file__).resolve().parent
SITES = (3, 5, 10, 20, 30)
TAUS = (0.0, 0.1, 0.25, 0.5)
MEANS = (0.75, 0.9)  # the mean true AUROC, expit(mu)
METHODS = ("REML", "DL", "PM")
CIS = ("hksj", "hksj_adhoc", "wald")
POS_LOW, POS_HIGH, NEG_PER_POS = 30, 150, 4
PREVALENCE = 1.0 / (1 + NEG_PER_POS)
PR_SITES = (5, 10, 20)
PR_TAUS = (0.0, 0.25)
PR_CIS = ("hksj", "wald")
TARGET = 0.935  # "holds 95% within Monte Carlo error"
COLUMNS = ["lower", "upper", "pooled", "se", "pi_lower", "pi_upper", "tau2", "k"]


# ------------------------------------------------------------------ data
def simulate(rng: np.random.Generator, reps: int, k: int, mu: float, tau: float) -> pl.DataFrame:
    """``reps`` replicates of ``k`` sites each, one row per patient: rep, site, y, score."""
    u = rng.normal(0.0, tau, (reps, k)) if tau > 0 else np.zeros((reps, k))
    d = np.sqrt(2.0) * stats.norm.ppf(expit(mu + u)).ravel()
    n_pos = rng.integers(POS_LOW, POS_HIGH + 1, reps * k)
    n = n_pos * (1 + NEG_PER_POS)
    total = int(n.sum())
    starts = np.cumsum(n) - n
    within = np.arange(total) - np.repeat(starts, n)
    y = within < np.repeat(n_pos, n)
    score = rng.standard_normal(total) + np.where(y, np.repeat(d, n), 0.0)
    return pl.DataFrame({"rep": np.repeat(np.repeat(np.arange(reps, dtype=np.int32), k), n),
                         "site": np.repeat(np.tile(np.arange(k, dtype=np.int32), reps), n), "y": y, "score": score})


def pooled_rows(result, **options) -> dict:
    """One ``.meta(across="site")`` call: the columns needed, one value per replicate (ordered by rep)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        warnings.simplefilter("ignore", DegenerateGroupWarning)
        table = result.meta(across="site", **options).to_polars().sort("rep")
    return {c: table[c].to_numpy().astype(np.float64) for c in COLUMNS}


# ------------------------------------------------------------------ per-replicate outcomes
def outcomes(rows: dict, mu: float, tau: float) -> dict:
    """Per replicate: covered, missed below/above, width (logit), tau2 = 0, pooled error, PI coverage."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = logit(rows["lower"]), logit(rows["upper"])
        plo, phi = logit(rows["pi_lower"]), logit(rows["pi_upper"])
        finite = np.isfinite(lo) & np.isfinite(hi)
        if tau > 0:
            pi_cov = stats.norm.cdf((phi - mu) / tau) - stats.norm.cdf((plo - mu) / tau)
        else:
            pi_cov = ((plo <= mu) & (mu <= phi)).astype(float)
        pi_cov = np.where(np.isfinite(plo) & np.isfinite(phi), pi_cov, np.nan)
    return {"finite": finite, "covered": (lo <= mu) & (mu <= hi), "below": hi < mu, "above": lo > mu,
            "width": hi - lo, "zero": rows["tau2"] <= 0.0, "error": rows["pooled"] - mu, "pi": pi_cov,
            "pi_width": phi - plo, "k": rows["k"]}


def summarise(parts: list[dict]) -> dict:
    """Aggregate the per-replicate outcomes of one (method, ci) over the batches."""
    o = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    ok = o["finite"]
    n = int(ok.sum())
    c = float(o["covered"][ok].mean()) if n else float("nan")
    pi = o["pi"][np.isfinite(o["pi"])]
    return {"n": int(ok.size), "finite": n, "coverage": c, "se": float(np.sqrt(c * (1 - c) / n)) if n else None,
            "below": float(o["below"][ok].mean()), "above": float(o["above"][ok].mean()),
            "width": float(np.mean(o["width"][ok])), "zero": float(np.mean(o["zero"])),
            "error": float(np.nanmean(o["error"])), "error_sd": float(np.nanstd(o["error"])),
            "pi": float(pi.mean()) if pi.size else None,
            "pi_se": float(pi.std(ddof=1) / np.sqrt(pi.size)) if pi.size > 1 else None,
            "pi_n": int(pi.size), "pi_width": float(np.nanmean(np.where(np.isfinite(o["pi_width"]),
                                                                      o["pi_width"], np.nan))),
            "k_short": int(np.sum(o["k"] != np.nanmax(o["k"])))}


def seed_of(seed: int, block: int, cell: int, batch: int) -> np.random.SeedSequence:
    """The seed of one batch: ``SeedSequence(seed, spawn_key=(block, cell, batch))``."""
    return np.random.SeedSequence(seed, spawn_key=(block, cell, batch))


# ------------------------------------------------------------------ block 1: AUROC
def auroc_cell(seed: int, index: int, mean: float, tau: float, k: int, reps: int, batch: int) -> dict:
    mu = float(logit(mean))
    combos = [(m, c, False) for m in METHODS for c in CIS] + [("REML", "hksj", "riley")]
    parts = {f"{m}/{c}" + ("/riley" if pi == "riley" else ""): [] for m, c, pi in combos}
    seconds = {"simulate": 0.0, "auroc": 0.0, "meta": 0.0}
    for b, start in enumerate(range(0, reps, batch)):
        rng = np.random.default_rng(seed_of(seed, 1, index, b))
        t0 = time.perf_counter()
        df = simulate(rng, min(batch, reps - start), k, mu, tau)
        t1 = time.perf_counter()
        result = auroc(df, "y", "score", by=["rep", "site"])
        t2 = time.perf_counter()
        for (m, c, pi), name in zip(combos, parts):
            rows = pooled_rows(result, method=m, ci=c, prediction_interval="riley" if pi else True)
            parts[name].append(outcomes(rows, mu, tau))
        t3 = time.perf_counter()
        seconds["simulate"] += t1 - t0
        seconds["auroc"] += t2 - t1
        seconds["meta"] += t3 - t2
        del df, result
    return {"mean": mean, "mu": mu, "tau": tau, "k": k, "reps": reps, "cell": index,
            "seconds": {key: round(v, 2) for key, v in seconds.items()},
            "results": {name: summarise(p) for name, p in parts.items()}}


# ------------------------------------------------------------------ block 2: AUCPR
def _precision(z: np.ndarray, d: np.ndarray, prevalence: float) -> np.ndarray:
    """Precision at recall Phi(z) of a binormal score with separation d (in logs: no 0/0 far in the tail)."""
    log_ratio = stats.norm.logcdf(z - d) - stats.norm.logcdf(z)  # log(FPR / recall)
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + (1 - prevalence) / prevalence * np.exp(log_ratio))


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(1500)


def population_aucpr(d: np.ndarray | float, prevalence: float = PREVALENCE) -> np.ndarray:
    """Population AUCPR (area under precision over recall) of a binormal score: ``int precision(z) phi(z) dz``
    over ``recall = Phi(z)``, by Gauss-Legendre on [-14, 14] (1500 nodes), vectorised in ``d``."""
    z = 14.0 * _GL_NODES
    d = np.asarray(d, dtype=float)
    values = _precision(z, d[..., None], prevalence) * stats.norm.pdf(z)
    return 14.0 * np.sum(_GL_WEIGHTS * values, axis=-1)


def population_aucpr_quad(d: float, prevalence: float = PREVALENCE) -> float:
    """The same by adaptive quadrature over the whole line (the check)."""
    value, _ = integrate.quad(lambda z: _precision(z, d, prevalence) * stats.norm.pdf(z), -np.inf, np.inf,
                              epsabs=1e-14, epsrel=1e-12, limit=400)
    return value


def aucpr_truths(rng: np.random.Generator, draws: int) -> dict:
    """mu_pr = E_u[logit AUCPR(d(mu + u))] per (mean, tau), Monte Carlo over ``draws`` draws of u (a spline of
    the quadrature in d), with the Gauss-Hermite value and the spline's largest error as checks."""
    lo, hi = min(MEANS), max(MEANS)
    u_max = 6.5 * max(PR_TAUS)
    grid = np.linspace(np.sqrt(2) * stats.norm.ppf(expit(logit(lo) - u_max)),
                       np.sqrt(2) * stats.norm.ppf(expit(logit(hi) + u_max)), 1201)
    spline = interpolate.CubicSpline(grid, logit(population_aucpr(grid)))
    check = np.random.default_rng(7).uniform(grid[0], grid[-1], 100)
    exact = np.array([population_aucpr_quad(x) for x in check])
    spline_error = float(np.max(np.abs(spline(check) - logit(exact))))
    rule_error = float(np.max(np.abs(population_aucpr(check) - exact)))
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()
    out = {"spline_error": spline_error, "rule_error": rule_error, "draws": draws, "cells": {}}
    for mean in MEANS:
        mu = float(logit(mean))
        for tau in PR_TAUS:
            d0 = np.sqrt(2) * stats.norm.ppf(expit(mu))
            if tau == 0:
                value = gh = float(logit(population_aucpr(d0)))
                mc_se = 0.0
            else:
                u = rng.normal(0.0, tau, draws)
                values = spline(np.sqrt(2) * stats.norm.ppf(expit(mu + u)))
                value, mc_se = float(values.mean()), float(values.std(ddof=1) / np.sqrt(draws))
                gh = float(np.sum(weights * spline(np.sqrt(2) * stats.norm.ppf(expit(mu + tau * nodes)))))
            out["cells"][f"{mean}/{tau}"] = {"mean": mean, "tau": tau, "mu_pr": value, "mc_se": mc_se,
                                             "gauss_hermite": gh, "aucpr_at_mu": float(population_aucpr(d0)),
                                             "expit_mu_pr": float(expit(value))}
    return out


def aucpr_cell(seed: int, index: int, mean: float, tau: float, k: int, reps: int, batch: int,
               mu_pr: float) -> dict:
    mu = float(logit(mean))
    parts = {f"REML/{c}": [] for c in PR_CIS}
    seconds = {"simulate": 0.0, "aucpr": 0.0, "meta": 0.0}
    for b, start in enumerate(range(0, reps, batch)):
        rng = np.random.default_rng(seed_of(seed, 2, index, b))
        t0 = time.perf_counter()
        df = simulate(rng, min(batch, reps - start), k, mu, tau)
        t1 = time.perf_counter()
        result = aucpr(df, "y", "score", by=["rep", "site"])
        t2 = time.perf_counter()
        for c in PR_CIS:
            rows = pooled_rows(result, method="REML", ci=c)
            parts[f"REML/{c}"].append(outcomes(rows, mu_pr, 0.0))
        t3 = time.perf_counter()
        seconds["simulate"] += t1 - t0
        seconds["aucpr"] += t2 - t1
        seconds["meta"] += t3 - t2
        del df, result
    results = {}
    for name, p in parts.items():
        s = summarise(p)
        for key in ("pi", "pi_se", "pi_n"):  # the PI's indicator at mu_pr is not a PI coverage with tau > 0
            s.pop(key)
        results[name] = s
    return {"mean": mean, "mu": mu, "tau": tau, "k": k, "reps": reps, "cell": index, "mu_pr": mu_pr,
            "seconds": {key: round(v, 2) for key, v in seconds.items()}, "results": results}


# ------------------------------------------------------------------ the page




def cov(c: float | None, se: float | None, bold: bool = True) -> str:
    if c is None or not np.isfinite(c):
        return "nan"
    text = f"{100 * c:.1f} ({100 * se:.1f})"
    return f"**{text}**" if bold and c < TARGET else text


def find(cells: list, mean: float, tau: float, k: int) -> dict | None:
    for c in cells:
        if c["mean"] == mean and c["tau"] == tau and c["k"] == k:
            return c
    return None


def tau_header(taus) -> list[str]:
    return ["| " + " | ".join(["tau² estimator", "interval", "k"] + [f"tau={t:g}" for t in taus]) + " |",
            "|---|---|---:|" + "---:|" * len(taus)]


def smallest_k(cells: list, name: str, key: str, sites=SITES, means=MEANS, taus=TAUS) -> int | None:
    """The smallest k from which the coverage is >= TARGET at every larger k, every tau and mean."""
    best = None
    for k in sorted(sites, reverse=True):
        ok = all((c := find(cells, m, t, k)) is not None and c["results"][name][key] is not None
                 and c["results"][name][key] >= TARGET for m in means for t in taus)
        if not ok:
            break
        best = k
    return best


def markdown(res: dict) -> str:
    a = res["args"]
    cells = res["auroc"]
    lines = [
        "# Coverage of the random-effects meta-analysis across sites (`result.meta`)", "",
        f"Command: `{res['command']}`  ",
        f"Machine: {res['machine']}  ",
        f"Commit: `{res['commit']}` (run from a copy of the working tree)  ",
        f"Date: {res['date']}; wall time {res['seconds'] / 60:.1f} min (AUROC grid {res['times'].get('auroc', 0) / 60:.1f}, "
        f"AUCPR block {res['times'].get('aucpr', 0) / 60:.1f}). The machine was shared with other work.", "",
        "Nominal level 95%. The simulation (the script's docstring has it in full): site `i` has the true logit AUROC "
        "`mu + u_i`, `u_i ~ N(0, tau²)`, binormal data with that AUROC (negatives N(0, 1), positives N(d_i, 1), "
        f"`d_i = sqrt(2) Phi^-1(AUROC_i)`), {POS_LOW}-{POS_HIGH} positives per site (uniform) and "
        f"{NEG_PER_POS} negatives per positive (prevalence {PREVALENCE:g}). `tau` is the SD of the true logit "
        "AUROC across sites. Each replicate is one meta-analysis of its `k` sites: all replicates of a batch are "
        f"one frame, one `auroc(df, \"y\", \"score\", by=[\"rep\", \"site\"])` and one "
        "`.meta(method=..., ci=..., across=\"site\")` per tau² estimator and interval (DeLong site variances, "
        "logit scale).", "",
        f"Replicates per cell: {a['reps']} for every estimator and interval (the same data sets for all of them, "
        f"so within a cell the rows are correlated), in batches of {a['batch']}; AUCPR block {a['pr_reps']}. "
        f"Seeds: batch `b` of cell `c` of block `B` (1 AUROC, 2 AUCPR) draws from "
        f"`numpy.random.default_rng(SeedSequence({a['seed']}, spawn_key=(B, c, b)))`, the cells numbered in the "
        f"JSON's order; the AUCPR truth's Monte Carlo from `SeedSequence({a['seed']}, spawn_key=(3,))`.", "",
        "Cells: coverage in percent (Monte Carlo SE), **bold** below "
        f"{100 * TARGET:.1f}% (95% less two Monte Carlo SEs of 1000 replicates, 0.7 points). Coverage of the pooled "
        "mean: `logit(lower) <= mu <= logit(upper)`. Prediction interval (PI): for tau > 0 the probability that a "
        "new site's true logit AUROC falls inside, given the interval, averaged over replicates; for tau = 0 the "
        "share of PIs containing `mu`.", "",
    ]
    # -------- smallest k
    lines += ["## Smallest number of sites from which an interval holds its level", "",
              f"The smallest `k` of {', '.join(map(str, SITES))} from which coverage is >= {100 * TARGET:.1f}% at "
              "that `k` and every larger one, for every tau and both means (`none` = not even at 30 sites).", "",
              "| tau² estimator | hksj | hksj_adhoc | wald | PI (same quantile as the interval, hksj) | "
              "PI riley (hksj) |", "|---|---:|---:|---:|---:|---:|"]
    for m in METHODS:
        row = [smallest_k(cells, f"{m}/{c}", "coverage") for c in CIS]
        row.append(smallest_k(cells, f"{m}/hksj", "pi"))
        row.append(smallest_k(cells, f"{m}/hksj/riley", "pi") if m == "REML" else "")
        lines.append(f"| {m} | " + " | ".join("none" if v is None else str(v) for v in row) + " |")
    lines += ["", "For the PI with tau > 0 only (tau = 0 is the share of PIs containing `mu`, which a PI meant for a "
              "spread of true values overcovers):", "",
              "| tau² estimator | PI hksj | PI riley | PI wald (normal quantile) |", "|---|---:|---:|---:|"]
    pos = [t for t in TAUS if t > 0]
    for m in METHODS:
        row = [smallest_k(cells, f"{m}/hksj", "pi", taus=pos),
               smallest_k(cells, f"{m}/hksj/riley", "pi", taus=pos) if m == "REML" else "",
               smallest_k(cells, f"{m}/wald", "pi", taus=pos)]
        lines.append(f"| {m} | " + " | ".join("none" if v is None else str(v) for v in row) + " |")
    lines += ["", "By tau (REML; the smallest `k` for both means):", "",
              "| interval | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |", "|---|" + "---:|" * len(TAUS)]
    for label, name, key in [("hksj", "REML/hksj", "coverage"), ("hksj_adhoc", "REML/hksj_adhoc", "coverage"),
                             ("wald", "REML/wald", "coverage"), ("PI, hksj (t on k - 1 df)", "REML/hksj", "pi"),
                             ("PI riley (t on k - 2 df)", "REML/hksj/riley", "pi"),
                             ("PI, wald (normal quantile)", "REML/wald", "pi")]:
        row = [smallest_k(cells, name, key, taus=(t,)) for t in TAUS]
        lines.append(f"| {label} | " + " | ".join("none" if v is None else str(v) for v in row) + " |")
    lines += ["", "Worst coverage of the pooled mean over the four tau and the two means, by `k` (percent):", "",
              "| tau² estimator | interval | " + " | ".join(f"k={k}" for k in SITES) + " |",
              "|---|---|" + "---:|" * len(SITES)]
    for m in METHODS:
        for c in CIS:
            worst = []
            for k in SITES:
                vals = [find(cells, mean, t, k)["results"][f"{m}/{c}"] for mean in MEANS for t in TAUS]
                v = min(vals, key=lambda r: r["coverage"])
                worst.append(cov(v["coverage"], v["se"]))
            lines.append(f"| {m} | {c} | " + " | ".join(worst) + " |")
    lines.append("")
    # -------- coverage of the pooled mean
    lines += ["## Coverage of the pooled mean (AUROC)", ""]
    for mean in MEANS:
        lines += [f"Mean true AUROC {mean:g} (`mu = logit({mean:g}) = {logit(mean):.4f}`):", ""] + tau_header(TAUS)
        for m in METHODS:
            for c in CIS:
                for k in SITES:
                    vals = [find(cells, mean, t, k) for t in TAUS]
                    lines.append(f"| {m} | {c} | {k} | " + " | ".join(
                        cov(v["results"][f"{m}/{c}"]["coverage"], v["results"][f"{m}/{c}"]["se"]) if v else ""
                        for v in vals) + " |")
        lines.append("")
    # -------- misses
    lines += ["Misses below / above (percent of replicates with `upper < mu` / `lower > mu`), REML:", "",
              "| mean | interval | k | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |",
              "|---:|---|---:|" + "---:|" * len(TAUS)]
    for mean in MEANS:
        for c in CIS:
            for k in SITES:
                vals = [find(cells, mean, t, k)["results"][f"REML/{c}"] for t in TAUS]
                lines.append(f"| {mean:g} | {c} | {k} | " + " | ".join(
                    f"{100 * v['below']:.1f} / {100 * v['above']:.1f}" for v in vals) + " |")
    lines.append("")
    # -------- width
    lines += ["## Mean width of the interval for the pooled mean (logit scale)", ""]
    for mean in MEANS:
        lines += [f"Mean true AUROC {mean:g}:", ""] + tau_header(TAUS)
        for m in METHODS:
            for c in CIS:
                for k in SITES:
                    vals = [find(cells, mean, t, k)["results"][f"{m}/{c}"] for t in TAUS]
                    lines.append(f"| {m} | {c} | {k} | " + " | ".join(f"{v['width']:.3f}" for v in vals) + " |")
        lines.append("")
    # -------- tau2 = 0 and error
    lines += ["## Share of replicates with the tau² estimate 0 (percent)", "",
              "| mean | tau² estimator | k | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |",
              "|---:|---|---:|" + "---:|" * len(TAUS)]
    for mean in MEANS:
        for m in METHODS:
            for k in SITES:
                vals = [find(cells, mean, t, k)["results"][f"{m}/hksj"] for t in TAUS]
                lines.append(f"| {mean:g} | {m} | {k} | " + " | ".join(f"{100 * v['zero']:.1f}" for v in vals) + " |")
    lines += ["", "Mean error of the pooled logit AUROC, `pooled - mu` (REML; SD in brackets):", "",
              "| mean | k | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |", "|---:|---:|" + "---:|" * len(TAUS)]
    for mean in MEANS:
        for k in SITES:
            vals = [find(cells, mean, t, k)["results"]["REML/hksj"] for t in TAUS]
            lines.append(f"| {mean:g} | {k} | " + " | ".join(f"{v['error']:+.4f} ({v['error_sd']:.3f})"
                                                            for v in vals) + " |")
    lines.append("")
    # -------- prediction interval
    variants = [("REML/hksj", "REML, hksj: t on k - 1 df (`prediction_interval=True`, the default)"),
                ("REML/hksj/riley", "REML, hksj: t on k - 2 df (`prediction_interval=\"riley\"`)"),
                ("REML/wald", "REML, wald: normal quantile"),
                ("DL/hksj", "DL, hksj: t on k - 1 df"), ("PM/hksj", "PM, hksj: t on k - 1 df")]
    lines += ["## Prediction interval (AUROC)", "",
              "`mu_hat +- q sqrt(tau2_hat + se²)`, `se` the interval's standard error (hksj's or Wald's).", ""]
    for mean in MEANS:
        lines += [f"Mean true AUROC {mean:g}:", "", "| PI | k | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |",
                  "|---|---:|" + "---:|" * len(TAUS)]
        for name, label in variants:
            for k in SITES:
                vals = [find(cells, mean, t, k)["results"][name] for t in TAUS]
                lines.append(f"| {label} | {k} | " + " | ".join(cov(v["pi"], v["pi_se"]) for v in vals) + " |")
        lines.append("")
    lines += ["Mean width of the PI (logit scale):", "",
              "| mean | PI | k | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |",
              "|---:|---|---:|" + "---:|" * len(TAUS)]
    for mean in MEANS:
        for name, label in variants[:3]:
            for k in SITES:
                vals = [find(cells, mean, t, k)["results"][name] for t in TAUS]
                lines.append(f"| {mean:g} | {name} | {k} | " + " | ".join(f"{v['pi_width']:.3f}" for v in vals)
                             + " |")
    lines.append("")
    # -------- AUCPR
    pr = res.get("aucpr") or []
    if pr:
        tr = res["aucpr_truths"]
        lines += ["## AUCPR block", "",
                  f"`aucpr(df, \"y\", \"score\", by=[\"rep\", \"site\"])` (average precision; each site's own jackknife "
                  "variance of the logit), `.meta(method=\"REML\", ci=..., across=\"site\")`, "
                  f"{a['pr_reps']} replicates per cell, the sites simulated as above (the spread `tau` is on the logit "
                  "AUROC). The target: `mu_pr`, the mean over sites of the logit of the site's population AUCPR at "
                  f"prevalence {PREVALENCE:g} (Monte Carlo over {tr['draws']:,} draws of `u`; the population AUCPR by Gauss-Legendre is within "
                  f"{tr['rule_error']:.1e} of adaptive quadrature, and the spline in `d` of its logit within "
                  f"{tr['spline_error']:.1e}).", "",
                  "| mean AUROC | tau | AUCPR at mu | mu_pr | expit(mu_pr) | Monte Carlo SE | Gauss-Hermite |",
                  "|---:|---:|---:|---:|---:|---:|---:|"]
        for v in tr["cells"].values():
            lines.append(f"| {v['mean']:g} | {v['tau']:g} | {v['aucpr_at_mu']:.5f} | {v['mu_pr']:.5f} | "
                         f"{v['expit_mu_pr']:.5f} | {v['mc_se']:.1e} | {v['gauss_hermite']:.5f} |")
        lines += ["", "Coverage of `mu_pr` (percent, Monte Carlo SE), mean width (logit), mean error "
                  "`pooled - mu_pr`:", "",
                  "| mean AUROC | interval | k | " + " | ".join(f"tau={t:g}" for t in PR_TAUS) + " | width "
                  + " | width ".join(f"tau={t:g}" for t in PR_TAUS) + " | error " + " | error ".join(
                      f"tau={t:g}" for t in PR_TAUS) + " |",
                  "|---:|---|---:|" + "---:|" * (3 * len(PR_TAUS))]
        for mean in MEANS:
            for c in PR_CIS:
                for k in PR_SITES:
                    vals = [find(pr, mean, t, k)["results"][f"REML/{c}"] for t in PR_TAUS]
                    lines.append(f"| {mean:g} | {c} | {k} | " + " | ".join(cov(v["coverage"], v["se"]) for v in vals)
                                 + " | " + " | ".join(f"{v['width']:.3f}" for v in vals) + " | "
                                 + " | ".join(f"{v['error']:+.4f}" for v in vals) + " |")
        lines.append("")
    elif res.get("aucpr_skipped"):
        lines += ["## AUCPR block", "", res["aucpr_skipped"], ""]
    # -------- timings
    lines += ["## Time per cell (seconds: simulate / area / all meta calls)", "",
              "| mean | k | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |", "|---:|---:|" + "---:|" * len(TAUS)]
    for mean in MEANS:
        for k in SITES:
            vals = [find(cells, mean, t, k)["seconds"] for t in TAUS]
            lines.append(f"| {mean:g} | {k} | " + " | ".join(
                f"{v['simulate']:.1f} / {v['auroc']:.1f} / {v['meta']:.1f}" for v in vals) + " |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="replicates per AUROC cell (all estimators)")
    parser.add_argument("--batch", type=int, default=500, help="replicates per auroc() call")
    parser.add_argument("--pr-reps", type=int, default=500, help="replicates per AUCPR cell")
    parser.add_argument("--truth-draws", type=int, default=200_000)
    parser.add_argument("--parts", default="auroc,aucpr")
    parser.add_argument("--quick", action="store_true", help="a small run to check the script")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--out", type=Path, default=HERE / "meta_coverage_results.md")
    parser.add_argument("--render", type=Path, help="only write the page again from this run's JSON")
    args = parser.parse_args(argv)
    if args.render:
        args.out.write_text(markdown(json.loads(args.render.read_text())))
        print(f"wrote {args.out}")
        return
    if args.quick:
        args.reps, args.batch, args.pr_reps, args.truth_draws = 60, 30, 30, 20_000
    start = time.perf_counter()
    res = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
           "command": "python " + " ".join(sys.argv if argv is None else [__file__, *argv]),
           "machine": machine(), "commit": commit(), "date": time.strftime("%Y-%m-%d %H:%M"), "times": {},
           "auroc": [], "aucpr": []}
    parts = set(args.parts.split(","))
    if "auroc" in parts:
        t0 = time.perf_counter()
        index = 0
        for mean in MEANS:
            for tau in TAUS:
                for k in SITES:
                    cell = auroc_cell(args.seed, index, mean, tau, k, args.reps, args.batch)
                    res["auroc"].append(cell)
                    r = cell["results"]
                    print(f"auroc mean {mean} tau {tau} k {k}: " + ", ".join(
                        f"{n} {100 * r[n]['coverage']:.1f}" for n in ("REML/hksj", "REML/hksj_adhoc", "REML/wald"))
                        + f"; PI {100 * r['REML/hksj']['pi']:.1f} riley {100 * r['REML/hksj/riley']['pi']:.1f}; "
                        f"{cell['seconds']} (total {time.perf_counter() - start:.0f} s)", flush=True)
                    index += 1
        res["times"]["auroc"] = time.perf_counter() - t0
    if "aucpr" in parts:
        t0 = time.perf_counter()
        truths = aucpr_truths(np.random.default_rng(np.random.SeedSequence(args.seed, spawn_key=(3,))),
                              args.truth_draws)
        res["aucpr_truths"] = truths
        print(f"aucpr truths: {json.dumps(truths)}", flush=True)
        index = 0
        for mean in MEANS:
            for tau in PR_TAUS:
                mu_pr = truths["cells"][f"{mean}/{tau}"]["mu_pr"]
                for k in PR_SITES:
                    cell = aucpr_cell(args.seed, index, mean, tau, k, args.pr_reps, args.batch, mu_pr)
                    res["aucpr"].append(cell)
                    r = cell["results"]
                    print(f"aucpr mean {mean} tau {tau} k {k}: " + ", ".join(
                        f"{n} {100 * r[n]['coverage']:.1f}" for n in r) + f"; error {r['REML/hksj']['error']:+.4f}; "
                        f"{cell['seconds']} (total {time.perf_counter() - start:.0f} s)", flush=True)
                    index += 1
        res["times"]["aucpr"] = time.perf_counter() - t0
    res["seconds"] = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(res, indent=1))
    args.out.write_text(markdown(res))
    print(f"wrote {args.out} and {args.out.with_suffix('.json')} in {res['seconds'] / 60:.1f} min")


if __name__ == "__main__":
    main()
