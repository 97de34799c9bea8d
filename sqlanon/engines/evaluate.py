"""Evaluate the models' per-class predicates and the metrics' sums over numpy columns.

The privacy models state their per-class condition once, as a sqlglot predicate over the
class's size and figures with named parameters (``PrivacyModel.class_condition``), and the
metrics their sums over the flagged class table (``Metric.stats_columns``). The in-memory
engine runs no SQL: it evaluates those expression trees here, element-wise over one array per
column, so both engines decide every class by the same definition. Only the node types the
models and metrics build are known; any other raises, never silently falls back.

>>> import numpy as np
>>> from sqlglot import exp
>>> tree = exp.GTE(this=exp.column("n"), expression=exp.Placeholder(this="k"))
>>> evaluate(tree, {"n": np.array([1, 3, 5])}, {"k": 3}).tolist()
[False, True, True]
"""

from __future__ import annotations

import numpy as np
from sqlglot import exp

_COMPARE = {exp.GTE: np.greater_equal, exp.GT: np.greater, exp.LTE: np.less_equal, exp.LT: np.less,
            exp.EQ: np.equal, exp.NEQ: np.not_equal}
_ARITHMETIC = {exp.Add: np.add, exp.Sub: np.subtract, exp.Mul: np.multiply}


def evaluate(node: exp.Expression, columns: dict[str, np.ndarray], params: dict):
    """The value of ``node``: an array over the rows of ``columns`` for row expressions, a
    scalar for aggregates (SUM of no rows is None, as in SQL)."""
    kind = type(node)
    if kind is exp.Column:
        return columns[node.name]
    if kind is exp.Placeholder:
        return params[node.name]
    if kind is exp.Literal:
        return node.this if node.is_string else (float(node.this) if "." in node.this or "e" in node.this.lower() else int(node.this))
    if kind is exp.Boolean:
        return bool(node.this)
    if kind is exp.Paren:
        return evaluate(node.this, columns, params)
    if kind is exp.Cast:
        value = evaluate(node.this, columns, params)
        if node.to.this in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT):
            return np.asarray(value, dtype=np.float64) if value is not None else None
        raise NotImplementedError(f"CAST to {node.to.sql()} is not evaluated in memory")
    if kind in _COMPARE:
        return _COMPARE[kind](evaluate(node.this, columns, params), evaluate(node.expression, columns, params))
    if kind in _ARITHMETIC:
        return _ARITHMETIC[kind](evaluate(node.this, columns, params), evaluate(node.expression, columns, params))
    if kind is exp.Div:
        return np.true_divide(evaluate(node.this, columns, params), evaluate(node.expression, columns, params))
    if kind is exp.And:
        return np.logical_and(evaluate(node.this, columns, params), evaluate(node.expression, columns, params))
    if kind is exp.Or:
        return np.logical_or(evaluate(node.this, columns, params), evaluate(node.expression, columns, params))
    if kind is exp.Not:
        return np.logical_not(evaluate(node.this, columns, params))
    if kind is exp.Ln:
        return np.log(evaluate(node.this, columns, params))
    if kind is exp.Abs:
        return np.abs(evaluate(node.this, columns, params))
    if kind is exp.Case:
        return _case(node, columns, params)
    if kind is exp.Sum:
        values = evaluate(node.this, columns, params)
        rows = _rows(columns)
        if rows == 0:
            return None
        return np.broadcast_to(values, (rows,)).sum()
    if kind is exp.Coalesce:
        value = evaluate(node.this, columns, params)
        for other in node.expressions:
            if value is not None:
                break
            value = evaluate(other, columns, params)
        return value
    raise NotImplementedError(f"{kind.__name__} ({node.sql()}) is not evaluated in memory")


def _case(node: exp.Case, columns, params):
    default = node.args.get("default")
    result = evaluate(default, columns, params) if default is not None else None
    rows = _rows(columns)
    result = np.broadcast_to(np.asarray(result if result is not None else np.nan), (rows,))
    for branch in reversed(node.args["ifs"]):
        condition = np.broadcast_to(np.asarray(evaluate(branch.this, columns, params), dtype=bool), (rows,))
        result = np.where(condition, evaluate(branch.args["true"], columns, params), result)
    return result


def _rows(columns: dict[str, np.ndarray]) -> int:
    for value in columns.values():
        return len(value)
    return 0


def keep_mask(keep, columns: dict[str, np.ndarray], params: dict) -> np.ndarray:
    """Per class: does it satisfy every model? ``keep(size)`` builds the combined predicate."""
    rows = len(columns["n"])
    return np.broadcast_to(np.asarray(evaluate(keep(exp.column("n")), columns, params), dtype=bool), (rows,)).copy()


class Compiled:
    """A keep condition's trees built once: the combined per-class predicate over ``n`` and
    the metric's sums per number of QIs (``Conditions.stats_columns``)."""

    def __init__(self, keep):
        self.predicate = keep(exp.column("n"))
        self._source = keep
        self._sums: dict[int, dict] = {}
        self._leaves: dict[int, bool] = {}

    def keep(self, columns: dict[str, np.ndarray], params: dict) -> np.ndarray:
        rows = len(columns["n"])
        return np.broadcast_to(np.asarray(evaluate(self.predicate, columns, params), dtype=bool), (rows,)).copy()

    def reads_leaves(self, d: int) -> bool:
        """Do the predicate or the sums read a ``leaves{j}`` column? (Building them costs a
        gather per QI per check.)"""
        if d not in self._leaves:
            trees = [self.predicate, *self.sums(d).values()]
            self._leaves[d] = any(column.name.startswith("leaves") for tree in trees for column in tree.find_all(exp.Column))
        return self._leaves[d]

    def sums(self, d: int) -> dict:
        if d not in self._sums:
            build = getattr(self._source, "stats_columns", None)
            self._sums[d] = build(d) if build is not None else {}
        return self._sums[d]
