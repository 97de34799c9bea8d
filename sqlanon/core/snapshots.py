"""The snapshot switches of ``[engine]`` (roll-up, history, projection and the history's
bounds), apart from the policy in ``snapshots.py`` so that loading a job needs no numpy."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class SnapshotSettings:
    """The ``[engine]`` switches, so each optimization's effect can be measured alone.
    ``rollup`` and ``history`` left unset (None) take the placement's default
    (``Placement.snapshot_settings``): on where checks run in process (arrays cost nothing
    to keep), off in SQL, where a temp table costs more than it saves (bench/README.md,
    "Engines")."""

    rollup: bool | None = None
    history: bool | None = None
    projection: bool = True
    history_size: int = 200
    history_ratio: float = 0.2

    def resolved(self, rollup: bool, history: bool) -> SnapshotSettings:
        """These settings with the given defaults for what the job left unset."""
        return replace(
            self,
            rollup=rollup if self.rollup is None else self.rollup,
            history=history if self.history is None else self.history,
        )
