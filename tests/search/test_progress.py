"""Progress reports (sqlanon/progress.py) on ADULT: the callback's values agree with the
search's own counters, the decided share only grows and ends at 100 for the optimal
algorithms; heuristics report the budget used; the display draws only on a terminal."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from helpers.jobs import ADULT_SUBSET, adult_job

from sqlanon import Output, anonymize
from sqlanon.cli.commands import main
from sqlanon.progress import Display, Progress, progress_callback


def record(job):
    events: list[Progress] = []
    result = anonymize(job, on_progress=events.append)
    return result, events


@pytest.mark.parametrize("algorithm", ["flash", "ola", "exhaustive"])
def test_an_optimal_search_reports_the_share_of_the_lattice_decided(adult_available, algorithm):
    job = adult_job(ADULT_SUBSET, k=5, suppression_limit=0.02, algorithm=algorithm, output=Output())
    result, events = record(job)
    assert result.success
    report = result.report
    phases = [e.phase for e in events]
    assert phases[0] == "prepare" and phases[1] == "search" and set(phases) == {"prepare", "search"}  # nothing written
    search = [e for e in events if e.phase == "search"][1:]  # the first is the phase's start
    checks, last = search[:-1], search[-1]
    assert [e.checks for e in checks] == list(range(1, report["checks"] + 1))  # one report per check
    assert all(e.lattice_size == report["lattice_size"] == 720 for e in search)
    percents = [e.percent for e in checks]
    decided = [e.decided for e in checks]
    assert percents == sorted(percents) and decided == sorted(decided)  # never backwards
    assert all(p == pytest.approx(100 * d / 720) for p, d in zip(percents, decided))
    assert 0 <= percents[0] < 100  # a real share, not a flag
    if algorithm == "exhaustive":
        assert decided == list(range(1, 721))
    else:
        # before a check is reported every earlier check was tagged, and its implications with it;
        # the checked nodes are a small part of what was decided
        assert all(d >= e.checks - 1 for d, e in zip(decided, checks))
        assert decided[-1] > 2 * report["checks"]
    assert last.done and last.percent == 100.0 and last.decided == 720 and last.checks == report["checks"]
    # the lowest loss of an anonymous node seen: the optimum once the search ends (monotonic metric)
    best = [e.best_loss for e in search if e.best_loss is not None]
    assert best == sorted(best, reverse=True) and last.best_loss == result.loss


def test_flash_decides_the_whole_lattice_on_all_of_adult(adult_available):
    job = adult_job(k=5, suppression_limit=0.0, output=Output())
    result, events = record(job)
    search = [e for e in events if e.phase == "search" and e.lattice_size]
    percents = [e.percent for e in search]
    assert percents == sorted(percents) and percents[-1] == 100.0 and search[-1].done
    assert sum(1 for p in percents if p == 100.0) <= 2  # the last check may decide the rest; then the end
    assert search[-1].decided == result.report["lattice_size"] == 12960
    assert search[-1].checks == result.report["checks"]


def test_a_heuristic_reports_checks_best_loss_and_the_budget_used(adult_available):
    job = adult_job(
        ADULT_SUBSET, k=5, suppression_limit=0.02, algorithm="genetic", step_limit=40, seed=7, output=Output()
    )
    result, events = record(job)
    search = [e for e in events if e.phase == "search"][1:]
    checks = search[:-1]
    assert [e.checks for e in checks] == list(range(1, result.report["checks"] + 1))
    assert result.report["checks"] == 40 and result.report["stopped"] == "step_limit"
    assert [e.percent for e in checks] == [pytest.approx(100 * e.checks / 40) for e in checks]
    assert all(e.decided is None for e in search)
    best = [e.best_loss for e in search if e.best_loss is not None]
    assert best == sorted(best, reverse=True) and search[-1].best_loss == result.loss
    assert search[-1].done and search[-1].percent == 100.0


class Terminal(io.StringIO):
    def isatty(self):
        return True


def feed(display: Display) -> None:
    display(Progress("prepare"))
    display(Progress("search", lattice_size=720))
    for checks in range(1, 4):
        display(Progress("search", checks, 12.5, 720, 180 * checks, 25.0 * checks, 0.5))
    display(Progress("search", 4, 12.0, 720, 720, 100.0, 1.0, done=True))
    display(Progress("write"))
    display.close()


@pytest.mark.parametrize("use_tqdm", [True, False])
def test_the_display_draws_only_on_a_terminal(use_tqdm):
    quiet = io.StringIO()
    display = Display(quiet, use_tqdm=use_tqdm)
    assert not display.active
    feed(display)
    assert quiet.getvalue() == ""
    shown = Terminal()
    feed(Display(shown, use_tqdm=use_tqdm))
    text = shown.getvalue()
    assert "reading and encoding the input..." in text and "writing the output..." in text
    if use_tqdm:
        assert "searching: 100%" in text and "4 checks, best loss so far 12" in text
    else:
        assert "searching: 1s, 100% of the lattice, 4 checks, best loss so far 12" in text
    forced = io.StringIO()
    feed(Display(forced, force=True, use_tqdm=use_tqdm))  # a notebook asks for it explicitly
    assert "writing the output..." in forced.getvalue()


def test_the_progress_argument():
    assert progress_callback(False)[0] is None and progress_callback(None)[0] is None
    events = []
    assert progress_callback(events.append)[0] == events.append
    with pytest.raises(TypeError, match="progress must be True, False, 'auto' or a callable"):
        progress_callback("yes")


def test_the_cli_draws_nothing_when_stderr_is_not_a_terminal(demo_job):
    result = CliRunner().invoke(main, ["anonymize", str(demo_job)])
    assert result.exit_code == 0
    assert "searching" not in result.stderr and "\r" not in result.stderr
    assert result.stderr.startswith("Optimal transformation (flash, loss)")


def test_the_library_logs_its_phases_at_info_and_prints_nothing(demo_job, caplog, capfd):
    import logging

    from sqlanon import load_job

    job = load_job(demo_job)
    with caplog.at_level(logging.INFO, logger="sqlanon"):
        result = anonymize(job)
    assert result.success
    records = [r for r in caplog.records if r.name == "sqlanon"]
    assert all(r.levelno == logging.INFO for r in records)
    messages = [r.getMessage() for r in records]
    assert [m.split(":")[0] for m in messages] == ["prepare", "search", "write", "verify", "published", "done"]
    assert messages[0] == f"prepare: {job.input.path}"
    assert messages[4] == (
        f"published: {job.output.path}, {job.output.report}, {job.output.report[: -len('.json')]}.html"
    )
    assert messages[5] == f"done: {result!r}"
    out, err = capfd.readouterr()
    assert out == "" and err == ""
