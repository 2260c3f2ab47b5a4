"""Coverage of the PR-curve bands on an ordinal score, under both ``ties=`` conventions.

A 5-level score (binormal, mu = 1, cut at the quintiles of the 50:50 mixture of
the classes: :class:`aucpr_stats.simulate.scenarios.Discretized`), n = 1000 at
prevalence 0.1, ``--n-sims`` data sets (default 300), 300 replicates per band,
41 grid recalls in [0.05, 0.95]. A band covers when the true curve (the
random-order path across levels) lies inside it at every grid recall.
Prints coverage with its Monte Carlo SE and the mean width. About 3 minutes.

Run: ``python benchmarks/band_coverage_ordinal.py``
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from aucpr_stats import pr_curve
from aucpr_stats.simulate import SCENARIOS
from aucpr_stats.simulate.scenarios import Discretized


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-sims", type=int, default=300)
    args = parser.parse_args()
    scenario = Discretized(SCENARIOS["binormal"], 5)
    warnings.simplefilter("ignore")
    for ties in ("interpolate", "published"):
        for method in ("bootstrap", "smoothed_bootstrap"):
            rng = np.random.default_rng(3)
            covered, widths = 0, []
            for k in range(args.n_sims):
                df = scenario.sample(1000, 0.1, seed=int(rng.integers(1 << 30)))
                band = pr_curve(df, "outcome", "score", ties=ties).band(method=method, n_boot=300, seed=k,
                                                                        grid=41).to_polars()
                truth = scenario.precision_at_recall(band["recall"].to_numpy(), 0.1)
                lower, upper = band["lower"].to_numpy(), band["upper"].to_numpy()
                covered += bool(np.all((lower <= truth + 1e-12) & (truth <= upper + 1e-12)))
                widths.append(float(np.mean(upper - lower)))
            p = covered / args.n_sims
            print(f"{ties:11s} {method:18s} coverage {p:.3f} +- {np.sqrt(p * (1 - p) / args.n_sims):.3f}  "
                  f"mean width {np.mean(widths):.3f}", flush=True)


if __name__ == "__main__":
    main()
