"""The report doubles as a manifest: enough to apply the same transformation to new data.

A manifest names the QIs in order, the level of each, a checksum of each hierarchy (of its rows
for a file or a given table, of its spec for a builder, since a builder's rows follow the
data), the privacy models and the suppression limit. ``apply`` refuses a job whose QIs or
hierarchies differ, then re-checks the models on the new data.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from sqlanon.config import files
from sqlanon.config.job import Job
from sqlanon.errors import ConfigError
from sqlanon.hierarchy import Hierarchy
from sqlanon.report.model import Manifest

VERSION = 1


def hierarchy_digest(attribute, hierarchy) -> str:
    if isinstance(attribute.hierarchy, dict):
        text = json.dumps(attribute.hierarchy, sort_keys=True)
    else:
        text = "\n".join(";".join(row) for row in hierarchy.rows)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_manifest(job: Job, qis: list[str], node, hierarchies) -> Manifest:
    return Manifest(
        version=VERSION,
        quasi_identifiers=qis,
        levels=dict(zip(qis, node)),
        hierarchies={a.name: hierarchy_digest(a, h) for a, h in zip(job.quasi_identifiers, hierarchies)},
        models=[{"model": "k-anonymity", "k": job.k}]
        + [{"model": spec["type"], **{k: _plain(v) for k, v in spec.items() if k != "type"}} for spec in job.models],
        suppression_limit=job.suppression_limit,
        suppressed=job.output.suppressed,
    )


def _plain(value):
    """A model setting as JSON can hold it (a hierarchy given in code is named by its source)."""
    return value.source if isinstance(value, Hierarchy) else value


def load_manifest(path: str) -> dict:
    data = files.read_limited(path, "manifest", files.MANIFEST_LIMIT, ConfigError, "pass the report.json an anonymize "
                              "run wrote", missing=f"cannot read manifest {path}: no such file")
    try:
        document = json.loads(files.utf8_text(data, "manifest", path, ConfigError))
    except json.JSONDecodeError as error:
        raise ConfigError(f"manifest {path} is not JSON: {error}") from None
    manifest = document.get("manifest", document)
    if not isinstance(manifest, dict) or manifest.get("version") != VERSION:
        raise ConfigError(f"{path} holds no manifest of version {VERSION}: pass the report.json of an anonymize run")
    return manifest


def job_for_manifest(job: Job, manifest: dict) -> tuple[Job, tuple[int, ...]]:
    """The job with the manifest's privacy settings, and the saved node; refuse a mismatch."""
    qis = [a.name for a in job.quasi_identifiers]
    if qis != manifest["quasi_identifiers"]:
        raise ConfigError(
            f"the job's quasi-identifiers {qis} differ from the manifest's {manifest['quasi_identifiers']}"
        )
    k = next(m["k"] for m in manifest["models"] if m["model"] == "k-anonymity")
    others = tuple({"type": m["model"], **{key: v for key, v in m.items() if key != "model"}}
                   for m in manifest["models"] if m["model"] != "k-anonymity")
    job = replace(job, k=k, models=others, suppression_limit=manifest["suppression_limit"],
                  output=replace(job.output, suppressed=manifest.get("suppressed", job.output.suppressed)))
    return job, tuple(manifest["levels"][q] for q in qis)


def check_hierarchies(job: Job, manifest: dict, hierarchies) -> None:
    for attribute, hierarchy in zip(job.quasi_identifiers, hierarchies):
        digest = hierarchy_digest(attribute, hierarchy)
        if digest != manifest["hierarchies"].get(attribute.name):
            raise ConfigError(
                f"the hierarchy of '{attribute.name}' differs from the one in the manifest "
                f"({digest} against {manifest['hierarchies'].get(attribute.name)}): the saved levels would "
                "not mean the same generalization; run anonymize again"
            )
