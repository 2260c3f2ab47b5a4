"""Analysis Results Data (ARD): the long layout that R's {cards} and gtsummary 2.x read.

One row per group x quantity x statistic, with the columns of a {cards}
ARD: ``group1``, ``group1_level`` (``group2``, ``group2_level`` ... for
more grouping columns), ``variable``, ``variable_level``, ``context``,
``stat_name``, ``stat_label``, ``stat``, ``stat_text``, ``fmt_fn``,
``warning``, ``error``.

{cards} keeps ``stat`` as a list column holding numbers and text alike. A
CSV or parquet file cannot hold such a column in a way R reads back as one,
so here ``stat`` is Float64 (every numeric statistic) and ``stat_text`` is
String (text statistics: a method name, a note); each row fills exactly one
of the two. In R, ``dplyr::mutate(stat = ifelse(is.na(stat), as.list(stat_text),
as.list(stat)))`` gives the list column that ``cards::as_card()`` takes.
Group levels are written as text (``group1_level``), as {cards} prints them.
"""

from __future__ import annotations

from typing import Any, Sequence

import polars as pl

from ..exceptions import InputError, InputTypeError

__all__ = ["ARD_COLUMNS", "to_ard", "result_ard", "curve_plot_data"]

#: Columns after the group pairs, in {cards} order.
ARD_COLUMNS = ("variable", "variable_level", "context", "stat_name", "stat_label", "stat", "stat_text",
               "fmt_fn", "warning", "error")

#: Readable labels of the usual statistics (broom / cards names).
STAT_LABELS = {
    "estimate": "Estimate", "conf.low": "CI Lower Bound", "conf.high": "CI Upper Bound",
    "std.error": "Standard Error", "p.value": "p-value", "statistic": "Statistic",
    "conf.level": "CI Confidence Level", "method": "Method", "n_pos": "Positives", "n_neg": "Negatives",
    "prevalence": "Prevalence", "n": "N",
}

#: Result column names renamed to the broom names {cards} uses.
BROOM_NAMES = {"lower": "conf.low", "upper": "conf.high", "se": "std.error", "p_value": "p.value",
               "level": "conf.level"}

#: Renamed only where the frame has no column of the broom name (a comparison's difference is its estimate).
BROOM_IF_FREE = {"difference": "estimate", "z": "statistic"}


def to_ard(frame: pl.DataFrame, *, keys: Sequence[str] = (), variable: str | Sequence[str] = "estimate",
           context: str = "aucpr_stats", stat_columns: Sequence[str] | None = None,
           labels: dict | None = None) -> pl.DataFrame:
    """A tidy frame (one row per group) as a long {cards} ARD.

    Parameters
    ----------
    frame : polars.DataFrame
        The result's tidy frame.
    keys : sequence of str
        Grouping columns, written as ``group1``/``group1_level`` ... in order.
    variable : str or sequence of str
        The quantity named in ``variable``: a fixed word (e.g. ``"aucpr"``),
        or a column of ``frame`` (e.g. ``"estimator"``) whose values name it.
    context : str
        The ``context`` column (the kind of analysis).
    stat_columns : sequence of str, optional
        Columns written as statistics (default: every column not a key nor
        a variable column). Renamed to broom names (``lower`` -> ``conf.low``,
        ``se`` -> ``std.error``, ``p_value`` -> ``p.value``, ``level`` -> ``conf.level``;
        ``difference`` -> ``estimate`` and ``z`` -> ``statistic`` where those are free).
    labels : dict, optional
        ``stat_label`` by ``stat_name`` over the default labels.

    Returns
    -------
    polars.DataFrame
        One row per frame row and statistic: the group pairs then
        :data:`ARD_COLUMNS`. ``stat`` is Float64 for numeric statistics,
        ``stat_text`` String for text ones (see the module docstring).
    """
    if not isinstance(frame, pl.DataFrame):
        raise InputTypeError(f"frame must be a polars DataFrame, not {type(frame).__name__}")
    keys = list(keys)
    missing = [k for k in keys if k not in frame.columns]
    if missing:
        raise InputError(f"keys {missing} are not columns of the frame; it has {frame.columns}")
    var_cols = [variable] if isinstance(variable, str) and variable in frame.columns else (
        [] if isinstance(variable, str) else list(variable))
    if stat_columns is None:
        stat_columns = [c for c in frame.columns if c not in keys and c not in var_cols]
    absent = [c for c in stat_columns if c not in frame.columns]
    if absent:
        raise InputError(f"stat_columns {absent} are not columns of the frame; it has {frame.columns}")
    label_of = {**STAT_LABELS, **(labels or {})}
    row_id = "__ard_row__"
    base = frame.with_row_index(row_id)
    group_exprs = []
    for i, key in enumerate(keys, start=1):
        group_exprs += [pl.lit(key).alias(f"group{i}"), pl.col(key).cast(pl.String).alias(f"group{i}_level")]
    if var_cols:
        var_expr = pl.concat_str([pl.col(c).cast(pl.String) for c in var_cols], separator=":")
    else:
        var_expr = pl.lit(variable)
    head = base.select(pl.col(row_id), *group_exprs, var_expr.alias("variable"))
    parts = []
    for order, column in enumerate(stat_columns):
        values = base.get_column(column)
        numeric = values.dtype.is_numeric() or values.dtype == pl.Boolean
        name = BROOM_NAMES.get(column, column)
        if column in BROOM_IF_FREE and BROOM_IF_FREE[column] not in frame.columns:
            name = BROOM_IF_FREE[column]
        parts.append(head.with_columns(
            pl.lit(order).alias("__ard_stat__"),
            pl.lit(name).alias("stat_name"),
            pl.lit(label_of.get(name, name)).alias("stat_label"),
            (values.cast(pl.Float64) if numeric else pl.Series([None] * len(values), dtype=pl.Float64)).alias("stat"),
            (pl.Series([None] * len(values), dtype=pl.String) if numeric else values.cast(pl.String)).alias("stat_text"),
        ))
    group_cols = [c for i in range(1, len(keys) + 1) for c in (f"group{i}", f"group{i}_level")]
    if not parts:
        schema = {c: pl.String for c in group_cols} | {c: pl.String for c in ARD_COLUMNS} | {"stat": pl.Float64}
        return pl.DataFrame(schema={c: schema[c] for c in [*group_cols, *ARD_COLUMNS]})
    long = pl.concat(parts).sort([row_id, "__ard_stat__"])
    return long.with_columns(
        pl.lit(None, dtype=pl.String).alias("variable_level"),
        pl.lit(context).alias("context"),
        pl.lit(None, dtype=pl.String).alias("fmt_fn"),
        pl.lit(None, dtype=pl.String).alias("warning"),
        pl.lit(None, dtype=pl.String).alias("error"),
    ).select([*group_cols, *ARD_COLUMNS])


def result_ard(result: Any, *, method: str | None = None, level: float = 0.95, context: str | None = None,
               **options: Any) -> pl.DataFrame:
    """The ARD of a result: its ``to_polars()`` frame, or with ``method=`` its ``conf_int_polars`` frame.

    Grouping columns are the result's ``by`` (when it has them) and any
    ``score``, ``score_a``, ``score_b`` column (compared scores); a column
    ``estimator`` or ``metric`` names the variable; ``context`` defaults to
    the result's class name in lower case.
    """
    if method is not None:
        conf = getattr(result, "conf_int_polars", None)
        if conf is None:
            raise InputError(f"method= needs a result with conf_int; {type(result).__name__} has none")
        frame = conf(method=method, level=level, **options)
        frame = frame[0] if isinstance(frame, tuple) else frame
    else:
        frame = result.to_polars()
    keys = [k for k in (getattr(result, "by", None) or ()) if k in frame.columns]
    keys += [k for k in ("score", "score_a", "score_b") if k in frame.columns and k not in keys]
    named = [c for c in ("estimator", "metric") if c in frame.columns]
    variable: Any = named if named else type(result).__name__.removesuffix("Result").lower()
    return to_ard(frame, keys=keys, variable=variable,
                  context=context or type(result).__name__.lower())


#: The axes of a curve frame: its x column and the quantity on y.
CURVE_AXES = {"recall": "precision", "fpr": "tpr"}


def curve_plot_data(result: Any) -> pl.DataFrame:
    """A curve's or band's points as a tidy frame for plotnine, altair or plotly.

    Columns: the group keys, ``score`` (when the result has one score and no
    ``score`` key), ``x``, ``y``, ``x_name`` and ``y_name`` (what they are:
    ``recall``/``precision`` or ``fpr``/``tpr``); for a band also ``lower``,
    ``upper``, ``method`` and ``level``. ``y`` of a band is its estimate.
    """
    frame = result.to_polars()
    x_name = next((c for c in CURVE_AXES if c in frame.columns), None)
    if x_name is None:
        raise InputError(f"plot_data() is for curves and bands; {type(result).__name__} has no recall or fpr column")
    y_name = CURVE_AXES[x_name]
    band = {"estimate", "lower", "upper"} <= set(frame.columns)
    keys = [k for k in (getattr(result, "by", None) or ()) if k in frame.columns]
    score = getattr(result, "score", None)
    extra = [pl.lit(score).alias("score")] if isinstance(score, str) and "score" not in keys else []
    columns = [*(pl.col(k) for k in keys), *extra, pl.col(x_name).alias("x"),
               pl.col("estimate" if band else y_name).alias("y"),
               pl.lit(x_name).alias("x_name"), pl.lit(y_name).alias("y_name")]
    if band:
        columns += [pl.col("lower"), pl.col("upper"), pl.col("method"), pl.col("level")]
    return frame.select(columns)
