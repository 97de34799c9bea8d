"""The markers ``make test-fast`` leaves out are set on every test that needs their server:
an engine parameter with a placement ("spark-local", "postgres-local") too."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from helpers.markers import _marks


@pytest.mark.parametrize(
    "params, fixtures, expected",
    [
        ({"engine": "spark-local"}, [], ["spark"]),
        ({"engine": "postgres-local"}, [], ["postgres"]),
        ({"engine": "postgres"}, [], ["postgres"]),
        ({"engine": "duckdb-local"}, [], []),
        ({"name": "sparkle"}, [], []),
        ({}, ["spark", "tmp_path"], ["spark"]),
    ],
)
def test_an_engine_parameter_or_fixture_sets_its_marker(params, fixtures, expected):
    item = SimpleNamespace(callspec=SimpleNamespace(params=params), fixturenames=fixtures)
    assert _marks(item) == expected
