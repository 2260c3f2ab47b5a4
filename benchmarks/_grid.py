"""What the simulation grids in this folder share: drawing a block of data sets, and writing the results.

A grid script simulates data sets of a scenario (:mod:`aucpr_stats.simulate`), runs them through the
public calls, and writes ``<name>_results.json`` with a Markdown page beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Sequence

import numpy as np


def draw_block(scenario, rng: np.random.Generator, n_pos: int, n_neg: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``k`` data sets of ``n_pos`` positives then ``n_neg`` negatives, one after the other: (labels, scores)."""
    y = np.tile(np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)], k)
    s = np.empty(y.size)
    s[y] = scenario.draw(rng, int(y.sum()), True)
    s[~y] = scenario.draw(rng, int((~y).sum()), False)
    return y, s


def frames(scenario, rng: np.random.Generator, n_pos: int, n_neg: int, n_sims: int, block_rows: int):
    """The ``n_sims`` data sets in polars frames of at most about ``block_rows`` rows (columns sim, y, s)."""
    import polars as pl

    size = n_pos + n_neg
    per_block = max(1, min(n_sims, block_rows // size))
    for first in range(0, n_sims, per_block):
        k = min(per_block, n_sims - first)
        y, s = draw_block(scenario, rng, n_pos, n_neg, k)
        yield pl.DataFrame({"sim": np.repeat(np.arange(first, first + k), size), "y": y, "s": s})


def cells(prevalences: Sequence[float], positives: Sequence[int], max_rows: int):
    """(prevalence, n_pos, n_neg) of a grid, ``n_neg = n_pos (1 - prevalence) / prevalence``, at most ``max_rows``."""
    for prevalence in prevalences:
        for n_pos in positives:
            n_neg = int(round(n_pos * (1 - prevalence) / prevalence))
            if n_pos + n_neg <= max_rows:
                yield prevalence, n_pos, n_neg


def meta(start: float, **facts) -> dict:
    """The run's facts for the JSON: what was asked, the wall time since ``start``, the date."""
    return {**facts, "wall_seconds": time.perf_counter() - start, "date": time.strftime("%Y-%m-%d")}


def dumps(results: dict) -> str:
    """The results as JSON with each cell (a dict in a list) on one line, floats to 7 significant digits."""
    def rounded(value):
        if isinstance(value, float):
            return float(f"{value:.7g}")
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rounded(v) for v in value]
        return value

    results = rounded(results)
    lines = ["{"]
    items = list(results.items())
    for i, (key, value) in enumerate(items):
        tail = "," if i < len(items) - 1 else ""
        if isinstance(value, list):
            body = ",\n ".join(json.dumps(v, separators=(",", ":")) for v in value)
            lines.append(f" {json.dumps(key)}: [\n {body}\n ]{tail}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{tail}")
    return "\n".join(lines) + "\n}\n"


def write_results(out: Path, results: dict, render: Callable[[dict], str]) -> None:
    """``out`` (JSON, one cell per line: a grid has hundreds) and its Markdown page (``out`` with ``.md``)."""
    out.write_text(dumps(results))
    out.with_suffix(".md").write_text(render(results))
    print(f"wrote {out} and {out.with_suffix('.md')}")


def grid_parser(doc: str, out: Path, seed: int = 29) -> argparse.ArgumentParser:
    """The options every grid takes: data sets per cell, seed, worker processes, output file."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="data sets per cell")
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=out)
    return parser


def run_jobs(function: Callable, jobs: Sequence[tuple], workers: int, *common) -> list:
    """``function(*job, *common)`` for every job on ``workers`` processes, the rows of each in job order."""
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(function, *job, *common) for job in jobs]
        results = [future.result() for future in futures]
    return [row for result in results for row in (result if isinstance(result, list) else [result])]


def coverage_summary(bounds: np.ndarray, truth: float) -> dict:
    """Coverage of the intervals ``bounds`` (rows: lower, upper, flagged) around ``truth``, with its companions.

    Over the rows with finite bounds: the share covering ``truth``, the share
    entirely below it, the mean width; the share flagged small-sample; the
    coverage of the unflagged rows and their number. None where no row counts.
    """
    lo, hi, flag = bounds[:, 0], bounds[:, 1], bounds[:, 2].astype(bool)
    ok = np.isfinite(lo) & np.isfinite(hi)
    hit = (lo <= truth) & (truth <= hi)
    unflagged = ok & ~flag
    return {"coverage": float(hit[ok].mean()) if ok.any() else None,
            "below": float((hi[ok] < truth).mean()) if ok.any() else None,
            "width": float((hi[ok] - lo[ok]).mean()) if ok.any() else None,
            "flagged": float(flag.mean()),
            "unflagged": float(hit[unflagged].mean()) if unflagged.any() else None,
            "unflagged_n": int(unflagged.sum())}
