"""A publication table of a comparison: both areas, their difference with its interval, and p."""

from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from .._validate import digits_iv
from ..exceptions import InputTypeError
from .cells import (Labels, format_cell, format_number, format_p, level_text, marks_footnote, note_marks,
                    one_separator, pretty_name, seed_text)
from .table import PublicationTable

__all__ = ["comparison_table"]


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
        Decimals of the p-value; smaller values print as ``"<0.001"``, and a
        bootstrap p-value at its resolution floor ``1/(B + 1)`` as ``"<"``
        and the floor (``"<0.005"`` with 200 replicates). A difference
        interval truncated to [-1, 1] is marked with a footnote.
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
    >>> from aucpr_stats import compare, comparison_table
    >>> df = pl.read_csv("data/breast_cancer_oof.csv")
    >>> table = comparison_table(compare("malignant ~ logistic + texture", data=df, metric="auroc"))
    >>> table.cells.columns
    ['Positives', 'Negatives', 'AUROC logistic', 'AUROC texture', 'Difference (95% CI)', 'p']
    """
    if not hasattr(result, "paired") or not hasattr(result, "table"):
        raise InputTypeError(f"`result` must be a ComparisonResult from compare(); got {type(result).__name__}")
    digits = digits_iv(digits)
    label = Labels(labels)

    frame = result.to_polars()
    a_col, b_col = ("score_a", "score_b") if result.paired else (f"{result.between}_a", f"{result.between}_b")
    keys = [c for c in result.by if c in frame.columns and c not in (a_col, b_col)]
    metric = label(result.metric, {"auroc": "AUROC", "aucpr": "AUCPR"}.get(result.metric, result.metric))
    windows = [record.window for record in getattr(result, "records", ()) if record.window is not None]
    if windows and len(windows) == len(result.records):  # partial areas: say so in every header
        metric = f"Partial {metric}"
    pairs = frame.select(a_col, b_col).unique(maintain_order=True)
    one_pair = pairs.height == 1
    several_estimators = frame["estimator"].n_unique() > 1
    ci = f"Difference ({level_text(result.level)} CI)"
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
        columns["Estimator"] = [label(e, pretty_name(e)) for e in frame["estimator"].to_list()]
    if counts:
        if result.paired:
            columns[label("n_pos")] = frame["n_pos"].to_list()
            columns[label("n_neg")] = frame["n_neg"].to_list()
        else:
            columns[label("n_pos")] = [f"{p} / {q}" for p, q in frame.select("n_pos_a", "n_pos_b").iter_rows()]
            columns[label("n_neg")] = [f"{p} / {q}" for p, q in frame.select("n_neg_a", "n_neg_b").iter_rows()]
    columns[label(head_a)] = [format_number(v, digits, na) for v in frame["estimate_a"].to_list()]
    columns[label(head_b)] = [format_number(v, digits, na) for v in frame["estimate_b"].to_list()]
    marks = [note_marks(n) for n in frame["note"].to_list()]
    columns[label(ci)] = [format_cell(d, lo, hi, digits=digits, sep=sep, na=na) + mark
                          for (d, lo, hi), mark in zip(frame.select("difference", "lower", "upper").iter_rows(), marks)]
    # a bootstrap p-value at its resolution floor 1/(B + 1) prints as "<x" (issue 14)
    pooled = "fmi" in result.frame.columns  # over imputations: Rubin's t test, no bootstrap floor
    floor = 1.0 / (result.n_boot + 1.0) if result.method == "bootstrap" and result.n_boot and not pooled else None
    columns[label("p")] = [format_p(p, p_digits, na, floor=floor) for p in frame["p_value"].to_list()]
    cells = one_separator(pl.DataFrame(columns), [label(ci)], sep)  # "to" in every row once one needs it
    key_labels = tuple(c for c in cells.columns[: len(keys) + (not one_pair) + several_estimators])
    design = getattr(result, "design", {})
    cluster = design.get("cluster")
    how = ({"delong": f"test with Obuchowski's cluster-robust covariance (clusters: {cluster})",
            "bootstrap": f"cluster bootstrap (clusters of {cluster} resampled)"} if cluster else
           {"delong": "DeLong test", "bootstrap": "stratified bootstrap"}).get(result.method,
                                                                              pretty_name(result.method))
    kind = "paired" if result.paired else "unpaired (independent groups)"
    stated = (f"; areas at a stated prevalence of {design['prevalence']:g}"
              if design.get("prevalence") is not None else "")
    stated += f"; rows weighted by {design['weights']}" if design.get("weights") is not None else ""
    if "fmi" in result.frame.columns:  # pooled over imputed data sets (compare(..., imputation=))
        m = int(result.frame["m"].max() or 0)
        stated += (f"; each imputed data set's difference and standard error pooled over {m} imputations by "
                   "Rubin's rules, the p-value from t with Barnard-Rubin df")
    note = (f"{metric}: difference = first minus second, {level_text(result.level)} confidence interval and "
            f"two-sided p-value from the {kind} {how}"
            + (f" ({result.n_boot} replicates, "
                  f"{seed_text(result.seed, 'no seed set: rerunning gives other limits and p-values')})" if getattr(result, "n_boot", None)
               else "") + f"{stated}.")
    note += "".join(f" {_window_text(window)}" for window in dict.fromkeys(windows))
    footnote = marks_footnote("".join(marks)).replace("the parameter space", "[-1, 1]")
    note = f"{note} {footnote}" if footnote else note
    return PublicationTable(cells=cells, key_columns=key_labels,
                            numeric_columns=tuple(c for c in cells.columns if c not in key_labels),
                            note=note, frame_kind=result.frame_kind)


def _window_text(window: Any) -> str:
    """A partial area's window and the values it can take, for the footnote."""
    lo, hi = window.attainable()
    kind = ("Standardised partial area (McClish)" if window.standardized and window.focus != "recall"
            else "Mean precision" if window.standardized else "Partial area")
    return (f"{kind} over {window.focus} {window.lo:g}\u2013{window.hi:g}, "
            f"which lies in [{lo:g}, {hi:g}].")
