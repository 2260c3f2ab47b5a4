"""The pipeline's seams: one read of the data per call, one driver for every metric, and the
registries as the only place that says what an estimator or an interval method is.

The recipes of docs/architecture.md are run here as written: a ninth estimator and a new
interval method are each added by one record, and reach every entry point.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import attrs
import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc, compare, pr_curve, roc_curve
from aucpr_stats._validate import number_iv
from aucpr_stats.estimators import PR_ESTIMATORS, Estimator, upper_trapezoid
from aucpr_stats.estimators.partial_pr import UPPER_TRAPEZOID
from aucpr_stats.exceptions import InputError, InputTypeError, SmallSampleWarning
from aucpr_stats.intervals import INTERVAL_METHODS, IntervalMethod, MethodOptions, wald_interval
from aucpr_stats.simulate import INTERVAL_METHODS as STUDY_ARMS
from aucpr_stats.simulate import bias_study, coverage_study, study_methods
from tests.conftest import as_polars, random_scores


def cohort(n: int = 600, seed: int = 2) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y, s = random_scores(rng, n, prevalence=0.3)
    return pl.DataFrame({"y": y.astype(np.int64), "s": s, "s2": s + rng.normal(size=n),
                         "site": rng.choice(["a", "b"], n), "fold": rng.integers(0, 5, n)})


# ------------------------------------------------------------ one read of the data
@pytest.fixture
def collects(monkeypatch):
    """Counts of polars collects: ``collect_all`` calls and single ``LazyFrame.collect`` calls."""
    counts = {"collect_all": 0, "collect": 0}
    collect_all, collect = pl.collect_all, pl.LazyFrame.collect

    def counting_collect_all(*args, **kwargs):
        counts["collect_all"] += 1
        return collect_all(*args, **kwargs)

    def counting_collect(self, *args, **kwargs):
        counts["collect"] += 1
        return collect(self, *args, **kwargs)

    monkeypatch.setattr(pl, "collect_all", counting_collect_all)
    monkeypatch.setattr(pl.LazyFrame, "collect", counting_collect)
    return counts


CALLS = {
    "aucpr": lambda lf: aucpr(lf, "y", "s", by="site"),
    "aucpr, several scores": lambda lf: aucpr(lf, "y", ["s", "s2"], by="site"),
    "aucpr with fold=": lambda lf: aucpr(lf, "y", "s", by="site", fold="fold"),
    "auroc": lambda lf: auroc(lf, "y", "s"),
    "pr_curve": lambda lf: pr_curve(lf, "y", "s", by="site"),
    "roc_curve": lambda lf: roc_curve(lf, "y", "s"),
    "compare, paired": lambda lf: compare(lf, "y", ["s", "s2"], by="site"),
    "compare, between": lambda lf: compare(lf, "y", ["s"], between="site"),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_every_entry_point_collects_the_data_once(call, collects):
    CALLS[call](cohort().lazy())
    assert collects == {"collect_all": 1, "collect": 0}


def test_fold_tables_merge_into_the_group_tables():
    df = cohort()
    with_folds = aucpr(df, "y", "s", by="site", fold="fold", estimator="all")
    plain = aucpr(df, "y", "s", by="site", estimator="all")
    np.testing.assert_array_equal(with_folds.estimates, plain.estimates)
    for attribute in ("score", "pos", "neg", "offsets"):
        np.testing.assert_array_equal(getattr(with_folds.ties, attribute), getattr(plain.ties, attribute))
    assert with_folds.folds.ties.n_segments == 10  # 2 sites x 5 folds
    assert with_folds.keys.equals(plain.keys)


# ------------------------------------------------ one driver for every metric
MISTAKES = [
    ({"method": "bootstrap", "n_boot": 10, "folds": 3}, InputTypeError, r"unexpected option \['folds'\]"),
    ({"method": "logit", "n_boot": 10}, InputTypeError, r"unexpected option \['n_boot'\]"),
    ({"method": "bootstrap", "n_boot": 1}, InputError, "`n_boot` must be at least 2; got 1"),
    ({"method": "bootstrap", "n_boot": 2.5}, InputTypeError, "`n_boot` must be an integer"),
    ({"method": "bootstrap", "seed": "x"}, InputTypeError, "`seed` must be None"),
    ({"method": "bootstrap", "chunk_size": 0}, InputError, "`chunk_size` must be at least 1"),
    ({"method": "nope"}, InputError, r"`method` must be one of \[.*\] or 'all'; got 'nope'"),
    ({"method": []}, InputError, "`method` must name at least one of"),
    ({"method": 3}, InputTypeError, "`method` must be one of"),
    ({"level": 1.0}, InputError, "`level` must be strictly between 0 and 1"),
]


@pytest.mark.parametrize("kwargs,error,match", MISTAKES)
@pytest.mark.parametrize("metric", ["aucpr", "auroc"])
def test_the_same_mistake_raises_the_same_error_for_every_metric(metric, kwargs, error, match):
    result = (aucpr if metric == "aucpr" else auroc)(cohort(), "y", "s")
    with pytest.raises(error, match=match):
        result.conf_int(**kwargs)


def test_one_logit_interval_for_both_metrics_at_the_boundary():
    separated = pl.DataFrame({"y": [1, 1, 1, 0, 0, 0], "s": [6.0, 5, 4, 3, 2, 1]})
    for result in (aucpr(separated, "y", "s", estimator="average_precision"), auroc(separated, "y", "s")):
        # issue 14: the boundary fallback of each metric, no longer the uninformative limit [0, 1]
        row = result.conf_int(method="logit").row(0, named=True)
        fallback = result.conf_int(method="wilson" if result.metric == "aucpr" else "newcombe").row(0, named=True)
        assert row["estimate"] == 1.0 and 0.0 < row["lower"] == fallback["lower"] < 1.0 and row["upper"] == 1.0
        assert row["note"].startswith("boundary fallback: an estimate of 1, so the ")


# --------------------------------------------------------------- the recipes
def test_a_ninth_estimator_is_one_record(monkeypatch):
    """docs/architecture.md, recipe 1: a function and a record; every entry point then knows it."""
    record = Estimator("upper_trapezoid_again", "aucpr", upper_trapezoid, reads="negative_runs",
                       partial=UPPER_TRAPEZOID, coverage_caveat=PR_ESTIMATORS["upper_trapezoid"].coverage_caveat)
    monkeypatch.setitem(PR_ESTIMATORS, record.name, record)
    df = cohort()
    result = aucpr(df, "y", "s", by="site", estimator=[record.name, "upper_trapezoid"])
    np.testing.assert_array_equal(result.estimates[:, 0], result.estimates[:, 1])
    assert result.estimator_records()[0] is record  # the result keeps the record it was estimated with
    frame = as_polars(result.conf_int(method=["logit", "bootstrap"], n_boot=100, seed=1))
    mine = frame.filter(pl.col("estimator") == record.name).drop("estimator")
    theirs = frame.filter(pl.col("estimator") == "upper_trapezoid").drop("estimator")
    assert mine.equals(theirs)  # the same replicates, the same numbers
    assert "per_positive" not in set(as_polars(result.conf_int(method="all", n_boot=20))["method"])
    compared = compare(df, "y", ["s", "s2"], metric="aucpr", estimator=record.name, n_boot=50, seed=1)
    assert compared.to_frame()["estimator"].to_list() == [record.name]
    # its partial-area form, from the record: the partial area is that of the estimator it copies
    partial = aucpr(df, "y", "s", estimator=[record.name, "upper_trapezoid"], recall=(0.2, 0.9))
    assert partial.estimators == (f"{record.name}, recall 0.2-0.9", "upper_trapezoid, recall 0.2-0.9")
    assert partial.estimates[0, 0] == partial.estimates[0, 1]
    assert partial.estimator_records()[0].window.lo == 0.2  # built from the typed window, kept on the result
    # the simulation studies read the registry too
    study = bias_study("binormal", n_total=100, estimators=[record.name, "upper_trapezoid"], n_sims=20, seed=1)
    assert study["bias_ratio"][0] == study["bias_ratio"][1]
    # a record without a partial form has no partial area
    monkeypatch.setitem(PR_ESTIMATORS, record.name, attrs.evolve(record, partial=None))
    with pytest.raises(InputError, match=r"a partial AUCPR \(`recall=`\) is defined for the estimators"):
        aucpr(df, "y", "s", estimator=record.name, recall=(0.2, 0.9))


def test_a_new_interval_method_is_one_function_and_one_record(monkeypatch):
    """docs/architecture.md, recipe 2: a compute function (with its options spec) and a record in the registry.

    The method is then served by ``conf_int`` (its options checked by its own spec, as keywords or as a
    method object), listed by ``method="all"``, flagged below its own minimum number of positives, and
    run by the coverage engine (``coverage_study``, the validation report).
    """
    @attrs.frozen(kw_only=True)
    class FixedWidth(MethodOptions):  # in the method's family module, beside its function
        """A fixed half-width: ``half_width`` in (0, 0.5)."""

        method: ClassVar[str] = "fixed"
        half_width: float = attrs.field(
            default=0.05, converter=lambda v: number_iv(v, "half_width", low=0.0, high=0.5, what="in (0, 0.5)"))

    def fixed_width(request):
        half = request.options.half_width
        lower, upper, se = wald_interval(request.result.estimates, np.full(request.shape, half / 1.959963984540054),
                                         request.level)
        return {"lower": lower, "upper": upper, "se": se}

    # one record in INTERVAL_METHODS (registry.py)
    monkeypatch.setitem(INTERVAL_METHODS["aucpr"], "fixed",
                        IntervalMethod("fixed", fixed_width, min_positives=200, options=FixedWidth, needs_rows=False))
    result = aucpr(cohort(), "y", "s", by="site")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        frame = as_polars(result.conf_int(method=["logit", "fixed"], half_width=0.1))
        listed = as_polars(result.conf_int(method="all", n_boot=20, seed=1))["method"].unique().to_list()
        as_object = as_polars(result.conf_int(method=FixedWidth(half_width=0.1)))
    fixed = frame.filter(pl.col("method") == "fixed")
    np.testing.assert_allclose(fixed["upper"] - fixed["estimate"], 0.1, rtol=1e-9)
    assert fixed.equals(as_object)
    assert "fixed" in listed
    with pytest.raises(InputError, match=r"`half_width` must be in \(0, 0.5\); got 0.7"):
        result.conf_int(method="fixed", half_width=0.7)
    with pytest.raises(InputTypeError, match=r"unexpected option \['n_boot'\]"):
        result.conf_int(method="fixed", n_boot=10)
    with pytest.raises(InputError, match="`method` must be one of"):
        auroc(cohort(), "y", "s").conf_int(method="fixed")  # registered for AUCPR only
    # its own small-sample threshold: both sites have fewer than 200 positives, so its rows (not logit's) say so
    with pytest.warns(SmallSampleWarning, match=r"fixed \(2 rows\)"):
        notes = as_polars(result.conf_int(method="fixed"))["note"].to_list()
    assert all(note.endswith("fewer than 200 positives, the fixed interval may under-cover (docs/validation.md)")
               for note in notes)
    # the coverage engine runs it: an arm of the study (and a cell of the validation report), with its options
    # checked by its spec
    assert "fixed" in STUDY_ARMS and "fixed" in study_methods("aucpr", PR_ESTIMATORS["average_precision"])
    study = coverage_study("binormal", n_total=200, estimators="average_precision", methods=["logit", "fixed"],
                           n_sims=30, seed=1, method_options={"fixed": {"half_width": 0.2}})
    row = study.filter(pl.col("method") == "fixed").row(0, named=True)
    assert row["n_valid"] == 30 and row["mean_width"] <= 0.4 + 1e-12 and row["coverage"] > 0.9
    with pytest.raises(InputError, match="`half_width`"):
        coverage_study("binormal", n_total=200, estimators="average_precision", methods="fixed", n_sims=5,
                       method_options={"fixed": {"half_width": 2}})


class Relation:
    """A stand-in for an input no library here knows: it only exports its rows as Arrow data (PyCapsule)."""

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema=None):
        return self.frame.to_arrow().__arrow_c_stream__(requested_schema)


def test_an_input_backend_needs_no_code_when_it_speaks_arrow_or_narwhals():
    """docs/architecture.md, recipe 3: what narwhals reads, or what exports Arrow data, is read as it is."""
    df = cohort()
    via_backend = aucpr(Relation(df), "y", "s", by="site", fold="fold", estimator="all")
    direct = aucpr(df, "y", "s", by="site", fold="fold", estimator="all")
    np.testing.assert_array_equal(via_backend.estimates, direct.estimates)
    assert via_backend.conf_int(method="cross_validation").equals(direct.conf_int(method="cross_validation"))
    paired = compare(Relation(df), "y", ["s", "s2"], by="site", metric="auroc")
    assert paired.to_frame().equals(compare(df, "y", ["s", "s2"], by="site", metric="auroc").to_frame())
    with pytest.raises(InputError, match="column 'nope' given as `score`"):
        aucpr(Relation(df), "y", "nope")
