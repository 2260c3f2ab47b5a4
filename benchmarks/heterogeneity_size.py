"""Size of the heterogeneity and interaction tests (Cochran's Q) under the null, by simulation.

Under the null the area is the same in k independent subgroups: every group
draws binormal scores (positives N(1, 1), negatives N(0, 1); AUROC 0.76) with
the same number of positives and the same prevalence. For each cell of
k in {3, 5}, positives per group in {50, 200} and prevalence in {0.1, 0.3},
the share of data sets whose p-value is below 0.05, with its Monte Carlo
standard error sqrt(p (1 - p) / n). Arms:

* ``auroc_delong``: ``auroc(...).heterogeneity()`` (DeLong variances, natural scale);
* ``aucpr_jackknife``: ``aucpr(...).heterogeneity()`` (the default since issue 16:
  jackknife variances of the logit, pooled per positive, F reference; the
  default estimator), on 2,000 data sets per cell at 50 positives and 1,000
  at 200;
* ``aucpr_jackknife_welch``: ``heterogeneity("jackknife", pooled=False)`` (each
  group's own jackknife variance, Welch's F), as many data sets;
* ``aucpr_logit``: ``aucpr(...).heterogeneity("logit")`` (the logit interval's binomial
  variance on the logit scale, the default before);
* ``aucpr_bootstrap``: ``aucpr(...).heterogeneity("bootstrap")`` (bootstrap
  variance, 200 replicates, logit scale), on 400 data sets per cell;
* ``interaction_auroc_delong``: ``compare(..., by=).interaction()``: two
  correlated scores (a = x + 0.5 e1, b = x + e2 with x binormal as above, so
  the two AUROCs differ, by the same amount in every group), DeLong's paired
  variance of the difference;
* ``interaction_aucpr_bootstrap``: the same with AUCPR and the paired
  bootstrap's variances (200 replicates, chi-square), on 200 data sets per cell;
* ``interaction_aucpr_unpaired_jackknife`` and ``..._bootstrap``: one score
  compared between two independent levels of each group
  (``compare(..., between=)``, 2k groups drawn, the same law in all); the
  default (the sum of the two levels' jackknife variances, pooled per
  positive, F) on as many data sets as the paired jackknife arm, and the
  bootstrap's variances (chi-square) on as many as the paired bootstrap arm;
* ``interaction_aucpr_jackknife``: the same with the default since issue 16:
  the paired jackknife of the difference, pooled per positive, F reference
  (the comparison's own bootstrap is not used: it runs with two replicates),
  on 1,000 data sets per cell at 50 positives and 500 at 200.

All data sets of a cell go through one call (``by=["sim", "group"]`` and
``across="group"``: one test per simulated data set); the closed-form arms
use 2,000 data sets per cell. The default run takes about 45 minutes on a
loaded 2-core machine, most of it the jackknife arms at 200 positives;
``--quick`` (200 and 40 data sets) about 4 minutes. ``--arms a,b --update``
reruns some arms and keeps the other rows of the results.
Results: ``heterogeneity_size_results.json`` and ``.md`` next to this file.

``--mixed`` runs the designs where groups differ under the null (results in
``heterogeneity_size_mixed_results.json`` and ``.md``; about 5 minutes): k = 3
groups of one prevalence (0.2) with 50, 100 and 200 positives (the same law),
and groups of 100 positives at prevalences 0.1, 0.2 and 0.3 whose binormal
shifts are solved so that the true AUCPR is the same (that of shift 1 at
prevalence 0.2). The AUCPR arms only (1,000 data sets each).

``--variance`` checks the variances against the simulated variance of the
estimate (3,000 single groups per cell of 50 positives, prevalence 0.1 and
0.3; ``heterogeneity_size_variance_results.json`` and ``.md``, about 8
minutes): the addendum's per-positive standard error (average precision) and
the jackknife (average precision and the default estimator), as the ratio of
their mean to the simulated variance, natural and logit scale; and the paired
jackknife of the difference of the interaction arms' two scores.

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
    n_neg = round(n_pos * (1 - prevalence) / prevalence)
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


def true_aucpr(shift: float, prevalence: float) -> float:
    """The binormal AUCPR: the integral of the precision over the recall, positives N(shift, 1), negatives N(0, 1)."""
    from scipy.integrate import quad
    from scipy.stats import norm

    def precision(t):
        tp, fp = prevalence * norm.sf(t - shift), (1 - prevalence) * norm.sf(t)
        return tp / (tp + fp)

    # d recall = density of the positives at the threshold
    return quad(lambda t: precision(t) * norm.pdf(t - shift), -12 + shift, 12 + shift, limit=200)[0]


def simulate_designs(rng: np.random.Generator, n_sims: int, designs: list) -> pl.DataFrame:
    """``n_sims`` data sets of one group per design (n_pos, prevalence, shift): columns sim, group, y, a."""
    frames = []
    for g, (n_pos, prevalence, shift) in enumerate(designs):
        n = n_pos + round(n_pos * (1 - prevalence) / prevalence)
        y = np.tile(np.r_[np.ones(n_pos, bool), np.zeros(n - n_pos, bool)], n_sims)
        frames.append(pl.DataFrame({"sim": np.repeat(np.arange(n_sims), n), "group": np.full(y.size, g),
                                    "y": y, "a": rng.normal(size=y.size) + shift * y}))
    return pl.concat(frames)


def main_mixed(quick: bool) -> None:
    """The AUCPR arms on groups that differ in size or prevalence under the null (equal true AUCPR)."""
    from scipy.optimize import brentq

    target = true_aucpr(SHIFT, 0.2)
    shifts = {p: brentq(lambda d, p=p: true_aucpr(d, p) - target, 0.0, 5.0) for p in (0.1, 0.2, 0.3)}
    designs = {"unequal positives (50, 100, 200), prevalence 0.2": [(n, 0.2, SHIFT) for n in (50, 100, 200)],
               "unequal prevalence (0.1, 0.2, 0.3), 100 positives, equal true AUCPR":
                   [(100, p, shifts[p]) for p in (0.1, 0.2, 0.3)]}
    n_sims = 100 if quick else 1000
    rows = []
    for d, (name, design) in enumerate(designs.items()):
        for arm in ("aucpr_jackknife", "aucpr_jackknife_welch", "aucpr_logit"):
            rng = np.random.default_rng([d, len(arm)])
            t0 = time.time()
            p = np.concatenate([run_arm(arm, simulate_designs(rng, 250, design))
                                for _ in range(0, n_sims, 250)]) if not quick else run_arm(
                arm, simulate_designs(rng, n_sims, design))
            row = {"design": name, "groups": [list(map(float, g)) for g in design], "arm": arm,
                   **rejection(p), "seconds": round(time.time() - t0, 1)}
            rows.append(row)
            print(f"{arm:24s} {name}: size {100 * row['size']:.1f} +- {100 * row['mc_se']:.1f} %", flush=True)
    out = {"alpha": ALPHA, "true_aucpr": target, "shifts": {str(k): v for k, v in shifts.items()}, "quick": quick,
           "rows": rows}
    suffix = "_quick" if quick else ""
    (HERE / f"heterogeneity_size_mixed_results{suffix}.json").write_text(json.dumps(out, indent=1))
    lines = ["| design | arm | data sets | size (%) | MC SE (%) |", "|---|---|---|---|---|"]
    lines += [f"| {r['design']} | {r['arm']} | {r['n_tests']} | {100 * r['size']:.1f} | {100 * r['mc_se']:.1f} |"
              for r in rows]
    (HERE / f"heterogeneity_size_mixed_results{suffix}.md").write_text("\n".join(lines) + "\n")


def main_variance(quick: bool) -> None:
    """Mean variance estimates over the simulated variance of the estimate, one group per data set."""
    from aucpr_stats.compare.jackknife import jackknife_variance
    from aucpr_stats.estimators.registry import records
    from aucpr_stats.intervals.per_positive import per_positive_se
    from aucpr_stats.resample import Streams
    from aucpr_stats.ties import TieTable

    n_sims, n_pos = (300 if quick else 3000), 50
    rows = []
    for prevalence in PREVALENCES:
        rng = np.random.default_rng([n_pos, int(prevalence * 100), 7])
        n_neg = round(n_pos * (1 - prevalence) / prevalence)
        y = np.r_[np.ones(n_pos, np.int64), np.zeros(n_neg, np.int64)]
        scores = rng.normal(size=(n_sims, y.size)) + SHIFT * y
        order = np.argsort(-scores, axis=1)  # continuous scores: one row per observation
        pos = y[order].ravel()
        ties = TieTable(-np.sort(-scores, axis=1).ravel(), pos, 1 - pos, np.arange(n_sims + 1) * y.size)
        for name in ("average_precision", "interpolated_median"):
            record = records("aucpr", [name], "interpolate")
            theta = record[0].function(ties)
            logit_theta = np.log(theta / (1 - theta))
            jack = jackknife_variance(ties, record, streams=Streams.for_segments(0, n_sims, "jackknife"))
            found = {"jackknife": (jack["natural"][:, 0], jack["logit"][:, 0])}
            if record[0].contributions is not None:
                se = per_positive_se(ties, record[0])[1]
                found["addendum (per positive)"] = (se**2, (se / (theta * (1 - theta))) ** 2)
            for source, (natural, on_logit) in found.items():
                rows.append({"estimator": name, "prevalence": prevalence, "n_pos": n_pos, "n_sims": n_sims,
                             "variance": source, "ratio_natural": float(natural.mean() / theta.var(ddof=1)),
                             "ratio_logit": float(np.nanmean(on_logit) / logit_theta.var(ddof=1))})
                print(rows[-1], flush=True)
    rows += difference_variance(n_sims, n_pos)
    suffix = "_quick" if quick else ""
    (HERE / f"heterogeneity_size_variance_results{suffix}.json").write_text(json.dumps({"rows": rows}, indent=1))
    lines = ["| estimator | prevalence | variance | mean estimate / simulated variance (natural) | (logit) |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['estimator']} | {r['prevalence']} | {r['variance']} | {r['ratio_natural']:.2f} | "
              f"{'' if r['ratio_logit'] is None else format(r['ratio_logit'], '.2f')} |" for r in rows]
    (HERE / f"heterogeneity_size_variance_results{suffix}.md").write_text("\n".join(lines) + "\n")


def difference_variance(n_sims: int, n_pos: int) -> list[dict]:
    """The paired jackknife's variance of a difference (the interaction default) against the simulated one.

    One group per data set, the two correlated scores of the interaction arms; the default estimator.
    """
    from aucpr_stats.compare.interaction import interaction

    rows = []
    for prevalence in PREVALENCES:
        df = simulate(np.random.default_rng([n_pos, int(prevalence * 100), 11]), n_sims, 1, n_pos, prevalence)
        comparison = compare(df, "y", ["a", "b"], by="sim", metric="aucpr", n_boot=2, seed=1, progress=False)
        difference = comparison.to_polars()["difference"].to_numpy()
        variance = interaction(comparison, across="sim", pooled=False).groups["variance"].to_numpy()
        rows.append({"estimator": comparison.estimators[0], "prevalence": prevalence, "n_pos": n_pos,
                     "n_sims": n_sims, "variance": "paired jackknife of the difference a - b",
                     "ratio_natural": float(np.mean(variance) / difference.var(ddof=1)), "ratio_logit": None})
        print(rows[-1], flush=True)
    return rows


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
    elif arm == "aucpr_jackknife":
        test = aucpr(df, "y", "a", by=by).heterogeneity(across="group")
        assert test.method == "jackknife"
    elif arm == "aucpr_jackknife_welch":
        test = aucpr(df, "y", "a", by=by).heterogeneity("jackknife", pooled=False, across="group")
    elif arm == "aucpr_logit":
        test = aucpr(df, "y", "a", by=by).heterogeneity("logit", across="group")
    elif arm == "aucpr_bootstrap":
        test = aucpr(df, "y", "a", by=by).heterogeneity("bootstrap", across="group", n_boot=n_boot, seed=1,
                                                        progress=False)
    elif arm == "interaction_auroc_delong":
        test = compare(df, "y", ["a", "b"], by=by, metric="auroc").interaction(across="group")
    elif arm == "interaction_aucpr_bootstrap":
        test = compare(df, "y", ["a", "b"], by=by, metric="aucpr", n_boot=n_boot, seed=1,
                       progress=False).interaction("bootstrap", across="group")
    elif arm == "interaction_aucpr_jackknife":
        # the default: the comparison's own bootstrap (two replicates) is not used, only its paired rows
        test = compare(df, "y", ["a", "b"], by=by, metric="aucpr", method="bootstrap", n_boot=2, seed=1,
                       progress=False).interaction(across="group")
        assert test.method == "jackknife"
    elif arm.startswith("interaction_aucpr_unpaired"):
        # 2k simulated groups: two independent levels (`half`) of each of k groups, one score
        df = df.with_columns(half=pl.col("group") % 2, group=pl.col("group") // 2)
        comparison = compare(df, "y", "a", between="half", by=by, metric="aucpr", n_boot=n_boot, seed=1,
                             progress=False)
        test = comparison.interaction("bootstrap" if arm.endswith("bootstrap") else None, across="group")
    else:  # pragma: no cover
        raise ValueError(arm)
    return test.to_polars()["p_value"].to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run (about a minute)")
    parser.add_argument("--n-boot", type=int, default=200, help="bootstrap replicates (default 200)")
    parser.add_argument("--n-pos", default=",".join(map(str, N_POS)), help="positives per group, comma-separated")
    parser.add_argument("--arms", default=None, help="comma-separated arms (default all)")
    parser.add_argument("--ks", default=",".join(map(str, KS)), help="numbers of groups, comma-separated")
    parser.add_argument("--suffix", default="", help="appended to the results' file names")
    parser.add_argument("--update", action="store_true",
                        help="replace the rows of the arms run in the existing results, keep the others")
    parser.add_argument("--mixed", action="store_true", help="groups that differ in size or prevalence")
    parser.add_argument("--variance", action="store_true", help="variance estimates against the simulated variance")
    parser.add_argument("--sims", type=int, default=None,
                        help="data sets per cell of every arm run (halved at 200 positives for the jackknife arms)")
    parser.add_argument("--paired-sims", type=int, default=None,
                        help="data sets per cell of the AUCPR interaction arm (default 200)")
    args = parser.parse_args()
    if args.mixed:
        warnings.simplefilter("ignore")
        return main_mixed(args.quick)
    if args.variance:
        return main_variance(args.quick)
    n_closed, n_boot_sims, n_paired_sims = (200, 40, 40) if args.quick else (2000, 400, 200)
    if args.paired_sims is not None:
        n_paired_sims = args.paired_sims
    arms = {"auroc_delong": n_closed, "aucpr_jackknife": n_closed, "aucpr_jackknife_welch": n_closed,
            "aucpr_logit": n_closed,
            "interaction_auroc_delong": n_closed, "aucpr_bootstrap": n_boot_sims,
            "interaction_aucpr_bootstrap": n_paired_sims, "interaction_aucpr_jackknife": n_closed // 2,
            "interaction_aucpr_unpaired_jackknife": n_closed // 2, "interaction_aucpr_unpaired_bootstrap": n_paired_sims}
    if args.arms:
        arms = {arm: arms[arm] for arm in args.arms.split(",")}
    if args.sims is not None:
        arms = dict.fromkeys(arms, args.sims)
    sizes = tuple(int(x) for x in args.n_pos.split(","))
    rows = []
    started = time.time()
    warnings.simplefilter("ignore")
    for k in (int(x) for x in args.ks.split(",")):
        for n_pos in sizes:
            for prevalence in PREVALENCES:
                for arm, n_sims in arms.items():
                    if "jackknife" in arm and n_pos > 50 and not args.quick:
                        n_sims //= 2  # quadratic in the rows of a group: half the data sets at 200 positives
                    rng = np.random.default_rng([k, n_pos, int(prevalence * 100), len(arm)])
                    p = []
                    k_sim = 2 * k if "unpaired" in arm else k  # two independent levels per group
                    block = max(1, min(n_sims, 4_000_000 // (k_sim * int(n_pos / prevalence))))
                    t0 = time.time()
                    for start in range(0, n_sims, block):
                        df = simulate(rng, min(block, n_sims - start), k_sim, n_pos, prevalence)
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
    path = HERE / f"heterogeneity_size_results{suffix}.json"
    if args.update and path.exists():
        old = json.loads(path.read_text())

        def cell(r):
            return r["k"], r["n_pos"], r["prevalence"]

        new = {(r["arm"], *cell(r)): r for r in rows}
        kept = [new.pop((r["arm"], *cell(r)), r) for r in old["rows"]]
        order = {c: i for i, c in enumerate(dict.fromkeys(cell(r) for r in kept))}
        # new arms go after the existing rows of their cell
        rows = sorted(kept + list(new.values()), key=lambda r: order.get(cell(r), len(order)))
        out = {**old, "rows": rows, "seconds": old.get("seconds", 0)}
    path.write_text(json.dumps(out, indent=1))
    (HERE / f"heterogeneity_size_results{suffix}.md").write_text(render(rows))
    print(f"total {out['seconds']} s")


def render(rows: list[dict]) -> str:
    """The Markdown table of the results, one row per arm and cell."""
    lines = [("| arm | replicates | k | positives per group | prevalence | data sets | size (%) | MC SE (%) | "
              "within 1.5 points of 5% |"), "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        off = abs(r["size"] - ALPHA)
        # "within MC error": outside 1.5 points, but not by more than two Monte Carlo SEs
        verdict = "yes" if off <= 0.015 else ("within MC error" if off <= 0.015 + 2 * r["mc_se"] else "**no**")
        lines.append(f"| {r['arm']} | {r.get('n_boot') or ''} | {r['k']} | {r['n_pos']} | {r['prevalence']} | "
                     f"{r['n_tests']} | {100 * r['size']:.1f} | {100 * r['mc_se']:.1f} | {verdict} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
