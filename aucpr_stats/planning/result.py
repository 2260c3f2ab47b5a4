"""The result of :func:`aucpr_stats.sample_size` and :func:`aucpr_stats.power`."""

from __future__ import annotations

import math
from typing import Any

import attrs
import polars as pl

from .. import _frames, _validate
from ..report.ard import result_ard
from ..report.display import html_display
from ..report.text import text_table

__all__ = ["PlanResult"]


@attrs.frozen(eq=False, repr=False)
class PlanResult:
    """A planned study: the sizes, the target and what the plan achieves.

    Attributes
    ----------
    kind : {"sample_size", "power", "detectable"}
    metric : {"auroc", "aucpr"}
    plan : polars.DataFrame
        One row: the inputs and the answer (``n_pos``, ``n_neg``, ``n_total``,
        ``power`` ...); columns in :meth:`to_frame`.
    search : polars.DataFrame or None
        For a simulated AUCPR plan, every simulated size (``n_pos``,
        ``mean_half_width`` with its Monte Carlo SE, ``coverage``, ``power``
        ...), the chosen one last.
    """

    kind: str
    metric: str
    plan: pl.DataFrame = attrs.field(eq=False)
    search: Any = attrs.field(default=None, eq=False)

    def __getattr__(self, name: str) -> Any:
        # the plan's numbers as attributes: result.n_pos, result.power ...
        plan = object.__getattribute__(self, "plan")
        if name in plan.columns:
            return plan[name][0]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}; columns: {plan.columns}")

    def to_polars(self) -> pl.DataFrame:
        """The one-row plan as a polars DataFrame."""
        return self.plan

    def to_frame(self, kind: str = "polars"):
        """The one-row plan as a polars (default: a plan has no input frame to follow) or pandas DataFrame.

        ``kind="pandas"`` for pandas. Columns: the inputs and the answer
        (``n_pos``, ``n_neg``, ``n_total``, ``power`` ...); a simulated AUCPR
        plan adds the Monte Carlo standard errors (``power_se`` ...).
        """
        kind = _validate.choice_iv(kind, "kind", ("polars", "pandas"))
        return _frames.to_caller(self.plan, kind)

    def _title(self) -> str:
        what = {"sample_size": "Sample size", "power": "Power",
                "detectable": "Smallest detectable"}[self.kind]
        how = {"obuchowski": "Obuchowski's variance, as pROC's power.roc.test",
               "obuchowski_mcclish": "comparing two curves, Obuchowski & McClish's binormal variances, "
                                     "as pROC's power.roc.test",
               "delong_pilot": "comparing two curves, the pilot's DeLong variances, as pROC's "
                               "power.roc.test(roc1, roc2)",
               "simulation": "simulation from a scenario with a known curve"}[self.plan["method"][0]]
        return f"{what} for {self.metric.upper()} ({how})"

    def summary(self, digits: int = 4) -> str:
        """The plan as a two-column text table (one line per quantity), and the search for a simulated plan."""
        long = pl.DataFrame({"quantity": self.plan.columns,
                             "value": [_text(self.plan[c][0], digits) for c in self.plan.columns]})
        text = f"{self._title()}\n{text_table(long, digits=digits, right_align=['value'])}"
        if self.search is not None:
            text += f"\n\nSimulated sizes (the last is the plan):\n{text_table(self.search, digits=digits)}"
        return text

    def _repr_html_(self) -> str:
        return html_display(self._title(), self.plan)

    def __repr__(self) -> str:
        shown = ", ".join(f"{c}={_text(self.plan[c][0], 4)}" for c in ("n_pos", "n_neg", "power")
                          if c in self.plan.columns)
        return f"PlanResult({self.kind}, {self.metric}, {shown})"

    __str__ = summary

    def to_ard(self, **options: Any) -> pl.DataFrame:
        """:meth:`to_polars` as a long {cards} ARD (:func:`aucpr_stats.report.ard.result_ard`)."""
        return result_ard(self, **options)


def _text(value: Any, digits: int) -> str:
    if isinstance(value, float):
        return f"{value:.{digits}f}".rstrip("0").rstrip(".") if not math.isnan(value) else "NaN"
    return str(value)
