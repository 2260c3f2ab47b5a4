"""Scores of every numeric type are ranked exactly (issue 15, item 1).

Oracles: scikit-learn's ``roc_auc_score`` / ``average_precision_score`` on the
exact ranks of the values (numpy sorts int64 / uint64 exactly; decimals are
ranked by Python's exact comparison of ``Decimal``), and a brute-force pair
count for A'.
"""

from __future__ import annotations

import warnings
from decimal import Decimal

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from aucpr_stats import aucpr, auroc, compare
from aucpr_stats.ingest import strictly_increasing

BIG = 2**53


def _ranks(values) -> np.ndarray:
    """Dense ranks of any exactly comparable values (int, Decimal), by an exact sort."""
    distinct = sorted(set(values))
    where = {v: i for i, v in enumerate(distinct)}
    return np.array([where[v] for v in values], dtype=np.float64)


def _brute_a_prime(y, s) -> float:
    pos = [v for v, t in zip(s, y) if t]
    neg = [v for v, t in zip(s, y) if not t]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def test_two_to_the_53_and_one_more_are_not_tied():
    for dtype in (pl.Int64, pl.UInt64):
        df = pl.DataFrame({"y": [0, 1], "s": pl.Series([BIG, BIG + 1], dtype=dtype)})
        assert auroc(df, "y", "s").estimate == 1.0
        assert auroc(df.to_pandas(), "y", "s").estimate == 1.0
        assert auroc(df.lazy(), "y", "s").estimate == 1.0
        assert aucpr(df, "y", "s", estimator="average_precision").estimate == 1.0


def test_uint64_top_of_range_and_parquet_scan(tmp_path):
    s = pl.Series([2**64 - 1, 2**64 - 2, 2**64 - 3, 2**63, 2**63 + 1, 5], dtype=pl.UInt64)
    y = [1, 0, 1, 0, 1, 0]
    df = pl.DataFrame({"y": y, "s": s, "g": [1, 1, 1, 2, 2, 2]})
    expected = roc_auc_score(y, _ranks(s.to_list()))
    assert auroc(df, "y", "s").estimate == pytest.approx(expected)
    path = tmp_path / "scores.parquet"
    df.write_parquet(path)
    assert auroc(pl.scan_parquet(path), "y", "s").estimate == pytest.approx(expected)
    grouped = auroc(pl.scan_parquet(path), "y", "s", by="g").to_frame()
    for g, part in df.group_by("g"):
        want = roc_auc_score(part["y"].to_list(), _ranks(part["s"].to_list()))
        assert grouped.filter(pl.col("g") == g[0])["estimate"][0] == pytest.approx(want)


def test_csv_through_polars_keeps_big_integers(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("y,s\n0,9007199254740992\n1,9007199254740993\n0,9007199254740994\n1,9007199254740995\n")
    frame = pl.read_csv(path)
    assert frame.schema["s"] == pl.Int64
    assert auroc(frame, "y", "s").estimate == pytest.approx(_brute_a_prime([0, 1, 0, 1], [0, 1, 2, 3]))


def test_decimal_scores_ranked_exactly():
    values = [Decimal("0.10000000000000000001"), Decimal("0.10000000000000000002"),
              Decimal("0.10000000000000000003"), Decimal("0.10000000000000000002")]
    y = [0, 1, 1, 0]
    df = pl.DataFrame({"y": y, "s": pl.Series(values, dtype=pl.Decimal(30, 20))})
    assert auroc(df, "y", "s").estimate == pytest.approx(_brute_a_prime(y, values))
    want = average_precision_score(y, _ranks(values))
    assert aucpr(df, "y", "s", estimator="average_precision", ties="published").estimate == pytest.approx(want)


def test_float32_and_float16_keep_their_own_ties():
    for dtype in (np.float32, np.float16):
        one = dtype(1)
        up = np.nextafter(one, dtype(2))
        s = np.array([one, up, one, up], dtype=dtype)
        y = [0, 1, 1, 0]
        assert auroc(pd.DataFrame({"y": y, "s": s}), "y", "s").estimate == pytest.approx(_brute_a_prime(y, s.tolist()))
    s32 = np.array([1, np.nextafter(np.float32(1), np.float32(2))], dtype=np.float32)
    assert auroc(pl.DataFrame({"y": [0, 1], "s": s32}), "y", "s").estimate == 1.0


def test_labels_keep_the_exact_order_and_stay_close():
    values = np.array([BIG - 2, BIG - 1, BIG, BIG + 1, BIG + 2, BIG + 3, 2**60, 2**60 + 1], dtype=np.int64)
    labels = strictly_increasing(values.astype(np.float64))
    assert np.all(np.diff(labels) > 0)
    assert np.all(np.abs(labels - values.astype(np.float64)) <= 4 * np.spacing(values.astype(np.float64)))
    negative = strictly_increasing(np.array([-(2.0**60), -(2.0**60), -1.0, 0.0, 0.0]))
    assert np.all(np.diff(negative) > 0)


def test_paired_multi_score_and_between_use_exact_order():
    y = [0, 1, 0, 1, 0, 1]
    big = pl.Series([BIG, BIG + 1, BIG + 2, BIG + 3, BIG + 4, BIG + 5], dtype=pl.Int64)
    df = pl.DataFrame({"y": y, "s1": big, "s2": big.reverse(), "a": ["u", "u", "u", "v", "v", "v"]})
    res = auroc(df, "y", ["s1", "s2"]).to_frame()
    assert res["estimate"].to_list() == pytest.approx([_brute_a_prime(y, big.to_list()),
                                                       _brute_a_prime(y, big.reverse().to_list())])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paired = compare(df, "y", ["s1", "s2"], metric="auroc")
        assert paired.to_frame()["estimate_a"][0] == pytest.approx(_brute_a_prime(y, big.to_list()))
        between = compare(df, "y", "s1", between="a", metric="auroc").to_frame()
    assert between["estimate_a"][0] == pytest.approx(_brute_a_prime(y[:3], big.to_list()[:3]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.booleans(), st.integers(-3, 3), st.sampled_from([0, 2**53, 2**62, -(2**62)])),
                min_size=2, max_size=30),
       st.sampled_from(["int64", "uint64"]), st.booleans())
def test_wide_integers_match_rank_oracle(rows, dtype, grouped):
    y = [r[0] for r in rows]
    if all(y) or not any(y):
        y[0] = not y[0]
    shift = 2**63 if dtype == "uint64" else 0
    s = [r[1] + r[2] + shift for r in rows]
    g = [i % 2 for i in range(len(rows))] if grouped else [0] * len(rows)
    df = pl.DataFrame({"y": y, "s": pl.Series(s, dtype=pl.UInt64 if dtype == "uint64" else pl.Int64), "g": g})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roc = auroc(df, "y", "s", by="g").to_frame()
        ap = aucpr(df, "y", "s", by="g", estimator="average_precision", ties="published").to_frame()
    for k in sorted(set(g)):
        yy = [t for t, gg in zip(y, g) if gg == k]
        ss = [v for v, gg in zip(s, g) if gg == k]
        got_roc = roc.filter(pl.col("g") == k)["estimate"][0]
        got_ap = ap.filter(pl.col("g") == k)["estimate"][0]
        if all(yy) or not any(yy):
            assert np.isnan(got_roc)
            continue
        assert got_roc == pytest.approx(_brute_a_prime(yy, ss))
        assert got_roc == pytest.approx(roc_auc_score(yy, _ranks(ss)))
        assert got_ap == pytest.approx(average_precision_score(yy, _ranks(ss)))
