"""Plain-text tables for ``.summary()`` and the command line (aligned monospace columns)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import polars as pl

from .._validate import digits_iv

__all__ = ["format_value", "text_table"]


def format_value(value: Any, digits: int = 4) -> str:
    """A cell as text: floats to ``digits`` decimals, NaN and None as blanks-with-meaning."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return f"{value:.{digits}f}"
    return str(value)


def text_table(frame: pl.DataFrame, digits: int = 4, right_align: Sequence[str] | None = None) -> str:
    """Render a polars frame as an aligned monospace table (``digits`` from 0 to 15)."""
    digits = digits_iv(digits)
    headers = frame.columns
    cells = [[format_value(v, digits) for v in frame[c].to_list()] for c in headers]
    numeric = set(right_align) if right_align is not None else {
        c for c in headers if frame[c].dtype.is_numeric()
    }
    widths = [max([len(h)] + [len(x) for x in col]) for h, col in zip(headers, cells)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if h in numeric else v.ljust(w) for v, w, h in zip(values, widths, headers)]
        return "  ".join(parts).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line([col[i] for col in cells]) for i in range(frame.height)]
    return "\n".join(out)
