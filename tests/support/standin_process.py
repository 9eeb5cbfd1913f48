"""The model-server stand-in (`vlm_standin.StandIn`) as a process of its own, so a test can SIGKILL
the model server itself and start it again on the same port, as a crashed vLLM would be restarted.

Run as `python -m support.standin_process PORT`; `StandInProcess` starts it in its own process
group with its log in a file, waits until it answers, kills it, and restarts it on the same port.
`GET /standin/stats` tells how many chat completions it answered since it started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx

from support.server import free_port
from support.waiting import wait_for

_TESTS_DIR = Path(__file__).resolve().parent.parent


class StandInProcess:
    """One stand-in process at a time on a fixed loopback port."""

    def __init__(self, log_dir: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.log_dir = log_dir
        self.popen: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 60.0) -> None:
        """Start it on `port` and wait until `GET /v1/models` answers 200."""
        assert self.popen is None or self.popen.poll() is not None, "the stand-in is already running"
        self.starts += 1
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(_TESTS_DIR), os.environ.get("PYTHONPATH", "")]))
        with open(self.log_dir / f"standin-{self.starts}.log", "wb") as log:
            self.popen = subprocess.Popen(
                [sys.executable, "-m", "support.standin_process", str(self.port)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for(self.answering, timeout, 0.05, f"the stand-in to answer on port {self.port}")

    def answering(self) -> bool:
        if self.popen is None or self.popen.poll() is not None:
            raise AssertionError(f"the stand-in exited:\n{self.output()}")
        try:
            return httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def completions(self) -> int:
        """Chat completions answered by the current process."""
        return int(httpx.get(f"http://127.0.0.1:{self.port}/standin/stats", timeout=5).json()["completions"])

    def kill(self) -> None:
        """SIGKILL the whole process group and reap it; the port refuses connections afterwards."""
        assert self.popen is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(10)

    def output(self) -> str:
        path = self.log_dir / f"standin-{self.starts}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def close(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.kill()


@contextlib.contextmanager
def standin_process(log_dir: Path) -> Iterator[StandInProcess]:
    process = StandInProcess(log_dir)
    process.start()
    try:
        yield process
    finally:
        process.close()


def _serve(port: int) -> None:
    import uvicorn

    from support.vlm_standin import StandIn

    standin = StandIn()

    @standin.app.get("/standin/stats")
    def stats() -> dict[str, int]:
        return {"completions": standin.completions}

    uvicorn.run(standin.app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
