"""A meta-analysis in a publication table: the sites' rows, the pooled row and the prediction interval.

``publication_table(result.meta())`` reads the sites' result as any result,
then the pooled values and prediction intervals as ungrouped results
(:meth:`~aucpr_stats.pooling.meta_result.MetaResult.pooled_view`), whose
columns line up with the sites' by construction; a footnote names the
method, tau² and I².
"""

from __future__ import annotations

from typing import Any

import polars as pl

from .._validate import SCORE_KEY
from ..exceptions import InputError
from .cells import Labels, level_text
from .stacked import with_overall_rows
from .table import PublicationTable

__all__ = ["meta_table"]


def meta_table(meta: Any, make_table: Any, **common: Any) -> PublicationTable:
    """The sites' table of a meta-analysis with its pooled rows below, and a footnote naming the method.

    ``make_table`` is :func:`~aucpr_stats.report.publication.publication_table` (passed in: it calls this
    function for a meta-analysis); ``common`` are its arguments.
    """
    if [c for c in meta.split if c != SCORE_KEY]:
        raise InputError(f"a publication table of a meta-analysis split by {list(meta.split)} is not made yet; "
                         f"pool each level on its own (`across=` all of `by`)")
    label = Labels(common["labels"])
    sites = make_table(meta.result, **common)
    ci = {"hksj": "HKSJ", "hksj_adhoc": "HKSJ, ad hoc", "wald": "Wald"}[meta.ci]
    parts = [("pooled", label("random_effects", f"Random effects ({meta.method}, {ci})"))]
    if meta.prediction_interval:
        parts.append(("prediction", label("prediction_interval",
                                          f"{level_text(meta.level)} prediction interval")))
    cells = sites.cells
    for part, text in parts:
        view = make_table(meta.pooled_view(part), **{**common, "level": meta.level})
        before = cells.height
        cells = with_overall_rows(cells, sites.key_columns, view, text, below=True)
        if part == "prediction" and common.get("counts", True):  # the interval has no counts of its own
            cells = cells.with_columns(pl.when(pl.int_range(pl.len()) >= before).then(None)
                                       .otherwise(pl.col(c)).alias(c) for c in cells.columns[
                                           len(sites.key_columns):len(sites.key_columns) + 2])
    tau = ", ".join(f"{t:.3g}" for t in meta.table["tau2"].to_list())
    i2 = ", ".join(f"{100 * v:.0f}%" for v in meta.table["i_squared"].to_list())
    scale = ", ".join(dict.fromkeys(meta.table["scale"].to_list()))
    note = (f"Pooled: {meta.description()}; on the {scale} scale; tau\u00b2 = {tau}, I\u00b2 = {i2}"
            f" ({meta.table['k'][0]} sites).")
    return PublicationTable(cells=cells, key_columns=sites.key_columns, numeric_columns=sites.numeric_columns,
                            note=f"{sites.note} {note}", frame_kind=sites.frame_kind, n_overall=0)
