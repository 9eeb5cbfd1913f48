"""Shared start-up for commands: settings, logging, migrations, the store and the task kinds."""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable
from types import FrameType

import click
from prometheus_client import REGISTRY, start_http_server
from rich.logging import RichHandler

from ocrqueue.queue import Registry, Store, Worker, open_store
from ocrqueue.queue.metrics import QueueDepthCollector
from ocrqueue.queue.supervisor import Supervisor
from ocrqueue.service.kinds import build_registry, crash_messages
from ocrqueue.service.schema import upgrade_all
from ocrqueue.settings import Settings
from ocrqueue.storage import Storage
from ocrqueue.storage.s3 import open_storage_url


def configure_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(name)s: %(message)s",
        handlers=[RichHandler(show_path=False, rich_tracebacks=True)],
        force=True,
    )
    logging.getLogger("alembic").setLevel(logging.WARNING)


def prepare_database(settings: Settings) -> str:
    """Create the data directory and bring the schema up to date when auto_migrate is on."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    url = settings.resolved_database_url
    if settings.auto_migrate:
        upgrade_all(url)
    return url


def open_configured_store(settings: Settings) -> Store:
    """The store for `settings`, closed when the running command ends."""
    store = open_store(
        prepare_database(settings),
        pool_size=settings.worker_concurrency + 4,
        default_max_attempts=settings.max_attempts,
    )
    command = click.get_current_context(silent=True)
    if command is not None:
        command.call_on_close(store.close)
    return store


def open_storage(settings: Settings) -> Storage:
    """S3-compatible storage when storage_url is set, else the storage directory."""
    return open_storage_url(settings.storage_url, settings.resolved_storage_dir)


def task_registry(settings: Settings) -> Registry:
    """Every task kind this installation can run."""
    return build_registry(open_storage(settings), settings.document_limits(), settings.vlm_config())


def serve_metrics(settings: Settings, store: Store) -> None:
    """Expose the process's metrics and the queue depth for Prometheus when a port is configured."""
    if settings.metrics_port is None:
        return
    REGISTRY.register(QueueDepthCollector(store))
    start_http_server(settings.metrics_port)
    logging.getLogger("ocrqueue").info("metrics on :%d/metrics", settings.metrics_port)


def worker_command(concurrency: int, kinds: list[str], verbose: bool) -> Callable[[str], list[str]]:
    """The command line of one supervised `ocrqueue worker` child with the given worker id."""

    def command(worker_id: str) -> list[str]:
        args = [sys.executable, "-m", "ocrqueue", "worker", "--processes", "0", "--worker-id", worker_id]
        args += ["--concurrency", str(concurrency), *(f"--kind={kind}" for kind in kinds)]
        return [*args, "--verbose"] if verbose else args

    return command


def supervisor(settings: Settings, processes: int, concurrency: int, kinds: list[str], verbose: bool) -> Supervisor:
    """Worker processes under this one, each replaced when it exits or dies (see queue/supervisor.py)."""
    return Supervisor(
        open_configured_store(settings),
        worker_command(concurrency, kinds, verbose),
        processes,
        crash_messages=crash_messages(),
        backoff_base_seconds=settings.backoff_base_seconds,
        backoff_cap_seconds=settings.backoff_cap_seconds,
        stop_timeout=settings.shutdown_grace_seconds + 20,
    )


def supervise_until_signalled(running: Supervisor) -> None:
    """SIGTERM/SIGINT stop the supervisor, which stops its children gracefully."""

    def handle(signum: int, frame: FrameType | None) -> None:
        logging.getLogger("ocrqueue").info("%s received: stopping worker processes", signal.Signals(signum).name)
        running.stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    thread = running.start()
    while thread.is_alive():
        thread.join(timeout=0.5)


def run_workers_until_signalled(workers: list[Worker]) -> None:
    """First SIGTERM/SIGINT: graceful stop. A second one: release running tasks at once."""
    signals_seen = 0

    def handle(signum: int, frame: FrameType | None) -> None:
        nonlocal signals_seen
        signals_seen += 1
        logging.getLogger("ocrqueue").info(
            "%s received: %s", signal.Signals(signum).name, "stopping" if signals_seen == 1 else "releasing now"
        )
        for worker in workers:
            worker.stop(release_now=signals_seen > 1)

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    threads = [worker.start() for worker in workers]
    for thread in threads:
        while thread.is_alive():
            thread.join(timeout=0.5)
