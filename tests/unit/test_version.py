"""`ocrqueue --version` says the version that is written once, in `ocrqueue.__version__`, which the
package metadata reads through pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import ocrqueue

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"


def test_the_version_is_written_once() -> None:
    project = tomllib.loads(PYPROJECT.read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ocrqueue.__version__"}


def test_ocrqueue_version_prints_it() -> None:
    done = subprocess.run([sys.executable, "-m", "ocrqueue", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"ocrqueue {ocrqueue.__version__}\n"


def test_the_licence_pyproject_names_is_shipped() -> None:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    text = (PYPROJECT.parent / "LICENSE").read_text()
    assert text.split()[:5] == ["Apache", "License", "Version", "2.0,", "January"]
    assert "END OF TERMS AND CONDITIONS" in text
