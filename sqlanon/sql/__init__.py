"""Pure SQL builders: (node, tables, conditions) -> sqlglot expressions. No I/O here.

The builders live by what they build (``trees``: names and building blocks; ``layout``: the
lookup joins, the wide table and snapshots; ``checks``: a node's check queries and batches;
``preparation``: encoding and the base class table; ``release``: the released table;
``template``: per-node queries rendered once); every public one is importable from here, the
namespace the engines use (``from sqlanon import sql as c``).

Every identifier is built with ``quoted=True`` (ADULT has ``marital-status``; users have
``select`` and worse); every user value is a named placeholder bound at execution.

Internal tables (names owned by sqlanon, so they never collide with user columns):

* ``sqlanon_hier_<j>(code, l0..lh, c0..ch)``: leaf code -> code at each level, and the
  number of hierarchy rows under that level value (for the loss metric).
* ``sqlanon_label_<j>(level, code, label)``: the text of every code, for encoding and decoding.
* ``sqlanon_distinct(t0.., u0.., n)``: the input read once and grouped by the text of its QIs
  (``t<j>``) and of the sensitive attributes the models read (``u<i>``), with the rows of each
  combination; the engines that prepare in one scan build everything else from it.
* ``sqlanon_data(__row, q0.., p0..)``: the input, QIs as leaf codes, other kept columns as-is
  (built at once by the engines that copy their input, on demand by those that scan it once).
* ``sqlanon_classes(q0.., n)``: the base class table, one row per distinct QI combination.
* ``sqlanon_wide(q<j>_<l>.., [c<j>_<l>..], [s<i>..], n)``: the base class table with every QI's
  code at every level (and its leaf count) joined once, so a check is a plain GROUP BY without
  joins. This is the default layout ("wide"); ``lookup = "join"`` joins the lookup tables per check.
  On DuckDB it also holds ``p<j>_<l>_<l'>``: QIs j and j+1 paired, both codes in one key per
  two levels (``with_pairs``), which the lean checks group by (``group_key_names``).
* ``sqlanon_sval_<i>(code, label, n, q)``: the distinct values of the i-th sensitive attribute
  (text, sorted), their rows and their frequency in the input. Only when a model reads a
  sensitive attribute do ``sqlanon_data``, ``sqlanon_classes`` and ``sqlanon_wide`` carry its
  code ``s<i>``; the class tables are then keyed by the QI codes and the sensitive codes, so a
  node's per-class histogram is a GROUP BY over the same table (roll-up stays possible).
"""

from __future__ import annotations

from sqlanon.sql.trees import (
    DATA,
    DISTINCT,
    CLASSES,
    WIDE,
    INPUT,
    ROW,
    datatype,
    ident,
    col,
    table,
    hier_table,
    label_table,
    qi,
    param,
    case,
    total,
    wide_column,
    wide_leaves,
    sval_table,
    sensitive,
    class_keys,
    pair_column,
    distinct_text,
    distinct_sensitive,
    as_text,
    rank_table,
    cut_table,
    create_temp_table,
    aggregate,
)
from sqlanon.sql.layout import (
    generalized,
    PAIR_CODES,
    narrow,
    wide_query,
    node_source,
    snapshot_query,
    pairable,
    with_pairs,
    group_key_names,
    join_labels,
)
from sqlanon.sql.checks import (
    class_query,
    histogram_query,
    population_query,
    empty_population_query,
    stats_query,
    class_size_query,
    lean_stats_query,
    size_histogram_query,
    class_sizes_query,
    batch_query,
    BATCH_NODE,
    suppressed_histogram_query,
    failing_classes_query,
)
from sqlanon.sql.preparation import (
    base_classes_query,
    with_lnx,
    distinct_query,
    value_counts_query,
    distinct_classes_query,
    labelled_classes_query,
    encode_query,
    missing_values_query,
)
from sqlanon.sql.release import (
    output_query,
    interval_output_query,
    verdict_query,
    ORDER_KEY,
    KEY_DIGITS,
    shuffle_key,
    shuffle_order,
)
from sqlanon.sql.template import SLOT, KEYS, TAG, NodeTemplate


__all__ = [
    "DATA",
    "DISTINCT",
    "CLASSES",
    "WIDE",
    "INPUT",
    "ROW",
    "datatype",
    "ident",
    "col",
    "table",
    "hier_table",
    "label_table",
    "qi",
    "param",
    "case",
    "total",
    "wide_column",
    "wide_leaves",
    "sval_table",
    "sensitive",
    "class_keys",
    "pair_column",
    "distinct_text",
    "distinct_sensitive",
    "as_text",
    "rank_table",
    "cut_table",
    "create_temp_table",
    "aggregate",
    "generalized",
    "PAIR_CODES",
    "narrow",
    "wide_query",
    "node_source",
    "snapshot_query",
    "pairable",
    "with_pairs",
    "group_key_names",
    "join_labels",
    "class_query",
    "histogram_query",
    "population_query",
    "empty_population_query",
    "stats_query",
    "class_size_query",
    "lean_stats_query",
    "size_histogram_query",
    "class_sizes_query",
    "batch_query",
    "BATCH_NODE",
    "suppressed_histogram_query",
    "failing_classes_query",
    "base_classes_query",
    "with_lnx",
    "distinct_query",
    "value_counts_query",
    "distinct_classes_query",
    "labelled_classes_query",
    "encode_query",
    "missing_values_query",
    "output_query",
    "interval_output_query",
    "verdict_query",
    "ORDER_KEY",
    "KEY_DIGITS",
    "shuffle_key",
    "shuffle_order",
    "SLOT",
    "KEYS",
    "TAG",
    "NodeTemplate",
]
