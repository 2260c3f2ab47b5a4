r"""Coverage of the calibration curve's bands, and of the Wald intervals under survey weights.

What is measured
----------------
* **Bands** (``calibration(...).curve()``): per row ``x ~ N(0, 1)``, the true risk
  ``expit(a0 + 1.2 x)``, the prediction ``p = expit(c + d x)`` of a calibrated,
  an overfitted (``d = 1.2 / 0.7``) and an underfitted (``d = 1.2 / 1.3``,
  ``c = a0 + 0.4``) model. The true calibration curve ``P(y = 1 | p)`` is
  ``expit(a0 + 1.2 (logit p - c) / d)``, logistic in ``logit p``, inside the
  spline's span. Pointwise: the share of data sets whose band holds the true
  curve at the grid point nearest to the median predicted risk (and at the
  10th and 90th percentiles); simultaneous: the share whose band holds the
  true curve at every one of its 101 grid points. Prevalence 0.5 and 0.1;
  50, 200 and 1,000 expected events; 4 knots.
* **Survey weights** (``weights=``): a population as above (an overfitted
  model, prevalence 0.1); each row sampled with probability ``0.02 +
  0.3 expit(2 x)`` (high-risk rows over-represented, the design informative),
  weighted by the inverse; the truths are the population's (quadrature).
  Wald intervals (the sandwich) of O/E, CITL, slope, intercept and Brier, and
  the same calls without the weights (biased: the sample is not the population).

1,000 data sets per cell (500 for the weights), all data sets of a cell in one grouped call.

Run::

    python benchmarks/calibration_band_weights.py --out benchmarks/calibration_band_weights_results.md
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

os.environ.setdefault("AUCPR_STATS_THREADS", "1")

sys.path.insert(0, str(Path(__file__).parent))

from _calibration_sim import coverage_text, data_sets, expit, finish, model  # noqa: E402

from aucpr_stats import calibration  # noqa: E402

HERE = Path(__file__).parent


def band_cell(rng, name: str, prevalence: float, events: int, reps: int) -> dict:
    a0, c, d = model(name, prevalence)
    frame = data_sets(rng, a0, c, d, int(round(events / prevalence)), reps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = calibration(frame, "y", "p", by="rep", statistic="ici").curve().to_polars()
    risk = curve["risk"].to_numpy().reshape(reps, -1)
    truth = expit(a0 + 1.2 * (np.log(risk / (1 - risk)) - c) / d)
    lower, upper = (curve[k].to_numpy().reshape(reps, -1) for k in ("lower", "upper"))
    s_lower, s_upper = (curve[k].to_numpy().reshape(reps, -1) for k in ("lower_simultaneous", "upper_simultaneous"))
    inside = (lower <= truth) & (truth <= upper)
    out = {}
    for q in (0.1, 0.5, 0.9):  # the grid point nearest each quantile of the population's predicted risk
        target = expit(c + d * float(np.quantile(rng.standard_normal(200_000), q)))
        column = np.argmin(np.abs(risk - target), axis=1)
        out[f"p{int(q * 100)}"] = float(np.mean(inside[np.arange(reps), column]))
    out["simultaneous"] = float(np.mean(np.all((s_lower <= truth) & (truth <= s_upper), axis=1)))
    out["pointwise_everywhere"] = float(np.mean(np.all(inside, axis=1)))
    return out


def _population_truths(a0: float, c: float, d: float) -> dict:
    from scipy import optimize

    nodes, weights = np.polynomial.hermite_e.hermegauss(200)
    weights = weights / weights.sum()
    risk, pred = expit(a0 + 1.2 * nodes), expit(c + d * nodes)
    citl = optimize.brentq(lambda a: np.sum(weights * (risk - expit(a + c + d * nodes))), -20, 20, xtol=1e-14)
    return {"oe_ratio": np.sum(weights * risk) / np.sum(weights * pred), "citl": citl, "slope": 1.2 / d,
            "intercept": a0 - 1.2 * c / d,
            "brier": np.sum(weights * (risk * (1 - pred) ** 2 + (1 - risk) * pred ** 2))}


def weights_cell(rng, reps: int, population: int) -> list[dict]:
    a0, c, d = model("overfitted", 0.1)
    truth = _population_truths(a0, c, d)
    x = rng.standard_normal(reps * population)
    y = (rng.random(x.size) < expit(a0 + 1.2 * x)).astype(np.int8)
    chance = 0.02 + 0.3 * expit(2 * x)
    kept = rng.random(x.size) < chance
    frame = pl.DataFrame({"rep": np.repeat(np.arange(reps), population)[kept], "y": y[kept],
                          "p": expit(c + d * x[kept]), "w": 1 / chance[kept]})
    names = list(truth)
    rows = []
    for label, options in (("weights=w (sandwich)", {"weights": "w"}), ("weights ignored", {})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ci = calibration(frame, "y", "p", by="rep", statistic=names, **options).conf_int_polars(method="wald")
        for name in names:
            part = ci.filter(pl.col("estimator") == name)
            lo, hi, est = (part[k].to_numpy() for k in ("lower", "upper", "estimate"))
            ok = np.isfinite(lo) & np.isfinite(hi)
            rows.append({"design": label, "statistic": name, "truth": truth[name],
                         "mean": float(np.nanmean(est)), "coverage": float(np.mean((lo[ok] <= truth[name])
                                                                                   & (truth[name] <= hi[ok]))),
                         "sets": int(ok.sum()), "rows": frame.height / reps,
                         "events": float(frame["y"].sum()) / reps})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--weight-reps", type=int, default=500)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=HERE / "calibration_band_weights_results.md")
    args = parser.parse_args(argv)
    reps, weight_reps = (50, 50) if args.quick else (args.reps, args.weight_reps)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    lines = ["# Calibration: coverage of the curve's bands, and of the Wald intervals under survey weights", "",
             f"Command: `python benchmarks/calibration_band_weights.py{' --quick' if args.quick else ''}`; "
             f"commit {commit}; one core. Coverage in % (Monte Carlo SE), bold below 93%.", "",
             f"## Bands of the calibration curve ({reps} data sets per cell, 95%, 4 knots)", "",
             "Pointwise: at the grid point nearest the 10th, 50th and 90th percentile of the population's "
             "predicted risk. Simultaneous: the whole curve inside the band at all 101 grid points (the "
             "pointwise band's share of whole curves is given for comparison).", "",
             "| model | prevalence | events | pointwise p10 | pointwise p50 | pointwise p90 | simultaneous | "
             "pointwise band, whole curve |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in ("calibrated", "overfitted", "underfitted"):
        for prevalence in (0.5, 0.1):
            for events in (50, 200, 1000):
                k = reps if events < 1000 or prevalence > 0.3 else max(reps // 4, 50)
                cell = band_cell(rng, name, prevalence, events, k)
                lines.append(f"| {name} | {prevalence} | {events} | {coverage_text(cell['p10'], k)} | {coverage_text(cell['p50'], k)} | "
                             f"{coverage_text(cell['p90'], k)} | {coverage_text(cell['simultaneous'], k)} | "
                             f"{100 * cell['pointwise_everywhere']:.1f} |")
                print(lines[-1], flush=True)
    rows = weights_cell(rng, weight_reps, 10_000)
    lines += ["", f"## Survey weights: an informative design ({weight_reps} data sets, population 10,000 per data set, "
              f"about {rows[0]['rows']:.0f} rows and {rows[0]['events']:.0f} events sampled)", "",
              "| design | statistic | truth (population) | mean estimate | Wald coverage |",
              "|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['design']} | {r['statistic']} | {r['truth']:.4f} | {r['mean']:.4f} | "
                     f"{coverage_text(r['coverage'], r['sets'])} |")
    finish(lines, started, args.out)


if __name__ == "__main__":
    main()
