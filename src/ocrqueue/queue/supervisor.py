"""Worker processes as children of one small supervising process.

A child runs a `Worker`; the supervisor starts it with a worker id it chose, watches its exit
status, and starts a fresh one in its place. That bounds two things a long-lived worker process
cannot bound itself:

- growth: a child that ran `max_tasks_per_process` tasks or passed `max_rss_mb` hands its leases
  back and exits with `REPLACE_EXIT_CODE`; the supervisor starts a new one at once.
- native crashes: a child killed by a signal (SIGSEGV in an image library, the OOM killer) takes
  only itself down. The supervisor sees the exit status at once and settles the tasks that child
  held, fenced by their lease tokens, instead of waiting for the leases to expire: the attempt
  fails as `crashed` with a message saying so, and the second crash of a task dead-letters it
  (a task that kills its process every time must not take down worker after worker).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ocrqueue.queue.backoff import backoff_delay
from ocrqueue.queue.errors import ErrorKind, LeaseLost
from ocrqueue.queue.identity import new_worker_id
from ocrqueue.queue.models import Lease, Task
from ocrqueue.queue.recycle import REPLACE_EXIT_CODE
from ocrqueue.queue.store import Store

log = logging.getLogger(__name__)

CRASHES_BEFORE_DEAD_LETTER = 2
_PR_SET_PDEATHSIG = 1
_WATCH_SECONDS = 0.05
_RESTART_BACKOFF_CAP = 30.0

CrashMessage = Callable[[Task, str], str]
"""Words for a task whose process died: (the task as it was, e.g. "SIGSEGV") -> message."""


def stop_with_parent() -> bool:
    """In a supervised child: ask the kernel for SIGTERM when the supervisor dies (even by SIGKILL),
    so an orphaned worker hands its tasks back and exits instead of running on unsupervised.
    Linux only (prctl PR_SET_PDEATHSIG); False elsewhere."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def default_crash_message(task: Task, how: str) -> str:
    return f"the worker process crashed ({how}) while running this task"


def exit_description(returncode: int) -> str:
    """ "SIGSEGV" for a child killed by a signal, "exit status 3" otherwise."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


@dataclass
class _Child:
    worker_id: str
    popen: subprocess.Popen[bytes]
    started: float = field(default_factory=time.monotonic)


class Supervisor:
    """Keeps `processes` children running `command(worker_id)` until stopped."""

    def __init__(
        self,
        store: Store,
        command: Callable[[str], Sequence[str]],
        processes: int,
        *,
        env: Mapping[str, str] | None = None,
        crash_messages: Mapping[str, CrashMessage] | None = None,
        backoff_base_seconds: float = 2.0,
        backoff_cap_seconds: float = 3600.0,
        stop_timeout: float = 30.0,
        on_exit: Callable[[int], None] | None = None,
    ) -> None:
        """`on_exit(pid)` is called once a child has exited and been reaped, before any replacement
        starts (e.g. to mark its metrics dead)."""
        if processes < 1:
            raise ValueError("a supervisor needs at least one process")
        self.store = store
        self.command = command
        self.processes = processes
        self.env = dict(env) if env is not None else None
        self.crash_messages = dict(crash_messages or {})
        self.backoff_base_seconds = backoff_base_seconds
        self.backoff_cap_seconds = backoff_cap_seconds
        self.stop_timeout = stop_timeout
        self.on_exit = on_exit
        self.children: list[_Child | None] = [None] * processes
        self.replaced = 0
        """Children that exited to be replaced (memory or task count), for logs and tests."""
        self.crashed = 0
        self._quick_crashes = [0] * processes
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="ocrqueue-supervisor", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stopping.set()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        return self._stopped.wait(timeout)

    @property
    def worker_ids(self) -> list[str]:
        with self._lock:
            return [c.worker_id for c in self.children if c is not None]

    @property
    def pids(self) -> list[int]:
        with self._lock:
            return [c.popen.pid for c in self.children if c is not None]

    def run(self) -> None:
        try:
            for slot in range(self.processes):
                self._spawn(slot)
            while not self._stopping.wait(_WATCH_SECONDS):
                for slot, child in enumerate(list(self.children)):
                    if child is not None and (code := child.popen.poll()) is not None:
                        self._exited(slot, child, code)
        finally:
            self._stop_children()
            self._stopped.set()

    # -- children ---------------------------------------------------------------------------
    def _spawn(self, slot: int) -> None:
        worker_id = new_worker_id()
        popen = subprocess.Popen(list(self.command(worker_id)), env=self.env, stdin=subprocess.DEVNULL)
        with self._lock:
            self.children[slot] = _Child(worker_id, popen)
        log.info("worker process %d (worker %s) started", popen.pid, worker_id)

    def _exited(self, slot: int, child: _Child, code: int) -> None:
        with self._lock:
            self.children[slot] = None
        self._reaped(child)
        if code == REPLACE_EXIT_CODE:
            self.replaced += 1
            log.info("worker process %d exited to be replaced; starting a fresh one", child.popen.pid)
        elif code == 0:
            # A graceful stop (its own SIGTERM, or it stopped itself): its tasks were handed back.
            log.info("worker process %d stopped", child.popen.pid)
        else:
            how = exit_description(code)
            self.crashed += 1
            log.error("worker process %d (worker %s) died: %s", child.popen.pid, child.worker_id, how)
            settled = self._settle(child.worker_id, how)
            quick = not settled and time.monotonic() - child.started < 10
            self._quick_crashes[slot] = self._quick_crashes[slot] + 1 if quick else 0
            # A child that dies without a task soon after starting (bad configuration, database gone)
            # is not restarted in a tight loop.
            if self._stopping.wait(min(_RESTART_BACKOFF_CAP, 0.5 * (2 ** self._quick_crashes[slot] - 1))):
                return
        if not self._stopping.is_set():
            self._spawn(slot)

    def _settle(self, worker_id: str, how: str) -> int:
        """Fail, fenced by their lease tokens, the tasks the dead child held; returns how many it held."""
        try:
            held = self.store.held_by(worker_id)
        except Exception:
            log.exception("could not find the tasks of dead worker %s; their leases expire instead", worker_id)
            return 0
        for task in held:
            self._settle_task(task, worker_id, how)
        try:
            self.store.stop_worker(worker_id)
        except Exception:
            log.exception("could not mark dead worker %s stopped", worker_id)
        return len(held)

    def _settle_task(self, task: Task, worker_id: str, how: str) -> None:
        earlier = sum(1 for e in self.store.events(task.id) if e.detail.get("error_kind") == ErrorKind.CRASHED)
        describe = self.crash_messages.get(task.kind, default_crash_message)
        message = describe(task, how)
        last = earlier + 1 >= CRASHES_BEFORE_DEAD_LETTER
        if last:
            message += f"; it crashed its process {earlier + 1} times, so it is not retried"
        delay = backoff_delay(task.attempts, self.backoff_base_seconds, self.backoff_cap_seconds)
        try:
            outcome = self.store.fail(
                Lease(task.id, task.lease_token, worker_id),
                error_kind=str(ErrorKind.CRASHED),
                message=message,
                retryable=not last,
                delay_seconds=delay,
            )
        except LeaseLost:
            return  # already taken over (its lease had expired): the new holder's attempt stands
        except Exception:
            log.exception("could not settle task %s of dead worker %s; its lease expires instead", task.id, worker_id)
            return
        log.warning("task %s: %s (%s)", task.id, message, outcome.outcome)

    def _stop_children(self) -> None:
        """SIGTERM every child (graceful: they hand their tasks back), SIGKILL what is left."""
        with self._lock:
            children = [c for c in self.children if c is not None]
        for child in children:
            if child.popen.poll() is None:
                child.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.stop_timeout
        for child in children:
            try:
                child.popen.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.error("worker process %d did not stop in time; killing it", child.popen.pid)
                child.popen.kill()
                child.popen.wait(10)
            self._reaped(child)

    def _reaped(self, child: _Child) -> None:
        if self.on_exit is None:
            return
        try:
            self.on_exit(child.popen.pid)
        except Exception:
            log.exception("on_exit of worker process %d failed", child.popen.pid)
