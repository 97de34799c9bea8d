"""A job folder the release tests run the command line on: a 12-row table (age, sex,
diagnosis), its hierarchies and a k=2 job; a folder's snapshot (file -> digest) to show that
nothing changed."""

from __future__ import annotations

import hashlib
from pathlib import Path

from click.testing import CliRunner

from sqlanon.cli.commands import main

ROWS = [
    ("21", "f", "a"),
    ("22", "m", "b"),
    ("23", "f", "c"),
    ("24", "m", "a"),
    ("25", "f", "b"),
    ("31", "m", "c"),
    ("33", "f", "a"),
    ("35", "m", "b"),
    ("37", "f", "c"),
    ("41", "f", "a"),
    ("42", "f", "b"),
    ("58", "m", "c"),
]
AGE = "\n".join(f"{a};{a // 10 * 10}s;*" for a in range(20, 60)) + "\n"


def digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones included) -> its bytes' digest."""
    return {str(p.relative_to(folder)): digest(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def write_job(
    folder: Path,
    output: str | None = "out.csv",
    report: str | None = "report.json",
    extra: str = "",
    input_path: str = "data.csv",
    input_table: str | None = None,
) -> Path:
    """A 12-row table (age, sex, diagnosis) with its hierarchies and a k=2 job over it."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "data.csv").exists():
        (folder / "data.csv").write_text("age,sex,diagnosis\n" + "".join(",".join(r) + "\n" for r in ROWS))
        (folder / "age.csv").write_text(AGE)
        (folder / "sex.csv").write_text("f;*\nm;*\n")
    lines = ["[input]", f'path = "{input_path}"'] + ([f'table = "{input_table}"'] if input_table else [])
    lines += [
        "[attributes.age]",
        'role = "quasi"',
        'hierarchy = "age.csv"',
        "[attributes.sex]",
        'role = "quasi"',
        'hierarchy = "sex.csv"',
        "[attributes.diagnosis]",
        'role = "sensitive"',
        "[privacy]",
        "k = 2",
        "[search]",
        'metric = "loss"',
    ]
    if output or report:
        lines.append("[output]")
        lines += [f'path = "{output}"'] if output else []
        lines += [f'report = "{report}"'] if report else []
    job = folder / "job.toml"
    job.write_text("\n".join(lines) + "\n" + extra)
    return job


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])
