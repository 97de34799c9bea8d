"""A manifest read back for ``apply``: untrusted input, checked field by field, then held to the
job that applies it.

A manifest only says which levels to apply. What the release must satisfy is the job's own
``[privacy]`` (every model, the suppression limit) and ``[output] suppressed``: a manifest whose
settings differ is refused, never obeyed, so an edited manifest cannot lower what the job asks.
Every problem is one ``ConfigError`` naming the manifest, the key and its value (cut, as JSON).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sqlanon.core import files
from sqlanon.config.job import Job
from sqlanon.core.specs import SUPPRESSED_MODES
from sqlanon.errors import CUT, ConfigError
from sqlanon.report.manifest import VERSION, hierarchy_digest, manifest_models

KEYS = ("version", "quasi_identifiers", "levels", "hierarchies", "models", "suppression_limit", "suppressed")
#: settings of a model that locate a file it reads (new data brings its own): the job's are
#: read, so they are not compared
FILE_KEYS = ("hierarchy", "encoding", "subset_file")
FIX = "use the report.json of an anonymize run as it was written"
HOLD = (
    "apply holds the release to the job's own settings: run anonymize with this job for a manifest of its own, "
    "or change the job if the manifest's setting is the one you mean"
)
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-]+")
_ABSENT = object()


@dataclass(frozen=True)
class SavedTransformation:
    """A checked manifest. ``source``: how messages name it (its file, or given in code);
    ``levels`` in the order of ``quasi_identifiers``."""

    source: str
    quasi_identifiers: tuple[str, ...]
    levels: tuple[int, ...]
    hierarchies: dict[str, str]
    models: tuple[dict[str, Any], ...]
    suppression_limit: float
    suppressed: str
    prefix: str = ""  # "manifest." when it is a report's manifest: keys are named as the file has them


def load_manifest(path: str) -> object:
    """The JSON document of a manifest file (a report.json, or a manifest alone): a regular
    file (checked before it is opened: a FIFO would block) of at most ``files.MANIFEST_LIMIT``, UTF-8 (a
    BOM allowed), JSON without a key twice in an object."""
    named = f"manifest {path}"
    data = files.read_limited(
        path,
        "manifest",
        files.MANIFEST_LIMIT,
        ConfigError,
        FIX,
        missing=f"cannot read {named}: no such file; give the report.json of an anonymize run",
    )
    text = files.utf8_text(data, "manifest", path, ConfigError)
    try:
        return json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, named))
    except ConfigError:  # a key given twice (a ConfigError is a ValueError too)
        raise
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{named} is not JSON: {error.msg} at line {error.lineno}, column {error.colno}; {FIX}"
        ) from None
    except ValueError:  # Python refuses to convert an integer of more than 4,300 digits
        raise ConfigError(f"{named} holds a number of thousands of digits, which no manifest has; {FIX}") from None
    except RecursionError:
        raise ConfigError(
            f"{named} nests lists or objects thousands of levels deep, which no manifest does; {FIX}"
        ) from None


def _object(pairs: list[tuple[str, Any]], named: str) -> dict[str, Any]:
    """A JSON object, refused when it gives a key twice (JSON would keep the last silently)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ConfigError(f"{named}: the key {_shown(key)} is given twice in one object; {FIX}")
        result[key] = value
    return result


def _shown(value: object) -> str:
    """A value as the manifest's JSON has it, cut to ``CUT`` characters with its length beside it."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):  # nested thousands deep
        return f"({_kind(value)} nested too deeply to show)"
    return text if len(text) <= CUT else f"{text[:CUT]}… ({len(text):,} characters)"


def _key(prefix: str, *parts: object) -> str:
    """A key's path as messages name it: ``manifest.levels.age``, a name that is not plain quoted
    (a dict given in code may have keys that are not strings)."""
    return prefix + ".".join(
        p if isinstance(p, str) and _PLAIN_NAME.fullmatch(p) and len(p) <= CUT else _shown(p) for p in parts
    )


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(
        type(value), "a number"
    )


# -- the manifest's own fields ---------------------------------------------------------------
def saved_transformation(document: object, source: str) -> SavedTransformation:
    """The manifest in ``document`` (a report with a ``manifest``, or a manifest alone), every
    field checked; ``source`` names it in messages ("manifest report.json")."""
    prefix = ""
    manifest = document
    if isinstance(document, dict) and "manifest" in document:
        manifest, prefix = document["manifest"], "manifest."
    if not isinstance(manifest, dict):
        where = f"its {prefix.rstrip('.')}" if prefix else "it"
        shown = "" if manifest is None else f" ({_shown(manifest)})"
        raise ConfigError(
            f"{source}: {where} is {_kind(manifest)}{shown}, not a manifest (a JSON object with "
            f"{', '.join(KEYS)}); {FIX}"
        )
    if not prefix and "version" not in manifest:
        raise ConfigError(
            f'{source} holds no manifest (no "manifest" key): give the report.json of an anonymize run '
            "that found a transformation"
        )
    unknown = [key for key in manifest if key not in KEYS]
    if unknown:
        raise ConfigError(
            f"{source}: unknown key {_key(prefix, unknown[0])} in the manifest (its keys are {', '.join(KEYS)}); {FIX}"
        )
    missing = [key for key in KEYS if key not in manifest]
    if missing:
        raise ConfigError(f"{source}: the manifest has no {_key(prefix, missing[0])}; {FIX}")
    version = manifest["version"]
    if version != VERSION or isinstance(version, bool) or not isinstance(version, int):
        _refuse(
            source,
            _key(prefix, "version"),
            version,
            f"this sqlanon reads manifests of version {VERSION}",
            "run anonymize again for one",
        )
    qis = _quasi_identifiers(source, prefix, manifest["quasi_identifiers"])
    levels = _per_qi(source, prefix, "levels", manifest["levels"], qis, _level)
    hierarchies = _per_qi(source, prefix, "hierarchies", manifest["hierarchies"], qis, _digest)
    models = manifest["models"]
    if not isinstance(models, list) or not models:
        _refuse(source, _key(prefix, "models"), models, "not a list of models")
    for index, model in enumerate(models):
        if not isinstance(model, dict) or not isinstance(model.get("model"), str):
            _refuse(
                source, f"{_key(prefix, 'models')}[{index}]", model, 'not a model (an object with "model": its name)'
            )
    limit = manifest["suppression_limit"]
    if not _number(limit) or not 0 <= limit <= 1:
        _refuse(source, _key(prefix, "suppression_limit"), limit, "not a number in [0, 1]")
    suppressed = manifest["suppressed"]
    if suppressed not in SUPPRESSED_MODES:
        _refuse(source, _key(prefix, "suppressed"), suppressed, f"not one of {', '.join(SUPPRESSED_MODES)}")
    return SavedTransformation(
        source, tuple(qis), tuple(levels[q] for q in qis), hierarchies, tuple(models), limit, suppressed, prefix
    )


def _refuse(source: str, key: str, value: object, problem: str, fix: str = FIX) -> None:
    raise ConfigError(f"{source}: {key} = {_shown(value)}: {problem}; {fix}")


def _quasi_identifiers(source: str, prefix: str, qis: object) -> list[str]:
    key = _key(prefix, "quasi_identifiers")
    if not isinstance(qis, list) or not qis or not all(isinstance(q, str) and q for q in qis):
        _refuse(source, key, qis, "not a list of column names")
    assert isinstance(qis, list)
    seen: set[str] = set()
    for q in qis:
        if q in seen:
            _refuse(source, key, qis, f"names {_shown(q)} twice")
        seen.add(q)
    return qis


def _per_qi(source: str, prefix: str, name: str, given: object, qis: list[str], check) -> dict[str, Any]:
    """An object with one entry per QI (``levels``, ``hierarchies``), each value ``check``ed."""
    if not isinstance(given, dict):
        _refuse(source, _key(prefix, name), given, "not an object with an entry per quasi-identifier")
    assert isinstance(given, dict)
    for q in qis:
        if q not in given:
            raise ConfigError(
                f"{source}: the manifest has no {_key(prefix, name, q)} (its quasi_identifiers "
                f"are {_shown(qis)}); {FIX}"
            )
        problem = check(given[q])
        if problem:
            _refuse(source, _key(prefix, name, q), given[q], problem)
    named = set(qis)
    extra = [key for key in given if key not in named]
    if extra:
        _refuse(
            source,
            _key(prefix, name, extra[0]),
            given[extra[0]],
            f"not a quasi-identifier of the manifest ({_shown(qis)})",
        )
    return given


def _level(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return "not a level of a hierarchy (an int >= 0)"
    return None


def _digest(value: object) -> str | None:
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        return 'not a hierarchy checksum ("sha256:" and 64 hex digits)'
    return None


# -- the manifest held to the job ------------------------------------------------------------
def held_to_job(saved: SavedTransformation, job: Job) -> SavedTransformation:
    """``saved`` when it is the job's transformation: the same QIs in the same order, and the
    job's own models, suppression limit and suppressed mode (refused when they differ)."""
    qis = [a.name for a in job.quasi_identifiers]
    if list(saved.quasi_identifiers) != qis:
        raise ConfigError(
            f"{saved.source}: the manifest's quasi-identifiers {_shown(list(saved.quasi_identifiers))} "
            f"differ from the job's {_shown(qis)}: a manifest applies to a job with the same QIs in the "
            "same order; run anonymize with this job"
        )
    _same_models(saved, manifest_models(job))
    for key, given, own, setting in (
        ("suppression_limit", saved.suppression_limit, job.suppression_limit, "suppression_limit"),
        ("suppressed", saved.suppressed, job.output.suppressed, "output.suppressed"),
    ):
        if not _same(given, own):
            raise ConfigError(
                f"{saved.source}: the manifest's {key} = {_shown(given)} differs from "
                f"the job's {setting} = {_shown(own)}: {HOLD}"
            )
    return saved


def _same_models(saved: SavedTransformation, asked: list[dict[str, Any]]) -> None:
    names, wanted = [m["model"] for m in saved.models], [m["model"] for m in asked]
    if names != wanted:
        raise ConfigError(
            f"{saved.source}: the manifest's models {_shown(names)} differ from the job's {_shown(wanted)}: {HOLD}"
        )
    for index, (given, own) in enumerate(zip(saved.models, asked)):
        name = own["model"]
        which = "" if name == "k-anonymity" else f"{name} " if names.count(name) == 1 else f"{name} (models[{index}]) "
        for key in dict.fromkeys([*own, *given]):
            if key == "model" or key in FILE_KEYS:
                continue
            mine, theirs = own.get(key, _ABSENT), given.get(key, _ABSENT)
            if not _same(theirs, mine):
                raise ConfigError(
                    f"{saved.source}: the manifest's {which}{key} = {_given(theirs)} differs from the "
                    f"job's {key} = {_given(mine)}: {HOLD}"
                )


def _same(a: object, b: object) -> bool:
    """Equal numbers (true is not 1), or equal as JSON writes them."""
    if _number(a) and _number(b):
        return a == b
    try:
        return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):  # keys of mixed types, a value nested thousands deep
        return False


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _given(value: object) -> str:
    return "(not given)" if value is _ABSENT else _shown(value)


def check_hierarchies(job: Job, saved: SavedTransformation, hierarchies) -> None:
    """Each QI's hierarchy is the manifest's (by checksum), and its saved level within it."""
    for attribute, hierarchy, level in zip(job.quasi_identifiers, hierarchies, saved.levels):
        digest, expected = hierarchy_digest(attribute, hierarchy), saved.hierarchies[attribute.name]
        if digest != expected:
            raise ConfigError(
                f"{saved.source}: the hierarchy of '{attribute.name}' differs from the one in the manifest "
                f"({digest} against {expected}): the saved levels would not mean the same generalization; "
                "run anonymize again"
            )
        if level > hierarchy.height:
            _refuse(
                saved.source,
                _key(saved.prefix, "levels", attribute.name),
                level,
                f"above the top level {hierarchy.height} of the hierarchy of '{attribute.name}'",
            )
