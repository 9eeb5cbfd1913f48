#!/usr/bin/env python
"""HTTP load on `ocrqueue serve` while its workers are busy: many clients submit small images and
follow their tasks (status polls or server-sent events), for a fixed time.

    python bench/load.py                       # 50 clients, 60 s, throwaway or local PostgreSQL
    python bench/load.py --clients 100 --duration 120 --worker-processes 2
    python bench/load.py --quick               # smoke run, well under 30 s

What runs: `ocrqueue serve --no-workers` (the API) and `--worker-processes` `ocrqueue worker`
processes, on a fresh database created on the PostgreSQL server at --admin-url (default: the
local server on 127.0.0.1:5432 if it answers, else a throwaway cluster from tests/support), and
dropped afterwards. Everything listens on 127.0.0.1 only.

Each client loops until the duration is over: submit one small PNG (a line of unique text, so no
two deduplicate and every one is OCR'd), then follow the task to its end, by polling
`GET /api/v1/tasks/{id}` every --poll-interval seconds (even-numbered clients) or by
`GET /api/v1/tasks/{id}/events` (odd-numbered clients), then fetch its JSON result. Kinds
measured: submit, status, result, sse_first (time to the first event), sse_total (whole stream).
After the duration no new task is submitted; the clients finish following theirs (bounded by
--drain-timeout), then every submitted task's final status is read.

The clients run in this one process on uvloop, with a minimal HTTP/1.1 client (`Connection`) so
that the generator takes little of the CPU it shares with what it measures; its own event-loop lag
(part of every latency) and the machine's load average are reported with the results.

Output: a table, then one JSON line (always last). Exit status 1 when any request failed, any
task did not complete, or p99 status latency exceeded --p99-target-ms.

    python bench/load.py --live --db sqlite    # live updates: commit-to-event latency, idle reads
    python bench/load.py --live --db postgresql --followers 50

--live measures how task changes reach followers instead. The API runs alone (no workers) in a
process of its own, with every store read it makes counted (the store's read methods; on SQLite
also every statement, `PRAGMA data_version` included, through a trace callback). This process
submits --followers tasks of a kind no worker runs, claims them, and opens one event stream per
task plus --list-followers task-list streams. Then (1) idle: for --idle-seconds nothing changes,
and the API's reads per second are counted; (2) latency: --rounds times, one task's progress is
committed from this process and the time from just before that statement to the arrival of the
event carrying it (or a later value of that task) is recorded; commits follow a random schedule, not
the events, so a poller's phase cannot line up with them. Run it with PYTHONPATH pointing at another checkout's src/ to
measure that code (the API process inherits it).
"""

from __future__ import annotations

import os
import sys

# bench/queue.py sits beside this file: keep this directory off sys.path so `import queue` finds the
# standard library module (psycopg and asyncio import it).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import defaultdict  # noqa: E402
from collections.abc import AsyncIterator, Iterator  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402
import psycopg  # noqa: E402
import uvloop  # noqa: E402
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.postgres import admin_server, fresh_database  # noqa: E402
from support.server import free_port  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WORDS = ["invoice", "order", "delivery", "payment", "account", "supplier", "contract", "report", "price"]


# --- the service under load ----------------------------------------------------------------------------


@contextlib.contextmanager
def postgres_admin(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    with admin_server() as admin:
        yield admin


@dataclass
class Service:
    port: int
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)


def start_service(db_url: str, workdir: Path, worker_processes: int, slots: int) -> Service:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}
    env.update(
        {
            "OCRQUEUE_DATABASE_URL": db_url,
            "OCRQUEUE_DATA_DIR": str(workdir / "data"),
            "OCRQUEUE_AUTO_MIGRATE": "false",
            "OCRQUEUE_SUBMIT_RATE_PER_MINUTE": "1000000",
            "OCRQUEUE_DEFAULT_LANGUAGES": '["eng"]',
            "PYTHONUNBUFFERED": "1",
        }
    )
    port = free_port()
    service = Service(port)
    commands = [["serve", "--host", "127.0.0.1", "--port", str(port), "--no-workers"]]
    commands += [["worker", "-c", str(slots)] for _ in range(worker_processes)]
    for i, args in enumerate(commands):
        log = open(workdir / f"process-{i}.log", "wb")  # noqa: SIM115 (the child keeps it)
        service.processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "ocrqueue", *args],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{service.base_url}/readyz", timeout=2).status_code == 200:
                return service
        if any(p.poll() is not None for p in service.processes):
            break
        time.sleep(0.2)
    service.stop()
    logs = "\n".join((workdir / f"process-{i}.log").read_text(errors="replace")[-2000:] for i in range(len(commands)))
    raise SystemExit(f"the service did not become ready:\n{logs}")


# --- clients ----------------------------------------------------------------------------------------


def small_image(text: str) -> bytes:
    image = Image.new("L", (640, 90), 255)
    ImageDraw.Draw(image).text((16, 24), text, font=ImageFont.truetype(FONT, 30), fill=0)
    buf = io.BytesIO()
    image.save(buf, "PNG", dpi=(200, 200))
    return buf.getvalue()


class RequestFailed(Exception):
    """A request that got no complete HTTP response: refused, reset, timed out or malformed;
    ``unanswered`` when not one byte of a response came back."""

    def __init__(self, message: str, unanswered: bool = False) -> None:
        super().__init__(message)
        self.unanswered = unanswered


class Connection:
    """One keep-alive HTTP/1.1 connection with just enough of the protocol for this benchmark.

    The generator shares two cores with the API, the workers and PostgreSQL, so its CPU per request
    is latency the API does not cause: httpx spent about 2.3 ms of CPU per request here (a fifth
    of it in a failing `import sniffio` per request), this client under 0.7 ms with the images.
    """

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: bytes = b"", content_type: str | None = None
    ) -> tuple[int, bytes]:
        """Status and body; the connection is opened on first use and again after a failure. A GET
        on a kept-alive connection that gets not one byte back is sent once more on a new one, as
        HTTP clients do: the server closes a connection left idle (uvicorn after 5 s), and a client
        that followed its task by events on another came back to a closed one ("result:
        IncompleteReadError: 0 bytes read", CI under load)."""
        reused = self._writer is not None
        try:
            return await self._request(method, path, body, content_type)
        except RequestFailed as failed:
            if not (reused and method == "GET" and failed.unanswered):
                raise
        return await self._request(method, path, body, content_type)

    async def _request(self, method: str, path: str, body: bytes, content_type: str | None) -> tuple[int, bytes]:
        head_read = False
        try:
            async with asyncio.timeout(self.timeout):
                reader, writer = await self._open()
                writer.write(self._head(method, path, body, content_type) + body)
                status, headers = await self._read_head(reader)
                head_read = True
                if headers.get("transfer-encoding") == "chunked":
                    data = b"".join([chunk async for chunk in self._chunks(reader)])
                else:
                    data = await reader.readexactly(int(headers.get("content-length", "0")))
                if headers.get("connection") == "close":
                    self.close()
                return status, data
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
            self.close()
            unanswered = not head_read and (
                isinstance(exc, ConnectionError) or (isinstance(exc, asyncio.IncompleteReadError) and not exc.partial)
            )
            raise RequestFailed(f"{method} {path}: {type(exc).__name__}: {exc}", unanswered) from exc

    async def stream_lines(self, path: str, until: float) -> AsyncIterator[str]:
        """GET an event stream and yield its lines; the connection closes when the caller stops."""
        try:
            async with asyncio.timeout(max(0.0, until - time.monotonic())):
                reader, writer = await self._open()
                writer.write(self._head("GET", path, b"", None))
                status, headers = await self._read_head(reader)
                if status != 200:
                    raise RequestFailed(f"GET {path}: HTTP {status}")
                pending = b""
                chunks = self._chunks(reader) if headers.get("transfer-encoding") == "chunked" else self._raw(reader)
                async for chunk in chunks:
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        yield line.decode().rstrip("\r")
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
            raise RequestFailed(f"GET {path}: {type(exc).__name__}: {exc}") from exc
        finally:
            self.close()

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    def _head(self, method: str, path: str, body: bytes, content_type: str | None) -> bytes:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(body)}"]
        if content_type:
            lines.append(f"Content-Type: {content_type}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    @staticmethod
    async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
        status_line, *header_lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip().lower()
        return int(status_line.split(" ", 2)[1]), headers

    @staticmethod
    async def _chunks(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
        while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
            yield (await reader.readexactly(size + 2))[:-2]
        await reader.readuntil(b"\r\n")

    @staticmethod
    async def _raw(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
        while chunk := await reader.read(65536):
            yield chunk

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


def multipart(filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: image/png\r\n\r\n"
    ).encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    error_samples: list[str] = field(default_factory=list)
    submitted: list[str] = field(default_factory=list)
    followed_to_end: int = 0

    def error(self, kind: str, what: str) -> None:
        self.errors[kind] += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{kind}: {what}")


async def _timed(
    stats: Stats, kind: str, conn: Connection, method: str, path: str, body: bytes = b"", content_type: str = ""
) -> Any:
    """The decoded JSON body, or None after recording an error; the latency is recorded either way."""
    t0 = time.perf_counter()
    try:
        status, data = await conn.request(method, path, body, content_type or None)
    except RequestFailed as exc:
        stats.error(kind, str(exc))
        return None
    stats.latencies[kind].append(time.perf_counter() - t0)
    if status >= 400:
        stats.error(kind, f"HTTP {status} {data[:200]!r}")
        return None
    return json.loads(data)


async def follow_by_polling(conn: Connection, stats: Stats, task_id: str, interval: float, until: float) -> bool:
    while time.monotonic() < until:
        task = await _timed(stats, "status", conn, "GET", f"/api/v1/tasks/{task_id}")
        if task is not None and task["status"] in ("completed", "dead_letter", "cancelled"):
            return True
        await asyncio.sleep(interval)
    return False


async def follow_by_events(conn: Connection, stats: Stats, task_id: str, until: float) -> bool:
    t0 = time.perf_counter()
    first = True
    try:
        async for line in Connection(conn.host, conn.port, conn.timeout).stream_lines(
            f"/api/v1/tasks/{task_id}/events", until
        ):
            if line.startswith("event:"):
                if first:
                    stats.latencies["sse_first"].append(time.perf_counter() - t0)
                    first = False
                if line.split(":", 1)[1].strip() == "end":
                    stats.latencies["sse_total"].append(time.perf_counter() - t0)
                    return True
    except RequestFailed as exc:
        stats.error("sse_first" if first else "sse_total", str(exc))
    return False


async def client_loop(
    number: int, address: tuple[str, int], stats: Stats, args: argparse.Namespace, stop_at: float
) -> None:
    rng = random.Random(number)
    drain_until = stop_at + args.drain_timeout
    conn = Connection(*address, timeout=30)
    await asyncio.sleep(rng.uniform(0, 1.0))  # do not all start in the same millisecond
    serial = 0
    try:
        while time.monotonic() < stop_at:
            serial += 1
            text = f"{rng.choice(WORDS)} {number}-{serial} {rng.choice(WORDS)} {rng.randrange(10**6)}"
            # Rendered off the event loop, so it does not delay the timing of other clients' requests.
            body, content_type = multipart(f"c{number}-{serial}.png", await asyncio.to_thread(small_image, text))
            task = await _timed(stats, "submit", conn, "POST", "/api/v1/tasks", body, content_type)
            if task is None:
                await asyncio.sleep(0.5)
                continue
            stats.submitted.append(task["id"])
            if number % 2 == 0:
                ended = await follow_by_polling(conn, stats, task["id"], args.poll_interval, drain_until)
            else:
                ended = await follow_by_events(conn, stats, task["id"], drain_until)
            if not ended:
                return
            stats.followed_to_end += 1
            await _timed(stats, "result", conn, "GET", f"/api/v1/tasks/{task['id']}/result?format=json")
    finally:
        conn.close()


async def loop_lag(samples: list[float], stop: asyncio.Event) -> None:
    """How late the generator's own event loop wakes up: latency it adds to every measurement."""
    while not stop.is_set():
        t0 = time.perf_counter()
        await asyncio.sleep(0.01)
        samples.append(time.perf_counter() - t0 - 0.01)


async def final_statuses(address: tuple[str, int], task_ids: list[str]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    conn = Connection(*address, timeout=30)
    for task_id in task_ids:
        try:
            status, data = await conn.request("GET", f"/api/v1/tasks/{task_id}")
            counts[json.loads(data)["status"] if status == 200 else f"HTTP {status}"] += 1
        except RequestFailed:
            counts["unreadable"] += 1
    conn.close()
    return dict(counts)


async def drive(address: tuple[str, int], args: argparse.Namespace) -> tuple[Stats, float, dict[str, int]]:
    stats = Stats()
    stop = asyncio.Event()
    lag = asyncio.create_task(loop_lag(stats.latencies["client_lag"], stop))
    t0 = time.monotonic()
    stop_at = t0 + args.duration
    await asyncio.gather(*(client_loop(n, address, stats, args, stop_at) for n in range(args.clients)))
    elapsed = time.monotonic() - t0
    stop.set()
    await lag
    return stats, elapsed, await final_statuses(address, stats.submitted)


# --- live updates (--live) ---------------------------------------------------------------------------

LIVE_KIND = "bench_live"
COUNTED_READS = ("get", "get_many", "list_tasks", "get_with_events", "events", "checkpoints", "counts_by_status")


def serve_counted(port: int) -> None:
    """The API as `ocrqueue serve --no-workers` runs it, counting its database reads at /bench-reads."""
    import collections
    import sqlite3

    import uvicorn
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from ocrqueue.api import ApiContext, create_app
    from ocrqueue.api.ratelimit import RateLimiter
    from ocrqueue.queue.drivers import sqlite as sqlite_driver
    from ocrqueue.service import Tasks
    from ocrqueue.service.apikeys import ApiKeys
    from ocrqueue.service.runtime import open_configured_store, open_storage
    from ocrqueue.settings import Settings

    counts: collections.Counter[str] = collections.Counter()
    real_connect = sqlite3.connect

    def traced_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)
        conn.set_trace_callback(lambda statement: counts.update(["sqlite_statements"]))
        return conn

    sqlite_driver.sqlite3.connect = traced_connect  # type: ignore[attr-defined]
    settings = Settings()
    store = open_configured_store(settings)
    for name in COUNTED_READS:
        method = getattr(store, name)

        def counted(*args: Any, _name: str = name, _method: Any = method, **kwargs: Any) -> Any:
            counts.update(["reads", _name])
            return _method(*args, **kwargs)

        setattr(store, name, counted)
    keys = ApiKeys(settings.resolved_database_url)
    context = ApiContext(settings, Tasks(store, open_storage(settings), settings), keys, RateLimiter(1_000_000))
    app = create_app(context)

    async def bench_reads(request: Request) -> JSONResponse:
        return JSONResponse(dict(counts))

    app.router.routes.insert(0, Route("/bench-reads", bench_reads))
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)).run()


@dataclass
class LiveStreams:
    """Arrival times of `task` events, by (task id, progress_done), and first frames seen."""

    arrivals: dict[tuple[str, int], float] = field(default_factory=dict)
    opened: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)


async def follow_live(address: tuple[str, int], path: str, streams: LiveStreams, until: float) -> None:
    event = ""
    try:
        async for line in Connection(*address, timeout=30).stream_lines(path, until):
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "task":
                task = json.loads(line.split(":", 1)[1])
                streams.arrivals.setdefault((task["id"], task["progress"]["done"]), time.perf_counter())
                streams.opened.add(path)
                streams.changed.set()
    except RequestFailed as exc:
        if time.monotonic() < until:
            streams.errors.append(str(exc))


async def reads_now(address: tuple[str, int]) -> dict[str, int]:
    conn = Connection(*address, timeout=10)
    try:
        status, data = await conn.request("GET", "/bench-reads")
    finally:
        conn.close()
    return dict(json.loads(data)) if status == 200 else {}


async def live_phases(address: tuple[str, int], db_url: str, args: argparse.Namespace) -> dict[str, Any]:
    from ocrqueue.queue import TaskSpec, open_store

    store = open_store(db_url)
    try:
        store.submit_many([TaskSpec(LIVE_KIND) for _ in range(args.followers)])
        claimed = store.claim("bench-live", args.followers, 3600.0, [LIVE_KIND])
        leases = [item.lease for item in claimed]
        streams = LiveStreams()
        until = time.monotonic() + args.idle_seconds + args.rounds * args.round_seconds + 120
        paths = [f"/api/v1/tasks/{lease.task_id}/events" for lease in leases]
        paths += ["/api/v1/tasks/events"] * args.list_followers
        followers = [asyncio.create_task(follow_live(address, path, streams, until)) for path in paths]
        deadline = time.monotonic() + 60
        while len(streams.opened) < len(set(paths)) and time.monotonic() < deadline:
            streams.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(streams.changed.wait(), 1.0)
        await asyncio.sleep(1.0)  # let the streams' first reads settle before the idle window
        before = await reads_now(address)
        await asyncio.sleep(args.idle_seconds)
        after = await reads_now(address)
        idle = {k: (after.get(k, 0) - before.get(k, 0)) / args.idle_seconds for k in after}
        # Commits on a random schedule, not paced by the events: a poller's phase cannot line up
        # with them. Tasks take turns, so one task changes again only after all others did.
        rng = random.Random(7)
        commits: list[tuple[str, int, float]] = []
        for done in range(1, args.rounds + 1):
            lease = leases[done % len(leases)]
            commits.append((lease.task_id, done, await asyncio.to_thread(_commit_progress, store, lease, done)))
            await asyncio.sleep(args.round_seconds * rng.uniform(0.0, 2.0))
        last = commits[-1]
        deadline = time.monotonic() + 5.0
        while (last[0], last[1]) not in streams.arrivals and time.monotonic() < deadline:
            streams.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(streams.changed.wait(), max(0.0, deadline - time.monotonic()))
        latencies, missed = commit_latencies(commits, streams.arrivals)
        for follower in followers:
            follower.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
    finally:
        store.close()
    return {"idle": idle, "latencies": latencies, "missed": missed, "stream_errors": streams.errors}


def commit_latencies(
    commits: list[tuple[str, int, float]], arrivals: dict[tuple[str, int], float]
) -> tuple[list[float], int]:
    """Each commit's delay to the first event showing it or a later value of the same task (a
    stream that fell behind sends only the newest row); commits never shown count as missed."""
    shown: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for (task_id, done), at in arrivals.items():
        shown[task_id].append((done, at))
    latencies: list[float] = []
    missed = 0
    for task_id, done, started in commits:
        seen = [at for value, at in shown[task_id] if value >= done and at >= started]
        if seen:
            latencies.append(min(seen) - started)
        else:
            missed += 1
    return latencies, missed


def _commit_progress(store: Any, lease: Any, done: int) -> float:
    """Commit one progress change; returns the time just before the statement was sent."""
    started = time.perf_counter()
    store.progress(lease, done, None, f"bench round {done}")
    return started


def run_live(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="ocrq-live-"))
    try:
        with contextlib.ExitStack() as stack:
            if args.db == "sqlite":
                db_url = f"sqlite:///{workdir / 'live.db'}"
            else:
                admin = stack.enter_context(postgres_admin(args.admin_url))
                db_url = stack.enter_context(fresh_database(admin))
            env = {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}
            env.update({"OCRQUEUE_DATABASE_URL": db_url, "OCRQUEUE_DATA_DIR": str(workdir / "data")})
            subprocess.run(
                [sys.executable, "-m", "ocrqueue", "db", "upgrade"], env=env, check=True, capture_output=True
            )
            args.load_before = os.getloadavg()[0]
            port = free_port()
            log = stack.enter_context(open(workdir / "api.log", "wb"))
            api = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--serve-counted", str(port)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            service = Service(port, [api])
            try:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and api.poll() is None:
                    with contextlib.suppress(httpx.HTTPError):
                        if httpx.get(f"{service.base_url}/bench-reads", timeout=2).status_code == 200:
                            break
                    time.sleep(0.2)
                else:
                    raise SystemExit(f"the API did not start:\n{(workdir / 'api.log').read_text()[-2000:]}")
                with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                    result = runner.run(live_phases(("127.0.0.1", port), db_url, args))
            finally:
                service.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    latencies = result["latencies"]
    p50, p95 = percentile(latencies, 50) * 1000, percentile(latencies, 95) * 1000
    top = max(latencies) * 1000 if latencies else float("nan")
    idle = result["idle"]
    out: dict[str, Any] = {
        "mode": "live",
        "db": args.db,
        "followers": args.followers,
        "list_followers": args.list_followers,
        "rounds": args.rounds,
        "commit_to_event_p50_ms": round(p50, 1),
        "commit_to_event_p95_ms": round(p95, 1),
        "commit_to_event_max_ms": round(top, 1),
        "events_missed": result["missed"],
        "idle_seconds": args.idle_seconds,
        "idle_reads_per_s": round(idle.get("reads", 0.0), 2),
        "idle_reads_per_s_by_method": {k: round(v, 2) for k, v in idle.items() if k in COUNTED_READS},
        "idle_sqlite_statements_per_s": round(idle["sqlite_statements"], 1) if "sqlite_statements" in idle else None,
        "stream_errors": len(result["stream_errors"]),
        "load_before": round(args.load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }
    print(
        f"live updates on {args.db}: {args.followers} task streams + {args.list_followers} list streams open\n"
        f"commit -> SSE event   p50 {p50:.1f} ms  p95 {p95:.1f} ms  max {top:.1f} ms  "
        f"({len(latencies)} of {args.rounds} rounds; missed {result['missed']})\n"
        f"idle API reads        {out['idle_reads_per_s']}/s over {args.idle_seconds:.0f} s "
        f"{out['idle_reads_per_s_by_method']}"
        + (
            f"; all SQLite statements {out['idle_sqlite_statements_per_s']}/s (PRAGMA data_version included)"
            if out["idle_sqlite_statements_per_s"] is not None
            else ""
        )
        + f"\n1-min load average {out['load_before']} before, {out['load_after']} after"
    )
    for sample in result["stream_errors"][:5]:
        print(f"  stream error: {sample}")
    print(json.dumps(out), flush=True)
    return 1 if result["missed"] or result["stream_errors"] else 0


# --- report -----------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def report(stats: Stats, elapsed: float, statuses: dict[str, int], args: argparse.Namespace) -> tuple[str, dict]:  # type: ignore[type-arg]
    kinds = ["submit", "status", "sse_first", "sse_total", "result"]
    lines = [
        f"{args.clients} clients for {args.duration:.0f} s (+ drain) against ocrqueue serve on PostgreSQL, "
        f"{args.worker_processes} worker process(es) x {args.slots} slots",
        f"{'kind':<10} {'requests':>8} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>6}",
    ]
    out: dict[str, object] = {"clients": args.clients, "duration_s": args.duration, "elapsed_s": round(elapsed, 1)}
    total = 0
    for kind in kinds:
        values = stats.latencies.get(kind, [])
        total += len(values) if kind != "sse_total" else 0
        p50, p99 = percentile(values, 50) * 1000, percentile(values, 99) * 1000
        top = max(values) * 1000 if values else float("nan")
        lines.append(
            f"{kind:<10} {len(values):>8} {len(values) / elapsed:>7.1f} {p50:>8.1f} {p99:>8.1f} {top:>8.1f} "
            f"{stats.errors.get(kind, 0):>6}"
        )
        out[f"{kind}_count"] = len(values)
        out[f"{kind}_p50_ms"] = round(p50, 1)
        out[f"{kind}_p99_ms"] = round(p99, 1)
        out[f"{kind}_errors"] = stats.errors.get(kind, 0)
    errors = sum(stats.errors.values())
    completed = statuses.get("completed", 0)
    lag = stats.latencies.get("client_lag", [])
    lag_p50, lag_p99 = percentile(lag, 50) * 1000, percentile(lag, 99) * 1000
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu = cpu.ru_utime + cpu.ru_stime
    load_after = os.getloadavg()[0]
    lines.append(f"all requests: {total / elapsed:.1f}/s; errors: {errors}")
    lines.append(f"tasks submitted: {len(stats.submitted)}; completed: {completed}; statuses: {statuses}")
    lines.append(
        f"load generator: {client_cpu:.1f} s CPU; event loop lag (part of every latency above) "
        f"p50 {lag_p50:.1f} ms, p99 {lag_p99:.1f} ms; 1-min load average {args.load_before:.1f} before, "
        f"{load_after:.1f} after"
    )
    lines += [f"  error: {sample}" for sample in stats.error_samples]
    out.update(
        {
            "requests_per_s": round(total / elapsed, 1),
            "errors": errors,
            "tasks_submitted": len(stats.submitted),
            "tasks_completed": completed,
            "tasks_per_s": round(completed / elapsed, 2),
            "statuses": statuses,
            "p99_target_ms": args.p99_target_ms,
            "client_cpu_s": round(client_cpu, 1),
            "client_lag_p50_ms": round(lag_p50, 1),
            "client_lag_p99_ms": round(lag_p99, 1),
            "load_before": round(args.load_before, 2),
            "load_after": round(load_after, 2),
        }
    )
    return "\n".join(lines), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0, help="Seconds of submitting.")
    parser.add_argument("--drain-timeout", type=float, default=120.0, help="Seconds to let tasks finish after.")
    parser.add_argument("--poll-interval", type=float, default=0.25)
    parser.add_argument("--worker-processes", type=int, default=2)
    parser.add_argument("--slots", type=int, default=1, help="Task slots per worker process.")
    parser.add_argument("--admin-url", default=None, help="A PostgreSQL admin URL (loopback); a database is created.")
    parser.add_argument("--p99-target-ms", type=float, default=100.0, help="p99 status latency target.")
    parser.add_argument("--quick", action="store_true", help="10 clients for 8 s: a smoke run under 30 s.")
    live = parser.add_argument_group("live updates (--live)")
    live.add_argument("--live", action="store_true", help="Measure commit-to-event latency and idle reads instead.")
    live.add_argument("--db", choices=("sqlite", "postgresql"), default="postgresql")
    live.add_argument("--followers", type=int, default=20, help="Task event streams held open.")
    live.add_argument("--list-followers", type=int, default=2, help="Task-list event streams held open.")
    live.add_argument("--idle-seconds", type=float, default=10.0)
    live.add_argument("--rounds", type=int, default=200, help="Progress commits timed to their event.")
    live.add_argument("--round-seconds", type=float, default=0.05, help="Mean pause between commits.")
    live.add_argument("--serve-counted", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_counted:
        serve_counted(args.serve_counted)
        return 0
    if args.live:
        if args.quick:
            args.followers, args.idle_seconds, args.rounds = 5, 3.0, 40
        return run_live(args)
    if args.quick:
        args.clients, args.duration, args.drain_timeout = 10, 8.0, 15.0
        args.worker_processes = 1
    if args.admin_url:
        host = str(psycopg.conninfo.conninfo_to_dict(args.admin_url).get("host") or "")
        if host not in ("127.0.0.1", "localhost", "::1", "") and not host.startswith("/"):
            parser.error("--admin-url must point at a loopback address")
    workdir = Path(tempfile.mkdtemp(prefix="ocrq-load-"))
    try:
        with postgres_admin(args.admin_url) as admin, fresh_database(admin) as db_url:
            env = {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}
            env["OCRQUEUE_DATABASE_URL"] = db_url
            subprocess.run(
                [sys.executable, "-m", "ocrqueue", "db", "upgrade"], env=env, check=True, capture_output=True
            )
            args.load_before = os.getloadavg()[0]
            service = start_service(db_url, workdir, args.worker_processes, args.slots)
            try:
                with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                    stats, elapsed, statuses = runner.run(drive(("127.0.0.1", service.port), args))
            finally:
                service.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    table, out = report(stats, elapsed, statuses, args)
    print(table)
    print(json.dumps(out), flush=True)
    failed = (
        out["errors"]
        or out["tasks_completed"] != out["tasks_submitted"]
        or not out["tasks_submitted"]
        or (out["status_p99_ms"] > args.p99_target_ms)
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
