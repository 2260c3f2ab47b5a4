"""Whether subgroups' prevalences differ: what an AUCPR heterogeneity test should say about them.

An uninformative score has an AUCPR equal to the prevalence, so subgroups of
different prevalence differ in AUCPR at equal discrimination (McDermott et
al. 2024); a heterogeneity test of AUCPR across them tests their
prevalences as much as their scores. :func:`prevalence_note` is the note
such a test carries.

References
----------
McDermott, M. B. A., Zhang, H., Hansen, L. H., Angelotti, G., Gallifant, J.
(2024). A closer look at AUROC and AUPRC under class imbalance. NeurIPS 2024.
"""

from __future__ import annotations

import numpy as np

from ..distributions import chi2_sf

__all__ = ["prevalence_note", "prevalence_notes"]


def prevalence_note(n_pos: np.ndarray, n_neg: np.ndarray, alpha: float = 0.05, subject: str = "this test") -> str | None:
    """The note of an AUCPR heterogeneity test across groups whose prevalences differ, else None.

    The prevalences "differ" when Pearson's chi-square test of equal
    proportions over the groups holding both classes rejects at ``alpha``.
    ``subject`` is what mixes the two (``"this test"``, ``"the pooled value"``).

    Examples
    --------
    >>> prevalence_note(np.array([10, 10]), np.array([90, 90])) is None
    True
    >>> print(prevalence_note(np.array([10, 40]), np.array([90, 60]))[:40])
    the groups' prevalences differ (10.0% to
    """
    both = (np.asarray(n_pos) > 0) & (np.asarray(n_neg) > 0)
    pos, neg = np.asarray(n_pos, dtype=np.float64)[both], np.asarray(n_neg, dtype=np.float64)[both]
    if pos.size < 2:
        return None
    rows = pos + neg
    overall = pos.sum() / rows.sum()
    expected_pos, expected_neg = rows * overall, rows * (1.0 - overall)
    statistic = float((((pos - expected_pos) ** 2 / expected_pos) + ((neg - expected_neg) ** 2 / expected_neg)).sum())
    p = float(chi2_sf(statistic, pos.size - 1))
    if p >= alpha:
        return None
    rates = pos / rows
    return (f"the groups' prevalences differ ({rates.min():.1%} to {rates.max():.1%}, chi-square p = {p:.2g}): "
            f"AUCPR moves with prevalence, so {subject} mixes differences in prevalence with differences in "
            "discrimination; to compare at one prevalence, estimate with aucpr(..., prevalence=p) or "
            "prevalence='overall'")


def prevalence_notes(cell: np.ndarray, n_cells: int, n_pos: np.ndarray, n_neg: np.ndarray,
                     subject: str = "this test") -> list:
    """:func:`prevalence_note` of each test (``cell`` numbers each group's test, 0 .. n_cells - 1).

    Each test reads only its own groups: a test within one level of another
    grouping column is not noted for the prevalences of the other levels.
    """
    cell = np.asarray(cell)
    return [prevalence_note(np.asarray(n_pos)[cell == c], np.asarray(n_neg)[cell == c], subject=subject)
            for c in range(n_cells)]
