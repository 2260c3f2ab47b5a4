"""Shared fixtures: every frame-facing test runs on pandas, polars and LazyFrame input."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import settings

# In CI (CI=true) hypothesis draws the same examples on every run, so a verdict
# never depends on the luck of one run; locally each run explores new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")

#: Scripts that write reference values with another interpreter (dcurves needs pandas 2, in its own venv):
#: not imported by the doctest collection.
collect_ignore = ["reference/dcurves_reference.py"]

FRAME_KINDS = ("pandas", "polars", "lazy")


def make_frame(columns: dict, kind: str):
    """Build the same data as a pandas DataFrame, polars DataFrame or LazyFrame."""
    if kind == "pandas":
        return pd.DataFrame(columns)
    frame = pl.DataFrame(columns)
    return frame.lazy() if kind == "lazy" else frame


def result_frame_type(kind: str):
    return pd.DataFrame if kind == "pandas" else pl.DataFrame


def as_polars(frame) -> pl.DataFrame:
    return pl.from_pandas(frame, nan_to_null=False) if isinstance(frame, pd.DataFrame) else frame


@pytest.fixture(params=FRAME_KINDS)
def frame_kind(request) -> str:
    return request.param


def random_scores(rng: np.random.Generator, n: int, prevalence: float = 0.3, ties: bool = False):
    """Outcome and score arrays with a real signal; ``ties`` rounds scores to create many ties."""
    y = rng.random(n) < prevalence
    if not y.any():
        y[0] = True
    if y.all():
        y[0] = False
    s = rng.normal(size=n) + 0.8 * y
    if ties:
        s = np.round(s, 0)
    return y, s
