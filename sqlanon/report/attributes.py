"""Per quasi-identifier figures of a released node, for the report (``report["attributes"]``).

For each QI: its level and the height of its hierarchy, the distinct values left at that level
(in the input, when prepared) and its own information loss, Iyengar's L_j as the ``loss`` metric computes it
(sqlanon/metrics/loss.py): 0 when every value is kept as it is, 1 when every row is
generalized to the top or suppressed. It is reported whatever the job's metric, so a reader
sees which attribute paid for the release; when the search's metric did not ask the engine
for the figures it needs, one more query over the chosen node fetches them where the engine
can (None where it cannot: SQL checks over a class table prepared without them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlanon.metrics.loss import attribute_loss
from sqlanon.core.report import AttributeFigures

if TYPE_CHECKING:
    from sqlanon.release.node import NodeRelease


def attribute_figures(release: NodeRelease) -> list[AttributeFigures]:
    """Each QI's figures for the released node (``release``: a ``sqlanon.release.node.NodeRelease``)."""
    session, ctx, node = release.session, release.checker.ctx, release.node
    # The figures are in the class table when the metric needed them at preparation, and
    # local checks (the kernel) compute them from the hierarchies; SQL checks of a table
    # prepared without them cannot (the loss is then left out, not guessed).
    stats = release.leaf_stats()
    figures = []
    for j, name in enumerate(session.qis):
        level = node[j]
        figures.append(
            AttributeFigures(
                name=name,
                level=level,
                height=ctx.heights[j],
                distinct=ctx.distinct_by_level[j][level] if ctx.distinct_by_level else None,
                loss=None
                if stats.kept_leaves is None
                else attribute_loss(stats.kept_leaves[j], stats.suppressed, ctx.hierarchy_rows[j], ctx.rows),
            )
        )
    return figures
