"""Size of the paired AUCPR bootstrap test below the number of positives where it is withheld.

The library withholds the paired AUCPR bootstrap test (NaN p-value, a note) below
``COMPARISON_METHODS["aucpr"]["bootstrap"].min_positives`` positives; this script lifts
that floor and measures the test there: two exchangeable scores (x + sigma e1,
x + sigma e2, x binormal, within-class correlation about 0.5, so equal true
AUCPR), the default estimator, 200 replicates, 1,000 data sets per cell, the
share of p-values below 0.05 with its Monte Carlo SE. About 1 minute.

Run: ``python benchmarks/paired_test_size.py``
"""

from __future__ import annotations

import warnings

import attrs
import numpy as np
import polars as pl

from aucpr_stats import compare
from aucpr_stats.compare import COMPARISON_METHODS
from aucpr_stats.simulate import SCENARIOS

# measure the test where it is withheld: its record without a minimum
COMPARISON_METHODS["aucpr"]["bootstrap"] = attrs.evolve(COMPARISON_METHODS["aucpr"]["bootstrap"], min_positives=0)
warnings.simplefilter("ignore")
sc = SCENARIOS["binormal"]
n_sims = 1000
for prev in (0.1, 0.01):
    for n_pos in (2, 3, 5, 10, 20):
        n_neg = int(round(n_pos * (1 - prev) / prev))
        rng = np.random.default_rng([n_pos, int(prev * 100)])
        pos, neg = sc.sample_arrays(n_sims, n_pos, n_neg, rng)
        x = np.concatenate([pos, neg], axis=1)
        sigma = neg.std()
        a = x + sigma * rng.normal(size=x.shape); b = x + sigma * rng.normal(size=x.shape)
        y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
        df = pl.DataFrame({"sim": np.repeat(np.arange(n_sims), n_pos + n_neg), "y": np.tile(y, n_sims),
                           "a": a.ravel(), "b": b.ravel()})
        out = compare(df, "y", ["a", "b"], by="sim", metric="aucpr", n_boot=200, seed=1).to_frame()
        p = out["p_value"].to_numpy()
        ok = np.isfinite(p)
        size = np.mean(p[ok] < 0.05)
        print(f"prevalence {prev} n_pos {n_pos}: size {100*size:.1f} +- {100*np.sqrt(size*(1-size)/ok.sum()):.1f}% ({ok.sum()} tests)", flush=True)
