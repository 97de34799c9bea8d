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

from collections.abc import Callable
from typing import Any

import numpy as np
from sqlglot import exp

_COMPARE: dict[type[exp.Expression], np.ufunc] = {
    exp.GTE: np.greater_equal,
    exp.GT: np.greater,
    exp.LTE: np.less_equal,
    exp.LT: np.less,
    exp.EQ: np.equal,
    exp.NEQ: np.not_equal,
}
_ARITHMETIC: dict[type[exp.Expression], np.ufunc] = {
    exp.Add: np.add,
    exp.Sub: np.subtract,
    exp.Mul: np.multiply,
    exp.Div: np.true_divide,
}
_LOGIC: dict[type[exp.Expression], np.ufunc] = {exp.And: np.logical_and, exp.Or: np.logical_or}
_UNARY: dict[type[exp.Expression], np.ufunc] = {exp.Not: np.logical_not, exp.Ln: np.log, exp.Abs: np.abs}


def evaluate(node: exp.Expression, columns: dict[str, np.ndarray], params: dict):
    """The value of ``node``: an array over the rows of ``columns`` for row expressions, a
    scalar for aggregates (SUM of no rows is None, as in SQL)."""
    return compile_tree(node)(columns, params)


Evaluator = Callable[[dict, dict], Any]


def compile_tree(node: exp.Expression) -> Evaluator:
    """``node`` as nested closures, the tree walked once: a check evaluates its predicate in
    a few microseconds instead of dispatching on every node's type again."""
    kind = type(node)
    if kind is exp.Column:
        name = node.name
        return lambda columns, params: columns[name]
    if kind is exp.Placeholder:
        name = node.name
        return lambda columns, params: params[name]
    if kind is exp.Literal:
        value = (
            node.this
            if node.is_string
            else (float(node.this) if "." in node.this or "e" in node.this.lower() else int(node.this))
        )
        return lambda columns, params: value
    if kind is exp.Boolean:
        value = bool(node.this)
        return lambda columns, params: value
    if kind is exp.Paren:
        return compile_tree(node.this)
    if type(node) is exp.Cast:  # type(node) narrows node: the branch reads the Cast's ``to``
        if node.to.this not in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT):
            raise NotImplementedError(f"CAST to {node.to.sql()} is not evaluated in memory")
        inner = compile_tree(node.this)

        def cast(columns, params):
            value = inner(columns, params)
            return np.asarray(value, dtype=np.float64) if value is not None else None

        return cast
    binary = _COMPARE.get(kind) or _ARITHMETIC.get(kind) or _LOGIC.get(kind)
    if binary is not None:
        left, right = compile_tree(node.this), compile_tree(node.expression)
        return lambda columns, params: binary(left(columns, params), right(columns, params))
    unary = _UNARY.get(kind)
    if unary is not None:
        inner = compile_tree(node.this)
        return lambda columns, params: unary(inner(columns, params))
    if type(node) is exp.Case:
        return _case(node)
    if kind is exp.Sum:
        inner = compile_tree(node.this)

        def total(columns, params):
            rows = _rows(columns)
            return None if rows == 0 else np.broadcast_to(inner(columns, params), (rows,)).sum()

        return total
    if kind is exp.Coalesce:
        parts = [compile_tree(node.this), *(compile_tree(other) for other in node.expressions)]

        def coalesce(columns, params):
            value = None
            for part in parts:
                value = part(columns, params)
                if value is not None:
                    break
            return value

        return coalesce
    raise NotImplementedError(f"{kind.__name__} ({node.sql()}) is not evaluated in memory")


def _case(node: exp.Case) -> Evaluator:
    default = node.args.get("default")
    otherwise = compile_tree(default) if default is not None else None
    branches = [(compile_tree(b.this), compile_tree(b.args["true"])) for b in reversed(node.args["ifs"])]

    def case(columns, params):
        rows = _rows(columns)
        result = otherwise(columns, params) if otherwise is not None else None
        result = np.broadcast_to(np.asarray(result if result is not None else np.nan), (rows,))
        for condition, value in branches:
            mask = np.broadcast_to(np.asarray(condition(columns, params), dtype=bool), (rows,))
            result = np.where(mask, value(columns, params), result)
        return result

    return case


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

    def __init__(self, keep) -> None:
        self.predicate = keep(exp.column("n"))
        self._predicate = compile_tree(self.predicate)
        self._source = keep
        self._sums: dict[int, dict] = {}
        self._compiled_sums: dict[int, dict[str, Evaluator]] = {}
        self._leaves: dict[int, bool] = {}

    def keep(self, columns: dict[str, np.ndarray], params: dict) -> np.ndarray:
        rows = len(columns["n"])
        value = self._predicate(columns, params)
        if isinstance(value, np.ndarray) and value.shape == (rows,):
            return value.astype(bool, copy=False)
        return np.broadcast_to(np.asarray(value, dtype=bool), (rows,)).copy()

    def figures(self, d: int, columns: dict[str, np.ndarray], params: dict) -> dict[str, float] | None:
        """The metric's sums over the flagged class table (None when it asks for none)."""
        if d not in self._compiled_sums:
            self._compiled_sums[d] = {name: compile_tree(tree) for name, tree in self.sums(d).items()}
        sums = self._compiled_sums[d]
        return {name: float(f(columns, params)) for name, f in sums.items()} if sums else None

    def reads_leaves(self, d: int) -> bool:
        """Do the predicate or the sums read a ``leaves{j}`` column? (Building them costs a
        gather per QI per check.)"""
        if d not in self._leaves:
            trees = [self.predicate, *self.sums(d).values()]
            self._leaves[d] = any(
                column.name.startswith("leaves") for tree in trees for column in tree.find_all(exp.Column)
            )
        return self._leaves[d]

    def sums(self, d: int) -> dict:
        if d not in self._sums:
            self._sums[d] = self._source.stats_columns(d)
        return self._sums[d]


_BY_SIGNATURE: dict[str, Compiled] = {}


def compiled(keep) -> Compiled:
    """The keep condition's predicate and sums as compiled evaluators, built once per
    condition object: building the sqlglot trees again for every check costs more than the
    check itself once a check takes a fraction of a millisecond."""
    cached = keep.compiled
    if cached is None:
        # Every checker makes its own condition object; one with the same signature (the
        # models and the metric's sums, which the SQL engines' query cache keys on too)
        # has the same trees, so a new search does not build them again.
        signature = keep.signature
        cached = _BY_SIGNATURE.get(signature)
        if cached is None:
            cached = Compiled(keep)
            if len(_BY_SIGNATURE) >= 64:
                _BY_SIGNATURE.clear()
            _BY_SIGNATURE[signature] = cached
        keep.compiled = cached
    return cached
