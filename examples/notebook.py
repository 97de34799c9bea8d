"""The notebook session of the Python API page (docs/api.md), as a script (tests/e2e/test_notebook_session.py
runs it in CI). Run it from the checkout: python examples/notebook.py [ADULT folder] [work folder]."""

import sys
from pathlib import Path

import pandas as pd
import polars as pl

import sqlanon

adult = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/adult")
work = Path(sys.argv[2] if len(sys.argv) > 2 else ".")

# -- the API page's code, as it stands there ------------------------------------------------
quasi = {
    "age": adult / "adult_hierarchy_age.csv",  # ARX hierarchy files (or builder dicts)
    "sex": adult / "adult_hierarchy_sex.csv",
    "race": adult / "adult_hierarchy_race.csv",
    "marital-status": adult / "adult_hierarchy_marital-status.csv",
}
settings = dict(
    quasi=quasi,
    k=5,
    suppression_limit=0.02,
    models=[{"type": "distinct-l-diversity", "attribute": "occupation", "l": 2}],
    others="insensitive",
)  # every other column released as is

# pandas in -> pandas out
people = pd.read_csv(adult / "adult.csv", sep=";")
result = sqlanon.anonymize(people, **settings)
print(result.levels, result.loss, result.suppressed)  # the optimum found by Flash
released = result.table  # a pandas DataFrame

# polars in -> polars out
released_pl = sqlanon.anonymize(pl.read_csv(adult / "adult.csv", separator=";"), **settings).table

# fit on one half, transform the other: the same levels, every model re-checked
half = len(people) // 2
anonymizer = sqlanon.Anonymizer(**settings).fit(people.iloc[:half])
second = anonymizer.transform(people.iloc[half:])  # raises NotAnonymousError if not

# check the released file as it is (no hierarchies): k, l, risk, smallest offending classes
released.to_csv(work / "released.csv", index=False)
found = sqlanon.check(work / "released.csv", quasi=list(quasi), k=5, models=settings["models"])
print(found.text())

# in Jupyter, `result` as a cell's last line shows its HTML summary
html = result._repr_html_()  # the same summary as a string
# -------------------------------------------------------------------------------------------

assert isinstance(released, pd.DataFrame) and isinstance(released_pl, pl.DataFrame)
assert isinstance(second, pd.DataFrame) and len(second) == len(people) - half
assert found.holds and "Privacy models" in html
print(
    f"notebook session ok: {len(released)} + {len(released_pl)} rows released, "
    f"{len(second)} transformed at {anonymizer.levels_}, check holds"
)
