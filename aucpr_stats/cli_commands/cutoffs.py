"""``aucpr-stats cutoffs FILE --outcome y --score s [--by g] [--threshold youden ...]``."""

from __future__ import annotations

import argparse

from . import add_output_arguments, checked_format, render, run

__all__ = ["build_parser", "main"]

PROG = "aucpr-stats cutoffs"

EXAMPLES = """\
examples:
  # the best threshold by Youden's index, per site, with Wilson intervals
  aucpr-stats cutoffs data/synthetic_cohort.csv --outcome disease --score model_a --by site

  # fixed thresholds and the point closest to (0, 1); PPV and NPV at a prevalence of 2%
  aucpr-stats cutoffs data/synthetic_cohort.csv --outcome disease --score model_a \\
      --threshold closest_topleft 0.5 1.0 --prevalence 0.02 -o cutoffs.md
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
                    "numbers, or every threshold.")
    parser.add_argument("file", help="input file: .csv, .tsv, .csv.gz, .tsv.gz or .parquet, or - for CSV on "
                                     "standard input")
    parser.add_argument("--outcome", required=True, metavar="COLUMN", help="binary outcome column")
    parser.add_argument("--score", required=True, action="extend", nargs="+", metavar="COLUMN",
                        help="score column(s)")
    parser.add_argument("--by", action="extend", nargs="+", metavar="COLUMN", help="grouping column(s)")
    parser.add_argument("--positive", metavar="LEVEL", help="the positive level of the outcome, when not 0/1")
    parser.add_argument("--missing", choices=["error", "drop"], default="error",
                        help="rows with a missing outcome or score: an error (default) or dropped")
    parser.add_argument("--threshold", action="extend", nargs="+", type=_threshold, metavar="T",
                        help="youden (default), closest_topleft, all, or numbers; several in one go")
    parser.add_argument("--direction", choices=["<", ">", "higher", "lower"], default="<",
                        help="'<' or higher (default): cases score >= threshold; '>' or lower: <= threshold")
    parser.add_argument("--method", choices=["wilson", "clopper_pearson"], default="wilson",
                        help="interval for the proportions (default wilson)")
    parser.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    parser.add_argument("--prevalence", type=float, default=None, metavar="P",
                        help="PPV and NPV at this prevalence (Bayes' theorem) instead of the observed one")
    parser.add_argument("--weights", metavar="COLUMN",
                        help="case weights: weighted counts, intervals on effective numbers of cases")
    parser.add_argument("--cluster", metavar="COLUMN",
                        help="cluster id (several rows per patient): intervals from the clusters' variance")
    add_output_arguments(parser, digits=3)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``aucpr-stats cutoffs``; returns the exit status (0 ok, 2 bad input, 1 other errors)."""
    args = build_parser().parse_args(argv)

    def work() -> str:
        from ..cli_io import positive_value, read_input
        from ..thresholds import cutoffs

        fmt = checked_format("cutoffs", args)
        frame = read_input(args.file)
        score = args.score[0] if len(args.score) == 1 else args.score
        result = cutoffs(frame, args.outcome, score, args.by, threshold=args.threshold or "youden",
                         level=args.level, method=args.method, prevalence=args.prevalence,
                         positive=positive_value(args.positive, frame, args.outcome), missing=args.missing,
                         direction=args.direction, weights=args.weights, cluster=args.cluster)
        return render(result.to_polars(), result.summary(digits=args.digits), fmt, args.digits)

    return run(PROG, args, work)
