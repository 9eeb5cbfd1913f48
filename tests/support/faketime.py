"""Moving the wall clock of running `ocrqueue` processes with libfaketime (Debian: `faketime`).

`FakeClock(directory)` writes an offset into a timestamp file that every process started with
`clock.environment()` reads at every clock call (`FAKETIME_NO_CACHE`), so a test can step their clocks
forward or back by hours while they run, and every process sees the step at the same instant, as on
a real machine. With libfaketime's cache (re-read at most every second) the processes stepped up to a
second apart: one worker's reaper ended a lease on the stepped clock and another, still on the old
one, claimed the task "hours before" that end. Only the wall clock moves: `FAKETIME_DONT_FAKE_MONOTONIC=1`, because a
real clock step (NTP, an operator, a VM resume) never moves CLOCK_MONOTONIC, and because with a
faked monotonic clock Python's timed waits (`sem_clockwait` on CLOCK_MONOTONIC, which libfaketime
0.9.10 does not intercept) sleep for the size of a forward jump.

Two shims, loaded in those processes through `sitecustomize`:
- libfaketime 0.9.10 (Debian 12) breaks `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` when the
  monotonic clock is not faked (EINVAL; wolfcw/libfaketime#426), which Python 3.11's `time.sleep`
  uses, so `time.sleep` becomes a timed wait on an event (CLOCK_MONOTONIC, not intercepted);
- a thread writes the process's `time.time()` to `clock-<pid>` every second, so the test can wait
  until a process has really seen a jump. Not more often: each report takes the GIL from the main
  thread several times, and on a loaded 2-core machine every hand-over waits for the scheduler; at
  10 Hz a worker took 40-60 s to start instead of 8 s and never registered in time.
"""

from __future__ import annotations

import glob
import os
import time
from pathlib import Path

import pytest

_SITECUSTOMIZE = """
import os, threading, time


def _sleep(seconds):
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    threading.Event().wait(seconds)


time.sleep = _sleep


def _report(path):
    wait = threading.Event()
    while True:
        with open(path + ".tmp", "w") as out:
            out.write(repr(time.time()))
        os.replace(path + ".tmp", path)
        wait.wait(1.0)


threading.Thread(
    target=_report, args=(os.path.join(os.environ["OCRQ_FAKETIME_DIR"], f"clock-{os.getpid()}"),), daemon=True
).start()
"""


def libfaketime() -> str:
    """The library's path, or skip the test saying how to get it."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))
    if not found:
        pytest.skip("libfaketime is not installed (Debian package `faketime`; scripts/system-deps.sh test)")
    return found[0]


class FakeClock:
    """The wall clock of every process started with `environment()`: real time plus `offset`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.timestamp_file = directory / "faketime.rc"
        (directory / "sitecustomize.py").write_text(_SITECUSTOMIZE)
        self.library = libfaketime()
        self.offset = 0.0
        self.set(0)

    def environment(self) -> dict[str, str]:
        return {
            "LD_PRELOAD": self.library,
            "FAKETIME_TIMESTAMP_FILE": str(self.timestamp_file),
            "FAKETIME_NO_CACHE": "1",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "NO_FAKE_STAT": "1",  # file times stay real; faking them makes every import crawl
            "OCRQ_FAKETIME_DIR": str(self.directory),
            "PYTHONPATH": os.pathsep.join([str(self.directory), os.environ.get("PYTHONPATH", "")]),
        }

    def set(self, offset_seconds: float) -> None:
        """From now on these processes' wall clocks read real time + `offset_seconds`."""
        self.offset = offset_seconds
        tmp = self.timestamp_file.with_suffix(".tmp")
        tmp.write_text(f"{offset_seconds:+.0f}\n")
        os.replace(tmp, self.timestamp_file)

    def seen_by(self, pid: int, slack: float = 60.0) -> bool:
        """The process's last reported wall clock is real time + offset (within `slack` seconds)."""
        try:
            reported = float((self.directory / f"clock-{pid}").read_text())
        except (FileNotFoundError, ValueError):
            return False
        return abs(reported - (time.time() + self.offset)) < slack
