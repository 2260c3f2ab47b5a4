"""What every result shows: a tidy frame first, and its text and notebook views.

:class:`TabularResult` is the small mixin behind the display methods of the
result types (curves, bands, cut-offs, comparisons, tests, plans): a result
that defines ``to_polars()`` (its tidy frame) and ``_title()`` (a heading in
words) gets ``to_frame()`` in the caller's frame type, ``summary()``, ``str()``
and the notebook's ``_repr_html_``, all views of that one frame
(STYLE.md, item 14).
"""

from __future__ import annotations

import html
from typing import Any

import attrs
import polars as pl

from .. import _frames
from .ard import curve_plot_data, result_ard
from .text import text_table

__all__ = ["TabularResult", "FramedResult", "direction_phrase", "html_display"]


def html_display(title: str, frame: Any) -> str:
    """A notebook display: a bold heading over a frame's own HTML table (polars or pandas)."""
    return f"<p><b>{html.escape(title)}</b></p>\n{frame._repr_html_()}"


def direction_phrase(direction: Any) -> str:
    """``"; lower scores predict the positive outcome"`` when a score was read reversed (``direction=``).

    ``direction`` is the word a result keeps (``"higher"`` or ``"lower"``), or
    a dict by score when ``direction="auto"`` read the scores different ways.
    """
    if direction in (None, "higher"):
        return ""
    if direction == "lower":
        return "; lower scores predict the positive outcome"
    reversed_scores = [s for s, d in dict(direction).items() if d == "lower"]
    if not reversed_scores:
        return ""
    return f"; lower scores predict the positive outcome for {', '.join(reversed_scores)}"


class TabularResult:
    """Display methods written once: ``to_frame``, ``summary``, ``str`` and ``_repr_html_`` from one frame.

    A subclass defines :meth:`to_polars` and :meth:`_title`, and has a
    ``frame_kind`` (``"pandas"`` or ``"polars"``: the caller's frame type).
    It may override :meth:`_shown`, the frame that ``summary()`` and the
    notebook show (by default the tidy frame itself).
    """

    __slots__ = ()

    frame_kind: str
    #: Decimals of ``summary()`` and the notebook display unless ``digits=`` says otherwise.
    display_digits = 4

    def to_polars(self) -> pl.DataFrame:  # pragma: no cover - defined by every subclass
        """The result's tidy frame, as a polars DataFrame whatever the caller's frame type."""
        raise NotImplementedError

    def _title(self) -> str:  # pragma: no cover - defined by every subclass
        raise NotImplementedError

    def _shown(self, digits: int) -> pl.DataFrame:
        """The frame that ``summary()`` and the notebook display show."""
        return self.to_polars()

    def to_frame(self):
        """The result's tidy frame in the caller's frame type (pandas in, pandas out)."""
        return _frames.to_caller(self.to_polars(), self.frame_kind)

    def summary(self, digits: int | None = None) -> str:
        """A readable text table with a title line (``digits`` decimals; 4 by default, 3 for cut-offs)."""
        digits = self.display_digits if digits is None else digits
        return f"{self._title()}\n{text_table(self._shown(digits), digits=digits)}"

    def _repr_html_(self) -> str:
        """The notebook display: the heading in words over the table."""
        return html_display(self._title(), self._shown(self.display_digits))

    def __str__(self) -> str:
        return self.summary()

    def to_ard(self, **options: Any) -> pl.DataFrame:
        """The tidy frame as a {cards} ARD (:func:`aucpr_stats.report.ard.result_ard`)."""
        return result_ard(self, **options)

    def plot_data(self) -> pl.DataFrame:
        """A curve's or band's points for plotnine/altair/plotly (:func:`aucpr_stats.report.ard.curve_plot_data`)."""
        return curve_plot_data(self)


@attrs.frozen(eq=False)
class FramedResult(TabularResult):
    """A result that is its frame and a title (comparisons, intervals): the display methods of that frame."""

    frame: pl.DataFrame
    frame_kind: Any
    title: str

    def to_polars(self) -> pl.DataFrame:
        return self.frame

    def _title(self) -> str:
        return self.title
