"""Size of the heterogeneity and interaction tests (Cochran's Q) under the null, by simulation.

Under the null the area is the same in k independent subgroups: every group
draws binormal scores (positives N(1, 1), negatives N(0, 1); AUROC 0.76) with
the same number of positives and the same prevalence. For each cell of
k in {3, 5}, positives per group in {50, 200} and prevalence in {0.1, 0.3},
the share of data sets whose p-value is below 0.05, with its Monte Carlo
standard error sqrt(p (1 - p) / n). Arms:

* ``auroc_delong``: ``auroc(...).heterogeneity()`` (DeLong variances, natural scale);
* ``aucpr_logit``: ``aucpr(...).heterogeneity()`` (the logit interval's binomial
  variance on the logit scale; the default estimator);
* ``aucpr_bootstrap``: ``aucpr(...).heterogeneity("bootstrap")`` (bootstrap
  variance, 200 replicates, logit scale), on 400 data sets per cell;
* ``interaction_auroc_delong``: ``compare(..., by=).interaction()``: two
  correlated scores (a = x + 0.5 e1, b = x + e2 with x binormal as above, so
  the two AUROCs differ, by the same amount in every group), DeLong's paired
  variance of the difference;
* ``interaction_aucpr_bootstrap``: the same with AUCPR and the paired
  bootstrap (200 replicates), on 200 data sets per cell.

All data sets of a cell go through one call (``by=["sim", "group"]`` and
``across="group"``: one test per simulated data set); the closed-form arms
use 2,000 data sets per cell. The default run takes about 10 minutes on one
core; ``--quick`` (200 and 40 data sets) about 1.5 minutes.
Results: ``heterogeneity_size_results.json`` and ``.md`` next to this file.

Run: ``python benchmarks/heterogeneity_size.py [--quick]``; ``--n-boot 1000 --n-pos 50
--arms aucpr_bootstrap,interaction_aucpr_bootstrap --suffix _nboot1000`` repeats the
bootstrap arms with the library's default number of replicates.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import aucpr, auroc, compare

HERE = Path(__file__).resolve().parent
ALPHA = 0.05
KS = (3, 5)
N_POS = (50, 200)
PREVALENCES = (0.1, 0.3)
SHIFT = 1.0  # binormal separation of the positives


def simulate(rng: np.random.Generator, n_sims: int, k: int, n_pos: int, prevalence: float) -> pl.DataFrame:
    """``n_sims`` data sets of ``k`` groups with the same binormal law: columns sim, group, y, a, b."""
    n_neg = int(round(n_pos * (1 - prevalence) / prevalence))
    n = n_pos + n_neg
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    size = n_sims * k * n
    y_all = np.tile(y, n_sims * k)
    x = rng.normal(size=size) + SHIFT * y_all
    return pl.DataFrame({
        "sim": np.repeat(np.arange(n_sims), k * n),
        "group": np.tile(np.repeat(np.arange(k), n), n_sims),
        "y": y_all,
        "a": x + 0.5 * rng.normal(size=size),
        "b": x + 1.0 * rng.normal(size=size),
    })


def rejection(p: np.ndarray) -> dict:
    """Share of p-values below ALPHA with its Monte Carlo SE (NaN p-values counted apart)."""
    ok = np.isfinite(p)
    rate = float(np.mean(p[ok] < ALPHA)) if ok.any() else float("nan")
    return {"size": rate, "mc_se": float(np.sqrt(rate * (1 - rate) / max(ok.sum(), 1))), "n_tests": int(ok.sum()),
            "n_undefined": int((~ok).sum())}


def run_arm(arm: str, df: pl.DataFrame, n_boot: int = 200) -> np.ndarray:
    by = ["sim", "group"]
    if arm == "auroc_delong":
        test = auroc(df, "y", "a", by=by).heterogeneity(across="group")
    elif arm == "aucpr_logit":
        test = aucpr(df, "y", "a", by=by).heterogeneity(across="group")
    elif arm == "aucpr_bootstrap":
        test = aucpr(df, "y", "a", by=by).heterogeneity("bootstrap", across="group", n_boot=n_boot, seed=1,
                                                        progress=False)
    elif arm == "interaction_auroc_delong":
        test = compare(df, "y", ["a", "b"], by=by).interaction(across="group")
    elif arm == "interaction_aucpr_bootstrap":
        test = compare(df, "y", ["a", "b"], by=by, metric="aucpr", n_boot=n_boot, seed=1,
                       progress=False).interaction(across="group")
    else:  # pragma: no cover
        raise ValueError(arm)
    return test.to_polars()["p_value"].to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run (about a minute)")
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates (default 200)")
    parser.add_argument("--n-pos", default=",".join(map(str, N_POS)), help="positives per group, comma-separated")
    parser.add_argument("--arms", default=None, help="comma-separated arms (default all)")
    parser.add_argument("--suffix", default="", help="appended to the results' file names")
    args = parser.parse_args()
    n_closed, n_boot_sims, n_paired_sims = (200, 40, 40) if args.quick else (2000, 400, 200)
    arms = {"auroc_delong": n_closed, "aucpr_logit": n_closed, "interaction_auroc_delong": n_closed,
            "aucpr_bootstrap": n_boot_sims, "interaction_aucpr_bootstrap": n_paired_sims}
    if args.arms:
        arms = {arm: arms[arm] for arm in args.arms.split(",")}
    sizes = tuple(int(x) for x in args.n_pos.split(","))
    rows = []
    started = time.time()
    warnings.simplefilter("ignore")
    for k in KS:
        for n_pos in sizes:
            for prevalence in PREVALENCES:
                for arm, n_sims in arms.items():
                    rng = np.random.default_rng([k, n_pos, int(prevalence * 100), len(arm)])
                    p = []
                    block = max(1, min(n_sims, 4_000_000 // (k * int(n_pos / prevalence))))
                    t0 = time.time()
                    for start in range(0, n_sims, block):
                        df = simulate(rng, min(block, n_sims - start), k, n_pos, prevalence)
                        p.append(run_arm(arm, df, args.n_boot))
                    row = {"arm": arm, "k": k, "n_pos": n_pos, "prevalence": prevalence, "n_sims": n_sims,
                           "n_boot": args.n_boot if "bootstrap" in arm else None,
                           **rejection(np.concatenate(p)), "seconds": round(time.time() - t0, 1)}
                    rows.append(row)
                    print(f"{arm:28s} k={k} n_pos={n_pos:3d} prev={prevalence}: size {100 * row['size']:.1f} "
                          f"+- {100 * row['mc_se']:.1f} % ({row['n_tests']} tests, {row['seconds']} s)", flush=True)
    suffix = ("_quick" if args.quick else "") + args.suffix
    out = {"alpha": ALPHA, "shift": SHIFT, "quick": args.quick, "seconds": round(time.time() - started, 1),
           "rows": rows}
    (HERE / f"heterogeneity_size_results{suffix}.json").write_text(json.dumps(out, indent=1))
    (HERE / f"heterogeneity_size_results{suffix}.md").write_text(render(rows))
    print(f"total {out['seconds']} s")


def render(rows: list[dict]) -> str:
    """The Markdown table of the results, one row per arm and cell."""
    lines = ["| arm | replicates | k | positives per group | prevalence | data sets | size (%) | MC SE (%) | "
             "within 1.5 points of 5% |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        off = abs(r["size"] - ALPHA)
        # "within MC error": outside 1.5 points, but not by more than two Monte Carlo SEs
        verdict = "yes" if off <= 0.015 else ("within MC error" if off <= 0.015 + 2 * r["mc_se"] else "**no**")
        lines.append(f"| {r['arm']} | {r.get('n_boot') or ''} | {r['k']} | {r['n_pos']} | {r['prevalence']} | "
                     f"{r['n_tests']} | {100 * r['size']:.1f} | {100 * r['mc_se']:.1f} | {verdict} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
