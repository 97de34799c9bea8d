"""The report's risk section for one table (the input, a node, or the released output).

Input: the class-size table ``{size: classes}`` an engine computed in SQL (``class_sizes``);
the prosecutor figures and the population estimates come from the functions of this package.
Every estimator's convergence, reason and parameters are kept, so a fallback of Dankar's rule
(Pitman or SNB not converging) is visible in the report, not only its number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from sqlanon.reidentification.dankar import dankar
from sqlanon.reidentification.estimate import UniquenessEstimate
from sqlanon.reidentification.pitman import pitman
from sqlanon.reidentification.prosecutor import prosecutor
from sqlanon.reidentification.snb import snb
from sqlanon.reidentification.zayatz import zayatz

ESTIMATORS = {"zayatz": zayatz, "pitman": pitman, "snb": snb}


def estimate(table: Mapping[int, int], model: str, population_size: float):
    """One model's population-uniqueness estimate (``dankar`` or a single estimator)."""
    if model == "dankar":
        return dankar(table, population_size=population_size)
    return ESTIMATORS[model](table, population_size=population_size)


def _number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None  # JSON has no NaN: a missing number is null


def _estimate_entry(e: UniquenessEstimate) -> dict:
    return {
        "uniques": _number(e.uniques),
        "share": _number(e.share),
        "converged": e.converged,
        "iterations": e.iterations,
        "reason": e.reason,
        "parameters": {k: v for k, v in e.parameters},
    }


def population_section(table: Mapping[int, int], population_size: float, model: str = "dankar") -> dict:
    """Every estimator on the sample, and Dankar et al.'s choice with its reason."""
    rows = sum(s * c for s, c in table.items())
    rule = dankar(table, population_size=population_size)
    estimates = {name: f(table, population_size=population_size) for name, f in ESTIMATORS.items()}
    return {
        "population_size": population_size,
        "sampling_fraction": rows / population_size,
        "model": model,
        "share": _number(rule.share if model == "dankar" else estimates[model].share),
        "dankar": {
            "model": rule.model,
            "uniques": _number(rule.uniques),
            "share": _number(rule.share),
            "fell_back": rule.fell_back,
            "reason": rule.reason,
        },
        "estimators": {name: _estimate_entry(e) for name, e in estimates.items()},
    }


def risk_section(
    table: Mapping[int, int],
    threshold: float = 0.2,
    population_size: float | None = None,
    model: str = "dankar",
    suppressed: int = 0,
) -> dict:
    """Prosecutor figures, sample and population uniqueness and the class-size histogram of a
    table given by its class sizes; ``suppressed`` rows are not part of it (they are reported
    beside, as ARX's risk analysis ignores suppressed records)."""
    table = {int(s): int(c) for s, c in table.items() if c}
    section: dict = {
        "records": sum(s * c for s, c in table.items()),
        "classes": sum(table.values()),
        "suppressed_records": suppressed,
        "threshold": threshold,
    }
    if not table:  # nothing released: nobody to re-identify
        section.update(
            highest_risk=0.0,
            average_risk=0.0,
            records_at_risk=0,
            share_at_risk=0.0,
            sample_uniques=0,
            sample_uniqueness=0.0,
            population=None,
            histogram=[],
            class_sizes=[],
        )
        if population_size is not None:
            section["population"] = {
                "population_size": population_size,
                "model": model,
                "share": 0.0,
                "reason": "no record released",
            }
        return section
    p = prosecutor(table, threshold=threshold)
    section.update(
        highest_risk=p.highest_risk,
        average_risk=p.average_risk,
        records_at_risk=p.records_at_risk,
        share_at_risk=p.share_at_risk,
        sample_uniques=p.sample_uniques,
        sample_uniqueness=p.sample_uniqueness,
        population=population_section(table, population_size, model) if population_size is not None else None,
        histogram=[
            {"sizes": b.label, "low": b.low, "high": b.high, "classes": b.classes, "records": b.records}
            for b in p.histogram
        ],
        class_sizes=[[s, table[s]] for s in sorted(table)],
    )
    return section
