"""A job checked as a whole, once, at the start of a run: ``validated(job)`` returns the job a run
uses (a ``ValidJob``, frozen) or raises ``ConfigError`` naming the setting and the fix.

The engine's own settings are read by the engine's profile (``sqlanon/engines/profiles.py``);
nothing here names an engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from sqlanon.core import encodings
from sqlanon.config.delimiters import check_delimiter
from sqlanon.config.job import INTERVAL_ALGORITHMS, INTERVAL_METRICS, ROLES, Job, ValidJob
from sqlanon.core.options import INTERVAL_OPTIONS, IntervalOptions, Options
from sqlanon.core.specs import ORDERS, SUPPRESSED_MODES, Output
from sqlanon.core.wording import in_code, role_setting
from sqlanon.criteria import build_model
from sqlanon.engines.profiles import PROFILES, SIZE, profile
from sqlanon.errors import ConfigError, shown
from sqlanon.hierarchy import Hierarchy
from sqlanon.metrics import METRICS, get_metric
from sqlanon.search import ALGORITHMS


def validated(job: Job) -> ValidJob:
    """The job a run uses: ``job`` itself when it was validated already, else the validated copy."""
    return job if isinstance(job, ValidJob) else validate(job)


def validate(job: Job) -> ValidJob:
    """Check every setting; the returned job is the one to run (with the engine's catalog set
    on a path-less input table)."""
    if isinstance(job.k, bool) or not isinstance(job.k, int) or job.k < 1:
        raise ConfigError(f"The 'k' parameter must be an int >= 1, got {job.k!r}.")
    s = job.suppression_limit
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
        raise ConfigError(f"The 'suppression_limit' parameter must be a number in [0, 1], got {s!r}.")
    if job.algorithm in INTERVAL_ALGORITHMS:
        _intervals(job)
    elif job.metric not in METRICS:
        raise ConfigError(f"unknown metric '{job.metric}'; valid metrics: {', '.join(METRICS)}")
    elif job.algorithm not in ALGORITHMS:
        valid = ", ".join([*ALGORITHMS, *INTERVAL_ALGORITHMS])
        raise ConfigError(f"unknown algorithm '{job.algorithm}'; valid algorithms: {valid}")
    job = _engine(job)
    if isinstance(job.max_lattice_size, bool) or not isinstance(job.max_lattice_size, int) or job.max_lattice_size < 1:
        raise ConfigError(f"The 'max_lattice_size' parameter must be an int >= 1, got {job.max_lattice_size!r}.")
    options = algorithm_options(job.algorithm, job.search_options)
    if (
        isinstance(options, IntervalOptions)
        and options.koptimize.suppression_rows is not None
        and job.suppression_limit
    ):
        raise ConfigError(
            "give the suppression limit once: privacy.suppression_limit (a fraction) or "
            "search.koptimize.suppression_rows (rows), not both"
        )
    if job.lookup not in ("wide", "join"):
        raise ConfigError(f"engine.lookup must be 'wide' or 'join', got '{job.lookup}'")
    _attributes(job)
    _encodings(job)
    _delimiters(job)
    check_models(job)
    _metric_options(job)
    # refuses classification without a label, and weights or a gs factor for a metric that takes none
    get_metric(job.metric, (1.0,) if job.weights else None, job.label, job.gs_factor, job.aggregate)
    if not job.quasi_identifiers:
        raise ConfigError('the job has no quasi-identifier: give at least one attribute role = "quasi"')
    if job.output.suppressed not in SUPPRESSED_MODES:
        raise ConfigError(
            f"output.suppressed must be one of {', '.join(SUPPRESSED_MODES)}, got '{job.output.suppressed}'"
        )
    _order(job.output)
    if job.output.path is not None and job.output.kind == "duckdb" and not job.output.table:
        raise ConfigError("output.table is required when the output is a .duckdb file")
    return ValidJob.of(job, options)  # a fresh object: a job handed in stays as it was given


def _order(output: Output) -> None:
    """output.order and output.seed (``order=`` and ``order_seed=`` in code)."""
    order, seed, shuffle = (
        ("order=", "order_seed=", 'order="shuffle"')
        if in_code()
        else ("output.order", "output.seed", 'output.order = "shuffle"')
    )
    if output.order not in ORDERS:
        raise ConfigError(
            f'{order} must be "shuffle" (the rows in a random order, the default) or "input" '
            f"(the input's order), got {shown(output.order)}"
        )
    if output.seed is None:
        return
    if isinstance(output.seed, bool) or not isinstance(output.seed, int) or output.seed < 0:
        raise ConfigError(
            f"{seed} must be an int >= 0 (it makes the random order reproducible), got {shown(output.seed)}"
        )
    if output.order != "shuffle":
        raise ConfigError(
            f"{seed} applies to the shuffle only (it makes the random order reproducible), not to "
            f'order "{output.order}": remove it, or set {shuffle}'
        )


def _attributes(job: Job) -> None:
    seen = set()
    for a in job.attributes:
        if a.role not in ROLES:
            raise ConfigError(f"attribute '{a.name}': unknown role '{a.role}'; valid roles: {', '.join(ROLES)}")
        if a.name in seen:
            raise ConfigError(f"attribute '{a.name}' is given twice")
        seen.add(a.name)
        if a.role == "quasi" and a.hierarchy is None:
            raise ConfigError(f"quasi-identifier '{a.name}' needs a hierarchy (hierarchy = \"file.csv\")")
        if a.role != "quasi" and a.hierarchy is not None:
            raise ConfigError(
                f"attribute '{a.name}' has role \"{a.role}\" and a hierarchy, which only a quasi-identifier "
                'uses (it would be ignored): set role = "quasi" to generalize it, or remove the hierarchy'
            )


def _engine(job: Job) -> Job:
    """The engine's settings read by its profile, the snapshot and placement keys, and the
    formats it reads and writes; returns the job with a path-less input table in the engine's
    catalog."""
    engine = profile(job.engine)
    snap = job.snapshots
    for key in ("rollup", "history", "projection"):
        if not isinstance(getattr(snap, key), bool) and not (key != "projection" and getattr(snap, key) is None):
            raise ConfigError(f"engine.{key} must be true or false, got {getattr(snap, key)!r}")
    size, ratio = snap.history_size, snap.history_ratio
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ConfigError(f"engine.history_size must be an int >= 0 (snapshots kept), got {size!r}")
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio <= 1:
        raise ConfigError(f"engine.history_ratio must be a number in [0, 1] (classes / input rows), got {ratio!r}")
    able_to = engine.capabilities
    source = job.input
    if source.path is None and source.arrow is None and source.table and source.catalog is None:
        source = replace(source, catalog=able_to.tables)  # a table without a path is the engine's catalog's
        job = replace(job, input=source)
    engine.settings.read(job.engine, job.engine_settings, source.named_kind)
    for what, where, able in (("input", source, able_to.inputs), ("output", job.output, able_to.outputs)):
        if where.path is None and getattr(where, "arrow", None) is None and not where.table:
            continue
        if where.kind not in able:
            noun = "tables" if where.kind in ("postgres", "spark") else "files"
            able_ones = [
                name
                for name, p in PROFILES.items()
                if where.kind in (p.capabilities.inputs if what == "input" else p.capabilities.outputs)
            ]
            # a database's table is best read by that database's own engine, if there is one
            handles = where.kind if where.kind in able_ones else next(iter(able_ones), None)
            raise ConfigError(
                f"the {job.engine} engine does not handle {where.kind} {noun} ({what} {where.path or where.describe()}); "
                f"it handles {', '.join(able)}" + (f': use [engine] name = "{handles}"' if handles else "")
            )
    if job.checks not in ("auto", "sql", "local"):
        raise ConfigError(f'engine.checks must be "auto", "sql" or "local", got {job.checks!r}')
    if job.local_budget is not None and not (isinstance(job.local_budget, str) and SIZE.fullmatch(job.local_budget)):
        raise ConfigError(f'engine.local_budget must be a size such as "512MB" or "2GiB", got {job.local_budget!r}')
    return job


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def algorithm_options(algorithm: str, given: Mapping) -> Options:
    """The options of ``algorithm`` (a known one) read from ``given`` (the job's
    ``search_options``): a key another algorithm owns is refused, naming the ones it applies to."""
    if not isinstance(given, Mapping):
        raise ConfigError(f"the search options must be a table of [search] keys, got {given!r}")
    cls = INTERVAL_OPTIONS[algorithm] if algorithm in INTERVAL_OPTIONS else ALGORITHMS[algorithm].Options
    owners = _owners()
    for key in given:
        if key in cls.keys():
            continue
        if key not in owners:
            raise ConfigError(f"unknown search option {key!r}; known: {', '.join(sorted(owners))}")
        optimal = algorithm in ALGORITHMS and ALGORITHMS[algorithm].optimal
        raise ConfigError(
            f"search.{key} does not apply to the algorithm '{algorithm}'"
            + (" (an optimal algorithm always runs to the proven optimum)" if optimal else "")
            + f"; it applies to: {', '.join(owners[key])}"
        )
    return cls.read(given)


def _owners() -> dict[str, list[str]]:
    """Each search option -> the algorithms that take it."""
    classes = {**{name: a.Options for name, a in ALGORITHMS.items()}, **INTERVAL_OPTIONS}
    owners: dict[str, list[str]] = {}
    for name, cls in classes.items():
        for key in cls.keys():
            owners.setdefault(key, []).append(name)
    return owners


def _encodings(job: Job) -> None:
    """input.encoding for a CSV only (and one the engine's reader decodes); an attribute's
    encoding only beside a hierarchy file."""
    if job.input.encoding is not None:
        if job.input.kind != "csv":
            raise ConfigError(
                f"input.encoding applies to a CSV input only, not to {job.input.describe()} ({job.input.kind}): "
                "Parquet and DuckDB store text as UTF-8; remove input.encoding"
            )
        name = encodings.codec(job.input.encoding, "input.encoding")
        readable = profile(job.engine).capabilities.csv_encodings
        if readable is not None and name not in readable:
            others = [
                n
                for n, p in PROFILES.items()
                if p.capabilities.csv_encodings is None and "csv" in p.capabilities.inputs
            ]
            raise ConfigError(
                f"input.encoding = {job.input.encoding!r}: the {job.engine} engine reads CSV in "
                f"{_listed([encodings.DUCKDB.get(n, n) for n in readable])} only; convert the file (e.g. iconv -t utf-8)"
                + (f', or use [engine] name = "{others[0]}"' if others else "")
            )
    for a in job.attributes:
        if a.encoding is None:
            continue
        if a.hierarchy is None or isinstance(a.hierarchy, (dict, Hierarchy)):
            raise ConfigError(
                f"attribute '{a.name}': encoding applies to a hierarchy file (hierarchy = \"file.csv\"), "
                "which this attribute does not have; remove encoding"
            )
        encodings.codec(a.encoding, f"the encoding of attribute '{a.name}'")


def _delimiters(job: Job) -> None:
    """The input's and the output's CSV delimiter, whatever the format (sqlanon/config/delimiters.py)."""
    check_delimiter(job.input.delimiter, "delimiter" if in_code() else "input.delimiter")
    check_delimiter(job.output.delimiter, "Output.delimiter" if in_code() else "output.delimiter")


def _model(job: Job, spec: dict):
    """The model of a [[privacy.models]] entry; its errors named as the job file gives it."""
    try:
        return build_model(spec)
    except ConfigError as error:
        raise ConfigError(f"{job.file}: [[privacy.models]]: {error}" if job.file else str(error)) from None


def check_models(job: Job) -> None:
    """The models read their own options; each names a sensitive attribute; one research subset."""
    roles = {a.name: a.role for a in job.attributes}
    subsets = 0
    for spec in job.models:
        model = _model(job, spec)
        if model.subset is not None:  # delta-presence, k-map with a research subset
            subsets += 1
            _subset(job, model.name, model.subset.column, roles, subsets)
        if model.attribute is not None and roles.get(model.attribute) != "sensitive":
            raise ConfigError(
                f"the {model.name} model names attribute '{model.attribute}', which is "
                + (f"'{roles[model.attribute]}'" if model.attribute in roles else "not in the job")
                + f': give it role = "sensitive" ({role_setting(model.attribute, "sensitive")})'
            )


def _subset(job: Job, name: str, column: str | None, roles: dict, count: int) -> None:
    """A job has one research subset; its boolean column is the model's, never released."""
    if count > 1:
        raise ConfigError(
            "a job takes one model with a research subset (delta-presence or k-map with subset=): "
            "merge the delta-presence entries into one with the narrowest dmin and dmax"
        )
    if job.algorithm in INTERVAL_ALGORITHMS:
        raise ConfigError(
            f"{name} is not available for {job.algorithm}: use an algorithm over the "
            "generalization lattice (flash, ola, incognito, exhaustive or a heuristic)"
        )
    if column is not None and roles.get(column) not in (None, "identifying"):
        raise ConfigError(
            f"the {name} subset column '{column}' has role \"{roles[column]}\": it marks the research "
            "subset and is not released; "
            + (
                "do not name it in the roles (or name it in identifying=)"
                if in_code()
                else 'remove its [attributes] entry (or make it "identifying")'
            )
        )


def _metric_options(job: Job) -> None:
    roles = {a.name: a.role for a in job.attributes}
    if job.weights is not None:
        if not isinstance(job.weights, dict):
            raise ConfigError("search.weights must be a table of QI name = weight, e.g. weights = { age = 2 }")
        for name, w in job.weights.items():
            if roles.get(name) != "quasi":
                raise ConfigError(
                    f"search.weights names '{name}', which is not a quasi-identifier; QIs: "
                    f"{[a.name for a in job.quasi_identifiers]}"
                )
            if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
                raise ConfigError(f"search.weights: the weight of '{name}' must be a number >= 0, got {w!r}")
        if job.weights and max(float(job.weights.get(a.name, 1.0)) for a in job.quasi_identifiers) <= 0:
            raise ConfigError("search.weights: at least one weight must be above 0")
    if job.label is not None and roles.get(job.label) not in ("sensitive", "insensitive"):
        raise ConfigError(
            f"search.label names '{job.label}', which must be a released column with role "
            '"sensitive" or "insensitive"'
        )


def _intervals(job: Job) -> None:
    """What k-optimize and hill-climb check and cost (their options: ``algorithm_options``)."""
    others = sorted({str(spec.get("type")) for spec in job.models if isinstance(spec, dict)})
    if others:
        # the ordered-interval searches cost and check class sizes only: a further model would
        # be released unchecked (the verification then refuses it, but only after the search)
        raise ConfigError(
            f"{job.algorithm} checks k-anonymity only, and the job also asks for {', '.join(others)}: "
            "use an algorithm over the generalization lattice (flash, ola, incognito, exhaustive or "
            "a heuristic) for further models"
        )
    if job.metric not in INTERVAL_METRICS:
        raise ConfigError(
            f"metric '{job.metric}' is not available for {job.algorithm}; valid metrics: {', '.join(INTERVAL_METRICS)}"
        )
    if job.metric == "classification" and not job.label:
        raise ConfigError(
            'the classification metric needs the label column: set search.label (e.g. label = "salary-class")'
        )
    if job.label is not None and not isinstance(job.label, str):
        raise ConfigError(f"search.label must be a column name, got {job.label!r}")


def research_subset(job: Job):
    """The research subset of the job's models (delta-presence, k-map; a ResearchSubset), or None."""
    for spec in job.models:
        model = _model(job, spec)
        if model.subset is not None:
            return model.subset
    return None


def sensitive_attributes(job: Job) -> list[str]:
    """The attributes whose per-class histograms the models (and the classification metric's
    label) read, in first-use order."""
    names = [_model(job, s).attribute for s in job.models] + [job.label]
    return list(dict.fromkeys(a for a in names if a))
