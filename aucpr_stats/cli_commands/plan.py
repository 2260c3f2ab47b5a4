"""``aucpr-stats plan --metric auroc --auc 0.8 --power 0.9 ...``: sample size (or power) of a study.

The metric is AUCPR unless ``--metric auroc`` says otherwise, as in
:func:`aucpr_stats.sample_size` and :func:`aucpr_stats.power`.
"""

from __future__ import annotations

import argparse

from ..compare import DEFAULT_METRIC, METRICS
from ..estimators import DEFAULT_PR_ESTIMATOR
from ..planning import power, sample_size
from .common import add_output_arguments, checked_format, render, run

__all__ = ["build_parser", "main"]

PROG = "aucpr-stats plan"

EXAMPLES = """\
examples:
  # positives and negatives to show AUROC 0.8 > 0.5 with 90% power, two negatives per positive
  aucpr-stats plan --metric auroc --auc 0.8 --power 0.9 --ratio 2

  # power of a study with 30 positives and 90 negatives
  aucpr-stats plan --metric auroc --auc 0.7 --n-pos 30 --n-neg 90

  # AUCPR (the default metric) at 2% prevalence: positives for a 95% interval of half-width 0.05 (simulated)
  aucpr-stats plan --prevalence 0.02 --half-width 0.05 --scenario binormal --seed 1

  # the power of an AUCPR study of 60 positives and 540 negatives to exclude an AUCPR of 0.2 (simulated)
  aucpr-stats plan --aucpr 0.2 --n-pos 60 --n-neg 540 --seed 1
"""


#: Options that belong to one metric, and that metric.
_OWNERS = {"--auc": "auroc", "--auc0": "auroc", "--ratio": "auroc",
           "--aucpr": "aucpr", "--prevalence": "aucpr", "--half-width": "aucpr"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``aucpr-stats plan``."""
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Sample size or power of a study: AUCPR (the default) by simulation from a scenario with "
                    "a known curve; AUROC by Obuchowski's variance (pROC's power.roc.test).")
    parser.add_argument("--metric", choices=list(METRICS), default=DEFAULT_METRIC,
                        help=f"the area planned for (default {DEFAULT_METRIC})")
    parser.add_argument("--auc", type=float, help="AUROC under the alternative")
    parser.add_argument("--auc0", type=float, default=None, help="AUROC under the null (default 0.5)")
    parser.add_argument("--power", type=float, default=None, help="target power (default 0.9)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--alternative", choices=["two_sided", "one_sided"], default="two_sided")
    parser.add_argument("--ratio", type=float, default=None, help="AUROC: negatives per positive (default 1)")
    parser.add_argument("--n-pos", type=float, default=None, help="positives: give with --n-neg for the power")
    parser.add_argument("--n-neg", type=float, default=None, help="negatives: give with --n-pos for the power")
    parser.add_argument("--prevalence", type=float, help="AUCPR: prevalence of the planned study")
    parser.add_argument("--half-width", type=float, help="AUCPR: target half-width of the interval")
    parser.add_argument("--aucpr", type=float, help="AUCPR: a null value the interval should exclude")
    parser.add_argument("--scenario", default="binormal", help="AUCPR: binormal, bibeta or offset_uniform")
    parser.add_argument("--estimator", default=None, help="AUCPR: the estimator of the planned analysis")
    parser.add_argument("--method", default="logit", help="AUCPR: the interval method (default logit)")
    # the earlier spelling of --method, kept working and out of the help
    parser.add_argument("--interval", dest="method", help=argparse.SUPPRESS)
    parser.add_argument("--level", type=float, default=0.95, help="AUCPR: interval level (default 0.95)")
    parser.add_argument("--n-sim", type=int, default=400, help="AUCPR: simulated studies per size (default 400)")
    parser.add_argument("--seed", type=int, default=None,
                        help="AUCPR: random seed of the simulations; same seed, same plan")
    add_output_arguments(parser, digits=4)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``aucpr-stats plan``; returns the exit status (0 ok, 2 bad input, 1 other errors)."""
    args = build_parser().parse_args(argv)

    def work() -> str:
        fmt = checked_format("plan", args)
        for option, metric in _OWNERS.items():
            if getattr(args, option.lstrip("-").replace("-", "_")) is not None and args.metric != metric:
                raise ValueError(f"{option} is an option of --metric {metric}; got --metric {args.metric}"
                                 f"{' (the default)' if args.metric == DEFAULT_METRIC else ''}: add --metric {metric}")
        counts = (args.n_pos, args.n_neg)
        target = 0.9 if args.power is None else args.power
        auroc = {"auc": args.auc, "alpha": args.alpha, "auc0": args.auc0, "alternative": args.alternative}
        aucpr = {"aucpr": args.aucpr, "scenario": args.scenario, "estimator": args.estimator or DEFAULT_PR_ESTIMATOR,
                 "method": args.method, "level": args.level, "n_sim": args.n_sim, "rng": args.seed}
        if any(c is not None for c in counts):
            if None in counts or args.power is not None:
                raise ValueError("--n-pos and --n-neg (together, without --power) ask for the power of a study")
            if args.metric == "auroc":
                result = power("auroc", n_pos=args.n_pos, n_neg=args.n_neg, **auroc)
            else:
                result = power("aucpr", n_pos=args.n_pos, n_neg=args.n_neg, **aucpr)
        elif args.metric == "auroc":
            result = sample_size("auroc", power=target, ratio=args.ratio, **auroc)
        else:
            result = sample_size("aucpr", prevalence=args.prevalence, half_width=args.half_width, power=target,
                                 **aucpr)
        return render(result.to_frame(), result.summary(digits=args.digits), fmt, args.digits)

    return run(PROG, args, work)
