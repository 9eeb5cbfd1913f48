"""`make serve` installs the runtime dependencies only; `make test` adds the test tools, also into a
venv that `make serve` made first (each has its own stamp). Read from `make -n`, which runs nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[2]


def planned(target: str, venv: Path) -> str:
    done = subprocess.run(
        ["make", "-n", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout


def test_serve_installs_without_the_test_extra(tmp_path: Path) -> None:
    plan = planned("serve", tmp_path / "venv")
    assert f"install-python.sh {tmp_path / 'venv'} -e .\n" in plan
    assert "[test" not in plan


def test_test_adds_the_test_extra_after_serve(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    venv.mkdir()
    stamp = venv / ".installed-runtime"
    stamp.touch()
    newest = max(
        (ROOT / name).stat().st_mtime for name in ("pyproject.toml", "constraints.txt", "scripts/install-python.sh")
    )
    os.utime(stamp, (newest + 10, newest + 10))
    assert "-e .\n" not in planned("serve", venv)
    assert f'install-python.sh {venv} -e ".[test]"' in planned("test", venv)
