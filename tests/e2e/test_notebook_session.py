"""The Python API page's notebook session (docs/api.md, examples/notebook.py), run as a
script — pandas in and out, polars in and out, fit on half of ADULT and transform the other
half, check the released file, the HTML summary when Result has one."""

import re
import subprocess
import sys

import pytest

from helpers.jobs import ADULT, ROOT


@pytest.mark.slow
def test_the_notebook_session_runs(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "notebook.py"), str(ADULT), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert out.splitlines()[0] == "{'age': 0, 'sex': 0, 'race': 1, 'marital-status': 1} 9800845 85"
    assert "k-anonymity(k=5)" in out and "The models hold." in out
    assert (
        "notebook session ok: 30162 + 30162 rows released, 15081 transformed at "
        "{'age': 0, 'sex': 0, 'race': 1, 'marital-status': 1}, check holds"
    ) in out
    assert (tmp_path / "released.csv").exists()


def test_the_api_page_shows_the_notebook_code():
    """The Python API page's session is the script's, line for line."""
    script = (ROOT / "examples" / "notebook.py").read_text()
    session = script.split("# -- the API page's code, as it stands there --")[1].split("\n# ----")[0]
    session = session.split("\n", 1)[1].strip()
    page = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
    assert any(session in block for block in blocks), "docs/api.md's Python session differs from examples/notebook.py"
