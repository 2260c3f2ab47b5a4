"""What the calibration studies share: the models, the simulated data sets, the table cells and the page's end.

Per row ``x ~ N(0, 1)``, the true risk ``expit(a0 + 1.2 x)`` with ``a0`` for
the prevalence, and a model's prediction ``expit(c + d x)``: ``calibrated``
(``c = a0, d = 1.2``), ``overfitted`` (``d = 1.2 / 0.7``, ``c`` for the right
mean risk) or ``underfitted`` (``d = 1.2 / 1.3``, ``c = a0 + 0.4``). The true
calibration curve is then logistic in ``logit p``: slope ``1.2 / d``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import polars as pl

#: The slope of the true risk on x.
B0 = 1.2


def expit(v):
    return 1 / (1 + np.exp(-v))


def intercept_for_mean(target: float, slope: float) -> float:
    """The intercept ``a`` with ``E[expit(a + slope x)] = target`` (x standard normal; Gauss-Hermite, bisection)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(150)
    weights = weights / weights.sum()
    lo, hi = -30.0, 30.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.sum(weights * expit(mid + slope * nodes)) < target else (lo, mid)
    return 0.5 * (lo + hi)


def model(name: str, prevalence: float) -> tuple[float, float, float]:
    """``(a0, c, d)`` of a model at a prevalence (module docstring)."""
    a0 = intercept_for_mean(prevalence, B0)
    if name == "calibrated":
        return a0, a0, B0
    if name == "underfitted":
        return a0, a0 + 0.4, B0 / 1.3
    return a0, intercept_for_mean(prevalence, B0 / 0.7), B0 / 0.7


def data_sets(rng: np.random.Generator, a0: float, c: float, d: float, n: int, reps: int) -> pl.DataFrame:
    """``reps`` data sets of ``n`` rows in one frame: ``rep``, the outcome ``y`` and the prediction ``p``."""
    x = rng.standard_normal(reps * n)
    y = (rng.random(x.size) < expit(a0 + B0 * x)).astype(np.int8)
    return pl.DataFrame({"rep": np.repeat(np.arange(reps), n), "y": y, "p": expit(c + d * x)})


def coverage_text(coverage: float, count: int) -> str:
    """``"95.1 (0.7)"``: a coverage in % with its Monte Carlo SE, bold below 93%."""
    se = np.sqrt(max(coverage * (1 - coverage), 0.0) / max(count, 1))
    text = f"{100 * coverage:.1f} ({100 * se:.1f})"
    return f"**{text}**" if coverage < 0.93 else text


def covered(frame: pl.DataFrame, statistic: str, truth: float) -> tuple[float, int]:
    """The share of a statistic's finite intervals that hold ``truth``, and their number."""
    rows = frame.filter(pl.col("estimator") == statistic)
    lower, upper = rows["lower"].to_numpy(), rows["upper"].to_numpy()
    ok = np.isfinite(lower) & np.isfinite(upper)
    return (float(np.mean((lower[ok] <= truth) & (truth <= upper[ok]))) if ok.any() else float("nan")), int(ok.sum())


def rejections(table: pl.DataFrame, statistics) -> dict:
    """Per statistic, the share of finite p-values below 0.05 and their number."""
    out = {}
    for name in statistics:
        p_values = table.filter(pl.col("estimator") == name)["p_value"].to_numpy()
        p_values = p_values[np.isfinite(p_values)]
        out[name] = (float(np.mean(p_values < 0.05)), p_values.size)
    return out


def finish(lines: list[str], started: float, out: Path) -> None:
    """The page's last line (the wall time), written to ``out``."""
    lines += ["", f"Wall time {(time.perf_counter() - started) / 60:.1f} min."]
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")
