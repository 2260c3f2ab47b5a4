"""Bias and coverage studies: the vectorised path against a per-simulation loop.

The oracle simulates nothing itself: a recording scenario keeps every array
the study draws, and the test rebuilds each simulated data set as a frame,
runs the public :func:`aucpr_stats.aucpr` on it one at a time, and
aggregates with the paper's definitions (section 4: bias ratio = mean
estimate / true AUCPR; coverage = share of intervals containing the truth).
"""

from __future__ import annotations

import math

import attrs
import numpy as np
import polars as pl
import pytest
from scipy import stats

from aucpr_stats import aucpr
from aucpr_stats.estimators import PR_ESTIMATORS
from aucpr_stats.exceptions import InputError, InputTypeError
from aucpr_stats.simulate import SCENARIOS, Binormal, bias_study, coverage_study, simulate_ties


@attrs.frozen
class RecordingBinormal(Binormal):
    """Binormal scenario that keeps every block of scores it draws."""

    log: list = attrs.field(factory=list, eq=False, hash=False)

    def draw(self, rng, size, positive):
        values = Binormal.draw(self, rng, size, positive)
        self.log.append((positive, values))
        return values


def recorded_frames(scenario: RecordingBinormal):
    """Every simulated data set, in study order, as a polars frame (outcome, score)."""
    frames = []
    for (flag_p, pos), (flag_n, neg) in zip(scenario.log[0::2], scenario.log[1::2]):
        assert flag_p and not flag_n
        for i in range(pos.shape[0]):
            frames.append(pl.DataFrame({
                "outcome": np.r_[np.ones(pos.shape[1], int), np.zeros(neg.shape[1], int)],
                "score": np.r_[pos[i], neg[i]],
            }))
    return frames


def test_simulate_ties_matches_one_table_per_data_set():
    rng = np.random.default_rng(0)
    pos = np.round(rng.normal(1, 1, (5, 7)), 1)  # rounding makes ties, within and across classes
    neg = np.round(rng.normal(0, 1, (5, 30)), 1)
    ties = simulate_ties(pos, neg)
    assert ties.n_segments == 5
    for k in range(5):
        seg = ties.segment(k)
        scores = np.r_[pos[k], neg[k]]
        labels = np.r_[np.ones(7, bool), np.zeros(30, bool)]
        distinct = np.unique(scores)[::-1]
        np.testing.assert_array_equal(seg.score, distinct)
        np.testing.assert_array_equal(seg.pos, [np.sum(labels & (scores == s)) for s in distinct])
        np.testing.assert_array_equal(seg.neg, [np.sum(~labels & (scores == s)) for s in distinct])


@pytest.mark.parametrize("estimator", list(PR_ESTIMATORS))
def test_bias_study_matches_per_simulation_loop(estimator):
    scenario = RecordingBinormal(mu=0.8)
    out = bias_study(scenario, n_total=[60, 150], prevalence=0.2, estimators=estimator, n_sims=30, seed=4,
                     block_size=7)  # several blocks, the last one short
    frames = recorded_frames(scenario)
    assert len(frames) == 60
    theta = scenario.true_aucpr(0.2)
    for cell, n_total in enumerate([60, 150]):
        mine = frames[30 * cell:30 * (cell + 1)]
        est = np.array([aucpr(f, "outcome", "score", estimator=estimator).estimate for f in mine])
        assert all(f.height == n_total for f in mine)
        row = out.filter(pl.col("n_total") == n_total).row(0, named=True)
        assert row["n_pos"] == round(0.2 * n_total) and row["n_sims"] == 30 and row["n_valid"] == 30
        assert row["true_aucpr"] == theta
        assert row["mean_estimate"] == pytest.approx(est.mean(), rel=1e-12)
        assert row["bias_ratio"] == pytest.approx(est.mean() / theta, rel=1e-12)
        assert row["bias_ratio_se"] == pytest.approx(est.std(ddof=1) / math.sqrt(30) / theta, rel=1e-9)


def test_bias_study_is_reproducible_and_tidy():
    kwargs = dict(scenarios=["binormal", "offset_uniform"], n_total=[50, 100], prevalence=[0.1, 0.3],
                  estimators="average_precision", n_sims=20)
    a = bias_study(**kwargs, seed=9)
    b = bias_study(**kwargs, seed=9)
    c = bias_study(**kwargs, seed=10)
    assert a.equals(b) and not a.equals(c)
    assert a.height == 2 * 2 * 2
    assert a.columns[:6] == ["scenario", "n_total", "prevalence", "n_pos", "n_neg", "estimator"]
    assert set(a["scenario"]) == {"binormal", "offset_uniform"}


def test_bias_study_mean_is_consistent_with_truth():
    # average precision is consistent: at n_pos = 500 its bias ratio is within a few percent of 1
    out = bias_study("bibeta", n_total=5000, prevalence=0.1, estimators="average_precision", n_sims=200, seed=1)
    assert abs(out["bias_ratio"][0] - 1) < 0.01


def test_study_arguments_are_validated():
    with pytest.raises(InputError, match="`estimators`"):
        bias_study("binormal", 100, estimators="trapezoid", n_sims=5)
    with pytest.raises(InputError, match="both classes"):
        bias_study("binormal", 5, prevalence=0.05, n_sims=5)
    with pytest.raises(InputTypeError, match="`n_sims`"):
        bias_study("binormal", 100, n_sims=2.5)
    with pytest.raises(InputError, match="`scenario`"):
        bias_study("normal", 100, n_sims=5)
    with pytest.raises(InputError, match="`methods`"):
        coverage_study("binormal", 100, estimators="average_precision", methods="wald", n_sims=5)
    with pytest.raises(InputError, match="`block_size`"):
        bias_study("binormal", 100, n_sims=5, block_size=0)
    with pytest.raises(InputError, match="`level`"):
        coverage_study("binormal", 100, estimators="average_precision", level=95, n_sims=5)


def paper_interval(method, theta, n, level=0.95):
    """Boyd et al. section 3.2, written out: binomial (Wald) and logit intervals."""
    z = stats.norm.ppf(0.5 + level / 2)
    if method == "binomial":
        half = z * math.sqrt(theta * (1 - theta) / n)
        return theta - half, theta + half
    eta, tau = math.log(theta / (1 - theta)), 1 / math.sqrt(n * theta * (1 - theta))
    expit = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    return expit(eta - z * tau), expit(eta + z * tau)


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_coverage_study_closed_forms_match_per_simulation_loop(level):
    scenario = RecordingBinormal(mu=1.0)
    n_total, prevalence, n_sims = 80, 0.25, 40
    out = coverage_study(scenario, n_total=n_total, prevalence=prevalence, estimators="average_precision",
                         methods=["binomial", "logit"], n_sims=n_sims, level=level, seed=3, block_size=16)
    frames = recorded_frames(scenario)
    theta = scenario.true_aucpr(prevalence)
    est = np.array([aucpr(f, "outcome", "score", estimator="average_precision").estimate for f in frames])
    n_pos = 20
    for method in ["binomial", "logit"]:
        bounds = np.array([paper_interval(method, e, n_pos, level) for e in est])
        covered = (bounds[:, 0] <= theta) & (theta <= bounds[:, 1])
        width = bounds[:, 1] - bounds[:, 0]
        tail = (1 - level) / 2
        ideal = np.quantile(est, 1 - tail) - np.quantile(est, tail)
        row = out.filter(pl.col("method") == method).row(0, named=True)
        assert row["n_sims"] == n_sims and row["n_valid"] == n_sims and row["level"] == level
        assert row["coverage"] == pytest.approx(covered.mean(), abs=1e-12)
        assert row["coverage_se"] == pytest.approx(math.sqrt(covered.mean() * (1 - covered.mean()) / n_sims))
        assert row["mean_width"] == pytest.approx(width.mean(), rel=1e-10)
        assert row["mean_width_se"] == pytest.approx(width.std(ddof=1) / math.sqrt(n_sims), rel=1e-8)
        assert row["ideal_width"] == pytest.approx(ideal, rel=1e-10)
        assert row["width_ratio"] == pytest.approx(width.mean() / ideal, rel=1e-10)
        assert row["bias_ratio"] == pytest.approx(est.mean() / theta, rel=1e-12)
        assert row["location_ratio"] == pytest.approx(est.mean() / theta, rel=1e-12)  # centred on the estimate


def test_coverage_study_shares_data_with_bias_study():
    # the same seed simulates the same data sets, so the bias ratios agree
    kwargs = dict(scenarios="bibeta", n_total=[100, 300], prevalence=0.1, estimators="average_precision",
                  n_sims=50, seed=8)
    cov = coverage_study(**kwargs, methods="binomial")
    bias = bias_study(**kwargs)
    np.testing.assert_allclose(cov["bias_ratio"].to_numpy(), bias["bias_ratio"].to_numpy(), rtol=1e-12)


def row_bootstrap_interval(frame, n_boot, level, rng):
    """A plain stratified row-resampling percentile bootstrap of average precision.

    Each replicate's AP is Eq. (9) by brute force: for every positive i, the
    precision among all rows scoring at least s_i (ties admitted together).
    """
    y = frame["outcome"].to_numpy()
    s = frame["score"].to_numpy()
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    idx = np.concatenate([rng.choice(pos, (n_boot, pos.size)), rng.choice(neg, (n_boot, neg.size))], axis=1)
    ys, ss = y[idx], s[idx]
    admitted = ss[:, None, :] >= ss[:, :, None]  # [b, i, j]: row j admitted at the threshold s_i
    precision = (admitted * ys[:, None, :]).sum(-1) / admitted.sum(-1)
    reps = (precision * ys).sum(-1) / ys.sum(-1)
    return np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])


def test_coverage_study_bootstrap_arm_matches_row_bootstrap():
    from aucpr_stats.simulate import studies

    captured = {}
    arm = studies.INTERVAL_METHODS["bootstrap"]

    def spy(ties, estimates, estimator, level, rng, options):
        lower, upper, location = arm(ties, estimates, estimator, level, rng, options)
        captured.setdefault("bounds", []).append((lower, upper))
        return lower, upper, location

    scenario = RecordingBinormal(mu=1.5)
    studies.INTERVAL_METHODS["bootstrap"] = spy
    try:
        out = coverage_study(scenario, n_total=60, prevalence=0.25, estimators="average_precision",
                             methods="bootstrap", n_sims=6, seed=2, method_options={"bootstrap": {"n_boot": 2000}})
    finally:
        studies.INTERVAL_METHODS["bootstrap"] = arm
    lower = np.concatenate([b[0] for b in captured["bounds"]])
    upper = np.concatenate([b[1] for b in captured["bounds"]])
    rng = np.random.default_rng(0)
    theta = scenario.true_aucpr(0.25)
    covered = []
    for k, frame in enumerate(recorded_frames(scenario)):
        lo, hi = row_bootstrap_interval(frame, 2000, 0.95, rng)
        # a percentile from 2,000 replicates has Monte Carlo error ~0.008 here; two such differ
        assert abs(lower[k] - lo) < 0.045 and abs(upper[k] - hi) < 0.045
        covered.append(lower[k] <= theta <= upper[k])
    assert out["coverage"][0] == pytest.approx(np.mean(covered))
    assert out["mean_width"][0] == pytest.approx(np.mean(upper - lower))


def brute_ap(y, s):
    """Eq. (9) by brute force: mean over positives of the precision among rows scoring at least theirs."""
    admitted = s[None, :] >= s[:, None]
    precision = (admitted * y[None, :]).sum(1) / admitted.sum(1)
    return precision[y == 1].mean()


def test_coverage_study_cross_validation_arm_matches_loop_in_distribution():
    scenario = RecordingBinormal(mu=1.0)
    n_sims, k, level = 300, 5, 0.9
    out = coverage_study(scenario, n_total=100, prevalence=0.4, estimators="average_precision",
                         methods="cross_validation", n_sims=n_sims, level=level, seed=6,
                         method_options={"cross_validation": {"folds": k, "quantile": "normal"}})
    row = out.row(0, named=True)
    theta = scenario.true_aucpr(0.4)
    z = stats.norm.ppf(0.5 + level / 2)
    rng = np.random.default_rng(1)
    mids, widths, covered = [], [], []
    for frame in recorded_frames(scenario):
        y, s = frame["outcome"].to_numpy(), frame["score"].to_numpy()
        fold = np.empty(y.size, int)
        for cls in (0, 1):  # stratified: deal each class's rows to the folds in random order
            rows = rng.permutation(np.flatnonzero(y == cls))
            fold[rows] = (np.arange(rows.size) + rng.integers(k)) % k
        folds = np.array([brute_ap(y[fold == f], s[fold == f]) for f in range(k)])
        half = z * folds.std(ddof=1) / math.sqrt(k)
        mids.append(folds.mean())
        widths.append(2 * half)
        covered.append(abs(folds.mean() - theta) <= half)
    mids, widths = np.array(mids), np.array(widths)
    # different random folds, same distribution: compare the summaries within Monte Carlo error
    assert abs(row["location_ratio"] * theta - mids.mean()) < 4 * mids.std() / math.sqrt(n_sims)
    assert abs(row["mean_width"] - widths.mean()) < 4 * math.sqrt(2) * widths.std() / math.sqrt(n_sims)
    assert abs(row["coverage"] - np.mean(covered)) < 4 * math.sqrt(2 * 0.25 / n_sims)
    assert row["location_ratio"] > row["bias_ratio"]  # folds hold fewer positives: more biased (Fig. 8)


@pytest.mark.parametrize("name, shift", [
    ("bibeta", (5 - 2) / 7 / math.sqrt(2 * 5 / (7 ** 2 * 8))),  # (mean_Y - mean_X) / sd, equal variances
    ("offset_uniform", 0.5 / math.sqrt(1 / 12)),
])
def test_binormal_estimator_converges_to_the_moment_matched_binormal_area(name, shift):
    # Boyd et al. section 4.1: under misspecification the binormal estimator converges to the
    # wrong value, namely the AUCPR of the binormal model with the scenario's means and variances
    if "binormal" not in PR_ESTIMATORS:
        pytest.skip("binormal estimator not registered")
    out = bias_study(name, n_total=20_000, prevalence=0.1, estimators="binormal", n_sims=20, seed=0)
    limit = Binormal(mu=shift).true_aucpr(0.1) / SCENARIOS[name].true_aucpr(0.1)
    assert abs(limit - 1) > 0.05  # a real bias, not noise
    assert out["bias_ratio"][0] == pytest.approx(limit, abs=4 * out["bias_ratio_se"][0] + 1e-3)
