r"""Heterogeneity and interaction across independent subgroups: Cochran's Q.

Is the area the same in every subgroup (sex, age band, site)? With
:math:`k` independent groups, estimates :math:`\hat\theta_i` and variances
:math:`v_i`, weights :math:`w_i = 1/v_i` and the inverse-variance weighted
mean :math:`\bar\theta = \sum w_i\hat\theta_i / \sum w_i`, Cochran's (1954)

.. math:: Q = \sum_{i=1}^{k} w_i (\hat\theta_i - \bar\theta)^2

is a Wald statistic of :math:`\theta_1 = \dots = \theta_k`, referred to a
chi-square with :math:`k - 1` degrees of freedom. Higgins & Thompson's (2002)
:math:`I^2 = \max\{0, (Q - (k - 1))/Q\}` is the share of the variation
between groups beyond chance.

* :func:`heterogeneity` (``result.heterogeneity()``): the area of one score
  across the groups of an AUROC or AUCPR result. AUROC: DeLong's variance on
  the natural scale (default). AUCPR (default, since issue 16):
  :math:`\mathrm{logit}\,\hat\theta_i` with the two-sample jackknife
  variance of the logit (:mod:`aucpr_stats.compare.jackknife`), pooled per
  positive over the groups and referred to an F distribution
  (:func:`~aucpr_stats.compare.jackknife.pooled_test`); ``pooled=False``
  keeps each group's own jackknife variance with Welch's F. The chi-square
  size of the Wald test was 1-3% with the logit interval's binomial variance
  (``method="logit"``) and up to 11% with the stratified bootstrap's
  (``method="bootstrap"``), both on the logit scale; those variances are
  the SEs of ``result.conf_int`` (:mod:`aucpr_stats.intervals`), asked for
  through its driver. ``docs/heterogeneity.md`` has the sizes.
* :func:`~aucpr_stats.compare.interaction.interaction`
  (``comparison.interaction()``): the difference between two scores (or two
  levels) across the groups of a :func:`compare` result.

Both assume independent groups (different rows: a patient in one group
only) and a normal estimate on the scale of the test. Groups without a
usable variance (one class missing, fewer than two positives, an estimate of
0 or 1 on the logit scale, a variance of 0) are left out, listed with the
reason in :meth:`HeterogeneityResult.groups_frame` and the row's ``note``,
and one :class:`~aucpr_stats.exceptions.DegenerateGroupWarning` says so.

References
----------
Cochran, W. G. (1954). The combination of estimates from different
experiments. Biometrics 10, 101-129.
Higgins, J. P. T., Thompson, S. G. (2002). Quantifying heterogeneity in a
meta-analysis. Statistics in Medicine 21, 1539-1558.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from .._validate import names_iv
from ..distributions import chi2_sf, expit
from ..exceptions import DegenerateGroupWarning, InputError, SmallSampleWarning
from ..ingest.notes import describe_keys
from ..report.ard import result_ard
from ..report.cells import format_p
from ..report.text import text_table
from ..report.display import html_display
from .jackknife import pooled_test, weighted_spread, welch_test
from .prevalence import prevalence_notes
from .site_values import DEFAULT_SCALE, HETEROGENEITY_METHODS, none_mask, site_values
from .statistics import floored_p

__all__ = [
    "DEFAULT_SCALE",
    "HETEROGENEITY_METHODS",
    "MIN_POSITIVES_CHECKED",
    "HeterogeneityResult",
    "cochran_q",
    "heterogeneity",
]

#: The size of the tests was measured by simulation from this many positives per group up
#: (``docs/heterogeneity.md``); rows with smaller groups say so in their note.
MIN_POSITIVES_CHECKED = 50
#: Cochran's chi-square (known variances) with k groups needs at least this many positives per group times k:
#: DeLong's Q rejected 6.8-8.0% of true nulls with 10 groups of 50 positives, 9.5-10.3% with 20, and at most
#: 6.6% with 3-5 groups of 20-50 (benchmarks/heterogeneity_size_results_grid.md); the F tests on jackknife
#: variances held 2.8-6.4% everywhere there.
POSITIVES_PER_GROUP_CHI_SQUARE = 10



# =================================================================== the kernel
def cochran_q(theta: np.ndarray, variance: np.ndarray, cell: np.ndarray, n_cells: int) -> dict:
    r"""Cochran's Q, its chi-square p-value and :math:`I^2` for many independent sets of estimates at once.

    Parameters
    ----------
    theta, variance : ndarray of float64, shape (n,)
        Estimates and their variances on the scale of the test; entries with
        a NaN or non-positive variance or a NaN estimate are left out.
    cell : ndarray of int, shape (n,)
        Which test (``0 .. n_cells - 1``) each estimate belongs to.
    n_cells : int

    Returns
    -------
    dict of ndarray, shape (n_cells,)
        ``statistic`` (Q), ``df`` (k - 1), ``p_value`` (upper chi-square
        tail), ``i_squared``, ``pooled`` (the inverse-variance weighted mean,
        on the test's scale), ``k`` (estimates used). NaN where fewer than two
        estimates are usable (``pooled`` needs one); ``i_squared`` is 0 when
        Q is 0 (no variation beyond chance).

    Examples
    --------
    >>> out = cochran_q(np.array([0.7, 0.8]), np.array([0.01, 0.01]), np.array([0, 0]), 1)
    >>> round(float(out["statistic"][0]), 6), int(out["df"][0]), round(float(out["pooled"][0]), 6)
    (0.5, 1, 0.75)
    """
    sums = weighted_spread(theta, variance, cell, n_cells)
    k, pooled, q = sums["k"], sums["pooled"], sums["q"]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # (q - df) / q of a subnormal q
        df = k - 1.0
        valid = k >= 2
        q = np.where(valid, q, np.nan)
        p = np.where(valid, floored_p(chi2_sf(q, np.maximum(df, 1.0))), np.nan)
        i2 = np.where(valid, np.where(q > 0, np.maximum(0.0, (q - df) / q), 0.0), np.nan)
    return {"statistic": q, "df": np.where(valid, df, np.nan), "p_value": p, "i_squared": i2,
            "pooled": np.where(k >= 1, pooled, np.nan), "k": k.astype(np.int64)}


# =================================================================== the result
@attrs.frozen(eq=False, repr=False)
class HeterogeneityResult:
    """Tests that an area (or a difference of areas) is the same in every subgroup.

    One row of :attr:`table` per test: per score and estimator (and per
    level of any grouping column not tested across); for an interaction, per
    pair compared and estimator. Returned by ``result.heterogeneity()`` and
    ``comparison.interaction()``.

    Attributes
    ----------
    table : polars.DataFrame
        The stratifying columns, ``estimator``, ``method``, ``scale``,
        ``statistic`` (Cochran's Q, or the F statistic of the jackknife
        tests), ``df`` (groups used - 1), ``df2`` (the F's denominator
        degrees of freedom; null for a chi-square test), ``p_value``,
        ``i_squared``, ``pooled`` (inverse-variance weighted mean, on the
        natural scale), ``k`` (groups used), ``n_left_out``, ``note``.
    groups : polars.DataFrame
        One row per group and test: the keys, ``estimator``, ``value`` (the
        estimate or difference, natural scale), ``variance`` (on the test's
        scale), ``weight``, ``used``, ``reason`` (why a group was left out).
    kind : {"heterogeneity", "interaction"}
    metric : {"auroc", "aucpr"}
    method : str
        Where the variances come from (``"delong"``, ``"logit"``, ``"bootstrap"``).
    scale : {"natural", "logit"}
    across : tuple of str
        The grouping columns whose levels are compared.
    frame_kind : {"pandas", "polars"}
    what : str
        What is compared (``"of <score>"``, ``"difference"``), for the title.
    reference : {"chi2", "pooled", "welch", "D1", "D2"}
        The reference distribution of the p-value.
    """

    table: pl.DataFrame = attrs.field(eq=False)
    groups: pl.DataFrame = attrs.field(eq=False)
    kind: str
    metric: str
    method: str
    scale: str
    across: tuple
    frame_kind: str
    what: str = ""
    reference: str = "chi2"

    def to_polars(self) -> pl.DataFrame:
        """The tests as a polars DataFrame, whatever the caller's frame type."""
        return self.table

    def to_frame(self):
        """The tests, one row each, in the caller's frame type."""
        return _frames.to_caller(self.table, self.frame_kind)

    def groups_frame(self):
        """The groups behind each test (used or left out, and why), in the caller's frame type."""
        return _frames.to_caller(self.groups, self.frame_kind)

    def _single(self, column: str) -> float:
        if self.table.height != 1:
            raise AttributeError(f"`.{column}` is defined for a result with one test; this one has "
                                 f"{self.table.height} rows: use `.to_frame()`")
        value = self.table[column][0]
        return float("nan") if value is None else float(value)

    @property
    def statistic(self) -> float:
        """Cochran's Q, for a result with one test."""
        return self._single("statistic")

    @property
    def df(self) -> int | float:
        """Degrees of freedom (groups used - 1), for a result with one test (NaN without a test)."""
        value = self._single("df")
        return value if np.isnan(value) else int(value)

    @property
    def p_value(self) -> float:
        """The chi-square p-value, for a result with one test."""
        return self._single("p_value")

    def _title(self) -> str:
        label = {"auroc": "AUROC", "aucpr": "AUCPR", "calibration": "Calibration",
                 "net_benefit": "Net benefit"}[self.metric]
        test = "Interaction (difference equal in every group)" if self.kind == "interaction" else (
            "Heterogeneity (area equal in every group)" if self.metric in ("auroc", "aucpr")
            else "Heterogeneity (statistic equal in every group)")
        source = {"delong": "DeLong", "logit": "logit-interval", "bootstrap": "bootstrap"}.get(self.method, self.method)
        reference = {"welch": "Welch's F with k - 1 and df2 df",
                     "pooled": "F = Q/(k - 1) with k - 1 and df2 df, variances per positive pooled",
                     "D1": "D1 (pooled Wald test over the imputations, Li, Raghunathan & Rubin 1991), F with k - 1 "
                           "and df2 df",
                     "D2": "D2 (pooled chi-square statistics over the imputations, Li, Meng, Raghunathan & Rubin "
                           "1991), F with k - 1 and df2 df",
                     }.get(self.reference, "Cochran's Q, chi-square with k - 1 df")
        return (f"{test}: {label}{' ' + self.what if self.what else ''} across {', '.join(self.across)}; "
                f"{reference} on the {self.scale} scale, {source} variances")

    def summary(self, digits: int = 4) -> str:
        """A readable text table of the tests with a title line."""
        frame = self.table
        drop = ["method", "scale"] + [c for c in ("note", "df2") if frame[c].null_count() == frame.height]
        frame = frame.drop(drop).with_columns(
            pl.Series("p_value", [format_p(p, digits, "NaN") for p in frame["p_value"].to_list()], dtype=pl.String))
        numeric = [c for c in frame.columns if frame[c].dtype.is_numeric() or c == "p_value"]
        return f"{self._title()}\n{text_table(frame, digits=digits, right_align=numeric)}"

    __str__ = summary

    def to_ard(self, **options: Any) -> pl.DataFrame:
        """:meth:`to_polars` as a long {cards} ARD (:func:`aucpr_stats.report.ard.result_ard`)."""
        return result_ard(self, **options)

    def _repr_html_(self) -> str:
        """The notebook display: the heading and the table of tests."""
        return html_display(self._title(), self.table)

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.table.height == 1:
            row = self.table.row(0, named=True)
            def shown(value: Any, spec: str) -> str:  # no test (one group): null or NaN, not a format error
                return "NaN" if value is None or value != value else format(value, spec)
            return (f"{name}({self.kind}, {self.metric}, {self.method}, statistic={shown(row['statistic'], '.4g')}, "
                    f"df={shown(row['df'], '.0f')}, p_value={shown(row['p_value'], '.4g')}, k={row['k']})")
        return f"{name}({self.kind}, {self.metric}, {self.method}, tests={self.table.height})"


# =================================================================== shared assembly
def across_iv(across: Any, by: tuple) -> tuple[list, list]:
    """(columns compared, columns that split the tests): ``across`` defaults to every grouping column."""
    candidates = [c for c in by if c != "score"]
    if not candidates:
        raise InputError("a test across subgroups needs a grouped result: estimate with `by=` "
                         "(e.g. by='sex') first")
    chosen = candidates if across is None else list(names_iv(across, "across", allow_none=False))
    unknown = [c for c in chosen if c not in candidates]
    if unknown:
        raise InputError(f"`across` must name grouping columns of the result {candidates}; got {unknown}")
    return chosen, [c for c in by if c not in chosen]


def _cells(frame: pl.DataFrame, split: list) -> tuple[np.ndarray, pl.DataFrame]:
    """The test (cell) of every row: one per distinct value of ``split``, in order of appearance."""
    if not split:
        return np.zeros(frame.height, dtype=np.int64), pl.DataFrame({"__cell": [0]})
    distinct = frame.select(split).unique(maintain_order=True).with_row_index("__cell")
    joined = frame.select(split).join(distinct, on=split, nulls_equal=True, how="left", maintain_order="left")
    return joined["__cell"].to_numpy().astype(np.int64), distinct


def assemble_test(result_kind: dict, rows: pl.DataFrame, split: list, theta, variance, reason, n_pos,
                  back, nu=None, pooled=False, pool_n=None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The tests and the groups frame from one row per (group, test) with value, variance and reason.

    With ``nu`` (the degrees of freedom of each variance), Welch's F test, or with ``pooled`` the F test
    on variances per positive pooled over the groups (per ``pool_n`` positives, default ``n_pos``);
    otherwise Cochran's chi-square.
    """
    cell, distinct = _cells(rows, split)
    n_cells = distinct.height
    used = none_mask(reason)
    if nu is None:
        out = cochran_q(np.where(used, theta, np.nan), np.where(used, variance, np.nan), cell, n_cells)
        out["df2"] = np.full(n_cells, np.nan)
    else:
        test = pooled_test if pooled else welch_test
        extra = (n_pos if pool_n is None else pool_n,) if pooled else ()
        out = test(np.where(used, theta, np.nan), np.where(used, variance, np.nan), nu, *extra, cell, n_cells)
        if pooled:  # the groups frame shows the variances the test used
            variance = np.where(used, out["variance"], variance)
        q, df = out["q"], out["df"]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # I^2 from Cochran's Q, as for the chi-square
            out["i_squared"] = np.where(np.isfinite(q), np.where(q > 0, np.maximum(0.0, (q - df) / q), 0.0), np.nan)
    left_out = np.bincount(cell, weights=(~used).astype(np.float64), minlength=n_cells).astype(np.int64)
    # the positives per group from which the size was measured: more for a chi-square test across many groups
    minimum = np.full(n_cells, MIN_POSITIVES_CHECKED, dtype=np.int64)
    if nu is None:
        minimum = np.maximum(minimum, POSITIVES_PER_GROUP_CHI_SQUARE * np.asarray(out["k"], dtype=np.int64))
    small = np.bincount(cell, weights=(used & (n_pos < minimum[cell])).astype(np.float64),
                        minlength=n_cells).astype(np.int64)
    labels = np.asarray(result_kind["labels"], dtype=object)
    gone: dict[int, list[int]] = {}
    for i in np.flatnonzero(~used).tolist():  # only the groups left out
        gone.setdefault(int(cell[i]), []).append(i)
    notes = []
    for c in range(n_cells):  # one note per test
        parts = []
        if out["k"][c] < 2:
            parts.append(f"fewer than two groups with a variance ({out['k'][c]}): no test")
        if c in gone:
            listed = "; ".join(f"{labels[i]} ({reason[i]})" for i in gone[c][:5])
            parts.append(f"{len(gone[c])} group(s) left out: {listed}{'; ...' if len(gone[c]) > 5 else ''}")
        if small[c] and out["k"][c] >= 2:
            parts.append(f"{small[c]} group(s) with fewer than {minimum[c]} positives: size not checked there"
                         + (f" (a chi-square test across {out['k'][c]} groups)" if minimum[c] > MIN_POSITIVES_CHECKED
                            else ""))
        notes.append("; ".join(parts) or None)
    table = pl.DataFrame({
        "method": [result_kind["method"]] * n_cells,
        "scale": [result_kind["scale"]] * n_cells,
        "statistic": out["statistic"],
        "df": pl.Series([None if np.isnan(d) else int(d) for d in out["df"]], dtype=pl.Int64),
        "df2": pl.Series([None if np.isnan(d) else float(d) for d in out["df2"]], dtype=pl.Float64),
        "p_value": out["p_value"],
        "i_squared": out["i_squared"],
        "pooled": back(out["pooled"]),
        "k": out["k"],
        "n_left_out": left_out,
        "note": pl.Series(notes, dtype=pl.String),
    })
    if split:
        table = pl.concat([distinct.drop("__cell"), table], how="horizontal")
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(used, 1.0 / variance, np.nan)
    groups = rows.with_columns(
        pl.Series("variance", np.asarray(variance, dtype=np.float64)),
        pl.Series("weight", weight),
        pl.Series("used", used.astype(bool)),
        pl.Series("reason", reason.tolist(), dtype=pl.String),
    )
    tested_small = int(small[out["k"] >= 2].sum())
    if tested_small:  # the size is only known from these positives per group up (docs/heterogeneity.md)
        below = int(minimum[small > 0].max())
        warnings.warn(f"{result_kind['kind']} test with {tested_small} group(s) below {below} "
                      "positives: its size was not checked there and may exceed its level; see the `note` column",
                      SmallSampleWarning, stacklevel=4)
    if left_out.sum():
        warnings.warn(f"{int(left_out.sum())} group(s) left out of the {result_kind['kind']} test (no usable "
                      "variance); see the `note` column and `.groups_frame()`", DegenerateGroupWarning,
                      stacklevel=4)
    return table, groups


# =================================================================== heterogeneity
def heterogeneity(result: Any, method: str | None = None, *, scale: str | None = None, across: Any = None,
                  **options: Any) -> HeterogeneityResult:
    """Test that the area is the same in every subgroup of a grouped AUROC or AUCPR result.

    Parameters
    ----------
    result : AurocResult or AucprResult
        Grouped (``by=``); with several scores or estimators, one test each.
    method : {"delong", "logit", "bootstrap"} (AUROC) or {"jackknife", "logit", "bootstrap"} (AUCPR), optional
        Where the variances come from. Default: ``"delong"`` (AUROC),
        ``"jackknife"`` (AUCPR: the jackknife of the logit, pooled per
        positive, F reference). ``"logit"`` and ``"bootstrap"``: the standard
        error of that ``conf_int`` method (the binomial SE of Boyd et al.'s
        logit interval; the stratified bootstrap's), chi-square reference.
    scale : {"natural", "logit"}, optional
        The scale of the test; by default natural for AUROC with DeLong or
        bootstrap variances, logit for the ``"logit"`` method and for AUCPR.
        On the logit scale the variance is carried by the delta method:
        :math:`v = SE^2/(\\hat\\theta(1-\\hat\\theta))^2`.
    across : str or list of str, optional
        The grouping columns compared (default: all of ``by``); the other
        ``by`` columns split the tests (one per level).
    **options
        For ``method="bootstrap"``: ``n_boot``, ``seed``, ``chunk_size``,
        ``progress``, as for ``result.conf_int``. For ``method="jackknife"``:
        ``pooled`` (default True; False: each group's own variance and
        Welch's F), ``max_units`` (a class with more distinct scores is
        removed in that many random groups, default 200) and ``seed`` (of
        those groups, default 0: the same numbers on every call).

    Returns
    -------
    HeterogeneityResult

    Raises
    ------
    InputError
        An ungrouped result, an unknown method, scale or ``across`` column.
    """
    metric = result.metric
    across, split = across_iv(across, tuple(result.by))
    sites = site_values(result, method, scale, options)
    method, scale = sites.method, sites.scale
    info = {"kind": "heterogeneity", "method": method, "scale": scale,
            "labels": describe_keys(result.keys, across, sites.group.tolist())}
    table, groups = assemble_test(info, sites.rows, [*split, "estimator"], sites.theta, sites.variance,
                                  sites.reason, sites.n_pos, expit if scale == "logit" else (lambda x: x),
                                  nu=sites.nu, pooled=sites.pooled)
    if metric == "aucpr" and getattr(result, "stated_prevalence", None) is None:
        # AUCPR moves with prevalence: a test across groups of different prevalence mixes both differences
        cell, distinct = _cells(sites.rows, [*split, "estimator"])
        added = prevalence_notes(cell, distinct.height, sites.n_pos, result.n_neg[sites.group])
        table = table.with_columns(pl.Series("note", [_joined(a, b) for a, b in zip(table["note"].to_list(), added)],
                                             dtype=pl.String))
    what = "" if not isinstance(result.score, str) else f"of {result.score}"
    return HeterogeneityResult(table=table, groups=groups, kind="heterogeneity", metric=metric, method=method,
                               scale=scale, across=tuple(across), frame_kind=result.frame_kind, what=what,
                               reference=("pooled" if sites.pooled else "welch") if method == "jackknife" else "chi2")


def _joined(first: str | None, second: str | None) -> str | None:
    return "; ".join(p for p in (first, second) if p) or None
