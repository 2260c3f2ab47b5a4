r"""Coverage of the multiclass AUROC and AUCPR intervals, and size of the paired comparison, by simulation.

What is simulated
-----------------
A multinomial-logit model. Row ``i`` of class ``y_i`` in ``0..K-1`` has latent
``z_ik = delta * 1[y_i = k] + e_ik``, ``e_ik ~ N(0, 1)`` independent, and the model's probabilities are
``p_ik = softmax(z_i)_k`` (columns ``p_0..p_{K-1}``; in the frame ``a_k`` for model A). Two separations:
``delta = 0.9`` (**moderate**: macro one-vs-rest AUROC 0.788 for K = 3, 0.766 for K = 5) and ``delta = 2.4``
(**strong**: 0.987 and 0.982). The class counts are **fixed** per data set (the class-stratified design the
library's DeLong variance and bootstrap assume):

* ``balanced``: ``n`` rows of every class;
* ``imbalanced``: class ``k`` has ``round(n * w_k / w_min)`` rows (half up), ``w = (1, 1/2, 1/4)`` for K = 3
  and ``w = (1, 1/2, 1/3, 1/4, 1/5)`` for K = 5: class 0 the largest, the **smallest class has exactly n rows**
  (K = 3: ``4n, 2n, n``; K = 5: ``5n, 2.5n, 1.67n, 1.25n, n`` rounded).

``n`` (the smallest class's size) is 20, 50, 200 and, for the DeLong cells only, 500. Grid: K in {3, 5} x
balanced / imbalanced x moderate / strong x ``n``. All replicates of a batch are one polars frame (``rep, y,
a_0.., b_0..``) and every method is one grouped call (``by="rep"``) per batch:

1. **Coverage** of the 95% intervals (``conf_int(...).to_frame()``) of

   * ``auroc(d, "y", "a_{level}", by="rep", multiclass="ovr", average="all")`` with ``method="delong"``
     (per-class rows, macro, weighted, micro) and ``method="bootstrap", n_boot=400``;
   * ``auroc(..., multiclass="hand_till")`` with ``method="delong"`` (Hand & Till's M = the ``macro`` row;
     the pair rows are reported too);
   * ``aucpr(..., multiclass="ovr", average="all")`` (average precision) with ``method="bootstrap",
     n_boot=400``.

   Per cell and row type: coverage (the share of finite intervals with ``lower <= truth <= upper``), its Monte
   Carlo SE, the misses below (``upper < truth``) and above, the mean width, the ratio of the mean SE to the
   empirical SD of the estimates (``se/sd``), the mean error (estimate - truth) and the NaN intervals. The
   per-class rows are pooled over the classes (coverage over all ``R x K`` intervals; the worst single class
   is also given); their Monte Carlo SE treats the data set as the unit (the cluster-robust SE of a ratio,
   ``sqrt(sum_r (c_r - p m_r)^2) / sum_r m_r`` with ``c_r`` intervals covering out of ``m_r`` in data set
   ``r``), which for one row per data set is ``sqrt(p (1 - p) / R)``.

2. **Size** of the paired comparison of two models with equal true areas: model B's probabilities are an
   independent draw from the same model on the same rows (``b_ik``: the same ``delta``, fresh ``e_ik``).
   ``auroc(d, "y", {"A": "a_{level}", "B": "b_{level}"}, by="rep", multiclass="ovr", average=["macro",
   "weighted"]).compare(method="delong")`` (per-class rows, macro, weighted), and ``aucpr(...,
   multiclass="ovr", average="macro").compare(method="bootstrap", n_boot=400)`` (the bootstrap on the same
   data sets as the bootstrap intervals). Size: the share of
   two-sided p-values below 0.05 (Monte Carlo SE as above), with the se/sd ratio of the difference.

**Truths**: the library's own point estimates on one very large sample: per K and separation one balanced
sample of 400,000 rows per class, and for each distinct class mix of the grid (the cell's counts divided by
their gcd; the K = 5 imbalanced mixes differ slightly between n by the rounding) the estimates with each
class-``j`` row weighted by the mix (``weights=``; frequency weights, the same numbers as replicating the
classes in the mix's proportions), so every estimand (per-class, macro, weighted at the design's class shares,
micro) is the population value at exactly the cell's mix. Hand & Till's pairs and M do not depend on the mix
(computed once, unweighted). A bound on the truth's Monte Carlo SE (``truth_errors``) is compared with the
narrowest mean interval width of the cells that use that truth.

Replicates: 1000 data sets per DeLong cell (and the DeLong comparison), the first 300 of the same data sets
for the bootstrap cells (``n_boot = 400``; 400 would take the whole run past an hour on one core), in batches
of 200 data sets per call. Seeds: batch ``b`` of cell
``c`` draws its data from ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(1, c, b)))``, the cells
numbered in the order of the JSON; its bootstrap seeds are ``SeedSequence(seed, spawn_key=(2, c, b, j))
.generate_state(1)[0]`` for call ``j`` (0 AUROC, 1 AUCPR, 2 AUCPR comparison); the truth sample of K and
separation draws from ``SeedSequence(seed, spawn_key=(3, K, delta index))``. Default seed 20261201.

Run (one core; the library, BLAS and polars limited to one thread)::

    AUCPR_STATS_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 taskset -c 1 \
        python benchmarks/multiclass_coverage.py
    python benchmarks/multiclass_coverage.py --quick --out /tmp/mc_quick.md    # a smoke test, about a minute
    python benchmarks/multiclass_coverage.py --render benchmarks/multiclass_coverage_results.json \
        --reading reading.md   # only rewrite the page (with a hand-written reading) from a run's JSON
"""

from __future__ import annotations

import os

os.environ.setdefault("AUCPR_STATS_THREADS", "1")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "POLARS_MAX_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import json
import re
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats

from aucpr_stats import aucpr, auroc
from _provenance import commit, machine  # noqa: E402

HERE = Path(__file__).resolve().parent
KS = (3, 5)
BALANCES = ("balanced", "imbalanced")
SEPARATIONS = {"moderate": 0.9, "strong": 2.4}
SIZES = (20, 50, 200, 500)  # the smallest class's size
BOOT_SIZES = (20, 50, 200)  # the bootstrap cells
IMBALANCE = {3: (1, 1 / 2, 1 / 4), 5: (1, 1 / 2, 1 / 3, 1 / 4, 1 / 5)}
TRUTH_SMALLEST = 400_000
TARGET = 0.936  # "holds 95% within Monte Carlo error" (95% less ~2 Monte Carlo SEs of 1000 replicates)
ALPHA = 0.05

#: Coverage methods: key -> (label, metric, scheme, interval method, the row types reported).
COVERAGE = {
    "auroc_ovr_delong": ("AUROC one-vs-rest, DeLong", "auroc", "ovr", "delong",
                         ("class", "macro", "weighted", "micro")),
    "auroc_ht_delong": ("AUROC Hand & Till M, DeLong", "auroc", "hand_till", "delong", ("macro", "pair")),
    "auroc_ovr_bootstrap": ("AUROC one-vs-rest, bootstrap", "auroc", "ovr", "bootstrap",
                            ("class", "macro", "micro", "weighted")),
    "aucpr_ovr_bootstrap": ("AUCPR one-vs-rest, bootstrap", "aucpr", "ovr", "bootstrap",
                            ("class", "macro", "weighted", "micro")),
}
#: Size methods: key -> (label, the row types reported).
SIZE = {
    "auroc_ovr_delong_compare": ("AUROC one-vs-rest, DeLong paired test", ("macro", "class", "weighted")),
    "aucpr_ovr_bootstrap_compare": ("AUCPR one-vs-rest, bootstrap paired test", ("macro", "class")),
}
#: The row types whose "smallest n" is reported (the brief's list).
HEADLINE = {"auroc_ovr_delong": ("class", "macro", "weighted", "micro"), "auroc_ht_delong": ("macro",),
            "auroc_ovr_bootstrap": ("class", "macro", "micro"),
            "aucpr_ovr_bootstrap": ("class", "macro", "weighted", "micro")}


# ------------------------------------------------------------------ design
def class_counts(k: int, balance: str, n: int) -> np.ndarray:
    """The rows of each class: ``n`` each, or ``round(n * w_k / w_min)`` (half up) for the imbalanced mix."""
    if balance == "balanced":
        return np.full(k, n, dtype=np.int64)
    w = np.asarray(IMBALANCE[k])
    return np.floor(n * w / w.min() + 0.5).astype(np.int64)


def softmax(z: np.ndarray) -> np.ndarray:
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def simulate(rng: np.random.Generator, reps: int, counts: np.ndarray, delta: float, first_rep: int = 0,
             models: str = "ab") -> pl.DataFrame:
    """``reps`` data sets with fixed class counts: rep, y, and per model ``m`` the probabilities ``m_0..``."""
    k = counts.size
    n = int(counts.sum())
    y = np.tile(np.repeat(np.arange(k, dtype=np.int8), counts), reps)
    shift = delta * (y[:, None] == np.arange(k))
    columns = {"rep": np.repeat(np.arange(first_rep, first_rep + reps, dtype=np.int32), n), "y": y}
    for m in models:
        p = softmax(rng.standard_normal((reps * n, k)) + shift)
        columns.update({f"{m}_{c}": p[:, c] for c in range(k)})
    return pl.DataFrame(columns)


def row_type(label: str) -> str:
    if label.isdigit():
        return "class"
    if " vs " in label:
        return "pair"
    return label


def warning_key(w: warnings.WarningMessage) -> str:
    return f"{w.category.__name__}: {re.sub(r'[0-9]+', '#', str(w.message))[:160]}"


def note_counts(notes: pl.Series) -> dict:
    texts = [re.sub(r"[0-9]+", "#", n) for n in notes.drop_nulls().to_list()]
    return dict(Counter(texts))


# ------------------------------------------------------------------ truths
def truth_sample(seed: int, k: int, delta_index: int, delta: float) -> pl.DataFrame:
    """One balanced sample of TRUTH_SMALLEST rows per class (model A's columns only)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3, k, delta_index)))
    return simulate(rng, 1, np.full(k, TRUTH_SMALLEST, dtype=np.int64), delta, models="a")


def mix_key(counts: np.ndarray) -> tuple:
    return tuple(int(c) for c in counts // np.gcd.reduce(counts))


def truths(sample: pl.DataFrame, counts: np.ndarray, hand_till: dict | None = None) -> dict:
    """Every estimand at the class mix ``counts``: the library's estimates on the balanced ``sample`` with each
    class-``j`` row weighted ``counts[j]`` (frequency weights: the same numbers as the sample with its classes
    replicated in the mix's proportions; checked to 0 on a small frame). Hand & Till's pairs and M do not depend
    on the mix (a pair uses its two classes' rows only; M is their unweighted mean): computed once, unweighted."""
    t0 = time.perf_counter()
    mix = mix_key(counts)
    balanced = len(set(mix)) == 1
    data = sample if balanced else sample.with_columns(
        pl.Series("w", np.asarray(mix, dtype=np.float64)[sample["y"].to_numpy()]))
    weights = None if balanced else "w"
    out = {"mix": list(mix), "rows": sample.height, "per_class": TRUTH_SMALLEST, "values": {}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, (_, metric, scheme, _, _) in COVERAGE.items():
            if key == "auroc_ovr_bootstrap":  # the same estimand as the DeLong rows
                out["values"][key] = out["values"]["auroc_ovr_delong"]
                continue
            if scheme == "hand_till" and hand_till is not None:
                out["values"][key] = hand_till
                continue
            fn = auroc if metric == "auroc" else aucpr
            if scheme == "hand_till":
                res = fn(sample, "y", "a_{level}", multiclass=scheme)
            else:
                res = fn(data, "y", "a_{level}", multiclass=scheme, average="all", weights=weights)
            frame = res.to_frame()
            out["values"][key] = dict(zip(frame["class"].to_list(), frame["estimate"].to_list()))
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


# ------------------------------------------------------------------ one batch
def _arrays(frame: pl.DataFrame, reps: int, columns: tuple) -> tuple[list, dict]:
    """The frame (group-major, rows in layout order) as (reps, n_rows) arrays."""
    labels = frame["class"].to_list()
    n_rows = len(labels) // reps
    labels = labels[:n_rows]
    assert frame["class"].to_list() == labels * reps, "unexpected row order"
    return labels, {c: frame[c].to_numpy().astype(np.float64).reshape(reps, n_rows) for c in columns}


def batch_run(d: pl.DataFrame, reps: int, boot_reps: int, n_boot: int, boot_seeds: list[int], sink: dict,
              seconds: Counter, warn: Counter, notes: dict) -> None:
    """Every method on one batch of ``reps`` data sets (the bootstrap on its first ``boot_reps``); appends the
    (data sets, rows) arrays to ``sink[method]``."""

    def keep(key: str, frame: pl.DataFrame, columns: tuple, n: int = reps) -> None:
        labels, arrays = _arrays(frame, n, columns)
        sink.setdefault(key, {"labels": labels, "parts": []})["parts"].append(arrays)
        for text, count in note_counts(frame["note"]).items():
            notes.setdefault(key, Counter())[text] += count

    interval_columns = ("estimate", "lower", "upper", "se")
    compare_columns = ("difference", "se", "lower", "upper", "p_value")
    two = {"A": "a_{level}", "B": "b_{level}"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = time.perf_counter()
        r = auroc(d, "y", "a_{level}", by="rep", multiclass="ovr", average="all")
        keep("auroc_ovr_delong", r.conf_int(method="delong").to_frame(), interval_columns)
        h = auroc(d, "y", "a_{level}", by="rep", multiclass="hand_till")
        keep("auroc_ht_delong", h.conf_int(method="delong").to_frame(), interval_columns)
        seconds["delong"] += time.perf_counter() - t
        t = time.perf_counter()
        rc = auroc(d, "y", two, by="rep", multiclass="ovr", average=["macro", "weighted"])
        keep("auroc_ovr_delong_compare", rc.compare(method="delong").to_frame(), compare_columns)
        seconds["delong_compare"] += time.perf_counter() - t
        if boot_reps > 0:
            t = time.perf_counter()
            part = d if boot_reps == reps else d.filter(pl.col("rep") < pl.col("rep").min() + boot_reps)
            if boot_reps != reps:
                r = auroc(part, "y", "a_{level}", by="rep", multiclass="ovr", average="all")
            keep("auroc_ovr_bootstrap", r.conf_int(method="bootstrap", n_boot=n_boot, seed=boot_seeds[0],
                                                   progress=False).to_frame(), interval_columns, boot_reps)
            seconds["auroc_bootstrap"] += time.perf_counter() - t
            t = time.perf_counter()
            a = aucpr(part, "y", "a_{level}", by="rep", multiclass="ovr", average="all")
            keep("aucpr_ovr_bootstrap", a.conf_int(method="bootstrap", n_boot=n_boot, seed=boot_seeds[1],
                                                   progress=False).to_frame(), interval_columns, boot_reps)
            seconds["aucpr_bootstrap"] += time.perf_counter() - t
            t = time.perf_counter()
            ac = aucpr(part, "y", two, by="rep", multiclass="ovr", average="macro")
            keep("aucpr_ovr_bootstrap_compare", ac.compare(method="bootstrap", n_boot=n_boot, seed=boot_seeds[2],
                                                           progress=False).to_frame(), compare_columns, boot_reps)
            seconds["aucpr_bootstrap_compare"] += time.perf_counter() - t
    for w in caught:
        warn[warning_key(w)] += 1


# ------------------------------------------------------------------ summaries
def _clustered(hit: np.ndarray, ok: np.ndarray) -> tuple[float, float, int]:
    """Share of ``hit`` among ``ok`` entries of a (reps, rows) array, with the data set as the unit."""
    c, m = (hit & ok).sum(axis=1).astype(float), ok.sum(axis=1).astype(float)
    total = m.sum()
    if total == 0:
        return float("nan"), float("nan"), 0
    p = c.sum() / total
    return float(p), float(np.sqrt(np.sum((c - p * m) ** 2)) / total), int(total)


def coverage_summary(arrays: dict, labels: list, truth: dict, rows: tuple) -> dict:
    est, lo, hi, se = (arrays[c] for c in ("estimate", "lower", "upper", "se"))
    t = np.array([truth[lab] for lab in labels])[None, :]
    out = {}
    for kind in rows:
        cols = [i for i, lab in enumerate(labels) if row_type(lab) == kind]
        if not cols:
            continue
        e, l, u, s, tt = est[:, cols], lo[:, cols], hi[:, cols], se[:, cols], t[:, cols]
        ok = np.isfinite(l) & np.isfinite(u)
        cov, mcse, n = _clustered((l <= tt) & (tt <= u), ok)
        below, _, _ = _clustered(u < tt, ok)
        above, _, _ = _clustered(l > tt, ok)
        per_col = [_clustered(((l <= tt) & (tt <= u))[:, [j]], ok[:, [j]])[0] for j in range(len(cols))]
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = [float(np.nanmean(s[:, j]) / np.nanstd(e[:, j], ddof=1)) for j in range(len(cols))]
        out[kind] = {
            "coverage": cov, "mc_se": mcse, "n_intervals": n, "n_reps": int(e.shape[0]),
            "n_nan": int((~ok).sum()), "below": below, "above": above,
            "width": float(np.mean((u - l)[ok])) if n else float("nan"),
            "se_sd_ratio": float(np.mean(ratios)), "error": float(np.nanmean(e - tt)),
            "sd": float(np.mean(np.nanstd(e, axis=0, ddof=1))),
            "mean_se": float(np.nanmean(s)),
            "truth": float(np.mean(tt)),
        }
        if len(cols) > 1:
            out[kind]["by_label"] = {labels[c]: {"coverage": per_col[j], "se_sd_ratio": ratios[j]}
                                     for j, c in enumerate(cols)}
            out[kind]["worst"] = float(np.nanmin(per_col))
            out[kind]["worst_label"] = labels[cols[int(np.nanargmin(per_col))]]
    return out


def size_summary(arrays: dict, labels: list, rows: tuple) -> dict:
    diff, se, p = arrays["difference"], arrays["se"], arrays["p_value"]
    out = {}
    for kind in rows:
        cols = [i for i, lab in enumerate(labels) if row_type(lab) == kind]
        if not cols:
            continue
        pv, d, s = p[:, cols], diff[:, cols], se[:, cols]
        ok = np.isfinite(pv)
        rate, mcse, n = _clustered(pv < ALPHA, ok)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = [float(np.nanmean(s[:, j]) / np.nanstd(d[:, j], ddof=1)) for j in range(len(cols))]
        out[kind] = {"size": rate, "mc_se": mcse, "n_tests": n, "n_reps": int(d.shape[0]),
                     "n_nan": int((~ok).sum()), "se_sd_ratio": float(np.mean(ratios)),
                     "mean_difference": float(np.nanmean(d))}
    return out


def run_cell(seed: int, index: int, k: int, balance: str, sep: str, n: int, reps: int, boot_reps: int,
             batch: int, n_boot: int, truth: dict) -> dict:
    delta = SEPARATIONS[sep]
    counts = class_counts(k, balance, n)
    boot_cell = n in BOOT_SIZES and boot_reps > 0
    sink: dict = {}
    seconds: Counter = Counter()
    warn: Counter = Counter()
    notes: dict = {}
    start = time.perf_counter()
    for b, first in enumerate(range(0, reps, batch)):
        size = min(batch, reps - first)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, index, b)))
        t = time.perf_counter()
        d = simulate(rng, size, counts, delta, first_rep=first)
        seconds["simulate"] += time.perf_counter() - t
        boot = min(size, max(0, boot_reps - first)) if boot_cell else 0
        boot_seeds = [int(np.random.SeedSequence(seed, spawn_key=(2, index, b, j)).generate_state(1)[0])
                      for j in range(3)]
        batch_run(d, size, boot, n_boot, boot_seeds, sink, seconds, warn, notes)
        del d
    cell = {"cell": index, "k": k, "balance": balance, "separation": sep, "delta": delta, "n": n,
            "counts": counts.tolist(), "rows_per_data_set": int(counts.sum()), "reps": reps,
            "boot_reps": boot_reps if boot_cell else 0, "n_boot": n_boot if boot_cell else 0,
            "coverage": {}, "size": {}, "warnings": dict(warn),
            "notes": {key: dict(v) for key, v in notes.items()},
            "seconds": {key: round(v, 2) for key, v in seconds.items()}}
    for key, got in sink.items():
        arrays = {c: np.concatenate([p[c] for p in got["parts"]]) for c in got["parts"][0]}
        if key in COVERAGE:
            cell["coverage"][key] = coverage_summary(arrays, got["labels"], truth["values"][key], COVERAGE[key][4])
        else:
            cell["size"][key] = size_summary(arrays, got["labels"], SIZE[key][1])
    cell["seconds"]["total"] = round(time.perf_counter() - start, 2)
    return cell


# ------------------------------------------------------------------ the page
def pct(c, se=None, bold: bool = True) -> str:
    if c is None or not np.isfinite(c):
        return "–"
    text = f"{100 * c:.1f}" + (f" ({100 * se:.1f})" if se is not None else "")
    return f"**{text}**" if bold and c < TARGET else text


def scenarios(cells: list) -> list[tuple]:
    seen = []
    for c in cells:
        s = (c["k"], c["balance"], c["separation"])
        if s not in seen:
            seen.append(s)
    return seen


def find(cells: list, k: int, balance: str, sep: str, n: int) -> dict | None:
    for c in cells:
        if (c["k"], c["balance"], c["separation"], c["n"]) == (k, balance, sep, n):
            return c
    return None


def sizes_of(cells: list, key: str, table: str = "coverage") -> list[int]:
    return sorted({c["n"] for c in cells if key in c[table]})


def holds(v: dict, rule: str) -> bool:
    """``strict``: coverage >= TARGET; ``mcse``: not more than 2 of the cell's own Monte Carlo SEs below 95%."""
    c = v["coverage"]
    if not np.isfinite(c):
        return False
    return c >= TARGET if rule == "strict" else c + 2 * v["mc_se"] >= 0.95


def smallest_n(cells: list, key: str, kind: str, separation: str | None = None,
               rule: str = "strict") -> tuple[int | None, list]:
    """The smallest n from which the coverage holds (``holds``) at that n and every larger one, in every scenario
    (of one separation, if given)."""
    cells = [c for c in cells if separation is None or c["separation"] == separation]
    ns = sizes_of(cells, key)
    best = None
    for n in sorted(ns, reverse=True):
        vals = [c["coverage"][key][kind] for c in cells if c["n"] == n and key in c["coverage"]
                and kind in c["coverage"][key]]
        if not vals or not all(holds(v, rule) for v in vals):
            break
        best = n
    return best, ns


def truth_section(res: dict) -> list[str]:
    lines = ["## True values and their Monte Carlo error", "",
             f"Per K and separation one balanced sample of {res['truth_smallest']:,} rows per class (model A); each "
             "class mix's truth is the library's point estimate on it with class-`j` rows weighted by the mix "
             "(`weights=`, frequency weights: identical to replicating the classes in the mix's proportions). "
             "Hand & Till's pairs and M do not depend on the mix (computed once, unweighted). `truth SE`: a bound "
             "on the truth's Monte Carlo SE, `SD * sqrt(max_j c_j / M)` with SD the largest empirical SD of the "
             "estimates over the rows of the largest-n cell of that mix (class counts `c_j`) and M the truth "
             "sample's rows per class (the script's `truth_errors` has the argument); `/ width` divides it by the "
             "narrowest mean interval width of any cell that uses that truth.", "",
             "| K | mix (class weights) | separation | truth rows | AUROC macro (ovr) | micro | Hand & Till M | AUCPR macro | "
             "AUCPR micro | truth SE AUROC (max) | / width | truth SE AUCPR (max) | / width |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, tr in res["truths"].items():
        v = tr["values"]
        lines.append(f"| {tr['k']} | {tr['balance']} {':'.join(map(str, tr['mix']))} | {tr['separation']} | "
                     f"{tr['rows']:,} | {v['auroc_ovr_delong']['macro']:.4f} | {v['auroc_ovr_delong']['micro']:.4f} | "
                     f"{v['auroc_ht_delong']['macro']:.4f} | {v['aucpr_ovr_bootstrap']['macro']:.4f} | "
                     f"{v['aucpr_ovr_bootstrap']['micro']:.4f} | "
                     + (f"{tr['auroc_truth_se']:.1e} | {tr['auroc_truth_se_over_width']:.3f} | "
                        if tr.get("auroc_truth_se") is not None else "– | – | ")
                     + (f"{tr['aucpr_truth_se']:.1e} | {tr['aucpr_truth_se_over_width']:.3f} |"
                        if tr.get("aucpr_truth_se") is not None else "– | – |"))
    worst = max((tr.get("auroc_truth_se_over_width") or 0) for tr in res["truths"].values())
    worst_pr = max((tr.get("aucpr_truth_se_over_width") or 0) for tr in res["truths"].values())
    shift = 2 * 1.959964 * max(worst, worst_pr)  # in units of the interval's SE
    loss = 0.95 - (stats.norm.cdf(1.959964 - shift) - stats.norm.cdf(-1.959964 - shift))
    lines += ["", f"The truth's Monte Carlo SE is at most {100 * max(worst, worst_pr):.1f}% of the narrowest mean "
              f"interval width it is compared with (AUROC {100 * worst:.1f}%, AUCPR {100 * worst_pr:.1f}%): a truth "
              f"off by one such SE ({shift:.3f} of the interval's SE) lowers a normal 95% interval's coverage by "
              f"{100 * loss:.3f} points.", ""]
    return lines


def coverage_tables(res: dict, key: str) -> list[str]:
    cells = res["cells"]
    label, _, _, _, rows = COVERAGE[key]
    ns = sizes_of(cells, key)
    if not ns:
        return []
    reps = sorted({c["coverage"][key][rows[0]]["n_reps"] for c in cells if key in c["coverage"]})
    lines = [f"### {label}", "", f"Replicates per cell: {', '.join(map(str, reps))}. Coverage in percent (Monte "
             f"Carlo SE); **bold** below {100 * TARGET:.1f}%. `class`: all per-class rows pooled (`worst`: the "
             "lowest single class, its label)." + (" `pair`: all pair rows pooled." if "pair" in rows else ""), ""]
    head = ["K", "mix", "sep.", "n"] + [r for r in rows] + (["worst class"] if "class" in rows else []) + \
        (["worst pair"] if "pair" in rows else [])
    lines += ["| " + " | ".join(head) + " |", "|---:|---|---|---:|" + "---:|" * (len(head) - 4)]
    for k, bal, sep in scenarios(cells):
        for n in ns:
            c = find(cells, k, bal, sep, n)
            if c is None or key not in c["coverage"]:
                continue
            r = c["coverage"][key]
            row = [str(k), bal, sep, str(n)] + [pct(r[x]["coverage"], r[x]["mc_se"]) for x in rows]
            for x in ("class", "pair"):
                if x in rows:
                    row.append(f"{pct(r[x]['worst'], bold=False)} ({r[x]['worst_label']})")
            lines.append("| " + " | ".join(row) + " |")
    lines += ["", f"Mean width / se/sd ratio (mean SE over the empirical SD of the estimates) / misses below-above "
              "in percent:", "",
              "| K | mix | sep. | n | " + " | ".join(rows) + " |", "|---:|---|---|---:|" + "---|" * len(rows)]
    for k, bal, sep in scenarios(cells):
        for n in ns:
            c = find(cells, k, bal, sep, n)
            if c is None or key not in c["coverage"]:
                continue
            r = c["coverage"][key]
            lines.append(f"| {k} | {bal} | {sep} | {n} | " + " | ".join(
                f"{r[x]['width']:.4f} / {r[x]['se_sd_ratio']:.2f} / {100 * r[x]['below']:.1f}-{100 * r[x]['above']:.1f}"
                + (f" / NaN {r[x]['n_nan']}" if r[x]["n_nan"] else "") for x in rows) + " |")
    lines.append("")
    return lines


def size_tables(res: dict) -> list[str]:
    cells = res["cells"]
    lines = ["## Size of the paired comparison (true areas equal)", "",
             "Rejection rate in percent of the two-sided test at 5% (Monte Carlo SE), and the se/sd ratio of the "
             "difference. Model B is an independent draw from model A's score distribution on the same rows. "
             f"A size above 6.4% (5% + 2 SE of 1000 replicates) is bold; for the {res['args']['boot_reps']}-replicate "
             f"bootstrap cells 2 SE is {200 * np.sqrt(0.05 * 0.95 / max(res['args']['boot_reps'], 1)):.1f} points.", ""]
    cols = [("auroc_ovr_delong_compare", "macro"), ("auroc_ovr_delong_compare", "class"),
            ("auroc_ovr_delong_compare", "weighted"), ("aucpr_ovr_bootstrap_compare", "macro"),
            ("aucpr_ovr_bootstrap_compare", "class")]
    names = ["AUROC DeLong macro", "AUROC DeLong per class", "AUROC DeLong weighted", "AUCPR bootstrap macro",
             "AUCPR bootstrap per class"]
    lines += ["| K | mix | sep. | n | " + " | ".join(names) + " |", "|---:|---|---|---:|" + "---:|" * len(cols)]

    def fmt(s):
        text = f"{100 * s['size']:.1f} ({100 * s['mc_se']:.1f}) [{s['se_sd_ratio']:.2f}]"
        return f"**{text}**" if s["size"] > 0.064 else text

    for k, bal, sep in scenarios(cells):
        for n in sorted({c["n"] for c in cells}):
            c = find(cells, k, bal, sep, n)
            if c is None:
                continue
            row = [fmt(c["size"][key][kind]) if key in c["size"] and kind in c["size"][key] else "–"
                   for key, kind in cols]
            lines.append(f"| {k} | {bal} | {sep} | {n} | " + " | ".join(row) + " |")
    lines.append("")
    return lines


def failures(res: dict) -> list[str]:
    cells = res["cells"]
    b = res["args"]["boot_reps"]
    two_se = 2 * np.sqrt(0.05 * 0.95 / max(b, 1))
    lines = ["## Where it fails", "",
             f"Cells with coverage below {100 * TARGET:.1f}% (for 1000 replicates more than ~2 Monte Carlo SE below "
             f"95%; for the {b}-replicate bootstrap cells 2 SE is {100 * two_se:.1f} points, so a cell below "
             f"{100 * TARGET:.1f}% but within 2 of its own Monte Carlo SE of 95% is not by itself evidence of "
             "under-coverage: marked †):", ""]
    for key, (label, _, _, _, rows) in COVERAGE.items():
        bad = []
        for c in cells:
            r = c["coverage"].get(key)
            if not r:
                continue
            for kind in rows:
                if kind in r and np.isfinite(r[kind]["coverage"]) and r[kind]["coverage"] < TARGET:
                    v = r[kind]
                    weak = v["coverage"] + 2 * v["mc_se"] >= 0.95
                    bad.append(f"K={c['k']} {c['balance']} {c['separation']} n={c['n']} {kind} "
                               f"{100 * v['coverage']:.1f}{'†' if weak else ''}")
        lines.append(f"* **{label}**: " + ("; ".join(bad) if bad else "none") + ".")
    lines += ["", "Smallest class size n (of the n run) from which the coverage holds at that n and every larger "
              "one, in every scenario (K, mix) of the separation (`all`: both separations); `none`: not even at the "
              f"largest n run. Rule `>= {100 * TARGET:.1f}`: coverage at least {100 * TARGET:.1f}%; rule `2 SE`: "
              "coverage not more than two of the cell's own Monte Carlo SEs below 95% (the fairer rule for the "
              f"{b}-replicate bootstrap cells, whose 2 SE is {100 * two_se:.1f} points).", "",
              f"| method | row | n run | all, >= {100 * TARGET:.1f} | moderate, >= {100 * TARGET:.1f} | "
              f"strong, >= {100 * TARGET:.1f} | all, 2 SE | moderate, 2 SE | strong, 2 SE |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for key, kinds in HEADLINE.items():
        for kind in kinds + tuple(x for x in COVERAGE[key][4] if x not in kinds):
            row = []
            for rule in ("strict", "mcse"):
                for sep in (None, "moderate", "strong"):
                    best, ns = smallest_n(cells, key, kind, sep, rule)
                    row.append("none" if best is None else str(best))
            lines.append(f"| {COVERAGE[key][0]} | {kind}{'' if kind in kinds else ' (extra)'} | "
                         f"{', '.join(map(str, ns))} | " + " | ".join(row) + " |")
    lines.append("")
    lines += ["Coverage range over the grid (percent; min - max over all cells of the row type):", "",
              "| method | row | all n | n >= 50 | n >= 200 |", "|---|---|---:|---:|---:|"]
    for key, kinds in HEADLINE.items():
        for kind in kinds:
            row = []
            for low in (0, 50, 200):
                vals = [c["coverage"][key][kind]["coverage"] for c in cells if c["n"] >= low
                        and key in c["coverage"] and kind in c["coverage"][key]]
                row.append(f"{100 * min(vals):.1f} - {100 * max(vals):.1f}" if vals else "–")
            lines.append(f"| {COVERAGE[key][0]} | {kind} | " + " | ".join(row) + " |")
    lines.append("")
    return lines


def markdown(res: dict) -> str:
    a = res["args"]
    lines = [
        "# Coverage of the multiclass AUROC and AUCPR intervals, and size of the paired comparison", "",
        f"Command: `{res['command']}`  ",
        f"Machine: {res['machine']}  ",
        f"Commit: `{res['commit']}` (run from a frozen copy of the working tree)  ",
        f"Date: {res['date']}; wall time {res['seconds'] / 60:.1f} min (truths {res['times']['truths'] / 60:.1f}, "
        f"grid {res['times']['grid'] / 60:.1f}), one core.", "",
        "Design (the script's docstring has it in full): multinomial logit, `z_ik = delta * 1[y_i = k] + N(0, 1)`, "
        "`p = softmax(z)`; `delta = 0.9` (moderate; macro AUROC 0.79 for K = 3, 0.77 for K = 5) and `delta = 2.4` "
        "(strong; 0.987, 0.982). Fixed class counts: balanced `n` per class, or imbalanced `round(n w_k / w_min)` "
        "with `w = (1, 1/2, 1/4)` (K = 3) and `(1, 1/2, 1/3, 1/4, 1/5)` (K = 5), so `n` is always the smallest "
        "class's size. Every method is one grouped call (`by=\"rep\"`) per batch of "
        f"{a['batch']} data sets. Replicates: {a['reps']} per cell for DeLong (intervals and paired test), the first "
        f"{a['boot_reps']} of the same data sets for the bootstrap (`n_boot={a['n_boot']}`; n = "
        f"{', '.join(map(str, BOOT_SIZES))} only). Seed {a['seed']} (spawn keys in the docstring). Nominal level "
        "95%. Truths: the library's estimates on one large sample per class mix (below). Warnings "
        "(SmallSampleWarning, ...) were recorded per cell in the JSON and otherwise silenced.", "",
    ]
    if res.get("reading"):
        lines += ["## Reading (by hand, from this run)", "", res["reading"].strip(), ""]
    lines += failures(res)
    lines += ["## Coverage of the 95% intervals", ""]
    for key in COVERAGE:
        lines += coverage_tables(res, key)
    lines += size_tables(res)
    lines += truth_section(res)
    # warnings and notes
    warn, notes = Counter(), {}
    for c in res["cells"]:
        warn.update(c["warnings"])
        for key, v in c["notes"].items():
            notes.setdefault(key, Counter()).update(v)
    lines += ["## Warnings and notes over the whole run", "", "| warning (digits as #) | count |", "|---|---:|"]
    lines += [f"| {w.replace('|', '/')} | {n} |" for w, n in warn.most_common()] or ["| none | |"]
    lines += ["", "| method | note of the row (digits as #) | rows |", "|---|---|---:|"]
    for key, v in notes.items():
        lines += [f"| {key} | {t.replace('|', '/')} | {n} |" for t, n in v.most_common()]
    lines += ["", "## Time per cell (seconds)", "", "| K | mix | sep. | n | rows | " + " | ".join(
        ("simulate", "delong", "delong_compare", "auroc_bootstrap", "aucpr_bootstrap", "aucpr_bootstrap_compare",
         "total")) + " |", "|---:|---|---|---:|---:|" + "---:|" * 7]
    for c in res["cells"]:
        s = c["seconds"]
        lines.append(f"| {c['k']} | {c['balance']} | {c['separation']} | {c['n']} | {c['rows_per_data_set']} | "
                     + " | ".join(f"{s.get(x, 0):.1f}" for x in ("simulate", "delong", "delong_compare",
                                                                  "auroc_bootstrap", "aucpr_bootstrap",
                                                                  "aucpr_bootstrap_compare", "total")) + " |")
    lines.append("")
    return "\n".join(lines)


def truth_errors(res: dict) -> None:
    """A bound on the truth's Monte Carlo SE per metric, and its ratio to the narrowest mean interval width of the
    cells that use it.

    An area's variance is ``sum_j V_j / n_j`` over the classes (``V_j`` class ``j``'s influence variance at the
    mix), the same ``V_j`` in a cell (``n_j = c_j`` rows) and in the weighted truth sample (``n_j = M`` rows, the
    weights only setting the mix), so ``SE_truth <= SD_cell * sqrt(max_j c_j / M)``; ``SD_cell`` is the largest
    empirical SD of the estimates over the rows of the largest-n cell of that mix.
    """
    groups = {"auroc": ("auroc_ovr_delong", "auroc_ht_delong", "auroc_ovr_bootstrap"), "aucpr": ("aucpr_ovr_bootstrap",)}
    for key, tr in res["truths"].items():
        users = [c for c in res["cells"] if c["truth_key"] == key]
        for metric, methods in groups.items():
            have = [c for c in users if any(m in c["coverage"] for m in methods)]
            if not have:
                tr[f"{metric}_truth_se"] = tr[f"{metric}_truth_se_over_width"] = None
                continue
            big = max(have, key=lambda c: c["n"])
            scale = np.sqrt(max(big["counts"]) / tr["per_class"])
            tr[f"{metric}_truth_se"] = float(scale * max(v["sd"] for m in methods if m in big["coverage"]
                                                         for v in big["coverage"][m].values()))
            widths = [v["width"] for c in have for m in methods if m in c["coverage"]
                      for v in c["coverage"][m].values()]
            tr[f"{metric}_truth_se_over_width"] = tr[f"{metric}_truth_se"] / min(widths)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="data sets per DeLong cell")
    parser.add_argument("--boot-reps", type=int, default=300, help="data sets per bootstrap cell (the first "
                        "of the DeLong data sets)")
    parser.add_argument("--n-boot", type=int, default=400)
    parser.add_argument("--batch", type=int, default=200, help="data sets per grouped call")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="smallest-class sizes to run")
    parser.add_argument("--quick", action="store_true", help="a tiny run to check the script")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--out", type=Path, default=HERE / "multiclass_coverage_results.md")
    parser.add_argument("--render", type=Path, help="only write the page again from this run's JSON")
    parser.add_argument("--reading", type=Path, help="with --render: a hand-written reading, stored in the JSON")
    args = parser.parse_args(argv)
    if args.render:
        res = json.loads(args.render.read_text())
        if args.reading:
            res["reading"] = args.reading.read_text()
            args.render.write_text(json.dumps(res, indent=1))
        args.out.write_text(markdown(res))
        print(f"wrote {args.out}")
        return
    if args.quick:
        args.reps, args.boot_reps, args.n_boot, args.batch = 40, 30, 100, 20
        global TRUTH_SMALLEST
        TRUTH_SMALLEST = 20_000
        if args.sizes == ",".join(map(str, SIZES)):
            args.sizes = "20,50"
    sizes = [int(s) for s in args.sizes.split(",")]
    start = time.perf_counter()
    res = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
           "command": "python " + " ".join(sys.argv if argv is None else [__file__, *argv]),
           "machine": machine(), "commit": commit(), "date": time.strftime("%Y-%m-%d %H:%M"),
           "truth_smallest": TRUTH_SMALLEST, "times": {}, "truths": {}, "cells": []}
    grid = [(k, bal, sep, n) for k in KS for bal in BALANCES for sep in SEPARATIONS for n in sizes]
    t0 = time.perf_counter()
    for k in KS:
        for di, sep in enumerate(SEPARATIONS):
            sample = truth_sample(args.seed, k, di, SEPARATIONS[sep])
            hand_till = None
            for kk, bal, ss, n in grid:
                if (kk, ss) != (k, sep):
                    continue
                counts = class_counts(k, bal, n)
                key = f"{sep}/K{k}/{'-'.join(map(str, mix_key(counts)))}"
                if key in res["truths"]:
                    continue
                tr = truths(sample, counts, hand_till)
                hand_till = tr["values"]["auroc_ht_delong"]
                tr.update({"k": k, "separation": sep, "balance": bal})
                res["truths"][key] = tr
                print(f"truth {key}: macro AUROC {tr['values']['auroc_ovr_delong']['macro']:.5f}, micro "
                      f"{tr['values']['auroc_ovr_delong']['micro']:.5f}, HT {hand_till['macro']:.5f}, AUCPR macro "
                      f"{tr['values']['aucpr_ovr_bootstrap']['macro']:.5f} ({tr['seconds']} s)", flush=True)
            del sample
    res["times"]["truths"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    for index, (k, bal, sep, n) in enumerate(grid):
        counts = class_counts(k, bal, n)
        key = f"{sep}/K{k}/{'-'.join(map(str, mix_key(counts)))}"
        cell = run_cell(args.seed, index, k, bal, sep, n, args.reps, args.boot_reps, args.batch, args.n_boot,
                        res["truths"][key])
        cell["truth_key"] = key
        res["cells"].append(cell)
        cv = cell["coverage"]
        msg = ", ".join(f"{m} {kind} {100 * cv[m][kind]['coverage']:.1f}" for m, kind in
                        (("auroc_ovr_delong", "macro"), ("auroc_ht_delong", "macro"), ("auroc_ovr_bootstrap", "macro"),
                         ("aucpr_ovr_bootstrap", "macro")) if m in cv)
        sz = cell["size"]
        msg += "; size " + ", ".join(f"{m} {100 * sz[m]['macro']['size']:.1f}" for m in sz)
        print(f"[{index + 1}/{len(grid)}] K={k} {bal} {sep} n={n}: {msg}; {cell['seconds']['total']:.0f} s "
              f"(total {time.perf_counter() - start:.0f} s)", flush=True)
    res["times"]["grid"] = time.perf_counter() - t0
    res["seconds"] = time.perf_counter() - start
    truth_errors(res)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(res, indent=1))
    args.out.write_text(markdown(res))
    print(f"wrote {args.out} and {args.out.with_suffix('.json')} in {res['seconds'] / 60:.1f} min")


if __name__ == "__main__":
    main()
