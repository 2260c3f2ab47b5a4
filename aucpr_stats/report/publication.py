"""Publication tables of areas: one row per group, "estimate (lower–upper)" cells.

:func:`publication_table` turns one or more results (AUCPR, AUROC, several
estimators, several scores, with or without confidence intervals) into a
:class:`~aucpr_stats.report.table.PublicationTable`. The numbers in the cells
are exactly those of ``result.to_frame()`` and ``result.conf_int()``, read as
polars frames (no round trip through the caller's frame type) and rounded to
``digits`` for display only.
"""

from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from .._validate import SCORE_KEY, digits_iv, level_iv
from ..intervals.registry import RANDOM_METHODS
from ..resample import DEFAULT_N_BOOT
from ..exceptions import InputError, InputTypeError
from .cells import (Labels, labels_iv, format_cell, level_text, marks_footnote, note_marks, one_separator, pretty_name,
                    seed_text)
from .comparison import comparison_table
from .pooled_rows import meta_table
from .stacked import heterogeneity_footnote, stack_tables, with_overall_rows
from .table import PublicationTable

__all__ = ["publication_table", "grouping", "record_names"]


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


def _value_frame(result: Any, method: str | None, level: float, options: Mapping,
                 method_options: Mapping[str, Mapping] | None) -> tuple[pl.DataFrame, str | None]:
    """Estimates (``method=None``) or intervals of one result, and the method name the cells report."""
    if method is None:
        frame = record_names(result.to_polars()).with_columns(
            pl.lit(None, dtype=pl.Float64).alias("lower"), pl.lit(None, dtype=pl.Float64).alias("upper"),
            pl.lit(None, dtype=pl.String).alias("method"),
        )
        return frame, None
    options = {**options, **((method_options or {}).get(method, {}))}
    frame = result.conf_int_polars(method=None if method == "default" else method, level=level, **options)
    names = frame["method"].unique(maintain_order=True).to_list()
    return record_names(frame), (names[0] if len(names) == 1 else method)


def record_names(frame: pl.DataFrame) -> pl.DataFrame:
    """A net-benefit frame's ``estimator`` and ``threshold`` as the record names ``"net_benefit@0.1"``."""
    if "threshold" not in frame.columns:
        return frame
    names = [f"{e}@{float(t)!r}" for e, t in zip(frame["estimator"].to_list(), frame["threshold"].to_list())]
    return frame.with_columns(pl.Series("estimator", names, dtype=pl.String))


def _check_results(results: Any) -> list:
    if not isinstance(results, (list, tuple)):
        results = [results]
    results = list(results)
    if not results:
        raise InputError("`results` must hold at least one result")
    for r in results:
        if not hasattr(r, "to_polars") or not hasattr(r, "by") or not hasattr(r, "metric"):
            raise InputTypeError(f"`results` must hold aucpr_stats results; got {type(r).__name__}")
    return results


def grouping(result: Any) -> tuple:
    """The group key columns of a result, without the ``score`` key of several scores."""
    return tuple(c for c in result.by if c != SCORE_KEY)


def _counts_frame(results: list, group_keys: tuple, score_to_columns: bool, any_multi: bool) -> pl.DataFrame:
    """Positives and negatives per table row, from the first result; the others must agree."""
    count_frames = []
    for r in results:
        keys_here = [*group_keys, *([SCORE_KEY] if SCORE_KEY in r.by else [])]
        f = r.to_polars().select(*keys_here, "n_pos", "n_neg")
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
    for other in count_frames[1:]:
        if not score_to_columns and any_multi and (SCORE_KEY in other.columns) != (SCORE_KEY in base.columns):
            raise InputError("with scores_as='rows' every result must have several scores, or none (one result "
                             "here has one score and another several: give each result the same scores)")
        other = other.drop(SCORE_KEY) if score_to_columns and SCORE_KEY in other.columns else other
        other_keys = [c for c in other.columns if c not in ("n_pos", "n_neg")]
        other = other.unique(subset=other_keys, maintain_order=True) if other_keys else other.head(1)
        join_on = [c for c in base.columns if c not in ("n_pos", "n_neg")]
        if join_on:
            joined = base.join(other, on=join_on, how="full", suffix="_other", coalesce=True, nulls_equal=True)
            same = joined.height == base.height and (
                joined["n_pos"].eq_missing(joined["n_pos_other"]).all()
                and joined["n_neg"].eq_missing(joined["n_neg_other"]).all()
            )
        else:
            same = base.select("n_pos", "n_neg").equals(other.select("n_pos", "n_neg"))
        if not same:
            raise InputError("the results were computed on different rows: their counts of positives "
                             "and negatives per group differ")
    return base


def _long_cells(results: list, method: Any, level: float, options: Mapping, method_options: Mapping | None,
                row_keys: list[str], score_to_columns: bool, digits: int, sep: str, na: str):
    """One long frame of display cells (row keys, column id, text), the column ids in order, and the methods shown."""
    long_parts: list[pl.DataFrame] = []
    column_order: list[tuple] = []
    used_marks: set[str] = set()
    methods_by_metric: dict[str, list] = {r.metric: [] for r in results}
    for r in results:
        score_names = list(r.score) if isinstance(r.score, tuple) else [r.score]
        for m in _methods_for(r, method):
            frame, reported = _value_frame(r, m, level, options, method_options)
            if reported not in methods_by_metric[r.metric]:
                methods_by_metric[r.metric].append(reported)
            if SCORE_KEY not in frame.columns:
                frame = frame.with_columns(pl.lit(score_names[0]).alias(SCORE_KEY))
            cells = [
                format_cell(e, lo, hi, digits=digits, sep=sep, na=na, interval=m is not None)
                for e, lo, hi in zip(frame["estimate"].to_list(), frame["lower"].to_list(), frame["upper"].to_list())
            ]
            if m is not None and "note" in frame.columns:  # footnote marks: truncated, boundary fallback, small sample (issue 14)
                marks = [note_marks(n) for n in frame["note"].to_list()]
                used_marks.update("".join(marks))
                cells = [cell + mark for cell, mark in zip(cells, marks)]
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
    return pl.concat(long_parts, how="vertical_relaxed"), column_order, methods_by_metric, used_marks


def _headers(column_order: list[tuple], estimators_by_metric: dict, methods_by_metric: dict, level: float,
             label: Labels) -> dict[str, str]:
    """One header per cell column, saying only what varies between the columns."""
    several_scores = len({c[0] for c in column_order}) > 1
    headers: dict[str, str] = {}
    for col_id in column_order:
        s, metric, metric_label, est, reported = col_id
        text = label(metric, metric_label)
        if "@" in str(est):  # a net-benefit statistic at a threshold: "Net benefit at 10%"
            base, _, at = str(est).partition("@")
            text = (text if base == "net_benefit" else label(base, pretty_name(base)).capitalize())
            text = label(est, f"{text} at {100 * float(at):g}%")
        elif len(estimators_by_metric[metric]) > 1:
            text += f", {label(est, pretty_name(est))}"
        elif ", " in str(est):  # a partial area: the estimator's name carries its range ("specificity 0.8-1")
            text = f"Partial {text}, {label(est, str(est).split(', ', 1)[1])}"
        if reported is not None:
            ci = f"{level_text(level)} CI"
            if len(methods_by_metric[metric]) > 1:
                ci += f", {label(reported, pretty_name(reported))}"
            text += f" ({ci})"
        if several_scores and s is not None:
            text = f"{label(s)}: {text}"
        headers[repr(col_id)] = label(text)
    if len(set(headers.values())) < len(headers):
        raise InputError(f"`labels` make two columns share a header: {sorted(headers.values())}")
    return headers


def _estimator_text(name: str, label: Labels) -> str:
    """An estimator's display name; a partial area's range ("a_prime, specificity 0.8-1") after its base name."""
    base, _, extent = str(name).partition(", ")
    base = base.partition("@")[0]  # a net-benefit statistic: its thresholds are in the headers
    return label(name, label(base, pretty_name(base)) + (f", {extent}" if extent else ""))


def _method_text(method: str, options: Mapping, method_options: Mapping | None, label: Labels) -> str:
    """A method's name as the footnote gives it, with replicates and seed for the resampling methods."""
    text = label(method, pretty_name(method))
    if method not in RANDOM_METHODS:  # the footnote gives their replicates and seed
        return text
    used = {**options, **((method_options or {}).get(method, {}))}
    parts = []
    if method == "bootstrap":
        parts.append(f"{used.get('n_boot', DEFAULT_N_BOOT)} replicates")
    parts.append(seed_text(used.get("rng", used.get("seed"))))  # rng= (SPEC 7) or its alias seed=
    return f"{text}, {', '.join(parts)}"


def _footnote(results: list, estimators_by_metric: dict, methods_by_metric: dict, level: float,
              label: Labels, options: Mapping | None = None, method_options: Mapping | None = None) -> str:
    """What the cells hold, per metric: estimator, interval method (replicates, seed) and level."""
    notes = []
    for metric, ests in estimators_by_metric.items():
        metric_label = next(r.metric_label for r in results if r.metric == metric)
        est_text = ", ".join(dict.fromkeys(_estimator_text(e, label) for e in sorted(ests, key=str)))
        meths = [m for m in methods_by_metric[metric] if m is not None]
        if meths:
            what = (f"estimate ({level_text(level)} confidence interval, "
                    f"{'; '.join(_method_text(m, options or {}, method_options, label) for m in meths)})")
        else:
            what = "point estimate"
        design = _design_text(next(r for r in results if r.metric == metric))
        notes.append(f"{label(metric, metric_label)}: {what}; estimator {est_text}{design}.")
    return " ".join(notes)


def _design_text(result: Any) -> str:
    """The study design a result was estimated with (weights, clusters, a stated prevalence), for the footnote."""
    design = result.design
    parts = []
    if design.weights is not None:
        parts.append(f"rows weighted by {design.weights}")
    if design.cluster is not None:
        parts.append(f"rows clustered by {design.cluster}")
    if design.prevalence is not None:
        parts.append(f"at a stated prevalence of {design.prevalence:g}")
    if getattr(design, "imputation", None) is not None:
        scale = {"auroc": " on the logit scale", "aucpr": " on the logit scale",
                 "calibration": ", O/E on the log scale"}.get(result.metric, "")
        parts.append(f"pooled over {getattr(result, 'm', 'the')} imputed data sets by Rubin's rules{scale} "
                     "(Barnard-Rubin df)")
    return "".join(f"; {part}" for part in parts)


def publication_table(
    results: Any,
    *,
    method: Any = "default",
    level: float = 0.95,
    digits: int = 2,
    labels: Mapping[str, str] | None = None,
    counts: bool = True,
    prevalence: bool = False,
    scores_as: str = "columns",
    sep: str = "\u2013",
    na: str = "NA",
    method_options: Mapping[str, Mapping[str, Any]] | None = None,
    overall: Any = None,
    overall_label: str = "Overall",
    heterogeneity: Any = None,
    **conf_int_options: Any,
) -> PublicationTable:
    """Turn results into a publication table, one row per group; several groupings stack as blocks.

    Parameters
    ----------
    results : result or list of results
        A :class:`~aucpr_stats.compare.ComparisonResult` alone gives
        :func:`~aucpr_stats.report.comparison_table`. Otherwise
        :class:`~aucpr_stats.results.AucprResult`,
        :class:`~aucpr_stats.results.AurocResult` (any result with
        ``to_frame()`` and ``conf_int()``), computed on the same rows.
        Results with the same grouping give columns side by side (e.g.
        AUCPR and AUROC by site). Results with different groupings (by sex,
        by age band) give a *stacked* table, Table 2 as journals print it:
        a ``Subgroup`` column, a header row per variable and its levels
        below; ungrouped results among them give the Overall row on top.
    method : "default", None, str, list of str, or dict
        Interval method(s) passed to ``result.conf_int(method=...)``.
        ``"default"`` (the default) uses each metric's own default method
        (the one ``result.conf_int()`` uses); None shows point estimates
        only; a dict maps a metric (``"aucpr"``,
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
    prevalence : bool
        Show the prevalence (positives / rows) per group, as a percentage:
        the AUCPR of a score that carries no information (Boyd et al. 2013),
        so the baseline against which each AUCPR reads.
    scores_as : {"columns", "rows"}
        With several scores: one column per score (default; needs the same
        counts for every score in a group), or ``score`` as a row key.
    sep : str
        Separator between the lower and upper bound (an en dash by default;
        ``" to "`` in every cell of the table once a bound is negative).
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
    heterogeneity : None, str or dict
        Add a footnote with the p-value for heterogeneity across the groups
        of each grouping (:meth:`~aucpr_stats.results.EstimateResult.heterogeneity`),
        with this method (``"default"`` for each metric's default, or a
        dict from metric to method).
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
        Results of one grouping computed on different rows (different
        counts), blocks with different columns, bad ``digits`` or ``scores_as``.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import aucpr, publication_table
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.6, 0.1],
    ...                    "g": ["a", "a", "a", "b", "b", "b"]})
    >>> table = publication_table(aucpr(df, "y", "s", by="g", estimator="average_precision"), method=None)
    >>> table.to_frame()["AUCPR"].to_list()
    ['0.83', '1.00']
    """
    labels = labels_iv(labels)
    if hasattr(results, "paired") and hasattr(results, "table"):  # a ComparisonResult
        return comparison_table(results, digits=digits, labels=labels, counts=counts, sep=sep, na=na)
    results = _check_results(results)
    metas = [r for r in results if hasattr(r, "pooled_view")]
    if metas:  # a meta-analysis: its sites, then the pooled row and the prediction interval
        if len(results) != 1:
            raise InputError("a meta-analysis (`result.meta()`) makes a table on its own; pass it alone")
        return meta_table(metas[0], publication_table, method=method, level=level, digits=digits, labels=labels, counts=counts,
                           prevalence=prevalence, scores_as=scores_as, sep=sep, na=na,
                           method_options=method_options, **conf_int_options)
    common = dict(method=method, level=level, digits=digits, labels=labels, counts=counts, prevalence=prevalence,
                  scores_as=scores_as, sep=sep, na=na, method_options=method_options, heterogeneity=heterogeneity,
                  **conf_int_options)
    blocks: dict[tuple, list] = {}
    for r in results:
        blocks.setdefault(grouping(r), []).append(r)
    if len(blocks) == 1:
        return _one_grouping(results, overall=overall, overall_label=overall_label, **common)
    top = [*blocks.pop(()), *([] if overall is None else _check_results(overall))] if () in blocks else overall
    tables = [_one_grouping(block, overall=None, overall_label=overall_label, **common) for block in blocks.values()]
    top_table = None if top is None else _one_grouping(_check_results(top), overall=None,
                                                       overall_label=overall_label, **common)
    return stack_tables(tables, overall=top_table, overall_label=overall_label, label=Labels(labels), sep=sep)


def _one_grouping(
    results: list, *, method: Any, level: float, digits: int, labels: Mapping[str, str] | None, counts: bool,
    prevalence: bool, scores_as: str, sep: str, na: str, method_options: Mapping | None, overall: Any,
    overall_label: str, heterogeneity: Any, **conf_int_options: Any,
) -> PublicationTable:
    """The table of results that share one grouping (and its optional Overall row)."""
    digits = digits_iv(digits)
    if scores_as not in ("columns", "rows"):
        raise InputError(f"`scores_as` must be 'columns' or 'rows'; got {scores_as!r}")
    level = level_iv(level)
    label = Labels(labels)
    group_keys = tuple(c for c in results[0].by if c != SCORE_KEY)
    any_multi = any(SCORE_KEY in r.by for r in results)
    score_to_columns = any_multi and scores_as == "columns"
    row_keys = list(group_keys) + ([SCORE_KEY] if any_multi and not score_to_columns else [])

    counts_frame = _counts_frame(results, group_keys, score_to_columns, any_multi)
    long, column_order, methods_by_metric, used_marks = _long_cells(
        results, method, level, conf_int_options, method_options, row_keys, score_to_columns, digits, sep, na)
    estimators_by_metric: dict[str, set] = {}
    for r in results:
        estimators_by_metric.setdefault(r.metric, set()).update(r.estimators)
    headers = _headers(column_order, estimators_by_metric, methods_by_metric, level, label)

    if row_keys:
        wide = long.pivot(on="__col", index=row_keys, values="__cell", aggregate_function="first",
                          maintain_order=True)
        table = counts_frame.select(*row_keys, "n_pos", "n_neg").join(
            wide, on=row_keys, how="left", nulls_equal=True, maintain_order="left")
    else:
        wide = pl.DataFrame({repr(c): long.filter(pl.col("__col") == repr(c))["__cell"] for c in column_order})
        table = pl.concat([counts_frame.select("n_pos", "n_neg"), wide], how="horizontal")
    cell_cols = [repr(c) for c in column_order]
    # the prevalence each AUCPR is at: the stated one when every result states the same, else each group's
    stated = {getattr(r, "stated_prevalence", None) for r in results if r.metric == "aucpr"}
    stated_rate = next(iter(stated)) if len(stated) == 1 else None
    if prevalence:  # a percentage with one decimal: the baseline each AUCPR reads against
        rate = (pl.col("n_pos") / (pl.col("n_pos") + pl.col("n_neg")) if stated_rate is None
                else pl.lit(float(stated_rate)))
        table = table.with_columns(
            pl.when(rate.is_finite()).then(rate.mul(100).round(1).map_elements(lambda v: f"{v:.1f}",
                                                                                return_dtype=pl.String))
            .otherwise(pl.lit(na)).alias("prevalence"))
    table = table.select(*row_keys, *(["n_pos", "n_neg"] if counts else []), *(["prevalence"] if prevalence else []),
                         *cell_cols)
    table = table.with_columns(pl.col(c).fill_null(na) for c in cell_cols)
    # a missing group key (rows with a null in a `by` column form their own group) prints as "Missing"
    table = table.with_columns(pl.col(c).cast(pl.String).fill_null(label("missing", "Missing")) for c in row_keys)
    if labels:  # group values ("1 small") get their display labels too
        user = {str(k): str(v) for k, v in labels.items()}
        table = table.with_columns(pl.col(c).replace(user) for c in row_keys)
    rename = {c: label(c) for c in row_keys}
    rename.update({"n_pos": label("n_pos"), "n_neg": label("n_neg")} if counts else {})
    rename.update({"prevalence": label("prevalence", "Prevalence (%)" if stated_rate is None
                                       else "Stated prevalence (%)")} if prevalence else {})
    rename.update(headers)
    table = table.rename(rename)

    key_labels = tuple(rename[c] for c in row_keys)
    numeric = tuple(c for c in table.columns if c not in key_labels)
    n_overall = 0
    if overall is not None:
        n_before = table.height
        table = with_overall_rows(
            table, key_labels,
            publication_table(overall, method=method, level=level, digits=digits, labels=labels, counts=counts,
                              prevalence=prevalence, scores_as=scores_as, sep=sep, na=na,
                              method_options=method_options, **conf_int_options),
            overall_label,
        )
        n_overall = table.height - n_before
    table = one_separator(table, numeric, sep)  # the overall row included: one bound separator per table
    return PublicationTable(
        cells=table, key_columns=key_labels, numeric_columns=numeric,
        note=" ".join(filter(None, [_footnote(results, estimators_by_metric, methods_by_metric, level, label,
                                              conf_int_options, method_options),
                                    marks_footnote(used_marks),
                                    heterogeneity_footnote(results, heterogeneity, level, label)])),
        frame_kind=results[0].frame_kind, n_overall=n_overall,
    )
