"""``aucpr-stats FILE --outcome grade --score 'p_{level}' --multiclass ovr``: multiclass areas from the command line.

The main command's options carry over: ``--metric`` (one or both areas),
``--by``, ``--weights``, ``--cluster``, ``--missing``, ``--method``
(``delong`` for AUROC, ``bootstrap``), ``--seed``, ``--n-boot``,
``--compare`` (two models: two templates), ``--raw`` and the output
formats. ``--score`` takes a template with ``{level}`` per model, or one
plain column per level (each name ending with its level).
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import api
from ..cli_io import csv_text
from ..exceptions import InputError
from ..report import text_table

__all__ = ["run_multiclass"]


def _score(score: Any) -> Any:
    """Several templates: one model each, named by its template."""
    if isinstance(score, (list, tuple)) and len(score) > 1 and all("{level}" in s for s in score):
        return {s.replace("{level}", "").strip("_") or s: s for s in score}
    return score[0] if isinstance(score, (list, tuple)) and len(score) == 1 else score


def run_multiclass(args: argparse.Namespace, frame: Any, outcome: str, score: Any, by: Any) -> Any:
    """The table (or raw frame, or comparison) of a multiclass call; the caller renders it."""
    for flag in ("positive", "negative", "prevalence", "imputation", "specificity", "sensitivity", "recall"):
        if getattr(args, flag, None):
            raise InputError(f"--{flag} is not defined with --multiclass: every level is a class with its own "
                             "score column")
    if args.meta or args.overall or args.heterogeneity:
        raise InputError("--meta, --overall and --heterogeneity are not available with --multiclass")
    methods = args.method or [None]
    if len(methods) > 1:
        raise InputError("--multiclass takes one --method (delong or bootstrap)")
    method = methods[0]
    options: dict[str, Any] = {"level": args.level}
    if args.seed is not None or args.n_boot is not None:
        if method not in ("bootstrap", None):
            raise InputError("--seed and --n-boot are for --method bootstrap")
        options["seed"] = args.seed
        if args.n_boot is not None:
            options["n_boot"] = args.n_boot
    average = args.average or ["all"]
    average = "all" if "all" in average else average
    pieces = []
    # pairs are defined for AUROC only: without --metric the default follows the scheme
    for metric in dict.fromkeys(args.metric or ["aucpr" if args.multiclass == "ovr" else "auroc"]):
        kwargs: dict[str, Any] = {"multiclass": args.multiclass, "average": average, "weights": args.weights,
                                  "cluster": args.cluster, "missing": args.missing}
        if metric == "aucpr":
            kwargs["ties"] = args.ties
            if args.estimator:
                kwargs["estimator"] = args.estimator[0]
        result = getattr(api, metric)(frame, outcome, _score(score), by, **kwargs)
        if args.compare:
            pieces.append(result.compare(method=method, **options))
        else:
            pieces.append(result.conf_int(method=method, **options))
    if args.raw or args.compare:
        frames = [p.to_polars() for p in pieces]
        if args.format == "csv":
            return "\n".join(csv_text(f) for f in frames)
        return "\n\n".join(f"{p._title()}\n{text_table(f, digits=max(args.digits, 4))}" for p, f in zip(pieces, frames))
    tables = [p.table(digits=args.digits) for p in pieces]
    if args.format in ("docx",) or len(tables) == 1 and args.format not in ("text", "csv", "markdown", "latex",
                                                                               "html"):
        return tables[0]
    if args.format == "text":
        return "\n\n".join(f"{p._title()}\n\n{t.to_text()}" for p, t in zip(pieces, tables))
    return "\n\n".join(csv_text(t) if args.format == "csv" else t.render(args.format) for t in tables)
