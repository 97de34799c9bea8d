"""What the tests share, and only that: no test module imports another (``tests/project/test_layout.py``
holds every file to it), and ``conftest.py`` keeps only fixtures.

- ``jobs``: the ADULT data and its hierarchies, jobs over it and over small in-memory tables,
  the numpy oracle over ADULT, ``on_engine`` (a job as each engine and check placement runs it);
- ``oracle``: the independent brute-force oracle (numpy, no sqlanon code);
- ``pg``: the throwaway PostgreSQL server of a test run (its ``postgres_url`` fixture is
  registered by ``conftest.py``);
- ``standin``: a stand-in checker answering from a dict of node -> figures, so a search
  algorithm runs without an engine or data;
- the rest: cases and builders more than one test file uses (``contract``, ``random_tables``,
  ``models_adult``, ``sensitive``, ``tiny_models``, ``metric_table``, ``presence``, ``targets``,
  ``outputs``).

pytest puts ``tests/`` on ``sys.path`` (pyproject's ``pythonpath = ["tests", "."]``, before
the plugins load, ``helpers.markers`` among them), so ``from helpers.jobs import adult_job``
works from a test in any folder of ``tests/``; the same setting puts the repository's root
there, so a test imports the benchmarks as the package they are (``from bench.datasets import
dataset_job``). Nothing in ``bench/`` imports these helpers.
"""
