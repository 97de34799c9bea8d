"""The report doubles as a manifest: enough to apply the same transformation to new data.

A manifest names the QIs in order, the level of each, a checksum of each hierarchy (of its rows
for a file or a given table, of its spec for a builder, since a builder's rows follow the
data), the privacy models and the suppression limit. Reading one back is
``sqlanon.report.manifest_input``: a manifest is input, checked field by field and held to the
job that applies it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlanon.config.job import Job
from sqlanon.hierarchy import Hierarchy
from sqlanon.core.report import Manifest

VERSION = 1


def hierarchy_digest(attribute, hierarchy) -> str:
    if isinstance(attribute.hierarchy, dict):
        return "sha256:" + hashlib.sha256(json.dumps(attribute.hierarchy, sort_keys=True).encode("utf-8")).hexdigest()
    return hierarchy.checksum


def manifest_models(job: Job) -> list[dict[str, Any]]:
    """The job's models as its manifest lists them: k-anonymity first, then each
    ``[[privacy.models]]`` entry as given (``model`` for its ``type``)."""
    return [
        {"model": spec["type"], **{key: _plain(v) for key, v in spec.items() if key != "type"}}
        for spec in job.model_specs
    ]


def build_manifest(job: Job, qis: list[str], node, hierarchies) -> Manifest:
    return Manifest(
        version=VERSION,
        quasi_identifiers=qis,
        levels=dict(zip(qis, node)),
        hierarchies={a.name: hierarchy_digest(a, h) for a, h in zip(job.quasi_identifiers, hierarchies)},
        models=manifest_models(job),
        suppression_limit=job.suppression_limit,
        suppressed=job.output.suppressed,
    )


def _plain(value):
    """A model setting as JSON can hold it (a hierarchy given in code is named by its source)."""
    return value.source if isinstance(value, Hierarchy) else value
