"""Write data/synthetic_cohort.csv: a SYNTHETIC multi-site cohort (no real patients).

Binormal scores (negatives N(0, 1), positives N(mu, 1)) for two models at four
sites with different prevalence, as in Boyd et al. (2013)'s binormal scenario.
Run from the repository root: ``python data/make_synthetic_cohort.py``.
"""

from pathlib import Path

import numpy as np
import polars as pl

SITES = {"A": (1200, 0.10), "B": (800, 0.20), "C": (500, 0.05), "D": (1500, 0.15)}


def make(seed: int = 20130923) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for site, (n, prevalence) in SITES.items():
        disease = rng.random(n) < prevalence
        age = rng.choice(["<50", "50-69", "70+"], size=n, p=[0.3, 0.45, 0.25])
        # model A separates better (mean shift 1.5) than model B (1.0); B is rounded, so it has ties
        model_a = rng.normal(size=n) + 1.5 * disease
        model_b = np.round(rng.normal(size=n) + 1.0 * disease, 1)
        parts.append(pl.DataFrame({
            "site": site, "age_band": age, "disease": disease.astype(np.int8),
            "model_a": np.round(model_a, 4), "model_b": model_b,
        }))
    return pl.concat(parts)


if __name__ == "__main__":
    out = Path(__file__).with_name("synthetic_cohort.csv")
    make().write_csv(out)
    print(f"wrote {out}")
