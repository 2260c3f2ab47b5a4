"""Side-by-side benchmarks: aucpr_stats against its reference, case by case.

Every case runs aucpr_stats and its reference (scikit-learn, pandas groupby +
scikit-learn, numpy.sort as the floor) in one process, interleaved
(ours, reference, floor, ours, reference, floor, ...) for several repeats, and
reports medians and the ratio reference / ours. The memory and streaming
cases run in child processes and read the operating system's accounting of
the child (peak resident set size, ``VmHWM`` in ``/proc/self/status``).

Usage (from the repository root)::

    python benchmarks/run.py                  # all cases, writes benchmarks/results.md
    python benchmarks/run.py --quick          # 10x smaller data, 2 repeats (smoke test)
    python benchmarks/run.py --cases ap_polars,memory --repeats 7
    python benchmarks/run.py --cases defaults,ties,sort,peers,comparisons,startup --busy

The cases of the speed issue (``defaults``, ``ties``, ``sort``, ``peers``,
``comparisons``, ``startup``) are built in ``benchmarks/speed_cases.py``.

Not part of the unit tests: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

Timed = Callable[[], object]


# ---------------------------------------------------------------- data
def scores(rng: np.random.Generator, n: int, prevalence: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Outcome (bool) and a continuous score shifted by one unit for positives."""
    y = rng.random(n) < prevalence
    s = rng.standard_normal(n) + y
    return y, s


def grouped(rng: np.random.Generator, n_groups: int, size: int, prevalence: float = 0.1):
    """Rows of ``n_groups`` groups of ``size`` rows, shuffled; every group has both classes."""
    g = np.repeat(np.arange(n_groups, dtype=np.int64), size)
    y = rng.random(g.size) < prevalence
    y[::size] = True
    y[1::size] = False
    s = rng.standard_normal(g.size) + y
    order = rng.permutation(g.size)
    return g[order], y[order], s[order]


# -------------------------------------------------------------- timing
def timed(fn: Timed) -> tuple[float, object]:
    gc.collect()
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


@dataclass
class Case:
    """One comparison: ``ours`` against ``reference`` (and optionally the ``floor``)."""

    name: str
    description: str
    ours: Timed
    reference: Timed | None = None
    reference_label: str = ""
    reference_scale: float = 1.0  # the reference ran on a 1/scale subset; its time is scaled up
    floor: Timed | None = None
    floor_label: str = ""
    check: Callable[[object, object], None] | None = None
    target: str = ""
    max_repeats: int | None = None  # cap for slow cases
    warm_up: bool = False  # one untimed call of ours and the floor first (imports made on first use)
    times: dict = field(default_factory=lambda: {"ours": [], "reference": [], "floor": []})

    def run(self, repeats: int, reference_repeats: int | None = None) -> None:
        reference_repeats = repeats if reference_repeats is None else reference_repeats
        repeats = min(repeats, self.max_repeats or repeats)
        out = {}
        if self.warm_up:
            for fn in (self.ours, self.floor):
                if fn is not None:
                    fn()
        for r in range(repeats):
            for role in ("ours", "reference", "floor"):
                fn = getattr(self, role)
                if fn is None or (role == "reference" and r >= reference_repeats):
                    continue
                seconds, out[role] = timed(fn)
                self.times[role].append(seconds)
        if self.check is not None and "reference" in out:
            self.check(out["ours"], out["reference"])

    def medians(self) -> dict:
        med = {role: float(np.median(t)) for role, t in self.times.items() if t}
        if "reference" in med:
            med["reference"] *= self.reference_scale
        return med


def close(ours: float, reference: float, tol: float = 1e-9) -> None:
    if not abs(float(ours) - float(reference)) <= tol:
        raise AssertionError(f"results disagree: ours {ours!r}, reference {reference!r}")


# ---------------------------------------------------------------- cases
def case_ap(frame: str, n: int) -> Case:
    import pandas as pd
    import polars as pl
    from sklearn.metrics import average_precision_score

    from aucpr_stats.api import aucpr

    y, s = scores(np.random.default_rng(1), n)
    data = pl.DataFrame({"y": y, "s": s}) if frame == "polars" else pd.DataFrame({"y": y, "s": s})
    return Case(
        name=f"ap_{frame}",
        description=f"average precision, {n:.0e} rows, one group, prevalence 0.1, from a {frame} DataFrame",
        ours=lambda: aucpr(data, "y", "s", estimator="average_precision").estimate,
        reference=lambda: average_precision_score(y, s),
        reference_label="sklearn average_precision_score (numpy arrays)",
        floor=(lambda: np.sort(s)) if frame == "polars" else None,
        floor_label="numpy.sort(score)",
        check=close,
        target=">= 15x sklearn, <= 3x numpy.sort" if frame == "polars" else ">= 10x sklearn",
    )


def case_groups(n_groups: int, size: int, reference_groups: int) -> Case:
    import pandas as pd
    from sklearn.metrics import average_precision_score

    from aucpr_stats.api import aucpr

    g, y, s = grouped(np.random.default_rng(2), n_groups, size)
    data = pd.DataFrame({"g": g, "y": y, "s": s})
    subset = data[data["g"] < reference_groups]

    def reference():
        return subset.groupby("g").apply(
            lambda d: average_precision_score(d["y"].to_numpy(), d["s"].to_numpy()), include_groups=False
        )

    def check(ours, ref):
        np.testing.assert_allclose(ours[: ref.size], ref.to_numpy(), atol=1e-12)

    return Case(
        name="groups",
        description=f"average precision, {n_groups:.0e} groups of {size} rows (pandas DataFrame)",
        ours=lambda: aucpr(data, "y", "s", by="g", estimator="average_precision").to_frame()["estimate"].to_numpy(),
        reference=reference,
        reference_label=f"pandas groupby + sklearn per group (timed on {reference_groups} groups, scaled)",
        reference_scale=n_groups / reference_groups,
        check=check,
        target=">= 50x",
    )


def estimator_cases(n_groups: int, size: int) -> list[Case]:
    import polars as pl

    from aucpr_stats.api import aucpr
    from aucpr_stats.estimators import PR_ESTIMATORS

    g, y, s = grouped(np.random.default_rng(3), n_groups, size)
    data = pl.DataFrame({"g": g, "y": y, "s": s})
    ties = aucpr(data, "y", "s", by="g", estimator="average_precision").ties
    cases = []
    for name, fn in PR_ESTIMATORS.items():
        cases.append(Case(
            name=f"estimator:{name}",
            description=f"{name}, {n_groups:.0e} groups of {size:.0e} rows: full aucpr() call vs the estimator "
                        "alone on the prebuilt tie table",
            ours=lambda name=name: aucpr(data, "y", "s", by="g", estimator=name).estimates,
            floor=lambda fn=fn: fn(ties),
            floor_label="estimator kernel alone",
            target="report",
            max_repeats=3,
        ))
    return cases


def case_bootstrap(n: int, n_boot: int, reference_boot: int) -> Case:
    import polars as pl
    from sklearn.metrics import average_precision_score

    from aucpr_stats.api import aucpr

    y, s = scores(np.random.default_rng(4), n)
    data = pl.DataFrame({"y": y, "s": s})
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)

    def ours():
        result = aucpr(data, "y", "s", estimator="average_precision")
        return result.conf_int(method="bootstrap", n_boot=n_boot, seed=5)

    def reference():
        rng = np.random.default_rng(5)
        out = np.empty(reference_boot)
        for b in range(reference_boot):  # stratified: resample rows within each class
            rows = np.concatenate((rng.choice(pos, pos.size), rng.choice(neg, neg.size)))
            out[b] = average_precision_score(y[rows], s[rows])
        return np.quantile(out, [0.025, 0.975])

    return Case(
        name="bootstrap",
        description=f"{n_boot} stratified bootstrap replicates of average precision, {n:.0e} rows "
                    "(ours includes the aucpr() call)",
        ours=ours,
        reference=reference,
        reference_label=f"loop over sklearn (timed on {reference_boot} replicates, scaled)",
        reference_scale=n_boot / reference_boot,
        target=">= 30x",
    )


def case_auroc(n: int) -> Case:
    import polars as pl
    from sklearn.metrics import roc_auc_score

    from aucpr_stats.api import auroc

    y, s = scores(np.random.default_rng(6), n)
    data = pl.DataFrame({"y": y, "s": s})

    def ours():
        return auroc(data, "y", "s").conf_int(method="delong")

    def check(ours, ref):
        import polars as pl

        frame = ours if isinstance(ours, pl.DataFrame) else pl.from_pandas(ours)
        close(frame["estimate"][0], ref)

    return Case(
        name="auroc_delong",
        description=f"auroc() + DeLong interval, {n:.0e} rows",
        ours=ours,
        reference=lambda: roc_auc_score(y, s),
        reference_label="sklearn roc_auc_score alone",
        check=check,
        target="> 1x",
    )


# --------------------------------------------------- child-process cases
def _vm(field_name: str) -> int:
    """A field of /proc/self/status in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field_name} not in /proc/self/status")


def memory_child(n: int, frame: str) -> dict:
    """Build the data, reset the peak-RSS counter, run aucpr, report the peak over the baseline."""
    import polars as pl

    from aucpr_stats.api import aucpr

    y, s = scores(np.random.default_rng(7), n)
    data = pl.DataFrame({"y": y, "s": s})
    if frame == "pandas":
        import pandas as pd

        data = pd.DataFrame({"y": y, "s": s})
    del y, s
    aucpr(data.head(1000) if frame == "polars" else data.iloc[:1000], "y", "s")  # warm up lazy imports
    gc.collect()
    baseline = _vm("VmRSS")
    with open("/proc/self/clear_refs", "w") as refs:  # reset VmHWM to the current RSS
        refs.write("5")
    start = time.perf_counter()
    result = aucpr(data, "y", "s", estimator="average_precision")
    seconds = time.perf_counter() - start
    peak = _vm("VmHWM")
    return {"baseline": baseline, "peak": peak, "extra": peak - baseline, "seconds": seconds,
            "table_rows": int(result.ties.n_rows), "columns": n * (1 + 8)}


def streaming_child(path: str) -> dict:
    import polars as pl

    from aucpr_stats.api import aucpr

    lf = pl.scan_parquet(path)
    gc.collect()
    baseline = _vm("VmRSS")
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    start = time.perf_counter()
    result = aucpr(lf, "y", "s", estimator="average_precision")
    seconds = time.perf_counter() - start
    return {"baseline": baseline, "peak": _vm("VmHWM"), "extra": _vm("VmHWM") - baseline, "seconds": seconds,
            "estimate": float(result.estimate), "table_rows": int(result.ties.n_rows)}


def run_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def write_parquet(path: Path, n: int, decimals: int | None, chunk: int = 5_000_000) -> None:
    """A Parquet file of ``n`` rows written chunk by chunk (never all in memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(8)
    writer = None
    for start in range(0, n, chunk):
        y, s = scores(rng, min(chunk, n - start))
        if decimals is not None:
            s = np.round(s, decimals)
        table = pa.table({"y": y, "s": s})
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=1_000_000)
    writer.close()


# ---------------------------------------------------------------- report
def machine() -> str:
    import pandas as pd
    import polars as pl
    import sklearn

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    mem = _vm_total()
    load = os.getloadavg()
    return (f"{cpu}, {os.cpu_count()} cores, {mem / 2**30:.0f} GiB RAM, {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {np.__version__}, polars {pl.__version__}, "
            f"pandas {pd.__version__}, scikit-learn {sklearn.__version__}; "
            f"load average at the start {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")


def cpu_steal() -> tuple[int, int]:
    """(steal, total) CPU ticks since boot from /proc/stat: on a virtual machine, the time the
    host gave our virtual CPUs to other guests. Timings taken while it is high are inflated."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def _vm_total() -> int:
    with open("/proc/meminfo") as meminfo:
        return int(meminfo.readline().split()[1]) * 1024


def fmt_seconds(t: float | None) -> str:
    if t is None:
        return ""
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def table(cases: list[Case]) -> str:
    lines = [
        "| case | aucpr_stats | reference | reference / ours | floor | ours / floor | target |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for case in cases:
        med = case.medians()
        ours, ref, floor = med.get("ours"), med.get("reference"), med.get("floor")
        ratio = f"**{ref / ours:.1f}x**" if ref else ""
        over = f"{ours / floor:.2f}x" if floor else ""
        ref_cell = f"{fmt_seconds(ref)} ({case.reference_label})" if ref else ""
        floor_cell = f"{fmt_seconds(floor)} ({case.floor_label})" if floor else ""
        lines.append(f"| {case.description} | {fmt_seconds(ours)} | {ref_cell} | {ratio} | {floor_cell} | {over} | "
                     f"{case.target} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10x smaller data and 2 repeats")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", default="ap_polars,ap_pandas,groups,estimators,bootstrap,auroc,memory,streaming,"
                                           "defaults,ties,sort,peers,comparisons,startup,calibration")
    parser.add_argument("--busy", action="store_true",
                        help="comparisons: one spinning process per core while ours and the reference run")
    parser.add_argument("--streaming-rows", type=float, default=5e7)
    parser.add_argument("--out", default=str(HERE / "results.md"))
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:  # memory / streaming measurements run here, in a fresh process
        kind, *rest = args.child
        result = memory_child(int(float(rest[0])), rest[1]) if kind == "memory" else streaming_child(rest[0])
        print(json.dumps(result))
        return

    warnings.simplefilter("ignore")
    scale = 10 if args.quick else 1
    repeats = 2 if args.quick else args.repeats
    wanted = args.cases.split(",")
    started = time.perf_counter()
    steal_start = cpu_steal()
    header = machine()
    print(header, flush=True)

    cases: list[Case] = []
    if "ap_polars" in wanted:
        cases.append(case_ap("polars", 10**7 // scale))
    if "ap_pandas" in wanted:
        cases.append(case_ap("pandas", 10**7 // scale))
    if "groups" in wanted:
        cases.append(case_groups(10**5 // scale, 100, reference_groups=2000 // scale))
    if "estimators" in wanted:
        cases.extend(estimator_cases(10**3 // scale, 10**4))
    if "bootstrap" in wanted:
        cases.append(case_bootstrap(10**5, 1000 // scale, reference_boot=200 // scale))
    if "auroc" in wanted:
        cases.append(case_auroc(10**6 // scale))
    import speed_cases

    if "defaults" in wanted:
        cases.extend(speed_cases.defaults_cases(scale))
    if "ties" in wanted:
        cases.extend(speed_cases.ties_cases(scale))
    if "sort" in wanted:
        cases.extend(speed_cases.sort_cases(scale))
    if "calibration" in wanted:
        import calibration_speed

        cases.extend(calibration_speed.calibration_cases(scale))
    for case in cases:
        # the slow references run fewer times than the fast cases
        case.run(repeats, reference_repeats=min(repeats, 3))
        med = case.medians()
        print(f"{case.name}: " + ", ".join(f"{k} {fmt_seconds(v)}" for k, v in med.items()), flush=True)
    if "comparisons" in wanted:
        compared = speed_cases.comparison_cases(scale)
        busy = speed_cases.busy_cores(os.cpu_count() or 1) if args.busy else contextlib.nullcontext()
        with busy:
            for case in compared:
                case.run(1 if args.quick else min(repeats, 3), reference_repeats=1)
                print(f"{case.name}: " + ", ".join(f"{k} {fmt_seconds(v)}" for k, v in case.medians().items()),
                      flush=True)
        for case in compared:
            case.description += " (both cores also busy with other work)" if args.busy else ""
        cases.extend(compared)

    notes = []
    if "peers" in wanted:
        notes.extend(speed_cases.peer_notes(scale, os.cpu_count() or 1))
        print("\n".join(notes), flush=True)
    if "startup" in wanted:
        notes.extend(speed_cases.startup_notes())
        print("\n".join(notes[-2:]), flush=True)
    if "memory" in wanted:
        n = 10**7 // scale
        for frame in ("polars", "pandas"):
            m = run_child("--child", "memory", str(n), frame)
            if "error" in m:
                notes.append(f"- memory ({frame}): failed: {m['error']}")
                continue
            notes.append(
                f"- Peak memory, {n:.0e} rows from a {frame} DataFrame (continuous scores, so the tie table has "
                f"{m['table_rows']:,} rows): peak RSS {m['peak'] / 2**20:.0f} MiB over a baseline of "
                f"{m['baseline'] / 2**20:.0f} MiB (interpreter, imports and the data), so aucpr() added "
                f"{m['extra'] / 2**20:.0f} MiB = **{m['extra'] / m['columns']:.2f}x** the outcome (bool) and score "
                f"(float64) columns ({m['columns'] / 2**20:.0f} MiB); {m['extra'] / (n * 16):.2f}x with an int64 "
                f"outcome. Target: <= 3x.")
            print(notes[-1], flush=True)
    if "streaming" in wanted:
        n = int(args.streaming_rows) // scale
        with tempfile.TemporaryDirectory() as tmp:
            for decimals in (3, None):
                path = Path(tmp) / f"scores_{decimals}.parquet"
                write_parquet(path, n, decimals)
                m = run_child("--child", "streaming", str(path))
                label = f"scores rounded to {decimals} decimals" if decimals is not None else "continuous scores"
                if "error" in m:
                    notes.append(f"- Streaming, {n:.0e} rows from scan_parquet, {label}: failed: {m['error']}")
                else:
                    notes.append(
                        f"- Streaming, LazyFrame scan_parquet of {n:.0e} rows ({path.stat().st_size / 2**20:.0f} MiB "
                        f"file), {label}: {fmt_seconds(m['seconds'])}, tie table {m['table_rows']:,} rows, peak RSS "
                        f"{m['peak'] / 2**20:.0f} MiB, {m['extra'] / 2**20:.0f} MiB over the baseline "
                        f"(data size {n * 9 / 2**20:.0f} MiB).")
                print(notes[-1], flush=True)
                path.unlink()

    load = os.getloadavg()
    steal_end = cpu_steal()
    steal = (steal_end[0] - steal_start[0]) / max(steal_end[1] - steal_start[1], 1)
    text = "\n".join([
        f"Machine: {header}.",
        f"CPU time stolen by the host during the run (/proc/stat): {100 * steal:.0f}% "
        "(above a few percent the timings are inflated, the parallel parts of ours most).",
        f"Load average at the end {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}; "
        f"{repeats} interleaved repeats (slow references at most 3), medians; total "
        f"{time.perf_counter() - started:.0f} s.",
        "",
        table(cases),
        "",
        *notes,
        "",
    ])
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
