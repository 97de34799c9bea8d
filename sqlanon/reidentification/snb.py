"""The slide negative binomial (SNB) model (Chen & McNulty 1998).

Chen, G. and Keller-McNulty, S. "Estimation of identification disclosure risk in microdata",
Journal of Official Statistics 14(1), 1998. The number of population classes ``K`` is
estimated with Shlosser's estimator (Shlosser 1981; in the form given by Haas, Naughton,
Seshadri & Stokes, "Sampling-based estimation of the number of distinct values of an
attribute", VLDB 1995).

Model: each of the ``K`` population classes has size ``F = 1 + G`` with ``G`` negative
binomial, ``P(G = g) = C(g + alpha - 1, g) beta^alpha (1 - beta)^g`` (a negative binomial
"slid" by one so that no class is empty). Records are sampled independently with probability
``f``. Thinning ``G`` gives again a negative binomial, with ``beta' = beta / (1 - d)`` where
``d = (1 - f)(1 - beta)``, and the slid record is kept with probability ``f``, so the expected
numbers of sample classes of size 1 and 2 are (our derivation from the model)::

    E[s_1] = K f (beta / (1 - d))^alpha (1 + alpha d / (1 - d))
    E[s_2] = K alpha beta^alpha f^2 (1 - beta) (2 - (1 - alpha) d) / (2 (1 - d)^(alpha + 2))

The parameters are the moment estimates that equate these with the observed ``s_1`` and
``s_2``; the number of population uniques is ``K P(F = 1) = K beta^alpha``.

ARX (``ModelSNB``) multiplies ``E[s_2]`` by ``(1 - d)^(alpha + 2)`` instead of dividing, and its
Shlosser variant (Haas et al.'s third form, with an operator-precedence slip) differs from the
classic one used here: its SNB numbers are therefore not a reference for this module. At
``f = 1`` both ``E[s_1] = K beta^alpha`` and our estimate reduce to the observed ``s_1``.

Shlosser's estimator of ``K`` from the sample's ``u`` classes, ``s_i`` of size ``i``::

    K = u + s_1 sum_i (1 - f)^i s_i / sum_i i f (1 - f)^(i-1) s_i

The moment equations are solved (in logs, with ``alpha = exp(x)`` and ``beta = expit(y)`` so
that every iterate is admissible) by SciPy's hybrid Powell method from several starting
points; a root counts only when both log-residuals are below ``RESIDUAL_TOLERANCE``. With no
class of size 2 the second equation has no admissible solution and the fit is reported as not
converged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from sqlanon.reidentification.estimate import UniquenessEstimate, failed, observed
from sqlanon.reidentification.frame import ClassSizes, prepare
from sqlanon.reidentification.numerics import expit, logit, root

#: Largest |log(expected / observed)| accepted, per equation.
RESIDUAL_TOLERANCE = 1e-9
#: Residual returned where the equations cannot be evaluated (far outside the useful range).
OUTSIDE = 1e6
#: Starting points (alpha, beta) tried in turn.
STARTS = ((1.0, 0.5), (0.1, 0.5), (10.0, 0.5), (0.5, 0.1), (0.5, 0.9), (0.01, 0.05), (100.0, 0.99))


def snb(
    table: Mapping[int, int] | ClassSizes,
    *,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
    max_evaluations: int = 400,
) -> UniquenessEstimate:
    """Estimate population uniques with the SNB model.

    Args:
        table: ``{class size: number of classes of that size}`` of the sample.
        sampling_fraction: ``f = n / N`` in (0, 1]; or give ``population_size`` instead.
        population_size: ``N >= n``.
        max_evaluations: budget of evaluations per starting point.
    """
    classes, frame = prepare(table, sampling_fraction, population_size)
    if isinstance(max_evaluations, bool) or not isinstance(max_evaluations, int) or max_evaluations < 1:
        raise ValueError(f"The 'max_evaluations' parameter must be an int >= 1, got {max_evaluations!r}.")
    shortcut = observed("snb", classes, frame)
    if shortcut is not None:
        return shortcut
    f = frame.fraction
    s1, s2 = classes.uniques, classes.count(2)
    k = shlosser(classes, f)
    if s2 == 0:
        return failed("snb", "no class of size 2: the moment equations have no admissible solution", 0, (("K", k),))
    log_k, log_f = math.log(k), math.log(f)
    targets = np.array([math.log(s1), math.log(s2)])

    def unpack(z):
        alpha = math.exp(min(max(z[0], -700.0), 700.0))
        beta = min(max(float(expit(z[1])), 1e-300), 1.0 - 1e-16)
        return alpha, beta

    def equations(z):
        alpha, beta = unpack(z)
        d = (1.0 - f) * (1.0 - beta)
        try:
            log_1md = math.log1p(-d)
            log_e1 = log_k + log_f + alpha * (math.log(beta) - log_1md) + math.log1p(alpha * d / (1.0 - d))
            log_e2 = (
                log_k
                + math.log(alpha)
                + alpha * math.log(beta)
                + 2.0 * log_f
                + math.log1p(-beta)
                - math.log(2.0)
                - (alpha + 2.0) * log_1md
                + math.log(2.0 - (1.0 - alpha) * d)
            )
        except (ValueError, OverflowError):  # far outside the useful range: steer back
            return np.array([OUTSIDE, OUTSIDE])
        return np.array([log_e1, log_e2]) - targets

    evaluations = 0
    last = "no starting point reached a root of the moment equations"
    for alpha0, beta0 in STARTS:
        z0 = np.array([math.log(alpha0), float(logit(beta0))])
        with np.errstate(all="ignore"):
            sol = root(equations, z0, method="hybr", options={"maxfev": max_evaluations})
            evaluations += int(sol.nfev)
            residual = np.abs(equations(sol.x))
        if not np.all(np.isfinite(residual)) or residual.max() > RESIDUAL_TOLERANCE:
            message = " ".join(sol.message.split())
            last = f"no root found (log-residual {residual.max():.3g}; solver: {message})"
            continue
        alpha, beta = unpack(sol.x)
        if not (0.0 < beta < 1.0 and alpha > 0.0):
            last = f"the root lies on the boundary (alpha={alpha:.6g}, beta={beta:.6g})"
            continue
        uniques = k * beta**alpha
        params = (("K", k), ("alpha", alpha), ("beta", beta))
        if not (math.isfinite(uniques) and 0.0 <= uniques <= frame.population_size):
            return failed("snb", f"estimate {uniques!r} outside [0, N]", evaluations, params)
        return UniquenessEstimate("snb", uniques, uniques / frame.population_size, True, evaluations, None, params)
    return failed("snb", last, evaluations, (("K", k),))


def shlosser(classes: ClassSizes, fraction: float) -> float:
    """Shlosser's estimate of the number of population classes (see the module docstring).

    >>> round(shlosser(ClassSizes.from_table({1: 2, 2: 1}), 0.5), 6)
    4.666667
    """
    q = fraction
    sizes = np.asarray(classes.sizes, dtype=float)
    counts = np.asarray(classes.counts, dtype=float)
    numerator = float(np.dot((1.0 - q) ** sizes, counts))
    denominator = float(np.dot(sizes * q * (1.0 - q) ** (sizes - 1.0), counts))
    if denominator == 0.0:  # f = 1: the sample is the population
        return float(classes.classes)
    return classes.classes + classes.uniques * numerator / denominator
