"""``aucpr-stats plan --metric auroc --auc 0.8 --power 0.9 ...``: sample size (or power) of a study."""

from __future__ import annotations

import argparse

from . import add_output_arguments, checked_format, render, run

__all__ = ["build_parser", "main"]

PROG = "aucpr-stats plan"

EXAMPLES = """\
examples:
  # positives and negatives to show AUROC 0.8 > 0.5 with 90% power, two negatives per positive
  aucpr-stats plan --metric auroc --auc 0.8 --power 0.9 --ratio 2

  # power of a study with 30 positives and 90 negatives
  aucpr-stats plan --metric auroc --auc 0.7 --n-pos 30 --n-neg 90

  # AUCPR at 2% prevalence: positives for a 95% interval of half-width 0.05 (simulated)
  aucpr-stats plan --metric aucpr --prevalence 0.02 --half-width 0.05 --scenario binormal --seed 1
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``aucpr-stats plan``."""
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Sample size or power of a study: AUROC by Obuchowski's variance (pROC's power.roc.test); "
                    "AUCPR by simulation from a scenario with a known curve.")
    parser.add_argument("--metric", choices=["auroc", "aucpr"], default="auroc")
    parser.add_argument("--auc", type=float, help="AUROC under the alternative")
    parser.add_argument("--auc0", type=float, default=0.5, help="AUROC under the null (default 0.5)")
    parser.add_argument("--power", type=float, default=None, help="target power (default 0.9)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--alternative", choices=["two_sided", "one_sided"], default="two_sided")
    parser.add_argument("--ratio", type=float, default=1.0, help="negatives per positive (default 1)")
    parser.add_argument("--n-pos", type=float, default=None, help="positives: give with --n-neg for the power")
    parser.add_argument("--n-neg", type=float, default=None, help="negatives: give with --n-pos for the power")
    parser.add_argument("--prevalence", type=float, help="AUCPR: prevalence of the planned study")
    parser.add_argument("--half-width", type=float, help="AUCPR: target half-width of the interval")
    parser.add_argument("--aucpr", type=float, help="AUCPR: a null value the interval should exclude")
    parser.add_argument("--scenario", default="binormal", help="AUCPR: binormal, bibeta or offset_uniform")
    parser.add_argument("--estimator", default=None, help="AUCPR: the estimator of the planned analysis")
    parser.add_argument("--interval", default="logit", help="AUCPR: the interval method (default logit)")
    parser.add_argument("--level", type=float, default=0.95, help="AUCPR: interval level (default 0.95)")
    parser.add_argument("--n-sim", type=int, default=400, help="AUCPR: simulated studies per size (default 400)")
    parser.add_argument("--seed", type=int, default=None, help="AUCPR: random seed")
    add_output_arguments(parser, digits=4)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``aucpr-stats plan``; returns the exit status (0 ok, 2 bad input, 1 other errors)."""
    args = build_parser().parse_args(argv)

    def work() -> str:
        from ..estimators import DEFAULT_PR_ESTIMATOR
        from ..planning import power, sample_size

        fmt = checked_format("plan", args)
        counts = (args.n_pos, args.n_neg)
        if any(c is not None for c in counts):
            if args.metric != "auroc" or None in counts or args.power is not None:
                raise ValueError("--n-pos and --n-neg (together, without --power) ask for the power of an AUROC "
                                 "study")
            result = power(auc=args.auc, n_pos=args.n_pos, n_neg=args.n_neg, alpha=args.alpha, auc0=args.auc0,
                           alternative=args.alternative)
        elif args.metric == "auroc":
            result = sample_size("auroc", auc=args.auc, power=0.9 if args.power is None else args.power,
                                 alpha=args.alpha, ratio=args.ratio, auc0=args.auc0, alternative=args.alternative)
        else:
            result = sample_size("aucpr", prevalence=args.prevalence, half_width=args.half_width, aucpr=args.aucpr,
                                 power=0.9 if args.power is None else args.power, scenario=args.scenario,
                                 estimator=args.estimator or DEFAULT_PR_ESTIMATOR, method=args.interval,
                                 level=args.level, n_sim=args.n_sim, seed=args.seed)
        return render(result.to_frame(), result.summary(digits=args.digits), fmt, args.digits)

    return run(PROG, args, work)
