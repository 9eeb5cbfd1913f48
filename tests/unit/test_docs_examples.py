"""The Python examples of the README and docs/client.md use only names they define or import
(ruff's undefined-name check on each block), so they run when pasted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PAGES = ["README.md", "docs/client.md"]
BLOCKS = [
    pytest.param(block, id=f"{page}-{index}")
    for page in PAGES
    for index, block in enumerate(re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), flags=re.DOTALL))
]


@pytest.mark.parametrize("block", BLOCKS)
def test_every_name_in_the_example_is_defined(block: str) -> None:
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--select",
            "F821",
            "--stdin-filename",
            "example.py",
            "-",
        ],
        input=block,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout
