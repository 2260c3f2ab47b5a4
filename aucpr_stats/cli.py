"""Command line: ``aucpr-stats FILE --outcome y --score s --by site``.

Bad columns or options print one line on stderr and exit with status 2; no
traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from .api import aucpr
from .estimators import DEFAULT_PR_ESTIMATOR, PR_ESTIMATORS
from .exceptions import InputError, InputTypeError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aucpr-stats",
        description=(
            "Area under the precision-recall curve per group, from a CSV or Parquet file. "
            "Example: aucpr-stats data/synthetic_cohort.csv --outcome disease --score model_a --by site"
        ),
    )
    parser.add_argument("file", help="CSV (.csv) or Parquet (.parquet) file, one row per case")
    parser.add_argument("--outcome", required=True, help="binary outcome column (0/1, boolean, or see --positive)")
    parser.add_argument("--score", required=True, help="numeric score column; larger means more likely positive")
    parser.add_argument("--by", action="append", default=None, metavar="COLUMN",
                        help="grouping column; repeat for several")
    parser.add_argument("--positive", default=None,
                        help="the positive level of the outcome, when it is not 0/1 or boolean")
    parser.add_argument("--estimator", action="append", default=None, choices=[*PR_ESTIMATORS, "all"],
                        help=f"AUCPR estimator (default {DEFAULT_PR_ESTIMATOR}); repeat for several")
    parser.add_argument("--missing", choices=["error", "drop"], default="error",
                        help="what to do with rows whose outcome or score is missing (default: error)")
    return parser


def _read(path: Path) -> pl.LazyFrame:
    if not path.exists():
        raise InputError(f"file {str(path)!r} does not exist")
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return pl.scan_parquet(path)
    if suffix in (".csv", ".txt"):
        return pl.scan_csv(path, infer_schema_length=10000)
    raise InputError(f"file {str(path)!r}: expected a .csv or .parquet file")


def _positive_value(text: str | None, frame: pl.LazyFrame, outcome: str):
    """Read ``--positive`` in the type of the outcome column (text on the command line)."""
    if text is None:
        return None
    schema = frame.collect_schema()
    dtype = schema.get(outcome)
    if dtype is None:
        return text
    if dtype == pl.Boolean:
        return text.lower() in ("true", "1", "yes")
    if dtype.is_integer():
        try:
            return int(text)
        except ValueError:
            return text
    if dtype.is_float():
        try:
            return float(text)
        except ValueError:
            return text
    return text


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        frame = _read(Path(args.file))
        estimator = args.estimator or [DEFAULT_PR_ESTIMATOR]
        estimator = "all" if "all" in estimator else estimator
        result = aucpr(
            frame,
            outcome=args.outcome,
            score=args.score,
            by=args.by,
            estimator=estimator,
            positive=_positive_value(args.positive, frame, args.outcome),
            missing=args.missing,
        )
    except (InputError, InputTypeError) as exc:
        print(f"aucpr-stats: error: {exc}", file=sys.stderr)
        return 2
    except pl.exceptions.PolarsError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"aucpr-stats: error reading {args.file!r}: {first}", file=sys.stderr)
        return 2
    print(result.summary())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
