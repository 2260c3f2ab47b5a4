"""Every script in tutorials/ runs to completion (at reduced size) in CI.

Convention: a tutorial is ``tutorials/NN_name.py``; with the environment
variable ``AUCPR_STATS_QUICK=1`` it uses a reduced size, and it writes any
figure or table into the folder named by ``AUCPR_STATS_OUTPUT`` (default
``tutorials/output``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = sorted((Path(__file__).resolve().parents[1] / "tutorials").glob("[0-9]*.py"))


@pytest.mark.parametrize("script", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs(script, tmp_path):
    env = dict(os.environ, AUCPR_STATS_QUICK="1", AUCPR_STATS_OUTPUT=str(tmp_path), MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          cwd=script.parents[1], timeout=600)
    assert proc.returncode == 0, f"{script.name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
