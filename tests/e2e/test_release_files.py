"""The publication's file operations and its journal, in process: placing without replacing
(with and without renameat2), the lock's record, and the recovery's every decision."""

from __future__ import annotations

import errno
import os

import pytest

from sqlanon.errors import OutputError
from sqlanon.release import placement
from sqlanon.release.journal import finish, recover, write
from sqlanon.release.locks import TargetLock


@pytest.fixture
def folder(tmp_path):
    fd = placement.open_folder(str(tmp_path))
    yield tmp_path, fd
    os.close(fd)


@pytest.mark.parametrize("renameat2", [True, False])
def test_a_new_file_is_placed_only_where_nothing_is(folder, monkeypatch, renameat2):
    path, fd = folder
    if not renameat2:

        def missing(*args):
            raise OSError(errno.ENOSYS, "no renameat2")

        monkeypatch.setattr(placement, "_renameat2", missing)
    staging = placement.make_staging(fd, placement.staging_name())
    placement.create_text(staging, "a.txt", "new\n")
    (path / "a.txt").write_text("mine\n")
    with pytest.raises(FileExistsError):
        placement.place_new(staging, "a.txt", fd, "a.txt")
    assert (path / "a.txt").read_text() == "mine\n" and placement.exists(staging, "a.txt")
    placement.place_new(staging, "a.txt", fd, "b.txt")
    assert (path / "b.txt").read_text() == "new\n" and not placement.exists(staging, "a.txt")
    os.close(staging)


def test_staged_files_never_follow_a_symlink(folder, tmp_path):
    path, fd = folder
    staging = placement.make_staging(fd, placement.staging_name())
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    os.symlink(outside, "x.txt", dir_fd=staging)
    with pytest.raises(OSError):
        placement.create_text(staging, "x.txt", "new\n")
    assert outside.read_text() == "outside\n"
    os.close(staging)


def test_a_lock_is_exclusive_and_says_who_holds_it(folder):
    path, fd = folder
    first = TargetLock(fd, "out.csv")
    assert first.acquire("output", "out.csv") == {}
    first.record({"pid": 4242, "staging": ".sqlanon-0123456789abcdef"})
    second = TargetLock(fd, "out.csv")
    with pytest.raises(OutputError, match=r"another sqlanon run \(process 4242\)"):
        second.acquire("output", "out.csv")
    first.release()
    assert not (path / ".out.csv.sqlanon.lock").exists()
    assert second.acquire("output", "out.csv") == {}
    second.release()


def _publication(path, fd, state, placed):
    """A journal as a killed run leaves it: ``a.txt`` replaced (its backup kept), ``b.txt`` new;
    ``placed`` says which of the two had been moved into place."""
    name = placement.staging_name()
    staging = placement.make_staging(fd, name)
    (path / "a.txt").write_text("old a\n")
    placement.create_text(staging, "a.txt", "new a\n")
    placement.create_text(staging, "b.txt", "new b\n")
    inodes = {n: placement.identity(staging, n) for n in ("a.txt", "b.txt")}
    placement.keep(fd, "a.txt", staging, "a.txt.backup")
    for n in placed:
        placement.place_over(staging, n, fd, n)
    journal = {
        "state": state,
        "role": "primary",
        "primary": os.path.join(str(path), name),
        "places": [[str(path), name]],
        "table": None,
        "files": [
            {
                "folder": str(path),
                "staging": name,
                "name": "a.txt",
                "backup": "a.txt.backup",
                "inode": list(inodes["a.txt"]),
            },
            {"folder": str(path), "staging": name, "name": "b.txt", "backup": None, "inode": list(inodes["b.txt"])},
        ],
    }
    write(staging, journal)
    os.close(staging)
    return name, journal


@pytest.mark.parametrize("placed", [(), ("a.txt",), ("a.txt", "b.txt")])
def test_an_uncommitted_publication_is_rolled_back(folder, placed):
    path, fd = folder
    name, _ = _publication(path, fd, "committing", placed)
    recover(fd, {"pid": 1, "staging": name})
    assert (path / "a.txt").read_text() == "old a\n" and not (path / "b.txt").exists()
    assert sorted(os.listdir(path)) == ["a.txt"]


def test_a_committed_publication_is_rolled_forward(folder):
    path, fd = folder
    name, _ = _publication(path, fd, "committed", ("a.txt", "b.txt"))
    recover(fd, {"pid": 1, "staging": name})
    assert (path / "a.txt").read_text() == "new a\n" and (path / "b.txt").read_text() == "new b\n"
    assert sorted(os.listdir(path)) == ["a.txt", "b.txt"]


def test_a_file_someone_put_at_a_target_since_is_left_alone(folder):
    path, fd = folder
    name, _ = _publication(path, fd, "committing", ("a.txt",))
    (path / "b.txt").write_text("someone's\n")
    recover(fd, {"pid": 1, "staging": name})
    assert (path / "a.txt").read_text() == "old a\n" and (path / "b.txt").read_text() == "someone's\n"


def test_a_secondary_copy_without_its_primary_keeps_the_backups_and_says_where(folder, tmp_path):
    path, fd = folder
    name, journal = _publication(path, fd, "committing", ("a.txt",))
    journal = {**journal, "role": "secondary", "primary": str(tmp_path / "gone" / placement.staging_name())}
    with pytest.raises(OutputError, match="an interrupted publication cannot be finished"):
        finish(journal)
    assert (path / name / "a.txt.backup").read_text() == "old a\n"


def test_a_record_naming_anything_but_a_private_folder_is_ignored(folder):
    path, fd = folder
    (path / "keep").mkdir()
    for staging in ("keep", "..", "/etc", ".sqlanon-zz", 5):
        recover(fd, {"pid": 1, "staging": staging})
    assert (path / "keep").is_dir()
