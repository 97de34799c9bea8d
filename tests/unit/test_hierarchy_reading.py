"""Large hierarchies read right: a million rows, five thousand levels, and the parsers (the common
layout encoded by Arrow's CSV reader, other text without quotes split directly, quoted text
through the csv module) giving the same hierarchy, encoding, lines and messages. Not timed: the
times are measured in the issue's script, not asserted."""

import gc
import random

import pytest

from sqlanon.errors import HierarchyError
from sqlanon.hierarchy import Hierarchy, read_hierarchy
from sqlanon.hierarchy.model import CodedColumn, collection_paused

ROWS = 1_000_000


def zip_codes(path, rows=ROWS):
    """0000000;000000*;00000**;0000***;*  ...: ten values per group, groups of ten above."""
    path.write_text("".join(f"{i:07d};{i // 10:06d}*;{i // 100:05d}**;{i // 1000:04d}***;*\n" for i in range(rows)))
    return path


@pytest.mark.slow
def test_a_million_row_hierarchy_is_read_and_encoded(tmp_path):
    h = read_hierarchy(zip_codes(tmp_path / "zip.csv"), "zip")
    assert len(h.rows) == ROWS and h.height == 4
    assert h.rows[123_456] == ("0123456", "012345*", "01234**", "0123***", "*")
    assert h.line(999_999) == 1_000_000
    e = h.encoded
    assert e.distinct == (1_000_000, 100_000, 10_000, 1_000, 1)
    assert e.codes[123_456] == (123_456, 12_345, 1_234, 123, 0)
    assert e.labels[1][12_345] == "012345*" and e.labels[3][123] == "0123***"
    assert e.leaves[0][5] == 1 and set(e.leaves[1]) == {10} and set(e.leaves[3]) == {1_000} and e.leaves[4] == (ROWS,)


def test_a_large_hierarchy_still_names_a_late_duplicate_and_a_second_parent(tmp_path):
    path = zip_codes(tmp_path / "zip.csv", 300_000)
    lines = path.read_text().splitlines()
    lines[299_998] = lines[3]  # line 299,999 repeats line 4
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        HierarchyError, match=r"duplicate original values '0000003' \(lines 4 and 299999\) \(1 in all\)"
    ):
        read_hierarchy(path, "zip")
    lines[299_998] = "0299998;029999*;02999**;0299***;*"
    lines[250_001] = "0250001;025000*;02500**;0123***;*"  # line 250,002: 02500** under a second parent
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        HierarchyError,
        match=r"value '02500\*\*' at level 2 maps to '0250\*\*\*' \(line 250001\) and "
        r"to '0123\*\*\*' \(line 250002\) at level 3",
    ):
        read_hierarchy(path, "zip")


def test_a_5001_level_hierarchy_is_read_and_encoded(tmp_path):
    """200 values; at level l (up to 8) values that share their top 8 - l bits are one group."""
    levels = 5001
    rows = [[f"v{v}"] + [f"g{v >> min(l, 8)}_{min(l, 8)}" for l in range(1, levels - 1)] + ["*"] for v in range(200)]
    (tmp_path / "deep.csv").write_text("".join(";".join(row) + "\n" for row in rows))
    h = read_hierarchy(tmp_path / "deep.csv", "x")
    assert h.height == 5000 and len(h.rows) == 200 and h.rows[199][4999] == "g0_8"
    e = h.encoded
    assert e.distinct[:9] == (200, 100, 50, 25, 13, 7, 4, 2, 1) and set(e.distinct[8:]) == {1}
    assert e.codes[199][:4] == (199, 99, 49, 24) and e.labels[2][49] == "g49_2" and e.leaves[2][49] == 4


TEXT = "a;x;*\nb;x;*\n\nc;y;*\n"


@pytest.mark.parametrize(
    "text",
    [
        TEXT,  # split directly
        TEXT.replace("\n", "\r\n"),  # CRLF: split directly too
        TEXT.replace("x", '"x"'),  # quotes: the csv module
        TEXT.replace("\n", "\r"),  # lone carriage returns: the csv module
    ],
)
def test_both_parsers_give_the_same_rows_and_lines(tmp_path, text):
    (tmp_path / "h.csv").write_bytes(text.encode())
    h = read_hierarchy(tmp_path / "h.csv", "v")
    assert h.rows == (("a", "x", "*"), ("b", "x", "*"), ("c", "y", "*"))
    assert [h.line(i) for i in range(3)] == [1, 2, 4]  # the empty line 3 is skipped, not renumbered


def test_from_rows_takes_numbered_rows_or_lines():
    plain = Hierarchy.from_rows("v", [["a", "*"], ["b", "*"]])
    numbered = Hierarchy.from_rows("v", [(3, ["a", "*"]), (7, ("b", "*"))])
    given = Hierarchy.from_rows("v", [["a", "*"], ["b", "*"]], lines=[3, 7])
    assert plain == numbered == given
    assert [plain.line(i) for i in range(2)] == [1, 2] and numbered.lines == given.lines == (3, 7)
    assert plain.encoded == numbered.encoded and plain.encoded.codes == ((0, 0), (1, 0))


def test_the_collector_is_paused_only_while_a_hierarchy_is_built():
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause stands
    assert gc.isenabled()
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()  # a caller's own pause is left as it was
    finally:
        gc.enable()
    with pytest.raises(HierarchyError):
        Hierarchy.from_rows("v", [["a", "*"], ["a", "*"]])
    assert gc.isenabled()


def random_rows(rng, rows, height):
    """``rows`` leaves under groups that merge level by level, labels drawn at random (so the
    order of first appearance is not the order of the codes' numbers)."""
    names = [f"v{n}" for n in rng.sample(range(10 * rows), rows)]
    table = [[name] for name in names]
    groups = list(range(rows))
    for level in range(1, height + 1):
        size = max(1, len(set(groups)) // rng.choice((2, 3, 5)))
        merged = {g: rng.randrange(size) for g in sorted(set(groups))}
        groups = [merged[g] for g in groups]
        for row, group in zip(table, groups):
            row.append("*" if level == height else f"l{level}_{group * 7 % 101}_{group}")
    return table


@pytest.mark.parametrize("seed", range(6))
def test_the_arrow_reader_gives_the_row_by_row_hierarchy_and_encoding(tmp_path, seed):
    rng = random.Random(seed)
    rows = random_rows(rng, rng.randrange(1, 400), rng.randrange(1, 5))
    delimiter = rng.choice(";,\t|")
    (tmp_path / "h.csv").write_text("".join(delimiter.join(row) + "\n" for row in rows))
    read = read_hierarchy(tmp_path / "h.csv", "v", delimiter=delimiter)
    built = Hierarchy.from_rows("v", rows, source=str(tmp_path / "h.csv"))
    assert any(isinstance(column, CodedColumn) for column in read.columns) or all(
        len(set(column)) in (1, len(rows)) for column in built.columns
    )  # the Arrow path was taken
    assert read == built and read.rows == built.rows and read.values == built.values
    assert [list(c) for c in read.encoded.columns] == [list(c) for c in built.encoded.columns]
    assert (read.encoded.labels, read.encoded.leaves, read.encoded.distinct) == (
        built.encoded.labels,
        built.encoded.leaves,
        built.encoded.distinct,
    )
    assert all(type(code) is int for code in read.encoded.leaf(len(rows) - 1))
    if delimiter == ";":  # the checksum taken from the file's text is the one computed from the rows
        assert read.checksum == Hierarchy.from_rows("v", rows).checksum == built.checksum


def test_a_coded_column_reads_as_the_tuple_of_its_values():
    column = CodedColumn(("x", "y"), [1, 0, 1])
    assert len(column) == 3 and column[0] == "y" and column[-1] == "y" and column[1:] == ("x", "y")
    assert column == ("y", "x", "y") and ("y", "x", "y") == column and column != ("y", "x")
    assert list(column) == ["y", "x", "y"] and hash(column) == hash(("y", "x", "y")) and "x" in column


@pytest.mark.parametrize(
    "text, message",
    [
        ("a;x;*\nb;x\nc;y;*\n", r"line 1 has 3 fields but line 2 has 2"),  # ragged: Arrow refuses, lines named
        ("a;x;*\nb;x;*\nc;y;*;z\n", r"line 1 has 3 fields but line 3 has 4"),
        ("a;x;*\nb;y;*\na;y;*\n", r"duplicate original values 'a' \(lines 1 and 3\)"),
        (
            "a;ab;*\nb;cd;*\nc;ab;top\nd;cd;*\n",
            r"value 'ab' at level 1 maps to '\*' \(line 1\) and to 'top' \(line 3\)",
        ),
    ],
)
def test_the_arrow_reader_leaves_the_messages_as_they_were(tmp_path, text, message):
    (tmp_path / "h.csv").write_text(text)
    with pytest.raises(HierarchyError, match=message):
        read_hierarchy(tmp_path / "h.csv", "v")
