# The loop of work on sqlanon. `make test-fast` while changing code; `make test` (what CI runs,
# `.ci/run`) before a commit lands. Every target runs in the project's virtual environment.
PYTHON ?= .venv/bin/python
FAST = not slow and not postgres and not spark and not spark_full and not browser

.PHONY: install test test-fast test-all lint docs bench

install:  ## the project with its test, PostgreSQL, Spark, docs and bench extras, in .venv
	test -x $(PYTHON) || python3 -m venv .venv
	$(PYTHON) -m pip install -e '.[test,postgres,spark,docs,bench]'

test-fast:  ## everything but the slow, PostgreSQL, Spark and browser tests
	$(PYTHON) -m pytest -q -n 2 -m '$(FAST)'

test:  ## the suite CI runs (all but the slowest Spark cases), on two workers
	$(PYTHON) -m pytest -q -n 2

test-all:  ## the suite with the slowest Spark cases too
	$(PYTHON) -m pytest -q -n 2 -m ''

lint:  ## ruff, the imports' layers, the tests' layout and mypy over the whole package
	$(PYTHON) -m pytest -q tests/project

docs:  ## the documentation site, strictly (every link and page resolves)
	$(PYTHON) -m mkdocs build --strict

bench:  ## what the searches decide, against a record made before a change (BEFORE=record.json)
	$(PYTHON) -m bench.search_invariance --compare $(BEFORE)
