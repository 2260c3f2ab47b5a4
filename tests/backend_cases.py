"""Cases run on an engine's table and on the same data as a polars frame: every result must be equal.

Shared by tests/test_duckdb_source.py and tests/test_spark_source.py. Each case
is a call of an entry point and what is read from its result (frames,
intervals with a seed); :func:`assert_same` runs it on both inputs and
compares every column exactly, and the warnings raised by the two calls.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

from aucpr_stats import aucpr, auroc, compare, pr_curve, roc_curve


def cohort(n: int = 400, seed: int = 5) -> pl.DataFrame:
    """Scores rounded to one decimal (ties across classes), three sites, one with only positives, missing values."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.round(rng.normal(size=n) + 1.2 * y, 1)
    s2 = np.round(s + rng.normal(size=n), 2)
    site = rng.choice(["a", "b", "c"], n)
    y[site == "c"] = True  # a degenerate group: no negatives
    frame = pl.DataFrame({"y": y.astype(np.int64), "s": s, "s2": s2, "site": site,
                          "sex": rng.choice(["f", "m"], n), "fold": rng.integers(0, 4, n),
                          "label": np.where(y, "case", np.where(rng.random(n) < 0.9, "control", "other")),
                          "wide": (2**53 + np.round(s * 10)).astype(np.int64)})
    return frame


def with_missing(frame: pl.DataFrame) -> pl.DataFrame:
    """NaN and null scores, a null outcome and a null key."""
    s = frame["s"].to_list()
    s[3], s[10] = float("nan"), None
    y = frame["y"].to_list()
    y[7] = None
    site = frame["site"].to_list()
    site[12] = None
    return frame.with_columns(pl.Series("s", s, dtype=pl.Float64), pl.Series("y", y, dtype=pl.Int64),
                              pl.Series("site", site, dtype=pl.String))


def _boot(result, **kw):
    return result.conf_int(method="bootstrap", n_boot=60, seed=11, **kw)


#: name -> (data maker, call of an entry point on data, frames read from the result)
CASES: dict[str, tuple[Callable, Callable[[Any], Any], Callable[[Any], list]]] = {
    "aucpr, every estimator, by site": (
        cohort, lambda d: aucpr(d, "y", "s", by="site", estimator="all"),
        lambda r: [r.to_frame(), r.conf_int(method="logit"), _boot(r)]),
    "auroc, by two keys, DeLong and bootstrap": (
        cohort, lambda d: auroc(d, "y", "s", by=["site", "sex"], estimator="all"),
        lambda r: [r.to_frame(), r.conf_int(method="delong"), _boot(r)]),
    "aucpr, several scores": (
        cohort, lambda d: aucpr(d, "y", ["s", "s2"], by="sex"),
        lambda r: [r.to_frame(), _boot(r)]),
    "aucpr, missing values dropped": (
        lambda: with_missing(cohort()), lambda d: aucpr(d, "y", "s", by="site", missing="drop"),
        lambda r: [r.to_frame(), _boot(r)]),
    "auroc, several scores, missing dropped per score": (
        lambda: with_missing(cohort()), lambda d: auroc(d, "y", ["s", "s2"], missing="drop"),
        lambda r: [r.to_frame(), r.conf_int(method="delong")]),
    "aucpr, fold column": (
        cohort, lambda d: aucpr(d, "y", "s", by="sex", fold="fold"),
        lambda r: [r.to_frame(), r.conf_int(method="cross_validation")]),
    "auroc, string outcome with positive= and negative=": (
        cohort, lambda d: auroc(d, "label", "s", positive="case", negative="control", missing="drop"),
        lambda r: [r.to_frame(), r.conf_int(method="delong")]),
    "auroc, direction lower": (
        cohort, lambda d: auroc(d, "y", "s", by="sex", direction="lower"),
        lambda r: [r.to_frame()]),
    "auroc, direction auto": (
        lambda: cohort().with_columns(neg=-pl.col("s")), lambda d: auroc(d, "y", ["s", "neg"], direction="auto"),
        lambda r: [r.to_frame()]),
    "auroc, integers beyond 2**53": (
        cohort, lambda d: auroc(d, "y", "wide", by="sex"),
        lambda r: [r.to_frame()]),
    "pr_curve": (
        cohort, lambda d: pr_curve(d, "y", "s", by="site"),
        lambda r: [r.to_frame()]),
    "roc_curve": (
        cohort, lambda d: roc_curve(d, "y", "s2"),
        lambda r: [r.to_frame()]),
    "compare, paired, DeLong and bootstrap": (
        cohort, lambda d: compare(d, "y", ["s", "s2"], by="sex", metric="auroc"),
        lambda r: [r.to_frame()]),
    "compare, paired bootstrap of AUCPR": (
        lambda: with_missing(cohort()),
        lambda d: compare(d, "y", ["s", "s2"], metric="aucpr", method="bootstrap", n_boot=60, seed=2,
                          missing="drop"),
        lambda r: [r.to_frame()]),
    "compare, between sites": (
        cohort, lambda d: compare(d, "y", ["s"], between="sex", metric="aucpr", n_boot=60, seed=4),
        lambda r: [r.to_frame()]),
}


#: Paired DeLong sums over rows: the in-memory result itself moves by ~1e-17 when the rows are permuted,
#: and an engine returns rows in its own order, so these are compared to 1e-12 (the issue's tolerance).
#: AUROC alone reads runs of negatives only through their counts, so an engine collapses them before
#: collecting: DeLong's sums then run over fewer rows and move by ~1e-17.
ROW_ORDER_SENSITIVE = {"compare, paired, DeLong and bootstrap", "auroc, several scores, missing dropped per score"}


def _run(call: Callable, data: Any, read: Callable) -> tuple[list, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frames = read(call(data))
    # the library's warnings (an engine's own deprecation notices are not the library's to compare)
    return frames, sorted(str(w.message) for w in caught if not issubclass(w.category, (DeprecationWarning,
                                                                                         FutureWarning)))


def assert_same(case: str, to_engine: Callable[[pl.DataFrame], Any], *, exact: bool | None = None,
                as_polars: Callable[[Any], pl.DataFrame] = lambda frame: frame) -> None:
    """Run ``case`` on the polars frame and on ``to_engine(frame)``: equal frames and equal warnings.

    Exactly equal unless the case sums over rows in the engine's order (or ``exact=False``: to 1e-12);
    ``as_polars`` reads a result frame of another type (a pyarrow Table) as polars.
    """
    make, call, read = CASES[case]
    frame = make()
    expected, expected_warnings = _run(call, frame, read)
    got, got_warnings = _run(call, to_engine(frame), read)
    assert got_warnings == expected_warnings
    exact = case not in ROW_ORDER_SENSITIVE if exact is None else exact
    for want, have in zip(expected, got):
        assert_frame_equal(as_polars(have), want, check_exact=exact, rel_tol=1e-12, abs_tol=0.0)
