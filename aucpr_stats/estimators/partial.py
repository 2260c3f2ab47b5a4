r"""Partial areas: the ROC curve over a range of specificity or sensitivity, the PR curve over a range of recall.

**Partial AUROC** (McClish 1989; the conventions of R's pROC). The empirical
ROC curve joins the points of every threshold between distinct scores by
straight lines, so a tie block holding both classes is crossed by the straight
segment a random order of its rows follows on average (as
:mod:`.tie_blocks` crosses it in PR space). Over specificities
:math:`[s_1, s_2]` the partial area is

.. math:: \mathrm{pAUC} = \int_{s_1}^{s_2} \mathrm{Se}(\mathrm{Sp})\, d\mathrm{Sp}
          = \int_{1-s_2}^{1-s_1} \mathrm{TPR}(f)\, df,

and over sensitivities :math:`[e_1, e_2]` it is
:math:`\int_{e_1}^{e_2} \mathrm{Sp}(\mathrm{Se})\, d\mathrm{Se}`. Each is the
exact integral of the piecewise-linear curve: each straight piece is clipped
to the window and its trapezoid taken, which is what pROC's ``auc(roc,
partial.auc=, partial.auc.focus=)`` computes by interpolating the curve at the
bounds. Vertical pieces (equal abscissae) add nothing.

McClish's standardisation (McClish 1989, Eq. 6; pROC's
``partial.auc.correct=TRUE``) maps the area between the diagonal's and the
perfect test's to [1/2, 1]:

.. math:: \mathrm{pAUC}_{std} = \frac12\Big(1 + \frac{\mathrm{pAUC} - \min}{\max - \min}\Big),
          \qquad \min = \frac{(s_2 - s_1)(2 - s_1 - s_2)}{2},\ \max = s_2 - s_1,

the same with :math:`e_1, e_2` for the sensitivity focus. It is undefined
(NaN, pROC's ``NA``) when the curve's partial area is below the diagonal's,
``pAUC < min`` (beyond floating-point rounding).

**Partial AUCPR** is in :mod:`.partial_pr`. This module also holds what both
share: :class:`PartialRange`, the typed window that ``partial_iv`` checks and
from which :func:`~.registry.records` builds the record of a partial area (the
base record's ``partial`` form over the window, with the window on the
record); its label (``"a_prime, specificity 0.8-1"``) is the record's name
and is shown as the estimator's name in frames and tables, never parsed back.

References
----------
McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical Decision
Making 9, 190-195.
Robin, X. et al. (2011). pROC: an open-source package for R and S+ to analyze
and compare ROC curves. BMC Bioinformatics 12, 77.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from .._validate import flag_iv, shown
from ..exceptions import InputError, InputTypeError
from ..ties import TieTable
from .pr_points import pr_point_counts
from .tie_blocks import DEFAULT_TIES

__all__ = [
    "FOCUS",
    "PartialRange",
    "clipped_linear_area",
    "is_partial",
    "mcclish",
    "partial_iv",
    "roc_partial_area",
    "roc_window_area",
]

#: The axis of each metric's partial range: AUROC over specificity or sensitivity, AUCPR over recall.
FOCUS = {"auroc": ("specificity", "sensitivity"), "aucpr": ("recall",)}


def _number(x: float) -> str:
    """The shortest text that reads back as the same float (``1.0`` -> ``"1"``)."""
    text = repr(float(x))
    return text.removesuffix(".0")


@attrs.frozen
class PartialRange:
    """The window of a partial area.

    Attributes
    ----------
    focus : {"specificity", "sensitivity", "recall"}
    lo, hi : float
        ``0 <= lo < hi <= 1``.
    standardized : bool
        AUROC: McClish's standardisation; AUCPR: divided by the width
        ``hi - lo`` (the mean precision over the window).
    """

    focus: str
    lo: float
    hi: float
    standardized: bool = False

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def label(self, name: str) -> str:
        """The estimator name of the partial area: ``"a_prime, specificity 0.8-1, standardized"``."""
        tail = ", standardized" if self.standardized else ""
        return f"{name}, {self.focus} {_number(self.lo)}-{_number(self.hi)}{tail}"

    def as_dict(self) -> dict:
        return {"focus": self.focus, "lo": self.lo, "hi": self.hi, "standardized": self.standardized}

    def attainable(self) -> tuple[float, float]:
        """The values the partial area can take, which bound its intervals.

        A curve is at most 1 over the window, so the raw area lies in
        ``[0, hi - lo]``; the mean precision over a recall window in [0, 1];
        McClish's standardised area in [1/2, 1] (it is NaN below the
        diagonal's area, McClish 1989, Eq. 6).
        """
        if not self.standardized:
            return 0.0, self.width
        return (0.5, 1.0) if self.focus != "recall" else (0.0, 1.0)


def _bounds_iv(value: Any, argument: str) -> tuple[float, float]:
    """A pair of numbers in [0, 1], in either order, not equal."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise InputTypeError(f"`{argument}` must be a pair (lo, hi) of numbers in [0, 1]; got {shown(value)}")
    out = []
    for x in value:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
            raise InputTypeError(f"`{argument}` must be a pair (lo, hi) of numbers in [0, 1]; got {shown(value)}")
        x = float(x)
        if not 0.0 <= x <= 1.0:  # NaN fails too
            raise InputError(f"`{argument}` bounds must lie in [0, 1]; got {shown(value)}")
        out.append(x)
    lo, hi = sorted(out)
    if lo == hi:
        raise InputError(f"`{argument}` must span a range (lo < hi); got {shown(value)}")
    return lo, hi


def partial_iv(metric: str, *, specificity: Any = None, sensitivity: Any = None, recall: Any = None,
               standardized: Any = False) -> PartialRange | None:
    """Check the partial-area arguments of ``auroc``/``aucpr``/``compare``: a :class:`PartialRange` or None."""
    standardized = flag_iv(standardized, "standardized")
    given = {name: value for name, value in (("specificity", specificity), ("sensitivity", sensitivity),
                                            ("recall", recall)) if value is not None}
    allowed = FOCUS[metric]
    wrong = sorted(set(given) - set(allowed))
    if wrong:
        raise InputError(f"`{wrong[0]}` does not apply to {metric}: its partial area is over "
                         f"{' or '.join(f'`{a}`' for a in allowed)}")
    if len(given) > 1:
        raise InputError(f"give one partial range, `specificity` or `sensitivity`; got both {given}")
    if not given:
        if standardized:
            raise InputError(f"`standardized=True` applies to a partial area: give "
                             f"{' or '.join(f'`{a}=(lo, hi)`' for a in allowed)}")
        return None
    (focus, value), = given.items()
    lo, hi = _bounds_iv(value, focus)
    return PartialRange(focus, lo, hi, standardized)


# ------------------------------------------------------------------ ROC kernels
def clipped_linear_area(x: np.ndarray, y: np.ndarray, offsets: np.ndarray, a: float, b: float) -> np.ndarray:
    r"""Per segment, :math:`\int_a^b y(x)\,dx` of the curve joining the points ``(x, y)`` by straight lines.

    ``x`` is non-decreasing within each segment (CSR ``offsets``) and spans
    ``[a, b]``; every piece is clipped to ``[a, b]`` and its trapezoid
    taken, so the result is exact for the piecewise-linear curve. Pieces of
    zero width (vertical jumps) add nothing.
    """
    n_seg = offsets.size - 1
    if x.size < 2:
        return np.zeros(n_seg)
    same = np.ones(x.size - 1, dtype=bool)  # consecutive points of one segment
    ends = offsets[1:-1] - 1
    same[ends[(ends >= 0) & (ends < same.size)]] = False
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    left, right = np.maximum(x0, a), np.minimum(x1, b)
    width = right - left
    use = same & (width > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (y1 - y0) / (x1 - x0)  # finite where width > 0 (then x1 > x0)
        area = width * (y0 + slope * ((left - x0) + (right - x0)) / 2.0)
    segment = np.repeat(np.arange(n_seg), np.diff(offsets))[:-1]
    return np.bincount(segment[use], weights=area[use], minlength=n_seg)


def roc_partial_area(ties: TieTable, focus: str, lo: float, hi: float) -> np.ndarray:
    r"""Partial area under the empirical ROC curve of each segment (see the module docstring).

    Parameters
    ----------
    ties : TieTable
        Segments with both classes (others give NaN). Rows with zero counts do
        not change the result.
    focus : {"specificity", "sensitivity"}
    lo, hi : float
        The window, ``0 <= lo < hi <= 1``.

    Returns
    -------
    ndarray of float64, shape (n_segments,)
        The unstandardised partial area, in ``[0, hi - lo]``.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 1, 0], neg=[0, 1, 1], offsets=[0, 3])
    >>> float(roc_partial_area(t, "specificity", 0.0, 1.0)[0])  # the full area, A'
    0.875
    >>> float(roc_partial_area(t, "specificity", 0.5, 1.0)[0])  # TPR from 1/2 to 1 over FPR in [0, 1/2]
    0.375
    """
    tp, fp, offsets = pr_point_counts(ties)
    lengths = np.diff(offsets)
    n_pos = np.repeat(ties.n_pos, lengths).astype(np.float64)
    n_neg = np.repeat(ties.n_neg, lengths).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr, fpr = tp / n_pos, fp / n_neg
    if focus == "specificity":  # integral of Se over Sp in [lo, hi] = of TPR over FPR in [1 - hi, 1 - lo]
        out = clipped_linear_area(fpr, tpr, offsets, 1.0 - hi, 1.0 - lo)
    else:  # integral of Sp = 1 - FPR over Se = TPR in [lo, hi]
        with np.errstate(invalid="ignore", divide="ignore"):
            out = clipped_linear_area(tpr, (n_neg - fp) / n_neg, offsets, lo, hi)
    out[~ties.has_both_classes()] = np.nan
    return out


#: Relative tolerance of "below the diagonal" in :func:`mcclish` (floating-point rounding of the area).
_ROUNDING = 1e-12


def mcclish(area: np.ndarray, lo: float, hi: float) -> np.ndarray:
    r"""McClish's standardised partial area (pROC's ``partial.auc.correct=TRUE``); NaN below the diagonal.

    NaN where ``area < min`` by more than rounding (``1e-12 * max``), as pROC's
    ``NA`` (pROC compares without tolerance, so on the diagonal itself, a
    constant score, its answer depends on the last bit; here it is 1/2).

    .. math:: \frac12\Big(1 + \frac{A - \min}{\max - \min}\Big), \quad
              \min = \frac{(hi - lo)(2 - hi - lo)}{2}, \quad \max = hi - lo

    Examples
    --------
    >>> # over specificity 0.8-1 the diagonal's area is 0.02 and the perfect test's 0.2: halfway gives 3/4
    >>> round(float(mcclish(0.11, 0.8, 1.0)[0]), 12)
    0.75
    """
    area = np.atleast_1d(np.asarray(area, dtype=np.float64))
    low = (hi - lo) * (2.0 - hi - lo) / 2.0  # under the diagonal Se = 1 - Sp
    high = hi - lo  # under the perfect test
    with np.errstate(invalid="ignore"):
        out = (1.0 + (area - low) / (high - low)) / 2.0
        # below the diagonal by more than rounding: on the diagonal itself (a constant score) the
        # computed area may fall an ulp either side of `low`, and pROC gives 1/2 there
        return np.where(area < low - _ROUNDING * high, np.nan, out)


# ------------------------------------------------------------------ the records' forms
def roc_window_area(ties: TieTable, window: PartialRange, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    """The partial AUROC over ``window``, McClish-standardised when ``window.standardized``: A''s partial form.

    The ROC curve's straight pieces already cross a tie block as a random
    order of its rows would, so ``tie_blocks`` changes nothing (it is taken
    for the common signature of the records' ``partial`` forms).
    """
    area = roc_partial_area(ties, window.focus, window.lo, window.hi)
    return mcclish(area, window.lo, window.hi) if window.standardized else area


def is_partial(record: Any) -> bool:
    """Whether a registry record is that of a partial area (it carries its window)."""
    return getattr(record, "window", None) is not None
