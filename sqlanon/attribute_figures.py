"""Per quasi-identifier figures of a released node, for the report (``report["attributes"]``).

For each QI: its level and the height of its hierarchy, the distinct values left at that level
(in the input, when prepared) and its own information loss, Iyengar's L_j as the ``loss`` metric computes it
(sqlanon/metrics/loss.py): 0 when every value is kept as it is, 1 when every row is
generalized to the top or suppressed. It is reported whatever the job's metric, so a reader
sees which attribute paid for the release; when the search's metric did not ask the engine
for the figures it needs, one more query over the chosen node fetches them.
"""

from __future__ import annotations

from typing import Any

from sqlanon.metrics.loss import attribute_loss


def attribute_figures(session: Any, checker: Any, best: Any) -> list[dict[str, Any]]:
    """``[{"name", "level", "height", "distinct", "loss"}, ...]`` for the node of ``best``."""
    ctx = checker.ctx
    stats = best.stats
    if stats.kept_leaves is None:
        stats = session.engine.class_stats(best.node, checker.keep, checker.params, checker.needs | {"leaves"})
    figures = []
    for j, name in enumerate(session.qis):
        level = best.node[j]
        distinct = ctx.distinct_by_level[j][level] if ctx.distinct_by_level else None
        figures.append({
            "name": name,
            "level": level,
            "height": ctx.heights[j],
            "distinct": distinct,
            "loss": attribute_loss(stats.kept_leaves[j], stats.suppressed, ctx.hierarchy_rows[j], ctx.rows),
        })
    return figures
