"""A session: one job's input opened and encoded once, ready for any number of searches.

``anonymize`` uses one session per job; benchmarks and tests use one session for many
(k, suppression limit, metric, algorithm) configurations, so preparation is paid once.
"""

from __future__ import annotations

import _imp
import json
import os
import sys
import threading
import time
from dataclasses import replace
from math import prod

from sqlanon.checks.checker import Checker
from sqlanon.core.needs import Need
from sqlanon.core.options import split
from sqlanon.config.job import INTERVAL_ALGORITHMS, Job
from sqlanon.metrics.context import metric_context
from sqlanon.criteria import build_models
from sqlanon.config.validate import algorithm_options, check_models, research_subset, sensitive_attributes, validated
from sqlanon.config.engine import engine_for
from sqlanon.kernel import grouping
from sqlanon.engines.runner import CheckRunner
from sqlanon.engines.store import OutputColumn
from sqlanon.engines.mask_values import refuse_masked_leaves
from sqlanon.errors import ConfigError, cuts
from sqlanon.hierarchy.coverage import refuse_header_row
from sqlanon.lattice import Lattice
from sqlanon.metrics import METRICS, get_metric
from sqlanon.checks.placement import Placement, decide, for_intervals
from sqlanon.search import ALGORITHMS, HEURISTICS, SearchOutcome, tag_loops
from sqlanon.core.wording import roles_hint
from sqlanon.progress import SearchTracker

ALL_NEEDS = Need.union(m.needs for m in METRICS.values())


def _warm() -> None:
    """Load the compiled loops of local checks in a session's background thread, while its
    engine reads the input: the kernel's (``grouping.warm``) and predictive tagging's walk
    (``sqlanon/search/tag_loops.py``), which is used only once loaded."""
    _hold_for_test()
    grouping.warm()
    try:
        tag_loops.warm()
    except Exception:  # noqa: BLE001 - the Python walk serves
        pass


def _hold_for_test() -> None:
    """Test hook: with ``SQLANON_TEST_HOLD_AT=warm`` this thread prints ``ready: warm`` and
    holds the import lock for up to 60 s, as a warm-up stuck in an import would: the main
    thread then blocks, where no signal handler runs, at its next import (tests/cli/test_interrupt.py)."""
    if os.environ.get("SQLANON_TEST_HOLD_AT") == "warm":
        _imp.acquire_lock()
        try:
            sys.stderr.write("ready: warm\n")
            sys.stderr.flush()
            time.sleep(60)
        finally:
            _imp.release_lock()


class Session:
    """Open ``job.input`` in the job's engine, check the roles, encode and compress once."""

    def __init__(self, job: Job, needs: Need | None = None, share_stats: bool = False):
        job = validated(job)
        started = time.perf_counter()
        self._warming = None
        if job.checks != "sql" and needs is None:
            # the compiled kernel loads while the engine reads (see _warm)
            self._warming = threading.Thread(target=_warm, name="sqlanon-warm", daemon=True)
            self._warming.start()
        self.job = job
        self.qis = [a.name for a in job.quasi_identifiers]
        # Hierarchy files first (fail fast), builders once the data is open.
        files = {a.name: job.hierarchy_of(a) for a in job.quasi_identifiers if not isinstance(a.hierarchy, dict)}
        self.engine = engine_for(job)
        self._runner: CheckRunner | None = None  # asked of the store once checks are placed
        try:
            columns = self.engine.open(job.input)
            self.passthrough, self.output_columns = plan_columns(job, columns)
            self.hierarchy_objects = [
                files.get(a.name) or job.hierarchy_of(a, lambda a=a: self.engine.distinct_values(a.name))
                for a in job.quasi_identifiers
            ]
            self.hierarchies = [h.encoded for h in self.hierarchy_objects]
            # Refuse an optimal search of a huge lattice before reading and encoding the data.
            self._refuse_huge_lattice(job, job.algorithm, prod(len(h.labels) for h in self.hierarchies))
            # k-optimize and hill-climb read the class table, not per-node figures.
            lattice_metric = job.algorithm not in INTERVAL_ALGORITHMS
            self.needs = (METRICS[job.metric].needs if lattice_metric else Need.NONE) if needs is None else needs
            self.sensitives = sensitive_attributes(job) if lattice_metric else []
            self.subset = research_subset(job)
            # only a job with a research subset (delta-presence) passes one: engines without it still serve the rest
            subset = {"subset": self.subset} if self.subset is not None else {}
            if subset and not self.engine.capabilities.research_subset:
                raise ConfigError(
                    f"the {job.engine} engine does not support delta-presence (a research subset); "
                    'use engine.name = "duckdb"'
                )
            self.prepared = self.engine.prepare(
                list(zip(self.qis, self.hierarchies)), self.passthrough, self.needs, self.sensitives, **subset
            )
            # An output the engine cannot write is refused now, not after the search.
            if job.output.writes:
                self.engine.check_output(job.output)
            #: where checks run and why (every checker holds it), and the snapshot switches that follow
            self.check_placement: Placement = self._place_checks(job, lattice_metric)
            self.snapshot_settings = self.check_placement.snapshot_settings(
                job.snapshots, self.engine.capabilities.snapshots
            )
            value_counts = self.prepared.value_counts
            if value_counts is None:
                # a one-scan SQL prepare counts once checks are placed: the kernel has them in numpy
                value_counts = self._runner.value_counts() if self._runner is not None else self.engine.value_counts()
                self.prepared = replace(self.prepared, value_counts=value_counts)
            for hierarchy, counts in zip(self.hierarchy_objects, value_counts):
                refuse_header_row(hierarchy, counts[0])  # a header read as a value would change the loss
            # a '*' leaf some row holds: released, that row would look suppressed
            refuse_masked_leaves(job.input, self.qis, self.hierarchies, value_counts)
        except BaseException:
            self.engine.close()
            raise
        self.ctx = metric_context(self.prepared.rows, self.hierarchies, value_counts)
        self.lattice = Lattice(
            [len(h.labels) - 1 for h in self.hierarchies], [h.distinct for h in self.hierarchies], self.qis
        )
        self.prepare_seconds = time.perf_counter() - started
        # Tests compare many searches on one session: with share_stats, a node's class figures
        # are computed once per k and reused (each checker still counts its own checks).
        self._shared: dict | None = {} if share_stats else None
        self._checker: Checker | None = None  # the latest: its snapshots go when its search ends

    def _place_checks(self, job: Job, lattice_metric: bool) -> Placement:
        """Where the checks run (``sqlanon/checks/placement.py``), and the runner there, asked of
        the store once; the interval algorithms run no per-node check, so nothing is fetched
        for them (their runner is made only if something asks, ``runner``)."""
        engine = self.engine
        if not lattice_metric:
            return for_intervals(engine)
        placement = decide(
            job.checks,
            engine,
            self.prepared.base_classes,
            engine.class_table_columns(),
            job.local_budget,
            settle=self._settle,
        )
        if placement.where == "local":
            self._settle()  # the kernel's compiled functions, loaded: prepare pays for them, not the first check
        self._runner = engine.runner(placement.where)
        return placement

    def _settle(self) -> None:
        """Wait for the kernel's background load: while it holds the GIL, every query's return
        waits for it too (measured: 20-36 ms against 1.3-4 ms for the same query, loaded machine)."""
        if self._warming is not None:
            self._warming.join()

    @property
    def runner(self) -> CheckRunner:
        """What answers every check of this session (``engines/runner.py``): the store's SQL or
        the kernel over its class table, as the placement chose."""
        if self._runner is None:
            self._runner = self.engine.runner(self.check_placement.where)
        return self._runner

    @property
    def placement(self) -> str:
        """Where the checks run: "sql" or "local"."""
        return self.check_placement.where

    @property
    def placement_reason(self) -> str:
        return self.check_placement.why

    @property
    def rows(self) -> int:
        return self.prepared.rows

    def checker(self, on_check=None, **overrides) -> Checker:
        """A fresh checker (counters at zero) for the job, with k/suppression_limit/metric/models overridden."""
        job = replace(self.job, **overrides)
        metric = get_metric(job.metric, self._weights(job), job.label, job.gs_factor, job.aggregate)
        if metric.attribute is not None and metric.attribute not in self.sensitives:
            raise ConfigError(f"metric '{job.metric}' reads '{metric.attribute}', which this session did not prepare")
        missing = metric.needs & ~self.needs
        if missing:
            raise ConfigError(f"metric '{job.metric}' needs {missing.names()}, which this session did not prepare")
        if "models" in overrides:
            check_models(job)
        models = self.models(job)
        # A new checker starts cold: the previous one lets its snapshots go, the runner drops what is left.
        if self._checker is not None:
            self._checker.release_snapshots()
        runner = self.runner
        runner.reset_snapshots()
        self._checker = Checker(
            runner,
            models,
            metric,
            self.ctx,
            job.limit_rows(self.rows),
            job.suppression_limit,
            on_check=on_check,
            placement=self.check_placement,
            snapshots=self.snapshot_settings,
            population=self.prepared.population or self.prepared.rows,
            memo=self._shared,
        )
        return self._checker

    def _weights(self, job: Job) -> tuple[float, ...] | None:
        """search.weights in QI order, divided by the largest (ARX); None when not given."""
        if not job.weights:
            return None
        raw = [float(job.weights.get(q, 1.0)) for q in self.qis]
        top = max(raw)
        return tuple(w / top for w in raw)

    def models(self, job: Job):
        """The job's privacy models, their auxiliary tables stored in the engine."""
        models = build_models(job.model_specs)
        for model in models:
            if model.subset is not None and model.subset != self.subset:
                raise ConfigError(
                    f"the delta-presence model reads the research subset {model.subset.describe()}, "
                    "which this session did not prepare"
                )
            model.resolve_population(self.rows)  # population uniqueness: N from the input's rows
            if model.attribute is None:
                continue
            if model.attribute not in self.sensitives:
                raise ConfigError(
                    f"the {model.name} model reads '{model.attribute}', which this session did not prepare"
                )
            self.engine.store_tables(model.prepare(*self.engine.sensitive_values(model.attribute)))
        return models

    def overall(self) -> dict[str, dict[str, float]]:
        """Per sensitive attribute a model reads: each value's frequency in the input."""
        result = {}
        for name in self.sensitives:
            values, counts = self.engine.sensitive_values(name)
            result[name] = {v: c / self.rows for v, c in zip(values, counts)}
        return result

    def search(
        self, algorithm: str | None = None, on_check=None, on_progress=None, **overrides
    ) -> tuple[SearchOutcome, Checker]:
        """``on_progress``: called with a ``sqlanon.progress.Progress`` after every check and
        when the search ends."""
        name = algorithm or self.job.algorithm
        if name not in ALGORITHMS:
            raise ConfigError(f"unknown algorithm '{name}'; valid algorithms: {', '.join(ALGORITHMS)}")
        cls = ALGORITHMS[name]
        # the algorithm's own keys (one it does not take is refused, naming the ones that do)
        given, overrides = split(overrides)
        checker = self.checker(on_check=on_check, **overrides)
        job = replace(self.job, **overrides)
        self._refuse_huge_lattice(job, name, self.lattice.size)
        if name == self.job.algorithm and not given:
            options = self.job.options  # read when the job was validated
        else:  # another algorithm (its defaults), or options given here: read now
            options = algorithm_options(
                name, {**(self.job.search_options if name == self.job.algorithm else {}), **given}
            )
        search = cls(self.lattice, checker, **options.kwargs())
        if on_progress is None:
            outcome = search.run()
        else:
            tracker = checker.on_check = SearchTracker(search, on_progress, checker.on_check)
            outcome = search.run()
            tracker.finish()
        # The search is over: its snapshots go now, counted in its own checker's engine time,
        # not held until the next checker (and paid inside the next search). A later check on
        # this checker starts from the base class table.
        checker.release_snapshots()
        return outcome, checker

    def _refuse_huge_lattice(self, job: Job, name: str, size: int) -> None:
        if name in ALGORITHMS and ALGORITHMS[name].optimal and size > job.max_lattice_size:
            raise ConfigError(
                f"the generalization lattice has {size:,} nodes ({len(self.qis)} QIs), more than "
                f"search.max_lattice_size = {job.max_lattice_size:,}: the optimal algorithm '{name}' cannot "
                "finish on it. Use fewer quasi-identifiers or hierarchies with fewer levels, or raise "
                f"max_lattice_size if you can wait, or use a heuristic: algorithm = {' | '.join(map(repr, HEURISTICS))} "
                "(with time_limit = seconds)."
            )

    def validate_node(self, node) -> tuple[int, ...]:
        """The node as a tuple, or a ConfigError naming the QIs and their heights."""
        if len(node) != len(self.qis) or any(not 0 <= l <= h for l, h in zip(node, self.lattice.heights)):
            raise ConfigError(
                f"node {','.join(map(str, node))} is not in the lattice: give {len(self.qis)} levels "
                f"({', '.join(self.qis)}), each between 0 and {', '.join(map(str, self.lattice.heights))}"
            )
        return tuple(node)

    def explain(self, node, show: int = 10) -> dict:
        """A node's check SQL, its figures, and its smallest failing classes."""
        node = self.validate_node(node)
        checker = self.checker()
        result = checker.check(node)
        failing = self.runner.failing_classes(node, checker.keep, checker.params, show)
        return {
            "sql": self.engine.check_sql(node, checker.keep, checker.needs),
            "parameters": checker.params,
            "result": result,
            "limit_rows": checker.limit_rows,
            "failing": [(dict(zip(self.qis, row[:-1])), int(row[-1])) for row in failing],
            "reasons": self._population_reasons(checker, result.stats),
        }

    @staticmethod
    def _population_reasons(checker, stats) -> list[str]:
        """Why delta-presence fails a node beyond its failing classes: the population classes
        without subset rows, which are in no class list (they release nothing)."""
        return [
            f"{stats.empty_classes} classes of the population hold no row of the research subset: delta = 0 "
            f"< dmin = {m.dmin}, and suppression cannot remove them (delta-presence fails the node)"
            for m in checker.population_models
            if stats.empty_classes and not m.empty_classes_hold(stats.empty_classes)
        ]

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def hierarchy_for(job: Job, attribute: str):
    """The hierarchy of one attribute of a job, built over its data if the job gives a spec."""
    match = [a for a in job.attributes if a.name == attribute]
    if not match or match[0].hierarchy is None:
        named = [a.name for a in job.attributes if a.hierarchy is not None]
        raise ConfigError(f"attribute '{attribute}' has no hierarchy in the job; attributes with one: {named}")
    if not isinstance(match[0].hierarchy, dict):
        return job.hierarchy_of(match[0])
    engine = engine_for(job)
    try:
        engine.open(job.input)
        return job.hierarchy_of(match[0], engine.distinct_values(attribute))
    finally:
        engine.close()


def plan_columns(job: Job, columns: list[str]) -> tuple[list[str], list[OutputColumn]]:
    """Match roles to the input's columns: every column has a role or is dropped.

    Returns the passthrough columns (sensitive and insensitive, released unchanged) and the
    output columns in input order (identifying and dropped columns are not released).
    """
    roles = {a.name: a.role for a in job.attributes}
    unknown = [name for name in list(roles) + list(job.input.drop) if name not in columns]
    if unknown:
        raise ConfigError(
            f"column(s) {unknown} named in the job are not in the input {job.input.describe()}; "
            f"its columns are: {cuts(columns[:20])}{' …' if len(columns) > 20 else ''}{_delimiter_hint(job, columns)}"
        )
    subset = research_subset(job)
    if subset is not None:
        option = "subset" if subset.column is not None else "key"
        if subset.input_column not in columns:
            raise ConfigError(
                f"the delta-presence model's {option} = '{subset.input_column}' is not a column of the input "
                f"{job.input.describe()}; its columns are: {cuts(columns[:20])}{' …' if len(columns) > 20 else ''}"
            )
        if subset.column is not None and subset.column not in job.input.drop:  # the model's, never released
            roles.setdefault(subset.column, "identifying")
    both = [name for name in job.input.drop if name in roles]
    if both:
        raise ConfigError(f"column(s) {both} have a role and are also listed in input.drop: pick one")
    unassigned = [name for name in columns if name not in roles and name not in job.input.drop]
    if unassigned:
        raise ConfigError(f"column(s) {unassigned} of {job.input.describe()} have no role: {roles_hint()}")
    passthrough = [name for name in columns if roles.get(name) in ("sensitive", "insensitive")]
    qis = [a.name for a in job.quasi_identifiers]
    output = []
    for name in columns:
        if roles.get(name) == "quasi":
            output.append(OutputColumn(name, "qi", qis.index(name)))
        elif name in passthrough:
            output.append(OutputColumn(name, "pass", passthrough.index(name)))
    return passthrough, output


def _delimiter_hint(job: Job, columns: list[str]) -> str:
    """A CSV read with the wrong delimiter has one column whose name holds the real ones."""
    if job.input.kind != "csv" or len(columns) != 1:
        return ""
    for separator in (";", ",", "\t", "|"):
        if separator != job.input.delimiter and separator in columns[0]:
            return (
                f". The header reads as one column: the file looks separated by {separator!r}; "
                f"set [input] delimiter = {json.dumps(separator)}"
            )
    return ""
