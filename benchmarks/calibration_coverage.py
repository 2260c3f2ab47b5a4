r"""Coverage of the calibration intervals (``calibration(...).conf_int``) by simulation.

What is measured
----------------
Per row: ``x ~ N(0, 1)``, the true risk ``pi(x) = expit(a0 + b0 x)`` with
``b0 = 1.2`` and ``a0`` set so that ``E[pi] = prevalence``, and the model's
prediction ``p = expit(c + d x)``. Three models:

* ``calibrated``: ``c = a0, d = b0``;
* ``overfitted``: ``d = b0 / 0.7`` (predictions too extreme), ``c`` such that ``E[p] = prevalence``;
* ``underfitted``: ``d = b0 / 1.3`` and ``c = a0 + 0.4`` (too moderate and too high on average).

The recalibration model ``logit P(y = 1 | p) = a0 + b0 (logit p - c) / d`` is
exact, so the true slope is ``b0 / d`` and the true intercept ``a0 - b0 c / d``.
The other truths are population values by Gauss-Hermite quadrature (200
nodes, checked against ``scipy.integrate.quad`` to 1e-8): CITL (the ``alpha``
solving ``E[pi - expit(alpha + logit p)] = 0``), O/E ``= E[pi] / E[p]``, Brier
``= E[pi (1 - p)^2 + (1 - pi) p^2]`` and the scaled Brier ``1 - Brier / (m (1 - m))``, ``m = E[pi]``.

Grid: prevalence 0.5, 0.1, 0.01 and 20, 50, 200, 1000 expected events
(``n = events / prevalence`` rows, the events binomial). All replicate data
sets of a cell are one polars frame with a ``rep`` column and one call
``calibration(df, "y", "p", by="rep")``. Methods: ``wald`` (oe_ratio, citl,
slope, intercept, brier, scaled_brier), ``profile`` (citl, slope, intercept)
and ``bootstrap`` with ``n_boot=200`` (citl, slope, oe_ratio, brier; cells
with at most 200 events, at prevalence 0.01 only 20 and 50).

Two designs beside the grid:

* **case-control** at a stated prevalence: a cohort of prevalence 0.01
  (``calibrated`` and ``overfitted`` models), all its cases (50 or 200
  expected) and 4 controls per case drawn from the cohort's non-cases;
  ``calibration(..., prevalence=0.01)``, the truths the population values
  above; the default interval (bootstrap) and ``wald`` for citl, slope, intercept;
* **clusters**: 40 sites of 25 rows, a random intercept ``u ~ N(0, 0.5^2)``
  in the true risk ``expit(a0 + b0 x + u)`` (``a0`` of prevalence 0.1), the
  prediction ``expit(a0 + b0 x)``; ``wald`` with ``cluster="site"`` (sandwich)
  against ``wald`` ignoring the sites, for citl and slope. Truth: the marginal
  population values, by Monte Carlo on 10^7 independent rows (also by
  quadrature, as a check).

Coverage is the share of finite intervals containing the truth, with its
Monte Carlo SE ``sqrt(c (1 - c) / k)`` (``k`` finite intervals), the share of
NaN intervals and the mean width. Per method the number of data sets per
cell is ``min(reps, max_rows / n)`` but at least a floor (see ``--help``), so
the large cells (many rows, expensive for the profile and the bootstrap) get
fewer data sets; the results page gives the count per cell.

Run (one core)::

    AUCPR_STATS_THREADS=1 python benchmarks/calibration_coverage.py --out benchmarks/calibration_coverage_results.md
    # about 15 minutes on one core of an AMD EPYC; the defaults are the caps of the stored results
    python benchmarks/calibration_coverage.py --quick --out /tmp/calibration_quick.md   # about two minutes
"""

from __future__ import annotations

import os

os.environ.setdefault("AUCPR_STATS_THREADS", "1")

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl
from scipy import integrate, optimize
from scipy.special import expit

from aucpr_stats import calibration
from _provenance import machine  # noqa: E402

HERE = Path(__file__).resolve().parent
B0 = 1.2
PREVALENCES = (0.5, 0.1, 0.01)
EVENTS = (20, 50, 200, 1000)
SCENARIOS = ("calibrated", "overfitted", "underfitted")
METHODS = {
    "wald": ("oe_ratio", "citl", "slope", "intercept", "brier", "scaled_brier"),
    "profile": ("citl", "slope", "intercept"),
    "bootstrap": ("citl", "slope", "oe_ratio", "brier"),
}
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(200)
WEIGHTS = WEIGHTS / WEIGHTS.sum()  # expectation under N(0, 1)


# ------------------------------------------------------------------ population values
def expect(f) -> float:
    """E[f(x)], x ~ N(0, 1), by Gauss-Hermite quadrature."""
    return float(np.sum(WEIGHTS * f(NODES)))


def expect_quad(f) -> float:
    """The same expectation by adaptive quadrature (the check)."""
    value, _ = integrate.quad(lambda x: f(np.array([x]))[0] * np.exp(-x * x / 2) / np.sqrt(2 * np.pi),
                              -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12, limit=400)
    return value


def intercept_for(prevalence: float, slope: float) -> float:
    """The a with E[expit(a + slope x)] = prevalence."""
    return optimize.brentq(lambda a: expect(lambda x: expit(a + slope * x)) - prevalence, -30, 30, xtol=1e-14)


def model(scenario: str, prevalence: float) -> dict:
    a0 = intercept_for(prevalence, B0)
    if scenario == "calibrated":
        c, d = a0, B0
    elif scenario == "overfitted":
        d = B0 / 0.7
        c = intercept_for(prevalence, d)
    else:
        c, d = a0 + 0.4, B0 / 1.3
    return {"a0": a0, "b0": B0, "c": c, "d": d}


def truths(m: dict, e=expect) -> dict:
    a0, b0, c, d = m["a0"], m["b0"], m["c"], m["d"]

    def risk(x):
        return expit(a0 + b0 * x)

    def pred(x):
        return expit(c + d * x)

    mean_pi, mean_p = e(risk), e(pred)
    citl = optimize.brentq(lambda a: e(lambda x: risk(x) - expit(a + c + d * x)), -20, 20, xtol=1e-14)
    brier = e(lambda x: risk(x) * (1 - pred(x)) ** 2 + (1 - risk(x)) * pred(x) ** 2)
    return {"oe_ratio": mean_pi / mean_p, "citl": citl, "slope": b0 / d, "intercept": a0 - b0 * c / d,
            "brier": brier, "scaled_brier": 1 - brier / (mean_pi * (1 - mean_pi))}


# ------------------------------------------------------------------ coverage
def summarise(ci: pl.DataFrame, truth: dict) -> dict:
    """Per statistic: coverage of the finite intervals, its MC SE, NaN share, mean width, data sets."""
    out = {}
    for (stat,), part in ci.group_by(["estimator"]):
        lo, hi = part["lower"].to_numpy().astype(float), part["upper"].to_numpy().astype(float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        k = int(ok.sum())
        t = truth[stat]
        cov = float(np.mean((lo[ok] <= t) & (t <= hi[ok]))) if k else float("nan")
        out[stat] = {"coverage": cov, "mc_se": float(np.sqrt(cov * (1 - cov) / k)) if k else float("nan"),
                     "nan": float(1 - ok.mean()), "width": float(np.mean(hi[ok] - lo[ok])) if k else float("nan"),
                     "below": float(np.mean(hi[ok] < t)) if k else float("nan"), "sets": int(lo.size)}
    return out


def draw(rng, m: dict, n: int, reps: int) -> pl.DataFrame:
    x = rng.standard_normal(n * reps)
    y = (rng.random(x.size) < expit(m["a0"] + m["b0"] * x)).astype(np.int8)
    return pl.DataFrame({"rep": np.repeat(np.arange(reps, dtype=np.int32), n), "y": y,
                         "p": expit(m["c"] + m["d"] * x)})


def sets_for(n: int, reps: int, max_rows: int, floor: int) -> int:
    return int(min(reps, max(floor, max_rows // n)))


def grid_cell(rng, scenario, prevalence, events, plan) -> list[dict]:
    m = model(scenario, prevalence)
    truth = truths(m)
    n = int(round(events / prevalence))
    want = {meth: sets_for(n, *plan[meth]) for meth in METHODS}
    if not (events <= 200 and (prevalence > 0.05 or events <= 50)):
        want["bootstrap"] = 0
    if plan["profile_events"] and events > plan["profile_events"](prevalence):
        want["profile"] = 0
    df = draw(rng, m, n, max(want.values()))
    rows = []
    for meth, stats in METHODS.items():
        k = want[meth]
        if k == 0:
            continue
        part = df.filter(pl.col("rep") < k)
        t0 = time.perf_counter()
        r = calibration(part, "y", "p", by="rep", statistic=list(stats))
        kw = {"n_boot": 200, "seed": 1} if meth == "bootstrap" else {}
        ci = r.conf_int(method=meth, **kw)
        seconds = time.perf_counter() - t0
        for stat, s in summarise(ci, truth).items():
            rows.append({"scenario": scenario, "prevalence": prevalence, "events": events, "n": n, "method": meth,
                         "statistic": stat, "truth": truth[stat], "seconds": seconds, **s})
    return rows


# ------------------------------------------------------------------ case-control
def case_control_sets(rng, m: dict, cases: int, reps: int, controls: int = 4) -> pl.DataFrame:
    """Per data set a cohort of ``cases / 0.01`` rows: all its cases and ``controls`` non-cases per case."""
    size = int(round(cases / 0.01))
    rep = np.repeat(np.arange(reps, dtype=np.int32), size)
    x = rng.standard_normal(rep.size)
    y = rng.random(rep.size) < expit(m["a0"] + m["b0"] * x)
    n_cases = np.bincount(rep[y], minlength=reps)
    neg = np.flatnonzero(~y)
    order = neg[np.lexsort((rng.random(neg.size), rep[neg]))]  # non-cases shuffled within each cohort
    first = np.searchsorted(rep[order], np.arange(reps))
    rank = np.arange(order.size) - first[rep[order]]
    take_neg = order[rank < controls * n_cases[rep[order]]]
    keep = np.sort(np.r_[np.flatnonzero(y), take_neg])
    return pl.DataFrame({"rep": rep[keep], "y": y[keep].astype(np.int8), "p": expit(m["c"] + m["d"] * x[keep])})


def case_control(rng, plan) -> list[dict]:
    rows = []
    stats = ["citl", "slope", "intercept"]
    for scenario in ("calibrated", "overfitted"):
        m = model(scenario, 0.01)
        truth = truths(m)
        for cases in (50, 200):
            reps_w, reps_b = plan["cc"]
            df = case_control_sets(rng, m, cases, reps_w)
            for meth, k in (("bootstrap (default)", reps_b), ("wald", reps_w)):
                part = df.filter(pl.col("rep") < k)
                t0 = time.perf_counter()
                r = calibration(part, "y", "p", by="rep", statistic=stats, prevalence=0.01)
                ci = r.conf_int(method="bootstrap", n_boot=200, seed=1) if meth.startswith("bootstrap") \
                    else r.conf_int(method="wald")
                seconds = time.perf_counter() - t0
                for stat, s in sorted(summarise(ci, truth).items(), key=lambda kv: stats.index(kv[0])):
                    rows.append({"scenario": scenario, "cases": cases, "rows": part.height / k, "method": meth,
                                 "statistic": stat, "truth": truth[stat], "seconds": seconds, **s})
    return rows


# ------------------------------------------------------------------ clusters
CLUSTERS, PER_CLUSTER, SD_SITE, CLUSTER_PREV = 40, 25, 0.5, 0.1


def logistic_truth(y: np.ndarray, lp: np.ndarray) -> dict:
    """CITL (offset lp) and the recalibration intercept/slope on lp, by Newton on all rows."""
    alpha = 0.0
    for _ in range(50):
        mu = expit(alpha + lp)
        step = np.sum(y - mu) / np.sum(mu * (1 - mu))
        alpha += step
        if abs(step) < 1e-13:
            break
    beta = np.zeros(2)
    for _ in range(50):
        mu = expit(beta[0] + beta[1] * lp)
        w = mu * (1 - mu)
        g = np.array([np.sum(y - mu), np.sum((y - mu) * lp)])
        h = np.array([[w.sum(), np.sum(w * lp)], [np.sum(w * lp), np.sum(w * lp * lp)]])
        step = np.linalg.solve(h, g)
        beta += step
        if np.max(np.abs(step)) < 1e-12:
            break
    return {"citl": alpha, "intercept": beta[0], "slope": beta[1]}


def cluster_truth(rng, size: int) -> dict:
    a0 = intercept_for(CLUSTER_PREV, B0)
    x = rng.standard_normal(size)
    u = SD_SITE * rng.standard_normal(size)  # independent rows: each its own site
    y = (rng.random(size) < expit(a0 + B0 * x + u)).astype(float)
    mc = logistic_truth(y, a0 + B0 * x)
    # the same by quadrature: the marginal risk E_u[expit(a0 + b0 x + u)] on the Gauss-Hermite nodes
    marginal = np.array([expect(lambda z: expit(a0 + B0 * xi + SD_SITE * z)) for xi in NODES])
    lp = a0 + B0 * NODES
    citl = optimize.brentq(lambda a: np.sum(WEIGHTS * (marginal - expit(a + lp))), -5, 5, xtol=1e-14)
    slope_eq = lambda b: [np.sum(WEIGHTS * (marginal - expit(b[0] + b[1] * lp))),
                          np.sum(WEIGHTS * lp * (marginal - expit(b[0] + b[1] * lp)))]
    b = optimize.fsolve(slope_eq, [0.0, 1.0], xtol=1e-13)
    return {"a0": a0, "mc": mc, "quadrature": {"citl": citl, "intercept": b[0], "slope": b[1]}, "rows": size}


def clusters(rng, reps: int, truth_rows: int) -> tuple[list[dict], dict]:
    info = cluster_truth(rng, truth_rows)
    a0 = info["a0"]
    size = CLUSTERS * PER_CLUSTER
    rep = np.repeat(np.arange(reps, dtype=np.int32), size)
    site = np.repeat(np.arange(reps * CLUSTERS, dtype=np.int32), PER_CLUSTER)
    u = SD_SITE * rng.standard_normal(reps * CLUSTERS)[site]
    x = rng.standard_normal(rep.size)
    y = (rng.random(rep.size) < expit(a0 + B0 * x + u)).astype(np.int8)
    df = pl.DataFrame({"rep": rep, "site": site, "y": y, "p": expit(a0 + B0 * x)})
    rows = []
    for name, kw in (("wald, cluster=site (sandwich)", {"cluster": "site"}), ("wald ignoring sites", {})):
        t0 = time.perf_counter()
        ci = calibration(df, "y", "p", by="rep", statistic=["citl", "slope"], **kw).conf_int(method="wald")
        seconds = time.perf_counter() - t0
        for stat, s in summarise(ci, info["mc"]).items():
            rows.append({"method": name, "statistic": stat, "truth": info["mc"][stat], "seconds": seconds, **s})
    info["mean_events"] = float(y.sum()) / reps
    return rows, info


# ------------------------------------------------------------------ report
def cov_text(s: dict) -> str:
    text = f"{100 * s['coverage']:.1f} ({100 * s['mc_se']:.1f})"
    if s["nan"] > 0:
        text += f" nan {100 * s['nan']:.1f}%"
    return text


def holds(rows: list[dict], method: str, stat: str) -> tuple[str, str, str]:
    cells = [r for r in rows if r["method"] == method and r["statistic"] == stat]
    if not cells:
        return "-", "-", "-"
    fail = [r for r in cells if not (r["coverage"] >= 0.93)]
    start = "none"
    for e in sorted({r["events"] for r in cells}):
        if all(r["coverage"] >= 0.93 for r in cells if r["events"] >= e):
            start = str(e)
            break
    worst = min(cells, key=lambda r: r["coverage"] if np.isfinite(r["coverage"]) else -1)
    where = "; ".join(f"{r['scenario']} {r['prevalence']:g}/{r['events']}: {100 * r['coverage']:.1f}"
                      for r in sorted(fail, key=lambda r: (r["events"], r["prevalence"], r["scenario"]))) or "nowhere"
    worst_text = (f"{100 * worst['coverage']:.1f} ({100 * worst['mc_se']:.1f}) at {worst['scenario']}, "
                  f"prevalence {worst['prevalence']:g}, {worst['events']} events")
    return start, worst_text, where




def markdown(res: dict) -> str:
    a = res["args"]
    lines = ["# Coverage of the calibration intervals", "",
             f"Command: `{res['command']}`  ", f"Machine: {res['machine']}  ",
             f"Date: {res['date']}; wall time {res['seconds'] / 60:.1f} min "
             f"(grid {res['times']['grid'] / 60:.1f}, case-control {res['times']['cc'] / 60:.1f}, "
             f"clusters {res['times']['clusters'] / 60:.1f}).", "",
             "Nominal level 95%. Cells: coverage in percent of the finite intervals (Monte Carlo SE); "
             "`nan x%` = share of data sets without a finite interval. The model and the truths: see the "
             "script's docstring. `sets` = data sets in the cell.", "",
             "## What was cut", "",
             f"Asked: {a['reps']} data sets per cell for wald/profile, {a['boot_reps']} for the bootstrap. "
             f"To fit in the time budget on one core the data sets per cell are `min(reps, max_rows / n)` with a "
             f"floor: wald max_rows {a['wald_rows']:,} (floor {a['wald_floor']}), profile max_rows "
             f"{a['profile_rows']:,} (floor {a['profile_floor']}), bootstrap max_rows {a['boot_rows']:,} "
             f"(floor {a['boot_floor']}). The profile interval was run for events <= 1000 at prevalence 0.5, "
             f"<= 200 at 0.1, <= 50 at 0.01 (it costs about 60 us per row and data set; the cells left out are "
             f"large-sample ones where it agrees with wald). Case-control: {a['cc_reps']} data sets for wald, "
             f"{a['cc_boot_reps']} for the bootstrap; clusters: {a['cluster_reps']} data sets.", ""]
    lines += ["## Population values", "", "| scenario | prevalence | a0 | c | d | "
              + " | ".join(METHODS["wald"]) + " |", "|---|---:|---:|---:|---:|" + "---:|" * len(METHODS["wald"])]
    for (scenario, prev), t in res["truths"].items():
        m = model(scenario, prev)
        lines.append(f"| {scenario} | {prev:g} | {m['a0']:.6f} | {m['c']:.6f} | {m['d']:.6f} | "
                     + " | ".join(f"{t[s]:.8g}" for s in METHODS["wald"]) + " |")
    lines += ["", f"Largest difference between the Gauss-Hermite (200 nodes) and adaptive-quadrature truths: "
              f"{res['quad_check']:.1e}.", ""]
    grid = res["grid"]
    for meth, stats in METHODS.items():
        lines += [f"## {meth}", "", "| scenario | prevalence | events | n | sets | " + " | ".join(stats) + " |",
                  "|---|---:|---:|---:|---:|" + "---:|" * len(stats)]
        keys = sorted({(r["scenario"], r["prevalence"], r["events"]) for r in grid if r["method"] == meth},
                      key=lambda k: (SCENARIOS.index(k[0]), -k[1], k[2]))
        for key in keys:
            cell = {r["statistic"]: r for r in grid if r["method"] == meth and (r["scenario"], r["prevalence"],
                                                                                 r["events"]) == key}
            any_row = next(iter(cell.values()))
            lines.append(f"| {key[0]} | {key[1]:g} | {key[2]} | {any_row['n']} | {any_row['sets']} | "
                         + " | ".join(cov_text(cell[s]) if s in cell else "-" for s in stats) + " |")
        lines += ["", f"Mean width ({meth}):", "", "| scenario | prevalence | events | " + " | ".join(stats) + " |",
                  "|---|---:|---:|" + "---:|" * len(stats)]
        for key in keys:
            cell = {r["statistic"]: r for r in grid if r["method"] == meth and (r["scenario"], r["prevalence"],
                                                                                 r["events"]) == key}
            lines.append(f"| {key[0]} | {key[1]:g} | {key[2]} | "
                         + " | ".join(f"{cell[s]['width']:.4g}" if s in cell else "-" for s in stats) + " |")
        lines.append("")
    lines += ["## Case-control (population prevalence 0.01, 4 controls per case, `prevalence=0.01`)", "",
              "| scenario | cases (expected) | rows (mean) | method | statistic | truth | sets | coverage | width |",
              "|---|---:|---:|---|---|---:|---:|---:|---:|"]
    for r in res["cc"]:
        lines.append(f"| {r['scenario']} | {r['cases']} | {r['rows']:.0f} | {r['method']} | {r['statistic']} | "
                     f"{r['truth']:.5f} | {r['sets']} | {cov_text(r)} | {r['width']:.4g} |")
    info = res["cluster_info"]
    lines += ["", f"## Clusters ({CLUSTERS} sites of {PER_CLUSTER} rows, random intercept sd {SD_SITE}, "
              f"a0 = {info['a0']:.6f}, mean events {info['mean_events']:.1f})", "",
              f"Truth (marginal, Monte Carlo on {info['rows']:,} rows): citl {info['mc']['citl']:.5f}, slope "
              f"{info['mc']['slope']:.5f}; by quadrature: citl {info['quadrature']['citl']:.5f}, slope "
              f"{info['quadrature']['slope']:.5f}.", "",
              "| method | statistic | sets | coverage | width |", "|---|---|---:|---:|---:|"]
    for r in res["clusters"]:
        lines.append(f"| {r['method']} | {r['statistic']} | {r['sets']} | {cov_text(r)} | {r['width']:.4g} |")
    lines += ["", "## What holds", "",
              "Per method and statistic over the grid (3 scenarios x the prevalences measured): the smallest "
              "number of expected events from which coverage is >= 93% in every cell measured with at least "
              "that many events (the rule for a method's `min_positives`), the worst cell, and the cells "
              "below 93% (scenario prevalence/events: coverage).", "",
              "| method | statistic | >= 93% from events | worst cell | below 93% |", "|---|---|---:|---|---|"]
    for meth, stats in METHODS.items():
        for stat in stats:
            start, worst, where = holds(grid, meth, stat)
            lines.append(f"| {meth} | {stat} | {start} | {worst} | {where} |")
    lines += [""] + res.get("notes", [])
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="data sets per cell, wald and profile")
    parser.add_argument("--boot-reps", type=int, default=300, help="data sets per cell, bootstrap")
    parser.add_argument("--wald-rows", type=int, default=10_000_000, help="at most this many rows per cell (wald)")
    parser.add_argument("--wald-floor", type=int, default=100)
    parser.add_argument("--profile-rows", type=int, default=200_000)
    parser.add_argument("--profile-floor", type=int, default=60)
    parser.add_argument("--boot-rows", type=int, default=60_000)
    parser.add_argument("--boot-floor", type=int, default=40)
    parser.add_argument("--cc-reps", type=int, default=1000)
    parser.add_argument("--cc-boot-reps", type=int, default=100)
    parser.add_argument("--cluster-reps", type=int, default=1000)
    parser.add_argument("--truth-rows", type=int, default=10_000_000)
    parser.add_argument("--quick", action="store_true", help="a small run (about two minutes) to check the script")
    parser.add_argument("--seed", type=int, default=20240531)
    parser.add_argument("--out", type=Path, default=HERE / "calibration_coverage_results.md")
    args = parser.parse_args(argv)
    if args.quick:
        args.reps, args.boot_reps, args.cc_reps, args.cc_boot_reps, args.cluster_reps = 100, 20, 100, 20, 100
        args.wald_rows, args.profile_rows, args.boot_rows = 1_000_000, 30_000, 10_000
        args.wald_floor, args.profile_floor, args.boot_floor = 20, 10, 5
        args.truth_rows = 1_000_000
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    plan = {"wald": (args.reps, args.wald_rows, args.wald_floor),
            "profile": (args.reps, args.profile_rows, args.profile_floor),
            "bootstrap": (args.boot_reps, args.boot_rows, args.boot_floor),
            "profile_events": lambda prev: 1000 if prev > 0.3 else (200 if prev > 0.05 else 50),
            "cc": (args.cc_reps, args.cc_boot_reps)}
    seeds = np.random.SeedSequence(args.seed).spawn(3)
    res = {"args": vars(args), "command": "python " + " ".join(sys.argv if argv is None else [__file__, *argv]),
           "machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"), "times": {}}
    res["truths"] = {(s, p): truths(model(s, p)) for s in SCENARIOS for p in PREVALENCES}
    res["quad_check"] = max(abs(truths(model(s, p), expect_quad)[k] - v)
                            for (s, p), t in res["truths"].items() for k, v in t.items())
    grid, rng = [], np.random.default_rng(seeds[0])
    for scenario in SCENARIOS:
        for prevalence in PREVALENCES:
            for events in EVENTS:
                t0 = time.perf_counter()
                grid += grid_cell(rng, scenario, prevalence, events, plan)
                print(f"{scenario} {prevalence} {events}: {time.perf_counter() - t0:.1f} s "
                      f"(total {time.perf_counter() - start:.0f} s)", flush=True)
    res["grid"] = grid
    res["times"]["grid"] = time.perf_counter() - start
    t0 = time.perf_counter()
    res["cc"] = case_control(np.random.default_rng(seeds[1]), plan)
    res["times"]["cc"] = time.perf_counter() - t0
    print(f"case-control: {res['times']['cc']:.0f} s", flush=True)
    t0 = time.perf_counter()
    res["clusters"], res["cluster_info"] = clusters(np.random.default_rng(seeds[2]), args.cluster_reps,
                                                    args.truth_rows)
    res["times"]["clusters"] = time.perf_counter() - t0
    res["seconds"] = time.perf_counter() - start
    args.out.write_text(markdown(res))
    print(f"wrote {args.out} ({res['seconds'] / 60:.1f} min)")


if __name__ == "__main__":
    main()
