"""Which paths a run may write.

Never a file the run reads (the input — a file, a member of its glob, or its DuckDB
database —, the job file, a hierarchy, a research-subset file, a manifest), never the same
file as another target of the run, an existing file only with ``overwrite``. Paths are
compared after resolving symlinks and ``..``, and existing files also by inode, so a hard
link to the input is the input.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from dataclasses import dataclass, field
from pathlib import Path

from sqlanon.errors import OutputError
from sqlanon.core.wording import overwrite_hint


def _real(path: str | os.PathLike) -> str:
    return os.path.realpath(os.path.expanduser(str(path)))


def _inode(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


@dataclass
class Protected:
    """The files a run reads (real path -> what it is, for the message) and the input's glob
    patterns (a new file matching one would join the input on the next run)."""

    files: dict[str, str] = field(default_factory=dict)
    patterns: list[tuple[str, str]] = field(default_factory=list)

    def add(self, path, what: str) -> None:
        if path is None:
            return
        text = str(path)
        if glob.has_magic(text):
            self.patterns.append((os.path.abspath(text), what))
            for member in glob.glob(text):
                self.files.setdefault(_real(member), f"{what} (it matches {text})")
            return
        self.files.setdefault(_real(text), what)

    def owner(self, path: str) -> str | None:
        """What ``path`` is to the run (a description), or None if it is none of its files."""
        real = _real(path)
        if real in self.files:
            return self.files[real]
        node = _inode(real)
        if node is not None:
            for known, what in self.files.items():
                if _inode(known) == node:
                    return what
        for pattern, what in self.patterns:
            folder, name = os.path.split(pattern)
            if glob.has_magic(folder):
                if fnmatch.fnmatchcase(real, pattern) or fnmatch.fnmatchcase(os.path.abspath(path), pattern):
                    return f"a file matching {what}'s pattern {pattern}"
            elif _real(folder) == os.path.dirname(real) and fnmatch.fnmatchcase(os.path.basename(real), name):
                return f"a file matching {what}'s pattern {pattern}"
        return None


def protected_files(job, extra: dict[str, str] | None = None) -> Protected:
    """Every file ``job`` reads, plus ``extra`` (path -> what, e.g. the manifest of ``apply``)."""
    protected = Protected()
    source = job.input
    if source.path is not None:
        protected.add(source.path, "the input database" if source.kind == "duckdb" else "the input file")
        if source.kind == "duckdb":
            protected.add(str(source.path) + ".wal", "the input database's log")
    protected.add(job.file, "the job file")
    for attribute in job.attributes:
        if isinstance(attribute.hierarchy, (str, Path)):
            protected.add(attribute.hierarchy, f"the hierarchy of '{attribute.name}'")
    for spec in job.models:
        for key, what in (("hierarchy", "a model's hierarchy"), ("subset_file", "the research subset file")):
            if isinstance(spec.get(key), (str, Path)):
                protected.add(spec[key], what)
    for path, what in (extra or {}).items():
        protected.add(path, what)
    return protected


def check_file(path: str, what: str, protected: Protected, taken: dict[str, str], overwrite: bool) -> str:
    """Refuse ``path`` as the run's ``what`` (e.g. "report") unless it is free; return its real
    path. ``taken``: the real paths of the run's other targets -> what they are."""
    owner = protected.owner(path)
    if owner is not None:
        raise OutputError(f"the {what} {path} is {owner}, which sqlanon never writes: choose another path")
    real = _real(path)
    other = taken.get(real)
    if other is None:
        node = _inode(real)
        other = next((w for p, w in taken.items() if node is not None and _inode(p) == node), None)
    if other is not None:
        raise OutputError(f"the {what} {path} is also this run's {other}: give each its own path")
    if os.path.isdir(real):
        raise OutputError(f"the {what} {path} is a folder: name a file")
    parent = os.path.dirname(real)
    if not os.path.isdir(parent):
        raise OutputError(f"the folder of the {what} {path} does not exist: create {parent} first")
    if os.path.lexists(path) and not overwrite:
        raise OutputError(f"the {what} {path} already exists: {overwrite_hint()}")
    return real
