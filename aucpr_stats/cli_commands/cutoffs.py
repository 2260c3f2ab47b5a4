"""``aucpr-stats cutoffs FILE --outcome y --score s [--by g] [--threshold youden ...]``."""

from __future__ import annotations

import argparse

from ..cli_io import columns_from_args, csv_text, positive_value, read_input
from ..thresholds import PROPORTION_METHODS, cutoffs
from ..thresholds.cutoffs import DIRECTION_ALIASES, DIRECTIONS
from ..report import text_table
from .common import add_data_arguments, add_output_arguments, checked_format, run

__all__ = ["build_parser", "main"]

PROG = "aucpr-stats cutoffs"

EXAMPLES = """\
examples:
  # the best threshold by Youden's index, per site, with Wilson intervals
  aucpr-stats cutoffs data/synthetic_cohort.csv --outcome disease --score model_a --by site

  # fixed thresholds and the point closest to (0, 1); PPV and NPV at a prevalence of 2%
  aucpr-stats cutoffs data/synthetic_cohort.csv --outcome disease --score model_a \\
      --threshold closest_topleft 0.5 1.0 --prevalence 0.02 -o cutoffs.md

  # the unrounded numbers, one row per site, threshold and measure (estimate, lower, upper)
  aucpr-stats cutoffs data/synthetic_cohort.csv --formula "disease ~ model_a | site" --raw --format csv
"""


def _threshold(text: str):
    try:
        return float(text)
    except ValueError:
        return text  # a criterion name, checked by cutoffs()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``aucpr-stats cutoffs``."""
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Sensitivity, specificity, PPV and NPV at thresholds, with confidence intervals, per group "
                    "(pROC's coords): the best threshold by Youden's index or closest to (0, 1), given "
                    "numbers, or every threshold. Prints a table of 'estimate (lower-upper)' cells; --raw "
                    "prints the unrounded numbers, one row per group, threshold and measure.")
    add_data_arguments(parser)
    parser.add_argument("--negative", action="extend", nargs="+", metavar="LEVEL",
                        help="the negative level(s) of an outcome with more than two levels; rows with any "
                             "other level are missing outcomes (see --missing)")
    parser.add_argument("--unused-levels", choices=["keep", "drop"], default="keep",
                        help="levels a grouping column declares without rows: rows with a note (default) or "
                             "dropped")
    parser.add_argument("--threshold", action="extend", nargs="+", type=_threshold, metavar="T",
                        help="youden (default), closest_topleft, all, or numbers; several in one go")
    parser.add_argument("--direction", choices=[*DIRECTIONS, *DIRECTION_ALIASES], default="higher",
                        metavar="{higher,lower,auto}",
                        help="higher (default): cases score >= threshold; lower: <= threshold; auto: chosen "
                             "from the data as pROC does (biased); pROC's '<' and '>' also work")
    parser.add_argument("--method", choices=list(PROPORTION_METHODS), default="wilson",
                        help="interval for the proportions (default wilson)")
    # the main command's earlier spelling of --method, kept working and out of the help
    parser.add_argument("--interval", choices=list(PROPORTION_METHODS), dest="method", help=argparse.SUPPRESS)
    parser.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    parser.add_argument("--prevalence", type=float, default=None, metavar="P",
                        help="PPV and NPV at this prevalence (Bayes' theorem) instead of the observed one")
    parser.add_argument("--weights", metavar="COLUMN",
                        help="case weights: weighted counts, intervals on effective numbers of cases")
    parser.add_argument("--imputation", metavar="COLUMN",
                        help="a column numbering imputed data sets stacked in long format (mice's .imp): "
                             "pooled by Rubin's rules (docs/pooling.md)")
    parser.add_argument("--cluster", metavar="COLUMN",
                        help="cluster id (several rows per patient): intervals from the clusters' variance")
    parser.add_argument("--raw", action="store_true",
                        help="print the unrounded numbers in long form (one row per group, threshold and "
                             "measure: estimate, lower, upper) instead of the table; text or csv only")
    add_output_arguments(parser, digits=3)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``aucpr-stats cutoffs``; returns the exit status (0 ok, 2 bad input, 1 other errors)."""
    args = build_parser().parse_args(argv)

    def work() -> str:
        fmt = checked_format("cutoffs", args)
        if args.raw and fmt not in ("text", "csv"):
            raise ValueError(f"--raw prints text or csv; got --format {fmt}")
        frame = read_input(args.file)
        outcome, score, by = columns_from_args(args)
        negative = ([positive_value(t, frame, outcome, "--negative") for t in args.negative] if args.negative
                    else None)
        result = cutoffs(frame, outcome, score, by, threshold=args.threshold or "youden", level=args.level,
                         method=args.method, prevalence=args.prevalence,
                         positive=positive_value(args.positive, frame, outcome), negative=negative,
                         missing=args.missing, unused_levels=args.unused_levels, direction=args.direction,
                         weights=args.weights, cluster=args.cluster, imputation=args.imputation)
        if args.raw:
            long = result.conf_int_polars()
            return csv_text(long) if fmt == "csv" else text_table(long, digits=max(args.digits, 4))
        table = result.table(digits=args.digits)
        if fmt == "text":
            return result.summary(digits=args.digits)
        return csv_text(table) if fmt == "csv" else table.to_markdown()

    return run(PROG, args, work)
