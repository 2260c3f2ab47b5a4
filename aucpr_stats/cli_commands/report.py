"""``aucpr-stats report FILE --outcome y --score p [--by g] [--thresholds 0.1 0.2] -o report.html|.docx|.md``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..cli_io import columns_from_args, positive_value, read_input, write_output
from ..performance import DEFAULT_REPORT_THRESHOLDS, report
from .common import add_data_arguments, run

__all__ = ["build_parser", "main"]

PROG = "aucpr-stats report"

#: What --output's extension writes.
REPORT_FORMATS = {".html": "html", ".htm": "html", ".docx": "docx", ".md": "markdown", ".tex": "latex",
                  ".txt": "text"}

EXAMPLES = """\
examples:
  # the whole performance section of two models per size group, as a web page
  aucpr-stats report data/breast_cancer_oof.csv --formula "malignant ~ logistic + forest | size_group" \\
      --thresholds 0.1 0.2 0.3 -o performance.html

  # the same as a Word document (the table as a Word table, the figures embedded)
  aucpr-stats report data/breast_cancer_oof.csv --formula "malignant ~ logistic + forest | size_group" \\
      -o performance.docx
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``aucpr-stats report``."""
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="The performance report of one or more models (TRIPOD+AI 12e, 23a, 23b): discrimination, "
                    "calibration and net benefit with intervals per subgroup and overall, the tests across "
                    "subgroups and the figures, as a self-contained HTML page, a Word document, Markdown or "
                    "LaTeX (docs/report.md).")
    add_data_arguments(parser, "score column(s); predicted risks in [0, 1] for calibration and net benefit")
    parser.add_argument("--thresholds", type=float, nargs="+", metavar="T",
                        default=list(DEFAULT_REPORT_THRESHOLDS),
                        help="risk thresholds of net benefit (default 0.1 0.2 0.3)")
    parser.add_argument("--weights", metavar="COLUMN", help="case weights")
    parser.add_argument("--cluster", metavar="COLUMN", help="cluster id (several rows per patient)")
    parser.add_argument("--prevalence", type=float, default=None, metavar="P",
                        help="a case-control sample read at this population prevalence")
    parser.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    parser.add_argument("--title", default=None, help="the report's title")
    parser.add_argument("--no-figures", action="store_true", help="leave the figures out (no matplotlib needed)")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="write to FILE: .html (default format when printing), .docx, .md, .tex or .txt")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --output file")
    parser.add_argument("--digits", type=int, default=2, help="decimals in the table (default 2)")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an error")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``aucpr-stats report``; returns the exit status (0 ok, 2 bad input, 1 other errors)."""
    args = build_parser().parse_args(argv)

    def work() -> str:
        fmt = "html" if args.output is None else REPORT_FORMATS.get(Path(args.output).suffix.lower())
        if fmt is None:
            raise ValueError(f"--output {args.output!r}: write .html, .docx, .md, .tex or .txt")
        frame = read_input(args.file)
        outcome, score, by = columns_from_args(args)
        result = report(frame, outcome, score, by, thresholds=args.thresholds, weights=args.weights,
                        cluster=args.cluster, prevalence=args.prevalence, level=args.level,
                        positive=positive_value(args.positive, frame, outcome), missing=args.missing,
                        figures=not args.no_figures, title=args.title, digits=args.digits)
        if fmt == "docx":
            write_output(args.output, result.to_docx, args.force)
            print(f"{PROG}: wrote {args.output}", file=sys.stderr)
            args.output = None  # written here: nothing left to print
            return ""
        return {"html": result.to_html, "markdown": result.to_markdown, "latex": result.to_latex,
                "text": result.summary}[fmt]()

    return run(PROG, args, work)
