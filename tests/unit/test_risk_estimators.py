"""The numerical core of the risk analysis (sqlanon.risk): hand-computed values on tiny
class-size tables, ARX's published test values on ADULT, edge cases, convergence handling,
monotonicity and input validation. Pure numpy/SciPy: no engine, no SQL."""

from __future__ import annotations

import math
import sys
from itertools import pairwise

import numpy as np
import pytest
from scipy.stats import binom, hypergeom, nbinom

from sqlanon.reidentification import (
    ClassSizes,
    dankar,
    pitman,
    prosecutor,
    sampling_frame,
    snb,
    zayatz,
)
from sqlanon.reidentification.pitman import expected_uniques
from sqlanon.reidentification.snb import shlosser

# ADULT (the ARX test copy, 30162 rows), all nine attributes as quasi-identifiers, no
# generalization: {class size: number of classes}. Derived once with
#   SELECT s, count(*) FROM (SELECT count(*) s FROM adult GROUP BY <all nine columns>) GROUP BY s
# Its sample uniqueness (15512 / 30162) and average risk (19502 / 30162) are exactly the values
# ARX's TestRiskMetrics asserts for this data set, which pins the table to ARX's.
ADULT = {
    1: 15512, 2: 2098, 3: 754, 4: 375, 5: 189, 6: 155, 7: 97, 8: 73, 9: 39, 10: 37, 11: 29,
    12: 18, 13: 23, 14: 14, 15: 15, 16: 9, 17: 11, 18: 10, 19: 10, 20: 5, 21: 3, 22: 4, 23: 3,
    24: 2, 25: 1, 26: 3, 27: 5, 29: 1, 30: 2, 32: 1, 34: 1, 35: 1, 36: 1, 45: 1,
}  # fmt: skip

# ARX compares uniqueness to four decimals (compareUniqueness truncates x * 10^4); we can do
# much better where the formula is the same.
ARX_TOL = 1e-9


# --------------------------------------------------------------------------- inputs


def test_class_sizes_summary():
    c = ClassSizes.from_table({2: 1, 1: 3, 7: 0})  # sizes sorted, empty sizes dropped
    assert c.sizes == (1, 2) and c.counts == (3, 1)
    assert (c.rows, c.classes, c.uniques, c.count(5)) == (5, 4, 3, 0)


@pytest.mark.parametrize(
    "table, message",
    [
        ({}, "empty"),
        ({1: 0, 2: 0}, "empty"),
        ({0: 3}, "Class sizes must be ints >= 1"),
        ({-1: 3}, "Class sizes must be ints >= 1"),
        ({1.5: 3}, "Class sizes must be ints >= 1"),
        ({1: -2}, "must be an int >= 0"),
        ({1: 2.5}, "must be an int >= 0"),
        ([(1, 2)], "must be a mapping"),
    ],
)
def test_bad_tables_raise(table, message):
    for estimator in (zayatz, pitman, snb, dankar):
        with pytest.raises(ValueError, match=message):
            estimator(table, sampling_fraction=0.1)
    with pytest.raises(ValueError, match=message):
        prosecutor(table)


@pytest.mark.parametrize("fraction", [0, 0.0, -0.1, 1.0000001, 1.5, math.nan, math.inf])
def test_fraction_outside_unit_interval_raises(fraction):
    for estimator in (zayatz, pitman, snb, dankar):
        with pytest.raises(ValueError, match="sampling_fraction"):
            estimator({1: 2, 2: 1}, sampling_fraction=fraction)


def test_population_smaller_than_sample_raises():
    # n = 1 + 2 = 3 records; N = 2 < n
    with pytest.raises(ValueError, match=r"'population_size' parameter must be >= the sample size 3, got 2"):
        zayatz({1: 1, 2: 1}, population_size=2)
    with pytest.raises(ValueError, match="population_size"):
        dankar({1: 1, 2: 1}, population_size=-5)


def test_exactly_one_of_fraction_and_population():
    with pytest.raises(ValueError, match="exactly one"):
        pitman({1: 1, 2: 1})
    with pytest.raises(ValueError, match="exactly one"):
        snb({1: 1, 2: 1}, sampling_fraction=0.5, population_size=6)
    with pytest.raises(ValueError, match="finite number"):
        zayatz({1: 1}, sampling_fraction="0.5")


def test_solver_settings_are_checked():
    with pytest.raises(ValueError, match="'grid' parameter must be an int >= 3, got 2"):
        pitman({1: 2, 2: 1}, sampling_fraction=0.1, grid=2)
    with pytest.raises(ValueError, match="'max_evaluations' parameter must be an int >= 1, got 0"):
        snb({1: 2, 2: 1}, sampling_fraction=0.5, max_evaluations=0)


def test_sampling_frame_both_ways():
    assert sampling_frame(100, sampling_fraction=0.25).population_size == 400
    frame = sampling_frame(100, population_size=400)
    assert frame.fraction == 0.25 and not frame.is_census
    assert sampling_frame(100, population_size=100).is_census


# --------------------------------------------------------------------------- prosecutor


def test_prosecutor_hand_computed():
    # classes of sizes 1, 2, 5, 5: n = 1 + 2 + 10 = 13 records, 4 classes
    r = prosecutor({1: 1, 2: 1, 5: 2})
    assert (r.records, r.classes) == (13, 4)
    assert r.highest_risk == 1.0  # 1 / min size = 1 / 1
    assert r.average_risk == pytest.approx(4 / 13)  # (1*1 + 2*1/2 + 10*1/5) / 13 = 4 / 13
    # 1/k > 0.2 for k = 1, 2 (k = 5 gives exactly 0.2: not above): 1 + 2 = 3 records
    assert (r.records_at_risk, r.share_at_risk) == (3, pytest.approx(3 / 13))
    assert (r.sample_uniques, r.sample_uniqueness) == (1, pytest.approx(1 / 13))
    hist = {b.label: (b.classes, b.records) for b in r.histogram}
    assert hist["1"] == (1, 1) and hist["2"] == (1, 2) and hist["5-9"] == (2, 10) and hist["100+"] == (0, 0)
    assert sum(b.records for b in r.histogram) == 13 and sum(b.classes for b in r.histogram) == 4


def test_prosecutor_threshold_and_edges():
    r = prosecutor({2: 3, 4: 1}, threshold=0.25, edges=(1, 3))
    assert r.highest_risk == 0.5  # min size 2
    assert r.records_at_risk == 6  # 1/2 > 0.25; 1/4 = 0.25 is not above
    assert [(b.label, b.classes, b.records) for b in r.histogram] == [("1-2", 3, 6), ("3+", 1, 4)]
    assert prosecutor({2: 3, 4: 1}, threshold=0.0).share_at_risk == 1.0
    assert prosecutor({2: 3, 4: 1}, threshold=1.0).records_at_risk == 0
    for bad in (-0.1, 1.1, "x"):
        with pytest.raises(ValueError, match="'threshold' parameter must be a float in \\[0, 1\\]"):
            prosecutor({1: 1}, threshold=bad)
    with pytest.raises(ValueError, match="'edges'"):
        prosecutor({1: 1}, edges=(2, 5))
    with pytest.raises(ValueError, match="'edges'"):
        prosecutor({1: 1}, edges=(1, 5, 5))


def test_prosecutor_adult_matches_arx():
    # ARX TestRiskMetrics: testAverageRisk2 (0.6465751607983555), testHighestIndividualRisk2
    # (1.0) and, at f = 1, the sample uniqueness 0.5142895033485844 (testDecisionRule2).
    r = prosecutor(ADULT)
    assert r.records == 30162 and r.classes == 19502
    assert r.average_risk == pytest.approx(0.6465751607983555, abs=1e-15)
    assert r.highest_risk == 1.0
    assert r.sample_uniqueness == pytest.approx(0.5142895033485844, abs=1e-15)


# --------------------------------------------------------------------------- Zayatz


def test_zayatz_hand_computed():
    # {1: 2, 2: 1}: n = 4 records, u = 3 classes; N = 8 (f = 0.5).
    # h_1 = P(exactly 1 of a class of 1 drawn, 4 of 8) = C(1,1) C(7,3) / C(8,4) = 35/70 = 1/2
    # h_2 = C(2,1) C(6,3) / C(8,4) = 2 * 20 / 70 = 4/7
    # p_1 = 2/3, p_2 = 1/3 (sample class shares)
    # P(F=1 | f=1) = (2/3 * 1/2) / (2/3 * 1/2 + 1/3 * 4/7) = (1/3) / (11/21) = 7/11
    # S_1 = s_1 * 7/11 * N/n = 2 * 7/11 * 2 = 28/11
    e = zayatz({1: 2, 2: 1}, population_size=8)
    assert e.converged and e.iterations == 0 and e.reason is None
    assert e.uniques == pytest.approx(28 / 11, rel=1e-12)
    assert e.share == pytest.approx(28 / 11 / 8, rel=1e-12)
    assert dict(e.parameters)["p_unique_given_sample_unique"] == pytest.approx(7 / 11)
    assert zayatz({1: 2, 2: 1}, sampling_fraction=0.5).uniques == pytest.approx(e.uniques)


@pytest.mark.parametrize("exact_limit", [10**6, 0])  # term-by-term product, then log-gamma
@pytest.mark.parametrize("n, big_n", [(13, 40), (30, 31), (1000, 5000)])
def test_zayatz_hypergeometric_ratios_match_scipy(monkeypatch, n, big_n, exact_limit):
    # h_j / h_1 with h_j = P(X = 1), X ~ Hypergeometric(N, j, n), as SciPy computes it
    module = sys.modules["sqlanon.reidentification.zayatz"]
    monkeypatch.setattr(module, "EXACT_PRODUCT_LIMIT", exact_limit)
    sizes = np.array([j for j in (1, 2, 3, 7, 12, 13) if j <= n])
    expected = hypergeom.pmf(1, big_n, sizes, n) / hypergeom.pmf(1, big_n, 1, n)
    got = np.exp(module.log_h_ratio(sizes, n, big_n))
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_zayatz_only_uniques():
    # every class has size 1: P(F=1 | f=1) = 1, S_1 = s_1 / f = 5 / 0.1 = 50 = N: share 1
    e = zayatz({1: 5}, sampling_fraction=0.1)
    assert e.uniques == pytest.approx(50.0) and e.share == pytest.approx(1.0)


@pytest.mark.parametrize(
    "fraction, expected",
    [
        # ARX TestRiskMetrics.testDecisionRule2, the Zayatz branch at f = 0.1 and the rule's
        # value at f = 0.2 (where Zayatz is below SNB, so the rule returns Zayatz).
        (0.1, 0.3207402393466189),
        (0.2, 0.3577099234829125),
    ],
)
def test_zayatz_adult_matches_arx(fraction, expected):
    assert zayatz(ADULT, sampling_fraction=fraction).share == pytest.approx(expected, abs=ARX_TOL)


# --------------------------------------------------------------------------- Pitman


def _log_likelihood(theta, alpha, table):
    """Pitman's log-likelihood by direct sums (independent of the digamma closed forms)."""
    u = sum(table.values())
    n = sum(s * c for s, c in table.items())
    value = sum(math.log(theta + i * alpha) for i in range(1, u))
    value -= sum(math.log(theta + i) for i in range(1, n))
    value += sum(c * sum(math.log(k - alpha) for k in range(1, s)) for s, c in table.items())
    return value


def test_pitman_small_table_is_the_likelihood_maximum():
    table = {1: 6, 2: 1, 5: 1}  # n = 13, u = 8
    e = pitman(table, population_size=260)
    assert e.converged and e.iterations > 0
    theta, alpha = dict(e.parameters)["theta"], dict(e.parameters)["alpha"]
    assert 0 < alpha < 1 and theta > -alpha
    # The scores by direct sums vanish:
    #   dL/dtheta = sum_{i<u} 1/(theta + i alpha) - sum_{i<n} 1/(theta + i)
    #   dL/dalpha = sum_{i<u} i/(theta + i alpha) - sum_j s_j sum_{k<j} 1/(k - alpha)
    d_theta = sum(1 / (theta + i * alpha) for i in range(1, 8)) - sum(1 / (theta + i) for i in range(1, 13))
    d_alpha = sum(i / (theta + i * alpha) for i in range(1, 8))
    d_alpha -= 1 * (1 / (1 - alpha)) + 1 * sum(1 / (k - alpha) for k in range(1, 5))
    assert abs(d_theta) < 1e-9 and abs(d_alpha) < 1e-9
    # ... and it is a maximum: every nearby point has a lower likelihood.
    best = _log_likelihood(theta, alpha, table)
    for dt, da in ((0.05, 0), (-0.05, 0), (0, 0.01), (0, -0.01), (0.05, 0.01), (-0.05, -0.01)):
        assert _log_likelihood(theta + dt, alpha + da, table) < best
    # Hoshino's estimate: Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha
    expected = math.exp(math.lgamma(theta + 1) - math.lgamma(theta + alpha)) * 260**alpha
    assert e.uniques == pytest.approx(expected, rel=1e-12)
    assert e.share == pytest.approx(expected / 260, rel=1e-12)


def test_pitman_exact_expectation_is_the_chinese_restaurant_product():
    # Exact E[S_1] = N prod_{m=1}^{N-1} (theta + alpha + m - 1) / (theta + m): the chance that a
    # given record is joined by none of the N - 1 others, times N.
    theta, alpha, big_n = 2.4, 0.54, 40
    product = big_n * math.prod((theta + alpha + m - 1) / (theta + m) for m in range(1, big_n))
    assert expected_uniques(theta, alpha, big_n, exact=True) == pytest.approx(product, rel=1e-12)
    # Ewens limit (alpha -> 0): N theta / (theta + N - 1)
    assert expected_uniques(3.0, 1e-12, 50, exact=True) == pytest.approx(50 * 3 / 52, rel=1e-9)
    # and the large-N form approaches the exact one
    a = expected_uniques(theta, alpha, 1e7)
    b = expected_uniques(theta, alpha, 1e7, exact=True)
    assert a == pytest.approx(b, rel=1e-5)


@pytest.mark.parametrize(
    "fraction, expected",
    [
        # ARX TestRiskMetrics.testDecisionRule2: the rule's values at f = 0.01 and the Pitman
        # branch at f = 0.1 (Pitman converges on ADULT, so the rule returns Pitman).
        (0.01, 0.1446083531167384),
        (0.1, 0.27684993883653597),
    ],
)
def test_pitman_adult_matches_arx(fraction, expected):
    e = pitman(ADULT, sampling_fraction=fraction)
    assert e.converged
    assert e.share == pytest.approx(expected, abs=ARX_TOL)
    # the exact finite-N expectation is a little lower (factor ~ (1 + theta/N)^(alpha - 1))
    exact = pitman(ADULT, sampling_fraction=fraction, exact=True)
    assert exact.share < e.share and exact.share == pytest.approx(expected, rel=5e-3)


def test_pitman_does_not_converge_with_only_uniques():
    # all records unique: the likelihood increases towards alpha -> 1, no maximum exists
    e = pitman({1: 5}, sampling_fraction=0.1)
    assert not e.converged and not e.valid
    assert math.isnan(e.uniques) and math.isnan(e.share)
    assert "alpha -> 1" in e.reason


def test_pitman_reports_the_ewens_boundary():
    # few, small classes: the profile score is negative on all of (0, 1): alpha -> 0
    e = pitman({1: 3, 2: 1}, sampling_fraction=0.1)
    assert not e.converged and "alpha runs to 0" in e.reason and e.iterations > 0


# --------------------------------------------------------------------------- SNB


def test_shlosser_hand_computed():
    # {1: 3, 2: 1}, f = 0.5: u = 4, s_1 = 3
    # sum (1-f)^i s_i = 0.5 * 3 + 0.25 * 1 = 1.75
    # sum i f (1-f)^(i-1) s_i = 1 * 0.5 * 1 * 3 + 2 * 0.5 * 0.5 * 1 = 2
    # K = 4 + 3 * 1.75 / 2 = 6.625
    assert shlosser(ClassSizes.from_table({1: 3, 2: 1}), 0.5) == pytest.approx(6.625)
    assert shlosser(ClassSizes.from_table({1: 3, 2: 1}), 1.0) == 4  # a census: K = u


def _expected_sample_classes(size, k, alpha, beta, fraction, limit=20000):
    """E[s_size] by brute force: sum over population sizes F = 1 + G, G ~ NB(alpha, beta),
    of K P(F) P(Binomial(F, f) = size) (checks the closed forms of the module)."""
    g = np.arange(limit)
    return k * float(np.sum(nbinom.pmf(g, alpha, beta) * binom.pmf(size, g + 1, fraction)))


@pytest.mark.parametrize("table, fraction", [({1: 3, 2: 1}, 0.5), ({1: 20, 2: 6, 3: 3, 4: 1}, 0.3)])
def test_snb_solves_its_moment_equations(table, fraction):
    e = snb(table, sampling_fraction=fraction)
    assert e.converged and e.iterations > 0
    p = dict(e.parameters)
    k, alpha, beta = p["K"], p["alpha"], p["beta"]
    assert k == pytest.approx(shlosser(ClassSizes.from_table(table), fraction))
    # the fitted model reproduces the observed numbers of classes of size 1 and 2
    assert _expected_sample_classes(1, k, alpha, beta, fraction) == pytest.approx(table[1], rel=1e-6)
    assert _expected_sample_classes(2, k, alpha, beta, fraction) == pytest.approx(table[2], rel=1e-6)
    # population uniques: K P(F = 1) = K P(G = 0) = K beta^alpha
    assert e.uniques == pytest.approx(k * nbinom.pmf(0, alpha, beta), rel=1e-12)


def test_snb_needs_classes_of_size_two():
    e = snb({1: 4, 3: 2}, sampling_fraction=0.3)
    assert not e.converged and "no class of size 2" in e.reason and math.isnan(e.share)


# 100000 sample uniques and 25 classes of every size 2..999, f = 0.5: along the curve where
# E[s_1] = s_1 the model predicts several times more classes of size 2 than observed, so
# the moment equations have no root.
NO_SNB_ROOT = {1: 100_000, **{size: 25 for size in range(2, 1000)}}


def test_snb_reports_when_its_equations_have_no_root():
    e = snb(NO_SNB_ROOT, sampling_fraction=0.5)
    assert not e.converged and e.reason.startswith("no root found") and e.iterations > 0
    assert math.isnan(e.uniques) and dict(e.parameters)["K"] > 0


def test_snb_adult_is_above_zayatz_at_one_fifth():
    # why ARX's rule returns Zayatz's 0.35771 at f = 0.2 (smaller of the two)
    s = snb(ADULT, sampling_fraction=0.2)
    assert s.converged and s.share > zayatz(ADULT, sampling_fraction=0.2).share


# --------------------------------------------------------------------------- shared edge cases


@pytest.mark.parametrize("estimator", [zayatz, pitman, snb])
def test_no_sample_uniques_means_no_population_uniques(estimator):
    e = estimator({2: 4, 3: 1}, sampling_fraction=0.05)
    assert e.converged and e.uniques == 0.0 and e.share == 0.0 and e.iterations == 0


@pytest.mark.parametrize("estimator", [zayatz, pitman, snb])
def test_census_observes_the_uniques(estimator):
    # f = 1: the sample uniques are the population uniques; share = s_1 / n
    e = estimator(ADULT, sampling_fraction=1.0)
    assert e.converged and e.uniques == 15512 and e.share == pytest.approx(0.5142895033485844, abs=1e-15)
    assert estimator({1: 3, 2: 1}, population_size=5).share == pytest.approx(3 / 5)


# --------------------------------------------------------------------------- Dankar's rule


@pytest.mark.parametrize(
    "fraction, model, expected",
    [
        # ARX TestRiskMetrics.testDecisionRule2 (ADULT, every attribute a quasi-identifier)
        (0.01, "pitman", 0.1446083531167384),
        (0.1, "pitman", 0.27684993883653597),
        (0.2, "zayatz", 0.3577099234829125),
        (1.0, "census", 0.5142895033485844),
    ],
)
def test_dankar_adult_matches_arx(fraction, model, expected):
    r = dankar(ADULT, sampling_fraction=fraction)
    assert r.model == model and not r.fell_back
    assert r.share == pytest.approx(expected, abs=ARX_TOL)
    # ARX also asserts that population uniqueness does not exceed sample uniqueness
    assert r.share <= prosecutor(ADULT).sample_uniqueness + 1e-12


def test_dankar_falls_back_to_zayatz_when_pitman_does_not_converge():
    r = dankar({1: 5}, sampling_fraction=0.05)
    assert r.model == "zayatz" and r.fell_back
    assert "Pitman did not converge" in r.reason and "alpha -> 1" in r.reason
    assert [c.model for c in r.candidates] == ["pitman", "zayatz"]
    assert not r.candidates[0].converged
    assert r.share == pytest.approx(1.0)  # every record unique: Zayatz gives N uniques


def test_dankar_falls_back_to_zayatz_when_snb_does_not_converge():
    r = dankar({1: 4, 3: 2}, sampling_fraction=0.3)
    assert r.model == "zayatz" and r.fell_back and "SNB did not converge" in r.reason
    assert r.uniques == pytest.approx(zayatz({1: 4, 3: 2}, sampling_fraction=0.3).uniques)


def test_dankar_falls_back_when_the_snb_fit_fails():
    r = dankar(NO_SNB_ROOT, sampling_fraction=0.5)
    assert r.model == "zayatz" and r.fell_back and "SNB did not converge (no root found" in r.reason


def test_dankar_takes_the_smaller_of_zayatz_and_snb():
    table = {1: 20, 2: 6, 3: 3, 4: 1}
    r = dankar(table, sampling_fraction=0.3)
    s, z = snb(table, sampling_fraction=0.3), zayatz(table, sampling_fraction=0.3)
    assert not r.fell_back and r.uniques == min(s.uniques, z.uniques)


def test_dankar_without_uniques_and_boundary_fraction():
    r = dankar({2: 4, 3: 1}, sampling_fraction=0.01)
    assert (r.model, r.uniques, r.share, r.candidates) == ("none", 0.0, 0.0, ())
    # f = 0.1 exactly still uses Pitman (f <= 0.1)
    assert dankar(ADULT, population_size=301620).model == "pitman"


# --------------------------------------------------------------------------- monotonicity


def _grown(c1):
    return {1: c1, 2: 30, 3: 10, 5: 5, 9: 2}


@pytest.mark.parametrize("fraction", [0.05, 0.3])
@pytest.mark.parametrize("estimator", [zayatz, pitman, snb])
def test_more_sample_uniques_never_fewer_population_uniques(estimator, fraction):
    values = []
    for c1 in range(0, 200, 9):
        e = estimator(_grown(c1), sampling_fraction=fraction)
        if e.valid:
            values.append(e.uniques)
    assert len(values) >= 10
    assert all(b >= a - 1e-9 for a, b in pairwise(values))


def test_dankar_is_monotone_while_it_keeps_its_model():
    # the rule can jump down when it switches model (Zayatz fallback -> Pitman once Pitman
    # converges); with the model fixed it is monotone.
    by_model = {}
    for c1 in range(0, 200, 9):
        r = dankar(_grown(c1), sampling_fraction=0.05)
        by_model.setdefault(r.model, []).append(r.uniques)
    assert "pitman" in by_model
    for values in by_model.values():
        assert all(b >= a - 1e-9 for a, b in pairwise(values))
