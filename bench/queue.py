#!/usr/bin/env python
"""Throughput and latency of the durable task queue, measured against a bare-SQL reference.

    python bench/queue.py --db postgresql://postgres@127.0.0.1:5432/ocrq_bench \
        --jobs 20000 --concurrency 4 --processes 2
    python bench/queue.py --db sqlite:////tmp/ocrq-bench.db --jobs 20000 --concurrency 4 --processes 1
    python bench/queue.py --quick          # smoke run, well under 30 s

Phases (each on freshly emptied tables):
  enqueue      `store.submit` one task at a time, then `store.submit_many` in batches of 500.
  drain        N no-op tasks are bulk-enqueued (not timed), P spawned processes each start a real
               `Worker` (concurrency C, heartbeats and fencing on) and report ready; then the clock
               starts and the first claim is let through. Drain time is measured on the database
               clock: max(finished_at) minus the database's now() just before the start signal.
               The longest pause is reported too: the longest time with no task committed (DB
               clock) and with no handler starting (wall clock), so a stall cannot hide in a rate.
  pickup       With the same workers idle, this process submits 200 tasks at 50/s; each task's
               latency is its started_at minus the database clock read just before its submit
               (so a worker must be woken by LISTEN/NOTIFY or SQLite's data_version watcher).
  reference    The library's own claim and complete SQL (imported from the driver modules, so it
               stays in step) in a bare loop: P processes x C threads, one connection each,
               claim 1 + complete 1, no Worker runtime. The ratio drain/reference is the cost
               of the library around its statements.

The benchmark DROPS the ocrq_* tables of the PostgreSQL database (which it creates if missing) or
deletes the SQLite file it is given. It refuses unless the database or file name contains "bench"
(or --force is passed). The last line of output is one JSON object.
"""

from __future__ import annotations

import os
import sys

# This file is called queue.py: keep its directory off sys.path so `import queue` (the standard
# library module that multiprocessing and the worker runtime use) does not import this script.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import contextlib  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import multiprocessing as mp  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import urlsplit, urlunsplit  # noqa: E402

try:
    import ocrqueue  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "src"))

from ocrqueue.queue.urls import DatabaseURL, parse_database_url  # noqa: E402

DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/ocrq_bench"
TABLES = ("ocrq_events", "ocrq_checkpoints", "ocrq_tasks", "ocrq_workers")
BULK_BATCH = 500
KIND = "noop"

TARGETS = {
    # backend: (drain tasks/s at least, pickup p50 ms below)
    "postgresql": (3000.0, 5.0),
    "sqlite": (10000.0, 50.0),
}


# --------------------------------------------------------------------------------------------
# database administration done by the benchmark itself (not through the library)
# --------------------------------------------------------------------------------------------
class Admin:
    """A direct connection for resetting tables, counting and reading timestamps."""

    def __init__(self, url: DatabaseURL) -> None:
        self.url = url
        self.backend = url.backend
        if self.backend == "postgresql":
            import psycopg

            self.conn: Any = psycopg.connect(url.libpq, autocommit=True)
        else:
            import sqlite3

            self.conn = sqlite3.connect(str(url.sqlite_path), timeout=30.0, isolation_level=None)

    def scalar(self, statement: str, params: Any = None) -> Any:
        row = self.conn.execute(statement, params or ()).fetchone()
        return row[0] if row else None

    def reset(self) -> None:
        if self.backend == "postgresql":
            self.conn.execute(f"TRUNCATE {', '.join(TABLES)}")
        else:
            for table in TABLES:
                self.conn.execute(f"DELETE FROM {table}")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def settle(self) -> None:
        """What autovacuum would do on a long-lived table, so runs are repeatable."""
        if self.backend == "postgresql":
            self.conn.execute("VACUUM ANALYZE ocrq_tasks")
            self.conn.execute("VACUUM ANALYZE ocrq_events")
        else:
            self.conn.execute("ANALYZE")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def db_now(self) -> float:
        if self.backend == "postgresql":
            return float(self.scalar("SELECT extract(epoch FROM clock_timestamp())::float8"))
        return float(self.scalar("SELECT (julianday('now') - 2440587.5) * 86400.0"))

    def count(self, status: str) -> int:
        placeholder = "%s" if self.backend == "postgresql" else "?"
        return int(self.scalar(f"SELECT count(*) FROM ocrq_tasks WHERE status = {placeholder}", (status,)))

    def longest_completion_gap(self, since: float) -> float:
        """Longest time, in seconds on the DB clock, with no task completing: from `since` (the start
        signal) to the first completion, and between any two consecutive completions. A stall in
        the middle of a drain cannot hide in its average rate."""
        column = "extract(epoch FROM finished_at)::float8" if self.backend == "postgresql" else "finished_at"
        rows = self.conn.execute(
            f"SELECT {column} FROM ocrq_tasks WHERE status = 'completed' ORDER BY finished_at"
        ).fetchall()
        times = [since, *(float(r[0]) for r in rows)]
        return max((b - a for a, b in itertools.pairwise(times)), default=float("nan"))

    def last_finished(self) -> float:
        if self.backend == "postgresql":
            return float(self.scalar("SELECT extract(epoch FROM max(finished_at))::float8 FROM ocrq_tasks"))
        return float(self.scalar("SELECT max(finished_at) FROM ocrq_tasks"))

    def per_statement(self, event_type: str) -> float:
        """Tasks per statement of one kind, from the history: one statement writes one `at` per worker.

        PostgreSQL only: SQLite's clock has millisecond resolution, so statements would merge.
        """
        if self.backend != "postgresql":
            return float("nan")
        placeholder = "%s" if self.backend == "postgresql" else "?"
        rows, statements = self.conn.execute(
            f"SELECT count(*), count(DISTINCT worker_id || '@' || at) FROM ocrq_events WHERE type = {placeholder}",
            (event_type,),
        ).fetchone()
        return rows / statements if statements else float("nan")

    def backend_pids(self) -> list[int]:
        """PostgreSQL server processes serving this database, except this admin connection."""
        if self.backend != "postgresql":
            return []
        rows = self.conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        return [int(r[0]) for r in rows]

    def server_version(self) -> str:
        if self.backend == "postgresql":
            return "PostgreSQL " + str(self.scalar("SHOW server_version")).split()[0]
        import sqlite3

        return "SQLite " + sqlite3.sqlite_version

    def close(self) -> None:
        self.conn.close()


def source_revision() -> dict[str, Any]:
    """Which queue code was measured: git HEAD, whether queue/ has local changes, a content hash."""
    import hashlib
    import subprocess

    import ocrqueue.queue as queue_pkg

    root = Path(queue_pkg.__file__).parent
    digest = hashlib.sha1()
    for file in sorted(root.rglob("*.py")):
        digest.update(file.relative_to(root).as_posix().encode())
        digest.update(file.read_bytes())
    info: dict[str, Any] = {"queue_src_sha1": digest.hexdigest()[:12], "queue_src_path": str(root)}

    def git(*argv: str) -> str | None:
        try:
            return subprocess.run(
                ["git", *argv], cwd=root, capture_output=True, text=True, timeout=10, check=True
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    head = git("rev-parse", "--short", "HEAD")
    if head:
        info["git_head"] = head
        info["queue_src_dirty"] = bool(git("status", "--porcelain", "--", "."))
    return info


def prepare_database(url: DatabaseURL, force: bool) -> None:
    """Create the PostgreSQL database if needed, drop our tables (or the SQLite file), migrate."""
    from ocrqueue.queue.migrate import upgrade

    if url.backend == "postgresql":
        import psycopg

        parts = urlsplit(url.libpq)
        dbname = parts.path.lstrip("/") or "postgres"
        if not force and "bench" not in dbname:
            raise SystemExit(f"refusing to drop the ocrq_* tables of database {dbname!r}: use a *bench* one or --force")
        maintenance = urlunsplit((parts.scheme, parts.netloc, "/postgres", parts.query, parts.fragment))
        with psycopg.connect(maintenance, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone() is None:
                conn.execute(f'CREATE DATABASE "{dbname}"')
        with psycopg.connect(url.libpq, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {', '.join(TABLES)}, ocrq_follows, ocrq_schema_version CASCADE")
            conn.execute("DROP FUNCTION IF EXISTS ocrq_notify_task_changes()")
    else:
        path = url.sqlite_path
        assert path is not None
        if not force and "bench" not in path.name:
            raise SystemExit(f"refusing to delete {path}: use a file named *bench* or --force")
        for suffix in ("", "-wal", "-shm", ".migrate.lock"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")
    upgrade(url.raw)


# --------------------------------------------------------------------------------------------
# child processes (spawned: everything they need is passed as plain arguments)
# --------------------------------------------------------------------------------------------
def _child_logging() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(processName)s %(levelname)s %(name)s: %(message)s")


def worker_process(
    db: str,
    concurrency: int,
    config: dict[str, float],
    ready: Any,
    go: Any,
    drained: Any,
    stop: Any,
    results: Any,
) -> None:
    """One real Worker. Registers and starts its threads, reports ready, claims only after `go`.

    The store's `claim` and `complete_many` are wrapped to time each call until `drained` is set,
    so the report can say how long the claim loop spends waiting on its statement.
    """
    _child_logging()
    from prometheus_client import REGISTRY

    from ocrqueue.queue.config import QueueConfig
    from ocrqueue.queue.context import TaskContext
    from ocrqueue.queue.drivers import open_store
    from ocrqueue.queue.registry import Registry
    from ocrqueue.queue.worker import Worker

    handled: list[float] = []

    def stamped_noop(ctx: TaskContext) -> None:
        """A no-op that notes when it ran (wall clock), to find the longest pause between tasks."""
        handled.append(time.time())

    store = open_store(db, pool_size=max(8, concurrency + 3))
    pool = getattr(store, "_pool", None)
    if pool is not None:  # open the connections the run will use now, not inside the timed window
        pool.resize(min_size=concurrency + 3)
        pool.wait(timeout=30)

    # Hold the first claim until the start signal: registration, recovery and thread start-up
    # happen before the clock starts; afterwards the check is one local boolean.
    real_claim = store.claim
    gate = {"open": False}

    multiplier = int(config.pop("claim_multiplier", 1))

    def gated_claim(worker_id: str, limit: int, *args: Any, **kwargs: Any) -> Any:
        if not gate["open"]:
            go.wait()
            gate["open"] = True
        # --claim-multiplier (an experiment, not the library's behaviour): ask for K times the
        # free slots; the surplus waits in the worker's inbox, leased, like a prefetch would.
        return real_claim(worker_id, limit * multiplier, *args, **kwargs)

    calls: dict[str, list[float]] = {"claim": [0, 0, 0.0], "complete_many": [0, 0, 0.0]}  # calls, rows, seconds

    def timed(name: str, method: Callable[..., Any], rows: Callable[[Any, Any], int]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            value = method(*args, **kwargs)
            if not drained.is_set():
                entry = calls[name]
                entry[0] += 1
                entry[1] += rows(args, value)
                entry[2] += time.perf_counter() - started
            return value

        return call

    store.claim = timed("claim", gated_claim, lambda _a, v: len(v))  # type: ignore[method-assign]
    store.complete_many = timed(  # type: ignore[method-assign]
        "complete_many", store.complete_many, lambda a, _v: len(a[0])
    )
    registry = Registry()
    registry.register(KIND, stamped_noop)
    worker = Worker(store, registry, QueueConfig(concurrency=concurrency, **config))
    worker.start()
    ready.put(os.getpid())
    stop.wait()
    worker.stop()
    clean = worker.wait_stopped(timeout=30)
    sample = REGISTRY.get_sample_value
    results.put(
        {
            "pid": os.getpid(),
            "worker_id": worker.worker_id,
            "stopped_cleanly": clean,
            "claims": sample("ocrqueue_claims_total", {"kind": KIND}) or 0,
            "empty_claims": sample("ocrqueue_empty_claims_total") or 0,
            "lease_losses": sample("ocrqueue_lease_losses_total", {"kind": KIND}) or 0,
            "drain_calls": calls,
            "handled_at": handled,
        }
    )
    store.close()


def reference_process(db: str, threads: int, batch: int, ready: Any, go: Any, stop: Any, results: Any) -> None:
    """The driver's claim and complete statements in a bare loop: `threads` connections, no Worker.

    Each loop claims up to `batch` tasks per statement and completes them together (PostgreSQL:
    one COMPLETE_MANY; SQLite: one transaction of COMPLETE + event per task, as the driver does).
    """
    _child_logging()
    url = parse_database_url(db)
    worker_id = f"reference:{os.getpid()}"
    lease = 20.0
    loops: list[Callable[[], int]] = []
    opened: list[Any] = []  # closed only after `stop`, so the parent can read the servers' CPU time

    if url.backend == "postgresql":
        import psycopg

        from ocrqueue.queue.drivers import postgres_sql as pg_sql

        def make_pg_loop() -> Callable[[], int]:
            conn = psycopg.connect(url.libpq, autocommit=True)
            opened.append(conn)
            cur = conn.cursor()
            claim_params = {"worker_id": worker_id, "limit": batch, "lease": lease, "kinds": [KIND]}

            def loop() -> int:
                done = 0
                while True:
                    rows = cur.execute(pg_sql.CLAIM_KINDS, claim_params).fetchall()
                    if not rows:
                        if cur.execute("SELECT 1 FROM ocrq_tasks WHERE status = 'pending' LIMIT 1").fetchone():
                            continue
                        return done
                    cur.execute(
                        pg_sql.COMPLETE_MANY,
                        {"ids": [r[0] for r in rows], "tokens": [r[9] for r in rows], "results": ["null"] * len(rows)},
                    )
                    done += len(rows)

            return loop

        loops = [make_pg_loop() for _ in range(threads)]
    else:
        import sqlite3

        from ocrqueue.queue.drivers import sqlite_sql as lite_sql

        def make_sqlite_loop() -> Callable[[], int]:
            conn = sqlite3.connect(str(url.sqlite_path), timeout=30.0, isolation_level=None, check_same_thread=False)
            opened.append(conn)
            for pragma in lite_sql.PRAGMAS:
                conn.execute(pragma)
            claim_params = {"worker_id": worker_id, "limit": batch, "lease": lease, "kinds": json.dumps([KIND])}

            def event(type_: str, row: Any, attempts: int, token: int) -> None:
                conn.execute(
                    lite_sql.EVENT,
                    {
                        "task_id": row,
                        "type": type_,
                        "attempt": attempts,
                        "lease_token": token,
                        "worker_id": worker_id,
                        "detail": "{}",
                    },
                )

            # Follow whichever statements the driver has: the set-based ones (one statement for
            # all rows: COMPLETE_MANY, CLAIMED_EVENTS, FINISHED_EVENTS) or one statement per row.
            set_based = all(hasattr(lite_sql, n) for n in ("COMPLETE_MANY", "CLAIMED_EVENTS", "FINISHED_EVENTS"))

            def claimed_events(rows: list[Any]) -> None:
                if set_based:
                    conn.execute(lite_sql.CLAIMED_EVENTS, {"ids": json.dumps([r[0] for r in rows])})
                else:
                    for r in rows:
                        event("claimed", r[0], r[7], r[9])

            def complete(rows: list[Any]) -> int:
                if set_based:
                    items = json.dumps([[r[0], r[9], "null"] for r in rows])
                    finished = conn.execute(lite_sql.COMPLETE_MANY, {"items": items}).fetchall()
                    conn.execute(lite_sql.FINISHED_EVENTS, {"ids": json.dumps([f[0] for f in finished])})
                    return len(finished)
                for r in rows:
                    fin = conn.execute(lite_sql.COMPLETE, {"id": r[0], "token": r[9], "result": "null"}).fetchone()
                    event(fin[1], fin[0], fin[2], fin[3])
                return len(rows)

            def loop() -> int:
                done = 0
                while True:
                    conn.execute("BEGIN IMMEDIATE")
                    rows = conn.execute(lite_sql.CLAIM_KINDS, claim_params).fetchall()
                    if rows:
                        claimed_events(rows)
                    conn.execute("COMMIT")
                    if not rows:
                        if conn.execute("SELECT 1 FROM ocrq_tasks WHERE status = 'pending' LIMIT 1").fetchone():
                            continue
                        return done
                    conn.execute("BEGIN IMMEDIATE")
                    done += complete(rows)
                    conn.execute("COMMIT")

            return loop

        loops = [make_sqlite_loop() for _ in range(threads)]

    counts: list[int] = []

    def run(loop: Callable[[], int]) -> None:
        go.wait()
        counts.append(loop())

    pool = [threading.Thread(target=run, args=(loop,)) for loop in loops]
    for t in pool:
        t.start()
    ready.put(os.getpid())
    for t in pool:
        t.join()
    stop.wait()
    for conn in opened:
        conn.close()
    results.put({"pid": os.getpid(), "completed": sum(counts)})


# --------------------------------------------------------------------------------------------
# phases
# --------------------------------------------------------------------------------------------
def bulk_enqueue(store: Any, n: int) -> float:
    from ocrqueue.queue.models import TaskSpec

    started = time.perf_counter()
    for offset in range(0, n, BULK_BATCH):
        store.submit_many([TaskSpec(kind=KIND) for _ in range(min(BULK_BATCH, n - offset))])
    return time.perf_counter() - started


def single_enqueue(store: Any, n: int) -> float:
    from ocrqueue.queue.models import TaskSpec

    started = time.perf_counter()
    for _ in range(n):
        store.submit(TaskSpec(kind=KIND))
    return time.perf_counter() - started


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, to show how loaded it was during a phase."""
    try:
        with open("/proc/stat") as f:
            fields = [float(x) for x in f.readline().split()[1:]]
    except OSError:
        return (0.0, 0.0)
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    return (sum(fields) - idle, sum(fields))


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process (0 when it is gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (float(fields[11]) + float(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy_since(before: tuple[float, float]) -> float:
    after = cpu_times()
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else float("nan")


def wait_for(predicate: Callable[[], bool], timeout: float, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


class ProcessGroup:
    """P spawned processes with a ready handshake, a start event and a clean stop."""

    def __init__(self, ctx: Any, target: Callable[..., None], args_for: Callable[..., tuple[Any, ...]], n: int) -> None:
        self.ready = ctx.Queue()
        self.results = ctx.Queue()
        self.go = ctx.Event()
        self.drained = ctx.Event()
        self.stop = ctx.Event()
        self.cpu_busy = float("nan")
        self.client_cpu_seconds = float("nan")
        self.server_cpu_seconds = float("nan")
        self.db_start = float("nan")
        self.wall_window = (float("nan"), float("nan"))
        self.procs = [
            ctx.Process(target=target, args=args_for(self), name=f"bench-{target.__name__}-{i}", daemon=True)
            for i in range(n)
        ]

    def start(self, timeout: float = 120.0) -> None:
        for p in self.procs:
            p.start()
        for _ in self.procs:
            self.ready.get(timeout=timeout)

    def finish(self, timeout: float = 60.0) -> list[dict[str, Any]]:
        self.stop.set()
        self.go.set()
        out: list[dict[str, Any]] = []
        with contextlib.suppress(Exception):
            for _ in self.procs:
                out.append(self.results.get(timeout=timeout))
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():  # only ever our own children, by handle
                p.terminate()
                p.join(timeout=5)
        return out


def timed_drain(admin: Admin, group: ProcessGroup, n: int, timeout: float) -> tuple[float, float, bool]:
    """Start signal, then wait until the database shows all n completed. Returns (db s, wall s, ok)."""
    clients = [proc.pid for proc in group.procs if proc.pid is not None]
    servers = admin.backend_pids()
    client_cpu = sum(process_cpu_seconds(pid) for pid in clients)
    server_cpu = sum(process_cpu_seconds(pid) for pid in servers)
    cpu = cpu_times()
    db_start = admin.db_now()
    wall_start = time.perf_counter()
    epoch_start = time.time()
    group.go.set()
    ok = wait_for(lambda: admin.count("completed") >= n, timeout, interval=0.05)
    group.drained.set()
    group.db_start = db_start
    group.wall_window = (epoch_start, time.time())
    wall = time.perf_counter() - wall_start
    group.cpu_busy = busy_since(cpu)
    group.client_cpu_seconds = sum(process_cpu_seconds(pid) for pid in clients) - client_cpu
    group.server_cpu_seconds = sum(process_cpu_seconds(pid) for pid in servers) - server_cpu
    db_seconds = admin.last_finished() - db_start if ok else float("nan")
    return db_seconds, wall, ok


def longest_handler_gap(stats: list[dict[str, Any]], window: tuple[float, float]) -> float:
    """Longest wall-clock pause between two handler runs (any worker) inside the drain window."""
    start, end = window
    times = sorted(t for s in stats for t in s.get("handled_at", []) if start <= t <= end)
    times = [start, *times]
    return max((b - a for a, b in itertools.pairwise(times)), default=float("nan"))


def pickup_latency(store: Any, admin: Admin, count: int, rate: float, timeout: float) -> dict[str, Any]:
    """Submit `count` tasks at `rate`/s; latency = started_at - DB clock just before the submit."""
    from ocrqueue.queue.models import TaskSpec

    issued: list[tuple[str, float]] = []
    already = admin.count("completed")
    start = time.perf_counter()
    for i in range(count):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        before = store.now()
        issued.append((store.submit(TaskSpec(kind=KIND)).task.id, before))
    wait_for(lambda: admin.count("completed") >= already + count, timeout)
    from_now: list[float] = []
    from_created: list[float] = []
    missing = 0
    for task_id, before in issued:
        task = store.get(task_id)
        if task is None or task.started_at is None:
            missing += 1
            continue
        from_now.append((task.started_at.timestamp() - before) * 1000)
        from_created.append((task.started_at.timestamp() - task.created_at.timestamp()) * 1000)
    return {
        "p50": percentile(from_now, 50),
        "p95": percentile(from_now, 95),
        "max": max(from_now) if from_now else float("nan"),
        "created_p50": percentile(from_created, 50),
        "created_p95": percentile(from_created, 95),
        "missing": missing,
    }


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


@contextlib.contextmanager
def phase(name: str, quiet: bool) -> Iterator[None]:
    started = time.perf_counter()
    if not quiet:
        print(f"… {name}", file=sys.stderr, flush=True)
    yield
    if not quiet:
        print(f"  {name} took {time.perf_counter() - started:.1f}s", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default=DEFAULT_DB, help=f"database URL (default {DEFAULT_DB})")
    ap.add_argument("--jobs", type=int, default=20000, help="tasks to drain (N)")
    ap.add_argument("--concurrency", type=int, default=4, help="task slots per worker process (C)")
    ap.add_argument("--processes", type=int, default=1, help="worker processes (P)")
    ap.add_argument("--single-jobs", type=int, default=2000, help="one-by-one submits (at most --jobs)")
    ap.add_argument("--pickup-tasks", type=int, default=200)
    ap.add_argument("--pickup-rate", type=float, default=50.0, help="pickup submits per second")
    ap.add_argument("--poll-seconds", type=float, default=0.25, help="worker idle poll (library default 1)")
    ap.add_argument("--heartbeat-seconds", type=float, default=5.0)
    ap.add_argument("--lease-seconds", type=float, default=20.0)
    ap.add_argument(
        "--claim-multiplier",
        type=int,
        default=1,
        help="experiment: each claim asks for K x the free slots (estimates a prefetch; not the library's behaviour)",
    )
    ap.add_argument(
        "--phases",
        default="enqueue,drain,pickup,reference",
        help="comma-separated subset of enqueue,drain,pickup,reference",
    )
    ap.add_argument("--quick", action="store_true", help="small smoke run (< 30 s)")
    ap.add_argument("--force", action="store_true", help="reset a database whose name lacks 'bench'")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = ap.parse_args(argv)
    if args.quick:
        args.jobs = min(args.jobs, 500)
        args.single_jobs = min(args.single_jobs, 100)
        args.pickup_tasks = min(args.pickup_tasks, 25)
    args.single_jobs = min(args.single_jobs, args.jobs)
    unknown = set(args.phases.split(",")) - {"enqueue", "drain", "pickup", "reference"}
    if unknown:
        ap.error(f"unknown phases {sorted(unknown)}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    phases = set(args.phases.split(","))
    url = parse_database_url(args.db)
    load_before = os.getloadavg()[0]
    prepare_database(url, args.force)

    from ocrqueue.queue.drivers import open_store

    ctx = mp.get_context("spawn")
    admin = Admin(url)
    store = open_store(args.db)
    n, c, p = args.jobs, args.concurrency, args.processes
    drain_timeout = max(60.0, n / 100)
    worker_config = {
        "poll_seconds": args.poll_seconds,
        "heartbeat_seconds": args.heartbeat_seconds,
        "lease_seconds": args.lease_seconds,
        "claim_multiplier": args.claim_multiplier,
    }
    nan = float("nan")
    out: dict[str, Any] = {
        "db": url.backend,
        "jobs": n,
        "concurrency": c,
        "processes": p,
        "enqueue_per_s": nan,
        "enqueue_bulk_per_s": nan,
        "drain_per_s": nan,
        "drain_max_gap_ms": nan,
        "drain_max_handler_gap_ms": nan,
        "pickup_p50_ms": nan,
        "pickup_p95_ms": nan,
        "reference_drain_per_s": nan,
    }
    notes: dict[str, Any] = {}

    try:
        if "enqueue" in phases:
            with phase("enqueue", args.quiet):
                admin.reset()
                single_s = single_enqueue(store, args.single_jobs)
                out["enqueue_per_s"] = args.single_jobs / single_s
                admin.reset()
                bulk_s = bulk_enqueue(store, n)
                out["enqueue_bulk_per_s"] = n / bulk_s

        if phases & {"drain", "pickup"}:
            group = ProcessGroup(
                ctx,
                worker_process,
                lambda g: (args.db, c, worker_config, g.ready, g.go, g.drained, g.stop, g.results),
                p,
            )
            try:
                if "drain" in phases:
                    with phase("drain", args.quiet):
                        admin.reset()
                        bulk_enqueue(store, n)
                        admin.settle()
                        group.start()
                        db_s, wall_s, ok = timed_drain(admin, group, n, drain_timeout)
                        notes["drain_ok"] = ok
                        notes["drain_seconds"] = db_s
                        notes["drain_wall_seconds"] = wall_s
                        out["drain_per_s"] = n / db_s if ok else nan
                        out["drain_max_gap_ms"] = 1000 * admin.longest_completion_gap(group.db_start) if ok else nan
                        out["drain_wall_per_s"] = n / wall_s if ok else nan
                        out["drain_machine_cpu_busy"] = group.cpu_busy
                        out["drain_client_cpu_ms_per_task"] = 1000 * group.client_cpu_seconds / n
                        out["drain_server_cpu_ms_per_task"] = 1000 * group.server_cpu_seconds / n
                        out["drain_tasks_per_claim"] = admin.per_statement("claimed")
                        out["drain_tasks_per_complete"] = admin.per_statement("completed")
                if "pickup" in phases:
                    with phase("pickup", args.quiet):
                        admin.settle()  # the drained tasks stay: TRUNCATE would block live workers
                        if "drain" not in phases:
                            group.start()
                            group.go.set()
                        time.sleep(max(0.5, 2 * args.poll_seconds))  # let the workers go idle
                        lat = pickup_latency(store, admin, args.pickup_tasks, args.pickup_rate, drain_timeout)
                        out["pickup_p50_ms"] = lat["p50"]
                        out["pickup_p95_ms"] = lat["p95"]
                        out["pickup_max_ms"] = lat["max"]
                        out["pickup_from_created_p50_ms"] = lat["created_p50"]
                        out["pickup_from_created_p95_ms"] = lat["created_p95"]
                        notes["pickup_missing"] = lat["missing"]
            finally:
                stats = group.finish()
            notes["workers"] = stats
            if "drain" in phases:
                out["drain_max_handler_gap_ms"] = 1000 * longest_handler_gap(stats, group.wall_window)
                for s in stats:
                    s.pop("handled_at", None)
            out["lease_losses"] = sum(s.get("lease_losses", 0) for s in stats)
            out["empty_claims"] = sum(s.get("empty_claims", 0) for s in stats)
            seconds = notes.get("drain_seconds")
            for name in ("claim", "complete_many"):
                n_calls = sum(s["drain_calls"][name][0] for s in stats if "drain_calls" in s)
                n_rows = sum(s["drain_calls"][name][1] for s in stats if "drain_calls" in s)
                busy = sum(s["drain_calls"][name][2] for s in stats if "drain_calls" in s)
                if n_calls and seconds:
                    out[f"drain_{name}_calls"] = n_calls
                    out[f"drain_{name}_mean_ms"] = 1000 * busy / n_calls
                    out[f"drain_{name}_rows_per_call"] = n_rows / n_calls
                    out[f"drain_{name}_busy_fraction"] = busy / (seconds * len(stats))

        if "reference" in phases:
            # (key, threads per process, tasks per claim): the plain loop, then one batched loop
            # per process claiming C at a time (what a worker with full batching could approach).
            for key, threads, batch in (("reference", c, 1), ("reference_batched", 1, c)):
                with phase(key, args.quiet):
                    admin.reset()
                    bulk_enqueue(store, n)
                    admin.settle()
                    ref = ProcessGroup(
                        ctx,
                        reference_process,
                        lambda g, t=threads, b=batch: (args.db, t, b, g.ready, g.go, g.stop, g.results),
                        p,
                    )
                    try:
                        ref.start()
                        db_s, wall_s, ok = timed_drain(admin, ref, n, drain_timeout)
                    finally:
                        ref.finish()
                    notes[f"{key}_seconds"] = db_s
                    out[f"{key}_max_gap_ms"] = 1000 * admin.longest_completion_gap(ref.db_start) if ok else nan
                    out[f"{key}_machine_cpu_busy"] = ref.cpu_busy
                    out[f"{key}_client_cpu_ms_per_task"] = 1000 * ref.client_cpu_seconds / n
                    out[f"{key}_server_cpu_ms_per_task"] = 1000 * ref.server_cpu_seconds / n
                    out[f"{key}_drain_per_s"] = n / db_s if ok else nan
        for ref_key, ratio_key in (
            ("reference_drain_per_s", "drain_vs_reference"),
            ("reference_batched_drain_per_s", "drain_vs_reference_batched"),
        ):
            ref_rate = out.get(ref_key, nan)
            if out["drain_per_s"] == out["drain_per_s"] and ref_rate == ref_rate:
                out[ratio_key] = out["drain_per_s"] / ref_rate
        server = admin.server_version()
    finally:
        store.close()
        admin.close()

    target_drain, target_p50 = TARGETS[url.backend]
    out.update(
        {
            "drain_target_per_s": target_drain,
            "pickup_p50_target_ms": target_p50,
            "drain_target_met": out["drain_per_s"] >= target_drain,
            "pickup_target_met": out["pickup_p50_ms"] < target_p50,
            "single_jobs": args.single_jobs,
            "pickup_tasks": args.pickup_tasks,
            "pickup_rate_per_s": args.pickup_rate,
            "poll_seconds": args.poll_seconds,
            "heartbeat_seconds": args.heartbeat_seconds,
            "lease_seconds": args.lease_seconds,
            "claim_multiplier": args.claim_multiplier,
            "quick": args.quick,
            "server": server,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1m_before": load_before,
            "load_avg_1m_after": os.getloadavg()[0],
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            **source_revision(),
        }
    )
    report(out, notes)
    return out


def _fmt(value: Any, unit: str = "") -> str:
    if isinstance(value, float):
        if value != value:
            return "—"
        return f"{value:,.0f}{unit}" if value >= 100 else f"{value:,.2f}{unit}"
    return f"{value}{unit}"


def _calls(out: dict[str, Any], name: str) -> str:
    if f"drain_{name}_calls" not in out:
        return "—"
    return (
        f"{out[f'drain_{name}_mean_ms']:.2f} ms, {out[f'drain_{name}_rows_per_call']:.2f}, "
        f"{out[f'drain_{name}_busy_fraction']:.0%}"
    )


def _cpu(out: dict[str, Any], key: str) -> str:
    client = out.get(f"{key}_client_cpu_ms_per_task", float("nan"))
    server = out.get(f"{key}_server_cpu_ms_per_task", float("nan"))
    if client != client:
        return "—"
    if out["db"] != "postgresql":
        return f"{client:.3f}"
    return f"{client:.3f} + {server:.3f} db"


def _pct(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:.0%}"


def report(out: dict[str, Any], notes: dict[str, Any]) -> None:
    ratio = out.get("drain_vs_reference")
    batched = out.get("drain_vs_reference_batched")
    rows = [
        ("enqueue, one submit per call", _fmt(out["enqueue_per_s"], "/s"), f"{out['single_jobs']} store.submit"),
        ("enqueue, submit_many", _fmt(out["enqueue_bulk_per_s"], "/s"), f"batches of {BULK_BATCH}"),
        (
            "drain (Worker runtime)",
            _fmt(out["drain_per_s"], "/s"),
            f"target ≥ {out['drain_target_per_s']:,.0f}/s; {_fmt(notes.get('drain_seconds', float('nan')))} s "
            "on the DB clock (first start signal to last finished_at); "
            f"wall {_fmt(out.get('drain_wall_per_s', float('nan')), '/s')}",
        ),
        (
            "drain: longest pause",
            f"{_fmt(out['drain_max_gap_ms'])} ms commits, {_fmt(out['drain_max_handler_gap_ms'])} ms handlers",
            "longest time with no task committed (DB clock, from the start signal), and with no handler "
            "starting (wall clock, all workers); bare loops: "
            f"{_fmt(out.get('reference_max_gap_ms', float('nan')))} / "
            f"{_fmt(out.get('reference_batched_max_gap_ms', float('nan')))} ms",
        ),
        (
            "drain, bare SQL reference",
            _fmt(out["reference_drain_per_s"], "/s"),
            "driver's CLAIM_KINDS + COMPLETE(_MANY), P x C connections, 1 task per claim",
        ),
        (
            "drain, bare SQL batched",
            _fmt(out.get("reference_batched_drain_per_s", float("nan")), "/s"),
            "same statements, P connections, C tasks per claim and per complete",
        ),
        (
            "library / reference, / batched",
            f"{ratio:.2f}, {batched:.2f}" if ratio and batched else (f"{ratio:.2f}" if ratio else "—"),
            "drain rate over each bare loop's rate; 1.00 = no overhead over the bare statements",
        ),
        (
            "pickup p50 / p95",
            f"{_fmt(out['pickup_p50_ms'])} / {_fmt(out['pickup_p95_ms'])} ms",
            f"target p50 < {out['pickup_p50_target_ms']:g} ms; started_at - DB now() read just before submit; "
            f"{out['pickup_tasks']} tasks at {out['pickup_rate_per_s']:g}/s",
        ),
        (
            "pickup from created_at p50 / p95",
            f"{_fmt(out.get('pickup_from_created_p50_ms', float('nan')))} / "
            f"{_fmt(out.get('pickup_from_created_p95_ms', float('nan')))} ms",
            "started_at - created_at (both DB clock; excludes the submit's own round trip)",
        ),
        (
            "tasks per claim / per complete",
            f"{_fmt(out.get('drain_tasks_per_claim', float('nan')))} / "
            f"{_fmt(out.get('drain_tasks_per_complete', float('nan')))}",
            "drain phase, from the event history (one statement = one now() per worker; PostgreSQL only)",
        ),
        (
            "claim calls: mean ms, tasks/call, busy",
            _calls(out, "claim"),
            "store.claim timed inside each worker during the drain; busy = share of the drain spent in it",
        ),
        (
            "complete_many calls: mean ms, tasks/call, busy",
            _calls(out, "complete_many"),
            "same for store.complete_many (the completer thread's batches)",
        ),
        (
            "CPU ms per task: drain",
            _cpu(out, "drain"),
            "worker processes + PostgreSQL server processes of this database, during the timed window",
        ),
        (
            "CPU ms per task: reference / batched",
            f"{_cpu(out, 'reference')}  |  {_cpu(out, 'reference_batched')}",
            "same, for the bare loops; 2 CPUs / total = the CPU-bound ceiling on this machine",
        ),
        (
            "machine CPU busy: drain / reference",
            f"{_pct(out.get('drain_machine_cpu_busy'))} / {_pct(out.get('reference_machine_cpu_busy'))}",
            f"all {out['cpus']} CPUs, every process (incl. the database and anything else running); "
            f"1-min load before the run {out['load_avg_1m_before']:.2f}",
        ),
    ]
    dirty = "+local changes" if out.get("queue_src_dirty") else ""
    title = (
        f"ocrqueue queue benchmark — {out['server']}, jobs={out['jobs']}, "
        f"concurrency={out['concurrency']}, processes={out['processes']}, {out['cpus']} CPUs, "
        f"queue code {out.get('git_head', '?')}{dirty} ({out['queue_src_sha1']})"
    )
    if out.get("claim_multiplier", 1) != 1:
        title += f", EXPERIMENT: claims ask for {out['claim_multiplier']} x the free slots"
    try:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title)
        table.add_column("measure")
        table.add_column("result", justify="right")
        table.add_column("how")
        for row in rows:
            table.add_row(*row)
        Console(width=160).print(table)
    except ImportError:
        print(title)
        for name, value, how in rows:
            print(f"  {name:34} {value:>18}  {how}")
    if out["load_avg_1m_before"] > 0.5 or out.get("drain_machine_cpu_busy", 0) > 0.97:
        print(
            f"note: the machine was busy (1-min load {out['load_avg_1m_before']:.2f} before the run); "
            "other processes compete for the same CPUs, so rates are lower bounds",
            file=sys.stderr,
        )
    workers = notes.get("workers") or []
    if workers and not all(w.get("stopped_cleanly") for w in workers):
        print("warning: a worker did not stop within 30 s", file=sys.stderr)
    if notes.get("drain_ok") is False:
        print("warning: the drain did not finish before the timeout", file=sys.stderr)
    sys.stdout.write(json.dumps({k: (None if isinstance(v, float) and v != v else v) for k, v in out.items()}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
