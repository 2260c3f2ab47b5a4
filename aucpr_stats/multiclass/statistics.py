r"""The reported rows of a multiclass result: per-class or per-pair areas and their averages, as weights on areas.

Every reported statistic except the micro average is a weighted sum of
binary areas (:class:`~aucpr_stats.tables.multiclass.Areas`) of its group
and model, ``stat_r = sum_a C[g, r, a] * area_a``:

* **one-vs-rest** (``"ovr"``): class ``k``'s row is the area of column
  ``k`` separating class ``k`` from every other class; ``macro`` is their
  mean, ``weighted`` their mean weighted by the classes' shares of the rows
  (of the weight, with ``weights=``), as scikit-learn's
  ``roc_auc_score(multi_class="ovr", average=...)`` and
  ``average_precision_score``;
* **pairs** (``"ovo"``, ``"hand_till"``): the row of classes ``j`` and
  ``k`` is :math:`\hat A(j, k) = \{\hat A(j|k) + \hat A(k|j)\}/2`, with
  :math:`\hat A(j|k)` the area of column ``j`` separating class ``j`` (cases)
  from class ``k`` (controls) on their rows only; ``macro`` is their mean,
  Hand & Till's (2001, Eq. 7) :math:`M = \frac{2}{K(K-1)} \sum_{j<k}
  \hat A(j, k)`; ``weighted`` weights each pair by the share of the rows in
  its two classes (scikit-learn's ``multi_class="ovo", average="weighted"``).

The **micro** average (one-vs-rest only) is not a sum of areas: it is the
binary area of the ``n K`` cells (each row's score for each class against
the indicator of that class), :func:`~aucpr_stats.tables.multiclass.micro_cells`.

References
----------
Hand, D. J., Till, R. J. (2001). A simple generalisation of the area under
the ROC curve for multiple class classification problems. Machine Learning
45, 171-186.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..tables.multiclass import Areas
from .spec import level_text

__all__ = ["Layout", "layout_of"]


@attrs.frozen(eq=False)
class Layout:
    """The reported rows of every group and model.

    Attributes
    ----------
    labels : tuple of str
        The ``class`` column of each reported row: a level, ``"a vs b"``, or an average's name.
    kind : tuple of str
        ``"area"`` (one class or one pair) or ``"average"``, per row.
    areas : Areas
    coefficients : ndarray of float64, shape (n_groups, n_rows - micro, n_areas)
        The weights of the areas in each row that is a sum of areas.
    micro : bool
        Whether the last row is the micro average.
    first, second : ndarray of int64, shape (n_rows,)
        The classes a row compares (its class and -1 for the rest; the pair), -1 for averages.
    """

    labels: tuple[str, ...]
    kind: tuple[str, ...]
    areas: Areas
    coefficients: np.ndarray
    micro: bool
    first: np.ndarray
    second: np.ndarray

    @property
    def n_rows(self) -> int:
        return len(self.labels)

    def combine(self, area_values: np.ndarray, group: int | None = None) -> np.ndarray:
        """Reported values from area values: NaN where a used area is NaN, and for the micro row.

        ``area_values`` of shape (n_groups, ..., n_areas), or of one ``group`` (..., n_areas);
        returns the same leading shape with ``n_rows`` in place of ``n_areas``.
        """
        if group is None:
            c = self.coefficients.reshape(self.coefficients.shape[0], *([1] * (area_values.ndim - 2)),
                                          *self.coefficients.shape[1:])
        else:
            c = self.coefficients[group]
        values = area_values[..., None, :]
        used = c != 0
        total = np.where(used, np.nan_to_num(values) * c, 0.0).sum(axis=-1)
        total[(used & np.isnan(values)).any(axis=-1)] = np.nan
        if self.micro:
            total = np.concatenate([total, np.full(total.shape[:-1] + (1,), np.nan)], axis=-1)
        return total

    def class_values(self, area_values: np.ndarray) -> np.ndarray:
        r"""Each class's value in the weighted average: its own area (one-vs-rest), or the mean of its pairs.

        The weighted average is :math:`\sum_c \pi_c b_c` with :math:`\pi_c` the class shares, so a row of
        class ``c`` moves it by :math:`(b_c - \text{average}) / W` per unit of weight (delong.py).
        ``area_values`` (n_groups, n_models, n_areas); returns (n_groups, n_models, n_levels).
        """
        if np.all(self.areas.negative < 0):  # one-vs-rest: the class's own area
            return area_values.copy()
        k = int(self.areas.column.max()) + 1
        pair_value = np.full(area_values.shape[:2] + (k, k), np.nan)
        pair_value[..., self.areas.positive, self.areas.negative] = area_values
        symmetric = (pair_value + np.swapaxes(pair_value, -1, -2)) / 2
        off = ~np.eye(k, dtype=bool)
        return np.where(off, symmetric, 0.0).sum(axis=-1) / (k - 1)


def layout_of(scheme: str, averages: tuple[str, ...], levels: tuple, class_weights: np.ndarray) -> Layout:
    """The reported rows of a scheme and its averages, for groups with ``class_weights`` (n_groups, K)."""
    k = len(levels)
    n_groups = class_weights.shape[0]
    total = class_weights.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, class_weights / total, np.nan)
    texts = [level_text(v) for v in levels]
    if scheme == "ovr":
        areas = Areas.one_vs_rest(k)
        labels, first, second = list(texts), list(range(k)), [-1] * k
        rows = [np.broadcast_to(np.eye(k), (n_groups, k, k))]
        averages_rows = {"macro": np.full((n_groups, 1, k), 1.0 / k), "weighted": share[:, None, :]}
    else:
        areas = Areas.ordered_pairs(k)
        pairs = [(j, m) for j in range(k) for m in range(j + 1, k)]
        labels = [f"{texts[j]} vs {texts[m]}" for j, m in pairs]
        first, second = [j for j, _ in pairs], [m for _, m in pairs]
        index = {(int(p), int(q)): a for a, (p, q) in enumerate(zip(areas.positive, areas.negative))}
        pair_rows = np.zeros((len(pairs), len(areas)))
        for r, (j, m) in enumerate(pairs):
            pair_rows[r, index[j, m]] = pair_rows[r, index[m, j]] = 0.5
        rows = [np.broadcast_to(pair_rows, (n_groups, *pair_rows.shape))]
        pair_share = np.stack([share[:, j] + share[:, m] for j, m in pairs], axis=1)  # (G, pairs)
        pair_share = pair_share / pair_share.sum(axis=1, keepdims=True)
        averages_rows = {"macro": np.full((n_groups, 1, len(pairs)), 1.0 / len(pairs)) @ pair_rows,
                         "weighted": pair_share[:, None, :] @ pair_rows}
    kind = ["area"] * len(labels)
    for name in averages:
        if name == "micro":
            continue
        rows.append(averages_rows[name])
        labels.append(name)
        kind.append("average")
        first.append(-1)
        second.append(-1)
    micro = "micro" in averages
    if micro:
        labels.append("micro")
        kind.append("average")
        first.append(-1)
        second.append(-1)
    coefficients = np.ascontiguousarray(np.concatenate(rows, axis=1))
    return Layout(tuple(labels), tuple(kind), areas, coefficients, micro, np.array(first), np.array(second))
