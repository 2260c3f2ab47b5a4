"""Where a results page was made: the machine, its thread settings, the package versions and the commit.

Shared by the coverage scripts' pages (``machine()`` and ``commit()`` in their headers).
"""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]
THREAD_VARIABLES = ("AUCPR_STATS_THREADS", "OPENBLAS_NUM_THREADS", "POLARS_MAX_THREADS")


def machine() -> str:
    """The CPU model, its cores, the thread settings, the OS and the versions of Python, numpy and polars."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    threads = ", ".join(f"{n}={os.environ.get(n)}" for n in THREAD_VARIABLES)
    return (f"{cpu}, {os.cpu_count()} cores ({threads}), {platform.system()} {platform.release()}; Python "
            f"{platform.python_version()}, numpy {np.__version__}, polars {pl.__version__}")


def commit() -> str:
    """The short commit of the checkout, with "+ uncommitted changes" when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"
    return head + (" + uncommitted changes" if dirty else "")
