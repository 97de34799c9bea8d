"""Pitman's model (Hoshino 2001).

Hoshino, N. "Applying Pitman's sampling formula to microdata disclosure risk assessment",
Journal of Official Statistics 17(4), 2001. Pitman, J. "Exchangeable and partially exchangeable
random partitions", Probab. Theory Relat. Fields 102, 1995.

The sample partition (``u`` classes, ``n`` records, ``s_j`` classes of size ``j``) follows
Pitman's sampling formula with parameters ``0 < alpha < 1`` and ``theta > -alpha``; its
log-likelihood, up to terms free of the parameters, is::

    L = sum_{i=1}^{u-1} log(theta + i alpha) - sum_{i=1}^{n-1} log(theta + i)
        + sum_j s_j sum_{k=1}^{j-1} log(k - alpha)

The maximum-likelihood estimates solve the two score equations (closed forms with the
digamma function ``psi``, with ``A = (psi(theta/alpha + u) - psi(theta/alpha + 1)) / alpha``
= ``sum_{i=1}^{u-1} 1/(theta + i alpha)``)::

    dL/dtheta = A - (psi(theta + n) - psi(theta + 1))                              = 0
    dL/dalpha = ((u - 1) - theta A) / alpha - sum_j s_j (psi(j - alpha) - psi(1 - alpha)) = 0

The number of population uniques is Hoshino's large-N form (the published estimator, the one
Dankar et al. calibrated their rule with, and the one ARX evaluates)::

    S_1 = Gamma(theta + 1) / Gamma(theta + alpha) N^alpha

It is the limit of the exact expectation for a Pitman partition of ``N`` records (the chance
that a given record stays alone in the Chinese-restaurant construction, times ``N``)::

    E[S_1] = N (theta + alpha)^(N-1) / (theta + 1)^(N-1)    (rising factorials)
           = N Gamma(theta+1) Gamma(theta+alpha+N-1) / (Gamma(theta+alpha) Gamma(theta+N))

which ``exact=True`` selects. The two differ by about ``(1 + theta/N)^(alpha-1)``: 0.3 % on
ADULT at f = 0.1 (theta ~ 3176, N ~ 301620), more when theta is not small against N.

The score equations are non-linear and need not have an interior solution: when every class is
small (all sample uniques, say) the likelihood increases towards ``alpha -> 1`` and no maximum
exists. The solver then reports ``converged=False`` with the reason, and Dankar's rule falls
back to Zayatz.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from sqlanon.reidentification.estimate import UniquenessEstimate, failed, observed
from sqlanon.reidentification.frame import ClassSizes, prepare
from sqlanon.reidentification.numerics import brentq, digamma, gammaln

#: Largest score (in absolute value, per equation, relative to n) accepted as a solution.
SCORE_TOLERANCE = 1e-9
#: Alpha this close to 0 or 1 is on the boundary of the parameter space: no interior maximum.
ALPHA_MARGIN = 1e-6
#: Points of the grid on which the profile score is scanned for a change of sign.
GRID = 64


def pitman(
    table: Mapping[int, int] | ClassSizes,
    *,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
    grid: int = GRID,
    exact: bool = False,
) -> UniquenessEstimate:
    """Estimate population uniques with Pitman's model (maximum likelihood).

    Args:
        table: ``{class size: number of classes of that size}`` of the sample.
        sampling_fraction: ``f = n / N`` in (0, 1]; or give ``population_size`` instead.
        population_size: ``N >= n``.
        grid: points of (0, 1) on which the profile score is scanned for the maximum.
        exact: use the exact finite-N expectation instead of Hoshino's large-N form.

    Returns:
        The estimate; ``converged=False`` (and ``uniques`` nan) when the score equations have
        no interior solution the solver can reach.
    """
    classes, frame = prepare(table, sampling_fraction, population_size)
    if isinstance(grid, bool) or not isinstance(grid, int) or grid < 3:
        raise ValueError(f"The 'grid' parameter must be an int >= 3, got {grid!r}.")
    shortcut = observed("pitman", classes, frame)
    if shortcut is not None:
        return shortcut
    if classes.classes < 2:
        return failed("pitman", "a single class: the likelihood does not identify alpha")
    if classes.classes == classes.rows:
        # Every record is a sample unique: sum 1/(theta + i alpha) > sum 1/(theta + i) for
        # every alpha < 1, so the likelihood climbs to alpha -> 1 and has no maximum.
        return failed("pitman", "every sample record is unique: the likelihood has no maximum (alpha -> 1)")
    fit = fit_pitman(classes, grid)
    theta, alpha = fit.theta, fit.alpha
    if theta is None or alpha is None:
        assert fit.reason is not None, "a fit without parameters says why"
        return failed("pitman", fit.reason, fit.evaluations)
    params = (("theta", theta), ("alpha", alpha))
    uniques = expected_uniques(theta, alpha, frame.population_size, exact=exact)
    if not (math.isfinite(uniques) and 0.0 <= uniques <= frame.population_size):
        return failed("pitman", f"estimate {uniques!r} outside [0, N]", fit.evaluations, params)
    return UniquenessEstimate("pitman", uniques, uniques / frame.population_size, True, fit.evaluations, None, params)


@dataclass(frozen=True)
class PitmanFit:
    """Maximum-likelihood parameters, or the reason there are none."""

    theta: float | None
    alpha: float | None
    evaluations: int
    reason: str | None = None


def score(theta: float, alpha: float, classes: ClassSizes) -> tuple[float, float]:
    """The two partial derivatives of the log-likelihood at (theta, alpha)."""
    u, n = classes.classes, classes.rows
    r = theta / alpha
    a = (digamma(r + u) - digamma(r + 1.0)) / alpha
    d_theta = a - (digamma(theta + n) - digamma(theta + 1.0))
    sizes = np.asarray(classes.sizes, dtype=float)
    counts = np.asarray(classes.counts, dtype=float)
    tail = float(np.dot(counts, digamma(sizes - alpha) - digamma(1.0 - alpha)))
    d_alpha = ((u - 1) - theta * a) / alpha - tail
    return float(d_theta), float(d_alpha)


def fit_pitman(classes: ClassSizes, grid: int = GRID) -> PitmanFit:
    """Maximise the likelihood by profiling theta out, with bracketed root finding only.

    1. For a fixed alpha, ``dL/dtheta`` falls from ``+inf`` (theta -> -alpha) to a negative
       value (theta -> inf, since ``u < n``): Brent's method on a bracket found by doubling
       gives ``theta(alpha)``.
    2. The profile score ``g(alpha) = dL/dalpha(theta(alpha), alpha)`` is scanned on a grid of
       ``(0, 1)``; the first change of sign from + to - brackets the maximum, refined by Brent.
       No change of sign means the likelihood climbs to a boundary (alpha -> 1 when classes
       are mostly unique, alpha -> 0 for the Ewens limit): no interior maximum, no estimate.
    3. The root is accepted only if both scores are below ``SCORE_TOLERANCE`` relative to the
       number of records.
    """
    calls = [0]
    n = classes.rows

    def d_theta(theta, alpha):
        calls[0] += 1
        return score(theta, alpha, classes)[0]

    def theta_of(alpha):
        low = -alpha + alpha * 1e-12
        high = max(1.0, float(n))
        while (value := d_theta(high, alpha)) > 0.0:
            high *= 2.0
            if high > 1e300:
                return math.inf
        if not math.isfinite(value) or not d_theta(low, alpha) > 0.0:
            return math.nan  # no bracket: the profile point is dropped
        return brentq(d_theta, low, high, xtol=1e-12, rtol=1e-13, args=(alpha,))

    def profile(alpha):
        theta = theta_of(alpha)
        calls[0] += 1
        return score(theta, alpha, classes)[1] if math.isfinite(theta) else math.nan

    alphas = np.linspace(ALPHA_MARGIN, 1.0 - ALPHA_MARGIN, grid)
    with np.errstate(all="ignore"):
        values = [profile(a) for a in alphas]
        bracket = None
        for (a0, v0), (a1, v1) in zip(zip(alphas, values), zip(alphas[1:], values[1:])):
            if math.isfinite(v0) and math.isfinite(v1) and v0 > 0.0 >= v1:
                bracket = (a0, a1)
                break
        if bracket is None:
            finite = [v for v in values if math.isfinite(v)]
            if finite and all(v > 0.0 for v in finite):
                why = "alpha runs to 1: the likelihood has no interior maximum (too many sample uniques)"
            elif finite and all(v < 0.0 for v in finite):
                why = "alpha runs to 0: the likelihood has no interior maximum (Ewens boundary)"
            else:
                why = "the profile score has no change of sign from + to -"
            return PitmanFit(None, None, calls[0], why)
        alpha = brentq(profile, bracket[0], bracket[1], xtol=1e-14, rtol=1e-14)
        theta = theta_of(alpha)
        residual = max(abs(x) for x in score(theta, alpha, classes))
    if not math.isfinite(residual) or residual > SCORE_TOLERANCE * n:
        return PitmanFit(None, None, calls[0], f"no root: score residual {residual:.3g} at the bracketed maximum")
    return PitmanFit(theta, alpha, calls[0])


def expected_uniques(theta: float, alpha: float, population_size: float, *, exact: bool = False) -> float:
    """Population uniques of a Pitman partition of ``N`` records (see the module docstring)."""
    big_n = float(population_size)
    if exact:
        log_value = (
            math.log(big_n)
            + gammaln(theta + 1.0)
            + gammaln(theta + alpha + big_n - 1.0)
            - gammaln(theta + alpha)
            - gammaln(theta + big_n)
        )
    else:
        log_value = gammaln(theta + 1.0) - gammaln(theta + alpha) + alpha * math.log(big_n)
    return float(math.exp(log_value))
