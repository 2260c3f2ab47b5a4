"""The cases of issue "Speed: the defaults at the speed of the fastest road", run by ``benchmarks/run.py``.

* ``defaults``: on every road (one group of 10^7 rows, 10^3 groups of 10^4,
  10^5 groups of 100, the bootstrap, paired and unpaired comparisons,
  heterogeneity), the call a user makes with the defaults (default estimator
  and default interval) against average precision on the same road: its point
  estimate alone where the road has no interval of its own, else the same
  call with ``estimator="average_precision", ties="published"``, the fastest
  road the package has. Target: within 1.5x.
* ``ties``: the tie-aware default on continuous scores (no tie across the
  classes) against ``ties="published"``, which computes the same numbers.
  Target: no slower (within 1.05x: the noise of repeated runs).
* ``sort``: the default AUCPR and AUROC estimates on one group of 10^7 rows
  against ``numpy.sort`` of the score column. Target: within 2x.
* ``peers``: bootstraps against the compiled peers' published records. rocci
  (Rust; its release gate: 2,000 replicates on 10^6 rows in under 3 s on 12
  cores) runs side by side when installed (``pip install rocci``), computing
  its ROC band, and our ROC band runs beside it; fbroc (C++, R) is not
  packaged here, so its published figure (10^5 replicates of 500 rows "on the
  order of one second" on one core) is the reference. Each row states the
  row-replicates per second per core.
* ``comparisons``: the paired AUCPR bootstrap with the default estimator
  against a scikit-learn loop, 50 groups x 4,000 rows and all pairs of 20
  scores, 1,000 replicates. With ``--busy`` both cores also run other work
  (one spinning process per core) while ours and the reference run, so the
  ratio does not come from our second thread.
* ``startup``: ``import aucpr_stats`` (timed inside a fresh interpreter) and
  ``aucpr-stats --help`` (wall time of the process) against
  ``python -c pass``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from estimator_roads import best_of  # noqa: E402
from run import Case, grouped, scores  # noqa: E402

#: The fastest AUCPR road: average precision under the published convention.
FAST = {"estimator": "average_precision", "ties": "published"}


def _frame(columns: dict):
    import polars as pl

    return pl.DataFrame(columns)


def defaults_cases(scale: int) -> list[Case]:
    """The default call on each road, against average precision on the same road (see the module docstring)."""
    from aucpr_stats import aucpr, auroc, compare

    rng = np.random.default_rng(21)
    y, s = scores(rng, 10**7 // scale)
    one = _frame({"y": y, "s": s})
    g3, y3, s3 = grouped(rng, 10**3 // scale, 10**4)
    groups3 = _frame({"g": g3, "y": y3, "s": s3})
    g5, y5, s5 = grouped(rng, 10**5 // scale, 100)
    groups5 = _frame({"g": g5, "y": y5, "s": s5})
    yb, sb = scores(rng, 10**5)
    boot = _frame({"y": yb, "s": sb})
    gp, yp, ap = grouped(rng, 50, 4000 // scale)
    paired = _frame({"g": gp, "y": yp, "a": ap, "b": ap + rng.standard_normal(ap.size), "arm": gp % 2})
    gh, yh, sh = grouped(rng, 10, 10**4 // scale)
    hetero = _frame({"g": gh, "y": yh, "s": sh})
    n_boot = 1000 // scale

    roads = [
        ("one group, 10^7 rows: aucpr().conf_int()", lambda: aucpr(one, "y", "s").conf_int(),
         lambda: aucpr(one, "y", "s", estimator="average_precision").estimate, "average precision, estimate only"),
        ("one group, 10^7 rows: auroc().conf_int()", lambda: auroc(one, "y", "s").conf_int(),
         lambda: aucpr(one, "y", "s", estimator="average_precision").estimate, "average precision, estimate only"),
        ("10^3 groups of 10^4 rows: aucpr(by=).conf_int()", lambda: aucpr(groups3, "y", "s", by="g").conf_int(),
         lambda: aucpr(groups3, "y", "s", by="g", estimator="average_precision").estimates,
         "average precision, estimates only"),
        ("10^5 groups of 100 rows: aucpr(by=).conf_int()", lambda: aucpr(groups5, "y", "s", by="g").conf_int(),
         lambda: aucpr(groups5, "y", "s", by="g", estimator="average_precision").estimates,
         "average precision, estimates only"),
        (f"bootstrap, {n_boot} replicates, 10^5 rows",
         lambda: aucpr(boot, "y", "s").conf_int(method="bootstrap", n_boot=n_boot, rng=1),
         lambda: aucpr(boot, "y", "s", **FAST).conf_int(method="bootstrap", n_boot=n_boot, rng=1),
         "the same, average precision (published)"),
        (f"paired comparison, {n_boot} replicates, 50 groups x {4000 // scale} rows",
         lambda: compare(paired, "y", ["a", "b"], by="g", n_boot=n_boot, rng=1).to_polars(),
         lambda: compare(paired, "y", ["a", "b"], by="g", n_boot=n_boot, rng=1, **FAST).to_polars(),
         "the same, average precision (published)"),
        (f"unpaired comparison (two arms), {n_boot} replicates",
         lambda: compare(paired, "y", "a", between="arm", n_boot=n_boot, rng=1).to_polars(),
         lambda: compare(paired, "y", "a", between="arm", n_boot=n_boot, rng=1, **FAST).to_polars(),
         "the same, average precision (published)"),
        ("heterogeneity across 10 groups of 10^4 rows",
         lambda: aucpr(hetero, "y", "s", by="g").heterogeneity().to_polars(),
         lambda: aucpr(hetero, "y", "s", by="g", **FAST).heterogeneity().to_polars(),
         "the same, average precision (published)"),
    ]
    return [Case(name=f"default:{i}", description=f"defaults on the road: {label}", ours=ours, floor=floor,
                 floor_label=floor_label, target="ours / floor <= 1.5x", max_repeats=5, warm_up=True)
            for i, (label, ours, floor, floor_label) in enumerate(roads)]


def ties_cases(scale: int) -> list[Case]:
    """The tie-aware default against the published convention where they agree (continuous scores)."""
    from aucpr_stats import aucpr

    rng = np.random.default_rng(22)
    y, s = scores(rng, 10**7 // scale)
    one = _frame({"y": y, "s": s})
    yb, sb = scores(rng, 10**5)
    boot = _frame({"y": yb, "s": sb})
    n_boot = 1000 // scale
    return [
        Case(name="ties:one", description=f"tie-aware average precision vs published, {10**7 // scale:.0e} rows, "
             "continuous scores", ours=lambda: aucpr(one, "y", "s").estimate,
             floor=lambda: aucpr(one, "y", "s", ties="published").estimate, floor_label="ties='published'",
             target="ours / floor <= 1.05x", warm_up=True),
        Case(name="ties:boot", description=f"tie-aware vs published, bootstrap {n_boot} replicates, 10^5 rows",
             ours=lambda: aucpr(boot, "y", "s").conf_int(method="bootstrap", n_boot=n_boot, rng=1),
             floor=lambda: aucpr(boot, "y", "s", ties="published").conf_int(method="bootstrap", n_boot=n_boot,
                                                                            rng=1),
             floor_label="ties='published'", target="ours / floor <= 1.05x", max_repeats=3, warm_up=True),
    ]


def sort_cases(scale: int) -> list[Case]:
    """Default AUCPR and AUROC on one group against numpy.sort of the scores."""
    from aucpr_stats import aucpr, auroc

    y, s = scores(np.random.default_rng(23), 10**7 // scale)
    one = _frame({"y": y, "s": s})
    return [Case(name=f"sort:{name}", description=f"default {name}, {s.size:.0e} rows, one group, polars",
                 ours=call, floor=lambda: np.sort(s), floor_label="numpy.sort(score)", target="ours / floor <= 2x",
                 warm_up=True)
            for name, call in (("aucpr", lambda: aucpr(one, "y", "s").estimate),
                               ("auroc", lambda: auroc(one, "y", "s").estimate))]


def _per_core(rows: int, replicates: int, seconds: float, cores: int) -> str:
    return f"{rows * replicates / seconds / cores / 1e6:.0f}M row-replicates/s/core"


def peer_notes(scale: int, cores: int) -> list[str]:
    """The bootstraps the compiled peers publish records for, with rocci side by side when installed."""
    from aucpr_stats import aucpr, auroc, roc_curve

    notes = []
    y, s = scores(np.random.default_rng(24), 10**6 // scale)
    big = _frame({"y": y, "s": s})
    n_boot = 2000
    for label, call in (("AUROC", lambda: auroc(big, "y", "s").conf_int(method="bootstrap", n_boot=n_boot, rng=1)),
                        ("AUCPR (default estimator)",
                         lambda: aucpr(big, "y", "s").conf_int(method="bootstrap", n_boot=n_boot, rng=1)),
                        ("ROC band (sup-norm bootstrap, 99 points)",
                         lambda: roc_curve(big, "y", "s").band(n_boot=n_boot, rng=1))):
        seconds = best_of(call, 2)
        notes.append(f"- {label} bootstrap, {n_boot:,} replicates of {s.size:,} rows: {seconds:.2f} s on {cores} "
                     f"cores ({_per_core(s.size, n_boot, seconds, cores)}). Target <= 12 s. rocci's release gate: "
                     f"< 3 s on 12 cores (>= {_per_core(10**6, 2000, 3.0, 12)}).")
    with contextlib.suppress(ImportError):
        import rocci

        for threads in (1, cores):
            seconds = best_of(lambda: rocci.roc_band(y, s, n_boot=n_boot, random_state=1, n_threads=threads), 2)
            notes.append(f"- rocci {rocci.__version__ if hasattr(rocci, '__version__') else ''} `roc_band` (Rust), "
                         f"same data, {n_boot:,} replicates, {threads} thread(s): {seconds:.2f} s "
                         f"({_per_core(s.size, n_boot, seconds, threads)}).")
    small_y, small_s = scores(np.random.default_rng(25), 500, prevalence=0.5)
    small = _frame({"y": small_y, "s": small_s})
    n_small = 10**5 // scale
    for label, fn in (("AUROC", auroc), ("AUCPR (default estimator)", aucpr)):
        seconds = best_of(lambda fn=fn: fn(small, "y", "s").conf_int(method="bootstrap", n_boot=n_small, rng=1), 3)
        notes.append(f"- {label} bootstrap, {n_small:,} replicates of 500 rows: {seconds:.3f} s on {cores} cores "
                     f"({_per_core(500, n_small, seconds, cores)}). Target <= 0.5 s. fbroc: about 1 s on one core "
                     f"({_per_core(500, 10**5, 1.0, 1)}).")
    return notes


@contextlib.contextmanager
def busy_cores(n: int):
    """``n`` processes spinning for as long as the block runs (other work on the machine)."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        time.sleep(0.5)
        yield
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def comparison_cases(scale: int) -> list[Case]:
    """Paired AUCPR bootstraps with the default estimator against scikit-learn loops (from benchmarks/speed.py)."""
    from speed import allpairs_case, paired_case

    cases = [paired_case(50, 4000 // scale, 1000 // scale, reference_boot=10, estimator=None),
             allpairs_case(2 * 10**5 // scale, 20, 1000 // scale, reference_boot=5, estimator=None)]
    for case in cases:
        case.name = f"comparisons:{case.name}"
    return cases


def startup_notes(repeats: int = 7) -> list[str]:
    """``import aucpr_stats`` and ``aucpr-stats --help`` in fresh processes (bytecode compiled by a first run)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(HERE.parent)
    timer = ("import time; t = time.perf_counter(); import aucpr_stats; print(time.perf_counter() - t)")
    heavy = ("import sys, aucpr_stats; print(sorted(m for m in ('scipy', 'statsmodels', 'pandas', 'matplotlib', "
             "'duckdb', 'pyspark') if m in sys.modules))")

    def wall(args: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env, cwd=HERE.parent)
        return time.perf_counter() - start

    subprocess.run([sys.executable, "-c", timer], check=True, capture_output=True, env=env)  # compile once
    imports = [float(subprocess.run([sys.executable, "-c", timer], check=True, capture_output=True, text=True,
                                    env=env).stdout) for _ in range(repeats)]
    helps = [wall([sys.executable, "-m", "aucpr_stats", "--help"]) for _ in range(repeats)]
    bare = [wall([sys.executable, "-c", "pass"]) for _ in range(repeats)]
    loaded = subprocess.run([sys.executable, "-c", heavy], check=True, capture_output=True, text=True,
                            env=env).stdout.strip()
    return [f"- `import aucpr_stats`: {np.median(imports):.3f} s (median of {repeats} fresh interpreters; "
            f"heavy modules loaded by it: {loaded}). Target <= 0.3 s.",
            f"- `aucpr-stats --help` (python -m aucpr_stats --help): {np.median(helps):.3f} s wall, of which "
            f"{np.median(bare):.3f} s is starting Python (`python -c pass`). Target <= 0.5 s."]
