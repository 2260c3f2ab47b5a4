"""Coverage of the ROC band, the pointwise intervals (ci.se / ci.sp) and the partial-area bootstrap intervals.

Scenario: binormal scores, negatives N(0, 1) and positives N(mu, 1), so the
true ROC curve is ``TPR(f) = Phi(mu + Phi^-1(f))``, the sensitivity at
specificity ``q`` is ``Phi(mu + Phi^-1(1 - q))`` and the specificity at
sensitivity ``e`` is ``Phi(mu - Phi^-1(1 - e))``... written below from the
class distributions. Class sizes are fixed (``n_pos`` positives, ``n_neg``
negatives), the sampling model of the stratified bootstrap. Scores are
continuous (no ties).

For each setting, ``--sims`` data sets are the groups of one frame (one
``rep`` key each), so the library computes every band and interval in one
call, each group from its own random stream:

* ``band``: ``roc_curve(...).band(level=0.95)`` on its default grid (99
  false positive rates in [0.01, 0.99]); it covers when the true curve lies
  inside it at every grid point. ``band@[0,1]``: the same on 101 rates in
  [0, 1], to show what the point at 0 costs.
* ``se@sp``/``sp@se``: ``.intervals(specificity=[0.8, 0.9, 0.95])`` and
  ``.intervals(sensitivity=[0.8, 0.9, 0.95])``; coverage of each point.
* ``pauc_sp``: ``auroc(..., specificity=(0.8, 1)).conf_int("bootstrap")``
  (and ``"delong"``, the clipped placement values);
  ``pauc_sp_std`` with McClish's standardisation; ``pauc_se``:
  ``sensitivity=(0.8, 1)``; ``paucpr``: ``aucpr(..., recall=(0.5, 1))``
  (``interpolated_median``) at prevalence ``n_pos / (n_pos + n_neg)``. True
  values by numerical integration of the true curves.

Monte Carlo standard error of a coverage ``c`` from ``R`` data sets:
``sqrt(c (1 - c) / R)``.

Usage::

    python benchmarks/roc_band_coverage.py                   # about 2 minutes on 2 cores
    python benchmarks/roc_band_coverage.py --sims 1000 --n-boot 1000

Writes ``benchmarks/roc_band_coverage_results.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time
import warnings

import numpy as np
import polars as pl
from scipy import integrate, stats

from aucpr_stats import aucpr, auroc, roc_curve

HERE = pathlib.Path(__file__).parent
AT = [0.8, 0.9, 0.95]


def true_curves(mu: float, prevalence: float) -> dict:
    """True values under negatives N(0, 1), positives N(mu, 1)."""
    norm = stats.norm

    def tpr(f):  # threshold t with P(neg > t) = f; TPR = P(pos > t)
        return norm.sf(norm.isf(f) - mu)

    def spec_at_sens(e):  # threshold with P(pos > t) = e; specificity = P(neg <= t)
        return norm.cdf(mu + norm.isf(e))

    def precision_at_recall(r):
        f = norm.sf(mu + norm.isf(r))
        return prevalence * r / (prevalence * r + (1 - prevalence) * f)

    pauc_sp = integrate.quad(tpr, 0.0, 0.2)[0]  # specificity 0.8-1 = FPR 0-0.2
    pauc_se = integrate.quad(spec_at_sens, 0.8, 1.0)[0]
    low, high = 0.2 * (2 - 1.8) / 2, 0.2
    return {
        "tpr": tpr,
        "se_at_sp": np.array([tpr(1 - q) for q in AT]),
        "sp_at_se": np.array([spec_at_sens(e) for e in AT]),
        "pauc_sp": pauc_sp,
        "pauc_sp_std": (1 + (pauc_sp - low) / (high - low)) / 2,
        "pauc_se": pauc_se,
        "paucpr": integrate.quad(precision_at_recall, 0.5, 1.0, limit=200)[0],
    }


def simulate(rng: np.random.Generator, sims: int, n_pos: int, n_neg: int, mu: float) -> pl.DataFrame:
    y = np.tile(np.r_[np.ones(n_pos, dtype=np.int8), np.zeros(n_neg, dtype=np.int8)], sims)
    s = rng.normal(size=sims * (n_pos + n_neg)) + mu * y
    return pl.DataFrame({"rep": np.repeat(np.arange(sims), n_pos + n_neg), "y": y, "s": s})


def covered(lower, upper, truth) -> np.ndarray:
    return (np.asarray(lower) <= truth) & (truth <= np.asarray(upper))


def summary(hits: np.ndarray) -> dict:
    c = float(np.mean(hits))
    return {"coverage": c, "mc_se": math.sqrt(c * (1 - c) / hits.size), "sims": int(hits.size)}


def run_setting(n_pos: int, n_neg: int, mu: float, sims: int, n_boot: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, n_pos, n_neg])
    df = simulate(rng, sims, n_pos, n_neg, mu)
    truth = true_curves(mu, n_pos / (n_pos + n_neg))
    out: dict = {}
    curve = roc_curve(df, "y", "s", by="rep")
    for name, grid in (("band", np.linspace(0.01, 0.99, 99)), ("band@[0,1]", np.linspace(0, 1, 101))):
        band = curve.band(n_boot=n_boot, grid=grid, seed=seed)
        hits = np.all(covered(band.lower, band.upper, truth["tpr"](grid)[None, :]), axis=1)
        out[name] = summary(hits) | {"mean_half_width": float(np.nanmean(band.half_width))}
    for name, key, kwargs in (("se@sp", "se_at_sp", {"specificity": AT}), ("sp@se", "sp_at_se", {"sensitivity": AT})):
        ci = curve.intervals(n_boot=n_boot, seed=seed, **kwargs)
        hits = covered(ci.lower, ci.upper, truth[key][None, :])
        out[name] = {str(q): summary(hits[:, k]) for k, q in enumerate(AT)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, result in (
            ("pauc_sp", auroc(df, "y", "s", by="rep", specificity=(0.8, 1))),
            ("pauc_sp_std", auroc(df, "y", "s", by="rep", specificity=(0.8, 1), standardized=True)),
            ("pauc_se", auroc(df, "y", "s", by="rep", sensitivity=(0.8, 1))),
            ("paucpr", aucpr(df, "y", "s", by="rep", recall=(0.5, 1))),
        ):
            methods = ["bootstrap"] if result.metric == "aucpr" else ["bootstrap", "delong"]
            for method in methods:
                ci = result.conf_int(method, n_boot=n_boot, seed=seed) if method == "bootstrap" else \
                    result.conf_int(method)
                hits = covered(ci["lower"].to_numpy(), ci["upper"].to_numpy(), truth[name])
                est = ci["estimate"].to_numpy()
                key = name if method == "bootstrap" else f"{name} delong"
                out[key] = summary(hits) | {"truth": float(truth[name]), "mean_estimate": float(np.nanmean(est)),
                                            "estimator": ci["estimator"][0], "method": method}
    return out


def to_markdown(results: dict) -> str:
    lines = [
        "# ROC bands, pointwise intervals and partial-area intervals: coverage",
        "",
        (f"Binormal scores (negatives N(0,1), positives N({results['mu']},1)), 95% level, "
         f"{results['sims']} data sets per setting, {results['n_boot']} bootstrap replicates, seed {results['seed']}. "
         "Coverage ± Monte Carlo standard error. Written by `benchmarks/roc_band_coverage.py`."),
        "",
        "| n_pos / n_neg | what | coverage |",
        "|---|---|---|",
    ]
    for setting, out in results["settings"].items():
        for name, value in out.items():
            if "coverage" in value:
                extra = ""
                if "mean_half_width" in value:
                    extra = f" (mean half-width {value['mean_half_width']:.3f})"
                if "truth" in value:
                    extra = f" (true {value['truth']:.4f}, mean estimate {value['mean_estimate']:.4f})"
                lines.append(f"| {setting} | {name}{extra} | {value['coverage']:.3f} ± {value['mc_se']:.3f} |")
            else:
                for q, v in value.items():
                    lines.append(f"| {setting} | {name} at {q} | {v['coverage']:.3f} ± {v['mc_se']:.3f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=400)
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--mu", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--settings", default="50x150,200x600", help="n_pos x n_neg, comma separated")
    args = parser.parse_args()
    start = time.time()
    results = {"mu": args.mu, "sims": args.sims, "n_boot": args.n_boot, "seed": args.seed, "settings": {}}
    for setting in args.settings.split(","):
        n_pos, n_neg = (int(x) for x in setting.split("x"))
        results["settings"][setting] = run_setting(n_pos, n_neg, args.mu, args.sims, args.n_boot, args.seed)
        print(setting, f"{time.time() - start:.0f} s", flush=True)
    results["seconds"] = round(time.time() - start, 1)
    (HERE / "roc_band_coverage_results.json").write_text(json.dumps(results, indent=1))
    (HERE / "roc_band_coverage_results.md").write_text(to_markdown(results))
    print(to_markdown(results))


if __name__ == "__main__":
    main()
