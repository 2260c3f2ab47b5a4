"""``aucpr-stats FILE ... --compare``: the paired comparison of every pair of scores, one table per metric."""

from __future__ import annotations

import argparse
from typing import Any

import polars as pl

from ..cli_io import STDIN, csv_text
from ..compare import compare
from ..exceptions import InputError
from ..report import comparison_table

__all__ = ["COMPARE_METHODS", "run_compare"]

#: The values of ``--method`` with ``--compare``: the methods of :func:`aucpr_stats.compare`.
COMPARE_METHODS = ("delong", "bootstrap")


def _chosen_method(args: argparse.Namespace) -> list[str]:
    """The comparison method asked for with ``--method`` (none, or one of :data:`COMPARE_METHODS`)."""
    chosen = list(dict.fromkeys(args.method or []))
    if len(chosen) > 1:
        raise InputError(f"--compare takes one --method (delong or bootstrap); got {' '.join(chosen)}")
    if chosen and chosen[0] not in COMPARE_METHODS:
        raise InputError(f"--method with --compare must be delong (auroc) or bootstrap; got {chosen[0]}")
    if chosen == ["delong"] and (args.seed is not None or args.n_boot is not None):
        raise InputError("--seed and --n-boot are for --method bootstrap; got --method delong")
    return chosen


def run_compare(args: argparse.Namespace, frame: pl.LazyFrame, outcome: str, score: Any, by: Any,
                positive: Any, metrics: list[str], partial: dict[str, dict]) -> str:
    """``--compare``: paired comparison of every pair of scores, one table per metric.

    ``partial`` holds the partial-area arguments of each metric (``--specificity`` ...).
    AUCPR is compared by the paired bootstrap; AUROC by DeLong's test unless
    ``--method bootstrap``, ``--seed``, ``--n-boot`` or a partial area asks
    for the bootstrap.
    """
    if isinstance(score, str):
        raise InputError("--compare needs two or more scores (e.g. --score model_a model_b)")
    if args.raw:
        raise InputError("--raw prints the intervals of each area; drop it with --compare")
    chosen = _chosen_method(args)
    parts = []
    for metric in metrics:
        options: dict[str, Any] = dict(partial[metric])
        if args.cluster:
            options["cluster"] = args.cluster
        if args.weights:
            options["weights"] = args.weights
        if args.imputation:
            options["imputation"] = args.imputation
        if args.prevalence is not None and metric == "aucpr":
            options["prevalence"] = args.prevalence
        if chosen:
            options["method"] = chosen[0]
        elif metric == "aucpr" or args.seed is not None or args.n_boot is not None or partial[metric]:
            options["method"] = "bootstrap"
        if options.get("method") == "bootstrap":
            options["rng"] = args.seed
            if args.n_boot is not None:
                options["n_boot"] = args.n_boot
        result = compare(frame, outcome, list(score), by, metric=metric, level=args.level, positive=positive,
                         missing=args.missing, ties=args.ties, negative=args.negative, direction=args.direction,
                         unused_levels=args.unused_levels, **options)
        table = comparison_table(result, digits=args.digits)
        if args.format == "text":
            grouping = f" by {', '.join([by] if isinstance(by, str) else by)}" if by else ""
            source = "standard input" if args.file == STDIN else args.file
            parts.append(f"Paired comparison of {metric.upper()} for outcome {outcome}{grouping} ({source})"
                         f"\n\n{table.to_text()}")
        else:
            parts.append(csv_text(table) if args.format == "csv" else table.render(args.format))
    return "\n\n".join(parts)
