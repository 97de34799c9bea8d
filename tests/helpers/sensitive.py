"""ADULT with occupation and salary-class sensitive, and the models over them the engine suite
runs on every engine (those of tests/search/test_models_adult.py and two on salary-class)."""

from __future__ import annotations

from dataclasses import replace
from helpers.jobs import adult_job
from helpers.models_adult import MODELS as OCCUPATION_MODELS
from sqlanon import Attribute

QIS5 = ["sex", "age", "race", "marital-status", "education"]  # 240 nodes
MODELS = {
    **OCCUPATION_MODELS,
    "salary-entropy": {"type": "entropy-l-diversity", "attribute": "salary-class", "l": 1.7},
    "salary-recursive": {"type": "recursive-cl-diversity", "attribute": "salary-class", "c": 2.5, "l": 2},
}
SENSITIVE = ("occupation", "salary-class")


def sensitive_job(qis, **kwargs):
    job = adult_job(qis, **kwargs)
    job = replace(
        job, attributes=[Attribute(a.name, "sensitive") if a.name in SENSITIVE else a for a in job.attributes]
    )
    return job
