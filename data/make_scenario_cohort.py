"""Write data/scenario_cohort.csv and data/scenario_cohort_truth.csv: a SYNTHETIC cohort with known truth.

No real patients. Three sites, each drawing its scores from one of the three
simulation scenarios of Boyd, Eng & Page (2013, section 4), through
:mod:`aucpr_stats.simulate`, so the TRUE AUCPR of every (site, model) is
known exactly (the integral of the true PR curve, Eq. 2) and ships next to
the data. Use it to see an interval cover (or miss) the truth.

- site ``north``: binormal, negatives N(0, 1); positives N(1, 1) for
  ``model_x`` (Boyd et al.'s parameters) and N(0.5, 1) for ``model_y``;
- site ``south``: bibeta, negatives Beta(2, 5), positives Beta(5, 2) for
  ``model_x`` (Boyd et al.'s); Beta(3, 4) / Beta(4, 3) for ``model_y``;
- site ``east``: offset uniform, negatives U(0, 1), positives U(0.5, 1.5)
  for ``model_x`` (Boyd et al.'s) and U(0.25, 1.25) for ``model_y``.

Class counts are fixed per site (prevalence 0.10, 0.20, 0.05, as in Boyd et
al.'s fixed-skew designs). The two models score the same patients but are
drawn independently given the class, so they are uncorrelated given the class.

Run from the repository root: ``python data/make_scenario_cohort.py``.
"""

from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats.simulate import Bibeta, Binormal, OffsetUniform, class_counts

SEED = 20130923

#: site -> (rows, prevalence, scenario of model_x, scenario of model_y)
SITES = {
    "north": (1000, 0.10, Binormal(mu=1.0), Binormal(mu=0.5)),
    "south": (600, 0.20, Bibeta(a=2.0, b=5.0), Bibeta(a=3.0, b=4.0)),
    "east": (800, 0.05, OffsetUniform(gamma=0.5), OffsetUniform(gamma=0.25)),
}


def make(seed: int = SEED) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    parts, truth = [], []
    for site, (n, prevalence, scen_x, scen_y) in SITES.items():
        n_pos, n_neg = class_counts(n, prevalence)
        outcome = np.r_[np.ones(n_pos, dtype=np.int8), np.zeros(n_neg, dtype=np.int8)]
        x = np.r_[scen_x.draw(rng, n_pos, positive=True), scen_x.draw(rng, n_neg, positive=False)]
        y = np.r_[scen_y.draw(rng, n_pos, positive=True), scen_y.draw(rng, n_neg, positive=False)]
        order = rng.permutation(n)
        parts.append(pl.DataFrame({
            "site": site, "scenario": scen_x.name, "outcome": outcome[order],
            "model_x": np.round(x[order], 6), "model_y": np.round(y[order], 6),
        }))
        for model, scen in (("model_x", scen_x), ("model_y", scen_y)):
            truth.append({"site": site, "score": model, "scenario": repr(scen), "prevalence": n_pos / n,
                          "true_aucpr": scen.true_aucpr(n_pos / n)})
    return pl.concat(parts), pl.DataFrame(truth)


if __name__ == "__main__":
    data, truth = make()
    out = Path(__file__).parent
    data.write_csv(out / "scenario_cohort.csv")
    truth.write_csv(out / "scenario_cohort_truth.csv")
    print(f"wrote {out / 'scenario_cohort.csv'} and {out / 'scenario_cohort_truth.csv'}")
