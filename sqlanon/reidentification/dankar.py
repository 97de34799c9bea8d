"""Dankar et al.'s decision rule for population uniqueness.

Dankar, F. K., El Emam, K., Neisa, A. and Roffey, T. "Estimating the re-identification risk of
clinical data sets", BMC Medical Informatics and Decision Making 12:66, 2012. The rule picks
between Pitman, Zayatz and SNB by the sampling fraction and the difference between estimates.
We follow the reading ARX implements (``RiskModelPopulationUniqueness``):

* no sample unique: 0 population uniques, no model needed;
* ``f = 1`` (a census): the sample uniques are the population uniques, no model needed;
* ``f <= 0.1``: Pitman; if Pitman does not converge, Zayatz (the fallback is reported);
* ``f > 0.1``: the smaller of Zayatz and SNB; if SNB does not converge, Zayatz (reported).

Zayatz is a closed form and always gives a number, which is why it is the fallback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlanon.reidentification.estimate import UniquenessEstimate
from sqlanon.reidentification.frame import ClassSizes, prepare
from sqlanon.reidentification.pitman import pitman
from sqlanon.reidentification.snb import snb
from sqlanon.reidentification.zayatz import zayatz

#: Sampling fractions up to this value use Pitman (Dankar et al. 2012).
SMALL_FRACTION = 0.1


@dataclass(frozen=True)
class DankarEstimate:
    """The rule's answer.

    Attributes:
        model: the estimator whose number was chosen (``"pitman"``, ``"zayatz"``, ``"snb"``),
            ``"none"`` when there is no sample unique, ``"census"`` when f = 1.
        uniques: estimated number of population uniques.
        share: ``uniques / N`` (see ``UniquenessEstimate.share``).
        fell_back: a preferred estimator did not converge and Zayatz was used instead.
        reason: why the rule chose as it did (always set: the report can print it).
        candidates: every estimate the rule computed, in the order it computed them.
    """

    model: str
    uniques: float
    share: float
    fell_back: bool
    reason: str
    candidates: tuple[UniquenessEstimate, ...]


def dankar(
    table: Mapping[int, int] | ClassSizes,
    *,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
) -> DankarEstimate:
    """Estimate population uniques with Dankar et al.'s decision rule.

    >>> r = dankar({1: 2, 2: 1}, sampling_fraction=1.0)
    >>> r.model, r.share
    ('census', 0.5)
    >>> dankar({1: 2, 2: 1}, sampling_fraction=0.5).model
    'snb'
    """
    classes, frame = prepare(table, sampling_fraction, population_size)
    population = frame.population_size
    if classes.uniques == 0:
        return DankarEstimate("none", 0.0, 0.0, False, "no sample uniques: no population unique is estimated", ())
    if frame.is_census:
        u = float(classes.uniques)
        return DankarEstimate(
            "census",
            u,
            u / frame.population_size,
            False,
            "census (f = 1): the sample uniques are the population uniques",
            (),
        )
    f = frame.fraction
    if f <= SMALL_FRACTION:
        p = pitman(classes, population_size=population)
        if p.valid:
            return _pick(p, False, f"f = {f:.6g} <= {SMALL_FRACTION}: Pitman", (p,))
        z = zayatz(classes, population_size=population)
        return _pick(z, True, f"f = {f:.6g} <= {SMALL_FRACTION}: Pitman did not converge ({p.reason}); Zayatz", (p, z))
    s = snb(classes, population_size=population)
    z = zayatz(classes, population_size=population)
    if not s.valid:
        return _pick(z, True, f"f = {f:.6g} > {SMALL_FRACTION}: SNB did not converge ({s.reason}); Zayatz", (s, z))
    best = z if z.uniques < s.uniques else s
    name = "Zayatz" if best is z else "SNB"
    return _pick(best, False, f"f = {f:.6g} > {SMALL_FRACTION}: the smaller of Zayatz and SNB ({name})", (s, z))


def _pick(estimate: UniquenessEstimate, fell_back: bool, reason: str, candidates) -> DankarEstimate:
    return DankarEstimate(estimate.model, estimate.uniques, estimate.share, fell_back, reason, tuple(candidates))
