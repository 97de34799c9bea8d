"""What several benchmarks share: the repository's paths, the machine's load, JSON results."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"  # not committed


def uptime() -> str:
    """``uptime``'s line: the load averages a measurement is read against."""
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def write_json(path: str | Path, data, indent: int = 1, **options) -> Path:
    """``data`` as JSON in ``path``, its folder made if need be."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent, **options) + "\n")
    return path
