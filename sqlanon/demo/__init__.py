"""A small, deterministic demo dataset (a fictional patient register), its job and hierarchies.

The job (``job.toml``) and the hierarchies (``hierarchies/``, produced by ``write_hierarchies``;
a test checks they still match) ship inside the package, so ``sqlanon demo`` runs from any
folder after any install. ``write_patients`` writes the data the demo job reads. Same seed, same
bytes, on any machine.
"""

from __future__ import annotations

import csv
import io
import random
from dataclasses import replace
from pathlib import Path

from sqlanon.config.job import Job
from sqlanon.config.read import load_job
from sqlanon.errors import OutputError
from sqlanon.release import Protected, Publication
from sqlanon.release.placement import refuse

JOB = Path(__file__).with_name("job.toml")

FIRST = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jo", "Kai", "Lea", "Max", "Nia"]
LAST = ["Berg", "Costa", "Duval", "Eriksen", "Fischer", "Garcia", "Horvat", "Ito", "Jensen", "Kowalski"]
DIAGNOSES = ["asthma", "bronchitis", "diabetes", "flu", "gastritis", "hypertension", "migraine", "none"]
# Zip codes of three fictional regions, so masking digits merges neighbours.
ZIPCODES = [f"{region}{district}{n:02d}" for region in ("47", "53", "81") for district in "0246" for n in (11, 17, 23)]
MAX_AGE = 99


def age_rows() -> list[list[str]]:
    rows = []
    for age in range(MAX_AGE + 1):
        rows.append(
            [
                str(age),
                f"{age // 5 * 5}-{age // 5 * 5 + 4}",
                f"{age // 10 * 10}-{age // 10 * 10 + 9}",
                f"{age // 20 * 20}-{age // 20 * 20 + 19}",
                "*",
            ]
        )
    return rows


def zipcode_rows() -> list[list[str]]:
    return [[z] + [z[: len(z) - i] + "*" * i for i in range(1, len(z) + 1)] for z in ZIPCODES]


def sex_rows() -> list[list[str]]:
    return [["female", "*"], ["male", "*"]]


HIERARCHIES = {"age": age_rows, "zipcode": zipcode_rows, "sex": sex_rows}


def write_hierarchies(folder: str | Path) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in HIERARCHIES.items():
        with open(folder / f"demo_{name}.csv", "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, delimiter=";", lineterminator="\n").writerows(rows())


def patients_csv(rows: int = 4000, seed: int = 2012) -> str:
    """``rows`` fictional patients as CSV text; ages skew young, zip codes cluster by region."""
    rng = random.Random(seed)
    handle = io.StringIO()
    out = csv.writer(handle, lineterminator="\n")
    out.writerow(["name", "age", "zipcode", "sex", "diagnosis", "visits"])
    for i in range(rows):
        age = min(MAX_AGE, int(rng.gammavariate(4.0, 11.0)))
        zipcode = ZIPCODES[min(len(ZIPCODES) - 1, int(rng.triangular(0, len(ZIPCODES), 6)))]
        sex = rng.choice(["female", "male"])
        diagnosis = rng.choices(DIAGNOSES, weights=[6, 5, 4 + age // 20, 9, 4, 2 + age // 10, 5, 20])[0]
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        out.writerow([name, age, zipcode, sex, diagnosis, 1 + int(rng.expovariate(0.4))])
    return handle.getvalue()


def write_patients(path: str | Path, rows: int = 4000, seed: int = 2012) -> Path:
    """Write ``rows`` fictional patients to ``path`` (its folder is created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(patients_csv(rows, seed), encoding="utf-8", newline="")
    return path


def demo_job(folder: str | Path, **overrides) -> Job:
    """The packaged demo job, its data, output and report moved into ``folder`` (the
    hierarchies stay in the package). Its own results are replaced on every run."""
    job = load_job(JOB, **overrides)
    moved = lambda p: str(Path(folder) / Path(p).relative_to(JOB.parent / "demo"))  # noqa: E731
    output = replace(job.output, path=moved(job.output.path), report=moved(job.output.report), overwrite=True)
    return replace(job, input=replace(job.input, path=moved(job.input.path)), output=output)


def prepare_data(path: str | Path, rows: int, overwrite: bool = False) -> bool:
    """Write the demo data to ``path`` unless it is already there, byte for byte; a different
    file there is someone's data and is replaced only with ``overwrite``. True if written."""
    path = Path(path)
    text = patients_csv(rows)
    try:
        there = path.exists()
        if there and path.read_bytes() == text.encode("utf-8"):
            return False
        if there and not overwrite:
            raise OutputError(
                f"{path} exists and is not the demo's data ({rows} rows): sqlanon demo does not "
                "replace it; move it away, or pass --overwrite to replace it"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
    except OutputError:
        raise
    except OSError as error:
        raise refuse("demo data", str(path), error) from None
    # replaced only if it was there and --overwrite said so: a file that appears meanwhile is kept
    with Publication(Protected(), overwrite=there) as publication:
        publication.reserve(str(path), "demo data")
        publication.put_text(str(path), text)
        publication.commit()
    return True
