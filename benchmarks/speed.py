"""Side-by-side benchmarks of issue 19: grouped data, bootstraps, paired comparisons, many groups.

Reuses the machinery of ``benchmarks/run.py`` (interleaved repeats, medians,
reference / ours ratios) for the cases where users wait:

* ``grouped_ap``, ``grouped_default``: 10^7 rows in 10^3 groups against the
  same rows as one group (the "floor" column: the one-group call), average
  precision and the default estimator;
* ``boot``: 1,000 stratified bootstrap replicates at 10^5 and 10^6 rows, for
  AUCPR (average precision) and AUROC, against a scikit-learn row loop (run
  on fewer replicates and scaled);
* ``paired``: a paired AUCPR bootstrap (1,000 replicates, 50 groups x 4,000
  rows) against a scikit-learn loop over groups and replicates;
* ``allpairs``: a paired AUCPR bootstrap of all 190 pairs of 20 scores on
  2*10^5 rows (one group, 1,000 replicates) against a scikit-learn loop
  (20 average precisions per replicate, run on 5 replicates and scaled);
* ``many``: 10^5 groups of 20 rows x 1,000 replicates in a child process
  (wall time and peak resident memory), against pandas groupby + a
  scikit-learn loop timed on a few groups and replicates and scaled.

Usage (from the repository root)::

    python benchmarks/speed.py                       # all cases, writes benchmarks/speed_results.md
    python benchmarks/speed.py --quick               # 10x smaller data, 1 repeat (smoke test)
    python benchmarks/speed.py --cases grouped_ap,boot --repeats 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from run import Case, fmt_seconds, grouped, machine, scores, table


def stratified_rows(rng: np.random.Generator, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Row indices of one stratified bootstrap replicate (rows resampled within each class)."""
    return np.concatenate((rng.choice(pos, pos.size), rng.choice(neg, neg.size)))


def grouped_cases(n: int, n_groups: int) -> list[Case]:
    import polars as pl

    from aucpr_stats.api import aucpr
    from aucpr_stats.estimators import DEFAULT_PR_ESTIMATOR

    g, y, s = grouped(np.random.default_rng(11), n_groups, n // n_groups)
    data = pl.DataFrame({"g": g, "y": y, "s": s})
    cases = []
    for label, estimator, target in (("ap", "average_precision", "ours / one group <= 2x"),
                                     ("default", DEFAULT_PR_ESTIMATOR, "ours / one group <= 2.5x")):
        cases.append(Case(
            name=f"grouped_{label}",
            description=f"{estimator}, {n:.0e} rows in {n_groups:.0e} groups vs the same rows as one group",
            ours=lambda e=estimator: aucpr(data, "y", "s", by="g", estimator=e).estimates,
            floor=lambda e=estimator: aucpr(data, "y", "s", estimator=e).estimates,
            floor_label="the same rows, one group",
            target=target,
        ))
    return cases


def boot_case(metric: str, n: int, n_boot: int, reference_boot: int) -> Case:
    import polars as pl
    from sklearn.metrics import average_precision_score, roc_auc_score

    from aucpr_stats.api import aucpr, auroc

    y, s = scores(np.random.default_rng(12), n)
    data = pl.DataFrame({"y": y, "s": s})
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    score_fn = average_precision_score if metric == "aucpr" else roc_auc_score

    def ours():
        result = (aucpr(data, "y", "s", estimator="average_precision") if metric == "aucpr"
                  else auroc(data, "y", "s"))
        return result.conf_int(method="bootstrap", n_boot=n_boot, seed=5)

    def reference():
        rng = np.random.default_rng(5)
        out = np.empty(reference_boot)
        for b in range(reference_boot):
            rows = stratified_rows(rng, pos, neg)
            out[b] = score_fn(y[rows], s[rows])
        return np.quantile(out, [0.025, 0.975])

    return Case(
        name=f"boot_{metric}_{n:.0e}",
        description=f"{n_boot} bootstrap replicates, {metric} ({'average precision' if metric == 'aucpr' else 'AUC'}),"
                    f" {n:.0e} rows (ours includes the call)",
        ours=ours,
        reference=reference,
        reference_label=f"loop over sklearn (timed on {reference_boot} replicates, scaled)",
        reference_scale=n_boot / reference_boot,
        target=">= 40x" if n >= 10**6 else ">= 30x",
        max_repeats=3 if n < 10**6 else 1,
    )


def paired_case(n_groups: int, size: int, n_boot: int, reference_boot: int,
                estimator: str | None = "average_precision") -> Case:
    """``estimator=None``: the default estimator (then ``compare`` is called without ``estimator=``)."""
    import polars as pl
    from sklearn.metrics import average_precision_score

    from aucpr_stats.compare import compare

    rng = np.random.default_rng(13)
    g, y, a = grouped(rng, n_groups, size)
    b = a + rng.standard_normal(a.size)  # a second, correlated score
    data = pl.DataFrame({"g": g, "y": y, "a": a, "b": b})

    chosen = {} if estimator is None else {"estimator": estimator}

    def ours():
        return compare(data, "y", ["a", "b"], by="g", metric="aucpr", method="bootstrap", n_boot=n_boot, seed=1,
                       **chosen)

    def reference():
        rng = np.random.default_rng(1)
        out = np.empty((n_groups, reference_boot))
        for k in range(n_groups):
            rows_k = np.flatnonzero(g == k)
            yk, ak, bk = y[rows_k], a[rows_k], b[rows_k]
            pos, neg = np.flatnonzero(yk), np.flatnonzero(~yk)
            for r in range(reference_boot):
                rows = stratified_rows(rng, pos, neg)
                out[k, r] = average_precision_score(yk[rows], ak[rows]) - average_precision_score(yk[rows], bk[rows])
        return out

    return Case(
        name="paired",
        description=f"paired AUCPR bootstrap ({estimator or 'default estimator'}), {n_boot} replicates, "
                    f"{n_groups} groups x "
                    f"{size} rows",
        ours=ours,
        reference=reference,
        reference_label=f"loop over sklearn (timed on {reference_boot} replicates, scaled)",
        reference_scale=n_boot / reference_boot,
        target=">= 30x",
        max_repeats=3,
    )


def allpairs_case(n: int, n_scores: int, n_boot: int, reference_boot: int,
                  estimator: str | None = "average_precision") -> Case:
    """``estimator=None``: the default estimator (then ``compare`` is called without ``estimator=``)."""
    import polars as pl
    from sklearn.metrics import average_precision_score

    from aucpr_stats.compare import compare

    rng = np.random.default_rng(16)
    y, s = scores(rng, n)
    columns = {f"s{k}": s + rng.standard_normal(n) * (0.5 + 0.05 * k) for k in range(n_scores)}  # correlated
    data = pl.DataFrame({"y": y, **columns})
    matrix = np.column_stack(list(columns.values()))
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)

    chosen = {} if estimator is None else {"estimator": estimator}

    def ours():
        return compare(data, "y", list(columns), metric="aucpr", method="bootstrap", n_boot=n_boot, seed=1,
                       **chosen)

    def reference():
        rng = np.random.default_rng(1)
        out = np.empty((reference_boot, n_scores * (n_scores - 1) // 2))
        upper = np.triu_indices(n_scores, 1)
        for r in range(reference_boot):
            rows = stratified_rows(rng, pos, neg)
            yr = y[rows]
            ap = np.array([average_precision_score(yr, matrix[rows, k]) for k in range(n_scores)])
            out[r] = (ap[:, None] - ap[None, :])[upper]  # every pair's difference
        return out

    return Case(
        name="allpairs",
        description=f"paired AUCPR bootstrap of all pairs of {n_scores} scores ({estimator or 'default estimator'}),"
                    f" {n_boot} "
                    f"replicates, {n:.0e} rows",
        ours=ours,
        reference=reference,
        reference_label=f"loop over sklearn (timed on {reference_boot} replicates, scaled)",
        reference_scale=n_boot / reference_boot,
        target=">= 30x",
        max_repeats=1,
    )


# --------------------------------------------------- many groups (child process)
def vm_bytes(field_name: str) -> int:
    """A field of /proc/self/status (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field_name} not in /proc/self/status")


def many_child(n_groups: int, size: int, n_boot: int) -> dict:
    """10^5 groups x n_boot replicates: wall time and the peak RSS over the baseline."""
    import polars as pl

    from aucpr_stats.api import aucpr

    g, y, s = grouped(np.random.default_rng(14), n_groups, size, prevalence=0.3)
    data = pl.DataFrame({"g": g, "y": y, "s": s})
    aucpr(data.head(1000), "y", "s", by="g").conf_int(method="bootstrap", n_boot=10, seed=1)  # warm up imports
    baseline = vm_bytes("VmRSS")
    with open("/proc/self/clear_refs", "w") as refs:  # reset VmHWM to the current RSS
        refs.write("5")
    start = time.perf_counter()
    frame = aucpr(data, "y", "s", by="g").conf_int(method="bootstrap", n_boot=n_boot, seed=1)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "baseline": baseline, "peak": vm_bytes("VmHWM"), "rows": len(frame)}


def many_reference(n_groups: int, size: int, n_boot: int, ref_groups: int, ref_boot: int) -> float:
    """pandas groupby + a scikit-learn loop, timed on ``ref_groups`` groups x ``ref_boot`` replicates, scaled."""
    import pandas as pd
    from sklearn.metrics import average_precision_score

    g, y, s = grouped(np.random.default_rng(14), n_groups, size, prevalence=0.3)
    frame = pd.DataFrame({"g": g, "y": y, "s": s})
    frame = frame[frame["g"] < ref_groups]
    rng = np.random.default_rng(1)

    def per_group(d):
        yk, sk = d["y"].to_numpy(), d["s"].to_numpy()
        pos, neg = np.flatnonzero(yk), np.flatnonzero(~yk)
        reps = [average_precision_score(yk[r], sk[r]) for r in (stratified_rows(rng, pos, neg)
                                                                for _ in range(ref_boot))]
        return np.quantile(reps, [0.025, 0.975])

    start = time.perf_counter()
    frame.groupby("g").apply(per_group, include_groups=False)
    return (time.perf_counter() - start) * (n_groups / ref_groups) * (n_boot / ref_boot)


def many_note(n_groups: int, size: int, n_boot: int) -> str:
    out = subprocess.run([sys.executable, __file__, "--child", str(n_groups), str(size), str(n_boot)],
                         check=False, capture_output=True, text=True, cwd=HERE.parent)
    if out.returncode:
        return f"- many groups: failed: {(out.stderr or out.stdout).strip().splitlines()[-1]}"
    m = json.loads(out.stdout.strip().splitlines()[-1])
    ref = many_reference(n_groups, size, n_boot, ref_groups=20, ref_boot=20)
    return (f"- Many groups: {n_groups:,} groups of {size} rows x {n_boot:,} replicates (default estimator, "
            f"bootstrap interval, child process): {fmt_seconds(m['seconds'])}, peak RSS "
            f"{m['peak'] / 2**20:.0f} MiB ({(m['peak'] - m['baseline']) / 2**20:.0f} MiB over a baseline of "
            f"{m['baseline'] / 2**20:.0f} MiB); pandas groupby + sklearn loop (average precision, timed on 20 groups"
            f" x 20 replicates, scaled) {fmt_seconds(ref)}: **{ref / m['seconds']:.1f}x**. Target: within 1 GB, "
            ">= 50x.")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10x smaller data, 1 repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default="grouped_ap,grouped_default,boot,paired,allpairs,many")
    parser.add_argument("--out", default=str(HERE / "speed_results.md"))
    parser.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(many_child(*args.child)))
        return

    warnings.simplefilter("ignore")
    scale = 10 if args.quick else 1
    repeats = 1 if args.quick else args.repeats
    wanted = args.cases.split(",")
    started = time.perf_counter()
    header = machine()
    print(header, flush=True)
    cases: list[Case] = []
    grouped_all = grouped_cases(10**7 // scale, 10**3) if {"grouped_ap", "grouped_default"} & set(wanted) else []
    cases += [c for c in grouped_all if c.name in wanted]
    if "boot" in wanted:
        for n, reference_boot in ((10**5, 50), (10**6, 5)):
            for metric in ("aucpr", "auroc"):
                cases.append(boot_case(metric, n // scale, 1000 // scale, reference_boot))
    if "paired" in wanted:
        cases.append(paired_case(50, 4000 // scale, 1000 // scale, reference_boot=10))
    if "allpairs" in wanted:
        cases.append(allpairs_case(2 * 10**5 // scale, 20, 1000 // scale, reference_boot=5))
    for case in cases:
        case.run(repeats, reference_repeats=1)
        print(f"{case.name}: " + ", ".join(f"{k} {fmt_seconds(v)}" for k, v in case.medians().items()), flush=True)
    notes = []
    if "many" in wanted:
        notes.append(many_note(10**5 // scale, 20, 1000))
        print(notes[-1], flush=True)
    text = "\n".join([
        f"Machine: {header}.",
        (f"{repeats} interleaved repeats (10^6-row bootstraps and all pairs: 1; references: 1), medians; total "
         f"{time.perf_counter() - started:.0f} s."),
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
