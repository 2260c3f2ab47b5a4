"""Net benefit against dcurves' ``dca``: one data set of 10^7 rows and 10^4 groups, 99 thresholds (issue 32).

``net_benefit()`` counts the true and false positives at every threshold
from the tie table, every group at once; the reference is the Python
package dcurves (``dca``), which computes the same decision curve per model
and has no groups, so a grouped comparison is what a dcurves user writes: a
loop of ``dca`` over the groups of a pandas DataFrame. Both sides treat a
patient when the risk is at least the threshold and report
NB = TP/n - FP/n * t/(1-t); the net benefits of the model (and of "treat
all") are checked against each other and their largest absolute difference
is reported.

dcurves pins pandas < 3, so it lives in its own environment and runs here in
a child process with that interpreter (``--reference-python``, default
``/work/dcvenv/bin/python``; skipped with a message when it is missing). The
data are written once to ``.npy`` files (the dcurves environment has no
Parquet reader) that both sides read; each side times itself after the
data are loaded and the DataFrame is built, so neither timing includes file
reading, interpreter start-up or imports. Both sides make one untimed call
on a small slice first.

Timed: ``net_benefit(...).to_frame()`` (the frame build included) and, for
aucpr_stats alone, ``.conf_int()`` (Wald; dcurves has no interval) on a
fresh result; medians of ``--repeats`` for aucpr_stats, dcurves
``--reference-repeats`` times (default once: it is slow), interleaved. The
grouped dcurves loop runs on the first ``--reference-groups`` groups and is
scaled up linearly to all groups; ``--reference-rows`` below ``--rows`` does
the same for the one-group case (off by default).

Usage (from the repository root, main environment)::

    PYTHONPATH=. python benchmarks/net_benefit_speed.py            # writes benchmarks/net_benefit_speed_results.md
    PYTHONPATH=. python benchmarks/net_benefit_speed.py --quick    # 10x smaller data, 2 repeats

Not registered in ``benchmarks/run.py``: its ``Case`` times in-process
callables, so the child's start-up, imports and file reading would land in
the reference's time, and its case list is a chain of ``if`` blocks plus the
``--cases`` default string rather than a registry one entry extends.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
THRESHOLDS = [i / 100 for i in range(1, 100)]  # 0.01, ..., 0.99: the same doubles on both sides
DEFAULT_REFERENCE_PYTHON = "/work/dcvenv/bin/python"


# ---------------------------------------------------------------- data
def _data(rng: np.random.Generator, n_groups: int, size: int) -> dict[str, np.ndarray]:
    """Continuous predicted risks (no ties) of a slightly miscalibrated model; every group has both classes."""
    n = n_groups * size
    x = rng.standard_normal(n)
    p = 1 / (1 + np.exp(-(-2.0 + 1.1 * x)))
    y = (rng.random(n) < 1 / (1 + np.exp(-(-2.2 + 0.9 * x)))).astype(np.int64)
    y[::size] = 1
    y[1::size] = 0
    return {"g": np.repeat(np.arange(n_groups, dtype=np.int64), size), "y": y, "p": p}


def _write(folder: Path, name: str, columns: dict[str, np.ndarray]) -> Path:
    for column, values in columns.items():
        np.save(folder / f"{name}_{column}.npy", values)
    return folder / name


def _load(stem: str, columns: tuple[str, ...]) -> dict[str, np.ndarray]:
    return {column: np.load(f"{stem}_{column}.npy") for column in columns}


# ------------------------------------------------ dcurves (child process)
def dcurves_child(stem: str, grouped: bool, limit: int, repeats: int, out: str) -> None:
    """Runs in the dcurves environment: load, build the pandas frame, time ``dca`` (alone or in a loop)."""
    import dcurves
    import pandas as pd
    from dcurves import dca

    warnings.simplefilter("ignore")
    data = pd.DataFrame(_load(stem, ("g", "y", "p") if grouped else ("y", "p")))
    if grouped:
        data = data[data["g"] < limit]  # the first `limit` groups
    else:
        data = data.iloc[:limit]  # the first `limit` rows
    dca(data=data.iloc[:1000], outcome="y", modelnames=["p"], thresholds=THRESHOLDS)  # warm-up, untimed

    def one_group(frame):
        curve = dca(data=frame, outcome="y", modelnames=["p"], thresholds=THRESHOLDS)
        return (curve.loc[curve["model"] == "p", "net_benefit"].to_numpy(dtype=float),
                curve.loc[curve["model"] == "all", "net_benefit"].to_numpy(dtype=float))

    seconds = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        if grouped:  # what a dcurves user writes: one dca call per group
            curves = [one_group(part) for _, part in data.groupby("g", sort=True)]
        else:
            curves = [one_group(data)]
        seconds.append(time.perf_counter() - start)
    np.save(out, np.stack([np.concatenate([c[0] for c in curves]), np.concatenate([c[1] for c in curves])]))
    print(json.dumps({"seconds": seconds, "dcurves": dcurves.__version__ if hasattr(dcurves, "__version__") else
                      _dist_version("dcurves"), "pandas": pd.__version__, "numpy": np.__version__,
                      "python": sys.version.split()[0], "rows": len(data)}))


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def run_dcurves(python: str, stem: Path, grouped: bool, limit: int, repeats: int, tmp: Path) -> dict:
    out = tmp / f"dcurves_{'groups' if grouped else 'one'}.npy"
    args = [python, str(Path(__file__).resolve()), "--child", str(stem), "groups" if grouped else "one",
            str(limit), str(repeats), str(out)]
    done = subprocess.run(args, check=False, capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return {"error": lines[-1] if lines else f"exit code {done.returncode}"}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["curves"] = np.load(out)
    return result


# ------------------------------------------------------------ ours
def _timed(fn) -> tuple[float, object]:
    gc.collect()
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _ours_curves(frame) -> np.ndarray:
    return np.stack([frame["estimate"].to_numpy(), frame["treat_all"].to_numpy()])


def _fmt(t: float | None) -> str:
    if t is None:
        return "n/a"
    return f"{t * 1e3:.0f} ms" if t < 1 else f"{t:.2f} s"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference-python", default=DEFAULT_REFERENCE_PYTHON,
                        help="interpreter of an environment with dcurves (default %(default)s)")
    parser.add_argument("--quick", action="store_true", help="10x smaller data and 2 repeats")
    parser.add_argument("--repeats", type=int, default=3, help="aucpr_stats repeats (median)")
    parser.add_argument("--reference-repeats", type=int, default=1, help="dcurves repeats (median)")
    parser.add_argument("--rows", type=float, default=1e7, help="rows of the one-group case")
    parser.add_argument("--reference-rows", type=float, default=None,
                        help="dcurves on the first rows only, time scaled up linearly (default: all rows)")
    parser.add_argument("--groups", type=float, default=1e4, help="groups of the grouped case")
    parser.add_argument("--group-size", type=int, default=100)
    parser.add_argument("--reference-groups", type=int, default=200,
                        help="dcurves loop on the first groups only, time scaled up linearly")
    parser.add_argument("--out", default=str(HERE / "net_benefit_speed_results.md"))
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:  # the dcurves side, in the dcurves environment
        stem, kind, limit, repeats, out = args.child
        dcurves_child(stem, kind == "groups", int(limit), int(repeats), out)
        return

    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT))
    import polars as pl
    from run import cpu_steal, machine

    import aucpr_stats
    from aucpr_stats import net_benefit

    warnings.simplefilter("ignore")
    scale = 10 if args.quick else 1
    repeats = 2 if args.quick else args.repeats
    rows = int(args.rows) // scale
    reference_rows = min(rows, int(args.reference_rows) // scale if args.reference_rows else rows)
    n_groups = int(args.groups) // scale
    reference_groups = min(n_groups, max(1, args.reference_groups // scale))
    started = time.perf_counter()
    steal_start = cpu_steal()
    header = machine()
    print(header, flush=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=False,
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "aucpr_stats"], check=False,
                           capture_output=True, text=True).stdout.strip()
    have_reference = Path(args.reference_python).exists()
    if not have_reference:
        print(f"dcurves skipped: no interpreter at {args.reference_python} (set --reference-python)", flush=True)

    rng = np.random.default_rng(32)
    cases = [("one", f"one data set of {rows:,} rows x {len(THRESHOLDS)} thresholds", _data(rng, 1, rows),
              None, reference_rows, rows / reference_rows),
             ("groups", (f"{n_groups:,} groups x {args.group_size} rows ({n_groups * args.group_size:,} rows) x "
                         f"{len(THRESHOLDS)} thresholds"), _data(rng, n_groups, args.group_size), "g",
              reference_groups, n_groups / reference_groups)]

    lines = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # warm-up of ours: imports made on first use, untimed
        small = pl.DataFrame({k: v[:2000] for k, v in cases[1][2].items()})
        net_benefit(small, "y", "p", by="g", thresholds=THRESHOLDS).conf_int()
        for name, label, columns, by, limit, factor in cases:
            stem = _write(tmp, name, columns if by else {"y": columns["y"], "p": columns["p"]})
            del columns
            loaded = _load(str(stem), ("g", "y", "p") if by else ("y", "p"))  # read once, outside the timings
            frame = pl.DataFrame(loaded)
            del loaded

            def ours(frame=frame, by=by):
                return net_benefit(frame, "y", "p", by=by, thresholds=THRESHOLDS).to_frame()

            times, ci_times, reference = [], [], None
            for r in range(repeats):
                seconds, out = _timed(ours)
                times.append(seconds)
                fresh = net_benefit(frame, "y", "p", by=by, thresholds=THRESHOLDS)
                seconds, intervals = _timed(fresh.conf_int)
                ci_times.append(seconds)
                del fresh, intervals
                if r == 0 and have_reference:  # interleaved: ours, dcurves, ours, ours
                    print(f"{name}: dcurves running on {limit:,} {'groups' if by else 'rows'} ...", flush=True)
                    reference = run_dcurves(args.reference_python, stem, by is not None, limit,
                                            args.reference_repeats, tmp)
                    if "error" in reference:
                        print(f"{name}: dcurves failed: {reference['error']}", flush=True)
            ours_t, ci_t = float(np.median(times)), float(np.median(ci_times))
            row = {"case": name, "label": label, "ours": ours_t, "ours_all": times, "ci": ci_t, "ci_all": ci_times,
                   "rows": frame.height, "prevalence": float(frame["y"].mean())}
            if reference and "error" not in reference:
                # the rows dcurves saw, from ours (on a subset ours is rerun untimed on the same subset)
                if by:
                    compare = out.filter(pl.col("g") < limit)
                elif limit < frame.height:
                    compare = net_benefit(frame.head(limit), "y", "p", thresholds=THRESHOLDS).to_frame()
                else:
                    compare = out
                ours_curves = _ours_curves(compare)
                theirs = reference["curves"]
                assert ours_curves.shape == theirs.shape, (ours_curves.shape, theirs.shape)
                row.update(ref=float(np.median(reference["seconds"])) * factor, ref_raw=reference["seconds"],
                           factor=factor, limit=limit, versions=reference,
                           diff_nb=float(np.max(np.abs(ours_curves[0] - theirs[0]))),
                           diff_all=float(np.max(np.abs(ours_curves[1] - theirs[1]))),
                           compared=ours_curves.shape[1])
            elif reference:
                row["error"] = reference["error"]
            lines.append(row)
            print(f"{name}: ours {_fmt(ours_t)} {[round(t, 3) for t in times]}, conf_int {_fmt(ci_t)}, "
                  f"dcurves {_fmt(row.get('ref'))}" + (f" (x{factor:g} from {limit:,})" if factor != 1 else "")
                  + (f", max |diff| NB {row['diff_nb']:.2e}, treat-all {row['diff_all']:.2e}" if "diff_nb" in row
                     else ""), flush=True)
            del out

    load = os.getloadavg()
    steal_end = cpu_steal()
    steal = (steal_end[0] - steal_start[0]) / max(steal_end[1] - steal_start[1], 1)
    versions = next((row["versions"] for row in lines if "versions" in row), None)
    ref_env = (f"dcurves {versions['dcurves']} with pandas {versions['pandas']}, numpy {versions['numpy']}, Python "
               f"{versions['python']} ({args.reference_python}, a separate environment: dcurves needs pandas < 3)"
               if versions else f"dcurves not run ({args.reference_python}: "
               + ("missing" if not have_reference else "failed") + ")")
    table = [
        ("| case | aucpr_stats `net_benefit(...).to_frame()` | dcurves `dca` | dcurves / ours | "
         "aucpr_stats `.conf_int()` (Wald) | max abs diff, net benefit (model; treat all) |"),
        "|---|---:|---:|---:|---:|---|",
    ]
    notes = []
    for row in lines:
        if "ref" in row:
            how = ("one call" if row["case"] == "one" else "a loop of one call per group")
            if row["factor"] != 1:
                unit = "groups" if row["case"] == "groups" else "rows"
                ref_cell = (f"{_fmt(row['ref'])} (extrapolated: {_fmt(float(np.median(row['ref_raw'])))} on the "
                            f"first {row['limit']:,} {unit} x {row['factor']:g}; {how})")
            else:
                ref_cell = f"{_fmt(row['ref'])} ({how})"
            speedup = row["ref"] / row["ours"]
            ratio = f"**{speedup:.0f}x**" if speedup >= 10 else f"**{speedup:.1f}x**"
            diff = f"{row['diff_nb']:.1e}; {row['diff_all']:.1e} ({row['compared']:,} values)"
        else:
            ref_cell, ratio, diff = ("not run: " + row.get("error", "no dcurves interpreter")), "", ""
        table.append(f"| {row['label']} | {_fmt(row['ours'])} | {ref_cell} | {ratio} | {_fmt(row['ci'])} | {diff} |")
        notes.append(f"- {row['case']}: aucpr_stats runs {', '.join(f'{t:.3f}' for t in row['ours_all'])} s; "
                     f"conf_int {', '.join(f'{t:.3f}' for t in row['ci_all'])} s"
                     + (f"; dcurves {', '.join(f'{t:.2f}' for t in row['ref_raw'])} s on "
                        f"{row['limit']:,} {'groups' if row['case'] == 'groups' else 'rows'}" if "ref_raw" in row
                        else "") + ".")
    prevalences = ", ".join(f"{row['prevalence']:.3f}" for row in lines)
    text = "\n".join([
        "# Net benefit: aucpr_stats against dcurves",
        "",
        f"Commit {commit}" + (" (with uncommitted changes under aucpr_stats/)" if dirty else "")
        + f", aucpr_stats {aucpr_stats.__version__}. Written by `benchmarks/net_benefit_speed.py`"
        + (" --quick" if args.quick else "") + ".",
        f"Machine: {header}.",
        f"Reference: {ref_env}.",
        (f"CPU time stolen by the host during the run (/proc/stat): {100 * steal:.0f}%. "
         f"Load average at the end {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}; total "
         f"{time.perf_counter() - started:.0f} s."),
        "",
        f"Thresholds 0.01, ..., 0.99 ({len(THRESHOLDS)}, `i / 100`); continuous predicted risks (no ties), "
        f"prevalence {prevalences} (the two cases); treat when the risk is at least the threshold on both sides. "
        "aucpr_stats reads a "
        "polars DataFrame, dcurves a pandas DataFrame, both built from the same `.npy` files before the clock "
        f"starts (file reading, start-up and imports are not timed; each side times itself in its own process). "
        f"aucpr_stats: median of {repeats} repeats, the `.to_frame()` build included; `.conf_int()` (Wald, the "
        f"default) timed alone on a fresh result, dcurves has no interval. dcurves: "
        + (f"{args.reference_repeats} run{'s' if args.reference_repeats > 1 else ''}"
           + (" (slow, so once)" if args.reference_repeats == 1 else " (median)"))
        + f", run between the first and second aucpr_stats repeats; the grouped case loops `dca` over "
        f"`groupby('g')` on the first {reference_groups:,} groups and is scaled up linearly to all "
        f"{n_groups:,} (each group is an independent call of the same size, so the time is linear in the number "
        "of groups)" + (f"; the one-group case ran dcurves on the first {reference_rows:,} rows and is scaled up "
                        f"linearly to {rows:,}" if reference_rows < rows else "; the one-group case ran dcurves on "
                        "all rows (no extrapolation)") + ". The max abs differences compare the net benefit of the "
        "model (and of treating all) on the rows dcurves saw.",
        "",
        *table,
        "",
        "Raw timings:",
        "",
        *notes,
        "",
    ])
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
