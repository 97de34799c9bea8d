"""What every builder shares: its spec's keys checked, the top level added."""

from __future__ import annotations

from sqlanon.errors import ConfigError


def check_keys(attribute: str, spec: dict, allowed: set[str]) -> None:
    extra = set(spec) - allowed - {"type"}
    if extra:
        raise ConfigError(
            f"attribute '{attribute}': unknown key(s) {sorted(extra)} for a {spec['type']} hierarchy; "
            f"known: {sorted(allowed)}"
        )


def with_top(rows: list[list[str]], top: str = "*") -> list[list[str]]:
    """Append the top level unless the last level already has a single value."""
    if len({row[-1] for row in rows}) > 1 or len(rows[0]) == 1:
        rows = [row + [top] for row in rows]
    return rows
