r"""The decomposable statistics finished from an engine's partial sums, exactly.

Four statistics are each a sum over a group's tie rows (descending score) of
a function of the row's counts ``p, n`` and the running totals ``TP, FP``
down to it (inclusive), with ``P, N`` the class totals; an engine adds the
sums up (``aucpr_stats.ingest.sums``) and these functions finish them:

* **average precision** (Boyd, Eng & Page 2013, Eq. 9) and the **lower
  trapezoid** (Eq. 3): the engine's floating-point sums, divided by ``P``;
* **A'** (Radcliffe 2013, Eq. 3): :math:`U/(2PN)` with the integer
  :math:`U = \sum p\,u`, :math:`u = 2(N - FP) + n` (twice a positive's
  midrank placement times ``N``);
* **DeLong's components** (DeLong et al. 1988): with :math:`Q = \sum p\,u^2`
  and, for the negatives, :math:`v = 2(TP - p) + p`, :math:`R = \sum n\,v^2`,

  .. math:: (P-1)\,S_{10} = \frac{PQ - U^2}{4N^2P}, \qquad
            (N-1)\,S_{01} = \frac{NR - U^2}{4P^2N}.

``U``, ``Q`` and ``R`` are integers beyond 64 bits (``Q`` and ``R`` reach
about ``4 P N^2``); they arrive as Python integers and are finished in
Python's integers, with one rounding at the end.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["statistics_from_sums"]


def _exact_ratio(numerator: Sequence[int], denominator: Sequence[int]) -> np.ndarray:
    """Correctly rounded quotients of Python integers (NaN where the denominator is 0)."""
    return np.array([num / den if den else np.nan for num, den in zip(numerator, denominator)], dtype=np.float64)


def statistics_from_sums(n_pos: Sequence[int], n_neg: Sequence[int], u: Sequence[int], q: Sequence[int],
                         r: Sequence[int], ap_sum: np.ndarray, lt_sum: np.ndarray) -> dict[str, np.ndarray]:
    """Per group: ``average_precision``, ``lower_trapezoid``, ``a_prime``, ``delong_s10``, ``delong_s01``, ``se``.

    NaN for groups without both classes; ``delong_s10`` (``delong_s01``) NaN
    below two positives (negatives). ``se`` is DeLong's standard error of A'.
    """
    a_prime = _exact_ratio(u, [2 * p * n for p, n in zip(n_pos, n_neg)])
    s10 = _exact_ratio([p * qq - uu * uu for p, qq, uu in zip(n_pos, q, u)],
                       [4 * n * n * p * (p - 1) if p > 1 else 0 for p, n in zip(n_pos, n_neg)])
    s01 = _exact_ratio([n * rr - uu * uu for n, rr, uu in zip(n_neg, r, u)],
                       [4 * p * p * n * (n - 1) if n > 1 else 0 for p, n in zip(n_pos, n_neg)])
    pos, neg = np.array(n_pos, dtype=np.float64), np.array(n_neg, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(s10 / pos + s01 / neg)
        ap = np.asarray(ap_sum, dtype=np.float64) / pos
        lt = np.asarray(lt_sum, dtype=np.float64) / pos
    both = (pos > 0) & (neg > 0)

    def nan_outside(values: np.ndarray) -> np.ndarray:
        return np.where(both, values, np.nan)

    return {"average_precision": nan_outside(ap), "lower_trapezoid": nan_outside(lt),
            "a_prime": nan_outside(a_prime), "delong_s10": nan_outside(s10), "delong_s01": nan_outside(s01),
            "se": nan_outside(se)}
