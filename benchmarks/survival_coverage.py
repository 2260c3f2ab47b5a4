r"""Coverage of the time-dependent AUC(t) and AP(t) intervals, size of their paired comparison, and the band, by simulation.

What is simulated
-----------------
A proportional-hazards model with a latent risk ``x ~ N(0, 1)``: the event time ``T`` is exponential with rate
``exp(beta * x)`` (higher ``x``, earlier event), and two markers ``m1 = x + e1``, ``m2 = x + e2`` with ``e1, e2 ~
N(0, s^2)`` independent of each other and of everything else, so ``m1`` and ``m2`` have the **same** true areas.
Two marker strengths:

* **moderate**: ``beta = 1``, ``s = 0.8``: AUC(t) 0.735 at the median event time (0.719 / 0.746 at the two
  horizons below);
* **strong**: ``beta = 3``, ``s = 0.2``: AUC(t) 0.943 at the median event time (0.940 / 0.948). With ``beta = 1``
  no marker reaches this: even the latent ``x`` itself (``s = 0``) has AUC(t) 0.80 at the median, since the
  exponential's own noise bounds it; ``beta = 3`` is the smallest round value that does with a noisy marker.

Censoring, independent of ``T`` and the markers: none (every ``d = 1``), or ``C ~ Exponential(lambda)`` with
``lambda`` set (by quadrature over ``x``) so that the overall share censored ``P(C < T)`` is 30% or 60%;
``time = min(T, C)``, ``d = 1[T <= C]``. (Uniform censoring cannot give 60%: its ``c_max`` would fall before the
second horizon; the exponential keeps ``G(t) > 0`` at every horizon, though at 60% and ``beta = 3`` only 4% of
the rows event-free at the 60th percentile are still under observation: a deliberately hard cell.) Sample sizes
``n`` in {100, 300, 1000}. Grid: strength x censoring x ``n`` = 18 cells.

Horizons: the 30th and 60th percentiles of the true distribution of ``T`` of that strength (coverage and size);
for the band, five horizons at the percentiles 20, 32.5, 45, 57.5 and 70. The estimand at ``t`` is the area of
the population: ``AUC(t) = P(M_i > M_j | T_i <= t < T_j)`` and ``AP(t)`` = the average precision of the binary
outcome ``1[T <= t]`` scored by ``M`` (no censoring), ``AP = E[ P(T <= t | M >= M_i) | T_i <= t ]``.

All replicates of a batch are one polars frame (``rep, t, d, m1, m2``) and every method is one grouped call
(``by="rep"``) of ``auroc(df, score=["m1", "m2"], time="t", event="d", horizon=[h30, h60], by="rep")`` and of
``aucpr(...)`` (AP(t)):

1. **Coverage** of the 95% intervals of ``m1``'s AUC(t) and AP(t) at each horizon (``conf_int(...).to_frame()``):
   ``method="influence"`` with ``scale="logit"`` (the default), with ``scale="identity"``, with ``scale="logit",
   conservative=True``, and ``method="bootstrap", n_boot=300`` (on ``m1`` alone). Per cell, metric, horizon and
   method: coverage (the share of finite intervals with ``lower <= truth <= upper``) and its Monte Carlo SE
   ``sqrt(p (1 - p) / R)``, misses below (``upper < truth``) and above (``lower > truth``), mean width,
   ``se/sd`` (the mean reported SE over the empirical SD of the estimates), mean bias (estimate - truth), NaN
   intervals, and the mean number of cases (``n_pos``) and controls (``n_neg``) at the horizon.
2. **Size** of the paired comparison ``compare("m1", "m2")`` at alpha = 0.05 (true areas equal):
   ``method="influence"`` on every data set and ``method="bootstrap", n_boot=300`` on the bootstrap data sets;
   the share of two-sided p-values below 0.05, its Monte Carlo SE, and the se/sd ratio of the difference.
3. **Simultaneous band**: ``auroc``/``aucpr(..., score="m1", horizon=<5 horizons>)`` then
   ``conf_int(band=True, seed=...)`` (influence, logit): the share of data sets whose band covers the truth at
   all five horizons at once (among those with the band finite at all five), and, for contrast, the pointwise
   intervals' coverage averaged over the five horizons (from the same call) and the share of data sets whose
   five pointwise intervals all cover.

**Truths** by numerical integration over ``x`` (a grid of 4501 points on [-9, 9]) and the marker value (6001
points on [-12, 12]; grids of 9001 and 24001 points give the same areas to 8 decimals): ``AUC(t) = int F_ctrl(c) f_case(c) dc`` and ``AP(t) = int prec(c) f_case(c) dc`` with
``prec(c) = P(T <= t | M > c)``; checked against the library's own estimate on one uncensored sample of
2,000,000 rows (``d = 1`` for all, so the call is the plain binary area) for ``m1`` and ``m2`` (the difference in
units of the large sample's influence SE is in the JSON and on the page).

Replicates: 1000 data sets per influence cell (intervals and comparison); the band on the first 500 of them; the
bootstrap on the first 1000 for n = 100 and 300 and the first 300 for n = 1000. Batches of 250 data sets per
grouped call (the bootstrap in sub-batches of 50). Seeds: batch ``b`` of cell ``c`` (cells numbered in the JSON's
order) draws its data from ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(1, c, b)))``; its seeds for
the library are ``SeedSequence(seed, spawn_key=(2, c, b, j)).generate_state(1)[0]``, ``j`` = 0/1 the AUC/AP
bands, and ``(2, c, b, 10 + 4 k + j)`` for bootstrap sub-batch ``k``, ``j`` = 0/1 the AUC/AP intervals, 2/3 the
AUC/AP comparisons; the truth check's sample of strength ``i`` draws from ``SeedSequence(seed, spawn_key=(3,
i))``. Default seed 20261205.

Run (one core; the library, BLAS and polars limited to one thread)::

    AUCPR_STATS_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 taskset -c 1 \
        python benchmarks/survival_coverage.py
    python benchmarks/survival_coverage.py --quick --out /tmp/surv_quick.md     # a smoke test, about a minute
    python benchmarks/survival_coverage.py --render benchmarks/survival_coverage_results.json \
        --reading reading.md   # only rewrite the page (with a hand-written reading) from a run's JSON
"""

from __future__ import annotations

import os

os.environ.setdefault("AUCPR_STATS_THREADS", "1")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "POLARS_MAX_THREADS"):
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
from _provenance import commit, machine
from scipy import optimize, special, stats

import aucpr_stats
from aucpr_stats import aucpr, auroc

HERE = Path(__file__).resolve().parent
#: Marker strengths: name -> (beta, s).
STRENGTHS = {"moderate": (1.0, 0.8), "strong": (3.0, 0.2)}
CENSORING = (0.0, 0.3, 0.6)  # overall share censored
SIZES = (100, 300, 1000)
HORIZON_P = (0.3, 0.6)  # percentiles of T: the coverage and size horizons
BAND_P = tuple(np.linspace(0.2, 0.7, 5).round(4))  # the band's horizons
METRICS = {"auroc": ("AUC(t)", auroc), "aucpr": ("AP(t)", aucpr)}
TRUTH_ROWS = 2_000_000
TARGET = 0.936  # "holds 95% within Monte Carlo error" (95% less ~2 Monte Carlo SEs of 1000 replicates)
ALPHA = 0.05
N_BOOT = 300
#: Interval methods: key -> (label, conf_int keyword arguments).
METHODS = {
    "influence_logit": ("influence, logit (default)", {"method": "influence"}),
    "influence_identity": ("influence, identity", {"method": "influence", "scale": "identity"}),
    "influence_conservative": ("influence, logit, conservative", {"method": "influence", "conservative": True}),
    "bootstrap": (f"bootstrap (percentile, n_boot={N_BOOT})", {"method": "bootstrap"}),
}
INTERVAL_COLUMNS = ("estimate", "lower", "upper", "se", "n_pos", "n_neg")
COMPARE_COLUMNS = ("difference", "se", "p_value", "n_pos", "n_neg")


# ------------------------------------------------------------------ the model, by quadrature
X = np.linspace(-9.0, 9.0, 4501)
WX = stats.norm.pdf(X) * (X[1] - X[0])


def survival(t: float, beta: float) -> float:
    """P(T > t) = E[exp(-t exp(beta x))]."""
    return float(np.sum(WX * np.exp(-t * np.exp(beta * X))))


def quantile(p: float, beta: float) -> float:
    """The ``p`` quantile of T."""
    return float(np.exp(optimize.brentq(lambda lt: 1.0 - survival(np.exp(lt), beta) - p, -40.0, 40.0,
                                        xtol=1e-13)))


def censoring_rate(share: float, beta: float) -> float:
    """The exponential censoring rate with P(C < T) = E[lambda / (lambda + exp(beta x))] = ``share``."""
    if share == 0:
        return 0.0
    return float(optimize.brentq(lambda lam: np.sum(WX * lam / (lam + np.exp(beta * X))) - share, 1e-9, 1e6,
                                 xtol=1e-14))


def expected_counts(t: float, beta: float, lam: float) -> tuple[float, float]:
    """Per row: P(observed case at t) = E[r/(r+lam) (1 - exp(-(r+lam) t))], P(observed control) = S(t) exp(-lam t)."""
    r = np.exp(beta * X)
    cases = float(np.sum(WX * r / (r + lam) * -np.expm1(-(r + lam) * t)))
    return cases, survival(t, beta) * float(np.exp(-lam * t))


def true_areas(t: float, beta: float, s: float) -> dict:
    """AUC(t) and AP(t) of a marker ``x + N(0, s^2)`` by quadrature over x and the marker value c."""
    f = -np.expm1(-t * np.exp(beta * X))
    wc, wn = WX * f, WX * (1.0 - f)
    pi = float(wc.sum())
    c = np.linspace(-12.0, 12.0, 6001)
    f_case, cdf_ctrl, s_case, s_ctrl = (np.zeros_like(c) for _ in range(4))
    for a in range(0, c.size, 500):
        z = (c[a:a + 500, None] - X[None, :]) / s
        f_case[a:a + 500] = stats.norm.pdf(z) @ wc / s / pi
        cdf = special.ndtr(z)
        cdf_ctrl[a:a + 500] = cdf @ wn / (1.0 - pi)
        upper = special.ndtr(-z)
        s_case[a:a + 500] = upper @ wc
        s_ctrl[a:a + 500] = upper @ wn
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(s_case + s_ctrl > 0, s_case / (s_case + s_ctrl), 1.0)
    return {"auroc": float(np.trapezoid(f_case * cdf_ctrl, c)), "aucpr": float(np.trapezoid(f_case * precision, c)),
            "incidence": pi, "density_mass": float(np.trapezoid(f_case, c))}


def design(strength: str) -> dict:
    """Horizons, censoring rates, expected counts and the truths of one strength."""
    beta, s = STRENGTHS[strength]
    t0 = time.perf_counter()
    horizons = [quantile(p, beta) for p in HORIZON_P]
    band = [quantile(p, beta) for p in BAND_P]
    out = {"beta": beta, "s": s, "median": quantile(0.5, beta), "horizons": horizons, "band_horizons": band,
           "censoring": {}, "truth": {}, "band_truth": {}}
    out["auroc_at_median"] = true_areas(out["median"], beta, s)["auroc"]
    for share in CENSORING:
        lam = censoring_rate(share, beta)
        counts = [expected_counts(t, beta, lam) for t in horizons]
        out["censoring"][str(share)] = {
            "rate": lam, "g_at_horizons": [float(np.exp(-lam * t)) for t in horizons],
            "g_at_band_horizons": [float(np.exp(-lam * t)) for t in band],
            "case_share": [c[0] for c in counts], "control_share": [c[1] for c in counts],
            "band_control_share": [expected_counts(t, beta, lam)[1] for t in band]}
    for t in horizons:
        out["truth"][repr(t)] = true_areas(t, beta, s)
    for t in band:
        out["band_truth"][repr(t)] = true_areas(t, beta, s)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def truth_check(seed: int, index: int, strength: str, d: dict, rows: int) -> dict:
    """The library's estimates on one uncensored sample of ``rows`` rows (m1 and m2), against the quadrature."""
    beta, s = STRENGTHS[strength]
    t0 = time.perf_counter()
    data = simulate(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3, index))), 1, rows, beta, s, 0.0)
    out = {"rows": rows}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for metric, (_, fn) in METRICS.items():
            for which, horizons, scores, truth in (("main", d["horizons"], ["m1", "m2"], d["truth"]),
                                                   ("band", d["band_horizons"], ["m1"], d["band_truth"])):
                r = fn(data, score=scores, time="t", event="d", horizon=horizons)
                f = r.conf_int().to_frame()
                if "score" not in f.columns:
                    f = f.with_columns(pl.lit(scores[0]).alias("score"))
                for row in f.iter_rows(named=True):
                    tr = truth[repr(float(row["horizon"]))][metric] if repr(float(row["horizon"])) in truth else \
                        truth[repr(min(horizons, key=lambda h: abs(h - row["horizon"])))][metric]
                    out.setdefault(metric, []).append({
                        "set": which, "score": row["score"], "horizon": row["horizon"], "estimate": row["estimate"],
                        "se": row["se"], "quadrature": tr, "z": (row["estimate"] - tr) / row["se"]})
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


# ------------------------------------------------------------------ data
def simulate(rng: np.random.Generator, reps: int, n: int, beta: float, s: float, lam: float,
             first_rep: int = 0) -> pl.DataFrame:
    """``reps`` data sets of ``n`` rows: rep, t = min(T, C), d = 1[T <= C], m1, m2."""
    size = reps * n
    x = rng.standard_normal(size)
    event_time = rng.standard_exponential(size) / np.exp(beta * x)
    m1 = x + s * rng.standard_normal(size)
    m2 = x + s * rng.standard_normal(size)
    if lam > 0:
        censor = rng.standard_exponential(size) / lam
        t, d = np.minimum(event_time, censor), (event_time <= censor).astype(np.int8)
    else:
        t, d = event_time, np.ones(size, dtype=np.int8)
    return pl.DataFrame({"rep": np.repeat(np.arange(first_rep, first_rep + reps, dtype=np.int32), n),
                         "t": t, "d": d, "m1": m1, "m2": m2})


NUMBER = r"[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?"


def warning_key(w: warnings.WarningMessage) -> str:
    """The warning's class and message with numbers as ``#`` (and, for numpy's RuntimeWarning, where it arose)."""
    where = f" [{Path(w.filename).parent.name}/{Path(w.filename).name}:{w.lineno}]" \
        if issubclass(w.category, RuntimeWarning) else ""
    return f"{w.category.__name__}: {re.sub(NUMBER, '#', str(w.message))[:160]}{where}"


def note_counts(notes: pl.Series) -> dict:
    return dict(Counter(re.sub(NUMBER, "#", n) for n in notes.drop_nulls().to_list()))


def arrays(frame: pl.DataFrame, reps: int, n_h: int, columns: tuple, score: str | None = "m1") -> dict:
    """(reps, H) arrays of ``columns`` of one score, rows sorted by rep and horizon."""
    if score is not None and "score" in frame.columns:
        frame = frame.filter(pl.col("score") == score)
    frame = frame.sort(["rep", "horizon"])
    assert frame.height == reps * n_h, (frame.height, reps, n_h)
    return {c: frame[c].cast(pl.Float64).to_numpy().reshape(reps, n_h) for c in columns}


# ------------------------------------------------------------------ one batch
def batch_run(d: pl.DataFrame, reps: int, horizons: list, band_horizons: list, band_reps: int, boot_reps: int,
              seeds: dict, sink: dict, seconds: Counter, warn: Counter, notes: dict, boot_batch: int) -> None:
    """Every method on one batch of ``reps`` data sets (the band on its first ``band_reps``, the bootstrap on its
    first ``boot_reps``); appends (data sets, H) arrays to ``sink[(kind, metric, method)]``."""
    h = len(horizons)
    first = int(d["rep"].min())

    def keep(key: tuple, frame: pl.DataFrame, columns: tuple, n: int, n_h: int = h) -> None:
        sink.setdefault(key, []).append(arrays(frame, n, n_h, columns))
        for text, count in note_counts(frame["note"]).items():
            notes.setdefault("/".join(key), Counter())[text] += count

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for metric, (_, fn) in METRICS.items():
            t = time.perf_counter()
            r = fn(d, score=["m1", "m2"], time="t", event="d", horizon=horizons, by="rep")
            for key in ("influence_logit", "influence_identity", "influence_conservative"):
                keep(("coverage", metric, key), r.conf_int(**METHODS[key][1]).to_frame(), INTERVAL_COLUMNS, reps)
            keep(("size", metric, "influence"), r.compare("m1", "m2", method="influence").to_frame(),
                 COMPARE_COLUMNS, reps)
            seconds["influence"] += time.perf_counter() - t
            if band_reps > 0:
                t = time.perf_counter()
                part = d if band_reps == reps else d.filter(pl.col("rep") < first + band_reps)
                b = fn(part, score="m1", time="t", event="d", horizon=band_horizons, by="rep")
                frame = b.conf_int(band=True, seed=seeds[f"band_{metric}"]).to_frame()
                keep(("band", metric, "influence_logit"), frame,
                     ("estimate", "lower", "upper", "band_lower", "band_upper", "n_pos", "n_neg"), band_reps,
                     len(band_horizons))
                seconds["band"] += time.perf_counter() - t
            for k, start in enumerate(range(0, boot_reps, boot_batch)):
                size = min(boot_batch, boot_reps - start)
                part = d.filter((pl.col("rep") >= first + start) & (pl.col("rep") < first + start + size))
                t = time.perf_counter()
                one = fn(part, score="m1", time="t", event="d", horizon=horizons, by="rep")
                keep(("coverage", metric, "bootstrap"),
                     one.conf_int(method="bootstrap", n_boot=N_BOOT, seed=seeds[f"boot_{metric}"][k]).to_frame(),
                     INTERVAL_COLUMNS, size)
                seconds["bootstrap"] += time.perf_counter() - t
                t = time.perf_counter()
                two = fn(part, score=["m1", "m2"], time="t", event="d", horizon=horizons, by="rep")
                keep(("size", metric, "bootstrap"),
                     two.compare("m1", "m2", method="bootstrap", n_boot=N_BOOT,
                                 seed=seeds[f"boot_compare_{metric}"][k]).to_frame(), COMPARE_COLUMNS, size)
                seconds["bootstrap_compare"] += time.perf_counter() - t
    for w in caught:
        warn[warning_key(w)] += 1


# ------------------------------------------------------------------ summaries
def share(hit: np.ndarray) -> tuple[float, float, int]:
    """The share of True in ``hit`` and its binomial Monte Carlo SE."""
    m = hit.size
    if m == 0:
        return float("nan"), float("nan"), 0
    p = float(hit.mean())
    return p, float(np.sqrt(p * (1 - p) / m)), int(m)


def coverage_summary(a: dict, truths: list) -> list[dict]:
    """Per horizon: coverage, Monte Carlo SE, misses, width, se/sd, bias, NaN intervals, mean cases/controls."""
    out = []
    for j, truth in enumerate(truths):
        e, lo, hi, se = (a[c][:, j] for c in ("estimate", "lower", "upper", "se"))
        ok = np.isfinite(lo) & np.isfinite(hi)
        cov, mcse, m = share((lo[ok] <= truth) & (truth <= hi[ok]))
        fe = np.isfinite(e)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = float(np.nanmean(se[ok]) / np.std(e[ok], ddof=1)) if ok.sum() > 1 else float("nan")
        out.append({
            "truth": truth, "coverage": cov, "mc_se": mcse, "n_intervals": m, "n_reps": int(e.size),
            "n_nan": int((~ok).sum()), "n_nan_estimate": int((~fe).sum()),
            "coverage_nan_as_miss": float(((lo <= truth) & (truth <= hi) & ok).mean()),
            "below": float((hi[ok] < truth).mean()) if m else float("nan"),
            "above": float((lo[ok] > truth).mean()) if m else float("nan"),
            "width": float(np.mean(hi[ok] - lo[ok])) if m else float("nan"),
            "se_sd_ratio": ratio, "bias": float(np.mean(e[fe] - truth)) if fe.any() else float("nan"),
            "sd": float(np.std(e[fe], ddof=1)) if fe.sum() > 1 else float("nan"),
            "mean_se": float(np.nanmean(se[ok])) if m else float("nan"),
            "n_pos": float(np.mean(a["n_pos"][:, j])), "n_neg": float(np.mean(a["n_neg"][:, j])),
            "min_n_pos": int(np.min(a["n_pos"][:, j])), "min_n_neg": int(np.min(a["n_neg"][:, j]))})
    return out


def size_summary(a: dict) -> list[dict]:
    out = []
    for j in range(a["p_value"].shape[1]):
        p, diff, se = a["p_value"][:, j], a["difference"][:, j], a["se"][:, j]
        ok = np.isfinite(p)
        rate, mcse, m = share(p[ok] < ALPHA)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = float(np.nanmean(se[ok]) / np.std(diff[ok], ddof=1)) if ok.sum() > 1 else float("nan")
        out.append({"size": rate, "mc_se": mcse, "n_tests": m, "n_reps": int(p.size), "n_nan": int((~ok).sum()),
                    "se_sd_ratio": ratio, "mean_difference": float(np.nanmean(diff)),
                    "n_pos": float(np.mean(a["n_pos"][:, j])), "n_neg": float(np.mean(a["n_neg"][:, j]))})
    return out


def band_summary(a: dict, truths: list) -> dict:
    tr = np.asarray(truths)[None, :]
    bl, bu, lo, hi = a["band_lower"], a["band_upper"], a["lower"], a["upper"]
    defined = np.all(np.isfinite(bl) & np.isfinite(bu), axis=1)
    band_all, band_se, m = share(np.all((bl <= tr) & (tr <= bu), axis=1)[defined])
    point_ok = np.all(np.isfinite(lo) & np.isfinite(hi), axis=1)
    point_hit = (lo <= tr) & (tr <= hi)
    point_all, point_all_se, _ = share(np.all(point_hit, axis=1)[point_ok])
    finite = np.isfinite(lo) & np.isfinite(hi)
    per_h = [float(point_hit[finite[:, j], j].mean()) if finite[:, j].any() else float("nan")
             for j in range(tr.shape[1])]
    band_per_h = [float(((bl <= tr) & (tr <= bu))[defined, j].mean()) if defined.any() else float("nan")
                  for j in range(tr.shape[1])]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.nanmean((bu - bl)[defined] / (hi - lo)[defined]) if defined.any() else float("nan")
    return {"band_coverage": band_all, "band_mc_se": band_se, "n_defined": m, "n_reps": int(bl.shape[0]),
            "pointwise_mean": float(np.nanmean(per_h)), "pointwise_per_horizon": per_h,
            "pointwise_all": point_all, "pointwise_all_se": point_all_se, "band_per_horizon": band_per_h,
            "width_ratio": float(ratio), "n_pos": np.mean(a["n_pos"], axis=0).tolist(),
            "n_neg": np.mean(a["n_neg"], axis=0).tolist()}


def run_cell(seed: int, index: int, strength: str, share_censored: float, n: int, d: dict, args) -> dict:
    beta, s = STRENGTHS[strength]
    cens = d["censoring"][str(share_censored)]
    boot_total = args.boot_reps if n <= 300 else args.boot_reps_large
    sink: dict = {}
    seconds: Counter = Counter()
    warn: Counter = Counter()
    notes: dict = {}
    start = time.perf_counter()
    for b, first in enumerate(range(0, args.reps, args.batch)):
        size = min(args.batch, args.reps - first)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, index, b)))
        t = time.perf_counter()
        data = simulate(rng, size, n, beta, s, cens["rate"], first_rep=first)
        seconds["simulate"] += time.perf_counter() - t
        band = min(size, max(0, args.band_reps - first))
        boot = min(size, max(0, boot_total - first))

        def seed_of(*key, b=b):
            return int(np.random.SeedSequence(seed, spawn_key=(2, index, b, *key)).generate_state(1)[0])

        n_sub = -(-boot // args.boot_batch) if boot else 0
        seeds = {"band_auroc": seed_of(0), "band_aucpr": seed_of(1),
                 "boot_auroc": [seed_of(10 + 4 * k) for k in range(n_sub)],
                 "boot_aucpr": [seed_of(11 + 4 * k) for k in range(n_sub)],
                 "boot_compare_auroc": [seed_of(12 + 4 * k) for k in range(n_sub)],
                 "boot_compare_aucpr": [seed_of(13 + 4 * k) for k in range(n_sub)]}
        batch_run(data, size, d["horizons"], d["band_horizons"], band, boot, seeds, sink, seconds, warn, notes,
                  args.boot_batch)
        del data
    cell = {"cell": index, "strength": strength, "beta": beta, "s": s, "censored": share_censored,
            "censoring_rate": cens["rate"], "n": n, "reps": args.reps, "band_reps": min(args.band_reps, args.reps),
            "boot_reps": min(boot_total, args.reps), "n_boot": N_BOOT,
            "expected_n_pos": [n * c for c in cens["case_share"]],
            "expected_n_neg": [n * c for c in cens["control_share"]],
            "coverage": {}, "size": {}, "band": {}, "warnings": dict(warn),
            "notes": {key: dict(v) for key, v in notes.items()}, "seconds": {}}
    truths = {m: [d["truth"][repr(t)][m] for t in d["horizons"]] for m in METRICS}
    band_truths = {m: [d["band_truth"][repr(t)][m] for t in d["band_horizons"]] for m in METRICS}
    for (kind, metric, method), parts in sink.items():
        a = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
        if kind == "coverage":
            cell["coverage"].setdefault(metric, {})[method] = coverage_summary(a, truths[metric])
        elif kind == "size":
            cell["size"].setdefault(metric, {})[method] = size_summary(a)
        else:
            cell["band"][metric] = band_summary(a, band_truths[metric])
    cell["seconds"] = {k: round(v, 2) for k, v in seconds.items()}
    cell["seconds"]["total"] = round(time.perf_counter() - start, 2)
    return cell


# ------------------------------------------------------------------ verdicts
def holds(v: dict, rule: str = "strict") -> bool:
    """``strict``: coverage >= TARGET; ``mcse``: not more than 2 of the cell's own Monte Carlo SEs below 95%."""
    c = v["coverage"]
    if not np.isfinite(c):
        return False
    return c >= TARGET if rule == "strict" else c + 2 * v["mc_se"] >= 0.95


def entries(cells: list, metric: str, method: str, strength: str | None = None, censored: float | None = None):
    """(cell, horizon index, summary) of every (cell, horizon) of a metric and method."""
    for c in cells:
        if strength is not None and c["strength"] != strength:
            continue
        if censored is not None and c["censored"] != censored:
            continue
        rows = c["coverage"].get(metric, {}).get(method)
        if rows:
            for j, v in enumerate(rows):
                yield c, j, v


def smallest_n(cells: list, metric: str, method: str, rule: str = "strict", strength: str | None = None,
               horizon: int | None = None) -> tuple[int | None, list]:
    """The smallest n from which the coverage holds at that n and every larger one, in every scenario
    (strength x censoring, or those of one strength) and at every horizon (or one)."""
    found = [(c, j, v) for c, j, v in entries(cells, metric, method, strength) if horizon is None or j == horizon]
    ns = sorted({c["n"] for c, _, _ in found})
    best = None
    for n in reversed(ns):
        if not all(holds(v, rule) for c, _, v in found if c["n"] == n):
            break
        best = n
    return best, ns


def count_threshold(cells: list, metric: str, method: str, rule: str = "strict", count: str = "min") -> dict:
    """The fewest mean cases (``count="cases"``), controls (``"controls"``) or ``min(cases, controls)``
    (``"min"``) at a horizon from which every (cell, horizon) with at least that many holds, and the most of a
    failing one."""
    def of(v):
        return {"cases": v["n_pos"], "controls": v["n_neg"], "min": min(v["n_pos"], v["n_neg"])}[count]

    found = sorted((of(v), holds(v, rule)) for _, _, v in entries(cells, metric, method))
    fails = [x for x, ok in found if not ok]
    if not fails:
        return {"from": found[0][0] if found else None, "worst_failure": None}
    above = [x for x, _ in found if x > max(fails)]
    return {"from": min(above) if above else None, "worst_failure": max(fails)}


# ------------------------------------------------------------------ the page
def pct(c, se=None, bold: bool = True) -> str:
    if c is None or not np.isfinite(c):
        return "–"
    text = f"{100 * c:.1f}" + (f" ({100 * se:.1f})" if se is not None else "")
    return f"**{text}**" if bold and c < TARGET else text


def scen(c: dict) -> str:
    return f"{c['strength']} | {100 * c['censored']:.0f}% | {c['n']}"


def coverage_table(res: dict, metric: str) -> list[str]:
    cells = res["cells"]
    label = METRICS[metric][0]
    lines = [f"### {label}", "",
             f"Coverage in percent (Monte Carlo SE) at the 30th (h30) and 60th (h60) percentile of T; **bold** below "
             f"{100 * TARGET:.1f}%. `cases`: mean n_pos (h30 / h60); `ctrl`: mean n_neg. Bootstrap replicates: "
             f"{res['args']['boot_reps']} data sets (n <= 300), {res['args']['boot_reps_large']} (n = 1000); "
             f"influence: {res['args']['reps']}.", "",
             "| strength | cens. | n | cases | ctrl | " + " | ".join(
                 f"{short} h30 | {short} h60" for short in ("logit", "identity", "conserv.", "bootstrap")) + " |",
             "|---|---:|---:|---:|---:|" + "---:|" * 8]
    for c in cells:
        cv = c["coverage"][metric]
        base = cv["influence_logit"]
        row = [scen(c), f"{base[0]['n_pos']:.0f} / {base[1]['n_pos']:.0f}",
               f"{base[0]['n_neg']:.0f} / {base[1]['n_neg']:.0f}"]
        for m in METHODS:
            for j in range(2):
                row.append(pct(cv[m][j]["coverage"], cv[m][j]["mc_se"]) if m in cv else "–")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", f"{label}: mean width / se/sd / bias x 1000 / misses below-above (%) [NaN intervals]:", "",
              "| strength | cens. | n | " + " | ".join(f"{short} h30 | {short} h60" for short in
                                                     ("logit", "identity", "conserv.", "bootstrap")) + " |",
              "|---|---:|---:|" + "---|" * 8]
    for c in cells:
        cv = c["coverage"][metric]
        row = [scen(c)]
        for m in METHODS:
            for j in range(2):
                if m not in cv:
                    row.append("–")
                    continue
                v = cv[m][j]
                row.append(f"{v['width']:.3f} / {v['se_sd_ratio']:.2f} / {1000 * v['bias']:+.1f} / "
                           f"{100 * v['below']:.1f}-{100 * v['above']:.1f}" + (f" [{v['n_nan']}]" if v["n_nan"] else ""))
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    return lines


def size_table(res: dict) -> list[str]:
    lines = ["## Size of the paired comparison m1 vs m2 (true areas equal)", "",
             "Rejection rate in percent of the two-sided test at 5% (Monte Carlo SE) [se/sd of the difference]; "
             f"**bold** above 6.4% (5% + 2 SE of 1000 replicates). Bootstrap on the bootstrap data sets "
             f"({res['args']['boot_reps']} for n <= 300, {res['args']['boot_reps_large']} for n = 1000; 2 SE = "
             f"{200 * np.sqrt(0.05 * 0.95 / max(res['args']['boot_reps'], 1)):.1f} and "
             f"{200 * np.sqrt(0.05 * 0.95 / max(res['args']['boot_reps_large'], 1)):.1f} points).", "",
             "| strength | cens. | n | AUC(t) infl. h30 | AUC(t) infl. h60 | AUC(t) boot h30 | AUC(t) boot h60 | "
             "AP(t) infl. h30 | AP(t) infl. h60 | AP(t) boot h30 | AP(t) boot h60 |",
             "|---|---:|---:|" + "---:|" * 8]

    def fmt(v):
        text = f"{100 * v['size']:.1f} ({100 * v['mc_se']:.1f}) [{v['se_sd_ratio']:.2f}]" + \
            (f" NaN {v['n_nan']}" if v["n_nan"] else "")
        return f"**{text}**" if v["size"] > 0.064 else text

    for c in res["cells"]:
        row = [scen(c)]
        for metric in METRICS:
            for method in ("influence", "bootstrap"):
                got = c["size"].get(metric, {}).get(method)
                row += [fmt(got[j]) if got else "–" for j in range(2)]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    return lines


def band_table(res: dict) -> list[str]:
    lines = ["## Simultaneous band over five horizons (influence, logit)", "",
             f"Horizons at the percentiles {', '.join(f'{100 * p:g}' for p in BAND_P)} of T; "
             f"{res['args']['band_reps']} data sets per cell (the first of the coverage data sets). `band`: share of "
             "data sets whose band covers the truth at all five horizons at once (among those with a finite band at "
             "all five: `defined`), Monte Carlo SE; `pointwise mean`: the pointwise 95% intervals' coverage averaged "
             "over the five horizons; `pointwise all 5`: share whose five pointwise intervals all cover; `band/pw "
             "width`: mean ratio of the band's width to the pointwise interval's; cases / controls at the first and "
             "last horizon. Where the last horizon has (almost) no controls (strong, 60% censored: G(h70) = 0.0005) "
             "the band is rarely finite at all five horizons and its coverage is not evaluable.", "",
             "| strength | cens. | n | AUC(t) band | defined | pointwise mean | pointwise all 5 | band/pw width | "
             "AP(t) band | defined | pointwise mean | pointwise all 5 | band/pw width | cases h20 / h70 | ctrl h20 / h70 |",
             "|---|---:|---:|" + "---:|" * 12]
    for c in res["cells"]:
        if not c["band"]:
            continue
        row = [scen(c)]
        for metric in METRICS:
            v = c["band"][metric]
            row += [pct(v["band_coverage"], v["band_mc_se"]), f"{v['n_defined']}/{v['n_reps']}",
                    pct(v["pointwise_mean"], bold=False), pct(v["pointwise_all"], bold=False),
                    f"{v['width_ratio']:.2f}"]
        v = c["band"]["auroc"]
        row += [f"{v['n_pos'][0]:.0f} / {v['n_pos'][-1]:.0f}", f"{v['n_neg'][0]:.0f} / {v['n_neg'][-1]:.0f}"]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    return lines


def verdict_section(res: dict) -> list[str]:
    cells = res["cells"]
    lines = ["## Where each method holds", "",
             f"Cells (strength, censoring, n, horizon) with coverage below {100 * TARGET:.1f}% (more than ~2 Monte "
             "Carlo SE of 1000 replicates below 95%); † marks one within 2 of its own Monte Carlo SE of 95% (the "
             "smaller bootstrap cells):", ""]
    for metric, (label, _) in METRICS.items():
        for method, (mlabel, _) in METHODS.items():
            bad = [f"{c['strength']} {100 * c['censored']:.0f}% n={c['n']} h{int(100 * HORIZON_P[j])} "
                   f"{100 * v['coverage']:.1f}{'†' if holds(v, 'mcse') else ''}"
                   for c, j, v in entries(cells, metric, method) if not holds(v)]
            lines.append(f"* **{label}, {mlabel}**: " + ("; ".join(bad) if bad else "none") + ".")
    lines += ["", "Smallest n (of the n run) from which the coverage holds at that n and every larger one, at both "
              "horizons and in every censoring level of the strength (`all`: both strengths); `none`: not even at "
              f"n = {max(SIZES)}. Rule `>= {100 * TARGET:.1f}`; rule `2 SE`: coverage not more than two of the "
              "cell's own Monte Carlo SEs below 95%. `min(cases, ctrl) from`: the fewest `min(mean cases, mean "
              "controls)` at a horizon from which every (cell, horizon) with at least that many holds, by each rule "
              "(in parentheses the largest value of a failing one); `cases from` and `ctrl from` the same for the "
              "cases or the controls alone (rule >= 93.6).", "",
              f"| metric | method | all, >= {100 * TARGET:.1f} | moderate | strong | all, 2 SE | moderate, 2 SE | "
              "strong, 2 SE | min(cases, ctrl) from | min(cases, ctrl) from, 2 SE | cases from | ctrl from |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for metric, (label, _) in METRICS.items():
        for method, (mlabel, _) in METHODS.items():
            row = []
            for rule in ("strict", "mcse"):
                for strength in (None, "moderate", "strong"):
                    best, _ = smallest_n(cells, metric, method, rule, strength)
                    row.append("none" if best is None else str(best))
            for rule, count in (("strict", "min"), ("mcse", "min"), ("strict", "cases"), ("strict", "controls")):
                th = count_threshold(cells, metric, method, rule, count)
                row.append(("none" if th["from"] is None else f"{th['from']:.1f}")
                           + (f" ({th['worst_failure']:.1f})" if th["worst_failure"] is not None else ""))
            lines.append(f"| {label} | {mlabel} | " + " | ".join(row) + " |")
    lines += ["", "Coverage range (percent, min - max over cells and both horizons):", "",
              "| metric | method | all cells | censoring <= 30% | n >= 300 | n >= 300, censoring <= 30% |",
              "|---|---|---:|---:|---:|---:|"]
    for metric, (label, _) in METRICS.items():
        for method, (mlabel, _) in METHODS.items():
            row = []
            for low_n, max_c in ((0, 1.0), (0, 0.3), (300, 1.0), (300, 0.3)):
                vals = [v["coverage"] for c, _, v in entries(cells, metric, method)
                        if c["n"] >= low_n and c["censored"] <= max_c and np.isfinite(v["coverage"])]
                row.append(f"{100 * min(vals):.1f} - {100 * max(vals):.1f}" if vals else "–")
            lines.append(f"| {label} | {mlabel} | " + " | ".join(row) + " |")
    lines.append("")
    return lines


def truth_section(res: dict) -> list[str]:
    lines = ["## Design values and true areas", "",
             "Truths by quadrature (the docstring has the formulas); `check`: the library's estimate on one "
             f"uncensored sample of {res['truth_rows']:,} rows for m1 / m2, and its difference from the quadrature "
             "in units of that estimate's influence SE (z). `G(t)`: the censoring survival at the horizon; "
             "`E cases` / `E ctrl`: expected share of rows observed as cases / controls at the horizon.", ""]
    for strength, d in res["design"].items():
        lines += [f"**{strength}**: beta = {d['beta']:g}, s = {d['s']:g}; median of T {d['median']:.4f} "
                  f"(AUC(t) there {d['auroc_at_median']:.4f}); truths {d['seconds']} s.", "",
                  "| horizon | percentile | AUC(t) | AP(t) | P(T <= t) | check AUC m1 / m2 (z) | check AP m1 / m2 (z) |",
                  "|---:|---:|---:|---:|---:|---|---|"]
        chk = res["truth_check"].get(strength, {})
        for set_name, hs, ps, truth in (("main", d["horizons"], HORIZON_P, d["truth"]),
                                        ("band", d["band_horizons"], BAND_P, d["band_truth"])):
            for t, p in zip(hs, ps):
                v = truth[repr(t)]
                cols = []
                for metric in METRICS:
                    got = [e for e in chk.get(metric, []) if e["set"] == set_name and abs(e["horizon"] - t) < 1e-12]
                    cols.append(" / ".join(f"{e['estimate']:.4f} ({e['z']:+.1f})" for e in got) or "–")
                lines.append(f"| {t:.5g} | {100 * p:g}{' (band)' if set_name == 'band' else ''} | {v['auroc']:.4f} | "
                             f"{v['aucpr']:.4f} | {v['incidence']:.3f} | {cols[0]} | {cols[1]} |")
        lines += ["", "| censored | rate lambda | G(h30) | G(h60) | G(h70, band) | E cases h30 / h60 | E ctrl h30 / h60 |",
                  "|---:|---:|---:|---:|---:|---:|---:|"]
        for share_c, cz in d["censoring"].items():
            lines.append(f"| {100 * float(share_c):.0f}% | {cz['rate']:.4f} | {cz['g_at_horizons'][0]:.3f} | "
                         f"{cz['g_at_horizons'][1]:.3f} | {cz['g_at_band_horizons'][-1]:.4f} | "
                         f"{cz['case_share'][0]:.3f} / {cz['case_share'][1]:.3f} | "
                         f"{cz['control_share'][0]:.3f} / {cz['control_share'][1]:.3f} |")
        lines.append("")
    return lines


def markdown(res: dict) -> str:
    a = res["args"]
    lines = [
        "# Coverage of the time-dependent AUC(t) and AP(t) intervals, size of the paired comparison, and the band",
        "", f"Command: `{res['command']}`  ", f"Machine: {res['machine']}  ",
        f"Commit: `{res['commit']}` (run from a frozen copy of the working tree: `{res['library']}`"
        + (f"; {res['commit_note']}" if res.get("commit_note") else "") + ")  ",
        f"Date: {res['date']}; wall time {res['seconds'] / 60:.1f} min (truths {res['times']['truths'] / 60:.1f}, "
        f"grid {res['times']['grid'] / 60:.1f}), one core. Seed {a['seed']}.", "",
        "Design (the script's docstring has it in full): latent `x ~ N(0, 1)`, event time `T ~ Exponential(rate "
        "exp(beta x))`, markers `m1 = x + e1`, `m2 = x + e2`, `e ~ N(0, s^2)` (equal true areas). Moderate: beta = 1, "
        "s = 0.8 (AUC(t) 0.735 at the median of T); strong: beta = 3, s = 0.2 (0.943; beta = 1 cannot reach 0.93: "
        "the latent x itself has AUC(t) 0.80). Independent exponential censoring with the overall share censored "
        "0%, 30%, 60%. Horizons: the 30th and 60th percentiles of T (h30, h60); the band over five horizons at the "
        "20th-70th. n = 100, 300, 1000. Every method is one grouped call (`by=\"rep\"`) per batch of "
        f"{a['batch']} data sets. Replicates: {a['reps']} per cell (influence intervals and comparison), the band on "
        f"the first {a['band_reps']}, the bootstrap (`n_boot={N_BOOT}`) on the first {a['boot_reps']} (n = 100, 300) "
        f"and {a['boot_reps_large']} (n = 1000). Coverage is for m1. Nominal level 95%. Warnings (SmallSampleWarning, "
        "DegenerateGroupWarning) were counted per cell in the JSON and otherwise silenced.", ""]
    if res.get("reading"):
        lines += ["## Reading (by hand, from this run)", "", res["reading"].strip(), ""]
    lines += verdict_section(res)
    lines += ["## Coverage of the 95% intervals (m1)", ""]
    for metric in METRICS:
        lines += coverage_table(res, metric)
    lines += size_table(res)
    lines += band_table(res)
    lines += truth_section(res)
    warn, notes = Counter(), {}
    for c in res["cells"]:
        warn.update(c["warnings"])
        for key, v in c["notes"].items():
            notes.setdefault(key, Counter()).update(v)
    lines += ["## Warnings and notes over the whole run", "", "| warning (numbers as #) | count |", "|---|---:|"]
    lines += [f"| {w.replace('|', '/')} | {n} |" for w, n in warn.most_common()] or ["| none | |"]
    lines += ["", "| call (kind/metric/method) | note of the row (numbers as #) | rows |", "|---|---|---:|"]
    for key, v in sorted(notes.items()):
        lines += [f"| {key} | {t.replace('|', '/')} | {n} |" for t, n in v.most_common()]
    parts = ("simulate", "influence", "band", "bootstrap", "bootstrap_compare", "total")
    lines += ["", "## Time per cell (seconds)", "", "| strength | cens. | n | " + " | ".join(parts) + " |",
              "|---|---:|---:|" + "---:|" * len(parts)]
    for c in res["cells"]:
        lines.append(f"| {scen(c)} | " + " | ".join(f"{c['seconds'].get(x, 0):.1f}" for x in parts) + " |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="data sets per cell (influence)")
    parser.add_argument("--band-reps", type=int, default=500, help="data sets per cell for the band")
    parser.add_argument("--boot-reps", type=int, default=1000, help="bootstrap data sets per cell, n <= 300")
    parser.add_argument("--boot-reps-large", type=int, default=300, help="bootstrap data sets per cell, n = 1000")
    parser.add_argument("--batch", type=int, default=250, help="data sets per grouped call")
    parser.add_argument("--boot-batch", type=int, default=50, help="data sets per grouped bootstrap call")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--quick", action="store_true", help="a tiny run to check the script")
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--out", type=Path, default=HERE / "survival_coverage_results.md")
    parser.add_argument("--render", type=Path, help="only write the page again from this run's JSON")
    parser.add_argument("--reading", type=Path, help="with --render: a hand-written reading, stored in the JSON")
    args = parser.parse_args(argv)
    if args.render:
        res = json.loads(args.render.read_text())
        if args.reading:
            res["reading"] = args.reading.read_text()
            args.render.write_text(json.dumps(res, indent=1))
        args.out.write_text(markdown(res))
        print(f"wrote {args.out}")
        return
    truth_rows = TRUTH_ROWS
    if args.quick:
        args.reps, args.band_reps, args.boot_reps, args.boot_reps_large, args.batch, args.boot_batch = \
            40, 20, 20, 10, 20, 10
        truth_rows = 50_000
        if args.sizes == ",".join(map(str, SIZES)):
            args.sizes = "100,300"
    sizes = [int(s) for s in args.sizes.split(",")]
    start = time.perf_counter()
    res = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
           "command": "python " + " ".join(sys.argv if argv is None else [__file__, *argv]),
           "machine": machine(), "commit": commit(), "library": str(Path(aucpr_stats.__file__).parent),
           "date": time.strftime("%Y-%m-%d %H:%M"), "truth_rows": truth_rows, "target": TARGET,
           "horizon_percentiles": list(HORIZON_P), "band_percentiles": list(BAND_P), "n_boot": N_BOOT,
           "times": {}, "design": {}, "truth_check": {}, "cells": []}
    t0 = time.perf_counter()
    for i, strength in enumerate(STRENGTHS):
        d = design(strength)
        res["design"][strength] = d
        res["truth_check"][strength] = truth_check(args.seed, i, strength, d, truth_rows)
        print(f"{strength}: horizons {[round(h, 4) for h in d['horizons']]}, AUC(t) "
              f"{[round(d['truth'][repr(h)]['auroc'], 4) for h in d['horizons']]}, AP(t) "
              f"{[round(d['truth'][repr(h)]['aucpr'], 4) for h in d['horizons']]}; check z "
              f"{[round(e['z'], 1) for m in METRICS for e in res['truth_check'][strength][m]]} "
              f"({d['seconds']} + {res['truth_check'][strength]['seconds']} s)", flush=True)
    res["times"]["truths"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    grid = [(strength, c, n) for strength in STRENGTHS for c in CENSORING for n in sizes]
    for index, (strength, cz, n) in enumerate(grid):
        cell = run_cell(args.seed, index, strength, cz, n, res["design"][strength], args)
        res["cells"].append(cell)
        cv = cell["coverage"]
        msg = "; ".join(f"{metric} " + ", ".join(
            f"{m[:6]} {100 * cv[metric][m][0]['coverage']:.1f}/{100 * cv[metric][m][1]['coverage']:.1f}"
            for m in METHODS if m in cv[metric]) for metric in METRICS)
        sz = ", ".join(f"{metric} {m[:4]} {100 * cell['size'][metric][m][0]['size']:.1f}/"
                       f"{100 * cell['size'][metric][m][1]['size']:.1f}" for metric in METRICS
                       for m in cell["size"][metric])
        bd = ", ".join(f"{metric} {100 * cell['band'][metric]['band_coverage']:.1f}" for metric in cell["band"])
        print(f"[{index + 1}/{len(grid)}] {strength} {100 * cz:.0f}% n={n}: {msg} | size {sz} | band {bd} | "
              f"{cell['seconds']['total']:.0f} s (total {time.perf_counter() - start:.0f} s)", flush=True)
    res["times"]["grid"] = time.perf_counter() - t0
    res["seconds"] = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(res, indent=1))
    args.out.write_text(markdown(res))
    print(f"wrote {args.out} and {args.out.with_suffix('.json')} in {res['seconds'] / 60:.1f} min")


if __name__ == "__main__":
    main()
