"""The import-linter contracts in pyproject.toml (run by `make check`) hold, and they bite: a copy of
the package with one forbidden import per layer, and per stage folder of documents/, breaks exactly as
many contracts."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))


def _lint(source_root: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(source_root)}
    return subprocess.run(
        [LINT_IMPORTS, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_layer_contracts_hold(tmp_path: Path) -> None:
    result = _lint(ROOT / "src", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_forbidden_import_in_any_layer_breaks_its_contract(tmp_path: Path) -> None:
    package = tmp_path / "src" / "ocrqueue"
    shutil.copytree(ROOT / "src" / "ocrqueue", package, ignore=shutil.ignore_patterns("__pycache__", "static"))
    violations = {
        "api/schemas.py": "from ocrqueue.queue import Task",
        "cli/keys.py": "from ocrqueue.storage import Storage",
        "queue/backoff.py": "from ocrqueue.service import Tasks",
        "documents/errors.py": "from ocrqueue.storage import Storage",
        "documents/input/sniff.py": "from ocrqueue.documents.ocr import page",
        "documents/layout/rows.py": "from ocrqueue.documents.input import pdf",
        "documents/engines/cpus.py": "from ocrqueue.documents.output import writer",
        "documents/textlayer/judge.py": "from ocrqueue.documents.ocr import detect",
        "documents/finish/page.py": "from ocrqueue.documents.textlayer import judge",
        "client/retries.py": "from ocrqueue.settings import Settings",
        "documents/engines/base.py": "from ocrqueue.documents.engines.tesseract import TesseractEngine",
        "documents/vlm/prompts.py": "from ocrqueue.documents.engines.base import Task",
    }
    for path, line in violations.items():
        with (package / path).open("a") as module:
            module.write(f"\n{line}  # noqa\n")
    result = _lint(tmp_path / "src", tmp_path)
    assert result.returncode == 1
    counts = re.search(r"Contracts: (\d+) kept, (\d+) broken\.", result.stdout)
    assert counts, result.stdout
    assert int(counts.group(2)) == len(violations) - 1, result.stdout  # api/ and cli/ share one contract
    for path in violations:
        assert f"ocrqueue.{path.removesuffix('.py').replace('/', '.')} ->" in result.stdout
