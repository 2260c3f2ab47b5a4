"""Coverage of the bootstrap percentile interval of a smoothed ROC area (``smooth_roc(...).conf_int``), next to
the DeLong interval of the empirical area (``auroc(...).conf_int(method="delong")``).

Models (negatives first, positives second; the true AUC A is P(positive score > negative score)):

* ``binormal``: N(0, 1) and N(mu, 1), A = Phi(mu / sqrt(2)), so mu = sqrt(2) Phi^-1(A).
* ``binormal_sd2``: N(0, 1) and N(mu, 2^2), A = Phi(mu / sqrt(1 + 4)), so mu = sqrt(5) Phi^-1(A).
* ``lognormal``: exp N(0, 1) and exp N(mu, 1) (skewed scores, binormal after a log). The AUC does not change
  under a monotone transformation, so A = Phi(mu / sqrt(2)) as in ``binormal``.

The true AUC is 0.75 or 0.9, with 30/60, 100/100 and 300/300 positives/negatives. Every data set is smoothed by
the three methods of ``smooth_roc`` with their default arguments (``"binormal"``: the probit regression line of
the ROC points; ``"density"``: Gaussian kernel densities, bandwidth ``"nrd0"``; ``"fitdistr"``: normal
densities fitted to each class) and the 95% stratified percentile interval of ``--n-boot`` replicates is
checked against the true AUC. The empirical area (Mann-Whitney) with its DeLong interval is the contrast.
Bias is the mean estimate minus the true AUC (its Monte Carlo SE is sd / sqrt(reps)); the Monte Carlo SE of a
coverage p is sqrt(p (1 - p) / reps). A data set a method cannot smooth, or whose interval is NaN, counts as a
miss and is listed under ``failed``.

What each smoothed area converges to is not always the true AUC: the density method estimates the area
between the two kernel-smoothed densities (their variances inflated by the bandwidth squared, which pulls
the area towards 0.5 until the bandwidth goes to 0), and ``"fitdistr"`` with its default normal families is
misspecified on the lognormal model (the fitted normals are read, as pROC does, on the grid between the
smallest and largest score, so its target depends on the sample's range and has no closed form here). The
binormal method and the empirical area are invariant to a monotone transformation of the scores.

Each cell: ``--reps`` data sets (300 by default) from the stream ``[seed, cell]``; the same data set goes to
every method. ``--jobs`` runs cells in parallel processes.

Usage::

    python benchmarks/smooth_roc_coverage.py --reps 300 --n-boot 500 --jobs 2 \\
        --out benchmarks/smooth_roc_coverage_results.md
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import auroc, smooth_roc
from aucpr_stats.distributions import normal_cdf, normal_quantile

MODELS = ("binormal", "binormal_sd2", "lognormal")
METHODS = ("binormal", "density", "fitdistr")
SIZES = ((30, 60), (100, 100), (300, 300))
AUCS = (0.75, 0.9)
LEVEL = 0.95


def _location(model: str, auc: float) -> float:
    """The positives' mean (of the score, or of its log) that gives the true AUC ``auc``."""
    sd_pos = 2.0 if model == "binormal_sd2" else 1.0
    return math.sqrt(1.0 + sd_pos**2) * float(normal_quantile(auc))


def _true_auc(model: str, mu: float) -> float:
    """P(X_pos > X_neg) = Phi(mu / sqrt(sd_neg^2 + sd_pos^2)) on the normal (log) scale."""
    sd_pos = 2.0 if model == "binormal_sd2" else 1.0
    return float(normal_cdf(mu / math.sqrt(1.0 + sd_pos**2)))


def _draw(model: str, mu: float, n_pos: int, n_neg: int, gen: np.random.Generator) -> pl.DataFrame:
    y = np.repeat([1, 0], [n_pos, n_neg])
    sd = np.where(y == 1, 2.0 if model == "binormal_sd2" else 1.0, 1.0)
    latent = gen.normal(size=n_pos + n_neg) * sd + mu * y
    score = np.exp(latent) if model == "lognormal" else latent
    return pl.DataFrame({"y": y, "s": score})


def _cell(model: str, auc: float, n_pos: int, n_neg: int, reps: int, n_boot: int, seed: int, index: int) -> dict:
    gen = np.random.default_rng([seed, index])
    mu = _location(model, auc)
    truth = _true_auc(model, mu)
    names = (*METHODS, "empirical")
    estimate = {m: np.full(reps, np.nan) for m in names}
    lower = {m: np.full(reps, np.nan) for m in names}
    upper = {m: np.full(reps, np.nan) for m in names}
    failed_boot = dict.fromkeys(METHODS, 0)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-sample notes of DeLong, unsmoothable replicates: counted below
        for r in range(reps):
            frame = _draw(model, mu, n_pos, n_neg, gen)
            boot_seed = int(gen.integers(2**31))
            for method in METHODS:
                row = smooth_roc(frame, "y", "s", method=method).conf_int(LEVEL, n_boot=n_boot,
                                                                        rng=boot_seed).row(0, named=True)
                estimate[method][r], lower[method][r], upper[method][r] = row["estimate"], row["lower"], row["upper"]
                failed_boot[method] += int(row["n_failed"])
            row = auroc(frame, "y", "s").conf_int(method="delong", level=LEVEL).row(0, named=True)
            estimate["empirical"][r], lower["empirical"][r], upper["empirical"][r] = (row["estimate"], row["lower"],
                                                                                       row["upper"])
    out = {"model": model, "auc": auc, "truth": truth, "n_pos": n_pos, "n_neg": n_neg, "reps": reps,
           "seconds": time.perf_counter() - start, "methods": {}}
    for m in names:
        est, lo, hi = estimate[m], lower[m], upper[m]
        ok = np.isfinite(est) & np.isfinite(lo) & np.isfinite(hi)
        good = est[np.isfinite(est)]
        out["methods"][m] = {
            "bias": float(good.mean() - truth) if good.size else math.nan,
            "bias_se": float(good.std(ddof=1) / math.sqrt(good.size)) if good.size > 1 else math.nan,
            "coverage": float(np.sum(ok & (lo <= truth) & (truth <= hi)) / reps),
            "width": float(np.mean(hi[ok] - lo[ok])) if ok.any() else math.nan,
            "failed": int(reps - ok.sum()),
            "failed_boot": failed_boot.get(m, 0),
        }
    return out


def _report(rows: list[dict], args: argparse.Namespace, elapsed: float, planned: int) -> str:
    reps = args.reps
    lines = ["# Coverage of the bootstrap percentile interval of smoothed ROC areas (95%)", "",
             (f"{reps} data sets per cell, {args.n_boot} stratified replicates each (`smooth_roc(...).conf_int`), "
             f"seed {args.seed}; contrast: the empirical area with its DeLong interval "
             "(`auroc(...).conf_int(method=\"delong\")`). Models: negatives N(0, 1) and positives N(mu, 1) "
             "(`binormal`), N(mu, 2^2) (`binormal_sd2`), or the exponentials of the `binormal` scores "
             "(`lognormal`); mu set so that the true AUC is 0.75 or 0.9. Bias: mean estimate minus the true AUC, "
             "its Monte Carlo SE in brackets. Monte Carlo SE of a coverage near 0.95: "
             f"{math.sqrt(0.95 * 0.05 / reps):.3f}. `failed`: data sets without a finite interval (counted as "
             "misses); `boot fail`: replicates left out over all data sets. "
             f"{len(rows)} of {planned} cells; run time {elapsed:.0f} s with {args.jobs} process(es) "
             "(`python benchmarks/smooth_roc_coverage.py`)."), ""]
    for model in MODELS:
        block = [r for r in rows if r["model"] == model]
        if not block:
            continue
        lines += [f"## {model}", ""]
        if model == "lognormal":
            lines += [("`fitdistr` (default normal families) is misspecified here; its bias and coverage are "
                       "against the true AUC, as for every method."), ""]
        lines += ["| AUC | n_pos/n_neg | method | bias (MC SE) | coverage | mean width | failed | boot fail |",
                  "|---:|---:|---|---:|---:|---:|---:|---:|"]
        for r in block:
            for m, v in r["methods"].items():
                name = "empirical (DeLong)" if m == "empirical" else m
                lines.append(f"| {r['auc']} | {r['n_pos']}/{r['n_neg']} | {name} | {v['bias']:+.4f} "
                             f"({v['bias_se']:.4f}) | {v['coverage']:.3f} | {v['width']:.3f} | {v['failed']} | "
                             f"{v['failed_boot'] if m != 'empirical' else '-'} |")
        lines.append("")
    lines += ["Seconds per cell: " + ", ".join(f"{r['model']} {r['auc']} {r['n_pos']}/{r['n_neg']}: "
                                               f"{r['seconds']:.0f}" for r in rows), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2046)
    parser.add_argument("--sizes", default="30x60,100x100,300x300", help="n_pos x n_neg, comma separated")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    sizes = [tuple(int(k) for k in s.split("x")) for s in args.sizes.split(",")]
    cells = [(model, auc, n_pos, n_neg) for model in MODELS for auc in AUCS for n_pos, n_neg in SIZES
             if (n_pos, n_neg) in sizes]
    order = {cell: i for i, cell in enumerate(cells)}
    start = time.perf_counter()
    rows: list[dict] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        # the largest samples last, so that a run stopped early has the small cells
        futures = [pool.submit(_cell, *cell, args.reps, args.n_boot, args.seed, i)
                   for i, cell in sorted(enumerate(cells), key=lambda item: item[1][2] + item[1][3])]
        for future in as_completed(futures):
            rows.append(future.result())
            rows.sort(key=lambda r: order[(r["model"], r["auc"], r["n_pos"], r["n_neg"])])
            text = _report(rows, args, time.perf_counter() - start, len(cells))
            if args.out is not None:
                args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
