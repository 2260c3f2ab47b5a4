"""Write data/gbsg2_risk.csv: the GBSG2 breast-cancer trial with out-of-fold Cox model risk scores.

Run from the repository root (needs scikit-survival, a test extra, for its
bundled copy of the data; statsmodels fits the Cox models):

    python data/make_gbsg2_risk.py

Each patient is scored by a proportional-hazards model fitted on the other
four fifths of the patients (5 folds, seed 19940101), so no one is scored by
a model that saw them: the scores behave as a new cohort's would.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sksurv.datasets import load_gbsg2
from statsmodels.duration.hazard_regression import PHReg

SEED = 19940101
FOLDS = 5


def _design(x: pd.DataFrame) -> np.ndarray:
    """Age, tumour size, log(1 + positive nodes), receptors (log), grade, hormone therapy, menopausal status."""
    grade = x["tgrade"].astype(str)
    return np.column_stack([
        x["age"], x["tsize"], np.log1p(x["pnodes"]), np.log1p(x["progrec"]), np.log1p(x["estrec"]),
        (grade == "II").astype(float), (grade == "III").astype(float),
        (x["horTh"].astype(str) == "yes").astype(float), (x["menostat"].astype(str) == "Post").astype(float),
    ]).astype(float)


def main() -> None:
    x, y = load_gbsg2()
    time = y["time"].astype(float)
    event = y["cens"].astype(int)  # scikit-survival's "cens" is True for an event (recurrence or death)
    design = _design(x)
    fold = np.random.default_rng(SEED).permutation(np.arange(len(x)) % FOLDS)
    risk = np.empty(len(x))
    for k in range(FOLDS):
        train, test = fold != k, fold == k
        fit = PHReg(time[train], design[train], status=event[train], ties="efron").fit()
        risk[test] = design[test] @ fit.params
    out = pd.DataFrame({
        "patient": np.arange(1, len(x) + 1),
        "years": np.round(time / 365.25, 4),
        "recurrence": event,
        "cox_risk": np.round(risk, 6),
        "positive_nodes": x["pnodes"].astype(int).to_numpy(),
        "hormone_therapy": x["horTh"].astype(str).to_numpy(),
        "menopause": np.where(x["menostat"].astype(str) == "Post", "post", "pre"),
        "grade": x["tgrade"].astype(str).to_numpy(),
        "age": x["age"].astype(int).to_numpy(),
    })
    path = Path(__file__).with_name("gbsg2_risk.csv")
    out.to_csv(path, index=False)
    print(f"wrote {path} ({len(out)} rows, {int(event.sum())} events)")


if __name__ == "__main__":
    main()
