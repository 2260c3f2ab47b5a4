"""Average precision (Boyd et al. Eq. 9) against scikit-learn and a brute force."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from aucpr_stats import aucpr
from aucpr_stats.ties import TieTable
from aucpr_stats.estimators import average_precision

from .conftest import as_polars, make_frame, random_scores


def brute_force_average_precision(y, s) -> float:
    """Eq. (9) literally: for each positive, precision among rows scored >= its score."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    precisions = [y[s >= s_i].mean() for s_i in s[y]]
    return float(np.mean(precisions))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_matches_sklearn_per_group(frame_kind, ties, seed):
    rng = np.random.default_rng(seed)
    n = 3000
    y, s = random_scores(rng, n, prevalence=0.2, ties=ties)
    g = rng.integers(0, 4, n)
    data = make_frame({"y": y.astype(int), "s": s, "g": g}, frame_kind)
    frame = as_polars(aucpr(data, outcome="y", score="s", by="g", estimator="average_precision",
                            ties="published").to_frame())
    assert frame["g"].to_list() == [0, 1, 2, 3]
    for k in range(4):
        expected = average_precision_score(y[g == k], s[g == k])
        assert frame["estimate"][k] == pytest.approx(expected, abs=1e-12)
        assert frame["n_pos"][k] == int(y[g == k].sum())
        assert frame["n_neg"][k] == int((~y[g == k]).sum())
        assert frame["prevalence"][k] == pytest.approx(y[g == k].mean(), abs=1e-15)


def test_matches_brute_force_with_heavy_ties():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 30))
        y = rng.random(n) < 0.4
        y[0], y[1] = True, False
        s = rng.integers(0, 4, n).astype(float)
        table_rows = sorted(zip(s, y), key=lambda r: -r[0])
        distinct = sorted(set(s), reverse=True)
        table = TieTable(
            score=distinct,
            pos=[sum(1 for v, t in table_rows if v == d and t) for d in distinct],
            neg=[sum(1 for v, t in table_rows if v == d and not t) for d in distinct],
            offsets=[0, len(distinct)],
        )
        assert average_precision(table, "published")[0] == pytest.approx(brute_force_average_precision(y, s), abs=1e-12)


def test_exact_cases():
    perfect = pl.DataFrame({"y": [1, 1, 0, 0, 0], "s": [5.0, 4, 3, 2, 1]})
    assert aucpr(perfect, "y", "s", estimator="average_precision").estimate == 1.0
    constant = pl.DataFrame({"y": [1, 0, 0, 1, 0], "s": [1.0] * 5})
    assert aucpr(constant, "y", "s", estimator="average_precision").estimate == pytest.approx(0.4)


samples = st.lists(st.tuples(st.booleans(), st.integers(-20, 20)), min_size=2, max_size=60).filter(
    lambda rows: any(r[0] for r in rows) and not all(r[0] for r in rows)
)


@settings(max_examples=150, deadline=None)
@given(rows=samples, seed=st.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(rows, seed):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float)
    perm = np.random.default_rng(seed).permutation(len(rows))
    a = aucpr(pl.DataFrame({"y": y, "s": s}), "y", "s", estimator="average_precision").estimate
    b = aucpr(pl.DataFrame({"y": y[perm], "s": s[perm]}), "y", "s", estimator="average_precision").estimate
    assert a == b


@settings(max_examples=150, deadline=None)
@given(rows=samples)
def test_strictly_increasing_transform_does_not_matter(rows):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float)
    for ties in ("interpolate", "published"):
        a = aucpr(pl.DataFrame({"y": y, "s": s}), "y", "s", estimator="average_precision", ties=ties).estimate
        for transform in (lambda x: np.exp(x / 7.0), lambda x: x**3 + 2 * x, lambda x: np.arctan(x) * 100 - 3):
            b = aucpr(pl.DataFrame({"y": y, "s": transform(s)}), "y", "s", estimator="average_precision",
                      ties=ties).estimate
            assert a == pytest.approx(b, abs=1e-14)
    assert a == pytest.approx(average_precision_score(y, s), abs=1e-12)  # published: scikit-learn


@settings(max_examples=150, deadline=None)
@given(
    segments=st.lists(
        st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=0, max_size=8),
        min_size=1,
        max_size=5,
    )
)
def test_segments_with_zero_rows_match_brute_force(segments):
    # several segments (some empty), rows with zero counts (bootstrap draws):
    # each segment alone must give Eq. (9) over its expanded rows
    score, pos, neg, offsets = [], [], [], [0]
    for rows in segments:
        for rank, (p, n) in enumerate(rows):
            score.append(float(len(rows) - rank))
            pos.append(p)
            neg.append(n)
        offsets.append(len(score))
    table = TieTable(score=score, pos=pos, neg=neg, offsets=offsets)
    got = average_precision(table, "published")
    for k, rows in enumerate(segments):
        y = [True] * sum(p for p, _ in rows) + [False] * sum(n for _, n in rows)
        s = [float(len(rows) - r) for r, (p, _) in enumerate(rows) for _ in range(p)]
        s += [float(len(rows) - r) for r, (_, n) in enumerate(rows) for _ in range(n)]
        if not any(y):
            assert np.isnan(got[k])
        else:
            assert got[k] == pytest.approx(brute_force_average_precision(y, s), abs=1e-12)
