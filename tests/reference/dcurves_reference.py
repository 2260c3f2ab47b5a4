"""Reference decision curves from the Python package dcurves, for tests/test_net_benefit_reference.py.

Regenerate (from the repository root, with a Python environment that has dcurves installed; it
cannot live in the main environment because dcurves pins pandas < 3):

    /work/dcvenv/bin/python tests/reference/dcurves_reference.py

The script builds its data sets deterministically with numpy (``default_rng(20261201)``), writes
each to ``tests/reference/dcurves_data_<name>.csv``, reads the CSV back (so the reference is
computed from exactly the values the tests will read) and runs ``dcurves.dca`` on it. The results go
to ``tests/reference/dcurves_reference.json``: per case the arguments (outcome, models, thresholds,
harm per model, stated prevalence, grouping and weight columns) and per group and model dcurves'
``net_benefit`` and ``net_intervention_avoided`` (``nper=100``: per 100 patients), plus the
``net_benefit`` of dcurves' "all" and "none" strategies. Numbers are written with ``repr`` (Python's
shortest round-trip representation), so they are the exact doubles dcurves returned.

Data sets
---------
ties
    500 rows, outcome ``y`` (0/1, prevalence about 0.35), two models ``m1`` (stronger) and ``m2``
    (weaker) whose risks are rounded to 2 decimals, so they coincide with thresholds of the
    1%-grid and tie across classes; 12 rows of each model are set to exactly 0 and 12 to exactly 1
    (events and non-events among both). Also ``site`` (groups "A", "B", "C"), ``w`` (non-integer
    weights for the tests' oracle, unused here) and ``k`` (integer weights 1-3).
low_prevalence
    3,000 rows of a logistic model with prevalence about 5%: ``risk`` (the true model's risk, rounded
    to 6 decimals) and ``marker_risk`` (a model with a misspecified, weaker predictor).

Cases (data set, dcurves arguments)
-----------------------------------
ties                ties, thresholds 0.01, ..., 0.99 (the doubles nearest the decimals, which are
                    the doubles of the rounded risks, so ``risk >= threshold`` ties are exercised).
low_prevalence      low_prevalence, thresholds ``np.arange(0.01, 1.00, 0.01)`` as it comes (some of
                    them are a few ulps off the decimals).
ties_harm           ties, ``harm={"m1": 0.01, "m2": 0.05}``.
ties_case_control   ties, ``prevalence=0.2`` (the sample is read as a case-control sample).
ties_by_site        ties, dcurves run on each ``site`` subset separately.
ties_weighted       ties, dcurves run on the rows repeated ``k`` times (integer case weights).

dcurves treats a patient when the risk is at least the threshold (``>=``); the "all" strategy is a
model with risk 1 for everyone, "none" one with risk 0. Its harm applies only to the models named in
the dict ("all" and "none" carry no harm).
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import dcurves
import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
JSON_PATH = HERE / "dcurves_reference.json"
SEED = 20261201

#: Thresholds 0.01, ..., 0.99 as the doubles nearest the decimals (equal to ``round(p, 2)`` risks).
DECIMAL_GRID = [i / 100 for i in range(1, 100)]
#: dcurves' customary grid without 0, exactly as numpy produces it.
ARANGE_GRID = [float(t) for t in np.arange(0.01, 1.00, 0.01)]


def expit(x: np.ndarray) -> np.ndarray:
    """The logistic function."""
    return 1.0 / (1.0 + np.exp(-x))


def make_ties(rng: np.random.Generator, n: int = 500) -> pd.DataFrame:
    """The ``ties`` data set: two models with risks on the 2-decimal grid, exact 0s and 1s, sites, weights."""
    x = rng.normal(size=n)
    z = rng.normal(size=n)
    y = (rng.random(n) < expit(-0.8 + 1.2 * x + 0.4 * z)).astype(int)
    m1 = np.round(expit(-0.8 + 1.1 * x + 0.3 * z + rng.normal(scale=0.3, size=n)), 2)
    m2 = np.round(expit(-0.7 + 0.6 * x + rng.normal(scale=0.6, size=n)), 2)
    # Exact 0 and 1 risks, among events and non-events alike.
    for m in (m1, m2):
        idx = rng.choice(n, size=24, replace=False)
        m[idx[:12]] = 0.0
        m[idx[12:]] = 1.0
    y[:2] = (1, 0)  # both classes are certainly present
    site = rng.choice(np.array(["A", "B", "C"]), size=n, p=[0.5, 0.3, 0.2])
    w = np.round(rng.uniform(0.25, 3.0, size=n), 3)
    k = rng.integers(1, 4, size=n)
    return pd.DataFrame({"y": y, "m1": m1, "m2": m2, "site": site, "w": w, "k": k})


def make_low_prevalence(rng: np.random.Generator, n: int = 3000) -> pd.DataFrame:
    """The ``low_prevalence`` data set: a logistic model with an event rate of about 5%."""
    x1 = rng.normal(size=n)
    x2 = rng.binomial(1, 0.3, size=n)
    risk = expit(-3.6 + 1.0 * x1 + 0.7 * x2)
    y = (rng.random(n) < risk).astype(int)
    marker_risk = expit(-3.1 + 0.5 * np.abs(x1 + 0.5))
    return pd.DataFrame({"y": y, "risk": np.round(risk, 6), "marker_risk": np.round(marker_risk, 6)})


def write_and_reload(frame: pd.DataFrame, name: str) -> tuple[str, pd.DataFrame]:
    """Write ``frame`` to ``dcurves_data_<name>.csv`` and read it back (the exact values the tests read)."""
    file_name = f"dcurves_data_{name}.csv"
    frame.to_csv(HERE / file_name, index=False)  # floats as repr: the shortest round-trip text
    reloaded = pd.read_csv(HERE / file_name, dtype={"site": str}, float_precision="round_trip")
    return file_name, reloaded


def floats(values) -> list[float]:
    """Plain Python floats (dumped with ``repr``); non-finite values are refused."""
    out = [float(v) for v in values]
    if not all(np.isfinite(out)):
        raise ValueError("dcurves returned a non-finite value")
    return out


def run_dca(frame: pd.DataFrame, models: list[str], thresholds: list[float],
            harm: dict | None = None, prevalence: float | None = None) -> dict:
    """dcurves' decision curves of ``models`` (and of "all" and "none") on ``frame``, as lists per threshold."""
    data = frame.assign(y=frame["y"].astype(bool))  # dcurves selects the events with isin([True])
    result = dcurves.dca(data=data, outcome="y", modelnames=list(models), thresholds=thresholds,
                         harm=harm, prevalence=prevalence, nper=100)
    curves: dict = {"n": len(data), "prevalence": float(result["prevalence"].iloc[0]), "models": {}}
    for model in list(models) + ["all", "none"]:
        rows = result[result["model"] == model]
        if rows["threshold"].tolist() != list(thresholds):
            raise AssertionError(f"dcurves changed the thresholds of {model!r}")
        entry = {"net_benefit": floats(rows["net_benefit"]),
                 "net_intervention_avoided": floats(rows["net_intervention_avoided"])}
        if model in ("all", "none"):
            curves[model] = {"net_benefit": entry["net_benefit"]}
        else:
            curves["models"][model] = entry
    return curves


def case(data_file: str, models: list[str], thresholds: list[float], curves: list[dict], *,
         harm: dict | None = None, prevalence: float | None = None, by: str | None = None,
         integer_weights: str | None = None) -> dict:
    """One case of the JSON: the arguments and dcurves' curves per group (``group`` is None without ``by``)."""
    return {"data": data_file, "outcome": "y", "models": list(models), "thresholds": list(thresholds),
            "harm": harm, "prevalence": prevalence, "by": by, "integer_weights": integer_weights,
            "curves": curves}


def main() -> None:
    rng = np.random.default_rng(SEED)
    ties_file, ties = write_and_reload(make_ties(rng), "ties")
    low_file, low = write_and_reload(make_low_prevalence(rng), "low_prevalence")

    models = ["m1", "m2"]
    harm = {"m1": 0.01, "m2": 0.05}
    cases = {
        "ties": case(ties_file, models, DECIMAL_GRID,
                     [{"group": None, **run_dca(ties, models, DECIMAL_GRID)}]),
        "low_prevalence": case(low_file, ["risk", "marker_risk"], ARANGE_GRID,
                               [{"group": None, **run_dca(low, ["risk", "marker_risk"], ARANGE_GRID)}]),
        "ties_harm": case(ties_file, models, DECIMAL_GRID,
                          [{"group": None, **run_dca(ties, models, DECIMAL_GRID, harm=harm)}], harm=harm),
        "ties_case_control": case(ties_file, models, DECIMAL_GRID,
                                  [{"group": None, **run_dca(ties, models, DECIMAL_GRID, prevalence=0.2)}],
                                  prevalence=0.2),
        "ties_by_site": case(ties_file, models, DECIMAL_GRID,
                             [{"group": site, **run_dca(ties[ties["site"] == site].reset_index(drop=True),
                                                        models, DECIMAL_GRID)}
                              for site in sorted(ties["site"].unique())], by="site"),
        "ties_weighted": case(ties_file, models, DECIMAL_GRID,
                              [{"group": None, **run_dca(ties.loc[ties.index.repeat(ties["k"])]
                                                         .reset_index(drop=True), models, DECIMAL_GRID)}],
                              integer_weights="k"),
    }
    reference = {
        "generator": "tests/reference/dcurves_reference.py",
        "dcurves_version": getattr(dcurves, "__version__", None) or _distribution_version("dcurves"),
        "pandas_version": pd.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "seed": SEED,
        "nper": 100,
        "cases": cases,
    }
    JSON_PATH.write_text(dump_json(reference) + "\n")
    sizes = {p.name: p.stat().st_size for p in sorted(HERE.glob("dcurves_*")) if p.suffix in (".csv", ".json")}
    print(f"dcurves {reference['dcurves_version']}, pandas {pd.__version__}, numpy {np.__version__}", file=sys.stderr)
    for name, size in sizes.items():
        print(f"  {name}: {size / 1024:.1f} KB", file=sys.stderr)
    print(f"  prevalence: ties {ties['y'].mean():.3f}, low_prevalence {low['y'].mean():.4f}", file=sys.stderr)


def dump_json(value, indent: int = 0) -> str:
    """JSON with one key per line but every list of numbers on one line (``repr`` of each float)."""
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(key)}: {dump_json(item, indent + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}" if items else "{}"
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        items = [inner + dump_json(item, indent + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, allow_nan=False)


def _distribution_version(name: str) -> str:
    """The installed version of distribution ``name``."""
    from importlib.metadata import version
    return version(name)


if __name__ == "__main__":
    main()
