"""An interrupted run leaves no partial output and no temporary file behind."""

import os
import signal
import subprocess
import sys
import time


from conftest import ADULT, ADULT_QIS, ROOT

CLI = [sys.executable, "-m", "sqlanon.cli", "anonymize"]


def write_job(tmp_path, limit=0.1):
    lines = ["[input]", f'path = "{ADULT / "adult.csv"}"', 'delimiter = ";"']
    for q in ADULT_QIS:
        lines += [f'[attributes."{q}"]', 'role = "quasi"', f'hierarchy = "{ADULT / f"adult_hierarchy_{q}.csv"}"']
    out = tmp_path / "out"
    out.mkdir()
    lines += ["[privacy]", "k = 5", f"suppression_limit = {limit}", "[output]",
              f'path = "{out / "released.parquet"}"', f'report = "{out / "report.json"}"']
    path = tmp_path / "job.toml"
    path.write_text("\n".join(lines) + "\n")
    return path, out


def start(job, env=None, *flags):
    return subprocess.Popen(CLI + [str(job), *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, cwd=ROOT)


def wait_for(predicate, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_ctrl_c_during_search_leaves_nothing(tmp_path):
    job, out = write_job(tmp_path, limit=0.1)  # about 5,000 checks: still searching after 3 s
    process = start(job)
    time.sleep(3)
    assert process.poll() is None
    # A SIGINT that lands while DuckDB polls for signals at the very end of a query can be
    # consumed by DuckDB without an exception (seen once on a loaded machine): press again,
    # as a user would, until the run stops.
    for _ in range(6):
        process.send_signal(signal.SIGINT)
        if wait_for(lambda: process.poll() is not None, seconds=3):
            break
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted: no output was written" in err and "Traceback" not in err
    assert os.listdir(out) == []


def test_sigterm_during_output_write_leaves_nothing(tmp_path):
    job, out = write_job(tmp_path, limit=0.0)
    process = start(job, {"SQLANON_TEST_PAUSE_BEFORE_PUBLISH": "30"})
    assert wait_for(lambda: any(".sqlanon-" in name for name in os.listdir(out)))
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert os.listdir(out) == []


def test_kill_during_output_write_leaves_no_partial_output_and_next_run_cleans_up(tmp_path):
    job, out = write_job(tmp_path, limit=0.0)
    process = start(job, {"SQLANON_TEST_PAUSE_BEFORE_PUBLISH": "30"})
    assert wait_for(lambda: len(os.listdir(out)) == 2)  # the output's and the report's temporaries
    process.kill()
    process.communicate(timeout=60)
    left = sorted(os.listdir(out))
    assert "released.parquet" not in left and "report.json" not in left  # no partial output
    assert [name.split(".sqlanon-")[0] for name in left] == [".released.parquet", ".report.json"]
    again = start(job)
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert sorted(os.listdir(out)) == ["released.parquet", "report.json"]
