"""Tests of two whole ROC curves (Venkatraman) and of one point on them: aucpr_stats.compare.curve_tests(_verb).

Oracles: pROC 1.18 (tests/reference/proc_curve_tests.R writes proc_curve_tests.json and its two CSV files):
the deterministic parts (Venkatraman's E, the coordinates at a fixed specificity or sensitivity and their
difference) to 1e-10, the p-values and bootstrap SDs within Monte Carlo error of pROC's runs under 8 seeds;
and brute-force transcriptions of the statistics' formulas (loops over cut-offs and replicates) for the kernels.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

from aucpr_stats.compare.curve_tests import (
    bootstrap_points,
    curve_point,
    permutation_p_value,
    point_cells,
    venkatraman_paired_permutations,
    venkatraman_paired_statistic,
    venkatraman_unpaired_permutations,
    venkatraman_unpaired_statistic,
)
from aucpr_stats.compare.curve_tests_verb import CurveComparison, compare_curves
from aucpr_stats.exceptions import DegenerateGroupWarning, InputError, InputTypeError

REFERENCE = Path(__file__).parent / "reference"


def _numbers(value):
    """The reference file's numbers (17-digit strings) back as floats."""
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


REF = _numbers(json.loads((REFERENCE / "proc_curve_tests.json").read_text()))
DATA = {"asah": pl.read_csv(REFERENCE / "proc_curve_tests_asah.csv"),
        "sim": pl.read_csv(REFERENCE / "proc_curve_tests_sim.csv")}
CASES = {case["name"]: case for case in REF["cases"]}
VENKATRAMAN = [name for name, c in CASES.items() if c["test"] == "venkatraman"]
POINTS = [name for name, c in CASES.items() if c["test"] != "venkatraman"]
N_SEEDS = len(REF["seeds"])


def _run(case, **kwargs):
    frame = DATA[case["file"]]
    options = {"positive": case["positive"], "test": case["test"], "n_boot": 2000, "rng": 0}
    if case["test"] != "venkatraman":
        options["at"] = case["at"]
    options.update(kwargs)
    if case["paired"]:
        return compare_curves(frame, case["outcome"], [case["score_a"], case["score_b"]], **options)
    return compare_curves(frame, case["outcome"], case["score"], between=case["between"], **options)


# ============================================================ brute-force oracles, written from the formulas
def brute_paired_e(x, y, case):
    """Venkatraman & Begg's E by its definition: ranks ("first"), errors at every cut-off x = 1..n."""
    n = len(case)
    r = np.empty(n, int)
    r[np.argsort(x, kind="stable")] = np.arange(1, n + 1)
    s = np.empty(n, int)
    s[np.argsort(y, kind="stable")] = np.arange(1, n + 1)
    total = 0
    for cut in range(1, n + 1):
        err_r = sum(1 for i in range(n) if case[i] and r[i] <= cut) + sum(
            1 for i in range(n) if not case[i] and r[i] > cut)
        err_s = sum(1 for i in range(n) if case[i] and s[i] <= cut) + sum(
            1 for i in range(n) if not case[i] and s[i] > cut)
        total += abs(err_s - err_r)
    return float(total)


def brute_unpaired_e(x1, c1, x2, c2, mp):
    """Venkatraman's (2000) E: error curves at the mixture quantiles, trapezoid over the union of their points."""
    def curve(x, c):
        n = len(x)
        rank = np.empty(n, int)
        rank[np.argsort(x, kind="stable")] = np.arange(1, n + 1)
        fx = np.array([np.sum(c & (rank <= k)) / c.sum() for k in range(1, n + 1)])
        gx = np.array([np.sum(~c & (rank <= k)) / (~c).sum() for k in range(1, n + 1)])
        return mp * fx + (1 - mp) * gx, mp * fx + (1 - mp) * (1 - gx)

    p1, e1 = curve(x1, c1)
    p2, e2 = curve(x2, c2)
    grid = np.sort(np.r_[p1, p2])

    def at(p, e, v):
        return np.nan if v < p[0] or v > p[-1] else np.interp(v, p, e)

    y = [abs(at(p1, e1, v) - at(p2, e2, v)) for v in grid]
    total = 0.0
    for i in range(1, len(grid)):
        piece = (y[i] + y[i - 1]) * (grid[i] - grid[i - 1]) / 2
        if not np.isnan(piece):
            total += piece
    return total


def brute_coordinate(score, case, test, at):
    """pROC's coords(input=...) by loops: the curve's points, an exact hit (best one) or the straight line."""
    n1, n0 = case.sum(), (~case).sum()
    points = [(0.0, 1.0)]
    for t in np.unique(score)[::-1]:
        points.append((np.sum(case & (score >= t)) / n1, (n0 - np.sum(~case & (score >= t))) / n0))
    se = np.array([p[0] for p in points])
    sp = np.array([p[1] for p in points])
    given, wanted = (sp, se) if test == "sensitivity" else (se, sp)
    hits = [wanted[i] for i in range(len(points)) if given[i] == at]
    if hits:
        return max(hits)
    for i in range(1, len(points)):
        lo, hi = sorted((given[i - 1], given[i]))
        if lo < at < hi:
            return wanted[i - 1] + (at - given[i - 1]) / (given[i] - given[i - 1]) * (wanted[i] - wanted[i - 1])
    raise AssertionError("unreachable")


def tied_sample(gen, n, prevalence=0.4, shift=0.8):
    case = gen.random(n) < prevalence
    case[:2], case[2:4] = True, False
    x = np.round(gen.normal(size=n) + shift * case, 1)
    y = np.round(0.6 * x + gen.normal(size=n) * 0.8 + 0.3 * case, 1)
    return x, y, case


# ============================================================ pROC: the deterministic parts to 1e-10
@pytest.mark.parametrize("name", VENKATRAMAN)
def test_venkatraman_statistic_equals_proc(name):
    case = CASES[name]
    result = _run(case, n_boot=20)
    expected = case["E_pooled"] if not case["paired"] else case["E"]
    assert result.statistic == pytest.approx(expected, abs=1e-10, rel=1e-12)


@pytest.mark.parametrize("name", [n for n in VENKATRAMAN if not CASES[n]["paired"]])
def test_unpaired_kernel_with_procs_mixing_proportion_equals_roc_test(name):
    # roc.test's mixing proportion is (cases_1 + cases_2) / (2 n_1): the kernel given it gives roc.test's E
    case = CASES[name]
    frame = DATA[case["file"]]
    samples = []
    for level in (case["level_a"], case["level_b"]):
        part = frame.filter(pl.col(case["between"]) == level)
        x = part[case["score"]].to_numpy()
        c = (part[case["outcome"]] == case["positive"]).to_numpy()
        samples.append(c[np.argsort(x, kind="stable")])
    mp = (samples[0].sum() + samples[1].sum()) / (2 * samples[0].size)
    assert venkatraman_unpaired_statistic(samples[0], samples[1], mp)[0] == pytest.approx(case["E"], abs=1e-10)
    pooled = (samples[0].sum() + samples[1].sum()) / (samples[0].size + samples[1].size)
    assert pooled == pytest.approx(case["mp_pooled"], abs=1e-14)


@pytest.mark.parametrize("name", POINTS)
def test_point_estimates_equal_proc(name):
    case = CASES[name]
    frame = _run(case, n_boot=20).to_polars()
    assert frame["estimate_a"][0] == pytest.approx(case["estimate_a"], abs=1e-10)
    assert frame["estimate_b"][0] == pytest.approx(case["estimate_b"], abs=1e-10)
    assert frame["difference"][0] == pytest.approx(case["estimate_a"] - case["estimate_b"], abs=1e-10)


@pytest.mark.parametrize("index", range(len(REF["coords"])))
def test_coordinates_on_a_grid_and_at_every_curve_point_equal_proc(index):
    ref = REF["coords"][index]
    file, score_name = ref["name"].split("_", 1)
    frame = DATA[file]
    outcome, positive = ("outcome", "Poor") if file == "asah" else ("y", 1)
    score = frame[score_name].to_numpy().astype(float)
    case = (frame[outcome] == positive).to_numpy()
    thresholds = np.unique(score)[::-1]
    tp = np.array([np.sum(case & (score >= t)) for t in thresholds])
    fp = np.array([np.sum(~case & (score >= t)) for t in thresholds])
    for test in ("sensitivity", "specificity"):
        got = np.array([curve_point(tp, fp, case.sum(), (~case).sum(), test, a)[0] for a in ref["at"]])
        np.testing.assert_allclose(got, ref[test], atol=1e-10, rtol=0)


# ============================================================ pROC: the random parts within Monte Carlo error
@pytest.mark.parametrize("name", VENKATRAMAN)
def test_venkatraman_p_value_within_monte_carlo_error_of_proc(name):
    case = CASES[name]
    runs = case["p_values_pooled"] if not case["paired"] else case["p_values"]
    p_ref = float(np.mean(runs))
    ours = _run(case).p_value
    # binomial error of our 2000 permutations and of pROC's 8 x 2000, and our (1 + #) / (1 + B)
    tolerance = 4.0 * math.sqrt(max(p_ref * (1 - p_ref), 1e-3) * (1 / 2000 + 1 / (2000 * N_SEEDS))) + 1 / 2001
    assert abs(ours - p_ref) < tolerance


@pytest.mark.parametrize("name", POINTS)
def test_point_test_bootstrap_sd_and_p_value_within_monte_carlo_error_of_proc(name):
    case = CASES[name]
    frame = _run(case).to_polars()
    sd_ref = float(np.mean(case["sd"]))
    # the Monte Carlo SD of one run's SD: the spread of pROC's runs, at least 2% (about 1/sqrt(2B) and lumps)
    spread = max(float(np.std(case["sd"], ddof=1)), 0.02 * sd_ref)
    assert abs(frame["se"][0] - sd_ref) < 4.0 * spread * math.sqrt(1 + 1 / N_SEEDS)
    # the z test on that SD: p = 2 Phi(-|d| / sd) = erfc(|z| / sqrt 2)
    z = frame["difference"][0] / frame["se"][0]
    assert frame["statistic"][0] == pytest.approx(z, rel=1e-12)
    assert frame["p_value"][0] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-9)
    # and pROC's p-values, through the same SD error
    z_ref = case["estimate_a"] - case["estimate_b"]
    lo = math.erfc(abs(z_ref) / (sd_ref - 4 * spread) / math.sqrt(2))
    hi = math.erfc(abs(z_ref) / (sd_ref + 4 * spread) / math.sqrt(2))
    assert lo - 1e-12 <= frame["p_value"][0] <= hi + 1e-12
    assert lo - 1e-12 <= float(np.mean(case["p_values"])) <= hi + 1e-12


# ============================================================ kernels against brute force
@pytest.mark.parametrize("seed", range(6))
def test_paired_statistic_equals_brute_force_with_ties(seed):
    gen = np.random.default_rng(seed)
    x, y, case = tied_sample(gen, 25 + seed)
    order_x, order_y = np.argsort(x, kind="stable"), np.argsort(y, kind="stable")
    got = venkatraman_paired_statistic(case[order_x], case[order_y])
    assert got == brute_paired_e(x, y, case)


@pytest.mark.parametrize("seed", range(6))
def test_unpaired_statistic_equals_brute_force_with_ties(seed):
    gen = np.random.default_rng(100 + seed)
    x1, _, c1 = tied_sample(gen, 20 + seed)
    x2, _, c2 = tied_sample(gen, 31 - seed, shift=0.3)
    mp = (c1.sum() + c2.sum()) / (c1.size + c2.size)
    got = venkatraman_unpaired_statistic(c1[np.argsort(x1, kind="stable")], c2[np.argsort(x2, kind="stable")], mp)
    assert got[0] == pytest.approx(brute_unpaired_e(x1, c1, x2, c2, mp), abs=1e-12)


def test_paired_permutations_follow_procs_procedure():
    # pROC's permutation, transcribed row by row (jittered ranks, a swap per subject, ranks again), against the
    # kernel: the same law, compared by the mean and the upper quantiles within Monte Carlo error
    gen = np.random.default_rng(7)
    x, y, case = tied_sample(gen, 18)
    n = case.size
    r = np.empty(n)
    r[np.argsort(x, kind="stable")] = np.arange(1, n + 1)
    s = np.empty(n)
    s[np.argsort(y, kind="stable")] = np.arange(1, n + 1)
    brute = []
    for _ in range(3000):
        r2, s2 = r + gen.random(n) - 0.5, s + gen.random(n) - 0.5
        q = 1 - np.round(gen.random(n))
        r3, s3 = r2 * q + (1 - q) * s, s2 * q + (1 - q) * r
        brute.append(brute_paired_e(r3, s3, case))
    brute = np.array(brute)
    ours = venkatraman_paired_permutations(r.astype(int) - 1, s.astype(int) - 1, case, 3000,
                                           np.random.default_rng(8))
    se = math.sqrt(brute.var() / 3000 + ours.var() / 3000)
    assert abs(ours.mean() - brute.mean()) < 4 * se
    observed = brute_paired_e(x, y, case)
    p_brute, p_ours = np.mean(brute >= observed), np.mean(ours >= observed)
    assert abs(p_ours - p_brute) < 4 * math.sqrt(max(p_brute * (1 - p_brute), 1e-3) * 2 / 3000)


def test_paired_permutation_law_equals_exact_enumeration():
    # five subjects: every swap pattern and every side of every jitter (pROC's uniform, above or below its
    # integer) equally likely; the exact law of E* against the kernel's frequencies over 40000 permutations
    case = np.array([True, False, True, False, False])
    r = np.array([1, 2, 3, 4, 5])
    s = np.array([3, 1, 5, 2, 4])
    n = case.size
    law = {}
    for swap in range(2 ** n):
        q = np.array([(swap >> i) & 1 for i in range(n)], bool)  # True: the pair is swapped
        for side_a in range(2 ** n):
            ja = np.array([0.25 if (side_a >> i) & 1 else -0.25 for i in range(n)])
            for side_b in range(2 ** n):
                jb = np.array([0.25 if (side_b >> i) & 1 else -0.25 for i in range(n)])
                e = brute_paired_e(np.where(q, s, r + ja), np.where(q, r, s + jb), case)
                law[e] = law.get(e, 0) + 1
    draws = venkatraman_paired_permutations(r - 1, s - 1, case, 40000, np.random.default_rng(12))
    for value, count in law.items():
        p = count / 2 ** (3 * n)
        assert abs(np.mean(draws == value) - p) < 4.5 * math.sqrt(p * (1 - p) / 40000)
    assert set(np.unique(draws)) <= set(law)


def test_unpaired_permutations_follow_procs_procedure():
    gen = np.random.default_rng(9)
    x1, _, c1 = tied_sample(gen, 16)
    x2, _, c2 = tied_sample(gen, 22, shift=0.2)
    mp = (c1.sum() + c2.sum()) / (c1.size + c2.size)
    r1 = np.empty(c1.size)
    r1[np.argsort(x1, kind="stable")] = np.arange(1, c1.size + 1)
    r2 = np.empty(c2.size)
    r2[np.argsort(x2, kind="stable")] = np.arange(1, c2.size + 1)
    brute = []
    for _ in range(1500):
        a, b = r1 + gen.random(c1.size) - 0.5, r2 + gen.random(c2.size) - 0.5
        controls, cases = gen.permutation(np.r_[a[~c1], b[~c2]]), gen.permutation(np.r_[a[c1], b[c2]])
        a, b = a.copy(), b.copy()
        a[~c1], b[~c2] = controls[:(~c1).sum()], controls[(~c1).sum():]
        a[c1], b[c2] = cases[:c1.sum()], cases[c1.sum():]
        brute.append(brute_unpaired_e(a, c1, b, c2, mp))
    brute = np.array(brute)
    ours = venkatraman_unpaired_permutations(r1.astype(int), c1, r2.astype(int), c2, mp, 4000,
                                             np.random.default_rng(10))
    assert abs(ours.mean() - brute.mean()) < 4 * math.sqrt(brute.var() / 1500 + ours.var() / 4000)
    assert abs(np.quantile(ours, 0.9) - np.quantile(brute, 0.9)) < 0.15 * np.quantile(brute, 0.9)


@pytest.mark.parametrize("seed", range(4))
def test_curve_point_equals_brute_force(seed):
    gen = np.random.default_rng(200 + seed)
    score, _, case = tied_sample(gen, 40)
    thresholds = np.unique(score)[::-1]
    tp = np.array([np.sum(case & (score >= t)) for t in thresholds])
    fp = np.array([np.sum(~case & (score >= t)) for t in thresholds])
    n1, n0 = case.sum(), (~case).sum()
    grid = np.unique(np.r_[np.linspace(0.01, 0.99, 37), np.arange(1, n1) / n1, (n0 - np.arange(1, n0)) / n0])
    for test in ("sensitivity", "specificity"):
        for at in grid:
            assert curve_point(tp, fp, n1, n0, test, at)[0] == pytest.approx(
                brute_coordinate(score, case, test, at), abs=1e-12)


def test_paired_bootstrap_matches_a_row_resampling_loop():
    # the multinomial cell counts against resampling the rows of each class, replicate by replicate
    gen = np.random.default_rng(11)
    x, y, case = tied_sample(gen, 60)
    rows = [np.unique(-v, return_inverse=True)[1] for v in (x, y)]  # tie rows: descending score
    estimates, reps = bootstrap_points(*point_cells(rows, case), "sensitivity", 0.8, 4000, np.random.default_rng(1))
    assert estimates[0] == pytest.approx(brute_coordinate(x, case, "sensitivity", 0.8), abs=1e-12)
    assert estimates[1] == pytest.approx(brute_coordinate(y, case, "sensitivity", 0.8), abs=1e-12)
    pos, neg = np.flatnonzero(case), np.flatnonzero(~case)
    loop = []
    for _ in range(1500):
        take = np.r_[gen.choice(pos, pos.size), gen.choice(neg, neg.size)]
        loop.append([brute_coordinate(v[take], case[take], "sensitivity", 0.8) for v in (x, y)])
    loop = np.array(loop).T
    for ours, brute in ((reps, loop), (reps[:1] - reps[1:], loop[:1] - loop[1:])):
        for k in range(ours.shape[0]):
            assert abs(ours[k].mean() - brute[k].mean()) < 4 * math.sqrt(ours[k].var() / 4000 + brute[k].var() / 1500)
            assert ours[k].std() == pytest.approx(brute[k].std(), rel=0.1)


class _GivenCounts:
    """A stand-in for a Generator whose multinomial draws are given: the positives' counts, then the negatives'."""

    def __init__(self, draws):
        self.draws = list(draws)

    def multinomial(self, n, pvals, size):
        counts = self.draws.pop(0)
        assert counts.shape == (size, len(pvals)) and (counts.sum(axis=1) == n).all()
        return counts


@pytest.mark.parametrize("test, at", [("sensitivity", 0.9), ("specificity", 0.75), ("sensitivity", 0.5)])
def test_every_bootstrap_replicate_equals_brute_force_on_its_resampled_rows(test, at):
    # each replicate's cell counts come from resampled rows (rows absent from a replicate leave tie rows with no
    # count); the kernel's points must be the brute-force coordinates of those rows, replicate by replicate
    frame = DATA["sim"]
    x, y, case = frame["a"].to_numpy(), frame["b"].to_numpy(), frame["y"].to_numpy().astype(bool)
    rows = [np.unique(-v, return_inverse=True)[1] for v in (x, y)]
    cell_rows, is_pos, count = point_cells(rows, case)
    cell_of_row = np.array([np.flatnonzero((cell_rows[0] == ra) & (cell_rows[1] == rb) & (is_pos == c))[0]
                            for ra, rb, c in zip(rows[0], rows[1], case)])
    gen = np.random.default_rng(31)
    pos, neg = np.flatnonzero(case), np.flatnonzero(~case)
    takes = [np.r_[gen.choice(pos, pos.size), gen.choice(neg, neg.size)] for _ in range(40)]
    counts = np.array([np.bincount(cell_of_row[t], minlength=count.size) for t in takes])
    draws = [counts[:, is_pos], counts[:, ~is_pos]]
    _, replicates = bootstrap_points(cell_rows, is_pos, count, test, at, 40, _GivenCounts(draws))
    for k, take in enumerate(takes):
        assert replicates[0, k] == pytest.approx(brute_coordinate(x[take], case[take], test, at), abs=1e-12)
        assert replicates[1, k] == pytest.approx(brute_coordinate(y[take], case[take], test, at), abs=1e-12)


def test_permutation_p_value_counts_ties_and_the_observed():
    assert permutation_p_value(2.0, np.array([1.0, 2.0, 3.0, 2.0 - 1e-14])) == pytest.approx(4 / 5)
    assert permutation_p_value(5.0, np.array([1.0, 2.0])) == pytest.approx(1 / 3)


# ============================================================ the verb: edge cases
def test_perfect_separation_and_identical_scores():
    y = np.r_[np.zeros(10), np.ones(8)].astype(bool)
    s = np.arange(18.0)
    df = pl.DataFrame({"y": y, "a": s, "b": s * 2, "c": s[::-1].copy()})
    result = compare_curves(df, "y", ["a", "b"], n_boot=200, rng=1)
    assert result.statistic == 0 and result.p_value == 1.0
    point = compare_curves(df, "y", ["a", "b"], test="sensitivity", at=0.9, n_boot=200, rng=1).to_polars()
    assert point["estimate_a"][0] == 1.0 and point["difference"][0] == 0.0
    assert point["se"][0] == 0.0 and point["p_value"][0] == 1.0
    # the reversed score: every error at its largest
    reverse = compare_curves(df, "y", ["a", "c"], n_boot=200, rng=1)
    assert reverse.statistic == brute_paired_e(s, s[::-1].copy(), y)
    assert reverse.p_value < 0.05


def test_constant_score_reads_the_diagonal():
    gen = np.random.default_rng(3)
    y = gen.random(50) < 0.5
    df = pl.DataFrame({"y": y, "a": np.zeros(50), "b": gen.normal(size=50) + y})
    frame = compare_curves(df, "y", ["a", "b"], test="sensitivity", at=0.7, n_boot=100, rng=1).to_polars()
    assert frame["estimate_a"][0] == pytest.approx(0.3, abs=1e-12)  # the diagonal from (0, 0) to (1, 1)
    frame = compare_curves(df, "y", ["a", "b"], test="specificity", at=0.25, n_boot=100, rng=1).to_polars()
    assert frame["estimate_a"][0] == pytest.approx(0.75, abs=1e-12)


def test_three_cases_run_and_one_case_is_a_degenerate_row():
    gen = np.random.default_rng(5)
    n = 40
    site = np.repeat(["x", "y"], n // 2)
    y = np.zeros(n, bool)
    y[[0, 1, 2]] = True  # site x: 3 cases
    y[25] = True  # site y: 1 case
    df = pl.DataFrame({"y": y, "a": gen.normal(size=n), "b": gen.normal(size=n), "site": site})
    with pytest.warns(DegenerateGroupWarning):
        frame = compare_curves(df, "y", ["a", "b"], "site", n_boot=100, rng=1).to_polars()
    assert frame["site"].to_list() == ["x", "y"]
    assert np.isfinite(frame["p_value"][0]) and np.isnan(frame["p_value"][1])
    assert "1 cases" in frame["note"][1]
    with pytest.warns(DegenerateGroupWarning):
        frame = compare_curves(df, "y", "a", between="site", test="sensitivity", at=0.5, n_boot=50,
                               rng=1).to_polars()
    assert np.isnan(frame["difference"][0]) and "y: 1 cases" in frame["note"][0]


def test_by_groups_give_one_row_each_with_their_own_statistic():
    frame = DATA["asah"]
    result = compare_curves(frame, "outcome", ["s100b", "ndka"], "gender", positive="Poor", n_boot=50, rng=2)
    out = result.to_polars()
    assert out["gender"].to_list() == ["Female", "Male"]
    for g in ("Female", "Male"):
        part = frame.filter(pl.col("gender") == g)
        case = (part["outcome"] == "Poor").to_numpy()
        expected = brute_paired_e(part["s100b"].to_numpy(), part["ndka"].to_numpy(), case)
        assert out.filter(pl.col("gender") == g)["statistic"][0] == expected
    assert out.columns[:3] == ["gender", "score_a", "score_b"]


def test_unpaired_by_groups_pair_the_levels_in_ascending_order():
    # group "g1" has only level "z" of `between`: its row is NaN with a note, and the levels still read (y, z)
    gen = np.random.default_rng(21)
    n = 240
    group = np.repeat(["g1", "g2"], n // 2)
    level = np.where(group == "g1", "z", gen.choice(["y", "z"], n))
    case = gen.random(n) < 0.4
    score = np.round(gen.normal(size=n) + case, 1)
    df = pl.DataFrame({"g": group, "lv": level, "d": case, "s": score})
    with pytest.warns(DegenerateGroupWarning):
        out = compare_curves(df, "d", "s", "g", between="lv", n_boot=30, rng=1).to_polars()
    assert out["g"].to_list() == ["g1", "g2"]
    assert (out["lv_a"][0], out["lv_b"][0]) == ("y", "z")
    assert np.isnan(out["statistic"][0]) and "y: 0 cases and 0 controls" in out["note"][0]
    part = df.filter(pl.col("g") == "g2")
    samples = [part.filter(pl.col("lv") == v) for v in ("y", "z")]
    cases = [p["d"].to_numpy() for p in samples]
    mp = (cases[0].sum() + cases[1].sum()) / part.height
    expected = brute_unpaired_e(samples[0]["s"].to_numpy(), cases[0], samples[1]["s"].to_numpy(), cases[1], mp)
    assert out["statistic"][1] == pytest.approx(expected, abs=1e-12)


def test_same_seed_same_result_and_direction_lower_mirrors_higher():
    frame = DATA["sim"]
    one = compare_curves(frame, "y", ["a", "b"], test="specificity", at=0.6, n_boot=300, rng=4).to_polars()
    two = compare_curves(frame, "y", ["a", "b"], test="specificity", at=0.6, n_boot=300, seed=4).to_polars()
    assert one.equals(two)
    other = compare_curves(frame, "y", ["a", "b"], test="specificity", at=0.6, n_boot=300, rng=5).to_polars()
    assert other["se"][0] != one["se"][0]
    flipped = frame.with_columns(-pl.col("a"), -pl.col("b"))
    low = compare_curves(flipped, "y", ["a", "b"], test="specificity", at=0.6, n_boot=300, rng=4,
                         direction="lower").to_polars()
    assert low.equals(one)


def test_unpaired_columns_and_pandas_in_pandas_out():
    frame = DATA["sim"].to_pandas()
    result = compare_curves(frame, "y", "a", between="site", n_boot=50, rng=1)
    out = result.to_frame()
    assert isinstance(out, pd.DataFrame) and isinstance(result, CurveComparison)
    assert list(out.columns) == ["score", "site_a", "site_b", "test", "at", "statistic", "p_value", "n_pos",
                                 "n_neg", "n_boot", "note"]
    assert (out["site_a"][0], out["site_b"][0], out["n_pos"][0], out["n_neg"][0]) == ("north", "south", 80, 120)
    # the same rows in the same order: the same ties broken alike, the same draws
    polars_run = compare_curves(DATA["sim"], "y", "a", between="site", n_boot=50, rng=1).to_polars()
    assert out["statistic"][0] == polars_run["statistic"][0] and out["p_value"][0] == polars_run["p_value"][0]
    point = compare_curves(frame, "y", ["a", "b"], test="sensitivity", at=0.9, n_boot=50, rng=1).to_polars()
    assert point.columns == ["score_a", "score_b", "test", "at", "statistic", "p_value", "estimate_a", "estimate_b",
                             "difference", "se", "lower", "upper", "n_pos", "n_neg", "n_boot", "note"]
    assert point["lower"][0] <= point["difference"][0] <= point["upper"][0]
    assert "Sensitivity at specificity 0.9" in str(compare_curves(frame, "y", ["a", "b"], test="sensitivity",
                                                                   at=0.9, n_boot=20, rng=1))


def test_unseeded_runs_say_so():
    out = compare_curves(DATA["sim"], "y", ["a", "b"], n_boot=20).to_polars()
    assert "no seed" in out["note"][0]


# ============================================================ bad input
@pytest.mark.parametrize("kwargs, message", [
    ({"test": "sensitivity"}, "give that specificity as `at`"),
    ({"test": "specificity", "at": 1.0}, "`at` must be strictly between 0 and 1"),
    ({"test": "sensitivity", "at": 0.0}, "`at` must be strictly between 0 and 1"),
    ({"test": "sensitivity", "at": float("nan")}, "`at` must be strictly between 0 and 1"),
    ({"at": 0.9}, "`at` applies to test='sensitivity' or 'specificity'"),
    ({"test": "delong"}, "`test` must be one of"),
    ({"n_boot": 1}, "`n_boot`"),
    ({"level": 1.5}, "`level`"),
])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compare_curves(DATA["sim"], "y", ["a", "b"], **kwargs)


def test_at_of_the_wrong_type():
    with pytest.raises(InputTypeError, match="`at` must be a number"):
        compare_curves(DATA["sim"], "y", ["a", "b"], test="sensitivity", at="0.9")


def test_wrong_number_of_scores_or_levels():
    frame = DATA["sim"].with_columns((pl.col("a") + pl.col("b")).alias("c"),
                                     pl.Series("three", ["p", "q", "r"] * 66 + ["p", "q"]))
    with pytest.raises(InputError, match="exactly two columns"):
        compare_curves(frame, "y", ["a", "b", "c"])
    with pytest.raises(InputError, match="exactly two columns"):
        compare_curves(frame, "y", "a")
    with pytest.raises(InputError, match="must name one column"):
        compare_curves(frame, "y", ["a", "b"], between="site")
    with pytest.raises(InputError, match="exactly two levels"):
        compare_curves(frame, "y", "a", between="three")


def test_fewer_cases_than_the_size_study_validated_are_flagged():
    from aucpr_stats import SmallSampleWarning
    import warnings

    gen = np.random.default_rng(40)
    for n, flagged in ((60, True), (300, False)):
        y = np.arange(n) % 2
        frame = pl.DataFrame({"y": y, "a": gen.normal(size=n) + y, "b": gen.normal(size=n) + y})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            note = compare_curves(frame, "y", ["a", "b"], n_boot=50, rng=1).to_polars()["note"][0]
        small = [w for w in caught if issubclass(w.category, SmallSampleWarning)]
        assert bool(small) == flagged
        assert (note is not None and "size is not validated" in note) == flagged
