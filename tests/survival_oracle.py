"""An independent, slow implementation of the censoring-weighted areas, from the formulas: for tests only.

Every quantity is computed from scratch for each call, with plain loops and
no code of the library: the reverse Kaplan-Meier estimate of the censoring
(events first at tied times: they are not at risk of being censored then), the case weights 1/G(T_i-) and control weights
1/G(t), all case-control pairs for AUC(t), and the precision above each case
for AP(t) (a tie block crossed at its bottom: the ``ties="published"`` rule).
The infinitesimal jackknife (each row's weight nudged by a relative ``eps``,
the censoring fit redone) gives every row's influence term numerically.
With ``linearisation="nelson_aalen"`` (the representation of Blanche et al.
2013 and riskRegression) the weights move with the Nelson-Aalen cumulative
censoring hazard, 1/G -> exp(Lambda_eps - Lambda_0)/G_KM, whose derivative
is the hazard's influence function; ``"kaplan_meier"`` differentiates the
Kaplan-Meier product itself. They differ by terms of order dLambda(u).
"""

from __future__ import annotations

import numpy as np


def censoring_km(t, d, w, strata=None, base=None):
    """G(s) (or G(s-) with ``before=True``) for each row's stratum: a function (s, stratum, before).

    With ``base`` (the unperturbed weights), G is the base Kaplan-Meier fit times
    exp(-(Lambda(w) - Lambda(base))) with Lambda the Nelson-Aalen cumulative hazard.
    """
    strata = np.zeros(t.size, dtype=int) if strata is None else np.asarray(strata)
    fits = {}
    for s in np.unique(strata):
        keep = strata == s
        times = np.unique(t[keep])
        surv, g, shift = [], 1.0, 0.0
        for u in times:
            at_risk = w[keep & ((t > u) | ((t == u) & (d == 0)))].sum()  # events at u come first
            censored = w[keep & (t == u) & (d == 0)].sum()
            if base is None:
                g *= (1.0 - censored / at_risk) if at_risk > 0 else 1.0
                surv.append(g)
                continue
            at_risk0 = base[keep & ((t > u) | ((t == u) & (d == 0)))].sum()
            censored0 = base[keep & (t == u) & (d == 0)].sum()
            g *= (1.0 - censored0 / at_risk0) if at_risk0 > 0 else 1.0
            shift += (censored / at_risk if at_risk > 0 else 0.0) - (censored0 / at_risk0 if at_risk0 > 0 else 0.0)
            surv.append(g * np.exp(-shift))
        fits[s] = (times, np.array(surv))

    def G(s, stratum=0, before=False):
        times, surv = fits[stratum]
        k = np.searchsorted(times, s, side="left" if before else "right") - 1
        return 1.0 if k < 0 else float(surv[k])

    return G, strata


def area(t, d, m, w, horizon, metric="auroc", strata=None, base=None):
    """AUC(t) or AP(t) (published tie rule) by brute force (``base``: see :func:`censoring_km`)."""
    G, strata = censoring_km(t, d, w, strata, base)
    case = (t <= horizon) & (d == 1) & (w > 0)
    control = (t > horizon) & (w > 0)
    wc = np.array([w[i] / G(t[i], strata[i], before=True) for i in np.flatnonzero(case)])
    wn = np.array([w[j] / G(horizon, strata[j]) for j in np.flatnonzero(control)])
    mc, mn = m[case], m[control]
    if wc.size == 0 or wn.size == 0:
        return np.nan
    if metric == "auroc":
        total = 0.0
        for i in range(mc.size):
            for j in range(mn.size):
                total += wc[i] * wn[j] * (1.0 if mc[i] > mn[j] else 0.5 if mc[i] == mn[j] else 0.0)
        return total / (wc.sum() * wn.sum())
    precision = [wc[mc >= s].sum() / (wc[mc >= s].sum() + wn[mn >= s].sum()) for s in mc]
    return float(np.dot(wc, precision) / wc.sum())


def jackknife_terms(t, d, m, w, horizon, metric="auroc", strata=None, eps=1e-6, linearisation="nelson_aalen"):
    """Each row's influence term by the infinitesimal jackknife (central differences in its weight)."""
    base = w if linearisation == "nelson_aalen" else None
    terms = np.empty(t.size)
    for i in range(t.size):
        up, down = w.copy(), w.copy()
        up[i] += eps * w[i]
        down[i] -= eps * w[i]
        terms[i] = (area(t, d, m, up, horizon, metric, strata, base)
                    - area(t, d, m, down, horizon, metric, strata, base)) / (2 * eps)
    return terms
