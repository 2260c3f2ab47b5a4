"""The command line's input and output: reading CSV, TSV (gzip too), Parquet or standard input, and writing tables.

Shared by ``aucpr-stats`` (:mod:`aucpr_stats.cli`) and its subcommands
(:mod:`aucpr_stats.cli_commands`): one way to read a file, one rule for the
output format, one CSV escape.
"""

from __future__ import annotations

import atexit
import contextlib
import gzip
import io
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import attrs
import polars as pl

from .exceptions import InputError
from .formula import parse_formula

__all__ = ["STDIN", "MISSING_TEXT", "INPUT_SUFFIXES", "OUTPUT_SUFFIXES", "FILE_FORMATS", "source_name",
           "input_suffix", "read_input", "positive_value", "escape_formulas", "csv_text", "output_format",
           "print_warnings", "write_or_print", "columns_from_args"]

#: First characters that make a spreadsheet read a CSV cell as a formula (OWASP's list:
#: '=', '+', '-', '@', tab and carriage return); such text cells get a leading "'".
FORMULA_START = r"^[=+\-@\t\r]"

#: A text cell that is one plain number ("-0.05", "+1e-3") is left alone: a spreadsheet reads it as that number.
PLAIN_NUMBER = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$"

#: Cell texts read as missing in CSV/TSV files (besides empty cells), as R and Excel write them.
MISSING_TEXT = ["NA", "N/A", "NULL", "null"]

#: The file name that reads standard input (CSV).
STDIN = "-"

#: Input files by extension: the CSV separator, or None for Parquet; ".gz" files are gzip-compressed.
INPUT_SUFFIXES = {".csv": ",", ".tsv": "\t", ".csv.gz": ",", ".tsv.gz": "\t", ".parquet": None}

#: The output format that an ``--output`` file's extension implies when ``--format`` is not given.
OUTPUT_SUFFIXES = {".md": "markdown", ".tex": "latex", ".html": "html", ".csv": "csv", ".txt": "text",
                   ".docx": "docx"}
#: Output formats written only to a file (``--output``), never to the screen.
FILE_FORMATS = ("docx",)

def source_name(name: str) -> str:
    """The input as messages name it: ``standard input`` for ``-``, otherwise the quoted file name."""
    return "standard input" if name == STDIN else f"file {name!r}"


def input_suffix(name: str) -> str:
    """The extension of an input file among :data:`INPUT_SUFFIXES` (``".csv.gz"`` counts as one)."""
    lower = name.lower()
    suffix = next((s for s in sorted(INPUT_SUFFIXES, key=len, reverse=True) if lower.endswith(s)), None)
    if suffix is None:
        raise InputError(f"file {name!r}: expected one of {', '.join(INPUT_SUFFIXES)} (or - for standard input); "
                         f"got {''.join(Path(name).suffixes) or 'no extension'}")
    return suffix


def read_csv_bytes(data: bytes, separator: str) -> pl.LazyFrame:
    """CSV text held in memory (standard input, a decompressed file), types inferred from every row."""
    return pl.read_csv(io.BytesIO(data), separator=separator, null_values=MISSING_TEXT,
                       infer_schema_length=None).lazy()


#: Bytes decompressed at a time: a gzip file is streamed to disk, never inflated whole in memory.
_DECOMPRESS_BLOCK = 1 << 20


def _decompressed(path: Path, name: str) -> Path:
    """A gzip file decompressed, block by block, into a temporary file removed when the process exits.

    The scan of the CSV then reads it from disk like any other file, so the
    memory used does not grow with the decompressed size (a small file that
    inflates to gigabytes fills the disk, not the memory).
    """
    handle, temporary = tempfile.mkstemp(prefix="aucpr_stats_", suffix=".csv")
    atexit.register(_remove, temporary)
    try:
        with gzip.open(path, "rb") as source, os.fdopen(handle, "wb") as target:
            shutil.copyfileobj(source, target, _DECOMPRESS_BLOCK)
    except (OSError, EOFError) as exc:
        raise InputError(f"file {name!r} is not a readable gzip file: {exc}") from None
    return Path(temporary)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def read_input(name: str) -> pl.LazyFrame:
    if name == STDIN:
        if sys.stdin is None or sys.stdin.isatty():
            raise InputError("file - reads CSV from standard input; pipe a file into it (... | aucpr-stats - ...)")
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
        if not data.strip():
            raise InputError("standard input (file -) is empty; expected CSV with a header line")
        return read_csv_bytes(data, ",")
    path = Path(name)
    if not path.exists():
        raise InputError(f"file {name!r} does not exist")
    suffix = input_suffix(name)
    separator = INPUT_SUFFIXES[suffix]
    if separator is None:
        return pl.scan_parquet(path)
    if suffix.endswith(".gz"):
        path = _decompressed(path, name)
    # the column types are inferred from every row (infer_schema_length=None): a score column whose
    # integers turn into decimals late in the file is read as decimals, not refused at that row.
    # Inferred once, then given as the schema, so no later query reads the whole file to infer it again.
    options = dict(separator=separator, null_values=MISSING_TEXT)
    schema = pl.scan_csv(path, infer_schema_length=None, **options).collect_schema()
    return pl.scan_csv(path, schema=schema, **options)


#: The outcome values an error message lists.
_SHOWN_VALUES = 20

#: The texts that name a value of a true/false outcome on the command line.
_BOOLEAN_TEXTS = {"true": True, "1": True, "false": False, "0": False}


def positive_value(text: str | None, frame: pl.LazyFrame, outcome: str | None, option: str = "--positive"):
    """The value of the outcome column that ``--positive`` (or ``--negative``) names, in the column's type.

    The command line gives text. A true/false column takes ``true``/``false``
    or ``1``/``0`` (any case), a numeric column a number; any other text is an
    error naming the values present, never a silent swap of the classes
    (``--positive T`` used to read as False). Whether the value occurs in the
    column is checked by the call itself, with the levels present.
    """
    if text is None or outcome is None:
        return text
    dtype = frame.collect_schema().get(outcome)
    if dtype is None:  # the column's absence is reported by the call, with the columns present
        return text
    if dtype == pl.Boolean:
        value = _BOOLEAN_TEXTS.get(text.strip().lower())
    elif dtype.is_integer() or dtype.is_float():
        try:
            value = int(text) if dtype.is_integer() else float(text)
        except ValueError:
            value = None
    else:
        return text
    if value is None:
        present = frame.select(pl.col(outcome).drop_nulls().unique().sort().head(_SHOWN_VALUES)).collect()[outcome]
        shown = ", ".join(str(v).lower() for v in present.to_list())
        kind = "true/false" if dtype == pl.Boolean else "numeric"
        raise InputError(f"{option} {text!r} is not a value of the {kind} outcome column {outcome!r} (values "
                         f"present: {shown or 'none'})")
    return value


def columns_from_args(args: Any) -> tuple[Any, Any, Any]:
    """(outcome, score, by) from ``--formula`` or from ``--outcome``/``--score``/``--by``, for every command."""
    if args.formula is not None:
        given = [f"--{n}" for n in ("outcome", "score", "by") if getattr(args, n)]
        if given:
            raise InputError(f"--formula replaces {', '.join(given)}; give one or the other")
        f = parse_formula(args.formula)
        if f.survival is not None:
            raise InputError(f"{f.outcome} is a time-to-event outcome: the main command takes it with --horizon "
                             "(time-dependent areas); this command needs a binary outcome")
        return f.outcome, f.score, (list(f.by) or None)
    missing = [f"--{n}" for n in ("outcome", "score") if not getattr(args, n)]
    if missing:
        raise InputError(f"missing {' and '.join(missing)} (or give --formula \"outcome ~ score | group\")")
    score = args.score[0] if len(args.score) == 1 else args.score
    return args.outcome, score, args.by


def escape_formulas(frame: pl.DataFrame) -> pl.DataFrame:
    """Text cells (and column names) that a spreadsheet would run as a formula, prefixed with ``'``.

    The OWASP convention for CSV injection: a text cell that begins with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading single
    quote. Numeric columns are never touched (-0.5 stays a number), nor a text
    cell that is one plain number.
    """
    text = [name for name, dtype in frame.schema.items()
            if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum)]
    if text:
        frame = frame.with_columns(pl.col(text).cast(pl.String)).with_columns(
            pl.when(pl.col(c).str.contains(FORMULA_START) & ~pl.col(c).str.contains(PLAIN_NUMBER))
            .then(pl.lit("'") + pl.col(c)).otherwise(pl.col(c)).alias(c)
            for c in text
        )

    def name(c: str) -> str:
        return f"'{c}" if re.match(FORMULA_START, c) and not re.match(PLAIN_NUMBER, c) else c

    return frame.rename({c: name(c) for c in frame.columns if name(c) != c})


def csv_text(frame_or_table: Any) -> str:
    """CSV text with formula-like cells escaped, from a frame or a publication table."""
    if isinstance(frame_or_table, pl.DataFrame):
        return escape_formulas(frame_or_table).write_csv()
    return attrs.evolve(frame_or_table, cells=escape_formulas(frame_or_table.cells)).to_csv()


def output_format(output: str | None, format: str | None) -> str:
    """The output format: ``--format``, or the one the ``--output`` extension implies (text on the screen).

    An ``--output`` extension of :data:`OUTPUT_SUFFIXES` that names another
    format than ``--format`` is an error; so is an unknown extension without
    ``--format`` (one line naming the accepted ones).
    """
    if not output:
        return format or "text"
    suffix = Path(output).suffix.lower()
    implied = OUTPUT_SUFFIXES.get(suffix)
    if format is None:
        if implied is None:
            accepted = ", ".join(f"{s} ({f})" for s, f in OUTPUT_SUFFIXES.items())
            raise InputError(f"--output {output!r}: cannot tell the format from the extension "
                             f"{suffix or '(none)'}; use one of {accepted} or give --format")
        return implied
    if implied is not None and implied != format:
        raise InputError(f"--format {format} contradicts --output {output!r} (a {suffix} file is {implied}); "
                         "drop --format or change the extension")
    return format


def print_warnings(prog: str, caught: list) -> None:
    """The warnings caught while a command ran, one line each on stderr (deprecations left out)."""
    for w in caught:
        if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)):
            print(f"{prog}: warning: {str(w.message).splitlines()[0]}", file=sys.stderr)


def write_or_print(prog: str, text: str, output: str | None, force: bool = False) -> None:
    """``text`` to the ``--output`` file (saying so on stderr, see :func:`write_output`) or to the screen."""
    if output:
        body = text if text.endswith("\n") else text + "\n"
        write_output(output, lambda path: path.write_text(body, encoding="utf-8"), force)
        print(f"{prog}: wrote {output}", file=sys.stderr)
    else:
        print(text.rstrip("\n"))


def _umask() -> int:
    """The process's file-creation mask (read by setting it, then put back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_output(output: str, write: Callable[[Path], None], force: bool) -> None:
    """Write the ``--output`` file whole or not at all, and never over an existing file without ``force``.

    ``write(path)`` fills a temporary file in the target's directory, which
    is then put in place in one step: without ``force`` as a new hard link,
    which fails if anything holds the name (a file written meanwhile by
    another run, or a symbolic link, dangling or not: its target is never
    written); with ``force`` by renaming over the name (a symbolic link is
    replaced, not followed). Where hard links are not supported, an
    exclusive creation of the name reserves it first.
    """
    target = Path(output)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    os.close(handle)
    try:
        write(Path(temporary))
        # mkstemp makes the file private (0600); the output gets the mode any new file gets here (the umask's)
        os.chmod(temporary, 0o666 & ~_umask())
        if force:
            os.replace(temporary, target)
            return
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise InputError(f"--output file {output!r} exists; pass --force to overwrite it") from None
        except OSError:  # no hard links here (some network and FAT file systems): reserve the name, then move
            try:
                os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0)))
            except FileExistsError:
                raise InputError(f"--output file {output!r} exists; pass --force to overwrite it") from None
            os.replace(temporary, target)
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)
