"""A release that cannot clobber: races, files appearing mid-run, swapped folders, planted
symlinks, and a kill at every step of a publication.

Every case holds a real run (a subprocess of the command line) at a named moment of its
publication (``SQLANON_TEST_HOLD_AT``, sqlanon/release/holds.py: it prints ``ready: MOMENT``
and waits for SIGUSR1), so the second run, the file or the kill lands exactly there — no
timing. The job is the 12-row table of tests/helpers/targets.py (k = 2, three targets: the
output, the report and its HTML page).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import duckdb
import pytest

from helpers.jobs import ROOT
from helpers.targets import digest, run as cli, snapshot, write_job

TARGETS = ("out.csv", "report.json", "report.html")


def start(job, *flags, hold=None):
    env = {**os.environ}
    env.pop("SQLANON_TEST_HOLD_AT", None)
    if hold:
        env["SQLANON_TEST_HOLD_AT"] = hold
    return subprocess.Popen(
        [sys.executable, "-m", "sqlanon", "anonymize", str(job), *map(str, flags)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def held(process, moment):
    """Wait until ``process`` reports it holds at ``moment``."""
    for line in process.stderr:
        if line == f"ready: {moment}\n":
            return
    raise AssertionError(f"the run ended before {moment}: {process.wait()}")


def finish(process, go_on=True):
    if go_on:
        process.send_signal(signal.SIGUSR1)
    out, err = process.communicate(timeout=120)
    return process.returncode, err


def run(job, *flags):
    return finish(start(job, *flags), go_on=False)


def leftovers(folder):
    """What a publication may leave only while it runs: locks and private folders."""
    return sorted(n for n in os.listdir(folder) if ".sqlanon" in n)


@pytest.fixture
def job(tmp_path):
    return write_job(tmp_path / "work")


@pytest.mark.slow
def test_two_runs_on_one_new_target_never_both_publish(job):
    folder = job.parent
    first = start(job, hold="publish:staged")
    held(first, "publish:staged")
    code, err = run(job)  # no --overwrite, the same targets, while the first one works
    assert code == 3, err
    assert f"is being written by another sqlanon run (process {first.pid})" in err and "Traceback" not in err
    assert finish(first)[0] == 0
    release = {name: digest(folder / name) for name in TARGETS}
    code, err = run(job)  # and after it: the targets exist
    assert code == 3 and "already exists" in err, err
    assert {name: digest(folder / name) for name in TARGETS} == release
    assert leftovers(folder) == []


@pytest.mark.slow
def test_concurrent_overwrite_runs_never_mix_their_files(job):
    folder = job.parent
    first = start(job, "--overwrite", "--k", "3", hold="publish:staged")
    held(first, "publish:staged")
    code, err = run(job, "--overwrite", "--k", "2")
    assert code == 3 and f"(process {first.pid})" in err, err
    assert finish(first)[0] == 0
    report = json.loads((folder / "report.json").read_text())
    assert report["privacy"]["models"][0]["k"] == 3
    assert "k = 3" in (folder / "report.html").read_text() or "k=3" in (folder / "report.html").read_text()


@pytest.mark.slow
def test_a_file_created_at_the_target_mid_run_is_kept(job):
    folder = job.parent
    process = start(job, hold="publish:staged")
    held(process, "publish:staged")
    (folder / "out.csv").write_text("mine\n")
    code, err = finish(process)
    assert code == 3, err
    assert "the output" in err and "appeared while the run worked: nothing was published" in err
    assert (folder / "out.csv").read_text() == "mine\n"
    assert not (folder / "report.json").exists() and not (folder / "report.html").exists()
    assert leftovers(folder) == []


@pytest.mark.slow
def test_a_file_created_at_a_later_target_mid_run_takes_back_the_earlier_ones(job):
    folder = job.parent
    process = start(job, hold="publish:place-0")  # the output is in place, the report not yet
    held(process, "publish:place-0")
    (folder / "report.json").write_text("mine\n")
    code, err = finish(process)
    assert code == 3 and "appeared while the run worked" in err, err
    assert (folder / "report.json").read_text() == "mine\n"
    assert not (folder / "out.csv").exists() and not (folder / "report.html").exists()
    assert leftovers(folder) == []


@pytest.mark.slow
def test_a_folder_swapped_for_a_symlink_mid_run_redirects_nothing(tmp_path):
    job = write_job(tmp_path / "work", output="out/o.csv", report="out/report.json")
    (tmp_path / "work" / "out").mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "report.json").write_text("the victim's\n")
    before = snapshot(victim)
    process = start(job, hold="publish:staged")
    held(process, "publish:staged")
    out = tmp_path / "work" / "out"
    out.rename(tmp_path / "work" / "out.moved")
    out.symlink_to(victim)
    code, err = finish(process)
    assert code == 0, err
    assert snapshot(victim) == before and sorted(os.listdir(victim)) == ["report.json"]
    # the files went to the folder that was checked, wherever it is now
    assert sorted(os.listdir(tmp_path / "work" / "out.moved")) == ["o.csv", "report.html", "report.json"]


@pytest.mark.slow
def test_symlinks_planted_beside_the_targets_are_never_followed(job, tmp_path):
    folder = job.parent
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    # the names the earlier releases used for their temporaries (predictable from the next pids)
    pid = os.getpid()
    for n in range(pid, pid + 200):
        for name in TARGETS:
            stem, ext = os.path.splitext(name)
            (folder / f".{name}.sqlanon-{n}.tmp{ext}").symlink_to(outside)
    code, err = run(job)
    assert code == 0, err
    assert outside.read_text() == "outside\n"
    for name in TARGETS:
        assert (folder / name).is_file() and not (folder / name).is_symlink()
    # a symlink at the lock's own name is refused, not followed
    code, err = run(job, "--overwrite", "--report", folder / "other.json")
    assert code == 0, err
    (folder / ".other2.json.sqlanon.lock").symlink_to(outside)
    code, err = run(job, "--overwrite", "--report", folder / "other2.json")
    assert code == 3 and "is a symlink, which sqlanon never follows" in err, err
    assert outside.read_text() == "outside\n" and not (folder / "other2.json").exists()


MOMENTS = [
    "publish:staged",
    "publish:journal",
    "publish:backup",
    "publish:place-0",
    "publish:place-1",
    "publish:place-2",
    "publish:committed",
]


@pytest.mark.slow
@pytest.mark.parametrize("moment", MOMENTS)
def test_a_kill_at_any_step_of_a_publication_is_rolled_back_or_forward_by_the_next_run(job, moment):
    """A release at k = 2 stands; a run at k = 3 with --overwrite is killed at ``moment``. The
    next run for the same targets (one that finds no transformation, so it publishes nothing
    itself) finds the folder as the first release left it or as the killed run would have — all
    of one, none of a mix — and no lock, private folder or backup remains."""
    folder = job.parent
    assert run(job)[0] == 0
    old = {name: digest(folder / name) for name in TARGETS}
    process = start(job, "--overwrite", "--k", "3", hold=moment)
    held(process, moment)
    staging = [folder / n for n in os.listdir(folder) if n.startswith(".sqlanon-")]
    assert len(staging) == 1
    # the killed run's files: those still in its private folder, and those already in place
    new = {
        name: digest(staging[0] / name) if (staging[0] / name).exists() else digest(folder / name) for name in TARGETS
    }
    assert new != old
    process.kill()
    process.wait()
    code, err = run(job, "--overwrite", "--k", "13", "--suppression-limit", "0")
    assert code == 1, err
    now = {name: digest(folder / name) for name in TARGETS}
    assert now == (new if moment == "publish:committed" else old)
    assert leftovers(folder) == []


@pytest.mark.slow
def test_a_kill_before_the_journal_leaves_nothing_to_restore_and_nothing_behind(job):
    folder = job.parent
    process = start(job, hold="publish:staged")
    held(process, "publish:staged")
    process.kill()
    process.wait()
    assert not any((folder / name).exists() for name in TARGETS)
    assert len(leftovers(folder)) == 4  # three locks and the private folder, until the next run
    code, err = run(job, "--k", "13", "--suppression-limit", "0")
    assert code == 1, err
    assert leftovers(folder) == [] and not any((folder / name).exists() for name in TARGETS)


@pytest.mark.slow
def test_a_second_run_refused_by_the_lock_leaves_the_first_ones_files_alone(job):
    folder = job.parent
    first = start(job, hold="publish:place-1")
    held(first, "publish:place-1")
    middle = snapshot(folder)
    code, err = run(job, "--overwrite")
    assert code == 3, err
    assert snapshot(folder) == middle
    assert finish(first)[0] == 0
    assert leftovers(folder) == []


@pytest.fixture
def read_only_fs(tmp_path):
    """A read-only file system (a tmpfs mounted ``ro``): EROFS, not a permission."""
    if os.geteuid() != 0:
        pytest.skip("mounting a file system needs root")
    mount = tmp_path / "ro"
    mount.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(mount)], capture_output=True
    ).returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def test_every_command_that_writes_names_a_read_only_folder(job, read_only_fs):
    folder = job.parent
    job.write_text(job.read_text().replace('hierarchy = "sex.csv"', 'hierarchy = { type = "mask", levels = 1 }'))
    before = snapshot(folder)
    for command in (
        ["anonymize", job, "--output", read_only_fs / "out.csv"],
        ["anonymize", job, "--report", read_only_fs / "report.json"],
        ["init", folder / "data.csv", "--output", read_only_fs / "job.toml"],
        ["risk", job, "--output", read_only_fs / "risk.txt"],
        ["hierarchy", "build", job, "--attribute", "sex", "--output", read_only_fs / "sex.csv"],
    ):
        result = cli(*command)
        assert result.exit_code == 3, (command, result.output)
        assert f"the folder {read_only_fs} refuses it (Read-only file system)" in result.stderr, result.output
        assert "Traceback" not in result.output and len(result.stderr.strip().splitlines()) == 1, result.output
    assert snapshot(folder) == before and os.listdir(read_only_fs) == []


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["publish:place-1", "publish:table"])
def test_a_kill_around_an_output_tables_rename_is_finished_by_the_next_run(tmp_path, moment):
    """The table is renamed after the files are in place: killed before it, the next run puts
    the old report back and drops the temporary table; killed after it, the new release stands."""
    job = write_job(tmp_path / "work", output="out.duckdb", report="report.json", extra='table = "released"\n')
    folder = job.parent

    def tables():
        con = duckdb.connect(str(folder / "out.duckdb"), read_only=True)
        try:
            names = sorted(r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall())
            return names, con.execute("SELECT count(DISTINCT age) FROM released").fetchall()
        finally:
            con.close()

    assert run(job)[0] == 0
    old = (digest(folder / "report.json"), tables())
    process = start(job, "--overwrite", "--k", "6", hold=moment)
    held(process, moment)
    process.kill()
    process.wait()
    code, err = run(job, "--overwrite", "--k", "13", "--suppression-limit", "0")
    assert code == 1, err
    now = (digest(folder / "report.json"), tables())
    assert now[1][0] == ["released"]  # no temporary table beside it, either way
    if moment == "publish:table":
        assert now != old and json.loads((folder / "report.json").read_text())["privacy"]["models"][0]["k"] == 6
    else:
        assert now == old
    assert leftovers(folder) == []


def test_an_interrupt_after_the_point_of_no_return_says_the_release_stands(job):
    """SIGTERM at the last hold of a publication (the journal says committed): the files stay,
    complete, and the one line says so instead of "no output was written"."""
    folder = job.parent
    process = start(job, hold="publish:committed")
    held(process, "publish:committed")
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, go_on=False)
    assert code == 130, err
    assert err.strip().splitlines()[-1] == (
        "interrupted after the release was published: its files are complete and verified"
    )
    assert sorted(os.listdir(folder)) == sorted(["age.csv", "data.csv", "job.toml", "sex.csv", *TARGETS])


def test_an_interrupt_before_the_point_of_no_return_takes_everything_back(job):
    folder = job.parent
    process = start(job, hold="publish:place-1")
    held(process, "publish:place-1")
    process.send_signal(signal.SIGTERM)
    code, err = finish(process, go_on=False)
    assert code == 130 and err.strip().splitlines()[-1] == "interrupted: no output was written", err
    assert sorted(os.listdir(folder)) == ["age.csv", "data.csv", "job.toml", "sex.csv"]


def test_the_demo_in_a_read_only_folder_names_it(read_only_fs, monkeypatch):
    monkeypatch.chdir(read_only_fs)
    result = cli("demo")
    assert result.exit_code == 3, result.output
    assert f"the folder {read_only_fs / 'demo'} refuses it (Read-only file system)" in result.stderr, result.output
    assert "Traceback" not in result.output and os.listdir(read_only_fs) == []
