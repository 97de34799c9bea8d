"""Privacy models, one per module, registered by the name a job gives in [[privacy.models]]."""

from __future__ import annotations

from typing import Sequence

from sqlanon.criteria.average_risk import AverageRisk
from sqlanon.criteria.base import PrivacyModel
from sqlanon.criteria.beta_likeness import BetaLikeness
from sqlanon.criteria.delta_disclosure import DeltaDisclosure
from sqlanon.criteria.delta_presence import DeltaPresence
from sqlanon.criteria.distinct_l_diversity import DistinctLDiversity
from sqlanon.criteria.entropy_l_diversity import EntropyLDiversity
from sqlanon.criteria.k_anonymity import KAnonymity
from sqlanon.criteria.k_map import KMap
from sqlanon.criteria.population_uniqueness import PopulationUniqueness
from sqlanon.criteria.recursive_cl_diversity import RecursiveCLDiversity
from sqlanon.criteria.sample_uniqueness import SampleUniqueness
from sqlanon.criteria.t_closeness import TCloseness
from sqlanon.errors import ConfigError

MODELS: dict[str, type[PrivacyModel]] = {
    m.name: m
    for m in (
        DistinctLDiversity,
        EntropyLDiversity,
        RecursiveCLDiversity,
        TCloseness,
        DeltaDisclosure,
        BetaLikeness,
        AverageRisk,
        SampleUniqueness,
        DeltaPresence,
        PopulationUniqueness,
        KMap,
    )
}
MODEL_NAMES = ("k-anonymity", *MODELS)


def build_model(spec: dict) -> PrivacyModel:
    """One model from its job entry (a dict with ``type``); ConfigError names what is wrong."""
    kind = spec.get("type")
    if kind not in MODELS:
        raise ConfigError(f"unknown privacy model {kind!r}; valid models: {', '.join(MODEL_NAMES)}")
    cls = MODELS[kind]
    options = {key: value for key, value in spec.items() if key != "type"}
    extra = set(options) - set(cls.options)
    if extra:
        raise ConfigError(f"unknown key(s) {sorted(extra)} for the {kind} model; known: {', '.join(cls.options)}")
    required = [
        o
        for o in cls.__init__.__code__.co_varnames[1 : cls.__init__.__code__.co_argcount]
        if o not in options and o not in (cls.__init__.__kwdefaults__ or {}) and o not in _defaults(cls)
    ]
    if required:
        raise ConfigError(f"the {kind} model needs {', '.join(required)} (e.g. {required[0]} = ...)")
    return cls(**options)


def _defaults(cls) -> set[str]:
    code = cls.__init__.__code__
    names = code.co_varnames[1 : code.co_argcount]
    return set(names[len(names) - len(cls.__init__.__defaults__ or ()) :])


def build_models(specs: Sequence[dict]) -> list[PrivacyModel]:
    """The job's models from their entries (``Job.model_specs``: k-anonymity first, skipped
    when k = 1, which every class meets, unless it is the only one), each other bound to its
    own column and parameter prefix."""
    k = [spec["k"] for spec in specs if spec.get("type") == "k-anonymity"]
    others = [spec for spec in specs if spec.get("type") != "k-anonymity"]
    models: list[PrivacyModel] = [KAnonymity(k[0])] if k and (k[0] > 1 or not others) else []
    models += [build_model(dict(spec)).bind(f"m{i}") for i, spec in enumerate(others, start=1)]
    return models


__all__ = ["MODELS", "MODEL_NAMES", "KAnonymity", "PrivacyModel", "build_model", "build_models"]
