"""Simulated survival data for the riskRegression references (tests/reference/survival_score_reference.R).

Run from the repository root:  python tests/reference/survival_data.py
Writes (deterministic, numpy only, numpy.random.default_rng seeds 20261127 and 20261128):
  tests/reference/survival_data.csv             240 rows, time and markers rounded to 0.1 (ties everywhere:
                                                events tied with censorings, cases tied with controls)
  tests/reference/survival_data_continuous.csv  150 rows, no rounding (no ties)
Columns: time (> 0), event (1 = event, 0 = censored), m1, m2 (markers, higher = more risk),
group ("a"/"b", independent of everything), stratum ("s1"/"s2", censoring heavier in s2).
Model: latent x ~ N(0, 1); event time ~ Exponential(rate 0.4 exp(1.0 x)); m1 = x + N(0, 0.7^2);
m2 = 0.5 x + N(0, 1); censoring time ~ Exponential(rate 0.14 in s1, 0.48 in s2), independent of x,
the markers and the group; time = min(event time, censoring time), event = 1{event time <= censoring time}.
"""
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent


def simulate(n, seed, rounded):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    event_time = rng.exponential(1.0, n) / (0.4 * np.exp(1.0 * x))
    m1 = x + 0.7 * rng.standard_normal(n)
    m2 = 0.5 * x + rng.standard_normal(n)
    group = np.where(rng.random(n) < 0.5, "a", "b")
    stratum = np.where(rng.random(n) < 0.5, "s1", "s2")
    cens_rate = np.where(stratum == "s1", 0.14, 0.48)
    cens_time = rng.exponential(1.0, n) / cens_rate
    time = np.minimum(event_time, cens_time)
    event = (event_time <= cens_time).astype(int)
    if rounded:
        time = np.maximum(np.round(time, 1), 0.1)  # keep times positive
        m1 = np.round(m1, 1)
        m2 = np.round(m2, 1)
    return time, event, m1, m2, group, stratum


def write(path, columns, fmt):
    time, event, m1, m2, group, stratum = columns
    with open(path, "w") as f:
        f.write("time,event,m1,m2,group,stratum\n")
        for row in zip(time.tolist(), event.tolist(), m1.tolist(), m2.tolist(), group.tolist(), stratum.tolist()):
            f.write(fmt.format(*row) + "\n")


if __name__ == "__main__":
    write(OUT / "survival_data.csv", simulate(240, 20261127, True), "{:.1f},{},{:.1f},{:.1f},{},{}")
    write(OUT / "survival_data_continuous.csv", simulate(150, 20261128, False), "{!r},{},{!r},{!r},{},{}")
