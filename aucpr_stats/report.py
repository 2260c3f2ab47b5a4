"""Publication tables: one row per group, "estimate (lower–upper)" cells.

:func:`publication_table` turns one or more results (AUCPR, AUROC, several
estimators, several scores, with or without confidence intervals) into a
:class:`PublicationTable`, which renders as a frame (the caller's type),
plain text, CSV, Markdown, LaTeX (booktabs) and HTML. The numbers in the
cells are exactly those of ``result.to_frame()`` and ``result.conf_int()``,
rounded to ``digits`` for display only; pretty labels live here and nowhere
else (STYLE.md, item 6).
"""

from __future__ import annotations

import html as _html
import math
import sys
from typing import Any, Mapping, Sequence

import attrs
import polars as pl

from . import _frames
from ._format import text_table
from ._validate import SCORE_KEY, level_iv
from .exceptions import InputError, InputTypeError

__all__ = ["PublicationTable", "publication_table", "comparison_table", "format_cell", "format_p", "FORMATS"]

#: Output formats of :meth:`PublicationTable.render`.
FORMATS = ("text", "csv", "markdown", "latex", "html")

#: Labels used unless ``labels=`` says otherwise.
DEFAULT_LABELS = {
    "n_pos": "Positives",
    "n_neg": "Negatives",
    SCORE_KEY: "Score",
    "a_prime": "A' (Mann-Whitney)",
    "delong": "DeLong",
    "hanley_mcneil": "Hanley-McNeil",
}


def _as_polars(frame: Any) -> pl.DataFrame:
    if isinstance(frame, pl.DataFrame):
        return frame
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(frame, pd.DataFrame):
        # through the package's converter, which also works without pyarrow
        return _frames.to_lazy(frame)[0].collect()
    raise InputTypeError(f"expected a data frame from the result; got {type(frame).__name__}")


def _pretty(name: str) -> str:
    """Default display label of an estimator or method name: underscores become spaces."""
    return name.replace("_", " ")


def _level_text(level: float) -> str:
    return f"{level * 100:g}%"


def _number(value: Any, digits: int, na: str) -> str:
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
    est = _number(estimate, digits, na)
    if not interval or est == na:
        return est
    lo, hi = _number(lower, digits, na), _number(upper, digits, na)
    if lo == na or hi == na:
        return f"{est} ({na})"
    if sep == "\u2013" and (lo.startswith("-") or hi.startswith("-")):
        sep = " to "  # "-0.22–-0.13" would read as a range of dashes
    return f"{est} ({lo}{sep}{hi})"


def _methods_for(result: Any, method: Any) -> list[str | None]:
    """The interval methods to compute for ``result`` (``[None]`` = point estimates only)."""
    if isinstance(method, Mapping):
        method = method.get(result.metric, method.get(type(result).__name__, None))
    if method is None:
        return [None]
    if isinstance(method, str):
        return [method]
    if isinstance(method, (list, tuple)) and method and all(isinstance(m, str) for m in method):
        return list(dict.fromkeys(method))
    raise InputTypeError(
        "`method` must be None, 'default', a method name, a list of names, or a dict from metric "
        f"('aucpr', 'auroc') to those; got {method!r}"
    )


def _interval_frame(result: Any, method: str, level: float, options: Mapping,
                    method_options: Mapping[str, Mapping] | None = None) -> tuple[pl.DataFrame, str]:
    """Interval frame of one result and the method name it reports."""
    options = {**options, **((method_options or {}).get(method, {}))}
    if method == "default":
        frame = _as_polars(result.conf_int(level=level, **options))
    else:
        frame = _as_polars(result.conf_int(method=method, level=level, **options))
    names = frame["method"].unique(maintain_order=True).to_list() if "method" in frame.columns else [method]
    return frame, (names[0] if len(names) == 1 else method)


@attrs.frozen(eq=False)
class PublicationTable:
    """A publication table: one row per group, cells ``"estimate (lower–upper)"``.

    Attributes
    ----------
    cells : polars.DataFrame
        Display frame: key columns, counts (integers), then one text column
        per (score, metric, estimator, interval method), headers already labelled.
    key_columns : tuple of str
        The labelled key columns at the left.
    numeric_columns : tuple of str
        Columns aligned right (counts and cells).
    note : str
        What the cells hold (estimator, interval, level), for a footnote.
    frame_kind : {"pandas", "polars"}
        The type ``to_frame()`` returns.
    n_overall : int
        Leading whole-cohort rows (``overall=``), set off by a rule in LaTeX.
    """

    cells: pl.DataFrame
    key_columns: tuple[str, ...]
    numeric_columns: tuple[str, ...]
    note: str
    frame_kind: str = "polars"
    n_overall: int = 0

    # --------------------------------------------------------------- frames
    def to_frame(self):
        """The table as a frame of the caller's type (text cells, integer counts)."""
        return _frames.to_caller(self.cells, self.frame_kind)

    # -------------------------------------------------------------- renders
    def _rows(self) -> list[list[str]]:
        return [["" if v is None else str(v) for v in row] for row in self.cells.iter_rows()]

    def to_text(self, note: bool = True) -> str:
        """An aligned monospace table (what the command line prints)."""
        body = text_table(self.cells, right_align=self.numeric_columns)
        return f"{body}\n\n{self.note}" if note and self.note else body

    def to_csv(self) -> str:
        """Comma-separated values with a header line (cells as text)."""
        return self.cells.write_csv()

    def to_markdown(self, note: bool = True) -> str:
        """A GitHub/pandoc pipe table; counts and cells right-aligned."""
        def esc(text: str) -> str:
            return text.replace("|", "\\|")

        headers = self.cells.columns
        align = ["---:" if h in self.numeric_columns else ":---" for h in headers]
        lines = ["| " + " | ".join(esc(h) for h in headers) + " |", "| " + " | ".join(align) + " |"]
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in self._rows()]
        out = "\n".join(lines)
        return f"{out}\n\n{self.note}" if note and self.note else out

    def to_latex(self, caption: str | None = None, label: str | None = None, note: bool = True) -> str:
        r"""A LaTeX ``table`` with a booktabs ``tabular`` (needs ``\usepackage{booktabs}``).

        Special characters are escaped; the en dash of the intervals becomes ``--``.
        """
        headers = self.cells.columns
        spec = "".join("r" if h in self.numeric_columns else "l" for h in headers)
        lines = [r"\begin{table}[htbp]", r"\centering"]
        if caption:
            lines.append(rf"\caption{{{_latex_escape(caption)}}}")
        if label:
            lines.append(rf"\label{{{label}}}")
        lines += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                  " & ".join(_latex_escape(h) for h in headers) + r" \\", r"\midrule"]
        body = [" & ".join(_latex_escape(c) for c in row) + r" \\" for row in self._rows()]
        if 0 < self.n_overall < len(body):
            body.insert(self.n_overall, r"\midrule")
        lines += body
        lines += [r"\bottomrule", r"\end{tabular}"]
        if note and self.note:
            lines.append(rf"\par\smallskip{{\footnotesize {_latex_escape(self.note)}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines)

    def to_html(self, caption: str | None = None, note: bool = True) -> str:
        """An HTML ``<table>`` (escaped; counts and cells right-aligned)."""
        headers = self.cells.columns

        def cell(tag: str, text: str, header: str) -> str:
            style = ' style="text-align: right"' if header in self.numeric_columns else ""
            return f"<{tag}{style}>{_html.escape(text)}</{tag}>"

        lines = ['<table class="aucpr-stats-table">']
        if caption:
            lines.append(f"<caption>{_html.escape(caption)}</caption>")
        lines.append("<thead>")
        lines.append("<tr>" + "".join(cell("th", h, h) for h in headers) + "</tr>")
        lines.append("</thead>")
        lines.append("<tbody>")
        for row in self._rows():
            lines.append("<tr>" + "".join(cell("td", c, h) for c, h in zip(row, headers)) + "</tr>")
        lines.append("</tbody>")
        if note and self.note:
            lines.append(f'<tfoot><tr><td colspan="{len(headers)}">{_html.escape(self.note)}</td></tr></tfoot>')
        lines.append("</table>")
        return "\n".join(lines)

    def render(self, format: str = "text", **options: Any) -> str:
        """Render as ``"text"``, ``"csv"``, ``"markdown"``, ``"latex"`` or ``"html"``."""
        renderers = {"text": self.to_text, "csv": self.to_csv, "markdown": self.to_markdown,
                     "latex": self.to_latex, "html": self.to_html}
        if format not in renderers:
            raise InputError(f"`format` must be one of {list(renderers)}; got {format!r}")
        return renderers[format](**options)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"PublicationTable(rows={self.cells.height}, columns={self.cells.columns})"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "\u2013": "--", "\u2014": "---",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def publication_table(
    results: Any,
    *,
    method: Any = None,
    level: float = 0.95,
    digits: int = 2,
    labels: Mapping[str, str] | None = None,
    counts: bool = True,
    scores_as: str = "columns",
    sep: str = "\u2013",
    na: str = "NA",
    method_options: Mapping[str, Mapping[str, Any]] | None = None,
    overall: Any = None,
    overall_label: str = "Overall",
    **conf_int_options: Any,
) -> PublicationTable:
    """Turn results into a publication table, one row per group.

    Parameters
    ----------
    results : result or list of results
        A :class:`~aucpr_stats.compare.ComparisonResult` alone gives
        :func:`comparison_table`. Otherwise
        :class:`~aucpr_stats.results.AucprResult`,
        :class:`~aucpr_stats.results.AurocResult` (any result with
        ``to_frame()`` and ``conf_int()``), computed on the same rows and
        grouping. Several results give several columns (e.g. AUCPR and AUROC
        side by side).
    method : None, "default", str, list of str, or dict
        Interval method(s) passed to ``result.conf_int(method=...)``. None
        (default) shows point estimates only; ``"default"`` uses each
        result's own default method; a dict maps a metric (``"aucpr"``,
        ``"auroc"``) to its method(s), e.g. ``{"aucpr": "logit", "auroc": "delong"}``.
    level : float
        Confidence level of the intervals (0.95 gives "95% CI").
    digits : int
        Decimals shown; the underlying numbers are not rounded.
    labels : dict, optional
        Display labels for any name in the table: key columns (``"site"``)
        and their values (``"A"``),
        ``"n_pos"``/``"n_neg"``, ``"score"``, score columns, metrics
        (``"aucpr"``), estimators, methods, or a whole generated header.
    counts : bool
        Show the number of positives and negatives per group.
    scores_as : {"columns", "rows"}
        With several scores: one column per score (default; needs the same
        counts for every score in a group), or ``score`` as a row key.
    sep : str
        Separator between the lower and upper bound (an en dash by default).
    na : str
        Text shown for a missing estimate or bound (e.g. a group without
        positives).
    method_options : dict, optional
        Options for one method only, e.g. ``{"bootstrap": {"n_boot": 2000, "seed": 1}}``
        (methods reject options they do not take).
    overall : result or list of results, optional
        The same results computed without ``by`` (same metrics, estimators
        and scores): shown as a first row labelled ``overall_label``, as
        epidemiology tables put the whole cohort above its subgroups.
    overall_label : str
        The key text of that row.
    **conf_int_options
        Passed on to every ``conf_int`` call.

    Returns
    -------
    PublicationTable
        ``.to_frame()``, ``.to_text()``, ``.to_csv()``, ``.to_markdown()``,
        ``.to_latex()``, ``.to_html()``.

    Raises
    ------
    InputError
        Results with different groupings or counts, bad ``digits`` or ``scores_as``.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import aucpr
    >>> from aucpr_stats.report import publication_table
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.6, 0.1],
    ...                    "g": ["a", "a", "a", "b", "b", "b"]})
    >>> table = publication_table(aucpr(df, "y", "s", by="g", estimator="average_precision"))
    >>> table.to_frame()["AUCPR"].to_list()
    ['0.83', '1.00']
    """
    if hasattr(results, "paired") and hasattr(results, "table"):  # a ComparisonResult
        return comparison_table(results, digits=digits, labels=labels, counts=counts, sep=sep, na=na)
    if not isinstance(results, (list, tuple)):
        results = [results]
    results = list(results)
    if not results:
        raise InputError("`results` must hold at least one result")
    for r in results:
        if not hasattr(r, "to_frame") or not hasattr(r, "by"):
            raise InputTypeError(f"`results` must hold aucpr_stats results; got {type(r).__name__}")
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
        raise InputError(f"`digits` must be a non-negative integer; got {digits!r}")
    if scores_as not in ("columns", "rows"):
        raise InputError(f"`scores_as` must be 'columns' or 'rows'; got {scores_as!r}")
    level = level_iv(level)
    names = {**DEFAULT_LABELS, **(labels or {})}

    def label(name: str, default: str | None = None) -> str:
        return names.get(name, default if default is not None else name)

    first = results[0]
    group_keys = tuple(c for c in first.by if c != SCORE_KEY)
    for r in results[1:]:
        other = tuple(c for c in r.by if c != SCORE_KEY)
        if other != group_keys:
            raise InputError(
                f"all results must have the same grouping; got {list(group_keys)} and {list(other)}"
            )
    any_multi = any(SCORE_KEY in r.by for r in results)
    score_to_columns = any_multi and scores_as == "columns"
    row_keys = list(group_keys) + ([SCORE_KEY] if any_multi and not score_to_columns else [])

    # ---- counts per row (from the first result; the others must agree)
    count_frames = []
    for r in results:
        f = _as_polars(r.to_frame())
        keys_here = [*group_keys, *([SCORE_KEY] if SCORE_KEY in r.by else [])]
        f = f.select(*keys_here, "n_pos", "n_neg")
        count_frames.append(f.unique(subset=keys_here, maintain_order=True) if keys_here else f.head(1))
    base = count_frames[0]
    if score_to_columns and SCORE_KEY in base.columns:
        per_group = base.group_by(list(group_keys) or pl.lit(0), maintain_order=True).agg(
            pl.col("n_pos").n_unique().alias("u_pos"), pl.col("n_neg").n_unique().alias("u_neg")
        )
        if (per_group["u_pos"].max() or 1) > 1 or (per_group["u_neg"].max() or 1) > 1:
            raise InputError(
                "the scores have different numbers of positives or negatives within a group (rows "
                "dropped for missing values); use scores_as='rows' to show counts per score"
            )
        base = base.drop(SCORE_KEY)
        base = base.unique(subset=list(group_keys), maintain_order=True) if group_keys else base.head(1)
    elif not score_to_columns and any_multi and SCORE_KEY not in base.columns:
        raise InputError("with scores_as='rows' every result must have several scores, or none")
    counts_frame = base
    for other in count_frames[1:]:
        other = other.drop(SCORE_KEY) if score_to_columns and SCORE_KEY in other.columns else other
        other_keys = [c for c in other.columns if c not in ("n_pos", "n_neg")]
        other = other.unique(subset=other_keys, maintain_order=True) if other_keys else other.head(1)
        join_on = [c for c in counts_frame.columns if c not in ("n_pos", "n_neg")]
        if join_on:
            joined = counts_frame.join(other, on=join_on, how="full", suffix="_other", coalesce=True,
                                       nulls_equal=True)
            same = joined.height == counts_frame.height and (
                joined["n_pos"].eq_missing(joined["n_pos_other"]).all()
                and joined["n_neg"].eq_missing(joined["n_neg_other"]).all()
            )
        else:
            same = counts_frame.select("n_pos", "n_neg").equals(other.select("n_pos", "n_neg"))
        if not same:
            raise InputError("the results were computed on different rows: their counts of positives "
                             "and negatives per group differ")

    # ---- one long frame of display cells: row keys, column id, text
    long_parts: list[pl.DataFrame] = []
    column_order: list[tuple] = []
    notes: list[str] = []
    estimators_by_metric: dict[str, set] = {}
    methods_by_metric: dict[str, list] = {}
    for r in results:
        estimators_by_metric.setdefault(r.metric, set()).update(r.estimators)
        methods_by_metric.setdefault(r.metric, [])
    for r in results:
        score_names = list(r.score) if isinstance(r.score, tuple) else [r.score]
        methods = _methods_for(r, method)
        for m in methods:
            if m is None:
                frame = _as_polars(r.to_frame()).with_columns(
                    pl.lit(None, dtype=pl.Float64).alias("lower"), pl.lit(None, dtype=pl.Float64).alias("upper"),
                    pl.lit(None, dtype=pl.String).alias("method"),
                )
                reported = None
            else:
                frame, reported = _interval_frame(r, m, level, conf_int_options, method_options)
            if reported not in methods_by_metric[r.metric]:
                methods_by_metric[r.metric].append(reported)
            if SCORE_KEY not in frame.columns:
                frame = frame.with_columns(pl.lit(score_names[0]).alias(SCORE_KEY))
            cells = [
                format_cell(e, lo, hi, digits=digits, sep=sep, na=na, interval=m is not None)
                for e, lo, hi in zip(frame["estimate"].to_list(), frame["lower"].to_list(), frame["upper"].to_list())
            ]
            frame = frame.with_columns(pl.Series("__cell", cells, dtype=pl.String))
            for s in score_names if score_to_columns else [None]:
                for est in r.estimators:
                    col_id = (s, r.metric, r.metric_label, est, reported)
                    if col_id not in column_order:
                        column_order.append(col_id)
                    keep = pl.col("estimator") == est
                    if s is not None:
                        keep = keep & (pl.col(SCORE_KEY) == s)
                    part = frame.filter(keep).with_columns(pl.lit(repr(col_id)).alias("__col"))
                    long_parts.append(part.select(*row_keys, "__col", "__cell"))

    # ---- headers: only say what varies
    several_scores = len({c[0] for c in column_order}) > 1
    headers: dict[str, str] = {}
    for col_id in column_order:
        s, metric, metric_label, est, reported = col_id
        text = label(metric, metric_label)
        if len(estimators_by_metric[metric]) > 1:
            text += f", {label(est, _pretty(est))}"
        if reported is not None:
            ci = f"{_level_text(level)} CI"
            if len(methods_by_metric[metric]) > 1:
                ci += f", {label(reported, _pretty(reported))}"
            text += f" ({ci})"
        if several_scores and s is not None:
            text = f"{label(s)}: {text}"
        headers[repr(col_id)] = label(text)
    if len(set(headers.values())) < len(headers):
        raise InputError(f"`labels` make two columns share a header: {sorted(headers.values())}")

    long = pl.concat(long_parts, how="vertical_relaxed")
    if row_keys:
        wide = long.pivot(on="__col", index=row_keys, values="__cell", aggregate_function="first",
                          maintain_order=True)
        table = counts_frame.select(*row_keys, "n_pos", "n_neg").join(
            wide, on=row_keys, how="left", nulls_equal=True, maintain_order="left")
    else:
        wide = pl.DataFrame({repr(c): long.filter(pl.col("__col") == repr(c))["__cell"] for c in column_order})
        table = pl.concat([counts_frame.select("n_pos", "n_neg"), wide], how="horizontal")
    cell_cols = [repr(c) for c in column_order]
    if not counts:
        table = table.drop("n_pos", "n_neg")
    table = table.select(*row_keys, *(["n_pos", "n_neg"] if counts else []), *cell_cols)
    table = table.with_columns(pl.col(c).fill_null(na) for c in cell_cols)
    table = table.with_columns(pl.col(c).cast(pl.String) for c in row_keys)
    if labels:  # group values ("1 small") get their display labels too
        user = {str(k): str(v) for k, v in labels.items()}
        table = table.with_columns(pl.col(c).replace(user) for c in row_keys)
    rename = {c: label(c) for c in row_keys}
    rename.update({"n_pos": label("n_pos"), "n_neg": label("n_neg")} if counts else {})
    rename.update(headers)
    table = table.rename(rename)

    # ---- a footnote saying what the cells are
    for metric, ests in estimators_by_metric.items():
        metric_label = next(r.metric_label for r in results if r.metric == metric)
        est_text = ", ".join(label(e, _pretty(e)) for e in sorted(ests, key=str))
        meths = [m for m in methods_by_metric[metric] if m is not None]
        if meths:
            what = (f"estimate ({_level_text(level)} confidence interval, "
                    f"{'; '.join(label(m, _pretty(m)) for m in meths)})")
        else:
            what = "point estimate"
        notes.append(f"{label(metric, metric_label)}: {what}; estimator {est_text}.")
    key_labels = tuple(rename[c] for c in row_keys)
    numeric = tuple(c for c in table.columns if c not in key_labels)
    n_overall = 0
    if overall is not None:
        n_before = table.height
        table = _with_overall_row(
            table, key_labels,
            publication_table(overall, method=method, level=level, digits=digits, labels=labels, counts=counts,
                              scores_as=scores_as, sep=sep, na=na, method_options=method_options,
                              **conf_int_options),
            overall_label,
        )
        n_overall = table.height - n_before
    return PublicationTable(
        cells=table, key_columns=key_labels, numeric_columns=numeric, note=" ".join(notes),
        frame_kind=first.frame_kind, n_overall=n_overall,
    )


def _with_overall_row(table: pl.DataFrame, key_labels: tuple[str, ...], top: PublicationTable,
                      label: str) -> pl.DataFrame:
    """Put the rows of an ungrouped table above a grouped one, keyed ``label``."""
    body = [c for c in table.columns if c not in key_labels]
    top_body = [c for c in top.cells.columns if c not in top.key_columns]
    if top_body != body:
        raise InputError(
            "`overall` must hold the same metrics, estimators, scores and methods as `results`, "
            f"computed without `by`; its columns are {top_body}, the table's are {body}"
        )
    extra = [c for c in top.key_columns if c not in key_labels]
    if extra:
        raise InputError(f"`overall` has key columns {extra} that the grouped results lack")
    missing = [c for c in key_labels if c not in top.key_columns]
    if not missing:
        raise InputError("`overall` must be computed without `by`")
    filled = top.cells.with_columns(
        [pl.lit(label if i == 0 else "").alias(c) for i, c in enumerate(missing)]
    ).select(table.columns)
    return pl.concat([filled.cast(table.schema), table], how="vertical")


def format_p(p: Any, digits: int = 3, na: str = "NA") -> str:
    """A p-value as journals print it: ``"0.012"``, ``"<0.001"`` below ``10**-digits``."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return na
    floor = 10.0 ** -digits
    return f"<{floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"


def comparison_table(
    result: Any,
    *,
    digits: int = 2,
    p_digits: int = 3,
    labels: Mapping[str, str] | None = None,
    counts: bool = True,
    sep: str = "\u2013",
    na: str = "NA",
) -> PublicationTable:
    """A publication table of a comparison: both areas, their difference with its interval, and p.

    Parameters
    ----------
    result : ComparisonResult
        From :func:`aucpr_stats.compare.compare` (paired scores or unpaired
        ``between=`` levels), grouped or not.
    digits : int
        Decimals of the areas and the difference.
    p_digits : int
        Decimals of the p-value; smaller values print as ``"<0.001"``.
    labels : dict, optional
        Display labels for key columns and their values, score names,
        ``"n_pos"``/``"n_neg"``, metrics and whole headers.
    counts : bool
        Show the numbers of positives and negatives (paired: one pair of
        columns; unpaired: ``"a / b"`` for the two groups).
    sep, na : str
        Bound separator and missing-value text, as in :func:`publication_table`.

    Returns
    -------
    PublicationTable
        One row per group and pair compared. When every row compares the same
        pair, the headers name it ("AUROC logistic", "AUROC texture",
        "Difference (95% CI)", "p"); otherwise a "Comparison" column says
        "a vs b" on each row.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats.compare import compare
    >>> from aucpr_stats.report import comparison_table
    >>> df = pl.read_csv("data/breast_cancer_oof.csv")
    >>> table = comparison_table(compare("malignant ~ logistic + texture", data=df))
    >>> table.cells.columns
    ['Positives', 'Negatives', 'AUROC logistic', 'AUROC texture', 'Difference (95% CI)', 'p']
    """
    if not hasattr(result, "paired") or not hasattr(result, "table"):
        raise InputTypeError(f"`result` must be a ComparisonResult from compare(); got {type(result).__name__}")
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
        raise InputError(f"`digits` must be a non-negative integer; got {digits!r}")
    names = {**DEFAULT_LABELS, **(labels or {})}

    def label(name: Any, default: str | None = None) -> str:
        return names.get(str(name), default if default is not None else str(name))

    frame = result.table
    a_col, b_col = ("score_a", "score_b") if result.paired else (f"{result.between}_a", f"{result.between}_b")
    keys = [c for c in result.by if c in frame.columns and c not in (a_col, b_col)]
    metric = label(result.metric, {"auroc": "AUROC", "aucpr": "AUCPR"}.get(result.metric, result.metric))
    pairs = frame.select(a_col, b_col).unique(maintain_order=True)
    one_pair = pairs.height == 1
    several_estimators = frame["estimator"].n_unique() > 1
    ci = f"Difference ({_level_text(result.level)} CI)"
    if one_pair:
        a_name, b_name = (label(v) for v in pairs.row(0))
        head_a, head_b = f"{metric} {a_name}", f"{metric} {b_name}"
    else:
        head_a, head_b = f"{metric} (first)", f"{metric} (second)"
    columns: dict[str, list] = {label(k): [label(v) if v is not None else "" for v in frame[k].to_list()]
                                for k in keys}
    if not one_pair:
        columns["Comparison"] = [f"{label(a)} vs {label(b)}" for a, b in frame.select(a_col, b_col).iter_rows()]
    if several_estimators:
        columns["Estimator"] = [label(e, _pretty(e)) for e in frame["estimator"].to_list()]
    if counts:
        if result.paired:
            columns[label("n_pos")] = frame["n_pos"].to_list()
            columns[label("n_neg")] = frame["n_neg"].to_list()
        else:
            columns[label("n_pos")] = [f"{p} / {q}" for p, q in frame.select("n_pos_a", "n_pos_b").iter_rows()]
            columns[label("n_neg")] = [f"{p} / {q}" for p, q in frame.select("n_neg_a", "n_neg_b").iter_rows()]
    columns[label(head_a)] = [_number(v, digits, na) for v in frame["estimate_a"].to_list()]
    columns[label(head_b)] = [_number(v, digits, na) for v in frame["estimate_b"].to_list()]
    columns[label(ci)] = [format_cell(d, lo, hi, digits=digits, sep=sep, na=na)
                          for d, lo, hi in frame.select("difference", "lower", "upper").iter_rows()]
    columns[label("p")] = [format_p(p, p_digits, na) for p in frame["p_value"].to_list()]
    cells = pl.DataFrame(columns)
    key_labels = tuple(c for c in cells.columns[: len(keys) + (not one_pair) + several_estimators])
    how = {"delong": "DeLong test", "bootstrap": "stratified bootstrap"}.get(result.method, _pretty(result.method))
    kind = "paired" if result.paired else "unpaired (independent groups)"
    note = (f"{metric}: difference = first minus second, {_level_text(result.level)} confidence interval and "
            f"two-sided p-value from the {kind} {how}"
            + (f" ({result.n_boot} replicates)" if getattr(result, "n_boot", None) else "") + ".")
    return PublicationTable(cells=cells, key_columns=key_labels,
                            numeric_columns=tuple(c for c in cells.columns if c not in key_labels),
                            note=note, frame_kind=result.frame_kind)
