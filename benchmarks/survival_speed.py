"""Time-dependent AUC(t) against scikit-survival, side by side in one process; and the intervals' cost.

Run: ``python benchmarks/survival_speed.py`` (``--quick`` for smaller sizes). Writes
``benchmarks/survival_speed_results.md``. Data: event times exponential with rate exp(x), a marker
x + N(0, 1), exponential censoring (about 40% censored), 10 horizons from the 10th to the 80th percentile of
the observed times. Each timing is the best of ``--repeat`` runs. scikit-survival's
``cumulative_dynamic_auc`` (point values only) is timed on the same arrays and its values compared with ours
(largest absolute difference), so a faster wrong answer cannot pass; with 100 groups it is looped over the
groups (it has no grouped form).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import polars as pl
import sksurv
from sksurv.metrics import cumulative_dynamic_auc

from _provenance import commit, machine

from aucpr_stats import auroc

OUT = Path(__file__).with_name("survival_speed_results.md")


def data(n: int, n_groups: int = 1, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    event, censor = rng.exponential(np.exp(-x)), rng.exponential(1.5, size=n)
    return pl.DataFrame({"t": np.minimum(event, censor), "d": (event <= censor).astype(np.int64),
                         "m": x + rng.normal(size=n), "g": rng.integers(0, n_groups, n)})


def best(function, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def structured(frame: pl.DataFrame) -> np.ndarray:
    y = np.empty(frame.height, dtype=[("event", bool), ("time", float)])
    y["event"], y["time"] = frame["d"].to_numpy().astype(bool), frame["t"].to_numpy()
    return y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    rows = []
    for n in sizes:
        frame = data(n)
        horizons = np.quantile(frame["t"].to_numpy(), np.linspace(0.1, 0.8, 10))
        ours, result = best(lambda: auroc(frame, score="m", time="t", event="d", horizon=horizons), args.repeat)
        y = structured(frame)
        theirs, (values, _) = best(lambda: cumulative_dynamic_auc(y, y, frame["m"].to_numpy(), horizons),
                                   args.repeat)
        intervals, _ = best(lambda: result.conf_int(), args.repeat)
        rows.append((f"{n:,} rows, 1 group", ours, theirs, intervals,
                     float(np.abs(values - result.estimates[0, 0]).max())))
    n, n_groups = sizes[-2], 100
    frame = data(n, n_groups)
    horizons = np.quantile(frame["t"].to_numpy(), np.linspace(0.1, 0.6, 10))
    ours, result = best(lambda: auroc(frame, score="m", time="t", event="d", horizon=horizons, by="g"),
                        args.repeat)

    def loop():
        out = []
        for g in range(n_groups):
            part = frame.filter(pl.col("g") == g)
            out.append(cumulative_dynamic_auc(structured(part), structured(part), part["m"].to_numpy(),
                                              horizons)[0])
        return np.array(out)

    theirs, values = best(loop, args.repeat)
    intervals, _ = best(lambda: result.conf_int(), args.repeat)
    rows.append((f"{n:,} rows, {n_groups} groups", ours, theirs, intervals,
                 float(np.abs(values - result.estimates[:, 0]).max())))
    lines = ["# Time-dependent AUC(t): aucpr_stats against scikit-survival", "",
             f"Machine: {machine()}. Commit {commit()}. scikit-survival {sksurv.__version__}. Best of "
             f"{args.repeat} runs, one process, 10 horizons. `python benchmarks/survival_speed.py`.", "",
             "| data | aucpr_stats AUC(t) | scikit-survival | ratio (theirs / ours) | + influence intervals "
             "| largest difference |", "|---|---|---|---|---|---|"]
    for label, ours, theirs, intervals, diff in rows:
        lines.append(f"| {label} | {ours:.3f} s | {theirs:.3f} s | {theirs / ours:.1f}x | {intervals:.3f} s "
                     f"| {diff:.1e} |")
    lines += ["", "scikit-survival computes point values only; the interval column is the extra time of "
              "`conf_int()` (the influence-function variance with the censoring fit's part) on our result."]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
