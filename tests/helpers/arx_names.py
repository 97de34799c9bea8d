"""ARX's names as its JUnit cases spell them (``helpers/arx_suite.py``) mapped to a sqlanon job:
the one place where ARX's metrics, privacy models and algorithms meet the job's keys. A case
that needs what sqlanon does not have raises ``Missing`` naming it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from helpers.jobs import adult_hierarchy

#: ARX's metric -> (metric, gs factor). "Precomputed" and its threshold (0.1) change how ARX
#: computes the value, not the value.
METRICS = {
    "LossMetric()": ("loss", 0.5),
    "LossMetric(0.1)": ("loss", 0.1),
    "PrecomputedLossMetric(0.1)": ("loss", 0.5),
    "EntropyMetric()": ("entropy", 0.5),
    "PrecomputedEntropyMetric(0.1)": ("entropy", 0.5),
    "PrecomputedEntropyMetric(0.1, false)": ("entropy", 0.5),
    "PrecomputedEntropyMetric(0.1, true)": ("entropy-monotonic", 0.5),
    "DiscernabilityMetric()": ("discernibility", 0.5),
    "DiscernabilityMetric(false)": ("discernibility", 0.5),
    "DiscernabilityMetric(true)": ("discernibility-star", 0.5),
    "AECSMetric()": ("aecs", 0.5),
    "PrecisionMetric()": ("precision", 0.5),
    "ClassificationMetric()": ("classification", 0.5),
}
MISSING_METRICS = {
    "PublisherPayoutMetric(false)": "the publisher-payout metric",
    "EntropyBasedInformationLossMetric()": "the entropy-based information-loss metric",
}
#: ARX's algorithm -> sqlanon's, and the step limit its cases set (1000)
ALGORITHMS = {
    "OPTIMAL": "flash",
    "BEST_EFFORT_BOTTOM_UP": "lightning",
    "BEST_EFFORT_TOP_DOWN": "lightning-top-down",
    "BEST_EFFORT_GENETIC": "genetic",
}
MISSING_ALGORITHMS: dict[str, str] = {}
MISSING_MODELS = {
    "EDDifferentialPrivacy": "(epsilon, delta)-differential privacy (SafePub)",
    "ProfitabilityJournalist": "profitability (game-theoretic)",
    "ProfitabilityJournalistNoAttack": "profitability (game-theoretic)",
    "ProfitabilityProsecutor": "profitability (game-theoretic)",
}
#: ARX's Region.USA (ARXPopulationModel)
USA = 317_238_626
#: the subset column the ADULT input carries for ARX's research subset (tests/golden/arx/)
RESEARCH_SUBSET = "arx_subset"


class Missing(Exception):
    """What sqlanon lacks to express the case."""


@dataclass(frozen=True)
class Translation:
    algorithm: str
    metric: str
    gs_factor: float
    k: int
    models: tuple[dict, ...]
    sensitive: str
    #: the subset column the case reads (RESEARCH_SUBSET, or "random_<n>" for getSubset(n))
    subset: str | None = None
    options: dict = field(default_factory=dict)


def _arguments(text: str) -> list[str]:
    return [a.strip().strip('"') for a in text.split(",")] if text else []


def _model(expression: str, sensitive: str) -> tuple[dict | int | None, str | None]:
    """(a model spec, or k for KAnonymity; the subset column it reads)."""
    name, _, rest = expression.partition("(")
    args = _arguments(rest[:-1])
    if name in MISSING_MODELS:
        raise Missing(MISSING_MODELS[name])
    if name == "KAnonymity":
        return int(args[0]), None
    if name == "DistinctLDiversity":
        return {"type": "distinct-l-diversity", "attribute": args[0], "l": int(args[1])}, None
    if name == "EntropyLDiversity":
        if len(args) > 2 and args[2] == "GRASSBERGER":
            raise Missing("entropy-l-diversity with the Grassberger estimator")
        return {"type": "entropy-l-diversity", "attribute": args[0], "l": float(args[1])}, None
    if name == "RecursiveCLDiversity":
        return {"type": "recursive-cl-diversity", "attribute": args[0], "c": float(args[1]), "l": int(args[2])}, None
    if name.endswith("DistanceTCloseness"):
        spec = {"type": "t-closeness", "attribute": args[0], "t": float(args[1])}
        if name.startswith("Hierarchical"):
            spec |= {"distance": "hierarchical", "hierarchy": str(adult_hierarchy(args[0]))}
        elif name.startswith("Ordered"):
            # ARX orders a string attribute by String.compareTo: code-unit order, as Python sorts ASCII
            values = [line.split(";")[0] for line in adult_hierarchy(args[0]).read_text().split()]
            spec |= {"distance": "ordered", "order": sorted(values)}
        return spec, None
    if name in ("BasicBLikeness", "EnhancedBLikeness"):
        spec = {"type": "beta-likeness", "attribute": args[0], "beta": float(args[1])}
        return spec | {"enhanced": name.startswith("Enhanced")}, None
    if name == "DPresence":
        subset = RESEARCH_SUBSET if args[2] == "RESEARCH_SUBSET" else None
        return {"type": "delta-presence", "dmin": float(args[0]), "dmax": float(args[1]), "subset": subset}, subset
    if name == "Inclusion":
        # ARX's Inclusion releases the subset's rows only: delta-presence with bounds that always hold
        size = re.fullmatch(r"getSubset\((\d+)\)", args[0])
        assert size, expression
        column = f"random_{size.group(1)}"
        return {"type": "delta-presence", "dmin": 0.0, "dmax": 1.0, "subset": column}, column
    if name == "KMap" and len(args) == 2:
        assert args[1] == "RESEARCH_SUBSET", expression
        return {"type": "k-map", "k": int(args[0]), "subset": RESEARCH_SUBSET}, RESEARCH_SUBSET
    if name == "KMap":
        assert args[2] == "USA", expression
        estimator = args[3].lower().replace("_", "-")
        spec = {"type": "k-map", "k": int(args[0]), "significance": float(args[1]), "estimator": estimator}
        return spec | {"population_size": USA}, None
    if name == "AverageReidentificationRisk":
        return {"type": "average-risk", "threshold": float(args[0])}, None
    if name == "SampleUniqueness":
        return {"type": "sample-uniqueness", "threshold": float(args[0])}, None
    if name == "getPopulationUniqueness":
        spec = {"type": "population-uniqueness", "threshold": float(args[0]), "model": args[1].lower()}
        return spec | {"population_size": USA}, None
    raise AssertionError(f"no mapping for ARX's {expression}")


def translate(case) -> Translation:
    if "optimizeIterativeFast" in case.extra:
        raise Missing("cell suppression (optimizeIterativeFast)")
    if "optimizeIterative" in case.extra:
        raise Missing("local recoding (optimizeIterative)")
    if case.metric in MISSING_METRICS:
        raise Missing(MISSING_METRICS[case.metric])
    if case.algorithm in MISSING_ALGORITHMS:
        raise Missing(MISSING_ALGORITHMS[case.algorithm])
    metric, gs = METRICS[case.metric]
    k, models, subsets = 1, [], set()
    for expression in case.models:
        spec, subset = _model(expression, case.sensitive)
        if isinstance(spec, int):
            k = spec
        elif spec is not None:
            models.append(spec)
        if subset:
            subsets.add(subset)
    assert len(subsets) <= 1, case
    algorithm = ALGORITHMS[case.algorithm]
    options = {"step_limit": 1000} if algorithm != "flash" else {}
    if algorithm == "genetic":
        options["seed"] = 1  # ARX's cases fix its genetic search's seed (setGeneticAlgorithmDeterministic)
    return Translation(algorithm, metric, gs, k, tuple(models), case.sensitive, next(iter(subsets), None), options)


def java_subset(size: int, rows: int = 30162) -> list[bool]:
    """ARX's ``getSubset(size)`` (TestAnonymizationSubset): ``size`` draws of
    ``new Random(0xDEADBEEF).nextInt(size)``, the set of them as row indices. java.util.Random
    is a 48-bit linear congruential generator (its documented algorithm)."""
    mask = (1 << 48) - 1
    seed = (-559038737 ^ 0x5DEECE66D) & mask  # the int literal 0xDEADBEEF, sign-extended

    def next31() -> int:
        nonlocal seed
        seed = (seed * 0x5DEECE66D + 0xB) & mask
        return seed >> 17

    def next_int(bound: int) -> int:
        if bound & -bound == bound:
            return (bound * next31()) >> 31
        while True:
            bits = next31()
            value = bits % bound
            if bits - value + (bound - 1) < 2**31:  # Java's int overflow test
                return value

    chosen = {next_int(size) for _ in range(size)}
    return [i in chosen for i in range(rows)]
