"""Interval methods carry their options (aucpr_stats.intervals.options): keywords, method objects, rng= and seed=."""

from __future__ import annotations

import re
import warnings

import attrs
import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, auroc
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.intervals import INTERVAL_METHODS, Bootstrap, CrossValidation, MethodOptions, fold_estimates
from aucpr_stats.intervals.driver import accepted_options
from aucpr_stats.resample import DEFAULT_N_BOOT
from tests.conftest import random_scores


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(3)
    y, s = random_scores(rng, 500, prevalence=0.3)
    frame = pl.DataFrame({"y": y, "s": s, "site": rng.choice(["a", "b"], 500)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return aucpr(frame, "y", "s", by="site", estimator=["average_precision", "interpolated_median"])


def ci(result, method, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return result.conf_int(method=method, **options)


RANDOMNESS = [lambda: 7, lambda: np.random.default_rng(7), lambda: np.random.SeedSequence(7)]


@pytest.mark.parametrize("method", ["bootstrap", "cross_validation"])
@pytest.mark.parametrize("make", RANDOMNESS, ids=["int", "Generator", "SeedSequence"])
def test_rng_and_its_alias_seed_give_identical_numbers(result, method, make):
    options = {"n_boot": 50} if method == "bootstrap" else {"folds": 4}
    by_rng = ci(result, method, rng=make(), **options)
    by_seed = ci(result, method, seed=make(), **options)
    assert by_rng.equals(by_seed)
    assert not by_rng.equals(ci(result, method, rng=8, **options))


def test_a_method_object_gives_the_keywords_numbers(result):
    assert ci(result, Bootstrap(n_boot=60, rng=2)).equals(ci(result, "bootstrap", n_boot=60, seed=2))
    assert ci(result, CrossValidation(folds=5, rng=2, quantile="normal")).equals(
        ci(result, "cross_validation", folds=5, seed=2, quantile="normal"))
    # objects and names together, each method with its own options
    mixed = ci(result, ["logit", Bootstrap(n_boot=40, rng=1), "cross_validation"], folds=3, rng=5)
    assert mixed["method"].unique(maintain_order=True).to_list() == ["logit", "bootstrap", "cross_validation"]
    for method, options in (("bootstrap", {"n_boot": 40, "rng": 1}), ("cross_validation", {"folds": 3, "rng": 5})):
        alone = ci(result, method, **options)
        assert mixed.filter(pl.col("method") == method).select(alone.columns).equals(alone)


def test_a_shared_generator_is_drawn_from_once_per_call(result):
    """Two methods given one Generator by keyword share one root, as a single method would have it."""
    both = ci(result, ["bootstrap", "cross_validation"], n_boot=40, folds=3, rng=np.random.default_rng(9))
    alone = ci(result, "cross_validation", folds=3, rng=np.random.default_rng(9))
    got = both.filter(pl.col("method") == "cross_validation").select(alone.columns)
    assert got.equals(alone)


def test_randomness_errors_name_the_argument(result):
    with pytest.raises(InputTypeError, match="`rng` must be None, an integer"):
        ci(result, "bootstrap", rng="x")
    with pytest.raises(InputTypeError, match="`seed` must be None, an integer"):
        ci(result, "bootstrap", seed="x")
    with pytest.raises(InputError, match=r"give the randomness once, as `rng` \(or its alias `seed`\)"):
        ci(result, "bootstrap", rng=1, seed=1)
    with pytest.raises(InputTypeError, match="`rng` must be None"):
        Bootstrap(rng=1.5)
    with pytest.raises(InputError, match="`n_boot` must be at least 2; got 1"):
        Bootstrap(n_boot=1)
    with pytest.raises(InputError, match="`folds` must be an integer >= 2 or 'column'; got 'all'"):
        CrossValidation(folds="all")


def test_method_object_errors(result):
    with pytest.raises(InputTypeError, match=r"unexpected option \['n_boot'\] for method \['bootstrap'\].*"
                                             r"method objects carry their own options: \['bootstrap'\]"):
        ci(result, Bootstrap(n_boot=30), n_boot=10)
    with pytest.raises(InputError, match=r"`method` must name each method once; got \['bootstrap'\]"):
        ci(result, [Bootstrap(n_boot=30), "bootstrap"])
    roc = auroc(pl.DataFrame({"y": [1, 0, 1, 0, 1, 0], "s": [3.0, 1, 2, 2.5, 5, 0]}), "y", "s")
    with pytest.raises(InputError, match=r"`method` must be one of \[.*\] or a method object of one of them; "
                                         r"got CrossValidation\("):
        ci(roc, CrossValidation())
    with pytest.raises(InputError, match="fold column, which must be given when estimating"):
        ci(result, CrossValidation(folds="column"))


def test_every_option_is_documented_and_defaulted_on_its_spec():
    """A method's options class documents each of its fields, and its defaults are those of conf_int."""
    specs = {m.options for methods in INTERVAL_METHODS.values() for m in methods.values()}
    assert MethodOptions in specs and Bootstrap in specs and CrossValidation in specs
    for spec in specs:
        for field in attrs.fields(spec):
            assert re.search(rf"^\s+{field.name} :", spec.__doc__, flags=re.M), (spec, field.name)
        assert set(spec.aliases.values()) <= {f.name for f in attrs.fields(spec)}
    assert Bootstrap() == Bootstrap(n_boot=DEFAULT_N_BOOT, rng=None, chunk_size=None)
    assert CrossValidation() == CrossValidation(folds=None, rng=None, quantile="t", return_folds=False)


def test_records_say_which_methods_are_random():
    random = {(metric, name) for metric, methods in INTERVAL_METHODS.items() for name, m in methods.items()
              if m.random}
    assert random == {("aucpr", "bootstrap"), ("aucpr", "cross_validation"), ("auroc", "bootstrap"),
                      ("calibration", "bootstrap"), ("net_benefit", "bootstrap")}


def test_fold_estimates_takes_rng(result):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = fold_estimates(result, folds=3, rng=4)
        b = fold_estimates(result, folds=3, seed=4)
    assert a.equals(b) and a.height == 2 * 2 * 3


def test_accepted_options_keeps_rng_for_the_random_methods_only(result):
    assert accepted_options(result, "logit", {"rng": 1, "n_boot": 5}) == {}
    assert accepted_options(result, "bootstrap", {"rng": 1, "n_boot": 5}) == {"rng": 1, "n_boot": 5}
    assert accepted_options(result, "logit", {"sead": 1}) == {"sead": 1}  # unknown: kept, so conf_int names it
