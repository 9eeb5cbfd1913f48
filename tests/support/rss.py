"""Peak memory of real `ocrqueue convert` and `ocrqueue worker` processes reading one document, at
page 50 and at the last page: shared by tests/documents/test_memory.py and bench/memory.py.

The peak is the kernel's high-water mark (VmHWM in /proc/PID/status). `convert` runs in a fresh
interpreter through its real command line, with `process_page` wrapped to note the peak after page
50 and after the last page. A worker is a real `ocrqueue worker` process; the peak is read from
outside when the task's progress passes page 50 and when the task completes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from ocrqueue.documents import ProcessOptions
from ocrqueue.queue import TaskStatus, open_store
from ocrqueue.service.schema import upgrade_all
from ocrqueue.service.submission import Submission, submit_document
from ocrqueue.settings import Settings
from ocrqueue.storage import LocalStorage

MARK_PAGE = 50


def peak_rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


@dataclass(frozen=True)
class MemoryRun:
    how: str
    pages: int
    peak_at_50_mb: float
    peak_mb: float
    seconds: float

    @property
    def growth_mb(self) -> float:
        return self.peak_mb - self.peak_at_50_mb

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "growth_mb": round(self.growth_mb, 1)}


_CONVERT_PROBE = """
import json, sys, time
from pathlib import Path

import ocrqueue.service.page_reading as documents
from ocrqueue.cli.app import app

def peak():
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024

report, args = Path(sys.argv[1]), sys.argv[2:]
marks = {"pages": 0, "at_50": None}
read = documents.process_page

def noted(page, options, resources=None):
    result = read(page, options, resources)
    marks["pages"] += 1
    if marks["pages"] == MARK:
        marks["at_50"] = peak()
    return result

documents.process_page = noted
start = time.monotonic()
try:
    app(args, standalone_mode=False)
finally:
    marks["seconds"] = time.monotonic() - start
    marks["peak"] = peak()
    report.write_text(json.dumps(marks))
""".replace("MARK", str(MARK_PAGE))


def convert_memory(document: Path, out: Path, env: Mapping[str, str], *args: str, timeout: float = 1800) -> MemoryRun:
    """Run `ocrqueue convert DOCUMENT -o OUT ARGS…` in a fresh process; its peak at page 50 and at the end."""
    report = out / "memory.json"
    out.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-c", _CONVERT_PROBE, str(report), "convert", str(document), "-o", str(out), *args]
    subprocess.run(command, env=dict(env), check=True, timeout=timeout, capture_output=True)
    marks = json.loads(report.read_text())
    return MemoryRun("convert", marks["pages"], marks["at_50"] or marks["peak"], marks["peak"], marks["seconds"])


def worker_memory(
    document: Path, workdir: Path, env: Mapping[str, str], options: Mapping[str, object], timeout: float = 1800
) -> MemoryRun:
    """Submit DOCUMENT to a fresh SQLite queue in WORKDIR, run one `ocrqueue worker -c 1` process until
    the task completes, and read the worker's peak at page 50 and at the end."""
    data = workdir / "data"
    data.mkdir(parents=True, exist_ok=True)
    own = ("OCRQUEUE_DATABASE_URL", "OCRQUEUE_STORAGE_DIR", "OCRQUEUE_STORAGE_URL")
    environment = {**{k: v for k, v in env.items() if k not in own}, "OCRQUEUE_DATA_DIR": str(data)}
    settings = Settings(data_dir=data, database_url=None, storage_dir=None, storage_url=None)
    upgrade_all(settings.resolved_database_url)
    with open_store(settings.resolved_database_url) as store:
        storage = LocalStorage(settings.resolved_storage_dir)
        with document.open("rb") as stream:
            submission = Submission(document.name, ProcessOptions.from_dict(dict(options)), force=True)
            task_id = submit_document(store, storage, stream, submission, 1 << 40).task.id
        log = (workdir / "worker.log").open("wb")
        worker = subprocess.Popen(
            [sys.executable, "-m", "ocrqueue", "worker", "-c", "1"],
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        start = time.monotonic()
        at_50: float | None = None
        try:
            while True:
                task = store.get(task_id)
                assert task is not None
                if at_50 is None and task.progress_done >= MARK_PAGE:
                    at_50 = peak_rss_mb(worker.pid)
                if task.status.terminal:
                    break
                if worker.poll() is not None or time.monotonic() - start > timeout:
                    raise AssertionError(f"worker gone or too slow: {(workdir / 'worker.log').read_text()[-3000:]}")
                time.sleep(0.02)
            seconds = time.monotonic() - start
            peak = peak_rss_mb(worker.pid)
            if task.status is not TaskStatus.COMPLETED:
                raise AssertionError(f"task ended {task.status}: {task.error_message}")
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait(30)
            log.close()
        assert isinstance(task.result, dict)
    return MemoryRun("worker", int(task.result["pages"]), at_50 or peak, peak, seconds)
