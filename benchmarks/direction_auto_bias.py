"""Upward bias of ``direction="auto"`` (pROC's rule) when the score carries no signal.

With scores independent of the outcome the true AUROC is 1/2 in either
direction. ``direction="higher"`` estimates it without bias; ``"auto"`` picks
the direction from the same data (the score points up when the median score of
the negatives is at most that of the positives) and so reads every data set in
its more favourable direction. For each size (positives = negatives = n) the
script draws ``--reps`` data sets, computes A' in both ways with
``aucpr_stats.auroc`` (every group of one call is one data set; ``"auto"`` is
checked against the library on the first data sets) and writes the means with
their Monte Carlo standard errors to ``direction_auto_bias_results.json`` and
``.md``. About 10 seconds.

    python benchmarks/direction_auto_bias.py [--reps 2000] [--seed 2026]
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import auroc

HERE = Path(__file__).parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = []
    for n in (10, 20, 50, 200):
        y = np.repeat([True, False], n)
        s = rng.normal(size=(args.reps, 2 * n))
        frame = pl.DataFrame({"y": np.tile(y, args.reps), "s": s.ravel(),
                              "g": np.repeat(np.arange(args.reps), 2 * n)})
        higher = auroc(frame, "y", "s", by="g").estimates[:, 0]
        lower_for_positives = np.median(s[:, n:], axis=1) > np.median(s[:, :n], axis=1)  # pROC's ">"
        auto = np.where(lower_for_positives, 1 - higher, higher)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in range(min(20, args.reps)):
                got = auroc(pl.DataFrame({"y": y, "s": s[r]}), "y", "s", direction="auto").estimate
                assert abs(got - auto[r]) < 1e-12, (n, r, got, auto[r])
        rows.append({"n_per_class": n, "reps": args.reps,
                     "mean_higher": float(higher.mean()), "mc_se_higher": float(higher.std(ddof=1) / np.sqrt(args.reps)),
                     "mean_auto": float(auto.mean()), "mc_se_auto": float(auto.std(ddof=1) / np.sqrt(args.reps))})
    (HERE / "direction_auto_bias_results.json").write_text(json.dumps({"seed": args.seed, "rows": rows}, indent=2))
    lines = ["| positives = negatives | mean AUROC, direction='higher' | mean AUROC, direction='auto' |",
             "|---:|---:|---:|"]
    lines += [f"| {r['n_per_class']} | {r['mean_higher']:.3f} (± {r['mc_se_higher']:.3f}) | "
              f"{r['mean_auto']:.3f} (± {r['mc_se_auto']:.3f}) |" for r in rows]
    text = (f"True AUROC 0.5 (scores independent of the outcome); {args.reps} data sets per row, seed {args.seed}; "
            "± one Monte Carlo standard error.\n\n" + "\n".join(lines) + "\n")
    (HERE / "direction_auto_bias_results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
