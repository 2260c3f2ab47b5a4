"""Progress bars: drawn when forced, never with progress=False or without tqdm, and the numbers never change."""

from __future__ import annotations

import io
from pathlib import Path
import sys
import warnings

import numpy as np
import polars as pl
import pytest

from aucpr_stats import aucpr, compare, pr_curve
from aucpr_stats import progress as progress_module
from aucpr_stats.exceptions import InputTypeError, SmallSampleWarning
from aucpr_stats.progress import (
    ENV_VARIABLE,
    progress_bar,
    progress_enabled,
    progress_iv,
)


def _data(n=600, seed=4):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pl.DataFrame({"y": y, "a": rng.normal(size=n) + y, "b": rng.normal(size=n) + 0.5 * y,
                         "g": rng.choice(["p", "q", "r"], n)})


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv(ENV_VARIABLE, raising=False)


def test_rules_for_drawing(monkeypatch):
    assert progress_enabled(True) and not progress_enabled(False)
    assert not progress_enabled(None, io.StringIO())  # not a terminal
    assert progress_enabled(None, _Tty())
    monkeypatch.setenv(ENV_VARIABLE, "1")
    assert progress_enabled(None, io.StringIO()) and not progress_enabled(False)
    monkeypatch.setenv(ENV_VARIABLE, "off")
    assert not progress_enabled(None, _Tty()) and progress_enabled(True)


def test_bar_writes_when_forced_and_not_otherwise():
    out = io.StringIO()
    with progress_bar(10, "counting", True, file=out) as bar:
        bar.update(10)
    assert "counting" in out.getvalue()
    quiet = io.StringIO()
    with progress_bar(10, "counting", False, file=quiet) as bar:
        bar.update(10)
    assert quiet.getvalue() == ""
    lazy = _Tty()  # the default on a terminal waits 2 seconds before drawing
    with progress_bar(10, "counting", None, file=lazy) as bar:
        bar.update(10)
    assert lazy.getvalue() == ""


def test_without_tqdm_there_is_silently_no_bar(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm now raises ImportError
    assert not progress_enabled(True)
    out = io.StringIO()
    with progress_bar(5, "counting", True, file=out) as bar:
        bar.update(5)
    assert out.getvalue() == ""


def test_progress_argument_is_checked():
    assert progress_iv(None) is None and progress_iv(True) is True
    with pytest.raises(InputTypeError, match="`progress`"):
        progress_iv("yes")
    with pytest.raises(InputTypeError, match="`progress`"):
        aucpr(_data(), "y", "a").conf_int(method="bootstrap", n_boot=20, progress=1)


def test_bootstrap_interval_bar_and_same_numbers(capsys):
    result = aucpr(_data(), "y", "a", by="g")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        shown = result.conf_int(method="bootstrap", n_boot=50, seed=1, progress=True)
        assert "bootstrap intervals" in capsys.readouterr().err
        quiet = result.conf_int(method="bootstrap", n_boot=50, seed=1, progress=False)
        assert capsys.readouterr().err == ""
        default = result.conf_int(method="bootstrap", n_boot=50, seed=1)  # stderr is not a terminal here
        assert capsys.readouterr().err == ""
    assert shown.equals(quiet) and shown.equals(default)


def test_env_variable_forces_a_bar(monkeypatch, capsys):
    monkeypatch.setenv(ENV_VARIABLE, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        aucpr(_data(), "y", "a").conf_int(method="bootstrap", n_boot=20, seed=1)
    assert "bootstrap intervals" in capsys.readouterr().err


@pytest.mark.parametrize("between", [None, "g"])
def test_comparison_bars_and_same_numbers(capsys, between):
    score = ["a"] if between else ["a", "b"]
    by = None if between else "g"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        shown = compare(_data(), "y", score, by=by, between=between, metric="aucpr", n_boot=40, seed=3,
                        progress=True)
        assert "bootstrap" in capsys.readouterr().err
        quiet = compare(_data(), "y", score, by=by, between=between, metric="aucpr", n_boot=40, seed=3,
                        progress=False)
        assert capsys.readouterr().err == ""
    assert shown.to_polars().equals(quiet.to_polars())


def test_band_bar_and_same_numbers(capsys):
    curve = pr_curve(_data(300), "y", "a", by="g")
    shown = curve.band(method="bootstrap", n_boot=60, seed=2, grid=21, progress=True)
    assert "PR band" in capsys.readouterr().err
    quiet = curve.band(method="bootstrap", n_boot=60, seed=2, grid=21, progress=False)
    assert capsys.readouterr().err == ""
    assert shown.to_polars().equals(quiet.to_polars())


def test_heterogeneity_bootstrap_passes_progress(capsys):
    test = aucpr(_data(), "y", "a", by="g").heterogeneity("bootstrap", n_boot=30, seed=1, progress=True)
    assert "bootstrap intervals" in capsys.readouterr().err
    again = aucpr(_data(), "y", "a", by="g").heterogeneity("bootstrap", n_boot=30, seed=1, progress=False)
    assert capsys.readouterr().err == "" and again.statistic == test.statistic


def test_tqdm_is_imported_in_one_place():
    from pathlib import Path

    package = Path(progress_module.__file__).parent
    users = sorted(str(p.relative_to(package)) for p in package.rglob("*.py") if "tqdm" in p.read_text())
    assert users == ["progress.py"]


def test_a_long_loop_without_a_bar_says_how_long_it_will_take():
    import io
    import warnings

    from aucpr_stats.exceptions import LongComputationWarning
    from aucpr_stats.progress import progress_bar

    now = [0.0]
    bar = progress_bar(1000, "bootstrap intervals", None, file=io.StringIO(), clock=lambda: now[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        now[0] = 1.0
        bar.update(10)  # too early to project
        now[0] = 10.0
        bar.update(10)  # 20 of 1,000 in 10 s: 490 s to go
        now[0] = 20.0
        bar.update(10)  # said once
    said = [w for w in caught if issubclass(w.category, LongComputationWarning)]
    assert len(said) == 1 and "about 8 min more" in str(said[0].message)
    quick = progress_bar(1000, "bootstrap intervals", None, file=io.StringIO(), clock=lambda: now[0])
    silent = progress_bar(1000, "bootstrap intervals", False, file=io.StringIO(), clock=lambda: now[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        now[0] += 6.0
        quick.update(999)  # 6 s for 999 of 1,000: nothing to say
        silent.update(1)  # progress=False: never
    assert not [w for w in caught if issubclass(w.category, LongComputationWarning)]


def test_roc_band_and_multiclass_bootstrap_bars_and_same_numbers(capsys):
    from aucpr_stats import roc_curve

    curve = roc_curve(_data(300), "y", "a", by="g")
    shown = curve.band(n_boot=60, seed=2, grid=21, progress=True)
    assert "ROC band" in capsys.readouterr().err
    quiet = curve.band(n_boot=60, seed=2, grid=21, progress=False)
    assert capsys.readouterr().err == ""
    assert shown.to_polars().equals(quiet.to_polars())
    pointwise = curve.intervals(specificity=[0.8, 0.9], n_boot=40, seed=2, progress=True)
    assert "ROC band" in capsys.readouterr().err and pointwise.lower.shape[1] == 2
    wine = pl.read_csv(Path(__file__).resolve().parents[1] / "data" / "wine_oof.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        result = aucpr(wine, "cultivar", "short_{level}", multiclass="ovr", average="macro")
        shown = result.conf_int(n_boot=50, seed=4, progress=True)
        assert "multiclass bootstrap" in capsys.readouterr().err
        quiet = result.conf_int(n_boot=50, seed=4, progress=False)
    assert capsys.readouterr().err == ""
    assert shown.to_polars().equals(quiet.to_polars())


def test_simulation_loops_draw_bars_and_are_bounded(monkeypatch, capsys):
    """Planning and the simulation studies run through progress_bar (a bar, or the timing without one: tested
    above) and refuse a huge n_sim before allocating."""
    from aucpr_stats import bias_study, power
    from aucpr_stats.exceptions import InputError

    monkeypatch.setenv(progress_module.ENV_VARIABLE, "1")  # a bar even off a terminal
    bias_study("offset_uniform", n_total=[100, 200], estimators="average_precision", n_sims=40, seed=1)
    assert "bias study" in capsys.readouterr().err
    power(aucpr=0.2, n_pos=40, n_neg=360, n_sim=60, rng=1)
    assert "simulating studies of 40 positives" in capsys.readouterr().err
    with pytest.raises(InputError, match="lower `n_sim`"):
        power(aucpr=0.2, n_pos=40, n_neg=360, n_sim=10**13, rng=1)


def test_one_large_group_reports_its_progress_chunk_by_chunk():
    """A single group's replicates are drawn in chunks; each chunk moves the bar (and the time estimate)."""
    import numpy as np

    from aucpr_stats.estimators import average_precision
    from aucpr_stats.resample.counts import bootstrap_estimates
    from aucpr_stats.ties import TieTable

    rng = np.random.default_rng(3)
    n = 5000
    table = TieTable(np.arange(n, 0, -1.0), rng.integers(0, 2, n), np.ones(n, dtype=np.int64), [0, n])
    ticks: list[int] = []
    quiet = bootstrap_estimates(table, average_precision, n_boot=400, seed=2, chunk_size=50)
    counted = bootstrap_estimates(table, average_precision, n_boot=400, seed=2, chunk_size=50,
                                  on_chunk=ticks.append)
    assert len(ticks) == 8 and sum(ticks) == 400  # eight chunks of one group, each reported
    np.testing.assert_array_equal(quiet, counted)
