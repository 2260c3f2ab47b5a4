r"""Size of the heterogeneity test of net benefit across subgroups (``net_benefit(...).heterogeneity()``).

What is measured
----------------
Per data set, ``k`` subgroups of equal size drawn from one population: ``x ~ N(0, 1)``, the true risk
``expit(a0 + 1.2 x)`` with ``a0`` giving prevalence 0.1, and the prediction equal to the true risk (a
calibrated model), so that net benefit at every threshold is the same in every subgroup and the null
holds. ``result.heterogeneity(across="site")`` (Cochran's Q on the Wald variances, chi-square with
``k - 1`` df) at thresholds 0.05, 0.1, 0.2 and 0.3; the rejection rate at the 5% level, with its Monte Carlo
SE, per (k, events per subgroup, threshold). All data sets of a cell are one frame with ``rep`` and ``site``
columns and one grouped call.

Run ``python benchmarks/net_benefit_heterogeneity_size.py`` (about a minute); writes
``benchmarks/net_benefit_heterogeneity_size_results.md``.
"""

from __future__ import annotations

import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from aucpr_stats import net_benefit

HERE = Path(__file__).resolve().parent
THRESHOLDS = (0.05, 0.1, 0.2, 0.3)
PREVALENCE = 0.1
A0 = -2.708258  # expit(A0 + 1.2 x), x ~ N(0, 1), has mean 0.1 (benchmarks/net_benefit_coverage.py)
REPS = 1000


def cell(rng: np.random.Generator, k: int, events: int) -> dict:
    """Rejection rates at each threshold over ``REPS`` data sets of ``k`` subgroups of ``events / 0.1`` rows."""
    n = int(round(events / PREVALENCE))
    size = REPS * k * n
    x = rng.standard_normal(size)
    risk = 1.0 / (1.0 + np.exp(-(A0 + 1.2 * x)))
    frame = pl.DataFrame({"rep": np.repeat(np.arange(REPS), k * n),
                          "site": np.tile(np.repeat(np.arange(k), n), REPS),
                          "y": (rng.random(size) < risk).astype(np.int8), "p": risk})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tests = net_benefit(frame, "y", "p", by=["rep", "site"], thresholds=THRESHOLDS).heterogeneity(
            across="site").to_polars()
    out = {}
    for t in THRESHOLDS:
        p = tests.filter(pl.col("estimator") == f"net_benefit@{t!r}")["p_value"].drop_nulls().to_numpy()
        rate = float(np.mean(p < 0.05))
        out[t] = (rate, float(np.sqrt(rate * (1 - rate) / p.size)), p.size)
    return out


def main() -> None:
    started = time.perf_counter()
    rng = np.random.default_rng(2032)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    rows = []
    for k in (3, 5, 10):
        for events in (20, 50, 200):
            rates = cell(rng, k, events)
            shown = " | ".join(f"{100 * r:.1f} ({100 * se:.1f})" for r, se, _ in rates.values())
            rows.append(f"| {k} | {events} | {shown} | {min(n for *_, n in rates.values())} |")
            print(rows[-1], flush=True)
    header = "| subgroups | events per subgroup | " + " | ".join(f"t={t}" for t in THRESHOLDS) + " | tests |"
    lines = [
        "# Size of the heterogeneity test of net benefit",
        "",
        f"Commit `{commit}`; `python benchmarks/net_benefit_heterogeneity_size.py`; {REPS} data sets per cell; "
        f"{time.perf_counter() - started:.0f} s. Rejection rate (%) at the 5% level when every subgroup has the "
        "same net benefit (Monte Carlo SE); Cochran's Q on the Wald variances, chi-square with k - 1 df. "
        "Prevalence 0.1, a calibrated model (the module docstring).",
        "",
        header,
        "|" + "---|" * (3 + len(THRESHOLDS)),
        *rows,
        "",
    ]
    (HERE / "net_benefit_heterogeneity_size_results.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
