"""The privacy models of a job, read once whoever gives them: a job file's ``[privacy]`` (``k`` and
``[[privacy.models]]``, ``config/read.py``) and the Python API's ``k=`` and ``models=``
(``config/keywords.py``) both come here. A k-anonymity entry is the job's ``k`` (given twice, the
two must agree); a population-uniqueness entry without a population takes ``[risk]``'s; every other
entry is kept as its dict, which the model itself reads and checks when the job is validated.
Only the wording differs: a message names the job file's sections or the API's keywords."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlanon.core.names import MODEL_NAMES
from sqlanon.core.risk import RiskSettings
from sqlanon.errors import ConfigError


class Wording(Protocol):
    """What a message names, and what is done to an entry before it is kept: ``InFile`` here,
    ``keywords.InCode`` for the API (which builds the model at once: the criteria are heavy
    to import, so loading a job file leaves them out)."""

    def not_a_list(self) -> str: ...

    def no_type(self, entry: Any) -> str: ...

    def k_keys(self, entry: dict) -> str: ...

    def k_twice(self, k: Any, other: Any) -> str: ...

    def entry(self, spec: dict) -> dict: ...


@dataclass(frozen=True)
class InFile:
    """Messages about a job file (``where``: its path); file paths in an entry resolved by ``resolve``."""

    where: str
    resolve: Callable[[str], str | None]

    def not_a_list(self) -> str:
        return f"{self.where}: privacy.models must be an array of tables ([[privacy.models]])"

    def no_type(self, entry: Any) -> str:
        return f"{self.where}: each [[privacy.models]] entry needs a type; valid types: {', '.join(MODEL_NAMES)}"

    def k_keys(self, entry: dict) -> str:
        return f"{self.where}: unknown key(s) {sorted(set(entry) - {'type', 'k'})} for the k-anonymity model; known: k"

    def k_twice(self, k: Any, other: Any) -> str:
        return f"{self.where}: k is given twice with different values ({k} and {other})"

    def entry(self, spec: dict) -> dict:
        """The model reads its options when the job is validated; here its type and paths."""
        if spec.get("type") not in MODEL_NAMES:
            raise ConfigError(
                f"{self.where}: [[privacy.models]]: unknown privacy model {spec.get('type')!r}; "
                f"valid models: {', '.join(MODEL_NAMES)}"
            )
        for key in ("hierarchy", "subset_file"):
            if isinstance(spec.get(key), str):
                spec[key] = self.resolve(spec[key])
        return spec


def privacy_models(k: Any, models: Any, risk: RiskSettings, wording: Wording) -> tuple[Any, tuple[dict, ...]]:
    """The job's k and its other models' entries. Without k (given or as an entry), k is 1 when
    another model is asked for (every class size is allowed) and 2 otherwise."""
    if not isinstance(models, (list, tuple)):
        raise ConfigError(wording.not_a_list())
    others = []
    for entry in models:
        if not isinstance(entry, dict) or "type" not in entry:
            raise ConfigError(wording.no_type(entry))
        if entry["type"] == "k-anonymity":
            if set(entry) - {"type", "k"}:
                raise ConfigError(wording.k_keys(entry))
            if k is not None and entry.get("k") != k:
                raise ConfigError(wording.k_twice(k, entry.get("k")))
            k = entry.get("k")
            continue
        spec = with_population(dict(entry), risk) if entry["type"] == "population-uniqueness" else dict(entry)
        others.append(wording.entry(spec))
    return (k if k is not None else 1 if others else 2), tuple(others)


def with_population(spec: dict, risk: RiskSettings) -> dict:
    """A population-uniqueness entry without its own population takes [risk]'s (and its model)."""
    if "population_size" in spec or "sampling_fraction" in spec:
        return spec
    taken = {"population_size": risk.population_size, "sampling_fraction": risk.sampling_fraction}
    return {"model": risk.model, **{k: v for k, v in taken.items() if v is not None}, **spec}
