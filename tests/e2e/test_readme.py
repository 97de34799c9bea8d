"""The README's Python example runs as written."""

import re
import shutil

from helpers.jobs import ROOT


def test_readme_python_example_runs(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    shutil.copytree(ROOT / "sqlanon" / "demo" / "hierarchies", tmp_path / "hierarchies")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    block = next(
        b for b in blocks if "Job(" in b
    )  # the Job in code (the notebook's is tests/e2e/test_notebook_session.py)
    exec(compile(block, "README.md", "exec"), scope)
    result = scope["result"]
    assert result.success and result.report["verified"]
    assert result.transformation == (1, 2)  # 30-39 and 470**: the three zip codes share 470
    assert (tmp_path / "out.parquet").exists()
