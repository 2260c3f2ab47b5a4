r"""Coverage of the bootstrap intervals of ICI, E50 and E90 (the flexible calibration curve's summaries).

What is measured
----------------
Per row ``x ~ N(0, 1)``, the true risk ``pi(x) = expit(a0 + 1.2 x)`` (``a0``
for the prevalence), the prediction ``p = expit(c + d x)``; the true
calibration curve ``P(y = 1 | p)`` is then logistic in ``logit p``, which the
restricted cubic spline holds exactly (its linear part), so the population
values of the summaries are those of ``|pi(x) - p(x)|`` over ``x``: ICI its
mean (Gauss-Hermite quadrature, 200 nodes), E50 and E90 its median and 90th
percentile (over 10^7 draws of ``x``). Models: ``overfitted`` (``d = 1.2 / 0.7``,
``c`` for the right mean), ``underfitted`` (``d = 1.2 / 1.3``, ``c = a0 + 0.4``)
and ``calibrated`` (``c = a0, d = 1.2``: every summary 0, at the edge of its
range, where no interval of a non-negative estimate can cover from above).

Prevalence 0.5 and 0.1; 50, 200 and 1,000 expected events; the cohort
bootstrap (``method="bootstrap"``, 200 replicates), 200 data sets per cell
(Monte Carlo SE about 1.5 points); all data sets of a cell in one grouped call.

Run::

    python benchmarks/calibration_ici_coverage.py --out benchmarks/calibration_ici_coverage_results.md
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

os.environ.setdefault("AUCPR_STATS_THREADS", "1")

from aucpr_stats import calibration  # noqa: E402

HERE = Path(__file__).parent
STATISTICS = ["ici", "e50", "e90"]


def expit(v):
    return 1 / (1 + np.exp(-v))


def _a0(prevalence: float) -> float:
    nodes, weights = np.polynomial.hermite_e.hermegauss(120)
    weights = weights / weights.sum()
    lo, hi = -20.0, 20.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.sum(weights * expit(mid + 1.2 * nodes)) < prevalence else (lo, mid)
    return 0.5 * (lo + hi)


def _model(name: str, prevalence: float) -> tuple[float, float, float]:
    a0 = _a0(prevalence)
    if name == "calibrated":
        return a0, a0, 1.2
    if name == "underfitted":
        return a0, a0 + 0.4, 1.2 / 1.3
    d = 1.2 / 0.7
    nodes, weights = np.polynomial.hermite_e.hermegauss(120)
    weights = weights / weights.sum()
    lo, hi = -20.0, 20.0
    for _ in range(100):  # c with E[p] = E[pi]
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.sum(weights * expit(mid + d * nodes)) < prevalence else (lo, mid)
    return a0, 0.5 * (lo + hi), d


def truths(a0: float, c: float, d: float, rng: np.random.Generator) -> dict:
    nodes, weights = np.polynomial.hermite_e.hermegauss(200)
    weights = weights / weights.sum()
    gap = np.abs(expit(a0 + 1.2 * nodes) - expit(c + d * nodes))
    x = rng.standard_normal(10**7)
    draws = np.abs(expit(a0 + 1.2 * x) - expit(c + d * x))
    return {"ici": float(np.sum(weights * gap)), "e50": float(np.quantile(draws, 0.5)),
            "e90": float(np.quantile(draws, 0.9))}


def cell(rng, a0, c, d, events, prevalence, reps, n_boot) -> dict:
    n = int(round(events / prevalence))
    x = rng.standard_normal(reps * n)
    y = (rng.random(x.size) < expit(a0 + 1.2 * x)).astype(np.int8)
    frame = pl.DataFrame({"rep": np.repeat(np.arange(reps), n), "y": y, "p": expit(c + d * x)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = calibration(frame, "y", "p", by="rep", statistic=STATISTICS)
        return result.conf_int_polars(method="bootstrap", n_boot=n_boot, seed=int(rng.integers(2**31)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--models", default="overfitted,underfitted,calibrated",
                        help="comma-separated: overfitted, underfitted, calibrated")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--out", type=Path, default=HERE / "calibration_ici_coverage_results.md")
    args = parser.parse_args(argv)
    reps = 30 if args.quick else args.reps
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    lines = ["# Coverage of the bootstrap intervals of ICI, E50 and E90", "",
             f"Command: `python benchmarks/calibration_ici_coverage.py --reps {args.reps} --models {args.models}"
             f"{' --quick' if args.quick else ''}`; {reps} data "
             f"sets per cell, {args.n_boot} bootstrap replicates; commit {commit}; one core. Coverage in % of the "
             "finite intervals (Monte Carlo SE); bold below 93%; the truth after the model's name.", "",
             "| model | prevalence | events | " + " | ".join(STATISTICS) + " |", "|---|---:|---:|" + "---:|" * 3]
    for name in args.models.split(","):
        for prevalence in (0.5, 0.1):
            a0, c, d = _model(name, prevalence)
            truth = truths(a0, c, d, rng)
            for events in (50, 200, 1000):
                if events == 1000 and prevalence == 0.1 and not args.quick:
                    reps_here = max(reps // 2, 20)
                else:
                    reps_here = reps
                frame = cell(rng, a0, c, d, events, prevalence, reps_here, args.n_boot)
                parts = []
                for s in STATISTICS:
                    rows = frame.filter(pl.col("estimator") == s)
                    lo, hi = rows["lower"].to_numpy(), rows["upper"].to_numpy()
                    ok = np.isfinite(lo) & np.isfinite(hi)
                    cover = float(np.mean((lo[ok] <= truth[s]) & (truth[s] <= hi[ok]))) if ok.any() else np.nan
                    se = np.sqrt(cover * (1 - cover) / max(ok.sum(), 1))
                    text = f"{100 * cover:.1f} ({100 * se:.1f})"
                    parts.append(f"**{text}**" if cover < 0.93 else text)
                label = f"{name} (ICI {truth['ici']:.4f}, E50 {truth['e50']:.4f}, E90 {truth['e90']:.4f})"
                lines.append(f"| {label} | {prevalence} | {events} | " + " | ".join(parts) + " |")
                print(lines[-1], flush=True)
    lines += ["", f"Wall time {(time.perf_counter() - started) / 60:.1f} min."]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
