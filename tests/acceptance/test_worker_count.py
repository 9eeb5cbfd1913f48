"""`ocrqueue serve` starts one worker process per CPU it may use, not per CPU of the host: a process
pinned to one core, or in a cgroup with one CPU of quota (a container's `--cpus 1`), starts one."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.processes import Processes
from support.server import free_port
from support.waiting import wait_for

pytestmark = pytest.mark.acceptance

CGROUP = Path("/sys/fs/cgroup")
ENTER_CGROUP = 'echo $$ > "$0" && exec "$@"'


def serve_says_workers(workers: Processes, wrapper: list[str]) -> str:
    process = workers.start(["serve", "--port", str(free_port())], name="serve", wrapper=wrapper)
    output = process.wait_output("worker processes", timeout=60)
    process.terminate()
    return output


@contextlib.contextmanager
def one_cpu_cgroup() -> Iterator[Path]:
    """A fresh cgroup (v2 `cpu.max`, or v1's cpu controller) with one CPU of quota per period."""
    name = f"oq-test-{os.getpid()}"
    if (CGROUP / "cgroup.controllers").exists():
        directory, limits = CGROUP / name, {"cpu.max": "100000 100000"}
    else:
        directory, limits = CGROUP / "cpu" / name, {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "100000"}
    try:
        directory.mkdir()
        for file, value in limits.items():
            (directory / file).write_text(value)
    except OSError as exc:
        with contextlib.suppress(OSError):
            directory.rmdir()
        pytest.skip(f"cannot make a cgroup with a CPU quota here: {exc}")
    try:
        yield directory
    finally:
        wait_for(lambda: not (directory / "cgroup.procs").read_text().strip(), 30, 0.1, "the cgroup to empty")
        directory.rmdir()


@pytest.fixture
def two_cpus() -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs to show one")


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_process_pinned_to_one_core_starts_one_worker(workers: Processes, two_cpus: None) -> None:
    taskset = shutil.which("taskset")
    if taskset is None:
        pytest.skip("needs taskset (util-linux)")
    assert "(1 worker processes," in serve_says_workers(workers, [taskset, "-c", "0"])


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_cgroup_with_one_cpu_of_quota_starts_one_worker(workers: Processes, two_cpus: None) -> None:
    with one_cpu_cgroup() as directory:
        output = serve_says_workers(workers, ["sh", "-c", ENTER_CGROUP, str(directory / "cgroup.procs")])
        workers.close()
    assert "(1 worker processes," in output
