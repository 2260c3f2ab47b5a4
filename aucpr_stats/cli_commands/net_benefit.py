"""``aucpr-stats net-benefit FILE --outcome y --score p [--by g] [--thresholds 0.05 0.1 0.2] [--plot f.png]``."""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl

from ..api_net_benefit import net_benefit
from ..cli_io import columns_from_args, csv_text, positive_value, read_input
from ..estimators.net_benefit import NET_BENEFIT_STATISTICS, POLICIES
from ..intervals.registry import INTERVAL_METHODS
from ..report import text_table
from .common import add_data_arguments, add_output_arguments, checked_format, render, run

__all__ = ["build_parser", "main"]

PROG = "aucpr-stats net-benefit"

EXAMPLES = """\
examples:
  # net benefit at 5%, 10% and 20% with Wald intervals
  aucpr-stats net-benefit data/breast_cancer_oof.csv --outcome malignant --score logistic \\
      --thresholds 0.05 0.1 0.2

  # the decision curves of two models from 1% to 50%, drawn to a file, per size group
  aucpr-stats net-benefit data/breast_cancer_oof.csv --formula "malignant ~ logistic + forest | size_group" \\
      --range 0.01 0.5 0.01 --plot decision_curves.png

  # every statistic, unrounded, as CSV
  aucpr-stats net-benefit data/breast_cancer_oof.csv --outcome malignant --score logistic \\
      --thresholds 0.1 0.2 --statistic all --raw --format csv
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``aucpr-stats net-benefit``."""
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Net benefit of predicted risks at risk thresholds per group (decision curve analysis), "
                    "with the treat-all and treat-none references and confidence intervals "
                    "(docs/net_benefit.md).")
    add_data_arguments(parser, "predicted-risk column(s), values in [0, 1]")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--thresholds", type=float, nargs="+", metavar="T",
                       help="risk thresholds in (0, 1) (default 0.01 to 0.99 by 0.01)")
    where.add_argument("--range", type=float, nargs=3, metavar=("FROM", "TO", "BY"),
                       help="thresholds from FROM to TO (included) by BY")
    parser.add_argument("--statistic", nargs="+", choices=[*NET_BENEFIT_STATISTICS, "all"], metavar="NAME",
                        default=["net_benefit"],
                        help=f"statistics (default net_benefit): {', '.join(NET_BENEFIT_STATISTICS)}, all")
    parser.add_argument("--policy", choices=POLICIES, default="opt-in", help="opt-in (default) or opt-out")
    parser.add_argument("--harm", type=float, default=0.0, help="harm of the test (default 0)")
    parser.add_argument("--method", choices=list(INTERVAL_METHODS["net_benefit"]), default=None,
                        help="interval method: wald (default) or bootstrap")
    parser.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    parser.add_argument("--n-boot", type=int, default=None, help="bootstrap replicates (default 1000)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    parser.add_argument("--prevalence", type=float, default=None, metavar="P",
                        help="population prevalence of a case-control sample")
    parser.add_argument("--weights", metavar="COLUMN", help="case weights")
    parser.add_argument("--imputation", metavar="COLUMN",
                        help="a column numbering imputed data sets stacked in long format (mice's .imp): "
                             "pooled by Rubin's rules (docs/pooling.md)")
    parser.add_argument("--cluster", metavar="COLUMN", help="cluster id: cluster-robust intervals")
    parser.add_argument("--plot", metavar="FILE", help="also draw the decision curves to FILE (.png, .pdf, .svg)")
    parser.add_argument("--raw", action="store_true",
                        help="print the unrounded numbers in long form instead of the table; text or csv only")
    add_output_arguments(parser, digits=3)
    return parser


def _thresholds(args):
    if args.range is not None:
        start, stop, step = args.range
        if not step > 0:
            raise ValueError(f"--range needs a positive step; got {step!r}")
        return np.round(np.arange(start, stop + step / 2, step), 12)
    return args.thresholds if args.thresholds is not None else None


def main(argv: list[str] | None = None) -> int:
    """Run ``aucpr-stats net-benefit``; returns the exit status (0 ok, 2 bad input, 1 other errors)."""
    args = build_parser().parse_args(argv)

    def work() -> str:
        fmt = checked_format("net-benefit", args)
        if args.raw and fmt not in ("text", "csv"):
            raise ValueError(f"--raw prints text or csv; got --format {fmt}")
        frame = read_input(args.file)
        outcome, score, by = columns_from_args(args)
        thresholds = _thresholds(args)
        statistic = "all" if "all" in args.statistic else args.statistic
        result = net_benefit(frame, outcome, score, by, **({} if thresholds is None else {"thresholds": thresholds}),
                             statistic=statistic, policy=args.policy, harm=args.harm,
                             positive=positive_value(args.positive, frame, outcome), missing=args.missing,
                             prevalence=args.prevalence, weights=args.weights, cluster=args.cluster, imputation=args.imputation)
        options = {}
        if args.method == "bootstrap":
            options = {"rng": args.seed} | ({} if args.n_boot is None else {"n_boot": args.n_boot})
        elif args.seed is not None or args.n_boot is not None:
            raise ValueError("--seed and --n-boot are for --method bootstrap")
        long = result.conf_int_polars(method=args.method, level=args.level, **options)
        if args.plot:
            figure = result.plot(level=args.level)
            figure.savefig(args.plot, dpi=150)
        if args.raw:
            return csv_text(long) if fmt == "csv" else text_table(long, digits=max(args.digits, 4))
        keys = list(result.by)
        shown = long.select(*keys, pl.col("estimator").alias("statistic"), "threshold", "estimate", "lower", "upper",
                            "treat_all", "treat_none", "n_pos", "n_neg", "note")
        if shown["note"].null_count() == shown.height:
            shown = shown.drop("note")
        if fmt == "text":
            return f"{result.summary().splitlines()[0]}\n\n{text_table(shown, digits=args.digits)}"
        return csv_text(shown) if fmt == "csv" else render(shown, "", "markdown", args.digits)

    return run(PROG, args, work)
