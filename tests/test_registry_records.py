"""The registry records are the one source of what an estimator or an interval method can do.

Each fact a record states is checked against what the package then does:
an estimator the record calls summable is computed by an engine's partial
sums (and one it does not is refused there); an interval method that needs
no rows serves a result of partial sums; a partial area's record is built
from a typed window and travels with the result, never parsed from its label.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

duckdb = pytest.importorskip("duckdb")

import functools

from aucpr_stats import aucpr, auroc, calibration, compare, net_benefit
from aucpr_stats.estimators import ESTIMATORS, PR_ESTIMATORS, TIES
from aucpr_stats.estimators.partial import partial_iv
from aucpr_stats.estimators.registry import records
from aucpr_stats.exceptions import InputError, TieTableTooLarge
from aucpr_stats.ingest import sql_input
from aucpr_stats.intervals import INTERVAL_METHODS
from tests.backend_cases import cohort


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _statistic(verb, *args, estimator, **kwargs):
    return verb(*args, statistic=estimator, **kwargs)


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return cohort().select("y", "s", "site")


@pytest.fixture(scope="module")
def engine(frame):
    return sql_input(duckdb.from_arrow(frame.to_arrow()), partial_sums="always")


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("metric, name", [(m, n) for m, registry in ESTIMATORS.items() for n in registry])
def test_summable_is_what_an_engine_sums(engine, frame, metric, name, ties):
    verb = {"aucpr": aucpr, "auroc": auroc, "calibration": calibration, "net_benefit": net_benefit}[metric]
    record = ESTIMATORS[metric][name].under(ties)
    options = {"ties": ties} if metric == "aucpr" else {}
    if metric in ("calibration", "net_benefit"):  # their statistics are named by `statistic=`
        verb = functools.partial(_statistic, verb)
    if record.summable:
        got = _quiet(lambda: verb(engine, "y", "s", by="site", estimator=name, **options))
        want = _quiet(lambda: verb(frame, "y", "s", by="site", estimator=name, **options))
        assert got.ties.stored_sums
        np.testing.assert_allclose(got.estimates, want.estimates, rtol=1e-12, atol=1e-12)
    else:
        with pytest.raises(InputError, match="partial_sums='always'"):
            _quiet(lambda: verb(engine, "y", "s", by="site", estimator=name, **options))


def test_a_stated_prevalence_or_a_partial_area_is_not_summable():
    window = partial_iv("aucpr", recall=(0.2, 0.8))
    for record in records("aucpr", list(PR_ESTIMATORS), prevalence=0.1):
        assert not record.summable and record.partial is None
    partial = records("aucpr", ["average_precision", "lower_trapezoid"], window=window)
    assert [r.summable for r in partial] == [False, False]
    assert [r.window for r in partial] == [window, window]


def test_needs_rows_is_what_a_result_of_sums_serves(engine):
    for verb, metric in ((aucpr, "aucpr"), (auroc, "auroc")):
        result = _quiet(lambda: verb(engine, "y", "s", by="site",
                                     **({"estimator": "average_precision"} if metric == "aucpr" else {})))
        for name, method in INTERVAL_METHODS[metric].items():
            if "rows" not in method.designs or (method.serves and not method.serves(result.records[0])):
                continue
            if method.needs_rows:
                with pytest.raises(TieTableTooLarge, match=f"method {name!r} needs the rows"):
                    result.conf_int(method=name)
            else:
                ci = _quiet(lambda: result.conf_int(method=name))
                both = result.ties.has_both_classes()  # a site without negatives has no interval
                assert ci.height == result.n_groups and np.isfinite(ci["lower"].to_numpy()[both]).all()


def test_the_published_twin_says_which_convention_it_follows():
    for name, record in PR_ESTIMATORS.items():
        assert record.ties == "interpolate"
        twin = record.under("published")
        assert twin.ties == ("published" if record.published is not None else "interpolate")
        assert (twin.summable, twin.partial) == (record.summable, record.partial)  # the facts are the estimator's


def test_a_partial_area_record_is_built_from_the_window_and_kept(frame):
    result = aucpr(frame, "y", "s", estimator=["average_precision", "upper_trapezoid"], recall=(0.5, 1),
                   standardized=True, ties="published")
    ap, upper = result.estimator_records()
    assert ap.name == "average_precision, recall 0.5-1, standardized" and ap.window.standardized
    assert ap.ties == "published" and ap.window.focus == "recall"
    # the record is the same object every interval call uses: nothing rebuilds it from the label
    assert _quiet(lambda: result.conf_int(n_boot=30, seed=1)).height == 2
    assert result.estimator_records()[0] is ap
    # the comparison builds its records from the window too
    compared = _quiet(lambda: compare(frame.with_columns(s2=pl.col("s") * 0.5 + 1), "y", ["s", "s2"],
                                      metric="aucpr", estimator="average_precision", recall=(0.5, 1), n_boot=30,
                                      seed=1))
    assert compared.to_frame()["estimator"].to_list() == ["average_precision, recall 0.5-1"]


def test_a_result_refuses_records_of_other_estimators(frame):
    import attrs

    result = aucpr(frame, "y", "s", estimator="average_precision")
    with pytest.raises(InputError, match="`records` must be the records of the estimators"):
        attrs.evolve(result, records=records("aucpr", ["lower_trapezoid"]))
