"""A small, deterministic demo dataset (a fictional patient register) and its hierarchies.

``write_hierarchies`` produced the files in ``hierarchies/`` (a test checks they still match);
``write_patients`` writes the data the demo job reads. Same seed, same bytes, on any machine.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

FIRST = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jo", "Kai", "Lea", "Max", "Nia"]
LAST = ["Berg", "Costa", "Duval", "Eriksen", "Fischer", "Garcia", "Horvat", "Ito", "Jensen", "Kowalski"]
DIAGNOSES = ["asthma", "bronchitis", "diabetes", "flu", "gastritis", "hypertension", "migraine", "none"]
# Zip codes of three fictional regions, so masking digits merges neighbours.
ZIPCODES = [f"{region}{district}{n:02d}" for region in ("47", "53", "81") for district in "0246" for n in (11, 17, 23)]
MAX_AGE = 99


def age_rows() -> list[list[str]]:
    rows = []
    for age in range(MAX_AGE + 1):
        rows.append([
            str(age),
            f"{age // 5 * 5}-{age // 5 * 5 + 4}",
            f"{age // 10 * 10}-{age // 10 * 10 + 9}",
            f"{age // 20 * 20}-{age // 20 * 20 + 19}",
            "*",
        ])
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


def write_patients(path: str | Path, rows: int = 4000, seed: int = 2012) -> Path:
    """Write ``rows`` fictional patients; ages skew young, zip codes cluster by region."""
    rng = random.Random(seed)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(["name", "age", "zipcode", "sex", "diagnosis", "visits"])
        for i in range(rows):
            age = min(MAX_AGE, int(rng.gammavariate(4.0, 11.0)))
            zipcode = ZIPCODES[min(len(ZIPCODES) - 1, int(rng.triangular(0, len(ZIPCODES), 6)))]
            sex = rng.choice(["female", "male"])
            diagnosis = rng.choices(DIAGNOSES, weights=[6, 5, 4 + age // 20, 9, 4, 2 + age // 10, 5, 20])[0]
            name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            out.writerow([name, age, zipcode, sex, diagnosis, 1 + int(rng.expovariate(0.4))])
    return path
