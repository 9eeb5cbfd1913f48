"""`bench/load.py --quick` keeps working: HTTP clients against a real service, no errors, all done."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.acceptance, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def test_load_benchmark_quick_run() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "load.py"), "--quick", "--p99-target-ms", "1000"],
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,
    )
    assert done.stdout.strip(), done.stderr[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["errors"] == 0, done.stdout
    assert result["tasks_submitted"] > 0
    assert result["tasks_completed"] == result["tasks_submitted"], done.stdout
    assert result["status_count"] > 0 and result["sse_first_count"] > 0, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
