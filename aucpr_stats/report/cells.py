"""Display text for tables and figures: cells, p-values, labels.

Pretty labels live here and nowhere else (STYLE.md, item 6); the numbers
behind them are never rounded.
"""

from __future__ import annotations

import re

import math
from typing import Any, Mapping, Sequence

import polars as pl

from .._validate import SCORE_KEY
from ..exceptions import InputTypeError

__all__ = ["DEFAULT_LABELS", "Labels", "pretty_name", "level_text", "format_number", "format_cell", "format_p",
           "printable", "MARKS", "note_marks", "marks_footnote", "MINUS", "true_minus", "one_separator", "seed_text"]

#: The minus sign of typeset numbers (U+2212), in the text, Markdown, HTML and LaTeX renderings
#: of tables; CSV and frames keep the ASCII hyphen, which programs read as a number.
MINUS = "\u2212"

#: A hyphen that starts a number: at the start of a cell or after a character that is neither a
#: letter, a digit nor a point ("-0.17 (-0.22 to -0.13)"), before a digit or ".5".
_NEGATIVE = r"(^|[^\w.])-(\.?\d)"

#: An interval written with the en dash, "(lo–hi)", and one written with " to ".
_DASH_INTERVAL = r"\(([^()\s]+)\u2013([^()\s]+)\)"
_TO_INTERVAL = r"\([^()\s]+ to [^()\s]+\)"

#: Footnote marks of interval cells, by what their ``note`` says (issue 14): the text the
#: note holds (:mod:`aucpr_stats.intervals.boundaries`, ``.small_sample``) and the footnote.
MARKS = {
    "\u2020": ("truncated to [", "interval truncated to the parameter space (a Wald bound passed it)"),
    "\u2021": ("boundary fallback:", "estimate at the boundary or a standard error of 0: score interval "
                                     "(Wilson on the positives for AUCPR, Newcombe 2006 for AUROC)"),
    "\u00a7": ("small sample:", "fewer positives than the method needs to keep its coverage (docs/validation.md)"),
    "\u2016": ("case-control sample at a stated prevalence", "case-control sample with too few controls per case "
                                                            "for the stated prevalence: estimate biased upward, "
                                                            "interval under-covers (docs/designs.md)"),
    "\u00b6": ("near the boundary:", "too close to an AUROC of 1 for the numbers of positives and negatives: the "
                                   "interval may under-cover (docs/intervals.md)"),
}

#: Labels used unless ``labels=`` says otherwise.
DEFAULT_LABELS = {
    "n_pos": "Positives",
    "n_neg": "Negatives",
    SCORE_KEY: "Score",
    "a_prime": "A' (Mann-Whitney)",
    "delong": "DeLong",
    "hanley_mcneil": "Hanley-McNeil",
    "newcombe": "Newcombe score",
    "obuchowski": "Obuchowski cluster-robust",
}



def labels_iv(labels: Any) -> dict[str, str]:
    """``labels=`` checked: a mapping from names (any value, compared as text) to display text."""
    if labels is None:
        return {}
    if not isinstance(labels, Mapping):
        raise InputTypeError(f"`labels` must be a dict of name -> display text; got {type(labels).__name__}")
    wrong = {k: v for k, v in labels.items() if not isinstance(v, str)}
    if wrong:
        key, value = next(iter(wrong.items()))
        raise InputTypeError(
            f"`labels` values must be text; {len(wrong)} are not, e.g. {key!r} -> {value!r} "
            f"({type(value).__name__}): write labels={{{key!r}: {str(value)!r}}}")
    return {str(k): v for k, v in labels.items()}


class Labels:
    """Display labels: the caller's, then :data:`DEFAULT_LABELS`, then a given default or the name itself."""

    def __init__(self, labels: Mapping[str, str] | None = None):
        self.names = {**DEFAULT_LABELS, **labels_iv(labels)}

    def __call__(self, name: Any, default: str | None = None) -> str:
        return self.names.get(str(name), default if default is not None else str(name))


def pretty_name(name: str) -> str:
    """Default display label of an estimator or method name: underscores become spaces."""
    return name.replace("_", " ")


def level_text(level: float) -> str:
    """``0.95`` as ``"95%"``."""
    return f"{level * 100:g}%"


def format_number(value: Any, digits: int, na: str) -> str:
    """A number rounded for display; ``na`` when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return na
    text = f"{float(value):.{digits}f}"
    # a value that rounds to zero prints without a sign ("-0.00" -> "0.00")
    return text[1:] if text.startswith("-") and float(text) == 0 else text



def format_cell(estimate: Any, lower: Any = None, upper: Any = None, *, digits: int = 2,
                sep: str = "\u2013", na: str = "NA", interval: bool = True) -> str:
    """``"0.73 (0.63–0.83)"``: an estimate with its interval, rounded for display.

    A missing estimate shows ``na``; a missing bound shows ``"0.73 (NA)"``.
    With a negative bound (a difference) the default en dash becomes
    ``" to "``: ``"-0.17 (-0.22 to -0.13)"``.
    """
    est = format_number(estimate, digits, na)
    if est == na and interval and estimate is None and lower is not None and upper is not None:
        # an interval without a point (a prediction interval): "(0.63–0.83)"
        lo, hi = format_number(lower, digits, na), format_number(upper, digits, na)
        if sep == "\u2013" and (lo.startswith("-") or hi.startswith("-")):
            sep = " to "
        return est if na in (lo, hi) else f"({lo}{sep}{hi})"
    if not interval or est == na:
        return est
    lo, hi = format_number(lower, digits, na), format_number(upper, digits, na)
    if lo == na or hi == na:
        return f"{est} ({na})"
    if sep == "\u2013" and (lo.startswith("-") or hi.startswith("-")):
        sep = " to "  # "-0.22–-0.13" would read as a range of dashes
    return f"{est} ({lo}{sep}{hi})"



def format_p(p: Any, digits: int = 3, na: str = "NA", floor: float | None = None) -> str:
    """A p-value as journals print it: ``"0.012"``, ``"<0.001"`` below ``10**-digits``.

    ``floor`` is the resolution of a Monte Carlo p-value (``1/(B + 1)`` for
    the bootstrap's, :func:`aucpr_stats.compare.statistics.p_value_floor`):
    a p-value at the floor prints as ``"<"`` and the floor rounded up, e.g.
    ``"<0.005"`` with 200 replicates, never as ``"0.000"``.

    Examples
    --------
    >>> format_p(0.0123), format_p(2e-5), format_p(1 / 201, floor=1 / 201), format_p(0.3, floor=1 / 201)
    ('0.012', '<0.001', '<0.005', '0.300')
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return na
    if floor is not None and p <= floor * (1.0 + 1e-9):
        scale = 10.0 ** digits
        shown = math.ceil(floor * scale * (1.0 - 1e-12)) / scale  # the floor rounded up to the digits shown
        return f"<{max(shown, 1.0 / scale):.{digits}f}"
    smallest = 10.0 ** -digits
    return f"<{smallest:.{digits}f}" if p < smallest else f"{p:.{digits}f}"


def true_minus(column: pl.Expr) -> pl.Expr:
    """A text column with the hyphen of every negative number replaced by the minus sign :data:`MINUS`."""
    return column.str.replace_all(_NEGATIVE, "${1}" + MINUS + "${2}")


def one_separator(frame: pl.DataFrame, columns: Sequence[str], sep: str = "\u2013") -> pl.DataFrame:
    """One bound separator per table: every interval of ``columns`` in ``" to "`` once one of them is.

    :func:`format_cell` writes an interval with a negative bound as
    ``"(-0.22 to -0.13)"`` (an en dash between negative numbers reads as a
    range of dashes); the other cells of the same table follow, so a table
    never mixes ``"(0.01–0.20)"`` with ``"(-0.22 to -0.13)"``. A ``sep``
    other than the en dash is the caller's choice and is kept.
    """
    text = [c for c in columns if frame.schema[c] == pl.String]
    if sep != "\u2013" or not text:
        return frame
    if not frame.select(pl.any_horizontal(pl.col(text).str.contains(_TO_INTERVAL).any())).item():
        return frame
    return frame.with_columns(pl.col(text).str.replace_all(_DASH_INTERVAL, "(${1} to ${2})"))


def note_marks(note: Any) -> str:
    """The footnote marks (:data:`MARKS`) of a cell whose interval has this ``note``; ``""`` for none."""
    if not note:
        return ""
    return "".join(mark for mark, (text, _) in MARKS.items() if text in note)


def marks_footnote(used: Any) -> str:
    """The footnote lines of the marks used, in :data:`MARKS` order (``""`` when none)."""
    return " ".join(f"{mark} {text}." for mark, (_, text) in MARKS.items() if mark in set(used))



def seed_text(seed: Any, unseeded: str = "no seed set (rerunning gives other limits)") -> str:
    """The seed of a random method as a footnote gives it: ``"seed 1"``, ``unseeded`` for None, or a generator."""
    if seed is None:
        return unseeded
    if isinstance(seed, (int, str)) and not isinstance(seed, bool):
        return f"seed {seed}"
    return "a generator as seed"


#: Characters no output format can carry: C0 controls but tab, line feed and carriage return (vertical tab and
#: form feed too: XML forbids them; Markdown and LaTeX read them as line breaks first), DEL, C1 controls but
#: NEL, lone surrogates and the two non-characters XML forbids.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")


def printable(text: str, replacement: str = "\ufffd") -> str:
    r"""``text`` with every character no output format can carry (a NUL, a control code) as ``replacement``.

    Word (XML) refuses them, HTML reads them as parse errors, LaTeX as
    invalid characters: each becomes U+FFFD, the replacement character, so
    the label keeps its length and shows where something was.

    Examples
    --------
    >>> printable("a\x00b\x1bc\td")
    'a�b�c\td'
    """
    return _UNPRINTABLE.sub(replacement, text)
