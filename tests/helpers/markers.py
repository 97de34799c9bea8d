"""Markers by what a test needs, set when pytest collects it (a plugin: ``-p helpers.markers``
in pyproject's ``addopts``): ``postgres`` for a test on the throwaway PostgreSQL server (its
fixture, or an engine parameter "postgres"), ``spark`` for one on Spark (the session fixture,
or "spark"). ``browser`` (Chromium) and ``slow`` are set where the tests are written.
``make test-fast`` leaves all four out.

Where a driver is missing, its tests are skipped with the line that installs it; the servers
themselves (PostgreSQL's binaries, Java) are not drivers: without them the tests fail, as
``.ci/run`` installs both."""

from __future__ import annotations

import importlib.util

import pytest

#: marker -> (what marks a test: its fixture or an engine parameter's value, the driver, the install line)
NEEDS = {
    "postgres": ("postgres_url", "postgres", "psycopg", "pip install '.[postgres]'"),
    "spark": ("spark", "spark", "pyspark", "pip install '.[spark]'"),
}


def _marks(item: pytest.Item) -> list[str]:
    callspec = getattr(item, "callspec", None)
    values = {v for v in callspec.params.values() if isinstance(v, str)} if callspec is not None else set()
    fixtures = set(getattr(item, "fixturenames", ()))
    # an engine parameter names the engine, or the engine and a placement ("spark-local")
    engines = {v.partition("-")[0] for v in values}
    return [name for name, (fixture, value, _, _) in NEEDS.items() if fixture in fixtures or value in engines]


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the markers set here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = {name: importlib.util.find_spec(driver) is None for name, (_, _, driver, _) in NEEDS.items()}
    for item in items:
        for name in _marks(item):
            item.add_marker(name)
            if missing[name]:
                _, _, driver, install = NEEDS[name]
                item.add_marker(pytest.mark.skip(reason=f"the {name} engine's tests need {driver}: {install}"))
