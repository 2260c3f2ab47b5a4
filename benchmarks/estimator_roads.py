"""Every AUCPR estimator on the four roads a user takes, timed side by side as ratios to average precision.

Usage::

    python benchmarks/estimator_roads.py            # about 3 minutes on 2 cores
    python benchmarks/estimator_roads.py --quick    # smaller data, a smoke run

The roads (issue "Honest where the models are good", must-hold 3): one group of 10^7 rows
(``aucpr(frame, "y", "s", estimator=e)``); 10^3 groups of 10^3 rows (``by="g"``); the bootstrap
(``conf_int(method="bootstrap", n_boot=1000)`` on 10^5 rows); the paired comparison (``compare`` of two
scores in 50 groups of 4,000 rows, the default paired bootstrap). Prevalence 0.1, binormal scores
rounded to 3 decimals (ties, as real scores have). Each time is the best of ``--repeat`` runs in this
one process, every estimator on the same frames; the ratio is to average precision's time on the same
road. Writes ``benchmarks/estimator_roads_results.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's package, whatever is installed

REFERENCE = "average_precision"
ROADS = ("one group", "10^3 groups", "bootstrap", "paired comparison")


def frames(quick: bool, seed: int = 1) -> dict:
    import polars as pl

    rng = np.random.default_rng(seed)

    def frame(groups: int, rows: int):
        y = rng.random(groups * rows) < 0.1
        s = rng.normal(size=y.size) + 1.5 * y
        return pl.DataFrame({"g": np.repeat(np.arange(groups, dtype=np.int32), rows), "y": y,
                             "s": np.round(s, 3), "s2": np.round(s + 0.5 * rng.normal(size=y.size), 3)})

    scale = 10 if quick else 1
    return {"one group": frame(1, 10_000_000 // scale), "10^3 groups": frame(1000 // scale, 1000),
            "bootstrap": frame(1, 100_000 // scale), "paired comparison": frame(50 // scale, 4000)}


def calls(data: dict, estimator: str, n_boot: int) -> dict:
    from aucpr_stats import aucpr, compare

    return {
        "one group": lambda: aucpr(data["one group"], "y", "s", estimator=estimator).to_polars(),
        "10^3 groups": lambda: aucpr(data["10^3 groups"], "y", "s", by="g", estimator=estimator).to_polars(),
        "bootstrap": lambda: aucpr(data["bootstrap"], "y", "s", estimator=estimator).conf_int(
            method="bootstrap", n_boot=n_boot, rng=1),
        "paired comparison": lambda: compare(data["paired comparison"], "y", ["s", "s2"], by="g",
                                             estimator=estimator, rng=1).to_polars(),
    }


def best_of(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def render(results: dict) -> str:
    meta, rows = results["meta"], results["rows"]
    lines = ["# AUCPR estimators on the four roads", "",
             f"`python benchmarks/estimator_roads.py` ({meta['date']}, {meta['machine']}; best of "
             f"{meta['repeat']} runs, {meta['n_boot']} bootstrap replicates). Seconds, and in brackets the ratio "
             "to average precision on the same road; the default must be within 1.5x of it on every road.", "",
             "| estimator | " + " | ".join(ROADS) + " | worst ratio |", "|---|" + "---:|" * (len(ROADS) + 1)]
    for row in sorted(rows, key=lambda r: max(r["ratio"].values())):
        cells = [f"{row['seconds'][road]:.3f} ({row['ratio'][road]:.2f}x)" for road in ROADS]
        lines.append(f"| {row['estimator']} | " + " | ".join(cells) + f" | {max(row['ratio'].values()):.2f}x |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "estimator_roads_results.json")
    args = parser.parse_args(argv)
    from aucpr_stats.estimators import ESTIMATORS

    warnings.simplefilter("ignore")
    n_boot = 200 if args.quick else 1000
    data = frames(args.quick)
    names = [REFERENCE] + [n for n in ESTIMATORS["aucpr"] if n not in (REFERENCE, "binormal")]
    seconds = {}
    for name in names:
        runs = calls(data, name, n_boot)
        seconds[name] = {road: best_of(runs[road], args.repeat if road != "paired comparison" else 1)
                         for road in ROADS}
        print(name, {road: round(t, 3) for road, t in seconds[name].items()}, flush=True)
    rows = [{"estimator": n, "seconds": s, "ratio": {r: s[r] / seconds[REFERENCE][r] for r in ROADS}}
            for n, s in seconds.items()]
    results = {"meta": {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, "
                        f"{__import__('os').cpu_count()} cores", "repeat": args.repeat, "n_boot": n_boot,
                        "quick": args.quick}, "rows": rows}
    out = args.out if not args.quick else Path("/tmp/estimator_roads_quick.json")
    out.write_text(json.dumps(results, indent=1) + "\n")
    out.with_suffix(".md").write_text(render(results))
    print(f"wrote {out} and {out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
