r"""Coverage of the net-benefit intervals, bands and paired comparisons (``net_benefit``, ``compare``) by simulation.

What is measured
----------------
Per row ``x1, x2 ~ N(0, 1)`` independent, ``x = (x1 + x2) / sqrt(2)`` (so
``x ~ N(0, 1)``), the true risk ``pi(x) = expit(a0 + b0 x)`` with
``b0 = 1.2`` and ``a0`` set so that ``E[pi] = prevalence``, and models that
predict ``p = expit(c + d z)``:

* ``calibrated``: ``z = x``, ``c = a0, d = b0`` (the true risk);
* ``overfitted``: ``z = x``, ``d = b0 / 0.7`` (too extreme), ``c`` such that ``E[p] = prevalence``;
* ``overpredicting``: ``z = x``, ``c = a0 + 1.5, d = b0`` (the odds 4.5 times too high): the model whose net
  benefit is clearly negative at the high thresholds (a calibrated model's never is:
  ``pi >= t`` implies ``pi - (1 - pi) t / (1 - t) >= 0``);
* ``weak`` and ``weak_b``: ``z = x1`` and ``z = x2``, each the population logistic regression of ``y`` on
  its covariate (a weaker model, nearly calibrated); the two are mirror images, so their net benefit is
  equal at every threshold (the size of the paired test).

Net benefit (opt-in, treat if ``p >= t``, ``w = t / (1 - t)``):
``NB(t) = P(y = 1, p >= t) - w P(y = 0, p >= t) = int_{z_t}^inf (r(z) (1 + w) - w) phi(z) dz`` with
``z_t = (logit t - c) / d`` and ``r(z) = E[pi | z]`` (``pi(x)`` itself for ``z = x``; for ``z = x1``
``E_{x2}[expit(a0 + b0 (x1 + x2) / sqrt 2)]`` by Gauss-Hermite, 120 nodes). **The truths are population
values by adaptive quadrature** (``scipy.integrate.quad``, tolerance 1e-13), checked against Monte Carlo on
10^7 rows (the largest difference over the prevalence-0.1 models and the cluster design is reported in
units of its Monte Carlo SE). The standardised net benefit is ``NB / prevalence`` and the net
interventions avoided per 100 ``100 (NB - NB_all) / w``, ``NB_all = prevalence - (1 - prevalence) w``.

1. **Grid**: prevalence 0.5, 0.1, 0.01 x 20, 50, 200, 1000 expected events (``n = events / prevalence``
   rows, the events binomial) x the models ``calibrated``, ``overfitted``, ``overpredicting`` (three
   scores of one call), at thresholds per prevalence where net benefit is clearly positive, near 0 and
   (``overpredicting``) negative. All data sets of a cell are one polars frame with a ``rep`` column and
   one call ``net_benefit(df, "y", [models], by="rep", thresholds=..., statistic="all")``; ``conf_int()``
   (Wald, every cell, net benefit, standardised net benefit and interventions avoided) and
   ``conf_int(method="bootstrap", n_boot=200)`` (cells with <= 200 events, on the first data sets).
   Cells of more than 10^7 rows run in blocks of data sets, each one grouped call (memory).
2. **Paired difference** (the same data sets, prevalence 0.1 and 0.01, 50, 200 and 1000 events):
   ``compare(df, "y", [...], by="rep", metric="net_benefit", thresholds=..., band=(low, high))`` for
   ``overfitted - calibrated`` (the same ranking: the two treat the same rows at the threshold where their
   cut-offs cross, 0.156 at prevalence 0.1 and 0.024 at 0.01), ``weak - calibrated`` and
   ``weak_b - weak`` (equal net benefit). Pointwise coverage of the difference's interval at each
   threshold; over the band's range (0.05-0.20 at prevalence 0.1, 0.01-0.05 at 0.01) the share of data
   sets where the band covers the true difference at every threshold at once, against the share where
   every pointwise interval does; the size of the tests for the equal pair (pointwise, and family-wise:
   the band excluding 0 anywhere in the range).
3. **Single-model band**: ``result.band(low, high)`` (sup-t, default 100,000 draws) over 0.05-0.20,
   prevalence 0.1, 50 and 200 events: simultaneous coverage over the range against all-pointwise coverage.
4. **Designs**:

   * *case-control*: a cohort of prevalence 0.01, all its cases (50 or 200 expected) and 4 controls per
     case; ``net_benefit(..., prevalence=0.01)``; truth the cohort population values (Wald, bootstrap,
     band over 0.01-0.05 for ``calibrated``);
   * *clusters*: 40 sites x 25 rows, a random intercept ``u ~ N(0, 0.5^2)`` in the true risk
     ``expit(a0 + b0 x + u)`` (``a0`` of prevalence 0.1 without ``u``), the predictions ``calibrated``
     (``expit(a0 + b0 x)``) and ``overpredicting``; truth the marginal population net benefit
     (``r(x) = E_u[expit(a0 + b0 x + u)]``); Wald with ``cluster="site"`` against Wald ignoring the
     sites, the cluster bootstrap, and the band with and without ``cluster``;
   * *weights*: a cohort of prevalence 0.1 from which the rows with ``x > 1`` (the high-risk stratum) are
     all taken and the others with probability 0.2 (independently: Poisson sampling), weight
     ``1 / probability``; the cohort's size gives 50 or 200 expected events in the sample;
     ``weights="w"`` (Wald, weighted bootstrap, band) against the unweighted Wald; truth the cohort's
     population values (the grid's at prevalence 0.1).

Coverage is the share of finite intervals that contain the truth, with its Monte Carlo SE
``sqrt(c (1 - c) / k)`` (``k`` finite intervals); also the share of NaN intervals, the mean width, and
the shares of misses below (``upper < truth``) and above. A coverage below 93% is bold.

Run (one core; BLAS limited to one thread too, as the band's draws are matrix products)::

    AUCPR_STATS_THREADS=1 python benchmarks/net_benefit_coverage.py
    python benchmarks/net_benefit_coverage.py --quick --out /tmp/nb_quick.md   # a smoke test, about 2 minutes
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
from scipy import integrate, optimize, stats
from scipy.special import expit, logit

from aucpr_stats import compare, net_benefit
from _provenance import commit, machine  # noqa: E402

HERE = Path(__file__).resolve().parent
B0 = 1.2
SHIFT = 1.5  # overpredicting: the intercept a0 + 1.5
ROOT_HALF = np.sqrt(0.5)
PREVALENCES = (0.5, 0.1, 0.01)
EVENTS = (20, 50, 200, 1000)
GRID_MODELS = ("calibrated", "overfitted", "overpredicting")
STATISTICS = ("net_benefit", "standardized_net_benefit", "interventions_avoided")
THRESHOLDS = {0.5: (0.1, 0.3, 0.5, 0.7, 0.9),
              0.1: (0.02, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.3),
              0.01: (0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.1)}
BAND_RANGE = {0.1: (0.05, 0.2), 0.01: (0.01, 0.05)}
PAIRED_EVENTS = (50, 200, 1000)
BAND_EVENTS = (50, 200)
#: The pairs compared, as (a, b): the difference is a - b.
PAIRS = (("overfitted", "calibrated"), ("weak", "calibrated"), ("weak_b", "weak"))
MAX_BLOCK_ROWS = 10_000_000
N_BOOT = 200
GH_NODES, GH_WEIGHTS = np.polynomial.hermite_e.hermegauss(120)
GH_WEIGHTS = GH_WEIGHTS / GH_WEIGHTS.sum()  # expectation under N(0, 1)
CLUSTERS, PER_CLUSTER, SD_SITE, CLUSTER_PREV = 40, 25, 0.5, 0.1
STRATUM_CUT, LOW_PROBABILITY = 1.0, 0.2
CC_CONTROLS, CC_PREV = 4, 0.01


# ------------------------------------------------------------------ models and population values
def expect(f) -> float:
    """E[f(z)], z ~ N(0, 1), by Gauss-Hermite quadrature."""
    return float(np.sum(GH_WEIGHTS * f(GH_NODES)))


def intercept_for(prevalence: float, slope: float, sd_extra: float = 0.0) -> float:
    """The a with E[expit(a + slope z)] = prevalence (z ~ N(0, 1))."""
    total = np.hypot(slope, sd_extra)
    return optimize.brentq(lambda a: expect(lambda z: expit(a + total * z)) - prevalence, -40, 40, xtol=1e-14)


def risk_given(covariate: str, a0: float, sd_u: float = 0.0):
    """r(z) = E[pi | z] for a model on ``covariate`` (``x``, or ``x1`` / ``x2``), vectorised in z."""
    if covariate == "x":
        if sd_u == 0.0:
            return lambda z: expit(a0 + B0 * np.asarray(z, dtype=float))
        return lambda z: np.sum(GH_WEIGHTS * expit(a0 + B0 * np.asarray(z, dtype=float)[..., None]
                                                   + sd_u * GH_NODES), axis=-1)
    return lambda z: np.sum(GH_WEIGHTS * expit(a0 + B0 * ROOT_HALF * (np.asarray(z, dtype=float)[..., None]
                                                                       + GH_NODES)), axis=-1)


def weak_fit(a0: float) -> tuple[float, float]:
    """The population logistic regression of y on x1: (c, d) solving E[(r(x1) - expit(c + d x1)) (1, x1)] = 0."""
    r = risk_given("x1", a0)(GH_NODES)

    def score(b):
        resid = r - expit(b[0] + b[1] * GH_NODES)
        return [np.sum(GH_WEIGHTS * resid), np.sum(GH_WEIGHTS * resid * GH_NODES)]

    c, d = optimize.fsolve(score, [a0, B0 * ROOT_HALF], xtol=1e-13)
    return float(c), float(d)


def models(prevalence: float) -> dict:
    """name -> (c, d, covariate) at a prevalence, with ``a0`` under ``"a0"``."""
    a0 = intercept_for(prevalence, B0)
    cw, dw = weak_fit(a0)
    return {"a0": a0, "calibrated": (a0, B0, "x"), "overfitted": (intercept_for(prevalence, B0 / 0.7), B0 / 0.7, "x"),
            "overpredicting": (a0 + SHIFT, B0, "x"), "weak": (cw, dw, "x1"), "weak_b": (cw, dw, "x2")}


def nb_quad(risk, c: float, d: float, t: float) -> tuple[float, float, float]:
    """(NB(t), P(p >= t), P(y = 1, p >= t)) for a model p = expit(c + d z) with E[y | z] = risk(z), by adaptive
    quadrature."""
    w = t / (1 - t)
    zt = (logit(t) - c) / d
    tp, _ = integrate.quad(lambda z: risk(z) * stats.norm.pdf(z), zt, np.inf, epsabs=1e-14, epsrel=1e-11, limit=500)
    treated = float(stats.norm.sf(zt))
    return tp - w * (treated - tp), treated, tp


def truth_table(prevalence: float, names, thresholds, a0: float, params: dict, sd_u: float = 0.0,
                mean_risk: float | None = None) -> dict:
    """{name: {threshold: {statistic: truth, "treated": P(p >= t)}}} for the models ``names``."""
    mean_risk = prevalence if mean_risk is None else mean_risk
    out = {}
    for name in names:
        c, d, cov = params[name]
        risk = risk_given(cov, a0, sd_u)
        out[name] = {}
        for t in thresholds:
            w = t / (1 - t)
            value, treated, tp = nb_quad(risk, c, d, t)
            out[name][t] = {"net_benefit": value, "standardized_net_benefit": value / mean_risk,
                            "interventions_avoided": 100 * (value - (mean_risk - (1 - mean_risk) * w)) / w,
                            "treated": treated, "tp": tp, "prevalence": mean_risk}
    return out


def mc_check(rng, rows: int) -> dict:
    """Monte Carlo on ``rows`` rows of the prevalence-0.1 models (and the cluster design): the largest
    |quadrature - Monte Carlo| over models and thresholds, in Monte Carlo SEs and absolute."""
    worst_z, worst_abs = 0.0, 0.0
    params = models(0.1)
    a0 = params["a0"]
    x1, x2 = rng.standard_normal(rows), rng.standard_normal(rows)
    x = (x1 + x2) * ROOT_HALF
    y = rng.random(rows) < expit(a0 + B0 * x)
    truth = truth_table(0.1, ("calibrated", "overfitted", "overpredicting", "weak", "weak_b"), THRESHOLDS[0.1], a0,
                        params)
    cov = {"x": x, "x1": x1, "x2": x2}
    for name, per in truth.items():
        c, d, z = params[name]
        p = expit(c + d * cov[z])
        for t, tv in per.items():
            w = t / (1 - t)
            term = np.where(p >= t, np.where(y, 1.0, -w), 0.0)
            est, se = term.mean(), term.std() / np.sqrt(rows)
            worst_z = max(worst_z, abs(est - tv["net_benefit"]) / se)
            worst_abs = max(worst_abs, abs(est - tv["net_benefit"]))
    u = SD_SITE * rng.standard_normal(rows)
    a0c = intercept_for(CLUSTER_PREV, B0)
    y = rng.random(rows) < expit(a0c + B0 * x + u)
    truth = truth_table(CLUSTER_PREV, ("calibrated",), THRESHOLDS[0.1], a0c, {"calibrated": (a0c, B0, "x")},
                        sd_u=SD_SITE)
    p = expit(a0c + B0 * x)
    for t, tv in truth["calibrated"].items():
        w = t / (1 - t)
        term = np.where(p >= t, np.where(y, 1.0, -w), 0.0)
        est, se = term.mean(), term.std() / np.sqrt(rows)
        worst_z = max(worst_z, abs(est - tv["net_benefit"]) / se)
        worst_abs = max(worst_abs, abs(est - tv["net_benefit"]))
    return {"rows": rows, "max_z": worst_z, "max_abs": worst_abs}


# ------------------------------------------------------------------ data
def draw(rng, params: dict, n: int, reps: int, names, rep0: int = 0) -> pl.DataFrame:
    """``reps`` data sets of ``n`` rows in one frame: ``rep``, ``y`` and one column per model of ``names``."""
    size = n * reps
    x1, x2 = rng.standard_normal(size), rng.standard_normal(size)
    x = (x1 + x2) * ROOT_HALF
    y = (rng.random(size) < expit(params["a0"] + B0 * x)).astype(np.int8)
    cov = {"x": x, "x1": x1, "x2": x2}
    columns = {"rep": np.repeat(np.arange(rep0, rep0 + reps, dtype=np.int32), n), "y": y}
    for name in names:
        c, d, z = params[name]
        columns[name] = expit(c + d * cov[z])
    return pl.DataFrame(columns)


def truth_frame(truth: dict) -> pl.DataFrame:
    rows = [{"score": name, "estimator": s, "tkey": tkey(t), "truth": v[s]}
            for name, per in truth.items() for t, v in per.items() for s in STATISTICS]
    return pl.DataFrame(rows)


def tkey(t: float) -> int:
    return int(round(t * 1e6))


def with_tkey(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns((pl.col("threshold") * 1e6).round().cast(pl.Int64).alias("tkey"))


# ------------------------------------------------------------------ summaries
def summarise(ci: pl.DataFrame, truth: pl.DataFrame, keys=("score", "estimator", "threshold")) -> list[dict]:
    """Per (score, statistic, threshold): coverage of the finite intervals, MC SE, NaN share, mean width,
    misses below / above, zero-width share, data sets."""
    ci = with_tkey(ci)
    if "score" not in ci.columns:
        ci = ci.with_columns(pl.lit(truth["score"][0]).alias("score"))
    joined = ci.join(truth, on=["score", "estimator", "tkey"], how="inner")
    finite = pl.col("lower").is_finite() & pl.col("upper").is_finite()
    out = joined.group_by(list(keys)).agg(
        pl.len().alias("sets"), finite.sum().alias("k"),
        (finite & (pl.col("lower") <= pl.col("truth")) & (pl.col("truth") <= pl.col("upper"))).sum().alias("hit"),
        (finite & (pl.col("upper") < pl.col("truth"))).sum().alias("below"),
        (finite & (pl.col("lower") > pl.col("truth"))).sum().alias("above"),
        (finite & (pl.col("upper") == pl.col("lower"))).sum().alias("zero_width"),
        pl.when(finite).then(pl.col("upper") - pl.col("lower")).mean().alias("width"),
        pl.col("truth").first().alias("truth"))
    rows = []
    for r in out.sort(list(keys)).iter_rows(named=True):
        k = r["k"]
        cov = r["hit"] / k if k else float("nan")
        rows.append({**{key: r[key] for key in keys}, "truth": r["truth"], "sets": r["sets"], "coverage": cov,
                     "mc_se": float(np.sqrt(cov * (1 - cov) / k)) if k else float("nan"),
                     "nan": 1 - k / r["sets"], "width": r["width"],
                     "below": r["below"] / k if k else float("nan"), "above": r["above"] / k if k else float("nan"),
                     "zero_width": r["zero_width"] / k if k else float("nan")})
    return rows


def band_summary(band: pl.DataFrame, truth: pl.DataFrame) -> list[dict]:
    """Per score: the share of data sets whose band covers the truth at every threshold of the range, and the
    share whose pointwise intervals all do; mean critical value; data sets; NaN bands."""
    band = with_tkey(band)
    if "score" not in band.columns:
        band = band.with_columns(pl.lit(truth["score"][0]).alias("score"))
    joined = band.join(truth, on=["score", "estimator", "tkey"], how="inner")
    per_rep = joined.group_by(["score", "rep"]).agg(
        pl.col("critical").first().alias("critical"),
        ((pl.col("lower_band") <= pl.col("truth")) & (pl.col("truth") <= pl.col("upper_band"))).all().alias("band"),
        ((pl.col("lower") <= pl.col("truth")) & (pl.col("truth") <= pl.col("upper"))).all().alias("pointwise"),
        pl.len().alias("thresholds"))
    rows = []
    for (score,), part in per_rep.group_by(["score"]):
        ok = part["critical"].is_finite().to_numpy()
        k = int(ok.sum())
        b = float(part["band"].to_numpy()[ok].mean()) if k else float("nan")
        p = float(part["pointwise"].to_numpy()[ok].mean()) if k else float("nan")
        rows.append({"score": score, "sets": part.height, "k": k, "band": b, "band_se": se_of(b, k),
                     "pointwise": p, "pointwise_se": se_of(p, k), "critical": float(part["critical"].mean()),
                     "thresholds": int(part["thresholds"].max())})
    return sorted(rows, key=lambda r: r["score"])


def se_of(c: float, k: int) -> float:
    return float(np.sqrt(c * (1 - c) / k)) if k and np.isfinite(c) else float("nan")


def paired_summary(frame: pl.DataFrame, truth: dict, band_range) -> tuple[list[dict], list[dict]]:
    """Pointwise (per pair and threshold: coverage, rejection, zero-SE share, width) and simultaneous (per
    pair: band and all-pointwise coverage over the range; family-wise rejection) summaries."""
    rows = [{"score_a": a, "score_b": b, "tkey": tkey(t),
             "truth": truth[a][t]["net_benefit"] - truth[b][t]["net_benefit"]}
            for a, b in PAIRS for t in truth[a]]
    joined = with_tkey(frame).join(pl.DataFrame(rows), on=["score_a", "score_b", "tkey"], how="inner")
    finite = pl.col("lower").is_finite() & pl.col("upper").is_finite()
    point = joined.group_by(["score_a", "score_b", "threshold"]).agg(
        pl.len().alias("sets"), finite.sum().alias("k"),
        (finite & (pl.col("lower") <= pl.col("truth")) & (pl.col("truth") <= pl.col("upper"))).sum().alias("hit"),
        (pl.col("p_value") < 0.05).sum().alias("reject"), pl.col("p_value").is_finite().sum().alias("k_p"),
        (pl.col("se") == 0).sum().alias("se0"),
        pl.when(finite).then(pl.col("upper") - pl.col("lower")).mean().alias("width"),
        pl.col("truth").first().alias("truth")).sort(["score_a", "score_b", "threshold"])
    pointwise = []
    for r in point.iter_rows(named=True):
        cov = r["hit"] / r["k"] if r["k"] else float("nan")
        rej = r["reject"] / r["k_p"] if r["k_p"] else float("nan")
        pointwise.append({"score_a": r["score_a"], "score_b": r["score_b"], "threshold": r["threshold"],
                          "truth": r["truth"], "sets": r["sets"], "coverage": cov, "mc_se": se_of(cov, r["k"]),
                          "nan": 1 - r["k"] / r["sets"], "reject": rej, "reject_se": se_of(rej, r["k_p"]),
                          "se_zero": r["se0"] / r["sets"], "width": r["width"]})
    low, high = band_range
    inside = joined.filter((pl.col("threshold") >= low - 1e-12) & (pl.col("threshold") <= high + 1e-12))
    per_rep = inside.group_by(["score_a", "score_b", "rep"]).agg(
        pl.col("critical").first().alias("critical"),
        ((pl.col("lower_band") <= pl.col("truth")) & (pl.col("truth") <= pl.col("upper_band"))).all().alias("band"),
        ((pl.col("lower") <= pl.col("truth")) & (pl.col("truth") <= pl.col("upper"))).all().alias("pointwise"),
        ((pl.col("lower_band") > 0) | (pl.col("upper_band") < 0)).any().alias("band_rejects"),
        (pl.col("p_value") < 0.05).any().alias("any_p"),
        (pl.col("se") == 0).any().alias("any_se0"), pl.len().alias("thresholds"))
    simultaneous = []
    for (a, b), part in per_rep.group_by(["score_a", "score_b"]):
        ok = part["critical"].is_finite().to_numpy()
        k = int(ok.sum())

        def share(col):
            v = float(part[col].to_numpy()[ok].mean()) if k else float("nan")
            return v, se_of(v, k)

        band, band_se = share("band")
        pw, pw_se = share("pointwise")
        fw, fw_se = share("band_rejects")
        anyp, anyp_se = share("any_p")
        simultaneous.append({"score_a": a, "score_b": b, "sets": part.height, "k": k, "band": band,
                             "band_se": band_se, "pointwise": pw, "pointwise_se": pw_se,
                             "band_rejects": fw, "band_rejects_se": fw_se, "any_p": anyp, "any_p_se": anyp_se,
                             "any_se0": float(part["any_se0"].mean()), "critical": float(part["critical"].mean()),
                             "thresholds": int(part["thresholds"].max())})
    return pointwise, sorted(simultaneous, key=lambda r: PAIRS.index((r["score_a"], r["score_b"])))


class Tally:
    """Warnings and notes met on the way: message (first 110 characters) -> count."""

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
                    self.notes[f"{where}: {note[:110]}"] += count


# ------------------------------------------------------------------ the grid, the paired comparisons, the band
def sets_for(n: int, cap: int, max_rows: int, floor: int) -> int:
    return int(min(cap, max(floor, max_rows // n)))


def grid_cell(rng, prevalence: float, events: int, plan: dict, tally: Tally, seed: int) -> dict:
    params = models(prevalence)
    thresholds = THRESHOLDS[prevalence]
    n = int(round(events / prevalence))
    reps = sets_for(n, *plan["wald"])
    boot = sets_for(n, *plan["boot"]) if events <= 200 else 0
    paired = sets_for(n, min(reps, plan["paired"][0]), *plan["paired"][1:]) \
        if prevalence in BAND_RANGE and events in PAIRED_EVENTS else 0
    band = plan["band_reps"] if prevalence == 0.1 and events in BAND_EVENTS else 0
    names = GRID_MODELS + (("weak", "weak_b") if paired else ())
    per_block = max(1, MAX_BLOCK_ROWS // n)
    assert boot <= per_block and band <= per_block
    seconds = Counter()
    wald_parts, boot_ci, boot_wald, band_frame, cmp_parts, discordant = [], None, None, None, [], []
    for start in range(0, reps, per_block):
        k = min(per_block, reps - start)
        df = draw(rng, params, n, k, names, rep0=start)
        t0 = time.perf_counter()
        r = tally.call(net_benefit, df, "y", list(GRID_MODELS), by="rep", thresholds=thresholds, statistic="all")
        ci = tally.call(r.conf_int, method="wald")
        seconds["wald"] += time.perf_counter() - t0
        tally.notes_of(ci, "grid wald")
        wald_parts.append(ci)
        if start == 0 and boot:
            t0 = time.perf_counter()
            sub = df.filter(pl.col("rep") < boot)
            rb = tally.call(net_benefit, sub, "y", list(GRID_MODELS), by="rep", thresholds=thresholds,
                            statistic="all")
            boot_ci = tally.call(rb.conf_int, method="bootstrap", n_boot=N_BOOT, rng=seed)
            seconds["bootstrap"] += time.perf_counter() - t0
            tally.notes_of(boot_ci, "grid bootstrap")
            boot_wald = tally.call(rb.conf_int, method="wald")  # Wald on the bootstrap's data sets
        if start == 0 and band:
            t0 = time.perf_counter()
            sub = df.filter(pl.col("rep") < band)
            rb = tally.call(net_benefit, sub, "y", list(GRID_MODELS), by="rep", thresholds=thresholds)
            band_frame = tally.call(rb.band, *BAND_RANGE[prevalence], rng=seed)
            seconds["band"] += time.perf_counter() - t0
            tally.notes_of(band_frame, "grid band")
        if start < paired:
            t0 = time.perf_counter()
            sub = df.filter(pl.col("rep") < paired) if start + k > paired else df
            common = dict(by="rep", metric="net_benefit", thresholds=thresholds, band=BAND_RANGE[prevalence],
                          rng=seed)
            c1 = tally.call(compare, sub, "y", ["calibrated", "overfitted", "weak"], reference="calibrated", **common)
            c2 = tally.call(compare, sub, "y", ["weak", "weak_b"], reference="weak", **common)
            for c in (c1, c2):
                f = c.to_frame()
                tally.notes_of(f, "compare")
                cmp_parts.append(f)
            seconds["compare"] += time.perf_counter() - t0
            discordant.append(discordant_counts(sub, thresholds))
        del df
    truth = truth_table(prevalence, names, thresholds, params["a0"], params)
    tf = truth_frame({m: truth[m] for m in GRID_MODELS})
    cell = {"prevalence": prevalence, "events": events, "n": n, "sets": {"wald": reps, "bootstrap": boot,
                                                                         "band": band},
            "wald": summarise(pl.concat(wald_parts), tf), "seconds": dict(seconds)}
    if boot_ci is not None:
        cell["bootstrap"] = summarise(boot_ci, tf)
        cell["wald_boot_sets"] = summarise(boot_wald, tf)
    if band_frame is not None:
        cell["band"] = band_summary(band_frame, tf)
    if paired:
        frame = pl.concat(cmp_parts)
        cell["paired_sets"] = paired
        cell["paired"], cell["paired_band"] = paired_summary(frame, truth, BAND_RANGE[prevalence])
        rows, events = (sum(d[k] for d in discordant) / paired for k in (0, 1))
        for r in cell["paired"]:
            j, i = PAIRS.index((r["score_a"], r["score_b"])), thresholds.index(r["threshold"])
            r["discordant_rows"], r["discordant_events"] = float(rows[j, i]), float(events[j, i])
    return cell


def discordant_counts(df: pl.DataFrame, thresholds) -> tuple[np.ndarray, np.ndarray]:
    """Summed over the data sets of ``df``: per pair and threshold the rows that the two models treat
    differently, and the events among them (the rows the paired difference is made of)."""
    y = df["y"].to_numpy().astype(bool)
    rows, events = np.zeros((len(PAIRS), len(thresholds))), np.zeros((len(PAIRS), len(thresholds)))
    for j, (a, b) in enumerate(PAIRS):
        pa, pb = df[a].to_numpy(), df[b].to_numpy()
        for i, t in enumerate(thresholds):
            differ = (pa >= t) != (pb >= t)
            rows[j, i], events[j, i] = differ.sum(), (differ & y).sum()
    return rows, events


# ------------------------------------------------------------------ designs
def case_control_sets(rng, params: dict, cases: int, reps: int, names) -> pl.DataFrame:
    """Per data set a cohort of ``cases / 0.01`` rows: all its cases and ``CC_CONTROLS`` non-cases per case."""
    size = int(round(cases / CC_PREV))
    rep = np.repeat(np.arange(reps, dtype=np.int32), size)
    x = rng.standard_normal(rep.size)
    y = rng.random(rep.size) < expit(params["a0"] + B0 * x)
    n_cases = np.bincount(rep[y], minlength=reps)
    neg = np.flatnonzero(~y)
    order = neg[np.lexsort((rng.random(neg.size), rep[neg]))]  # non-cases shuffled within each cohort
    first = np.searchsorted(rep[order], np.arange(reps))
    rank = np.arange(order.size) - first[rep[order]]
    take_neg = order[rank < CC_CONTROLS * n_cases[rep[order]]]
    keep = np.sort(np.r_[np.flatnonzero(y), take_neg])
    columns = {"rep": rep[keep], "y": y[keep].astype(np.int8)}
    for name in names:
        c, d, _ = params[name]
        columns[name] = expit(c + d * x[keep])
    return pl.DataFrame(columns)


def run_methods(df: pl.DataFrame, names, thresholds, truth_f: pl.DataFrame, plan_reps: dict, seed: int,
                tally: Tally, where: str, band_range, band_score: str = "calibrated", variants=None) -> dict:
    """Wald (per variant of keyword arguments), bootstrap and band on one design's data sets."""
    out = {"wald": {}, "bootstrap": {}, "band": {}, "seconds": {}}
    variants = variants or {"wald": {}}
    for label, kw in variants.items():
        t0 = time.perf_counter()
        r = tally.call(net_benefit, df, "y", list(names), by="rep", thresholds=thresholds, statistic="all", **kw)
        ci = tally.call(r.conf_int, method="wald")
        out["seconds"][label] = time.perf_counter() - t0
        tally.notes_of(ci, f"{where} {label}")
        out["wald"][label] = summarise(ci, truth_f)
    boot_kw = plan_reps.get("boot_kw", {})
    if plan_reps["boot"]:
        t0 = time.perf_counter()
        sub = df.filter(pl.col("rep") < plan_reps["boot"])
        r = tally.call(net_benefit, sub, "y", list(names), by="rep", thresholds=thresholds, statistic="all",
                       **boot_kw)
        ci = tally.call(r.conf_int, method="bootstrap", n_boot=N_BOOT, rng=seed)
        out["seconds"]["bootstrap"] = time.perf_counter() - t0
        tally.notes_of(ci, f"{where} bootstrap")
        out["bootstrap"] = summarise(ci, truth_f)
        out["wald_boot_sets"] = summarise(tally.call(r.conf_int, method="wald"), truth_f)
    for label, kw in plan_reps.get("band_variants", {"band": boot_kw}).items():
        if not plan_reps["band"]:
            break
        t0 = time.perf_counter()
        sub = df.filter(pl.col("rep") < plan_reps["band"])
        r = tally.call(net_benefit, sub, "y", band_score, by="rep", thresholds=thresholds, **kw)
        frame = tally.call(r.band, *band_range, rng=seed)
        out["seconds"][label] = time.perf_counter() - t0
        tally.notes_of(frame, f"{where} {label}")
        out["band"][label] = band_summary(frame, truth_f.filter(pl.col("score") == band_score))
    return out


def case_control(rng, plan: dict, tally: Tally, seed: int) -> list[dict]:
    params = models(CC_PREV)
    names = GRID_MODELS
    thresholds = THRESHOLDS[CC_PREV]
    truth = truth_table(CC_PREV, names, thresholds, params["a0"], params)
    tf = truth_frame(truth)
    cells = []
    for cases in (50, 200):
        df = case_control_sets(rng, params, cases, plan["cc"], names)
        res = run_methods(df, names, thresholds, tf,
                          {"boot": plan["cc_boot"], "band": plan["cc_band"], "boot_kw": {"prevalence": CC_PREV}},
                          seed, tally, f"case-control {cases}", BAND_RANGE[CC_PREV],
                          variants={"wald": {"prevalence": CC_PREV}})
        cells.append({"cases": cases, "rows": df.height / plan["cc"], "sets": plan["cc"],
                      "boot_sets": plan["cc_boot"], "band_sets": plan["cc_band"], **res})
    return cells


def clusters(rng, plan: dict, tally: Tally, seed: int) -> dict:
    a0 = intercept_for(CLUSTER_PREV, B0)
    names = ("calibrated", "overpredicting")
    params = {"calibrated": (a0, B0, "x"), "overpredicting": (a0 + SHIFT, B0, "x")}
    mean_risk = expect(lambda z: expit(a0 + np.hypot(B0, SD_SITE) * z))
    thresholds = THRESHOLDS[0.1]
    truth = truth_table(CLUSTER_PREV, names, thresholds, a0, params, sd_u=SD_SITE, mean_risk=mean_risk)
    tf = truth_frame(truth)
    reps = plan["cluster"]
    size = CLUSTERS * PER_CLUSTER
    rep = np.repeat(np.arange(reps, dtype=np.int32), size)
    site = np.repeat(np.arange(reps * CLUSTERS, dtype=np.int32), PER_CLUSTER)
    u = SD_SITE * rng.standard_normal(reps * CLUSTERS)[site]
    x = rng.standard_normal(rep.size)
    y = (rng.random(rep.size) < expit(a0 + B0 * x + u)).astype(np.int8)
    df = pl.DataFrame({"rep": rep, "site": site, "y": y, "calibrated": expit(a0 + B0 * x),
                       "overpredicting": expit(a0 + SHIFT + B0 * x)})
    res = run_methods(df, names, thresholds, tf,
                      {"boot": plan["cluster_boot"], "band": plan["cluster_band"], "boot_kw": {"cluster": "site"},
                       "band_variants": {"band, cluster=site": {"cluster": "site"}, "band ignoring sites": {}}},
                      seed, tally, "clusters", BAND_RANGE[0.1],
                      variants={"wald, cluster=site": {"cluster": "site"}, "wald ignoring sites": {}})
    return {"a0": a0, "mean_risk": mean_risk, "mean_events": float(y.sum()) / reps, "sets": reps,
            "boot_sets": plan["cluster_boot"], "band_sets": plan["cluster_band"],
            "truth": {m: {str(t): v for t, v in per.items()} for m, per in truth.items()}, **res}


def weighted(rng, plan: dict, tally: Tally, seed: int) -> list[dict]:
    params = models(0.1)
    a0 = params["a0"]
    names = GRID_MODELS
    thresholds = THRESHOLDS[0.1]
    truth = truth_table(0.1, names, thresholds, a0, params)
    tf = truth_frame(truth)
    # expected sampled events per cohort row: E[pi 1{x > cut}] + q E[pi 1{x <= cut}]
    high = integrate.quad(lambda z: expit(a0 + B0 * z) * stats.norm.pdf(z), STRATUM_CUT, np.inf)[0]
    low = 0.1 - high
    per_row_events = high + LOW_PROBABILITY * low
    per_row_rows = stats.norm.sf(STRATUM_CUT) + LOW_PROBABILITY * stats.norm.cdf(STRATUM_CUT)
    cells = []
    for events in (50, 200):
        cohort = int(round(events / per_row_events))
        reps = plan["weights"]
        rep = np.repeat(np.arange(reps, dtype=np.int32), cohort)
        x = rng.standard_normal(rep.size)
        y = rng.random(rep.size) < expit(a0 + B0 * x)
        prob = np.where(x > STRATUM_CUT, 1.0, LOW_PROBABILITY)
        keep = rng.random(rep.size) < prob
        columns = {"rep": rep[keep], "y": y[keep].astype(np.int8), "w": 1.0 / prob[keep]}
        for name in names:
            c, d, _ = params[name]
            columns[name] = expit(c + d * x[keep])
        df = pl.DataFrame(columns)
        res = run_methods(df, names, thresholds, tf,
                          {"boot": plan["weights_boot"], "band": plan["weights_band"], "boot_kw": {"weights": "w"}},
                          seed, tally, f"weights {events}", BAND_RANGE[0.1],
                          variants={"wald, weights=w": {"weights": "w"}, "wald ignoring weights": {}})
        cells.append({"events": events, "cohort": cohort, "rows": df.height / reps,
                      "expected_rows": cohort * per_row_rows, "sets": reps, "boot_sets": plan["weights_boot"],
                      "band_sets": plan["weights_band"], **res})
    return cells


# ------------------------------------------------------------------ report
def cov_text(c: float, se: float, nan: float = 0.0) -> str:
    if not np.isfinite(c):
        return "nan"
    text = f"{100 * c:.1f} ({100 * se:.1f})"
    text = f"**{text}**" if c < 0.93 else text
    if nan > 0:
        text += f" nan {100 * nan:.0f}%"
    return text






def fmt(v: float) -> str:
    return f"{v:.4g}" if np.isfinite(v) else "nan"


def grid_tables(res: dict, method: str, statistic: str, what: str = "coverage") -> list[str]:
    lines = []
    for prev in PREVALENCES:
        ths = THRESHOLDS[prev]
        cells = [c for c in res["grid"] if c["prevalence"] == prev and method in c]
        if not cells:
            continue
        lines += [f"Prevalence {prev:g}:", "", "| model | events | n | sets | "
                  + " | ".join(f"t={t:g}" for t in ths) + " |", "|---|---:|---:|---:|" + "---:|" * len(ths)]
        for model in GRID_MODELS:
            for c in cells:
                rows = {tkey(r["threshold"]): r for r in c[method] if r["score"] == model and r["estimator"] == statistic}
                sets = c["sets"][method]
                cellv = []
                for t in ths:
                    r = rows.get(tkey(t))
                    if r is None:
                        cellv.append("-")
                    elif what == "coverage":
                        cellv.append(cov_text(r["coverage"], r["mc_se"], r["nan"]))
                    else:
                        cellv.append(fmt(r["width"]))
                lines.append(f"| {model} | {c['events']} | {c['n']} | {sets} | " + " | ".join(cellv) + " |")
        lines.append("")
    return lines


def truth_lines(res: dict) -> list[str]:
    lines = ["## Population values (quadrature)", "",
             "Net benefit NB, the share treated P(p >= t), and the treat-all net benefit, per prevalence, model "
             "and threshold (the truths of the standardised net benefit and interventions avoided follow from "
             "them, see the docstring).", ""]
    for prev in PREVALENCES:
        ths = THRESHOLDS[prev]
        p = res["params"][str(prev)]
        lines += [f"Prevalence {prev:g} (a0 = {p['a0']:.6f}; overfitted c = {p['overfitted'][0]:.6f}, "
                  f"d = {p['overfitted'][1]:.6f}; weak c = {p['weak'][0]:.6f}, d = {p['weak'][1]:.6f}):", "",
                  "| model | " + " | ".join(f"t={t:g}" for t in ths) + " |", "|---|" + "---:|" * len(ths)]
        truth = res["truths"][str(prev)]
        for name, per in truth.items():
            lines.append(f"| {name} | " + " | ".join(f"{per[str(t)]['net_benefit']:.5f} "
                                                     f"({100 * per[str(t)]['treated']:.1f}%)" for t in ths) + " |")
        lines.append("| treat all | " + " | ".join(f"{prev - (1 - prev) * t / (1 - t):.5f}" for t in ths) + " |")
        lines.append("")
    mc = res["mc_check"]
    lines += [f"Check: Monte Carlo on {mc['rows']:,} rows (the five models at prevalence 0.1 and the cluster "
              f"design): largest |quadrature - Monte Carlo| {mc['max_abs']:.1e}, {mc['max_z']:.2f} Monte Carlo "
              f"SEs.", ""]
    return lines


def skewness_count(v: dict, statistic: str, t: float, n: int) -> float:
    """The equivalent Poisson count ``m = n / max(gamma^2, kappa)`` of a statistic's estimate.

    ``gamma`` and ``kappa`` are the skewness and excess kurtosis of one row's influence term, which takes one
    value in each of the four cells (treated event, untreated event, treated non-event, untreated non-event):
    net benefit ``(1, 0, -w, 0)``; interventions avoided ``(0, -1/w, 0, 1)``; the standardised net benefit
    ``((1 - s) / pi, -s / pi, -w / pi, 0)`` with ``s`` its value (the ratio's linearisation). A Poisson count
    of mean m has skewness^2 = excess kurtosis = 1/m: the two O(1/n) terms of the Wald interval's coverage
    error (Edgeworth) are then those of a count of mean m."""
    w = t / (1 - t)
    pi, treated, tp = v["prevalence"], v["treated"], v["tp"]
    probs = np.clip(np.array([tp, pi - tp, treated - tp, 1 - pi - treated + tp]), 0.0, 1.0)
    if statistic == "interventions_avoided":
        values = np.array([0.0, -1.0 / w, 0.0, 1.0])
    elif statistic == "standardized_net_benefit":
        sv = v["standardized_net_benefit"]
        values = np.array([1.0 - sv, -sv, -w, 0.0]) / pi
    else:
        values = np.array([1.0, 0.0, -w, 0.0])
    mean = np.sum(values * probs)
    var = np.sum((values - mean) ** 2 * probs)
    third = np.sum((values - mean) ** 3 * probs)
    fourth = np.sum((values - mean) ** 4 * probs)
    if var <= 0:
        return 0.0
    worst = max(third ** 2 / var ** 3, fourth / var ** 2 - 3.0)
    return float("inf") if worst <= 0 else float(n / worst)


COUNT_BINS = (0, 5, 10, 20, 50, 100, np.inf)


def count_table(res: dict) -> list[str]:
    """Coverage of the grid's intervals against the equivalent Poisson count of the estimate (binned)."""
    lines = ["| method | statistic | " + " | ".join(
        f"m {lo:g}-{hi:g}" if np.isfinite(hi) else f"m >= {lo:g}" for lo, hi in zip(COUNT_BINS[:-1], COUNT_BINS[1:]))
        + " |", "|---|---|" + "---:|" * (len(COUNT_BINS) - 1)]
    for method in ("wald", "bootstrap"):
        for stat in STATISTICS:
            bins = [[] for _ in COUNT_BINS[:-1]]
            for c in res["grid"]:
                truth = res["truths"][str(c["prevalence"])]
                for r in c.get(method, []):
                    if r["estimator"] != stat or not np.isfinite(r["coverage"]):
                        continue
                    m = skewness_count(truth[r["score"]][str(r["threshold"])], stat, r["threshold"], c["n"])
                    k = int(np.searchsorted(COUNT_BINS, m, side="right")) - 1
                    bins[min(max(k, 0), len(bins) - 1)].append(r["coverage"])
            lines.append(f"| {method} | {stat} | " + " | ".join(
                f"{100 * min(b):.1f} / {100 * np.mean(b):.1f} ({len(b)})" if b else "-" for b in bins) + " |")
    return lines


def worst_lines(res: dict) -> list[str]:
    """Per method and statistic over the grid: the worst cell, the cells below 93%, and those below 93% by more
    than two Monte Carlo SEs (listed, worst first, at most 12)."""
    lines = ["| method | statistic | cells | worst (SE) at | below 93% | below 93% by > 2 SE (model prev/events t: "
             "coverage, equivalent count m) |", "|---|---|---:|---|---:|---|"]
    for method in ("wald", "bootstrap"):
        for stat in STATISTICS:
            rows = [(c, r) for c in res["grid"] for r in c.get(method, []) if r["estimator"] == stat]
            if not rows:
                continue
            worst_c, worst = min(rows, key=lambda cr: cr[1]["coverage"] if np.isfinite(cr[1]["coverage"]) else -1)
            below = [(c, r) for c, r in rows if not r["coverage"] >= 0.93]
            clear = sorted([(c, r) for c, r in below if not r["coverage"] + 2 * r["mc_se"] >= 0.93],
                           key=lambda cr: cr[1]["coverage"])

            def m_of(c, r):
                v = res["truths"][str(c["prevalence"])][r["score"]][str(r["threshold"])]
                return skewness_count(v, stat, r["threshold"], c["n"])

            text = "; ".join(f"{r['score']} {c['prevalence']:g}/{c['events']} t={r['threshold']:g}: "
                             f"{100 * r['coverage']:.1f}, m {m_of(c, r):.3g}" for c, r in clear[:12])
            if len(clear) > 12:
                text += f"; and {len(clear) - 12} more"
            lines.append(f"| {method} | {stat} | {len(rows)} | {100 * worst['coverage']:.1f} "
                         f"({100 * worst['mc_se']:.1f}) at {worst['score']}, prevalence {worst_c['prevalence']:g}, "
                         f"{worst_c['events']} events, t={worst['threshold']:g} | {len(below)} | "
                         f"{len(clear)}: {text} |")
    return lines


def design_table(rows_by_label: dict, stat: str, ths, models_) -> list[str]:
    lines = ["| method | model | " + " | ".join(f"t={t:g}" for t in ths) + " |", "|---|---|" + "---:|" * len(ths)]
    for label, rows in rows_by_label.items():
        for model in models_:
            per = {tkey(r["threshold"]): r for r in rows if r["score"] == model and r["estimator"] == stat}
            if not per:
                continue
            lines.append(f"| {label} | {model} | " + " | ".join(
                cov_text(per[tkey(t)]["coverage"], per[tkey(t)]["mc_se"], per[tkey(t)]["nan"]) if tkey(t) in per
                else "-" for t in ths)
                + " |")
    return lines


def band_rows(label: str, rows: list[dict]) -> list[str]:
    return [f"| {label} | {r['score']} | {r['sets']} | {r['thresholds']} | {cov_text(r['band'], r['band_se'])} | "
            f"{100 * r['pointwise']:.1f} ({100 * r['pointwise_se']:.1f}) | {r['critical']:.3f} |"
            + (f" nan {r['sets'] - r['k']}" if r['k'] < r['sets'] else "") for r in rows]


def markdown(res: dict) -> str:
    a = res["args"]
    t = {"truths": 0.0, "grid": 0.0, "cc": 0.0, "clusters": 0.0, "weights": 0.0, **res["times"]}
    lines = ["# Coverage of the net-benefit intervals, bands and paired comparisons", "",
             f"Command: `{res['command']}`  ", f"Machine: {res['machine']}  ",
             f"Commit: `{res['commit']}` (run from a clone of the repository)  ",
             f"Date: {res['date']}; wall time {res['seconds'] / 60:.1f} min (truths {t['truths']:.0f} s, grid and "
             f"paired {t['grid'] / 60:.1f} min, case-control {t['cc']:.0f} s, clusters {t['clusters']:.0f} s, "
             f"weights {t['weights']:.0f} s). The machine was shared with other work.", "",
             "Nominal level 95%. Cells: coverage in percent of the finite intervals (Monte Carlo SE), **bold** "
             "below 93%; `nan x%` = share of data sets without a finite interval. The models and the truths: "
             "the script's docstring. `sets` = data sets in the cell. Within a cell the three models are scores "
             "of the same data sets (their coverages are correlated).", "",
             "## Data sets per cell", "",
             f"Wald: `min({a['reps']}, max({a['wald_floor']}, {a['wald_rows']:,} / n))` data sets per cell; "
             f"bootstrap (n_boot = {N_BOOT}, cells with <= 200 events): `min({a['boot_reps']}, "
             f"max({a['boot_floor']}, {a['boot_rows']:,} / n))`, the first data sets of the cell; "
             f"single-model band: {a['band_reps']}; paired comparisons: `min(Wald sets, {a['paired_reps']}, "
             f"max({a['paired_floor']}, {a['paired_rows']:,} / n))`, the first data sets of the cell. "
             f"Case-control {a['cc_reps']} (bootstrap {a['cc_boot_reps']}, band {a['cc_band_reps']}); clusters "
             f"{a['cluster_reps']} (bootstrap {a['cluster_boot_reps']}, band {a['cluster_band_reps']}); weights "
             f"{a['weights_reps']} (bootstrap {a['weights_boot_reps']}, band {a['weights_band_reps']}).", ""]
    lines += truth_lines(res)
    lines += ["## 1. Grid: Wald interval of net benefit", ""] + grid_tables(res, "wald", "net_benefit")
    lines += ["Mean width (Wald, net benefit):", ""] + grid_tables(res, "wald", "net_benefit", "width")
    lines += ["## 1. Grid: Wald interval of the standardised net benefit", ""]
    lines += grid_tables(res, "wald", "standardized_net_benefit")
    lines += ["## 1. Grid: Wald interval of the net interventions avoided per 100", ""]
    lines += grid_tables(res, "wald", "interventions_avoided")
    lines += ["## 1. Grid: bootstrap interval of net benefit (percentile, n_boot = 200)", ""]
    lines += grid_tables(res, "bootstrap", "net_benefit")
    lines += ["Mean width (bootstrap, net benefit):", ""] + grid_tables(res, "bootstrap", "net_benefit", "width")
    lines += ["Bootstrap against Wald on the same data sets (the bootstrap's): per cell, net benefit over the three "
              "models and the thresholds, the mean coverage of each and the smallest and largest difference "
              "(bootstrap - Wald, points).", "",
              "| prevalence | events | sets | bootstrap | Wald, same sets | difference min / mean / max |",
              "|---:|---:|---:|---:|---:|---:|"]
    for c in res["grid"]:
        if "bootstrap" not in c:
            continue
        w = {(r["score"], tkey(r["threshold"])): r["coverage"] for r in c["wald_boot_sets"]
             if r["estimator"] == "net_benefit"}
        pairs = [(r["coverage"], w[(r["score"], tkey(r["threshold"]))]) for r in c["bootstrap"]
                 if r["estimator"] == "net_benefit"]
        d = np.array([b_ - w_ for b_, w_ in pairs])
        lines.append(f"| {c['prevalence']:g} | {c['events']} | {c['sets']['bootstrap']} | "
                     f"{100 * np.mean([p[0] for p in pairs]):.1f} | {100 * np.mean([p[1] for p in pairs]):.1f} | "
                     f"{100 * d.min():.1f} / {100 * d.mean():.1f} / {100 * d.max():.1f} |")
    lines.append("")
    lines += ["Bootstrap, standardised net benefit and interventions avoided: see the summary table below "
              "(and the JSON).", ""]
    lines += ["### Grid summary", "",
              "Per method and statistic over the grid's cells (model x prevalence x events x threshold): the worst "
              "coverage, the number below 93%, and those below 93% by more than two Monte Carlo SEs.", ""]
    lines += worst_lines(res) + [""]
    lines += ["### Coverage against the skewness of the estimate", "",
              "What the failures share: per cell the equivalent Poisson count `m = n / max(gamma^2, kappa)` of the "
              "estimate (`gamma`, `kappa`: skewness and excess kurtosis of one row's term; a Poisson count of mean "
              "m has the same; net "
              "benefit is driven by the treated rows, interventions avoided by the untreated events weighted "
              "1/w, the standardised net benefit by the events left untreated). Entries: lowest / mean coverage "
              "(number of cells) per bin of m.", ""]
    lines += count_table(res) + [""]
    # paired
    lines += ["## 2. Paired differences: `compare(..., metric=\"net_benefit\", band=(low, high))`", "",
              "Difference = a - b. Pointwise: coverage of the 95% Wald interval of the difference (MC SE), the "
              "share of p-values < 0.05 (`rej`; the size for `weak_b - weak`, power otherwise), the share of "
              "data sets where the difference has SE 0 (`se0`: no row treated differently by the two models), and "
              "the mean number of rows per data set that the two models treat differently and of events among "
              "them (the rows the difference is made of).", ""]
    for c in res["grid"]:
        if "paired" not in c:
            continue
        ths = THRESHOLDS[c["prevalence"]]
        lines += [f"Prevalence {c['prevalence']:g}, {c['events']} events (n = {c['n']}, {c['paired_sets']} data "
                  f"sets):", "", "| a - b | row | " + " | ".join(f"t={t:g}" for t in ths) + " |",
                  "|---|---|" + "---:|" * len(ths)]
        for pa, pb in PAIRS:
            per = {t: r for r in c["paired"] for t in ths
                   if (r["score_a"], r["score_b"]) == (pa, pb) and tkey(r["threshold"]) == tkey(t)}
            lines.append(f"| {pa} - {pb} | truth | " + " | ".join(f"{per[t]['truth']:.3g}" for t in ths) + " |")
            lines.append("| | coverage | " + " | ".join(cov_text(per[t]["coverage"], per[t]["mc_se"], per[t]["nan"])
                                                       for t in ths) + " |")
            lines.append("| | rej | " + " | ".join(f"{100 * per[t]['reject']:.1f}" for t in ths) + " |")
            lines.append("| | se0 | " + " | ".join(f"{100 * per[t]['se_zero']:.1f}" for t in ths) + " |")
            lines.append("| | discordant rows / events | " + " | ".join(
                f"{per[t].get('discordant_rows', float('nan')):.3g} / {per[t].get('discordant_events', float('nan')):.3g}"
                for t in ths) + " |")
        lines.append("")
    lines += ["### Simultaneous coverage of the band of the difference", "",
              "Over the band's range (0.05-0.20 at prevalence 0.1: 7 thresholds; 0.01-0.05 at 0.01: 6 "
              "thresholds): `band` = share of data sets whose band covers the true difference at every threshold "
              "of the range; `all pointwise` = share whose 95% pointwise intervals all do; `band rejects` = "
              "share whose band excludes 0 somewhere (the family-wise error for `weak_b - weak`); `any p<0.05` = "
              "the same for the pointwise tests; `any se0` = share with an SE of 0 somewhere in the range.", "",
              "| prevalence | events | a - b | sets | band | all pointwise | band rejects | any p<0.05 | any se0 | "
              "mean critical |", "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in res["grid"]:
        for r in c.get("paired_band", []):
            lines.append(f"| {c['prevalence']:g} | {c['events']} | {r['score_a']} - {r['score_b']} | {r['k']} | "
                         f"{cov_text(r['band'], r['band_se'])} | {100 * r['pointwise']:.1f} "
                         f"({100 * r['pointwise_se']:.1f}) | {100 * r['band_rejects']:.1f} "
                         f"({100 * r['band_rejects_se']:.1f}) | {100 * r['any_p']:.1f} | {100 * r['any_se0']:.1f} | "
                         f"{r['critical']:.3f} |")
    lines += ["", "## 3. Single-model band: `net_benefit(...).band(0.05, 0.2)`, prevalence 0.1", "",
              "`band` = share of data sets whose band covers the true net benefit at every threshold of the range "
              "at once; `all pointwise` = the same for the 95% pointwise Wald intervals.", "",
              "| cell | model | sets | thresholds | band | all pointwise | mean critical |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for c in res["grid"]:
        if "band" in c:
            lines += band_rows(f"prevalence {c['prevalence']:g}, {c['events']} events (n = {c['n']})", c["band"])
    # designs
    lines += ["", "## 4. Designs", "", f"### Case-control (cohort prevalence {CC_PREV}, all cases, {CC_CONTROLS} "
              f"controls per case, `prevalence={CC_PREV}`)", ""]
    ths = THRESHOLDS[CC_PREV]
    for c in res["cc"]:
        lines += [f"Cases (expected) {c['cases']}, rows per data set {c['rows']:.0f}; Wald {c['sets']} data sets, "
                  f"bootstrap {c['boot_sets']}; net benefit:", ""]
        lines += design_table({**c["wald"], **({"bootstrap": c["bootstrap"],
                                                "wald on the bootstrap's data sets": c["wald_boot_sets"]}
                                               if c["bootstrap"] else {})}, "net_benefit", ths, GRID_MODELS)
        lines += ["", "Standardised net benefit and interventions avoided (Wald):", ""]
        for s in STATISTICS[1:]:
            lines += design_table({f"wald, {s}": c["wald"]["wald"]}, s, ths, GRID_MODELS)[
                (0 if s == STATISTICS[1] else 2):]
        lines += [""]
        if c["band"]:
            lines += ["| band | model | sets | thresholds | band | all pointwise | mean critical |",
                      "|---|---|---:|---:|---:|---:|---:|"]
            for label, rows in c["band"].items():
                lines += band_rows(f"{label} (0.01-0.05)", rows)
            lines.append("")
    if res["clusters"]:
        cl = res["clusters"]
        lines += [f"### Clusters ({CLUSTERS} sites x {PER_CLUSTER} rows, random intercept sd {SD_SITE}, a0 = "
                  f"{cl['a0']:.6f}, marginal prevalence {cl['mean_risk']:.5f}, mean events {cl['mean_events']:.1f})", "",
                  f"Truth: the marginal population net benefit by quadrature; Wald {cl['sets']} data sets, cluster "
                  f"bootstrap {cl['boot_sets']}, bands {cl['band_sets']}. Net benefit:", ""]
        lines += ["| | model | " + " | ".join(f"t={t:g}" for t in THRESHOLDS[0.1]) + " |",
                  "|---|---|" + "---:|" * len(THRESHOLDS[0.1])]
        lines.append("| truth | calibrated | " + " | ".join(f"{cl['truth']['calibrated'][str(t)]['net_benefit']:.5f}"
                                                          for t in THRESHOLDS[0.1]) + " |")
        lines.append("| truth | overpredicting | " + " | ".join(
            f"{cl['truth']['overpredicting'][str(t)]['net_benefit']:.5f}" for t in THRESHOLDS[0.1]) + " |")
        lines += design_table({**cl["wald"], **({"bootstrap, cluster=site": cl["bootstrap"],
                                                 "wald, cluster=site, on the bootstrap's data sets":
                                                     cl["wald_boot_sets"]} if cl["bootstrap"] else {})},
                              "net_benefit", THRESHOLDS[0.1], ("calibrated", "overpredicting"))[2:]
        lines += ["", "| band | model | sets | thresholds | band | all pointwise | mean critical |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for label, rows in cl["band"].items():
            lines += band_rows(f"{label} (0.05-0.20)", rows)
    lines += ["", f"### Weights (cohort prevalence 0.1; rows with x > {STRATUM_CUT:g} all sampled, the others with "
              f"probability {LOW_PROBABILITY}, weights 1 / probability)", ""]
    for c in res["weights"]:
        lines += [f"{c['events']} expected events in the sample: cohort {c['cohort']:,} rows, sample "
                  f"{c['rows']:.0f} rows on average; Wald {c['sets']} data sets, weighted bootstrap "
                  f"{c['boot_sets']}, band {c['band_sets']}. Net benefit:", ""]
        lines += design_table({**c["wald"], **({"bootstrap, weights=w": c["bootstrap"],
                                                "wald, weights=w, on the bootstrap's data sets": c["wald_boot_sets"]}
                                               if c["bootstrap"] else {})}, "net_benefit", THRESHOLDS[0.1], GRID_MODELS)
        lines += ["", "Standardised net benefit and interventions avoided (Wald, weights=w):", ""]
        for s in STATISTICS[1:]:
            lines += design_table({f"wald, {s}": c["wald"]["wald, weights=w"]}, s, THRESHOLDS[0.1], GRID_MODELS)[
                (0 if s == STATISTICS[1] else 2):]
        lines += ["", "| band | model | sets | thresholds | band | all pointwise | mean critical |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for label, rows in c["band"].items():
            lines += band_rows(f"{label}, weights=w (0.05-0.20)", rows)
        lines.append("")
    lines += ["## Warnings and notes met", ""]
    if res["warnings"]:
        lines += ["Warnings (count):", ""] + [f"- {k} ({v})" for k, v in res["warnings"].items()] + [""]
    else:
        lines += ["No warnings.", ""]
    if res["notes"]:
        lines += ["Notes on result rows (count):", ""] + [f"- {k} ({v})" for k, v in res["notes"].items()] + [""]
    return "\n".join(lines) + "\n"


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
    """The JSON's nulls back to NaN."""
    if isinstance(v, dict):
        return {k: unjson(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unjson(x) for x in v]
    return float("nan") if v is None else v


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="at most this many data sets per cell (Wald)")
    parser.add_argument("--wald-rows", type=int, default=2_000_000, help="rows per cell (Wald): sets = rows / n")
    parser.add_argument("--wald-floor", type=int, default=400)
    parser.add_argument("--boot-reps", type=int, default=400)
    parser.add_argument("--boot-rows", type=int, default=1_500_000)
    parser.add_argument("--boot-floor", type=int, default=100)
    parser.add_argument("--band-reps", type=int, default=800)
    parser.add_argument("--paired-reps", type=int, default=800, help="at most this many data sets (paired)")
    parser.add_argument("--paired-rows", type=int, default=12_000_000)
    parser.add_argument("--paired-floor", type=int, default=300)
    parser.add_argument("--cc-reps", type=int, default=1000)
    parser.add_argument("--cc-boot-reps", type=int, default=300)
    parser.add_argument("--cc-band-reps", type=int, default=500)
    parser.add_argument("--cluster-reps", type=int, default=1000)
    parser.add_argument("--cluster-boot-reps", type=int, default=300)
    parser.add_argument("--cluster-band-reps", type=int, default=500)
    parser.add_argument("--weights-reps", type=int, default=1000)
    parser.add_argument("--weights-boot-reps", type=int, default=300)
    parser.add_argument("--weights-band-reps", type=int, default=500)
    parser.add_argument("--truth-rows", type=int, default=10_000_000)
    parser.add_argument("--parts", default="grid,cc,clusters,weights")
    parser.add_argument("--quick", action="store_true", help="a small run to check the script")
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--out", type=Path, default=HERE / "net_benefit_coverage_results.md")
    parser.add_argument("--render", type=Path, help="only write the page again from this run's JSON")
    args = parser.parse_args(argv)
    if args.render:
        args.out.write_text(markdown(unjson(json.loads(args.render.read_text()))))
        print(f"wrote {args.out}")
        return
    if args.quick:
        args.reps, args.wald_rows, args.wald_floor = 100, 400_000, 40
        args.boot_reps, args.boot_rows, args.boot_floor, args.band_reps = 20, 40_000, 10, 40
        args.paired_reps, args.paired_rows, args.paired_floor = 60, 400_000, 20
        args.cc_reps, args.cc_boot_reps, args.cc_band_reps = 100, 20, 40
        args.cluster_reps, args.cluster_boot_reps, args.cluster_band_reps = 100, 20, 40
        args.weights_reps, args.weights_boot_reps, args.weights_band_reps = 100, 20, 40
        args.truth_rows = 1_000_000
    start = time.perf_counter()
    plan = {"wald": (args.reps, args.wald_rows, args.wald_floor), "boot": (args.boot_reps, args.boot_rows,
                                                                         args.boot_floor),
            "band_reps": args.band_reps, "paired": (args.paired_reps, args.paired_rows, args.paired_floor), "cc": args.cc_reps, "cc_boot": args.cc_boot_reps, "cc_band": args.cc_band_reps,
            "cluster": args.cluster_reps, "cluster_boot": args.cluster_boot_reps,
            "cluster_band": args.cluster_band_reps, "weights": args.weights_reps,
            "weights_boot": args.weights_boot_reps, "weights_band": args.weights_band_reps}
    parts = set(args.parts.split(","))
    seeds = np.random.SeedSequence(args.seed).spawn(5)
    res = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
           "command": "python " + " ".join(sys.argv if argv is None else [__file__, *argv]),
           "machine": machine(), "commit": commit(), "date": time.strftime("%Y-%m-%d %H:%M"), "times": Counter()}
    tally = Tally()
    params = {p: models(p) for p in PREVALENCES}
    res["params"] = {str(p): v for p, v in params.items()}
    res["truths"] = {str(p): {m: {str(t): v for t, v in per.items()} for m, per in
                              truth_table(p, GRID_MODELS + ("weak", "weak_b"), THRESHOLDS[p], params[p]["a0"],
                                          params[p]).items()} for p in PREVALENCES}
    res["mc_check"] = mc_check(np.random.default_rng(seeds[4]), args.truth_rows)
    res["times"]["truths"] = time.perf_counter() - start
    print(f"truths: {res['times']['truths']:.0f} s; MC check {res['mc_check']}", flush=True)
    res["grid"] = []
    if "grid" in parts:
        t0 = time.perf_counter()
        rng = np.random.default_rng(seeds[0])
        for prevalence in PREVALENCES:
            for events in EVENTS:
                t1 = time.perf_counter()
                res["grid"].append(grid_cell(rng, prevalence, events, plan, tally, seed=args.seed))
                print(f"grid {prevalence} {events}: {time.perf_counter() - t1:.1f} s {res['grid'][-1]['seconds']} "
                      f"(total {time.perf_counter() - start:.0f} s)", flush=True)
        res["times"]["grid"] = time.perf_counter() - t0
    for part, fn, seed in (("cc", case_control, seeds[1]), ("clusters", clusters, seeds[2]),
                           ("weights", weighted, seeds[3])):
        res[part] = [] if part != "clusters" else {}
        if part in parts:
            t0 = time.perf_counter()
            res[part] = fn(np.random.default_rng(seed), plan, tally, args.seed)
            res["times"][part] = time.perf_counter() - t0
            print(f"{part}: {res['times'][part]:.0f} s (total {time.perf_counter() - start:.0f} s)", flush=True)
    res["warnings"], res["notes"] = dict(tally.warnings), dict(tally.notes)
    res["seconds"] = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(jsonable(res), indent=1))
    args.out.write_text(markdown(res))
    print(f"wrote {args.out} and its .json ({res['seconds'] / 60:.1f} min)")


if __name__ == "__main__":
    main()
