"""A third-party engine installed as a package is found through the `ocrqueue.engines` entry-point
group and used by `ocrqueue convert`; uninstalled, it is gone; a broken entry point beside it is
logged with its package's name and the rest works.

The package is built (flit_core, fetched by pip like any build backend) and installed by pip into
a venv of its own that sees the test venv's packages through a `.pth` file, so the test venv is
left as it was.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from data.generate import ENGLISH, text_page

PACKAGE = "ocrqueue-tiny-engine"

PYPROJECT = f"""
[build-system]
requires = ["flit_core>=3.4"]
build-backend = "flit_core.buildapi"

[project]
name = "{PACKAGE}"
version = "1.0"
description = "A tiny OCR engine for ocrqueue's tests"

[project.entry-points."ocrqueue.engines"]
tiny = "tiny_engine:TinyEngine"
broken = "tiny_engine:no_such_factory"

[tool.flit.module]
name = "tiny_engine"
"""

MODULE = '''
"""An engine that reads every page as one line: "tiny engine read WxH"."""

from ocrqueue.documents import EngineCapabilities, EngineOutput, Line
from ocrqueue.documents.geometry import BBox


class TinyEngine:
    name = "tiny"
    capabilities = EngineCapabilities(scripts=frozenset({"Latin"}), languages=frozenset({"eng"}))

    def recognize(self, image, request):
        box = BBox(0, 0, image.width, image.height)
        return EngineOutput((Line(f"tiny engine read {image.width}x{image.height}", box, 0.99),))
'''


def run(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A fresh venv whose interpreter also imports the test venv's packages (ocrqueue, pip)."""
    folder = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=60)
    python = folder / "bin" / "python"
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    test_site = sysconfig.get_paths()["purelib"]
    Path(site, "test-venv.pth").write_text(f"import site; site.addsitedir({test_site!r})\n")
    return python


def test_an_engine_package_is_found_by_entry_point_used_and_gone_once_uninstalled(tmp_path: Path, venv: Path) -> None:
    source = tmp_path / "tiny"
    source.mkdir()
    (source / "pyproject.toml").write_text(PYPROJECT)
    (source / "tiny_engine.py").write_text(textwrap.dedent(MODULE))
    page = tmp_path / "page.png"
    text_page(ENGLISH[:2], cjk=False).save(page, dpi=(200, 200))
    install = run(venv, "-m", "pip", "install", "--no-deps", str(source))
    assert install.returncode == 0, install.stderr

    converted = run(venv, "-m", "ocrqueue", "convert", str(page), "-o", str(tmp_path / "out"), "--engine", "tiny")
    assert converted.returncode == 0, converted.stderr
    markdown = (tmp_path / "out" / "page" / "page.md").read_text()
    assert "tiny engine read" in markdown
    assert f"OCR engine 'broken' from package {PACKAGE} could not be loaded" in converted.stderr

    uninstall = run(venv, "-m", "pip", "uninstall", "--yes", PACKAGE)
    assert uninstall.returncode == 0, uninstall.stderr
    gone = run(venv, "-m", "ocrqueue", "convert", str(page), "-o", str(tmp_path / "again"), "--engine", "tiny")
    assert gone.returncode != 0
    assert "unknown engine 'tiny'" in gone.stderr + gone.stdout
    assert PACKAGE not in gone.stderr
