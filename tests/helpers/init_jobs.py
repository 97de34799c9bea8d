"""``sqlanon init`` as the tests run it: the command on a file, what a user does with the job
it writes (remove the '#' in front of every suggested setting), and a wide CSV whose columns
cycle through the kinds a real table holds (an integer, a decimal, a date, a zip code with
leading zeros, a short text list, a many-valued text, a record number), deterministic. The
tests write a small one; the same function writes the 300-column, 30,000-row file ``init``'s
speed is measured on:

    PYTHONPATH=tests python -c "from helpers.init_jobs import write_wide_csv; write_wide_csv('wide.csv', 300, 30000)"
    python -m sqlanon init wide.csv --output wide.toml
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from click.testing import CliRunner, Result

from sqlanon.cli.commands import main

#: the wide CSV's kinds of columns, in their order
WIDE_KINDS = ["integer", "number", "date", "digits", "text", "many", "id"]


def run_init(folder: Path, data: Path, *extra: str) -> tuple[Result, Path]:
    """``sqlanon init DATA --output folder/job.toml``: the result and the job's path."""
    job = folder / "job.toml"
    return CliRunner().invoke(main, ["init", str(data), "--output", str(job), *extra]), job


def uncomment(text: str) -> str:
    """What a user does: remove the '#' in front of every suggested setting."""
    return re.sub(r"^#(?=[\[a-z])", "", text, flags=re.MULTILINE)


def _wide_value(kind: str, row: int, draw: random.Random) -> str:
    if kind == "integer":
        return str(draw.randint(17, 90))
    if kind == "number":
        return f"{draw.uniform(40, 120):.1f}"
    if kind == "date":
        return f"{draw.randint(1930, 2005)}-{draw.randint(1, 12):02d}-{draw.randint(1, 28):02d}"
    if kind == "digits":
        return f"0{draw.randint(1000, 1999)}"
    if kind == "text":
        return draw.choice(["flu", "cold", "cough", "asthma", "gout"])
    if kind == "many":
        return f"v{draw.randint(1, 2000)}"
    return f"r{row}"


def write_wide_csv(path: str | Path, columns: int, rows: int, seed: int = 7) -> list[str]:
    """Write the wide CSV (columns named ``<kind>_<position>``); return each column's kind."""
    draw = random.Random(seed)
    kinds = [WIDE_KINDS[i % len(WIDE_KINDS)] for i in range(columns)]
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(",".join(f"{kind}_{i}" for i, kind in enumerate(kinds)) + "\n")
        for row in range(rows):
            out.write(",".join(_wide_value(kind, row, draw) for kind in kinds) + "\n")
    return kinds
