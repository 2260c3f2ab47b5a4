"""``aucpr-stats FILE --time t --event d --horizon 365 730 --score s``: time-dependent areas from the command line.

Or ``--formula "Surv(t, d) ~ s1 + s2 | site"``. The main command's options
carry over: ``--metric`` (one or both areas), ``--by``, ``--weights``,
``--cluster``, ``--missing``, ``--method`` (``influence``, the default, or
``bootstrap``), ``--seed``, ``--n-boot``, ``--compare`` (two scores at each
horizon), ``--format text|csv``. ``--censoring-strata`` fits the censoring
distribution within the levels of a column.
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import api
from ..cli_io import csv_text
from ..exceptions import InputError
from ..formula import is_survival_formula, parse_formula
from ..report import text_table

__all__ = ["run_time_to_event", "wants_time_to_event"]


def wants_time_to_event(args: argparse.Namespace) -> bool:
    """Whether the command asks for time-dependent areas (``--time``/``--event`` or a ``Surv(...)`` formula)."""
    return bool(args.time or args.event or args.horizon or is_survival_formula(args.formula))


def _columns(args: argparse.Namespace) -> tuple[str, str, Any, Any]:
    if args.formula is not None:
        given = [f"--{n}" for n in ("outcome", "score", "by", "time", "event") if getattr(args, n)]
        if given:
            raise InputError(f"--formula replaces {', '.join(given)}; give one or the other")
        parsed = parse_formula(args.formula)
        if parsed.survival is None:
            raise InputError("--horizon needs a time-to-event outcome: --formula \"Surv(time, event) ~ score\" "
                             "or --time and --event")
        return parsed.survival.time, parsed.survival.event, parsed.score, (list(parsed.by) or None)
    if args.outcome:
        raise InputError("--outcome is not used with --time and --event: the outcome at each horizon is made "
                         "from them")
    missing = [f"--{n}" for n in ("time", "event", "score") if not getattr(args, n)]
    if missing:
        raise InputError(f"missing {' and '.join(missing)} (or give --formula \"Surv(time, event) ~ score\")")
    score = args.score[0] if len(args.score) == 1 else args.score
    return args.time, args.event, score, args.by


def run_time_to_event(args: argparse.Namespace, frame: Any) -> str:
    """The interval (or comparison) frames of a time-to-event call, rendered as text or CSV."""
    for flag in ("positive", "negative", "prevalence", "imputation", "specificity", "sensitivity", "recall",
                 "multiclass", "average"):
        if getattr(args, flag, None):
            raise InputError(f"--{flag} is not defined for a time-to-event outcome (--time/--event/--horizon)")
    if args.meta or args.overall or args.heterogeneity:
        raise InputError("--meta, --overall and --heterogeneity are not available for a time-to-event outcome")
    if not args.horizon:
        raise InputError("a time-to-event call needs --horizon T (one or more times)")
    if args.format not in ("text", "csv"):
        raise InputError(f"a time-to-event call prints text or csv; got --format {args.format}")
    time, event, score, by = _columns(args)
    methods = args.method or [None]
    if len(methods) > 1 or methods[0] not in (None, "default", "influence", "bootstrap"):
        raise InputError("a time-to-event call takes one --method: influence (default) or bootstrap")
    method = None if methods[0] == "default" else methods[0]
    options: dict[str, Any] = {"level": args.level, "method": method}
    if args.seed is not None or args.n_boot is not None:
        options["seed"] = args.seed
        if args.n_boot is not None:
            options["n_boot"] = args.n_boot
    pieces = []
    for metric in dict.fromkeys(args.metric or ["aucpr"]):
        result = getattr(api, metric)(frame, score=score, by=by, time=time, event=event, horizon=args.horizon,
                                      weights=args.weights, cluster=args.cluster,
                                      censoring_strata=args.censoring_strata, missing=args.missing)
        pieces.append(result.compare(**options) if args.compare else result.conf_int(**options))
    frames = [p.to_polars() for p in pieces]
    if args.format == "csv":
        return "\n".join(csv_text(f) for f in frames)
    return "\n\n".join(f"{p._title()}\n{text_table(f, digits=max(args.digits, 3))}" for p, f in zip(pieces, frames))
