"""The journal of one publication: a run killed while it places its files is rolled back or
forward by the next run that takes one of its targets — never left half-published.

Before the first file moves, the publication writes its journal into the private folder of
every target folder (``journal.json``: every target, its staged file's inode, its backup);
the copy in the first target's folder is the primary. The moment that decides is the primary's
state turning to ``committed``, one atomic rename, after every file is in place (and after an
output table is renamed, whose temporary table's absence also says it was published). Until
then a recovery puts every replaced file back from its backup and removes every file the run
placed (recognised by its inode, so a file someone else put there since is left alone); after
it, the recovery only removes the backups. The private folders go last, the primary's after
the others', so a secondary copy whose primary is gone is a state that cannot happen unless a
folder was moved: then the recovery stops and keeps the backups, naming them.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from sqlanon.errors import OutputError
from sqlanon.release.placement import (
    STAGING_PREFIX,
    exists,
    identity,
    open_folder,
    open_subfolder,
    place_over,
    remove,
    remove_tree,
    sync,
)
from sqlanon.release.tables import drop_duckdb_table, duckdb_table_exists, remove_duckdb_database

NAME = "journal.json"
_LIMIT = 1 << 20
_STAGING = re.compile(re.escape(STAGING_PREFIX) + r"[0-9a-f]{16}")


def write(staging: int, journal: dict) -> None:
    """Write ``journal`` into the private folder ``staging`` atomically (a new file renamed
    over the old one) and durably."""
    part = NAME + ".part"
    remove(staging, part)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=staging)
    try:
        os.write(fd, json.dumps(journal, sort_keys=True).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(part, NAME, src_dir_fd=staging, dst_dir_fd=staging)
    sync(staging)


def read(folder: int, staging: str) -> dict | None:
    """The journal in ``folder``'s private folder ``staging``, or None (no such folder, no
    journal yet: the run had not begun to place anything)."""
    if not _STAGING.fullmatch(staging):
        return None
    try:
        fd = open_subfolder(folder, staging)
    except OSError:
        return None
    try:
        handle = os.open(NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        data = os.read(handle, _LIMIT)
    finally:
        os.close(handle)
    try:
        journal = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return journal if _valid(journal) else None


def recover(folder: int, record: dict) -> None:
    """Finish what the run that left the lock ``record`` (in ``folder``) had begun: drop its
    temporary tables and private folder if it placed nothing, else roll its publication back
    or forward as its journal decides."""
    staging = record.get("staging")
    if not isinstance(staging, str) or not _STAGING.fullmatch(staging):
        return
    journal = read(folder, staging)
    if journal is None:
        for table in record.get("tables") or ():
            _drop_table(table)
        remove_tree(folder, staging)
        return
    finish(journal)


def finish(journal: dict) -> str:
    """Roll ``journal``'s publication forward or back; return which ("committed" or
    "rolled back")."""
    state = journal["state"]
    if state == "committing" and journal["role"] != "primary":
        primary = _read_path(journal["primary"])
        if primary is None:
            kept = ", ".join(os.path.join(*place) for place in journal["places"])
            raise OutputError(
                f"an interrupted publication cannot be finished: its journal "
                f"{os.path.join(journal['primary'], NAME)} is gone (was a folder moved?); "
                f"the files it replaced are kept in {kept}: restore what you need from there, "
                "then remove those folders"
            )
        state = primary["state"]
    if state == "committing" and journal.get("table") and _table_published(journal["table"]):
        state = "committed"
    if state == "committing":
        _roll_back(journal)
        if journal.get("table"):
            _drop_table(journal["table"])
    _clean(journal)
    return "committed" if state == "committed" else "rolled back"


def _roll_back(journal: dict) -> None:
    for entry in journal["files"]:
        try:
            folder = open_folder(entry["folder"])
        except OSError:
            continue
        try:
            try:
                staging = open_subfolder(folder, entry["staging"])
            except OSError:
                staging = None
            now = identity(folder, entry["name"])
            ours = tuple(entry["inode"]) if entry.get("inode") else None
            backup = entry.get("backup")
            if staging is not None and backup and exists(staging, backup):
                if now is None or now == ours:
                    place_over(staging, backup, folder, entry["name"])
            elif now is not None and now == ours:
                remove(folder, entry["name"])
            if staging is not None:
                os.close(staging)
            sync(folder)
        finally:
            os.close(folder)


def _clean(journal: dict) -> None:
    """Remove the private folders: the primary's last (see the module's docstring)."""
    places = [tuple(place) for place in journal["places"]]
    for path, staging in places[1:] + places[:1]:
        try:
            folder = open_folder(path)
        except OSError:
            continue
        try:
            remove_tree(folder, staging)
        finally:
            os.close(folder)


def _read_path(path: str) -> dict | None:
    folder, staging = os.path.split(path)
    try:
        fd = open_folder(folder)
    except OSError:
        return None
    try:
        return read(fd, staging)
    finally:
        os.close(fd)


def _table_published(table: dict) -> bool:
    """Whether the output table was renamed: its temporary table is gone from its database."""
    if table.get("kind") == "duckdb":
        return os.path.exists(table["database"]) and not duckdb_table_exists(table["database"], table["temp"])
    return False


def _drop_table(table: Any) -> None:
    """A temporary output table of a run that published nothing: dropped, or its database
    removed when the run had created it."""
    if not (isinstance(table, dict) and table.get("kind") == "duckdb" and isinstance(table.get("temp"), str)):
        return
    database = str(table.get("database"))
    if not os.path.exists(database):
        return
    if table.get("created"):
        remove_duckdb_database(database)
    else:
        drop_duckdb_table(database, table["temp"])


def _valid(journal: Any) -> bool:
    """A journal is read from a folder only its owner can enter, but is still checked for
    shape: no name in it may leave its folder."""
    if not isinstance(journal, dict) or journal.get("state") not in ("committing", "committed"):
        return False
    if journal.get("role") not in ("primary", "secondary") or not isinstance(journal.get("primary"), str):
        return False
    files, places = journal.get("files"), journal.get("places")
    if not isinstance(files, list) or not isinstance(places, list) or not places:
        return False
    for place in places:
        if not (
            isinstance(place, list)
            and len(place) == 2
            and all(isinstance(p, str) for p in place)
            and _STAGING.fullmatch(place[1])
        ):
            return False
    for entry in files:
        if not isinstance(entry, dict) or not isinstance(entry.get("folder"), str):
            return False
        names = [entry.get("name"), entry.get("staging")] + ([entry["backup"]] if entry.get("backup") else [])
        if not all(isinstance(n, str) and n and "/" not in n and n not in (".", "..") for n in names):
            return False
        if not _STAGING.fullmatch(entry["staging"]):
            return False
    return True
