"""Command line: ``aucpr-stats FILE --outcome y --score s --by site``.

Prints a publication table (one row per group, "estimate (lower–upper)"
cells, counts of positives and negatives) in text, CSV, Markdown, LaTeX or
HTML. Bad columns or options print one line on stderr and exit with status 2;
any other error prints one line and exits with status 1. No traceback reaches
the user unless ``--debug`` asks for it.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import traceback
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from . import api, cli_commands
from . import __version__
from .cli_commands.compare import run_compare
from .cli_commands.multiclass import run_multiclass
from .cli_commands.plots import add_plot_arguments, check_plot_arguments, write_plots
from .cli_commands.time_to_event import run_time_to_event, wants_time_to_event
from .estimators import DEFAULT_PR_ESTIMATOR, PR_ESTIMATORS
from .estimators.tie_blocks import DEFAULT_TIES, TIES
from . import _validate
from .exceptions import InputError
from .intervals import INTERVAL_METHODS
from .intervals.registry import RANDOM_METHODS, default_method
from .ingest.checks import NO_ROWS
from .report import FORMATS, publication_table, text_table
from .cli_io import (FILE_FORMATS, STDIN, columns_from_args, csv_text,
                     escape_formulas,  # noqa: F401 (escape_formulas: kept importable)
                     output_format, positive_value, print_warnings, read_input, source_name, write_or_print,
                     write_output)

__all__ = ["main", "build_parser"]

PROG = "aucpr-stats"

#: Keyword arguments named in library messages, and the options that set them here.
_OPTION_NAMES = {
    "pass `positive=`": "pass --positive",
    "Pass missing='drop'": "Pass --missing drop",
    "`positive`=": "--positive ",
    "pass `negative=`": "pass --negative",
    "with missing='drop'": "with --missing drop",
    "`negative`=": "--negative ",
    "`n_boot`": "--n-boot",
    "`seed`": "--seed",
    "`method`": "--method",
    "pass metric='auroc'": "pass --metric auroc",
    "pass metric='aucpr'": "pass --metric aucpr",
}

#: Interval methods that resample and so take ``--seed``.

#: Metrics the command line can compute, with their entry points in ``aucpr_stats.api``.
METRICS = {"aucpr": "aucpr", "auroc": "auroc"}

EXAMPLES = """\
examples:
  # AUCPR per site, with the default confidence interval, as a text table
  aucpr-stats data/synthetic_cohort.csv --outcome disease --score model_a --by site

  # the same with an R-style formula; two models side by side; AUCPR and AUROC
  aucpr-stats data/synthetic_cohort.csv --formula "disease ~ model_a + model_b | site" \\
      --metric aucpr --metric auroc

  # real data (breast cancer, out-of-fold scores), with a whole-cohort row, as LaTeX in a file
  # (the format follows the extension: .md, .tex, .html, .csv, .txt)
  aucpr-stats data/breast_cancer_oof.csv --formula "malignant ~ logistic + forest | size_group" \\
      --overall --output table2.tex

  # a gzip-compressed file, or CSV from standard input ("-")
  gzip -dc cohort.csv.gz | aucpr-stats - --outcome disease --score model_a --format markdown

  # is the logistic model better than the texture model? (paired comparison per subgroup)
  aucpr-stats data/breast_cancer_oof.csv --formula "malignant ~ logistic + texture | size_group" \\
      --metric auroc --compare

  # the plain numbers (one row per group, estimator and method) as CSV
  aucpr-stats data/synthetic_cohort.csv --outcome disease --score model_a --raw --format csv

Exit status: 0 on success, 2 for a bad file, column or option, 1 for any other error
(one line on stderr; --debug adds the traceback).
"""


def _methods(metric: str) -> list[str]:
    """Interval method names of a metric, for the help text."""
    return list(INTERVAL_METHODS[metric])


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``aucpr-stats``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=textwrap.dedent("""\
            Area under the precision-recall curve (AUCPR) and the ROC curve (AUROC), per group,
            with confidence intervals, from a CSV or Parquet file with one row per case.
            Prints a publication table: one row per group with the numbers of positives and
            negatives and "estimate (lower-upper)" cells."""),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("file", help="input file: .csv, .tsv, .csv.gz, .tsv.gz or .parquet, one row per case, "
                                      "or - for CSV on standard input "
                                      "(in CSV/TSV, empty cells and NA, N/A, NULL are missing values)")

    cols = parser.add_argument_group("columns (give --outcome and --score, or --formula)")
    cols.add_argument("--formula", metavar="FORMULA",
                      help='R-style formula "outcome ~ score1 + score2 | group1 + group2"; '
                           "replaces --outcome, --score and --by")
    cols.add_argument("--outcome", metavar="COLUMN",
                      help="binary outcome column: 0/1 or true/false (otherwise see --positive)")
    cols.add_argument("--score", action="extend", nargs="+", metavar="COLUMN",
                      help="numeric score column (larger = more likely positive); "
                           "several columns give one column of the table per score")
    cols.add_argument("--by", action="extend", nargs="+", metavar="COLUMN",
                      help="grouping column(s): one row of the table per value; several columns give a "
                           "block per column (a header row naming it, its values below), as Table 2 of a "
                           "paper; with --cross, one row per combination of their values instead")
    cols.add_argument("--cross", action="store_true",
                      help="with several --by columns: group by their combinations (crossed) instead of "
                           "one block per column")
    cols.add_argument("--positive", metavar="LEVEL",
                      help="the level of the outcome that counts as positive, when it is not 0/1 or "
                           "true/false (with two levels the other one is negative)")
    cols.add_argument("--negative", action="extend", nargs="+", metavar="LEVEL",
                      help="the level(s) of the outcome that count as negative, needed when it has more than "
                           "two levels; rows with any other level are missing outcomes (see --missing)")
    cols.add_argument("--direction", choices=["higher", "lower", "auto"], default="higher",
                      help="which way the scores point: higher (default: larger = more likely positive), "
                           "lower, or auto (chosen from the data as pROC does; biases the area upward)")
    cols.add_argument("--missing", choices=["error", "drop"], default="error",
                      help="rows with a missing outcome or score: stop with an error (default) or drop "
                           "them (the count dropped is reported per group)")
    cols.add_argument("--unused-levels", choices=["keep", "drop"], default="keep",
                      help="levels a grouping column declares (a Parquet dictionary or categorical column) "
                           "without rows: a row with a note (default) or dropped")

    design = parser.add_argument_group("study design")
    design.add_argument("--weights", metavar="COLUMN",
                        help="case weights (frequency, sampling or inverse-probability weights): every count "
                             "becomes a sum of weights; intervals by the logit interval on Kish's effective "
                             "counts (aucpr) or the weighted DeLong variance (auroc)")
    design.add_argument("--cluster", metavar="COLUMN",
                        help="cluster id (e.g. the patient of each lesion or visit): intervals resample whole "
                             "clusters (aucpr) or use Obuchowski's cluster-robust variance (auroc)")
    design.add_argument("--imputation", metavar="COLUMN",
                        help="a column numbering multiply imputed data sets stacked in long format (mice's .imp; "
                             "drop its 0, the original data): every area is pooled over them by Rubin's rules "
                             "on the logit scale (docs/pooling.md)")
    design.add_argument("--prevalence", type=float, metavar="P",
                        help="aucpr at a stated population prevalence P (case-control samples): the negatives "
                             "are reweighted; intervals by the bootstrap")

    survival = parser.add_argument_group("time to event (instead of --outcome; docs/time_to_event.md)")
    survival.add_argument("--time", metavar="COLUMN", help="follow-up time (>= 0)")
    survival.add_argument("--event", metavar="COLUMN", help="event indicator: 1 event, 0 censored")
    survival.add_argument("--horizon", type=float, action="extend", nargs="+", metavar="T",
                          help="horizon(s) t: cases are the events by t, controls the rows event-free after t")
    survival.add_argument("--censoring-strata", metavar="COLUMN",
                          help="fit the censoring distribution (Kaplan-Meier) within the levels of this column")

    stats = parser.add_argument_group("statistics")
    stats.add_argument("--metric", action="append", choices=list(METRICS), metavar="{aucpr,auroc}",
                       help="area to report: aucpr (default) or auroc; repeat for both")
    stats.add_argument("--estimator", action="append", choices=[*PR_ESTIMATORS, "all"], metavar="NAME",
                       help=f"AUCPR estimator (default {DEFAULT_PR_ESTIMATOR}); repeat for several, or 'all'. "
                            f"Choices: {', '.join(PR_ESTIMATORS)}")
    stats.add_argument("--multiclass", choices=["ovr", "ovo", "hand_till"], default=None,
                       help="an outcome of more than two classes, --score one column per class (a template "
                            "'p_{level}'): one-vs-rest, pairwise or Hand & Till areas (docs/multiclass.md)")
    stats.add_argument("--average", action="extend", nargs="+", choices=["macro", "weighted", "micro", "all"],
                       help="with --multiclass: the averages beside the classes (default all)")
    stats.add_argument("--ties", choices=list(TIES), default=DEFAULT_TIES,
                       help="how AUCPR crosses a tie block holding both classes: 'interpolate' (default; as a "
                            "random order of the tied rows would, on average) or 'published' (the literal "
                            "conventions of Boyd et al. 2013 and scikit-learn)")
    stats.add_argument("--method", action="append", metavar="METHOD",
                       help="confidence interval method (as conf_int(method=)); 'default' (the default) uses "
                            "each metric's recommended one (logit for AUCPR, delong for AUROC); 'none' reports "
                            f"point estimates only; repeat for several. AUCPR: {', '.join(_methods('aucpr'))}. "
                            f"AUROC: {', '.join(_methods('auroc'))}. With --compare: the comparison's "
                            "method, delong (auroc) or bootstrap")
    # the earlier spelling, kept working and out of the help
    stats.add_argument("--interval", action="append", dest="method", help=argparse.SUPPRESS)
    stats.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    stats.add_argument("--seed", type=int, default=None,
                       help="random seed for resampling intervals (bootstrap, cross_validation); "
                            "same seed, same table")
    stats.add_argument("--n-boot", type=int, default=None, metavar="N",
                       help="number of bootstrap replicates for --method bootstrap (default 1000)")
    stats.add_argument("--specificity", type=float, nargs=2, metavar=("LO", "HI"),
                       help="auroc: the partial area over specificities LO-HI (as pROC's partial.auc, "
                            "partial.auc.focus='specificity'); intervals by the bootstrap (default) or delong")
    stats.add_argument("--sensitivity", type=float, nargs=2, metavar=("LO", "HI"),
                       help="auroc: the partial area over sensitivities LO-HI")
    stats.add_argument("--recall", type=float, nargs=2, metavar=("LO", "HI"),
                       help="aucpr: the partial area over recalls LO-HI (unnormalised); intervals by the bootstrap")
    stats.add_argument("--standardized", action="store_true",
                       help="with a partial area: McClish's standardisation for auroc (pROC's "
                            "partial.auc.correct), the area divided by HI-LO for aucpr")

    stats.add_argument("--compare", action="store_true",
                       help="compare the scores pairwise on the same rows instead: both areas, their "
                            "difference with its confidence interval, and the p-value (paired DeLong test "
                            "for auroc; paired stratified bootstrap for aucpr, or for auroc with --seed)")

    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=[*FORMATS, *FILE_FORMATS], default=None,
                     help="text, csv, markdown, latex (booktabs), html or docx (Word; needs --output and "
                          "python-docx); by default the --output file's extension (.txt, .csv, .md, .tex, "
                          ".html, .docx) decides, and text on the screen")
    out.add_argument("--output", "-o", metavar="FILE",
                     help="write to FILE instead of the screen (an existing FILE only with --force)")
    out.add_argument("--force", action="store_true", help="overwrite the --output file if it exists")
    out.add_argument("--digits", type=int, default=2, help="decimals shown in the table (default 2)")
    out.add_argument("--overall", action="store_true",
                     help="add a first row for the whole data set above the groups of --by")
    out.add_argument("--meta", action="store_true",
                     help="the --by groups are sites: add the random-effects pooled row (REML, Hartung-Knapp-"
                          "Sidik-Jonkman) and the 95%% prediction interval for a new site (docs/pooling.md)")
    out.add_argument("--heterogeneity", action="store_true",
                     help="add a footnote with the p-value for heterogeneity across the groups of each --by "
                          "column (Cochran's Q: a Wald test that the area is the same in every group, with the "
                          "variances of each metric's default interval)")
    out.add_argument("--show-prevalence", action="store_true",
                     help="add a column with the prevalence (%% positives) of each group: the AUCPR of an "
                          "uninformative score, the baseline each AUCPR reads against")
    out.add_argument("--scores-as", choices=["columns", "rows"], default="columns",
                     help="with several scores: one column per score (default) or one row per score")
    add_plot_arguments(out)
    out.add_argument("--raw", action="store_true",
                     help="print the unrounded numbers in long form (one row per group, estimator and "
                          "interval method) instead of the publication table; text or csv only")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the Python traceback as well as the one-line message")
    return parser


def _interval_method(args: argparse.Namespace) -> Any:
    methods = args.method or ["default"]
    if "none" in methods:
        if len(methods) > 1:
            raise InputError("--method none cannot be combined with other methods")
        return None
    return methods[0] if len(methods) == 1 else methods


def _raw_frame(results: list, method: Any, level: float, options: dict) -> pl.DataFrame:
    """The long frames of every result, one below the other, with a ``metric`` column first."""
    parts = []
    for r in results:
        if method is None:
            frames = [r.to_polars()]
        else:
            chosen = method.get(r.metric, "default") if isinstance(method, dict) else method  # by metric
            methods = [chosen] if isinstance(chosen, str) else list(chosen)
            frames = [r.conf_int_polars(method=None if m == "default" else m, level=level, **options.get(m, {}))
                      for m in methods]
        for f in frames:
            parts.append(f.select(pl.lit(r.metric).alias("metric"), pl.all()))
    return pl.concat(parts, how="diagonal_relaxed")


def _check_output(args: argparse.Namespace) -> None:
    """The output format, and an existing --output file overwritten only with --force (before any work)."""
    args.format = output_format(args.output, args.format)
    if args.format in FILE_FORMATS and not args.output:
        raise InputError(f"--format {args.format} writes a file: give --output FILE.{args.format}")
    if args.format in FILE_FORMATS and (args.raw or args.compare):
        raise InputError(f"--format {args.format} is for the publication table; drop --raw and --compare")
    if args.output and Path(args.output).exists() and not args.force:
        raise InputError(f"--output file {args.output!r} exists; pass --force to overwrite it")


def _groupings(by: Any, cross: bool) -> list:
    """The groupings of the table: each --by column on its own (stacked blocks), or all crossed (``--cross``)."""
    columns = [by] if isinstance(by, str) else list(by or [])
    if len(columns) < 2 or cross:
        return [by]
    return columns


def _run(args: argparse.Namespace) -> Any:
    _check_output(args)
    if args.n_boot is not None:
        _validate.n_boot_iv(args.n_boot)  # before the file is read: a huge --n-boot is one line at once
    if not 0 < args.level < 1:
        raise InputError(f"--level must be strictly between 0 and 1; got {args.level}")
    if args.digits < 0:
        raise InputError(f"--digits must be 0 or more; got {args.digits}")
    if args.raw and args.format not in ("text", "csv"):
        raise InputError(f"--raw prints text or csv; got --format {args.format}")
    check_plot_arguments(args)
    frame = read_input(args.file)
    if (args.plot or args.plot_curves) and (wants_time_to_event(args) or args.multiclass or args.compare):
        raise InputError("--plot and --plot-curves draw the areas of a binary outcome; not with --compare, "
                         "--multiclass or a time-to-event outcome yet")
    if wants_time_to_event(args):
        return run_time_to_event(args, frame)
    outcome, score, by = columns_from_args(args)
    if args.multiclass or args.average:
        if not args.multiclass:
            raise InputError("--average is for a multiclass outcome: add --multiclass ovr (or ovo, hand_till)")
        return run_multiclass(args, frame, outcome, score, by)
    positive = positive_value(args.positive, frame, outcome)
    args.negative = ([positive_value(t, frame, outcome, "--negative") for t in args.negative] if args.negative
                     else None)
    metrics = list(dict.fromkeys(args.metric or ["aucpr"]))
    partial = _partial_options(args, metrics)
    if args.compare:
        if len(_groupings(by, args.cross)) > 1:
            raise InputError("--compare with several --by columns compares the scores within each combination "
                             "of their values: add --cross")
        return run_compare(args, frame, outcome, score, by, positive, metrics, partial)
    estimator = args.estimator or [DEFAULT_PR_ESTIMATOR]
    estimator = "all" if "all" in estimator else estimator
    if any(partial.values()) and not args.method:
        args.method = ["bootstrap"]  # a partial area has no closed-form interval
    if args.overall and not by:
        raise InputError("--overall adds a whole-cohort row above the groups; it needs --by (or '| group')")
    results, overall = [], []
    for metric in metrics:
        fn = getattr(api, METRICS[metric], None)
        if fn is None:
            raise InputError(f"--metric {metric} is not available in this version")
        kwargs: dict[str, Any] = {"positive": positive, "missing": args.missing, "negative": args.negative,
                                  "direction": args.direction, "unused_levels": args.unused_levels,
                                  "weights": args.weights, "cluster": args.cluster, "imputation": args.imputation,
                                  **partial[metric]}
        if metric == "aucpr":
            kwargs["estimator"] = estimator
            kwargs["ties"] = args.ties
            kwargs["prevalence"] = args.prevalence
        for grouping in _groupings(by, args.cross):  # one block per --by column unless --cross
            results.append(fn(frame, outcome, score, grouping, **kwargs))
        if args.overall:
            overall.append(fn(frame, outcome, score, None, **kwargs))
    if args.meta:  # the groups are sites: a random-effects meta-analysis, its pooled rows in the table
        if len(results) != 1 or not by or overall or args.heterogeneity or args.raw:
            raise InputError("--meta pools the groups of one --by column (the sites) for one --metric, "
                             "without --overall, --heterogeneity (its footnote has Q and I²) or --raw")
        results = [results[0].meta()]
    method = _interval_method(args)
    if method == "default" and (args.weights or args.cluster or args.prevalence is not None):
        # the default of each metric for the design (e.g. the cluster bootstrap), named so --seed reaches it
        method = {r.metric: default_method(getattr(r, "result", r)) for r in results}
    # the seed goes only to the resampling methods (the closed forms take no options)
    methods = ([] if method is None else [method] if isinstance(method, str)
               else list(dict.fromkeys(method.values())) if isinstance(method, dict) else list(method))
    resampling = [m for m in methods if m in RANDOM_METHODS]
    if args.seed is not None and not resampling:
        raise InputError(f"--seed is for resampling intervals ({', '.join(RANDOM_METHODS)}); "
                         f"got --method {' '.join(methods) or 'none'}")
    method_options: dict[str, dict] = {m: {} for m in resampling}
    if args.seed is not None:
        for m in resampling:
            method_options[m]["seed"] = args.seed
    if args.n_boot is not None:
        if "bootstrap" not in methods:
            raise InputError(f"--n-boot is for --method bootstrap; got --method {' '.join(methods) or 'none'}")
        method_options["bootstrap"]["n_boot"] = args.n_boot
    if args.plot or args.plot_curves:  # the figures of the same results, before the table is written
        curve_options = {"positive": positive, "missing": args.missing, "negative": args.negative,
                         "direction": args.direction, "unused_levels": args.unused_levels, "weights": args.weights,
                         "cluster": args.cluster}
        write_plots(args, results + overall, method=method, method_options=method_options, data=frame,
                    outcome=outcome, score=score, by=_groupings(by, args.cross)[0], metrics=metrics,
                    curve_options=curve_options)
    if args.raw:
        if args.overall:
            raise InputError("--overall is for the publication table; drop it with --raw")
        raw = _raw_frame(results, method, args.level, method_options)
        if args.format == "csv":
            return csv_text(raw)
        return text_table(raw, digits=max(args.digits, 4))
    try:
        table = publication_table(results, method=method, level=args.level, digits=args.digits,
                                  scores_as=args.scores_as, method_options=method_options,
                                  overall=overall or None, prevalence=args.show_prevalence,
                                  heterogeneity="default" if args.heterogeneity else None)
    except NotImplementedError as exc:
        if args.method:  # asked for explicitly: report it
            raise
        warnings.warn(f"{exc}; showing point estimates only")
        table = publication_table(results, method=None, digits=args.digits, scores_as=args.scores_as,
                                  overall=overall or None, prevalence=args.show_prevalence)
    if args.format in FILE_FORMATS:
        return table
    if args.format == "text":
        scores = score if isinstance(score, str) else ", ".join(score)
        blocks = [[g] if isinstance(g, str) else g for g in _groupings(by, args.cross) if g]
        grouping = "".join(f"{'; ' if i else ' '}by {', '.join(g)}" for i, g in enumerate(blocks))
        source = "standard input" if args.file == STDIN else args.file
        title = f"{' and '.join(m.upper() for m in metrics)} of {scores} for outcome {outcome}{grouping} ({source})"
        return f"{title}\n\n{table.to_text()}"
    return csv_text(table) if args.format == "csv" else table.render(args.format)


def _partial_options(args: argparse.Namespace, metrics: list[str]) -> dict[str, dict]:
    """Per metric, the partial-area arguments of --specificity, --sensitivity, --recall and --standardized."""
    out: dict[str, dict] = {"aucpr": {}, "auroc": {}}
    for flag, metric in (("specificity", "auroc"), ("sensitivity", "auroc"), ("recall", "aucpr")):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if metric not in metrics:
            raise InputError(f"--{flag} is a partial area of {metric}: add --metric {metric}")
        out[metric][flag] = tuple(value)
    if getattr(args, "standardized", False):
        if not any(out.values()):
            raise InputError("--standardized applies to a partial area: give --specificity, --sensitivity "
                             "(auroc) or --recall (aucpr)")
        for options in out.values():
            if options:
                options["standardized"] = True
    return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input, 1 any other error).

    Every error is one line on stderr, ``aucpr-stats: error: ...``; ``--debug``
    prints the traceback above it.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in cli_commands.SUBCOMMANDS:  # subcommands, each in its own module
        return cli_commands.main(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            text = _run(args)
        print_warnings(PROG, caught)
        if not isinstance(text, str):  # a table for a file format (Word)
            write_output(args.output, text.to_docx, args.force)
            print(f"{PROG}: wrote {args.output}", file=sys.stderr)
        else:
            write_or_print(PROG, text, args.output, args.force)
    except (ValueError, TypeError, KeyError, NotImplementedError) as exc:
        message = _first_line(exc)
        for python, option in _OPTION_NAMES.items():  # speak in options, not keyword arguments
            message = message.replace(python, option)
        if message == NO_ROWS:
            message = f"{source_name(args.file)} has no rows, only column names"
        if isinstance(exc, NotImplementedError):
            message += " (try --method none)"
        return _fail(args, f"{PROG}: error: {message}", 2)
    except pl.exceptions.PolarsError as exc:
        return _fail(args, f"{PROG}: error reading {source_name(args.file)}: {_first_line(exc)}", 2)
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        return _fail(args, f"{PROG}: error: {_first_line(exc)}", 2)
    except KeyboardInterrupt:
        return _fail(args, f"{PROG}: error: interrupted", 130)
    except Exception as exc:  # anything unforeseen: still one line, the traceback only with --debug
        hint = "" if args.debug else " (run with --debug for the traceback)"
        return _fail(args, f"{PROG}: error: unexpected {type(exc).__name__}: {_first_line(exc)}{hint}", 1)
    return 0


def _fail(args: argparse.Namespace, line: str, status: int) -> int:
    """Print the traceback (with --debug) and then the one-line message; return the exit status."""
    if args.debug:
        traceback.print_exc(file=sys.stderr)
    print(line, file=sys.stderr)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

