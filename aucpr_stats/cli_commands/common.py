"""Shared pieces of the subcommands: output options, the output format, rendering, running with one-line errors."""

from __future__ import annotations

import sys
import traceback
import warnings
from pathlib import Path
from typing import Callable

import polars as pl

from ..cli_io import escape_formulas, output_format, print_warnings, write_or_print
from ..report.table import markdown_escape

__all__ = ["FORMATS", "add_data_arguments", "add_output_arguments", "checked_format", "render", "run"]

#: Output formats of the subcommands.
FORMATS = ("text", "csv", "markdown")


def add_data_arguments(parser, score_help: str = "score column(s)") -> None:
    """The data arguments the table subcommands share: the file, --formula or --outcome/--score/--by,
    --positive and --missing."""
    parser.add_argument("file", help="input file: .csv, .tsv, .csv.gz, .tsv.gz or .parquet, or - for CSV on "
                                     "standard input")
    parser.add_argument("--formula", metavar="FORMULA",
                        help='R-style formula "outcome ~ score1 + score2 | group"; replaces --outcome, --score '
                             "and --by")
    parser.add_argument("--outcome", metavar="COLUMN", help="binary outcome column")
    parser.add_argument("--score", action="extend", nargs="+", metavar="COLUMN", help=score_help)
    parser.add_argument("--by", action="extend", nargs="+", metavar="COLUMN", help="grouping column(s)")
    parser.add_argument("--positive", metavar="LEVEL", help="the positive level of the outcome, when not 0/1")
    parser.add_argument("--missing", choices=["error", "drop"], default="error",
                        help="rows with a missing outcome or score: an error (default) or dropped")


def add_output_arguments(parser, digits: int) -> None:
    """The output options every subcommand takes: --format, --output, --force, --digits, --debug."""
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="text, csv or markdown (default: from the --output extension, else text)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE (.txt, .csv, .md)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --output file")
    parser.add_argument("--digits", type=int, default=digits, help=f"decimals shown (default {digits})")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an error")


def checked_format(command: str, args) -> str:
    """The output format of a subcommand: --format or the --output extension, among :data:`FORMATS`."""
    fmt = output_format(args.output, args.format)
    if fmt not in FORMATS:
        raise ValueError(f"{command} writes {', '.join(FORMATS)}; got {fmt}")
    return fmt


def render(frame: pl.DataFrame, text: str, fmt: str, digits: int) -> str:
    """A result frame as ``fmt``: ``text`` (its summary), ``csv`` (formula-like cells escaped) or ``markdown``."""
    if fmt == "text":
        return text
    if fmt == "csv":
        return escape_formulas(frame).write_csv()

    def cell(value) -> str:
        if value is None:
            return ""
        if isinstance(value, float):
            return "NaN" if value != value else f"{value:.{digits}f}"  # noqa: PLR0124 (NaN test)
        return markdown_escape(str(value))

    lines = ["| " + " | ".join(markdown_escape(c) for c in frame.columns) + " |",
             "|" + "|".join("---" for _ in frame.columns) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.iter_rows()]
    return "\n".join(lines)


def run(prog: str, args, work: Callable[[], str]) -> int:
    """Run ``work()`` and print (or write to ``args.output``) its text; one line on stderr for an error."""
    try:
        if args.output and Path(args.output).exists() and not args.force:
            raise ValueError(f"--output file {args.output!r} exists; pass --force to overwrite it")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            text = work()
        print_warnings(prog, caught)
        write_or_print(prog, text, args.output, args.force)
    except (ValueError, TypeError, KeyError, pl.exceptions.PolarsError, OSError) as exc:
        return _fail(args, f"{prog}: error: {_first_line(exc)}", 2)
    except Exception as exc:  # anything unforeseen: one line, the traceback only with --debug
        hint = "" if args.debug else " (run with --debug for the traceback)"
        return _fail(args, f"{prog}: error: unexpected {type(exc).__name__}: {_first_line(exc)}{hint}", 1)
    return 0


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _fail(args, line: str, status: int) -> int:
    if args.debug:
        traceback.print_exc(file=sys.stderr)
    print(line, file=sys.stderr)
    return status
