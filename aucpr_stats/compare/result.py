"""The result of a comparison: one row per group, pair compared and estimator."""

from __future__ import annotations

from typing import Any

import attrs
import polars as pl

from .. import _frames
from .._validate import rng_iv
from ..report.ard import result_ard
from ..report.cells import format_p
from ..report.comparison import comparison_table
from ..report.display import html_display
from ..report.table import PublicationTable
from ..report.text import text_table
from .equality import EqualityTest, equality_test
from .heterogeneity import HeterogeneityResult
from .interaction import interaction

__all__ = ["ComparisonResult"]

_ADJUST_LABEL = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}


# =================================================================== result
@attrs.frozen(eq=False, repr=False)
class ComparisonResult:
    """Differences between AUCs, one row per group, pair of scores (or levels) and estimator.

    Returned by :func:`aucpr_stats.compare`. ``.to_frame()`` gives the table
    in the caller's frame type, ``.summary()`` a readable text table;
    ``.difference`` and ``.p_value`` are floats when there is one row.

    Attributes
    ----------
    frame : polars.DataFrame
        The comparison frame (see :func:`compare` for its columns; the
        constructor takes it as ``table=``); ``.to_polars()`` returns it and
        ``.table()`` is its publication table.
    frame_kind : {"pandas", "polars"}
    metric : {"auroc", "aucpr", "calibration"}
    method : {"delong", "bootstrap"}
    level : float
    paired : bool
        True for scores on the same rows, False for ``between=`` comparisons.
    outcome : str
    scores : tuple of str
    by : tuple of str
    between : str or None
    reference : object
        The reference score (paired) or level (unpaired), or None for all pairs.
    estimators : tuple of str
    n_boot : int or None
        Bootstrap replicates (None for DeLong).
    adjust : str or None
        The multiplicity adjustment of ``p_adjusted`` (``"holm"``,
        ``"bonferroni"``, ``"bh"``), or None.
    design : dict
        ``cluster`` (the cluster column) and ``prevalence`` (a stated
        prevalence) when the comparison was made with them.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        The ``rng=`` of a bootstrap comparison as given; None when no seed was
        set (the note and the table's footnote then say a rerun differs).
    records : tuple of Estimator
        The registry records of ``estimators`` (a partial area's carries its
        window, which the publication table states).
    jackknife_source : PairedRows, LevelTables or None
        For a comparison of independent rows (no clusters, no weights), the
        tables the jackknife of :meth:`interaction` reads: the scores' tables
        and row maps (:class:`~aucpr_stats.compare.interaction.PairedRows`),
        or the levels' tables (:class:`~aucpr_stats.compare.interaction.LevelTables`).
    """

    frame: pl.DataFrame = attrs.field(eq=False, alias="table")
    frame_kind: str
    metric: str
    method: str
    level: float
    paired: bool
    outcome: str
    scores: tuple
    by: tuple
    between: str | None = None
    reference: Any = None
    estimators: tuple = ()
    n_boot: int | None = None
    adjust: str | None = None
    design: dict = attrs.field(factory=dict)
    jackknife_source: Any = attrs.field(default=None, repr=False)
    seed: Any = attrs.field(default=None, repr=False)
    records: tuple = attrs.field(factory=tuple, converter=tuple, repr=False)

    def to_polars(self) -> pl.DataFrame:
        """The comparison table as a polars DataFrame, whatever the caller's frame type."""
        return self.frame

    def to_frame(self):
        """The comparison table in the caller's frame type."""
        return _frames.to_caller(self.frame, self.frame_kind)

    def _single(self, column: str) -> float:
        if self.frame.height != 1:
            raise AttributeError(
                f"`.{column}` is defined for a result with one comparison; this one has "
                f"{self.frame.height} rows: use `.to_frame()`"
            )
        return float(self.frame[column][0])

    @property
    def difference(self) -> float:
        """``estimate_a - estimate_b`` for a result with one comparison."""
        return self._single("difference")

    @property
    def p_value(self) -> float:
        """The two-sided p-value for a result with one comparison."""
        return self._single("p_value")

    def _title(self) -> str:
        label = {"auroc": "AUROC", "aucpr": "AUCPR", "calibration": "calibration"}[self.metric]
        how = {"delong": "DeLong test", "bootstrap": f"stratified bootstrap, {self.n_boot} replicates",
               "wald": "Wald test, paired linearisation"}[self.method]
        kind = "Paired" if self.paired else "Unpaired"
        what = f"scores {', '.join(self.scores)}" if self.paired else (
            f"levels of {self.between} for {', '.join(self.scores)}")
        groups = [c for c in self.by if c != "score"]
        grouping = f", by {', '.join(groups)}" if groups else ""
        adjusted = ("" if self.adjust is None else
                    f"; p adjusted ({_ADJUST_LABEL[self.adjust]}) within each group and estimator")
        return (f"{kind} comparison of {label} ({how}) of {what}, outcome {self.outcome}{grouping}; "
                f"difference = a - b, {self.level:.0%} interval{adjusted}")

    def _repr_html_(self) -> str:
        """The notebook display: the heading and the comparison table."""
        return html_display(self._title(), self.frame)

    def summary(self, digits: int = 4) -> str:
        """A readable text table with a title line."""
        frame = self.frame
        drop = [c for c in ("z", "level", "method") if c in frame.columns]
        if frame["note"].null_count() == frame.height:
            drop.append("note")
        if len(self.estimators) == 1:
            drop.append("estimator")
        if "n_missing" in frame.columns and frame["n_missing"].sum() == 0:
            drop.append("n_missing")
        # a bootstrap p-value at its floor 1/(B + 1) prints "<x", never 0 (issue 14); tiny ones "<0.0001"
        # (pooled over imputations, the p-value is Rubin's t test's: no floor)
        floor = (1.0 / (self.n_boot + 1.0) if self.method == "bootstrap" and self.n_boot
                 and "fmi" not in frame.columns else None)
        frame = frame.with_columns(pl.Series("p_value", [format_p(p, digits, "NaN", floor=floor)
                                                         for p in frame["p_value"].to_list()], dtype=pl.String))
        if "p_adjusted" in frame.columns:
            frame = frame.with_columns(pl.Series("p_adjusted", [format_p(p, digits, "NaN") for p in
                                                                frame["p_adjusted"].to_list()], dtype=pl.String))
        numeric = [c for c in frame.columns if frame[c].dtype.is_numeric() or c in ("p_value", "p_adjusted")]
        return f"{self._title()}\n{text_table(frame.drop(drop), digits=digits, right_align=numeric)}"

    __str__ = summary

    def to_ard(self, **options: Any) -> pl.DataFrame:
        """:meth:`to_polars` as a long {cards} ARD (:func:`aucpr_stats.report.ard.result_ard`)."""
        return result_ard(self, **options)

    def table(self, **options: Any) -> PublicationTable:
        """A publication table of the comparison: both areas, their difference with its interval, and p.

        ``**options``: those of :func:`aucpr_stats.comparison_table`
        (``digits``, ``p_digits``, ``labels``, ``counts``, ``sep``, ``na``).
        """
        return comparison_table(self, **options)

    def interaction(self, method: str | None = None, *, across: Any = None, rng: Any = None,
                    **options: Any) -> HeterogeneityResult:
        """Test of interaction: is the difference the same in every group? One row per pair and estimator.

        Cochran's Q on the per-group differences. For an AUCPR comparison
        on independent rows the variances are, by default, the jackknife's
        (paired, or the sum of the two levels'), pooled per positive (F
        reference); otherwise the
        squared ``se`` of this table (DeLong's covariance for a paired AUROC
        comparison, the bootstrap's otherwise), chi-square reference. See
        :func:`aucpr_stats.compare.interaction.interaction` for ``method``
        and the options. ``rng`` (SPEC 7; ``seed`` is its alias): the
        randomness of the jackknife's random groups of a class with more
        than ``max_units`` distinct scores (default 0: the same numbers on
        every call).

        Returns
        -------
        HeterogeneityResult
        """
        if rng is not None or "seed" in options:
            options["seed"] = rng_iv(rng, options.pop("seed", None))
        return interaction(self, method, across=across, **options)

    def equality_test(self, method: str | None = None, **options: Any) -> EqualityTest:
        """The single test that every area compared is equal (Stata ``roccomp``): one row per group and estimator.

        The chi-square of the :math:`k - 1` differences from the first area
        with their covariance, read from this table's pairwise variances
        (DeLong's for AUROC, the paired bootstrap's for AUCPR, Obuchowski's
        with clusters, the sum of independent samples' for ``between=``); see
        :mod:`aucpr_stats.compare.equality`. Needs every pair: compare
        without ``reference=``. ``method``: where the variances come from
        (``"jackknife"``, the default for AUCPR on independent rows, or the
        comparison's own); ``**options`` those of the jackknife
        (``max_units``, ``seed``).

        Returns
        -------
        EqualityTest
            ``.to_frame()``: group keys, ``estimator``, ``k``, ``statistic``,
            ``df``, ``p_value``, ``method``, ``n_pos``, ``n_neg``, ``note``.

        Examples
        --------
        >>> import numpy as np, polars as pl
        >>> from aucpr_stats import compare
        >>> gen = np.random.default_rng(3)
        >>> y = gen.random(300) < 0.4
        >>> df = pl.DataFrame({"y": y, "a": gen.normal(size=300) + y, "b": gen.normal(size=300) + y,
        ...                    "c": gen.normal(size=300) + 0.3 * y})
        >>> test = compare(df, "y", ["a", "b", "c"], metric="auroc").equality_test()
        >>> int(test.to_frame()["df"][0]), test.to_frame()["p_value"][0] < 0.05
        (2, True)
        """
        return equality_test(self, method, **options)

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.frame.height == 1:
            row = self.frame.row(0, named=True)
            return (f"{name}({self.metric}, {self.method}, difference={row['difference']:.4f}, "
                    f"p_value={row['p_value']:.4g})")
        return f"{name}({self.metric}, {self.method}, paired={self.paired}, comparisons={self.frame.height})"

