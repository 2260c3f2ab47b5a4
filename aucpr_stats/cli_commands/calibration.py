"""``aucpr-stats calibration FILE --outcome y --score p [--by g] [--method wald]``."""

from __future__ import annotations

import argparse

import polars as pl

from ..api_calibration import calibration
from ..cli_io import columns_from_args, csv_text, positive_value, read_input
from ..estimators.registry import CALIBRATION_STATISTICS
from ..intervals.registry import INTERVAL_METHODS
from ..report import text_table
from .common import add_data_arguments, add_output_arguments, checked_format, render, run

__all__ = ["build_parser", "main"]

PROG = "aucpr-stats calibration"

EXAMPLES = """\
examples:
  # every calibration statistic with its default interval
  aucpr-stats calibration data/breast_cancer_oof.csv --outcome malignant --score logistic

  # calibration-in-the-large and slope per size group, profile-likelihood intervals, as Markdown
  aucpr-stats calibration data/breast_cancer_oof.csv --formula "malignant ~ logistic | size_group" \\
      --statistic citl slope --method profile -o calibration.md

  # the unrounded numbers with bootstrap intervals, as CSV
  aucpr-stats calibration data/breast_cancer_oof.csv --outcome malignant --score logistic \\
      --method bootstrap --seed 1 --raw --format csv
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``aucpr-stats calibration``."""
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Calibration of predicted probabilities per group: observed/expected, calibration-in-the-"
                    "large, slope, Brier, ICI and Spiegelhalter's z, with confidence intervals "
                    "(docs/calibration.md). Prints a table of 'estimate (lower-upper)' cells; --raw prints "
                    "the unrounded numbers, one row per group and statistic.")
    add_data_arguments(parser, "predicted-probability column(s), values in [0, 1]")
    parser.add_argument("--statistic", action="extend", nargs="+", choices=list(CALIBRATION_STATISTICS),
                        metavar="NAME", help=f"statistics (default all): {', '.join(CALIBRATION_STATISTICS)}")
    parser.add_argument("--method", choices=list(INTERVAL_METHODS["calibration"]), default=None,
                        help="interval method: wald (default; bootstrap at a stated prevalence), profile, "
                             "bootstrap")
    parser.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    parser.add_argument("--n-boot", type=int, default=None, help="bootstrap replicates (default 1000)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    parser.add_argument("--knots", type=int, default=4, help="knots of the calibration curve, 3 to 7 (default 4)")
    parser.add_argument("--prevalence", type=float, default=None, metavar="P",
                        help="population prevalence of a case-control sample (intercepts shifted, controls "
                             "reweighted)")
    parser.add_argument("--weights", metavar="COLUMN", help="case weights (weighted likelihood, sandwich SEs)")
    parser.add_argument("--imputation", metavar="COLUMN",
                        help="a column numbering imputed data sets stacked in long format (mice's .imp): "
                             "pooled by Rubin's rules (docs/pooling.md)")
    parser.add_argument("--cluster", metavar="COLUMN",
                        help="cluster id (several rows per patient, sites): cluster-robust intervals")
    parser.add_argument("--raw", action="store_true",
                        help="print the unrounded numbers in long form instead of the table; text or csv only")
    add_output_arguments(parser, digits=3)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``aucpr-stats calibration``; returns the exit status (0 ok, 2 bad input, 1 other errors)."""
    args = build_parser().parse_args(argv)

    def work() -> str:
        fmt = checked_format("calibration", args)
        if args.raw and fmt not in ("text", "csv"):
            raise ValueError(f"--raw prints text or csv; got --format {fmt}")
        frame = read_input(args.file)
        outcome, score, by = columns_from_args(args)
        result = calibration(frame, outcome, score, by, statistic=args.statistic or "all",
                             positive=positive_value(args.positive, frame, outcome), missing=args.missing,
                             prevalence=args.prevalence, weights=args.weights, cluster=args.cluster, imputation=args.imputation,
                             knots=args.knots)
        options = {}
        if args.method == "bootstrap" or (args.method is None and args.prevalence is not None):
            options = {"rng": args.seed} | ({} if args.n_boot is None else {"n_boot": args.n_boot})
        elif args.seed is not None or args.n_boot is not None:
            raise ValueError("--seed and --n-boot are for --method bootstrap")
        long = result.conf_int_polars(method=args.method, level=args.level, **options)
        if args.raw:
            return csv_text(long) if fmt == "csv" else text_table(long, digits=max(args.digits, 4))
        # one row per group and statistic: statistics differ in scale, so a long table reads better than a wide one
        keys = [c for c in result.by]
        shown = long.select(*keys, pl.col("estimator").alias("statistic"), "estimate", "lower", "upper", "method",
                            "n_pos", "n_neg", "note")
        if shown["note"].null_count() == shown.height:
            shown = shown.drop("note")
        if fmt == "text":
            return f"{result.summary().splitlines()[0]}\n\n{text_table(shown, digits=args.digits)}"
        return csv_text(shown) if fmt == "csv" else render(shown, "", "markdown", args.digits)

    return run(PROG, args, work)
