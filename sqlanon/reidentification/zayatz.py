"""Zayatz's equivalence-class model (Zayatz 1991, as used by Dankar et al. 2012).

Zayatz, L. "Estimation of the number of unique population elements using a sample",
Proc. Survey Research Methods Section, ASA, 1991.

Bayes' rule gives the probability that a sample unique is a population unique::

    P(F=1 | f=1) = p_1 h_1 / sum_j p_j h_j,    h_j = P(f=1 | F=j) = C(j,1) C(N-j, n-1) / C(N, n)

where ``p_j`` is the share of population classes of size ``j``, estimated (as Dankar et al.
describe it, and as ARX does) by the share of *sample* classes of size ``j`` (``s_j / u``),
and ``h_j`` is hypergeometric: drawing ``n`` of ``N`` records without replacement, exactly one
of a class of size ``j``. The number of population uniques is then::

    S_1 = s_1 P(F=1 | f=1) N / n.

A closed form: it always "converges". Only the ratios ``h_j / h_1`` matter; they are computed
in logs without forming the binomial coefficients::

    h_j / h_1 = j C(N-j, n-1) / C(N-1, n-1) = j prod_{i=1}^{j-1} (1 - (n-1) / (N-i))

(0 once ``j > N - n + 1``: a class that large cannot leave a single record out of the sample).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sqlanon.reidentification.estimate import UniquenessEstimate, observed
from sqlanon.reidentification.frame import ClassSizes, prepare
from sqlanon.reidentification.numerics import gammaln


def zayatz(
    table: Mapping[int, int] | ClassSizes,
    *,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
) -> UniquenessEstimate:
    """Estimate population uniques with Zayatz's model.

    Args:
        table: ``{class size: number of classes of that size}`` of the sample.
        sampling_fraction: ``f = n / N`` in (0, 1]; or give ``population_size`` instead.
        population_size: ``N >= n``.

    >>> e = zayatz({1: 2, 2: 1}, population_size=8)
    >>> round(e.uniques, 6)
    2.545455
    """
    classes, frame = prepare(table, sampling_fraction, population_size)
    shortcut = observed("zayatz", classes, frame)
    if shortcut is not None:
        return shortcut
    # The hypergeometric needs an integral population: N = n / f rounded to the nearest record.
    big_n = max(round(frame.population_size), frame.sample_size)
    n = frame.sample_size
    counts = np.asarray(classes.counts, dtype=float)
    ratios = np.exp(log_h_ratio(np.asarray(classes.sizes), n, big_n))
    # p_j is proportional to s_j, so u cancels: P = s_1 h_1 / sum_j s_j h_j (sizes[0] == 1 here)
    p_unique = float(counts[0] / np.dot(counts, ratios))
    uniques = classes.uniques * p_unique * big_n / n
    return UniquenessEstimate(
        "zayatz",
        uniques,
        uniques / big_n,
        True,
        0,
        None,
        (("p_unique_given_sample_unique", p_unique),),
    )


#: Largest class size for which the product above is summed term by term (exact to rounding);
#: beyond it, differences of log-gamma values are used (relative error ~ 1e-7 for N ~ 1e9).
EXACT_PRODUCT_LIMIT = 1_000_000


def log_h_ratio(sizes: np.ndarray, n: int, big_n: int) -> np.ndarray:
    """``log(h_j / h_1)`` for each class size ``j`` (``-inf`` where ``h_j = 0``)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    largest = int(sizes.max())
    with np.errstate(divide="ignore", invalid="ignore"):
        if largest <= EXACT_PRODUCT_LIMIT:
            i = np.arange(1, largest, dtype=float)
            terms = np.where(big_n - n - i + 1 > 0, np.log1p(-(n - 1) / (big_n - i)), -np.inf)
            cumulative = np.concatenate(([0.0], np.cumsum(terms)))
            log_product = cumulative[sizes - 1]
        else:
            j = sizes.astype(float)
            possible = j <= big_n - n + 1
            jj = np.where(possible, j, 1.0)
            log_product = np.where(
                possible,
                gammaln(big_n - n + 1.0)
                - gammaln(big_n - n - jj + 2.0)
                - gammaln(float(big_n))
                + gammaln(big_n - jj + 1.0),
                -np.inf,
            )
    return np.log(sizes.astype(float)) + log_product
