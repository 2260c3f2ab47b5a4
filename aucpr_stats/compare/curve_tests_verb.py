r"""``compare_curves()``: are two ROC curves the same, or one point on them?

An AUC comparison asks whether two areas are equal; two curves that cross
can have one area and still differ where it matters. This verb offers the
two other tests of pROC's ``roc.test``, for two scores on the same rows
(paired) or one score in two independent samples (``between=``):

* ``test="venkatraman"``: the permutation test of the equality of the
  whole curves (Venkatraman & Begg 1996, paired; Venkatraman 2000,
  unpaired), kernels in :mod:`.curve_tests`;
* ``test="sensitivity"`` (at specificity ``at``) and ``test="specificity"``
  (at sensitivity ``at``): the difference of one coordinate read off each
  curve, its stratified bootstrap standard error, the z test and the
  percentile interval of the difference.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _validate
from ..distributions import normal_cdf
from ..exceptions import DegenerateGroupWarning, InputError, SmallSampleWarning
from ..front_door import open_data
from ..intervals import percentile_interval
from ..progress import progress_bar, progress_iv
from ..report.display import FramedResult
from ..resample import Streams
from .curve_tests import (
    POINT_TESTS,
    bootstrap_points,
    first_order,
    permutation_p_value,
    point_cells,
    venkatraman_paired_permutations,
    venkatraman_paired_statistic,
    venkatraman_unpaired_permutations,
    venkatraman_unpaired_statistic,
)
from .statistics import UNSEEDED_COMPARISON

__all__ = ["CURVE_TESTS", "CurveComparison", "compare_curves"]

#: The tests of :func:`compare_curves`, the first the default.
CURVE_TESTS = ("venkatraman", "sensitivity", "specificity")

#: The fewest cases and controls a sample needs for a test.
MIN_PER_CLASS = 2

#: The fewest cases (and controls) per sample the size study validated (benchmarks/curve_tests_size_results.md:
#: 100 rows at prevalence 0.4); fewer get a note and a SmallSampleWarning (unpaired: the two samples' mean).
MIN_VALIDATED = 40


@attrs.frozen(eq=False)
class CurveComparison(FramedResult):
    """Tests of two ROC curves: one row per group (``.to_frame()``), see :func:`compare_curves`."""

    @property
    def p_value(self) -> Any:
        """The p-value: a float for one row, else an array (one per row)."""
        return self._column("p_value")

    @property
    def statistic(self) -> Any:
        """The statistic (Venkatraman's E, or the z of a point test): a float for one row, else an array."""
        return self._column("statistic")

    def _column(self, name: str) -> Any:
        values = self.frame[name].cast(pl.Float64).fill_null(np.nan).to_numpy()
        return float(values[0]) if values.size == 1 else values


def _curve_iv(test, at, level, n_boot, rng, seed, progress):
    test = _validate.choice_iv(test, "test", CURVE_TESTS)
    if test == "venkatraman":
        if at is not None:
            raise InputError(f"`at` applies to test='sensitivity' or 'specificity' (the point read off each curve); "
                             f"test='venkatraman' compares whole curves: got at={at!r}")
    elif at is None:
        other = POINT_TESTS[test]
        raise InputError(f"test={test!r} compares the {test} at a fixed {other}: give that {other} as `at` "
                         f"(e.g. at=0.9)")
    else:
        at = _validate.number_iv(at, "at", low=0.0, high=1.0, what="strictly between 0 and 1")
    return (test, at, _validate.level_iv(level), _validate.n_boot_iv(n_boot), _validate.rng_iv(rng, seed),
            progress_iv(progress))


def _group_rows(group: np.ndarray, n_groups: int) -> list[np.ndarray]:
    """Every group's rows, each in data order."""
    order = np.argsort(group, kind="stable")
    return np.split(order, np.cumsum(np.bincount(group, minlength=n_groups))[:-1])


def _ranks(tie_row: np.ndarray):
    """The order of ascending score (ties in row order) and the 0-based rank of every row: pROC's "first" ranks."""
    order = first_order(-tie_row)  # tie rows descend with the score
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return order, rank


def _with_keys(keys: pl.DataFrame, constants: dict, n: int) -> pl.DataFrame:
    """The key columns (``n`` rows, one per test) followed by columns holding one value each."""
    columns = pl.DataFrame({name: [value] * n for name, value in constants.items()})
    return pl.concat([keys, columns], how="horizontal") if keys.width else columns


def _too_small(positive: np.ndarray) -> str | None:
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos < MIN_PER_CLASS or n_neg < MIN_PER_CLASS:
        return f"{n_pos} cases and {n_neg} controls: a test of two curves needs >= {MIN_PER_CLASS} of each"
    return None


def _point_columns(estimates, replicates, level) -> dict:
    """Difference, bootstrap SE, z, p-value and percentile interval of ``a - b`` (pROC's D = diff / sd)."""
    difference = estimates[0] - estimates[1]
    diffs = replicates[0] - replicates[1]
    se = float(np.std(diffs, ddof=1))
    lower, upper = percentile_interval(diffs, level)
    note = None
    if se > 0:
        statistic = difference / se
        p_value = float(2.0 * normal_cdf(-abs(statistic)))
    elif difference == 0:  # no variation and no difference (pROC's rule): nothing against the null
        statistic, p_value = 0.0, 1.0
    else:
        statistic = p_value = float("nan")
        note = "the bootstrap replicates of the difference do not vary: no test"
    return {"statistic": float(statistic), "p_value": p_value, "estimate_a": float(estimates[0]),
            "estimate_b": float(estimates[1]), "difference": float(difference), "se": se, "lower": float(lower),
            "upper": float(upper)}, note


def _paired_rows(ingested, test, at, level, n_boot, seed, progress) -> tuple[pl.DataFrame, list, list]:
    paired, keys, spec = ingested.paired, ingested.keys, ingested.spec
    by = list(spec.by)
    n_groups = keys.height
    streams = Streams.for_keys(seed, keys, by, f"curve_tests_{test}")
    rows_of = _group_rows(paired.group, n_groups)
    out, small = [], []
    with progress_bar(n_groups * n_boot, f"{test} test", progress) as bar:
        for g in range(n_groups):
            rows = rows_of[g]
            positive = paired.positive[rows]
            record = {"n_pos": int(positive.sum()), "n_neg": int((~positive).sum()),
                      "note": ingested.notes[g] if g < len(ingested.notes) else None}
            reason = _too_small(positive)
            if reason is not None:
                record["note"] = reason
                small.append(g)
                out.append(record)
                bar.update(n_boot)
                continue
            tie_a, tie_b = paired.rows[0][rows], paired.rows[1][rows]
            if test == "venkatraman":
                order_a, rank_a = _ranks(tie_a)
                order_b, rank_b = _ranks(tie_b)
                observed = float(venkatraman_paired_statistic(positive[order_a], positive[order_b]))
                permuted = venkatraman_paired_permutations(rank_a, rank_b, positive, n_boot, streams[g], bar.update)
                record.update(statistic=observed, p_value=permutation_p_value(observed, permuted))
            else:
                cell_rows, is_pos, count = point_cells([tie_a, tie_b], positive)
                estimates, replicates = bootstrap_points(cell_rows, is_pos, count, test, at, n_boot, streams[g],
                                                         bar.update)
                columns, note = _point_columns(estimates, replicates, level)
                record.update(columns)
                record["note"] = note or record["note"]
            out.append(record)
    head = _with_keys(keys.select(by), {"score_a": spec.scores[0], "score_b": spec.scores[1]}, len(out))
    return head, out, [keys.select(by)[g].row(0) if by else () for g in small]


def _level_pairs(ingested, between: str):
    """Per ``by`` cell: the segments of the two levels of ``between`` (None where a cell lacks one)."""
    keys, spec = ingested.keys, ingested.spec
    by = list(spec.by)
    levels = keys[between].unique().sort(nulls_last=True).to_list()
    if len(levels) != 2:
        raise InputError(f"`between` column {between!r} must have exactly two levels (two independent samples); "
                         f"got {len(levels)}: {levels[:20]}"
                         + ("; rows with a missing value form a level of their own: drop them first"
                            if None in levels else ""))
    indexed = keys.with_row_index("__seg")
    side = [indexed.filter(pl.col(between) == level if level is not None else pl.col(between).is_null())
            .select(*by, pl.col("__seg").alias(f"__seg_{s}")) for s, level in zip("ab", levels)]
    if by:
        pairs = side[0].join(side[1], on=by, how="full", coalesce=True, nulls_equal=True).sort(by, nulls_last=True)
    else:
        pairs = pl.concat(side, how="horizontal")
    return levels, pairs


def _unpaired_rows(ingested, between, test, at, level, n_boot, seed, progress) -> tuple[pl.DataFrame, list, list]:
    paired, keys, spec = ingested.paired, ingested.keys, ingested.spec
    by = list(spec.by)
    levels, pairs = _level_pairs(ingested, between)
    # the permutations mix the two samples: one stream per pair; each sample's bootstrap: its own stream
    streams = (Streams.for_keys(seed, pairs, by, "curve_tests_venkatraman_unpaired") if test == "venkatraman"
               else Streams.for_keys(seed, keys, list(ingested.key_columns), f"curve_tests_{test}_unpaired"))
    rows_of = _group_rows(paired.group, keys.height)
    tie_row = paired.rows[0]
    out, small = [], []
    with progress_bar(pairs.height * n_boot, f"unpaired {test} test", progress) as bar:
        for k, (seg_a, seg_b) in enumerate(zip(pairs["__seg_a"].to_list(), pairs["__seg_b"].to_list())):
            segs = (seg_a, seg_b)
            positives = [paired.positive[rows_of[s]] if s is not None else np.zeros(0, bool) for s in segs]
            record = {"n_pos": int(sum(p.sum() for p in positives)),
                      "n_neg": int(sum((~p).sum() for p in positives)), "note": None}
            reasons = [f"{name}: {_too_small(p)}" for name, p in zip(levels, positives) if _too_small(p)]
            if reasons:
                record["note"] = "; ".join(reasons)
                small.append(k)
                out.append(record)
                bar.update(n_boot)
                continue
            ties = [tie_row[rows_of[s]] for s in segs]
            if test == "venkatraman":
                ranked = [_ranks(t) for t in ties]
                cases = [p[order] for p, (order, _) in zip(positives, ranked)]
                mp = record["n_pos"] / (record["n_pos"] + record["n_neg"])  # the pooled share of cases
                observed = float(venkatraman_unpaired_statistic(cases[0], cases[1], mp)[0])
                permuted = venkatraman_unpaired_permutations(ranked[0][1] + 1, positives[0], ranked[1][1] + 1,
                                                             positives[1], mp, n_boot, streams[k], bar.update)
                record.update(statistic=observed, p_value=permutation_p_value(observed, permuted))
            else:
                points = [bootstrap_points(*point_cells([t], p), test, at, n_boot, streams[s])
                          for t, p, s in zip(ties, positives, segs)]
                bar.update(n_boot)
                columns, note = _point_columns(np.r_[points[0][0], points[1][0]],
                                               np.concatenate([points[0][1], points[1][1]]), level)
                record.update(columns)
                record["note"] = note
            out.append(record)
    head = _with_keys(pairs.select(by), {"score": spec.scores[0], f"{between}_a": levels[0],
                                         f"{between}_b": levels[1]}, len(out))
    return head, out, [pairs.select(by)[k].row(0) if by else () for k in small]


def compare_curves(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    score: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    test: str = "venkatraman",
    at: float | None = None,
    between: str | None = None,
    n_boot: int = 2000,
    rng: Any = None,
    seed: Any = None,
    level: float = 0.95,
    positive: Any = None,
    negative: Any = None,
    missing: str = "error",
    direction: str = "higher",
    progress: bool | None = None,
) -> CurveComparison:
    r"""Test whether two ROC curves are the same, or the sensitivity (specificity) at one point of them.

    Parameters
    ----------
    data_or_formula : frame or str
        The data (pandas / polars DataFrame or LazyFrame), or a formula
        ``"y ~ s1 + s2 | site"`` with the data in ``data=``.
    outcome : str
        Binary outcome column (boolean, 0/1, or with ``positive=``).
    score : list of two str, or str
        Paired (no ``between``): the two score columns, measured on the same
        rows (compared on the rows where both are present). Unpaired: one
        score column, compared between the two levels of ``between``.
    by : str or list of str, optional
        Grouping columns: one test per group.
    test : {"venkatraman", "sensitivity", "specificity"}
        ``"venkatraman"`` (default): the permutation test of the equality of
        the whole curves, Venkatraman & Begg (1996) for paired scores, their
        Section 2 statistic :math:`E = \sum_x |e_b(x) - e_a(x)|` (the errors
        at every rank cut-off), and Venkatraman (2000) for two independent
        samples, the area between the samples' error curves over the mixture
        quantiles (:mod:`aucpr_stats.compare.curve_tests`); ``n_boot``
        permutations. ``"sensitivity"``: the sensitivity at specificity
        ``at`` (pROC's ``roc.test(method = "specificity", specificity = at)``);
        ``"specificity"``: the specificity at sensitivity ``at`` (pROC's
        ``method = "sensitivity"``); read off each empirical curve with
        straight lines between its points, the difference ``a - b`` tested
        with :math:`z = (\hat c_a - \hat c_b) / \mathrm{SD}^*` over ``n_boot``
        stratified bootstrap replicates (paired: the same rows for both
        scores; unpaired: each sample on its own).
    at : float in (0, 1)
        The fixed specificity (``test="sensitivity"``) or sensitivity
        (``test="specificity"``); refused for ``test="venkatraman"``.
    between : str, optional
        Unpaired: a column with exactly two levels, the two independent samples.
    n_boot : int
        Permutations (Venkatraman) or bootstrap replicates (2000, pROC's ``boot.n``).
    rng, seed : None, int, numpy.random.Generator or SeedSequence
        The randomness (``seed`` is the alias of ``rng``); each group draws
        from its own stream, so the same value gives the same result.
    level : float
        Confidence level of the percentile interval of the difference (point tests).
    positive, negative, missing, direction
        As in :func:`aucpr_stats.aucpr`. The scores are read in ``direction``
        (pROC's Venkatraman test takes them as given, higher meaning positive).
    progress : bool, optional
        A progress bar (:mod:`aucpr_stats.progress`).

    Returns
    -------
    CurveComparison
        ``.to_frame()`` columns: the ``by`` keys; ``score_a``, ``score_b``
        (paired) or ``score``, ``<between>_a``, ``<between>_b`` (unpaired,
        the levels in ascending order); ``test``, ``at``, ``statistic``
        (Venkatraman's E, or the z of a point test), ``p_value``; for the
        point tests ``estimate_a``, ``estimate_b``, ``difference`` (a - b),
        ``se`` (the bootstrap SD of the difference), ``lower``, ``upper``
        (its percentile interval at ``level``); ``n_pos``, ``n_neg`` (both
        samples together when unpaired), ``n_boot``, ``note``. A group with
        fewer than two cases or two controls (in either sample) gets NaN and
        a note, with a :class:`~aucpr_stats.exceptions.DegenerateGroupWarning`.

    Raises
    ------
    InputError
        ``at`` outside (0, 1), missing for a point test or given for
        Venkatraman's; not exactly two scores (paired) or one score and two
        levels of ``between`` (unpaired); and the errors of :func:`aucpr_stats.aucpr`.

    Notes
    -----
    As pROC, the ranks of a score break ties by row order (``ties.method =
    "first"``), so with tied scores E depends on the order of the rows (a
    frame in memory: its row order; an engine such as DuckDB has none, and
    tied rows come in the order of its distinct combinations); the
    permutation p-value is :math:`(1 + \#\{E^* \ge E\})/(1 + B)` where pROC
    reports :math:`\#\{E^* \ge E\}/B`. The unpaired test's mixing proportion
    is the pooled share of cases, :math:`(n_{1a} + n_{1b})/(n_a + n_b)`;
    pROC 1.18 divides by :math:`2 n_a`, which agrees when the samples have
    the same size.

    References
    ----------
    Venkatraman, E. S., Begg, C. B. (1996). Biometrika 83, 835-848.
    Venkatraman, E. S. (2000). Biometrics 56, 1134-1138.
    Robin, X., et al. (2011). pROC. BMC Bioinformatics 12, 77.

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> from aucpr_stats.compare.curve_tests_verb import compare_curves
    >>> gen = np.random.default_rng(1)
    >>> y = gen.random(300) < 0.4
    >>> df = pl.DataFrame({"y": y, "a": gen.normal(size=300) + y, "b": gen.normal(size=300) + 0.3 * y})
    >>> compare_curves(df, "y", ["a", "b"], n_boot=500, rng=1).p_value < 0.05
    True
    >>> result = compare_curves(df, "y", ["a", "b"], test="sensitivity", at=0.9, n_boot=500, rng=1)
    >>> round(result.to_frame()["difference"][0], 3) > 0
    True
    """
    test, at, level, n_boot, seed, progress = _curve_iv(test, at, level, n_boot, rng, seed, progress)
    if score is not None and not isinstance(score, str):
        names = _validate.names_iv(score, "score", allow_none=False)
        if between is None and len(names) != 2:
            raise InputError(f"`score` must name exactly two columns for a paired test of two curves; got "
                             f"{list(names)}. To compare one score between two samples, pass `between=`")
        if between is not None and len(names) != 1:
            raise InputError(f"with `between=` (two independent samples) `score` must name one column; got "
                             f"{list(names)}")
        score = list(names) if len(names) > 1 else names[0]
    _, ingested = open_data("compare", data_or_formula, data, outcome, score, by, positive=positive,
                            missing=missing, between=between, paired=True, negative=negative,
                            direction=direction, stacklevel=3)
    spec = ingested.spec
    if between is None and len(spec.scores) != 2:
        raise InputError(f"`score` must name exactly two columns for a paired test of two curves; got "
                         f"{list(spec.scores)}. To compare one score between two samples, pass `between=`")
    if between is not None and len(spec.scores) != 1:
        raise InputError(f"with `between=` (two independent samples) `score` must name one column; got "
                         f"{list(spec.scores)}")
    if between is None:
        head, records, small = _paired_rows(ingested, test, at, level, n_boot, seed, progress)
    else:
        between = ingested.key_columns[len(spec.by)]
        head, records, small = _unpaired_rows(ingested, between, test, at, level, n_boot, seed, progress)
    if small:
        shown = ", ".join(map(str, small[:5])) + (" ..." if len(small) > 5 else "")
        warnings.warn(f"{len(small)} group(s) have fewer than {MIN_PER_CLASS} cases or controls: no test, NaN "
                      f"(see the note column){': ' + shown if spec.by else ''}", DegenerateGroupWarning,
                      stacklevel=2)
    numbers = ["statistic", "p_value"] + (["estimate_a", "estimate_b", "difference", "se", "lower", "upper"]
                                          if test != "venkatraman" else [])
    notes = [r.get("note") for r in records]
    samples = 1 if between is None else 2
    unvalidated = [i for i, r in enumerate(records) if np.isfinite(r.get("p_value", np.nan))
                   and min(r["n_pos"], r["n_neg"]) < samples * MIN_VALIDATED]
    for i in unvalidated:
        extra = (f"fewer than {MIN_VALIDATED} cases or controls per sample: the test's size is not validated "
                 "there (docs/compare.md)")
        notes[i] = f"{notes[i]}; {extra}" if notes[i] else extra
    if unvalidated:
        warnings.warn(f"{len(unvalidated)} row(s) with fewer than {MIN_VALIDATED} cases or controls per sample: "
                      "the test's size is not validated there; see the `note` column", SmallSampleWarning,
                      stacklevel=2)
    if seed is None:
        notes = [(f"{n}; " if n else "") + UNSEEDED_COMPARISON if np.isfinite(r.get("p_value", np.nan)) else n
                 for n, r in zip(notes, records)]
    body = pl.DataFrame({
        "test": [test] * len(records),
        "at": pl.Series("at", [at] * len(records), dtype=pl.Float64),
        **{name: pl.Series(name, [r.get(name, np.nan) for r in records], dtype=pl.Float64) for name in numbers},
        "n_pos": pl.Series("n_pos", [r["n_pos"] for r in records], dtype=pl.Int64),
        "n_neg": pl.Series("n_neg", [r["n_neg"] for r in records], dtype=pl.Int64),
        "n_boot": pl.Series("n_boot", [n_boot] * len(records), dtype=pl.Int64),
        "note": pl.Series("note", notes, dtype=pl.String),
    })
    frame = pl.concat([head, body], how="horizontal")
    kind = "paired" if between is None else "unpaired"
    if test == "venkatraman":
        title = f"Venkatraman's test of two {kind} ROC curves ({n_boot} permutations)"
    else:
        title = (f"{test.capitalize()} at {POINT_TESTS[test]} {at:g}: {kind} stratified bootstrap test "
                 f"({n_boot} replicates), {level:.0%} percentile interval of the difference")
    return CurveComparison(frame, ingested.kind, title)
