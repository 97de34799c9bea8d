"""What users get wrong in their files, each named with its file, line and fix and its exit
code: encodings, hierarchy layout mistakes, duplicate column names, huge values, a hierarchy
on an attribute that is not a quasi-identifier."""

import csv
import gzip
import io
import zipfile

import pytest
from click.testing import CliRunner

from helpers.jobs import ADULT, ADULT_QIS, adult_hierarchy
from sqlanon.cli.commands import main
from sqlanon.errors import HierarchyError
from sqlanon.hierarchy import Hierarchy, read_hierarchy
from sqlanon.hierarchy.coverage import refuse_header_row

ENGINES = ["duckdb", "memory"]


def run(path, *flags):
    result = CliRunner().invoke(main, ["anonymize", str(path), *flags])
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


def write_job(tmp_path, body, name="job.toml"):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


# -- encodings ----------------------------------------------------------------------------------

# Swiss towns: level 0 singletons, level 1 (language region) gives classes of 3 and 2 rows.
TOWNS = [
    ("Zürich", "Grüße"),
    ("Bern", "Grüße"),
    ("Genève", "Très bien"),
    ("Lausanne", "Très bien"),
    ("Zürich", "Grüße"),
]
TOWN_HIERARCHY = "Zürich;Deutschschweiz;*\nBern;Deutschschweiz;*\nGenève;Französisch;*\nLausanne;Französisch;*\n"


def town_files(tmp_path, encoding, engine="duckdb", input_encoding=None, hierarchy_encoding=None, extra=""):
    data = "town;note\n" + "".join(f"{town};{note}\n" for town, note in TOWNS)
    (tmp_path / "towns.csv").write_bytes(data.encode(encoding))
    (tmp_path / "towns_h.csv").write_bytes(TOWN_HIERARCHY.encode(encoding))
    input_line = f'encoding = "{input_encoding}"\n' if input_encoding else ""
    hierarchy_line = f'encoding = "{hierarchy_encoding}"\n' if hierarchy_encoding else ""
    return write_job(
        tmp_path,
        (
            f'[input]\npath = "towns.csv"\ndelimiter = ";"\n{input_line}'
            f'[attributes.town]\nrole = "quasi"\nhierarchy = "towns_h.csv"\n{hierarchy_line}'
            '[attributes.note]\nrole = "insensitive"\n'
            f'[privacy]\nk = 2\n[engine]\nname = "{engine}"\n[output]\npath = "out.csv"\norder = "input"\n{extra}'
        ),
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_latin1_input_and_hierarchy_run_end_to_end_and_write_utf8(tmp_path, engine):
    latin = tmp_path / "latin"
    utf8 = tmp_path / "utf8"
    latin.mkdir()
    utf8.mkdir()
    code, err = run(town_files(latin, "latin-1", engine, "latin-1", "latin-1"))
    assert code == 0, err
    # The same files saved as UTF-8, read without an encoding, give the same output byte for byte.
    code, err = run(town_files(utf8, "utf-8", engine))
    assert code == 0, err
    written = (latin / "out.csv").read_bytes()
    assert written == (utf8 / "out.csv").read_bytes()
    text = written.decode("utf-8")  # the output is UTF-8 whatever the input's encoding
    assert text.splitlines() == [
        "town,note",
        "Deutschschweiz,Grüße",
        "Deutschschweiz,Grüße",
        "Französisch,Très bien",
        "Französisch,Très bien",
        "Deutschschweiz,Grüße",
    ]
    assert "Zürich" in (latin / "towns.csv").read_bytes().decode("latin-1")  # the input really was latin-1


@pytest.mark.parametrize("engine", ENGINES)
def test_non_utf8_input_is_an_encoding_error_naming_line_and_fix(tmp_path, engine):
    code, err = run(town_files(tmp_path, "latin-1", engine, hierarchy_encoding="latin-1"))
    assert code == 3
    assert "input " in err and "towns.csv is not valid utf-8 text: an encoding problem at line 2, byte 2" in err
    assert "(0xfc) in 'Z\ufffdrich;Gr\ufffd\ufffde'" in err  # the line, its bad bytes shown as U+FFFD
    assert '[input] encoding = "latin-1"' in err
    assert "CSV Error" not in err


def test_non_utf8_hierarchy_is_an_encoding_error_naming_line_and_fix(tmp_path):
    code, err = run(town_files(tmp_path, "latin-1", input_encoding="latin-1"))
    assert code == 2
    assert "hierarchy file" in err and "towns_h.csv (attribute 'town') is not valid utf-8 text" in err
    assert "line 1, byte 2 of the line (0xfc)" in err
    assert '[attributes.town] encoding = "latin-1"' in err


def test_a_utf16_file_read_as_utf8_suggests_utf16(tmp_path):
    code, err = run(town_files(tmp_path, "utf-16", hierarchy_encoding="utf-16"))
    assert code == 3 and '[input] encoding = "utf-16"' in err
    (tmp_path / "out.csv").unlink(missing_ok=True)
    code, err = run(town_files(tmp_path, "utf-16", input_encoding="utf-16", hierarchy_encoding="utf-16"))
    assert code == 0, err
    assert (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()[1] == "Deutschschweiz,Grüße"


def test_memory_engine_reads_any_python_codec_duckdb_refuses_it(tmp_path):
    # cp1252 puts the euro sign at 0x80, which latin-1 reads as a control character.
    (tmp_path / "p.csv").write_bytes("price;n\n5 €;1\n5 €;2\n".encode("cp1252"))
    (tmp_path / "h.csv").write_text("5 €;*\n", encoding="utf-8")
    body = (
        '[input]\npath = "p.csv"\ndelimiter = ";"\nencoding = "cp1252"\n[attributes.price]\nrole = "quasi"\n'
        'hierarchy = "h.csv"\n[attributes.n]\nrole = "insensitive"\n[privacy]\nk = 2\n'
        '[engine]\nname = "ENGINE"\n[output]\npath = "out.csv"\norder = "input"\n'
    )
    code, err = run(write_job(tmp_path, body.replace("ENGINE", "duckdb")))
    assert code == 2 and "duckdb engine reads CSV in utf-8, utf-16 or latin-1 only" in err and '"memory"' in err
    code, err = run(write_job(tmp_path, body.replace("ENGINE", "memory")))
    assert code == 0, err
    assert (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines() == ["price,n", "5 €,1", "5 €,2"]


@pytest.mark.parametrize(
    "body, message",
    [
        ('[input]\npath = "d.parquet"\nencoding = "latin-1"\n', "input.encoding applies to a CSV input only"),
        ('[input]\npath = "d.csv"\nencoding = "klingon"\n', "input.encoding = 'klingon' is not a text encoding"),
        (
            '[input]\npath = "d.csv"\n[attributes.y]\nrole = "insensitive"\nencoding = "latin-1"\n',
            "attribute 'y': encoding applies to a hierarchy file",
        ),
        (
            '[input]\npath = "d.csv"\n[attributes.y]\nrole = "quasi"\nhierarchy = { type = "mask" }\nencoding = "latin-1"\n',
            "attribute 'y': encoding applies to a hierarchy file",
        ),
    ],
)
def test_misplaced_or_unknown_encodings_are_refused(tmp_path, body, message):
    (tmp_path / "h.csv").write_text("a;*\n")
    code, err = run(write_job(tmp_path, body + '[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n'))
    assert code == 2 and message in err


def test_delta_presence_verification_reads_the_input_in_its_encoding(tmp_path):
    """The verification counts the population from the input CSV itself: in latin-1 too."""
    rows = [
        ("Zürich", "true"),
        ("Zürich", "true"),
        ("Bern", "false"),
        ("Bern", "true"),
        ("Genève", "true"),
        ("Genève", "false"),
        ("Lausanne", "true"),
        ("Lausanne", "false"),
    ]
    (tmp_path / "towns.csv").write_bytes(("town;in_study\n" + "".join(f"{t};{s}\n" for t, s in rows)).encode("latin-1"))
    (tmp_path / "towns_h.csv").write_bytes(TOWN_HIERARCHY.encode("latin-1"))
    path = write_job(
        tmp_path,
        (
            '[input]\npath = "towns.csv"\ndelimiter = ";"\nencoding = "latin-1"\n'
            '[attributes.town]\nrole = "quasi"\nhierarchy = "towns_h.csv"\nencoding = "latin-1"\n'
            '[privacy]\nk = 2\n[[privacy.models]]\ntype = "delta-presence"\ndmax = 0.8\nsubset = "in_study"\n'
            '[output]\npath = "out.csv"\norder = "input"\n'
        ),
    )
    code, err = run(path, "--json")
    assert code == 0, err
    # Level 1: Deutschschweiz holds 4 people, 3 in the study; Französisch 4, 2 in the study.
    assert (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines() == [
        "town",
        "Deutschschweiz",
        "Deutschschweiz",
        "Deutschschweiz",
        "Französisch",
        "Französisch",
    ]


def test_t_closeness_hierarchy_file_takes_an_encoding(tmp_path):
    (tmp_path / "d.csv").write_text("x;job\n" + "a;Bäcker\na;Koch\nb;Bäcker\nb;Koch\n", encoding="utf-8")
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    (tmp_path / "jobs.csv").write_bytes("Bäcker;Handwerk;*\nKoch;Handwerk;*\n".encode("latin-1"))
    body = (
        '[input]\npath = "d.csv"\ndelimiter = ";"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n'
        '[attributes.job]\nrole = "sensitive"\n[privacy]\nk = 2\n[[privacy.models]]\ntype = "t-closeness"\n'
        'attribute = "job"\nt = 0.1\ndistance = "hierarchical"\nhierarchy = "jobs.csv"\nENCODING'
        '[output]\npath = "out.csv"\n'
    )
    code, err = run(write_job(tmp_path, body.replace("ENCODING", "")))
    assert code == 2 and "jobs.csv (attribute 'job') is not valid utf-8 text" in err
    assert 'set the t-closeness model\'s encoding = "latin-1"' in err
    code, err = run(write_job(tmp_path, body.replace("ENCODING", 'encoding = "latin-1"\n')))
    assert code == 0, err


# -- hierarchy layout mistakes --------------------------------------------------------------


def adult_age_job(tmp_path, hierarchy_text, engine="duckdb"):
    (tmp_path / "age.csv").write_text(hierarchy_text, encoding="utf-8")
    others = [q for q in ADULT_QIS if q != "age"]
    return write_job(
        tmp_path,
        (
            f'[input]\npath = "{ADULT / "adult.csv"}"\ndelimiter = ";"\ndrop = {others!r}\n'.replace("'", '"')
            + f'[attributes.age]\nrole = "quasi"\nhierarchy = "age.csv"\n[privacy]\nk = 5\n[engine]\nname = "{engine}"\n'
        ),
    )


def adult_age_text():
    return adult_hierarchy("age").read_text(encoding="utf-8")


@pytest.mark.parametrize("separator, named", [(",", "','"), ("\t", "tabs ('\\t')")])
def test_comma_or_tab_separated_hierarchy_is_named(adult_available, tmp_path, separator, named):
    code, err = run(adult_age_job(tmp_path, adult_age_text().replace(";", separator)))
    assert code == 2
    assert f"hierarchy for 'age' ({tmp_path / 'age.csv'}) is separated by {named}; ARX hierarchies use ';'" in err
    assert "line 1: '1" in err and "missing" not in err


@pytest.mark.parametrize("engine", ENGINES)
def test_padded_hierarchy_names_the_line(adult_available, tmp_path, engine):
    code, err = run(adult_age_job(tmp_path, adult_age_text().replace(";", " ; "), engine))
    assert code == 2
    # ADULT's ages run from 17: line 17 is the first padded value the data has without spaces.
    assert "padded with spaces: line 17 of" in err and "holds '17 ' where the data has '17' (72 such line(s))" in err
    assert "Add a row" not in err


@pytest.mark.parametrize("engine", ENGINES)
def test_padded_data_values_are_named(tmp_path, engine):
    (tmp_path / "d.csv").write_text("x\n a\n a\nb\nb\n", encoding="utf-8")
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    code, err = run(
        write_job(
            tmp_path,
            '[input]\npath = "d.csv"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n'
            f'[engine]\nname = "{engine}"\n',
        )
    )
    assert code == 2 and "The data's values carry spaces the hierarchy's do not: ' a' in the data, 'a' on line 1" in err


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ("\n\n", "is empty"),
        ("   \n \t \n\n", "holds only whitespace (2 line(s))"),
    ],
)
def test_empty_or_whitespace_only_hierarchy(adult_available, tmp_path, text, message):
    code, err = run(adult_age_job(tmp_path, text))
    assert code == 2 and message in err and "age.csv" in err and "missing" not in err


@pytest.mark.parametrize(
    "header, why",
    [
        ("age;level1;level2;level3;level4", "its first field is the column's name"),
        ("value;l1;l2;l3;top", "it is a root of its own ('top') while every other row generalizes to '*'"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_header_row_is_refused_with_its_line(adult_available, tmp_path, header, why, engine):
    code, err = run(adult_age_job(tmp_path, header + "\n" + adult_age_text(), engine))
    assert code == 2
    assert f"line 1 '{header}' looks like a header ({why}" in err and "remove the header line" in err


@pytest.mark.parametrize("name", ADULT_QIS)
def test_header_check_does_not_misfire_on_adult_hierarchies(adult_available, name):
    """Every ADULT hierarchy passes even when its first value is taken as absent from the data
    (as age's '1' is: ADULT's ages start at 17) — and a header put on it is refused."""
    hierarchy = read_hierarchy(adult_hierarchy(name), name)
    refuse_header_row(hierarchy, 0)
    header = Hierarchy.from_rows(name, [tuple(f"level{i}" for i in range(hierarchy.height + 1)), *hierarchy.rows])
    with pytest.raises(HierarchyError, match="looks like a header"):
        refuse_header_row(header, 0)
    refuse_header_row(header, 1)  # present in the data: a value, whatever it looks like


def test_adult_age_hierarchy_runs_although_its_first_value_is_not_in_the_data(adult_available, tmp_path):
    code, err = run(adult_age_job(tmp_path, adult_age_text()), "--json")
    assert code == 0, err


def test_header_rule_leaves_plausible_two_level_hierarchies_alone():
    # Top-level groups instead of one root: a group absent from the data is no header.
    refuse_header_row(Hierarchy.from_rows("x", [["x1", "north"], ["y", "south"], ["z", "south"]]), 0)
    with pytest.raises(HierarchyError, match="looks like a header"):
        refuse_header_row(Hierarchy.from_rows("x", [["value", "group"], ["y", "*"], ["z", "*"]]), 0)


# -- duplicate column names ---------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_duplicate_column_names_are_named_with_positions(tmp_path, engine):
    (tmp_path / "d.csv").write_text("x;n;x;m;n\na;1;b;2;3\n", encoding="utf-8")
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    code, err = run(
        write_job(
            tmp_path,
            '[input]\npath = "d.csv"\ndelimiter = ";"\n[attributes.x]\nrole = "quasi"\n'
            f'hierarchy = "h.csv"\n[engine]\nname = "{engine}"\n',
        )
    )
    assert code == 3
    assert "header (line 1) names 2 column(s) more than once: 'x' in columns 1, 3; 'n' in columns 2, 5" in err
    assert "x_1" not in err


def test_wrong_input_delimiter_is_suggested(adult_available, tmp_path):
    path = adult_age_job(tmp_path, adult_age_text())
    path.write_text(path.read_text().replace('delimiter = ";"\n', ""), encoding="utf-8")
    code, err = run(path)
    assert code == 2 and 'set [input] delimiter = ";"' in err


# -- values echoed in errors are cut ------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_huge_value_missing_from_its_hierarchy_gives_a_short_message(tmp_path, engine):
    huge = "a" * 100_000
    (tmp_path / "d.csv").write_text(f"x\nb\n{huge}\n", encoding="utf-8")
    (tmp_path / "h.csv").write_text("b;*\n")
    code, err = run(
        write_job(
            tmp_path,
            '[input]\npath = "d.csv"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n'
            f'[engine]\nname = "{engine}"\n',
        )
    )
    assert code == 2 and "1 value(s) missing" in err
    assert f"'{'a' * 80}…' (100,000 characters)" in err
    assert len(err) < 600


def test_huge_hierarchy_values_are_cut(tmp_path):
    huge = "b" * 100_000
    (tmp_path / "h.csv").write_text(f"{huge};*\na;*\n{huge};*\n")
    with pytest.raises(HierarchyError) as error:
        read_hierarchy(tmp_path / "h.csv", "x")
    assert "duplicate original values 'bbbb" in str(error.value) and "(100,000 characters) (lines 1 and 3)" in str(
        error.value
    )
    assert len(str(error.value)) < 400


def test_huge_comma_separated_line_is_cut(tmp_path):
    (tmp_path / "h.csv").write_text(("c" * 50_000 + ",*\n") * 2)
    with pytest.raises(HierarchyError, match=r"separated by ','") as error:
        read_hierarchy(tmp_path / "h.csv", "x")
    assert len(str(error.value)) < 400


# -- a hierarchy only on a quasi-identifier -----------------------------------------------------


@pytest.mark.parametrize("role", ["sensitive", "insensitive", "identifying"])
def test_hierarchy_on_a_non_quasi_attribute_is_refused(tmp_path, role):
    (tmp_path / "h.csv").write_text("a;*\n")
    code, err = run(
        write_job(
            tmp_path,
            (
                '[input]\npath = "d.csv"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n'
                f'[attributes.y]\nrole = "{role}"\nhierarchy = "h.csv"\n'
            ),
        )
    )
    assert code == 2
    assert f"attribute 'y' has role \"{role}\" and a hierarchy" in err
    assert 'set role = "quasi" to generalize it, or remove the hierarchy' in err


# -- CSV input the readers get wrong: long lines, late bad bytes, quotes, compression, header ------


def xy_job(tmp_path, data: bytes, engine="duckdb", name="d.csv"):
    """A job over a CSV of columns x (a QI over a, b) and y (released as it is)."""
    (tmp_path / name).write_bytes(data)
    (tmp_path / "h.csv").write_text("a;*\nb;*\n")
    return write_job(
        tmp_path,
        f'[input]\npath = "{name}"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n'
        f'[attributes.y]\nrole = "insensitive"\n[privacy]\nk = 2\n[engine]\nname = "{engine}"\n'
        '[output]\npath = "out.csv"\n',
    )


def one_line_error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def data_error(tmp_path, data: bytes, engine="duckdb"):
    """The one line of the data error (exit 3) a run over ``data`` as the input CSV ends with."""
    code, err = run(xy_job(tmp_path, data, engine))
    assert code == 3, err
    return one_line_error(err)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("before", [1, 50_000])  # the sniffer's sample, and past it
def test_a_5mb_field_names_its_line_and_the_limit(tmp_path, engine, before):
    data = b"x,y\n" + b"a,1\n" * before + b"b," + b"z" * 5_000_000 + b"\na,3\nb,4\n"
    assert data_error(tmp_path, data, engine) == (
        f"error: input {tmp_path / 'd.csv'}: line {before + 2} is 5,000,002 bytes long, more than the 2,000,000 bytes "
        "sqlanon reads in one CSV line: shorten its long value (or leave the column out of the file), or check the "
        "line's quoting (a quote never closed makes the following lines one value)"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_a_line_just_under_the_limit_is_read(tmp_path, engine):
    long = "z" * 1_999_990
    code, err = run(xy_job(tmp_path, f"x,y\na,1\nb,{long}\na,3\nb,{long}\n".encode(), engine))
    assert code == 0, err
    assert sorted((tmp_path / "out.csv").read_text().splitlines()[1:]) == ["a,1", "a,3", f"b,{long}", f"b,{long}"]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_bad_utf8_on_line_1999990_is_an_input_error(tmp_path, engine):
    """y is only read when the output is written (DuckDB streams it from the input): its bad
    bytes are still the input's, named by their line, and nothing is written."""
    data = b"x,y\n" + b"a,1\nb,2\n" * 999_994 + b"a,\xff\xfe\n" + b"b,2\n" * 10
    assert data.split(b"\n")[1_999_989] == b"a,\xff\xfe"  # line 1,999,990
    assert data_error(tmp_path, data, engine).startswith(
        f"error: input {tmp_path / 'd.csv'} is not valid utf-8 text: an encoding problem at line 1999990, byte 3 of "
        "the line (0xff)"
    )
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "data, line",
    [
        (b'x,y\na,1\nb,"2\na,3\nb,4\n', 3),  # the last column: read as one value to the end of the file before
        (b'x,y\na,1\n"b,2\na,3\nb,4\n', 3),  # the first: a hierarchy error before
        (b"x,y\n" + b"a,1\nb,2\n" * 20_000 + b'"a,3\nb,4\n', 40_002),  # past the sniffer's sample
    ],
    ids=["last column", "first column", "past the sniffer"],
)
def test_an_unterminated_quote_is_a_data_error_naming_its_line(tmp_path, engine, data, line):
    assert data_error(tmp_path, data, engine) == (
        f"error: input {tmp_path / 'd.csv'}: line {line} opens a quoted field that is never closed (it would run to "
        "the end of the file). Close the quote, or, if the quote belongs to the value, quote the whole value and "
        'double each quote in it (the value 5"x is written "5""x")'
    )


def test_characters_after_a_closing_quote_are_a_data_error(tmp_path):
    """DuckDB refuses them (the memory engine's pyarrow reads "2"x as 2x, as it always has)."""
    assert data_error(tmp_path, b'x,y\na,1\nb,"2"x\na,3\nb,4\n').startswith(
        f"error: input {tmp_path / 'd.csv'}: line 3: a quoted field is followed by other characters before the delimiter"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_quotes_inside_values_and_quoted_line_breaks_are_still_read(tmp_path, engine):
    """The quote rule refuses only broken quoting: a quote inside an unquoted value (an odd
    count of quotes in the file), a quoted value over two lines and doubled quotes read as before."""
    data = b'x,y\na,5"x\nb,"two\nlines"\na,"say ""hi"""\nb,4\n'
    code, err = run(xy_job(tmp_path, data, engine))
    assert code == 0, err
    header, *rows = csv.reader(io.StringIO((tmp_path / "out.csv").read_text()))
    assert header == ["x", "y"]  # the rows in a random order
    assert sorted(rows) == sorted([["a", '5"x'], ["b", "two\nlines"], ["a", 'say "hi"'], ["b", "4"]])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind, command", [("gzip", "gunzip -c"), ("zip", "unzip -p")])
def test_compressed_bytes_named_csv_are_named_compressed(tmp_path, engine, kind, command):
    text = "x,y\na,1\nb,2\na,3\nb,4\n"
    if kind == "gzip":
        data = gzip.compress(text.encode())
    else:
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("d.csv", text)
        data = packed.getvalue()
    assert data_error(tmp_path, data, engine) == (  # and no binary quoted
        f"error: input {tmp_path / 'd.csv'} is compressed ({kind}), not CSV text: decompress it first (e.g. {command} "
        f"{tmp_path / 'd.csv'} > decompressed.csv) and give the decompressed CSV file"
    )


HEADER_CASES = {
    # DuckDB would show them as age, Age_1 and age_2
    "names equal but for case or spaces": (
        b"age,Age,age ,x\n1,2,3,a\n",
        "_1",
        "the header (line 1) names 1 column(s) more than once: 'age' in column 1, 'Age' in column 2, 'age ' in column 3 "
        "(names that differ only in case or in spaces around them are one name to DuckDB and to SQL). Every column "
        "needs its own name: rename the duplicates in the header line",
    ),
    # DuckDB would call it column2, pyarrow ''
    "an empty name": (
        b"x,y,,z\na,1,2,3\nb,1,2,3\n",
        "column2",
        "column 3 of the header (line 1) is empty: every column needs a name. Write one in the header line (a pandas "
        "index saved by to_csv() has none: save with index=False), or remove the column (a delimiter ',' that ends "
        "every line makes an empty last column)",
    ),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", HEADER_CASES)
def test_header_columns_are_named_by_their_place_in_the_header(tmp_path, engine, case):
    data, renamed, message = HEADER_CASES[case]
    assert data_error(tmp_path, data, engine) == f"error: input {tmp_path / 'd.csv'}: {message}"
    assert renamed not in message  # the reader's own name for the column is never shown


def test_check_names_an_empty_column_too(tmp_path):
    (tmp_path / "d.csv").write_text(",x\n0,a\n1,b\n")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "d.csv"), "--quasi", "x"])
    assert result.exit_code == 3 and "column 1 of the header (line 1) is empty" in result.stderr


# -- hierarchy values the csv module cannot read -----------------------------------------------------


@pytest.mark.parametrize("quoted", [False, True])
def test_a_hierarchy_value_over_131072_characters_names_file_line_and_column(tmp_path, quoted):
    value = "q" * 140_000
    (tmp_path / "h.csv").write_text(f"a;*\nb;*\nc;{value}\n" if not quoted else f'a;*\nb;*\n"c";"{value}"\n')
    (tmp_path / "d.csv").write_text("x\na\nb\n")
    code, err = run(
        write_job(tmp_path, '[input]\npath = "d.csv"\n[attributes.x]\nrole = "quasi"\nhierarchy = "h.csv"\n')
    )
    assert code == 2
    line = one_line_error(err)
    assert line.startswith(
        f"error: hierarchy file {tmp_path / 'h.csv'} (attribute 'x'): line 3, column 2 holds a value "
        "longer than 131,072 characters ("
    )
    assert line.endswith(
        "the most a hierarchy value may have: a value is one category of the attribute; shorten it, or "
        "check the quoting and the separator (';') of that line (an unclosed quote makes the rest of "
        "the file one value)"
    )
    assert len(line) < 500
