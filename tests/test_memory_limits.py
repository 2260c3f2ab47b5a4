"""The memory a request may take is what this process may allocate: the machine, RLIMIT_AS and the cgroup.

Issue 37, must-hold 5 (in part): a batch job or a container limits memory far below the machine's; the
bootstrap's estimate-before-allocating check (:func:`aucpr_stats.resample.budget.check_allocation`) reads
the least of the three.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aucpr_stats.resample import budget

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_an_address_space_limit_bounds_what_a_request_may_take():
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))\n"
            "from aucpr_stats.resample.budget import available_memory, check_allocation\n"
            "print(available_memory())\n"
            "try:\n    check_allocation(4 * 2**27, 'this bootstrap')\nexcept ValueError as error:\n    print(error)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    available, message = out.splitlines()
    assert 0 < int(available) < 3 * 2**30  # the limit less what the interpreter already maps
    assert "this bootstrap needs about 4.0 GiB" in message and "available" in message


def test_a_cgroup_limit_bounds_what_a_request_may_take(monkeypatch):
    files = {"/sys/fs/cgroup/memory.max": "1073741824\n", "/sys/fs/cgroup/memory.current": "268435456\n"}
    real = budget.read_number

    def fake(path, field=None, scale=1):
        if path in files:
            return int(files[path].strip()) if files[path].strip() != "max" else None
        return real(path, field, scale)

    monkeypatch.setattr(budget, "read_number", fake)
    assert budget.cgroup_memory_left() == 1073741824 - 268435456
    assert budget.available_memory() <= 1073741824 - 268435456
    with pytest.raises(ValueError, match=r"more than the 0\.8 GiB available"):
        budget.check_allocation(2**27, "a paired bootstrap")
    files["/sys/fs/cgroup/memory.max"] = "max\n"  # v2 without a limit: v1's files, then nothing
    files["/sys/fs/cgroup/memory/memory.limit_in_bytes"] = "9223372036854771712\n"
    assert budget.cgroup_memory_left() is None


def test_reading_proc_and_sys_numbers(tmp_path):
    status = tmp_path / "status"
    status.write_text("Name:\tpython\nVmSize:\t  123456 kB\nVmRSS:\t 100 kB\n")
    assert budget.read_number(str(status), field="VmSize:", scale=1024) == 123456 * 1024
    assert budget.read_number(str(tmp_path / "absent")) is None
    (tmp_path / "max").write_text("max\n")
    assert budget.read_number(str(tmp_path / "max")) is None


def test_digits_are_bounded_before_a_string_is_built():
    import polars as pl

    from aucpr_stats import aucpr
    from aucpr_stats.exceptions import InputError

    result = aucpr(pl.DataFrame({"y": [1, 0, 1, 0, 0], "s": [0.9, 0.2, 0.6, 0.7, 0.1]}), "y", "s")
    assert "0.8333" in result.summary(digits=4) and len(result.summary(digits=15)) > len(result.summary(digits=4))
    for call in (lambda: result.summary(digits=10**9), lambda: result.table(digits=16),
                 lambda: result.summary(digits=-1)):
        with pytest.raises(InputError, match="`digits`"):
            call()


def test_a_band_grid_and_simulated_data_sets_are_bounded_before_allocation():
    import polars as pl

    from aucpr_stats import pr_curve
    from aucpr_stats.exceptions import InputError
    from aucpr_stats.simulate import SCENARIOS, get_scenario

    curve = pr_curve(pl.read_csv(ROOT / "data" / "breast_cancer_oof.csv"), "malignant", "logistic")
    with pytest.raises(InputError, match=r"a band of 1,000,000,000,000 recalls x 1,000 replicates needs about"):
        curve.band(grid=10**12, n_boot=1000, rng=1)
    scenario = get_scenario(next(iter(SCENARIOS)))
    with pytest.raises(InputError, match="simulated data sets"):
        scenario.sample_arrays(10**9, 10**4, 10**4, rng=1)
    pos, neg = scenario.sample_arrays(3, 5, 7, rng=1)
    assert pos.shape == (3, 5) and neg.shape == (3, 7)


def test_folds_and_a_roc_band_are_bounded_before_allocation(monkeypatch):
    import polars as pl

    from aucpr_stats import aucpr, roc_curve
    from aucpr_stats.exceptions import InputError

    cohort = pl.read_csv(ROOT / "data" / "synthetic_cohort.csv")
    with pytest.raises(InputError, match=r"cross-validation with folds=1000000000 needs about .* GiB"):
        aucpr(cohort, "disease", "model_a", by="site").conf_int(method="cross_validation", folds=10**9, seed=1)
    monkeypatch.setattr(budget, "available_memory", lambda: 50 * 2**20)  # a 50 MiB container
    curve = roc_curve(cohort, "disease", "model_a", by="site")
    with pytest.raises(InputError, match=r"a ROC band of 4 group\(s\) x 20000 replicates x \d+ grid points needs"):
        curve.band(n_boot=20000, seed=1)
    assert curve.band(n_boot=50, seed=1).lower.shape[0] == 4  # a small one still runs
