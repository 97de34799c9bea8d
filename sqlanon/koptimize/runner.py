"""k-optimize and hill-climb over an open Session.

The engine returns the class table once (distinct QI combinations with their counts and, for
the classification metric, label counts); the model, the search and the costs then run in
memory over it — the honest shape of this algorithm. The chosen cuts go back to the engine,
which writes the output through SQL (a range join over a cut table).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from sqlanon.config.job import Job, ValidJob
from sqlanon.core.options import HillClimbOptions, IntervalOptions, split
from sqlanon.config.validate import validate
from sqlanon.criteria import KAnonymity
from sqlanon.errors import ConfigError
from sqlanon.koptimize.costs import Cost, class_figures, evaluate, make_cost, partition
from sqlanon.koptimize.hillclimb import HillClimb
from sqlanon.koptimize.model import IntervalModel, build_model, cuts_of_levels, interval_label
from sqlanon.koptimize.search import KOptimize, Solution


@dataclass
class IntervalOutcome:
    job: ValidJob
    model: IntervalModel
    cost: Cost
    solution: Solution
    upper_bound: dict | None

    @property
    def found(self) -> bool:
        return self.solution.cuts is not None

    @property
    def cuts(self) -> list[int]:
        """The solution's cut set, of an outcome that ``found`` one."""
        assert self.solution.cuts is not None, "the search found no cut set"
        return self.solution.cuts

    @property
    def suppressed(self) -> int:
        """The rows the solution suppresses, of an outcome that ``found`` one."""
        assert self.solution.suppressed is not None, "the search found no cut set"
        return self.solution.suppressed

    def figures(self) -> dict:
        """Classes and smallest kept class of the solution."""
        cuts = self.model.cuts_by_attribute(self.cuts)
        sizes, _ = class_figures(self.model, *partition(self.model, cuts))
        kept = sizes[sizes >= self.job.k]
        return {"classes": int(len(kept)), "min_class_size": int(kept.min()) if len(kept) else None}


def interval_model(session, job: ValidJob | None = None) -> IntervalModel:
    """The model of a session's data: the class table read once from the engine."""
    job = job or session.job
    label = job.label if job.metric == "classification" else None
    if label is not None and label not in session.qis and label not in session.passthrough:
        raise ConfigError(
            f"search.label '{label}' must be a released column of the input (role quasi, "
            f"sensitive or insensitive); such columns: {session.qis + session.passthrough}"
        )
    codes, counts, values, per_label = session.engine.class_table(label)
    return build_model(
        session.qis, session.hierarchies, codes, counts, per_label, values, _options(job).koptimize.order
    )


def _options(job: ValidJob) -> IntervalOptions:
    """The interval algorithm's options (a job of another algorithm: k-optimize's defaults)."""
    return job.options if isinstance(job.options, IntervalOptions) else IntervalOptions()


def search_intervals(session, model: IntervalModel | None = None, **overrides) -> IntervalOutcome:
    """Run the job's interval algorithm (or ``algorithm=``) with any job field or option
    (``seed=``, ``koptimize=`` ...) overridden."""
    job = (
        validate(with_overrides(session.job, **overrides)) if overrides else session.job
    )  # the session validated its own
    options = _options(job)
    model = model or interval_model(session, job)
    cost = make_cost(job.metric, model, job.k, job.release_limit_rows(session.rows))
    if isinstance(options, HillClimbOptions):
        solution = HillClimb(cost, options.seed, options.time_limit, options.step_limit).run()
        return IntervalOutcome(job, model, cost, solution, None)
    cuts, bound = None, None
    if options.koptimize.upper_bound == "flash":
        cuts, bound = flash_upper_bound(session, job, model, cost)
    threads = options.koptimize.threads
    solution = KOptimize(cost, options.time_limit, options.step_limit, upper_bound=cuts, threads=threads).run()
    return IntervalOutcome(job, model, cost, solution, bound)


def with_overrides(job: Job, **overrides) -> Job:
    """``job`` with fields and the interval algorithms' options replaced."""
    given, fields = split(overrides)
    return replace(job, search_options={**job.search_options, **given}, **fields)


def flash_upper_bound(session, job: Job, model: IntervalModel, cost: Cost) -> tuple[list[int] | None, dict]:
    """Flash's DM optimum (same k, a suppression limit no larger) mapped to cuts: every
    full-domain generalization whose groups are intervals of the order is a cut set."""
    started = time.perf_counter()
    fraction = min(1.0, cost.limit / session.rows)
    outcome, checker = session.search("flash", k=job.k, suppression_limit=fraction, metric="discernibility")
    info = {"source": "flash", "checks": checker.checks}
    best = outcome.optimum
    cuts = None
    if best is None:
        info["found"] = False
    else:
        cuts = cuts_of_levels(model, session.hierarchies, best.node)
        info.update({"found": True, "node": list(best.node), "flash_loss": best.loss, "mapped": cuts is not None})
        if cuts is not None:
            info["cost"] = evaluate(cost, cuts)[0]
    info["seconds"] = round(time.perf_counter() - started, 6)
    return cuts, info


def write_intervals(session, outcome: IntervalOutcome, target: str) -> None:
    """Have the engine write the released table for the solution's cuts."""
    model = outcome.model
    intervals = [
        [(a, b, interval_label(domain, a, b)) for a, b in spans]
        for domain, spans in zip(model.domains, model.intervals(outcome.cuts))
    ]
    model_k = KAnonymity(outcome.job.k)
    session.engine.write_intervals(
        [d.leaf_rank for d in model.domains],
        intervals,
        model_k.class_condition,
        model_k.parameters(),
        session.output_columns,
        outcome.job.output,
        target,
    )


def interval_report(outcome: IntervalOutcome) -> dict:
    """The algorithm's part of report.json."""
    job, solution, model = outcome.job, outcome.solution, outcome.model
    options = _options(job)
    report = {
        "interval_model": {
            "alphabet_size": len(model.alphabet),
            "domains": {d.name: {"values": d.size, "order": d.order} for d in model.domains},
            "label": job.label if job.metric == "classification" else None,
            # as given: rows, "unlimited", or None (then floor(suppression_limit * N))
            "suppression_rows": options.koptimize.suppression_rows,
            "search_in_memory": True,
            "class_table_rows": int(model.ranks.shape[1]),
        },
        "proven_optimal": solution.proven,
        "time_limit": options.time_limit,
        "step_limit": options.step_limit,
        "history": solution.history,
        "algorithm_counters": solution.counters,
    }
    if job.algorithm == "hill-climb":
        report["seed"] = solution.counters["seed"]
    if outcome.upper_bound is not None:
        report["upper_bound"] = outcome.upper_bound
    if outcome.found:
        report.update(
            {
                "cuts": model.describe(outcome.cuts),
                "loss": solution.cost,
                "suppressed": solution.suppressed,
                **outcome.figures(),
            }
        )
    return report
