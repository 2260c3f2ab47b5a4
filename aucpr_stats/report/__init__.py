"""Publication tables and display text.

* :func:`publication_table` (:mod:`.publication`): one row per group,
  counts of positives and negatives, "estimate (lower–upper)" cells;
* :func:`comparison_table` (:mod:`.comparison`): both areas, their
  difference with its interval, and p;
* :class:`PublicationTable` (:mod:`.table`): frame, text, CSV, Markdown,
  LaTeX and HTML renderings;
* :mod:`.cells`: labels and rounding for display; :mod:`.text`: aligned
  monospace tables for ``.summary()`` and the command line.
"""

from __future__ import annotations

from .cells import DEFAULT_LABELS, Labels, format_cell, format_number, format_p, level_text, pretty_name
from .comparison import comparison_table
from .publication import publication_table
from .table import FORMATS, PublicationTable
from .text import format_value, text_table

__all__ = [
    "PublicationTable",
    "publication_table",
    "comparison_table",
    "format_cell",
    "format_p",
    "format_number",
    "pretty_name",
    "level_text",
    "Labels",
    "DEFAULT_LABELS",
    "FORMATS",
    "text_table",
    "format_value",
]
