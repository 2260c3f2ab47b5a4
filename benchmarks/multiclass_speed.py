"""Multiclass areas against scikit-learn, side by side in one process: 10^6 rows x 5 classes, and 10^4 groups.

Run: ``python benchmarks/multiclass_speed.py`` (``--quick`` for 10^5 rows and 10^3 groups). Writes
``benchmarks/multiclass_speed_results.md``. Each timing is the best of ``--repeat`` runs (default 3);
scikit-learn's loop over groups is timed on every group (it has no grouped form). The values of both are
compared (largest absolute difference), so a faster wrong answer cannot pass unnoticed.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import sklearn
from sklearn.metrics import average_precision_score, roc_auc_score

from _provenance import commit, machine

from aucpr_stats import aucpr, auroc

OUT = Path(__file__).with_name("multiclass_speed_results.md")


def data(n_rows: int, n_levels: int, n_groups: int, seed: int = 1) -> pl.DataFrame:
    """A multinomial-logit model: latent z = 1.2 * [class] + N(0, 1), probabilities by softmax."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_levels, n_rows)
    z = rng.normal(size=(n_rows, n_levels)) + 1.2 * (y[:, None] == np.arange(n_levels))
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return pl.DataFrame({"g": np.sort(rng.integers(0, n_groups, n_rows)), "y": y,
                         **{f"p_{k}": p[:, k] for k in range(n_levels)}})


def best(fn, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def ungrouped(frame: pl.DataFrame, repeat: int) -> list[tuple]:
    k = sum(c.startswith("p_") for c in frame.columns)
    y, p = frame["y"].to_numpy(), frame.select([f"p_{j}" for j in range(k)]).to_numpy()
    onehot = (y[:, None] == np.arange(k)).astype(int)
    cases = [
        ("AUROC one-vs-rest, macro", lambda: auroc(frame, "y", "p_{level}", multiclass="ovr", average="macro").estimate,
         lambda: roc_auc_score(y, p, multi_class="ovr", average="macro")),
        ("AUROC Hand & Till (one-vs-one, macro)", lambda: auroc(frame, "y", "p_{level}", multiclass="hand_till").estimate,
         lambda: roc_auc_score(y, p, multi_class="ovo", average="macro")),
        ("average precision one-vs-rest, macro",
         lambda: aucpr(frame, "y", "p_{level}", multiclass="ovr", average="macro", ties="published").estimate,
         lambda: average_precision_score(onehot, p, average="macro")),
        ("AUROC micro", lambda: auroc(frame, "y", "p_{level}", multiclass="ovr", average="micro").estimate,
         lambda: roc_auc_score(onehot.ravel(), p.ravel())),
    ]
    rows = []
    for name, ours, theirs in cases:
        t_ours, v_ours = best(ours, repeat)
        t_theirs, v_theirs = best(theirs, repeat)
        rows.append((name, t_ours, t_theirs, abs(v_ours - v_theirs)))
    t_ci, _ = best(lambda: auroc(frame, "y", "p_{level}", multiclass="ovr", average="all").conf_int("delong"), repeat)
    rows.append(("AUROC one-vs-rest, every class and average, with multivariate DeLong intervals", t_ci,
                 float("nan"), float("nan")))
    return rows


def grouped(frame: pl.DataFrame, repeat: int) -> list[tuple]:
    k = sum(c.startswith("p_") for c in frame.columns)
    parts = frame.partition_by("g", maintain_order=True)
    arrays = [(f["y"].to_numpy(), f.select([f"p_{j}" for j in range(k)]).to_numpy()) for f in parts]

    def loop(kind: str) -> np.ndarray:
        out = []
        for y, p in arrays:
            if kind == "ap":
                out.append(average_precision_score((y[:, None] == np.arange(k)).astype(int), p, average="macro"))
            else:
                out.append(roc_auc_score(y, p, multi_class=kind, average="macro", labels=np.arange(k)))
        return np.array(out)

    def ours(metric, **kw) -> np.ndarray:
        result = metric(frame, "y", "p_{level}", "g", **kw).to_polars()
        return result.filter(pl.col("class") == "macro")["estimate"].to_numpy()

    cases = [("AUROC one-vs-rest, macro", lambda: ours(auroc, multiclass="ovr", average="macro"), lambda: loop("ovr")),
             ("AUROC Hand & Till", lambda: ours(auroc, multiclass="hand_till"), lambda: loop("ovo")),
             ("average precision one-vs-rest, macro",
              lambda: ours(aucpr, multiclass="ovr", average="macro", ties="published"), lambda: loop("ap"))]
    rows = []
    for name, mine, theirs in cases:
        t_ours, v_ours = best(mine, repeat)
        t_theirs, v_theirs = best(theirs, 1)  # the loop is long: once
        rows.append((name, t_ours, t_theirs, float(np.nanmax(np.abs(v_ours - v_theirs)))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n_rows = 100_000 if args.quick else 1_000_000
    n_groups = 1_000 if args.quick else 10_000
    warnings.simplefilter("ignore")
    big = ungrouped(data(n_rows, 5, 1), args.repeat)
    many = grouped(data(n_rows, 5, n_groups, seed=2), args.repeat)
    lines = [f"# Multiclass areas against scikit-learn {sklearn.__version__}", "",
             f"Machine: {machine()}. Commit: {commit()}. Best of {args.repeat} runs (scikit-learn's loop over "
             "groups once); both in one process, the same data. Made by `benchmarks/multiclass_speed.py`.", "",
             f"## {n_rows:,} rows, 5 classes, one group", "",
             "| statistic | aucpr_stats (s) | scikit-learn (s) | ratio | largest difference |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {n} | {a:.3f} | {b:.3f} | {b / a:.1f}x | {d:.1e} |" if np.isfinite(b) else
              f"| {n} | {a:.3f} | no intervals | | |" for n, a, b, d in big]
    lines += ["", f"## {n_groups:,} groups of about {n_rows // n_groups} rows, 5 classes", "",
              "aucpr_stats: one grouped call; scikit-learn: a Python loop over the groups.", "",
              "| statistic | aucpr_stats (s) | scikit-learn loop (s) | ratio | largest difference |",
              "|---|---:|---:|---:|---:|"]
    lines += [f"| {n} | {a:.3f} | {b:.3f} | {b / a:.0f}x | {d:.1e} |" for n, a, b, d in many]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
