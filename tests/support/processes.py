"""Real `ocrqueue` processes for acceptance tests: start workers with an environment, signal them,
kill their process groups, read what they logged.

Each worker runs in its own session (so its own process group) with stdout and stderr going to a
file, never a pipe: a test that stops reading can never block a worker on a full pipe buffer.
`Processes.close()` kills every group it started, whatever state the test left them in.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from ocrqueue.queue import Store
from support.server import free_port
from support.waiting import wait_for

# Pretends to run on another machine: `identity.host_name()` asks `socket.gethostname()` at call
# time, so a worker started through this shim registers (and recovers) as host `argv[1]`.
_OTHER_HOST_BOOT = """
import runpy, socket, sys
host = sys.argv[1]
socket.gethostname = lambda: host
sys.argv = ["ocrqueue", *sys.argv[2:]]
runpy.run_module("ocrqueue", run_name="__main__", alter_sys=True)
"""

SHORT_LEASES: dict[str, str] = {
    "OCRQUEUE_LEASE_SECONDS": "2",
    "OCRQUEUE_HEARTBEAT_SECONDS": "0.5",
    "OCRQUEUE_REAPER_SECONDS": "0.5",
    "OCRQUEUE_POLL_SECONDS": "0.2",
    "OCRQUEUE_SHUTDOWN_GRACE_SECONDS": "1",
}
"""Leases that expire within seconds, so lease-expiry paths run quickly in tests."""


def base_environment(db_url: str, data_dir: Path, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any OCRQUEUE_* setting, pointed at `db_url`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}
    env.update(
        {
            "OCRQUEUE_DATABASE_URL": db_url,
            "OCRQUEUE_DATA_DIR": str(data_dir),
            "OCRQUEUE_AUTO_MIGRATE": "false",  # the fixtures hand out migrated databases
            "PYTHONUNBUFFERED": "1",
            "COLUMNS": "400",  # rich wraps log lines at the terminal width; keep one message per line
        }
    )
    env.update(overrides or {})
    return env


@dataclass
class WorkerProcess:
    """One `ocrqueue worker` process, leader of its own process group."""

    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path
    host: str | None
    started: float = field(default_factory=time.monotonic)

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_output(self, text: str, timeout: float = 30.0) -> str:
        """Wait until the worker has logged `text`; returns the whole log."""
        return wait_for(lambda: text in self.output() and self.output(), timeout, 0.05, f"{self.name} to log {text!r}")

    def logged_worker_id(self, timeout: float = 30.0) -> str:
        """The worker id the process announced at start-up ("worker <id> on <backend>, …"), as a
        line of its own or as the message of a JSON log line."""

        def find() -> str | None:
            match = re.search(r'(?:^|"message": ")worker (\S+) on ', self.output(), re.MULTILINE)
            return match.group(1) if match else None

        return wait_for(find, timeout, 0.05, f"{self.name} to print its worker id")

    def logged_kinds(self, timeout: float = 30.0) -> list[str]:
        """The task kinds the process printed at start-up ("worker <id> on <backend>, kinds: a, b"),
        as a line of its own or as the message of a JSON log line."""

        def find() -> list[str] | None:
            match = re.search(r'(?:^|"message": ")worker \S+ on \S+, kinds: ([^"\n]*)', self.output(), re.MULTILINE)
            return match.group(1).strip().split(", ") if match else None

        return wait_for(find, timeout, 0.05, f"{self.name} to print its kinds")

    def signal(self, signum: int) -> None:
        """Send `signum` to the worker's whole process group (no-op once it is gone)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signum)

    def kill(self, timeout: float = 10.0) -> int:
        """SIGKILL, then reap it: an unreaped zombie would still look alive to `pid_alive`."""
        self.signal(signal.SIGKILL)
        return self.popen.wait(timeout)

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM (graceful stop) and wait for the process to exit."""
        self.signal(signal.SIGTERM)
        return self.popen.wait(timeout)

    def pause(self) -> None:
        self.signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.signal(signal.SIGCONT)

    def wait_exit(self, timeout: float = 30.0) -> int:
        return self.popen.wait(timeout)


class Processes:
    """Starts `ocrqueue` commands against one database and cleans every one of them up."""

    def __init__(self, workdir: Path, db_url: str, env: Mapping[str, str] | None = None) -> None:
        self.workdir = workdir
        self.db_url = db_url
        self.env = dict(env or {})
        self.started: list[WorkerProcess] = []
        self._names = itertools.count(1)
        (workdir / "logs").mkdir(parents=True, exist_ok=True)

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        return base_environment(self.db_url, self.workdir / "data", {**self.env, **(extra or {})})

    def _command(self, args: Sequence[str], host: str | None, wrapper: Sequence[str] = ()) -> list[str]:
        if host is None:
            return [*wrapper, sys.executable, "-m", "ocrqueue", *args]
        return [*wrapper, sys.executable, "-c", _OTHER_HOST_BOOT, host, *args]

    def start_worker(
        self,
        concurrency: int = 2,
        *,
        kinds: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        host: str | None = None,
        name: str | None = None,
        wrapper: Sequence[str] = (),
        test_kinds: bool = True,
    ) -> WorkerProcess:
        """Start `ocrqueue worker -c N [-k KIND…] [--test-kinds]`; `host` makes it register as another
        machine. Acceptance workers run the test kinds (`sleep`, `parts`) unless `test_kinds=False`.

        `wrapper` is a command prefix such as `unshare --pid --fork`; the process then has a
        different pid inside than `pid` here, so find its worker id with `logged_worker_id`.
        """
        args = ["worker", "-c", str(concurrency), *(["--test-kinds"] if test_kinds else [])]
        for kind in kinds:
            args += ["-k", kind]
        return self.start(args, env=env, host=host, name=name or f"worker-{next(self._names)}", wrapper=wrapper)

    def start(
        self,
        args: Sequence[str],
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        host: str | None = None,
        wrapper: Sequence[str] = (),
    ) -> WorkerProcess:
        """Start any long-running `ocrqueue` command (e.g. `serve --no-workers`) in its own group."""
        log_path = self.workdir / "logs" / f"{name}.log"
        with open(log_path, "wb") as log:
            popen = subprocess.Popen(
                self._command(args, host, wrapper),
                cwd=self.workdir,
                env=self.environment(env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process = WorkerProcess(name, popen, log_path, host)
        self.started.append(process)
        return process

    def start_serve(self, *args: str, name: str = "serve", timeout: float = 60.0) -> tuple[WorkerProcess, str]:
        """Start `ocrqueue serve ARGS… --port P` on a free port; returns it and its base URL once it answers."""
        port = free_port()
        process = self.start(["serve", *args, "--port", str(port)], name=name)
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: _answers(process, base), timeout, 0.1, f"{name} to answer on {base}")
        return process, base

    def run(
        self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 60.0
    ) -> subprocess.CompletedProcess[str]:
        """Run a short `ocrqueue` command (e.g. `tasks enqueue`) to completion."""
        return subprocess.run(
            self._command(args, None),
            cwd=self.workdir,
            env=self.environment(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )

    def alive(self) -> list[WorkerProcess]:
        return [p for p in self.started if p.alive]

    def logs(self) -> str:
        """Every worker's output, for an assertion message."""
        return "\n".join(
            f"--- {p.name} (pid {p.pid}, rc {p.returncode}) ---\n{p.output()[-4000:]}" for p in self.started
        )

    def close(self) -> None:
        """Kill every process group started here, stopped or not, and reap the leaders."""
        for process in self.started:
            process.signal(signal.SIGKILL)
        for process in self.started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.popen.wait(10)

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _answers(process: WorkerProcess, base: str) -> bool:
    if not process.alive:
        raise AssertionError(f"{process.name} exited with {process.returncode}:\n{process.output()[-4000:]}")
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def registered_worker_id(store: Store, process: WorkerProcess, timeout: float = 30.0) -> str:
    """Wait until the worker process has registered in the database; returns its worker id."""

    def find() -> str | None:
        if not process.alive:
            raise AssertionError(f"{process.name} exited with {process.returncode}:\n{process.output()[-4000:]}")
        for info in store.workers(live_only=True):
            if info.pid == process.pid:
                return info.id
        return None

    return wait_for(find, timeout, 0.05, f"{process.name} to register")
