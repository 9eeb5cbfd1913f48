"""Bringing an installation up from its settings: database (migrated), storage, the task kinds,
workers and metrics. `ocrqueue serve`, `ocrqueue worker` and the other commands start through here."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from types import FrameType

from prometheus_client import start_http_server

from ocrqueue.documents import PipelineResources, keep_page_buffers
from ocrqueue.documents.engines.cpus import THREAD_LIMIT_VARIABLE, available_cpus, thread_share
from ocrqueue.queue import Registry, Store, Worker, open_store
from ocrqueue.queue.harness_kinds import TEST_KINDS
from ocrqueue.queue.recycle import REPLACE_EXIT_CODE
from ocrqueue.queue.supervisor import Supervisor, stop_with_parent
from ocrqueue.service.engines import configure_vlm, reporting_breaker
from ocrqueue.service.exposure import BOOTSTRAP_KEY_VARIABLE
from ocrqueue.service.kinds import build_registry, crash_messages
from ocrqueue.service.logs import LogFormat
from ocrqueue.service.metrics import MetricsRun, NodeMetrics
from ocrqueue.service.schema import upgrade_all
from ocrqueue.service.tasks import Tasks
from ocrqueue.service.webhooks import WebhookConfig
from ocrqueue.settings import Settings
from ocrqueue.storage import Storage
from ocrqueue.storage.s3 import open_storage_url

log = logging.getLogger("ocrqueue")
METRICS_PORT_VARIABLE = "OCRQUEUE_METRICS_PORT"

__all__ = [
    "REPLACE_EXIT_CODE",
    "TEST_KINDS",
    "MetricsRun",
    "NodeMetrics",
    "Supervisor",
    "Worker",
    "breaker_reports",
    "default_worker_processes",
    "keep_page_buffers",
    "kind_names",
    "new_worker",
    "open_configured_store",
    "open_storage",
    "open_tasks",
    "pipeline_resources",
    "prepare_database",
    "run_workers_until_signalled",
    "serve_metrics",
    "start_metrics_run",
    "stop_with_parent",
    "supervise_until_signalled",
    "supervisor",
    "task_registry",
]


def prepare_database(settings: Settings) -> str:
    """Create the data directory and bring the schema up to date when auto_migrate is on."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    url = settings.resolved_database_url
    if settings.auto_migrate:
        upgrade_all(url)
    return url


def open_configured_store(settings: Settings) -> Store:
    return open_store(
        prepare_database(settings),
        pool_size=settings.worker_concurrency + 4,
        default_max_attempts=settings.max_attempts,
    )


def open_storage(settings: Settings) -> Storage:
    """S3-compatible storage when storage_url is set, else the storage directory."""
    return open_storage_url(settings.storage_url, settings.resolved_storage_dir)


def open_tasks(settings: Settings) -> Tasks:
    """The service on the configured database and storage; the `vlm` engine is registered when a
    model server is configured, so submits may choose it. Close it when done."""
    configure_vlm(settings.vlm_config())
    return Tasks(open_configured_store(settings), open_storage(settings), settings)


def webhook_config(settings: Settings) -> WebhookConfig:
    return WebhookConfig(
        database_url=settings.resolved_database_url,
        timeout_seconds=settings.webhook_timeout_seconds,
        allow_private_networks=settings.webhook_allow_private_networks,
        max_attempts=settings.webhook_max_attempts,
        public_url=settings.public_url,
        sweep_seconds=settings.webhook_sweep_seconds,
    )


def task_registry(
    settings: Settings,
    storage: Storage | None = None,
    resources: PipelineResources | None = None,
    *,
    test_kinds: bool = False,
) -> Registry:
    """Every task kind this installation can run (with `test_kinds`, the test harness's too); OCR
    pages share `resources` when given."""
    return build_registry(
        storage or open_storage(settings),
        settings.document_limits(),
        settings.vlm_config(),
        webhook_config(settings),
        split_pages=settings.split_pages,
        test_kinds=test_kinds,
        resources=resources,
    )


@contextlib.contextmanager
def pipeline_resources() -> Iterator[PipelineResources]:
    """What the pages this process reads share (the layout model, loaded on the first page that
    needs it, and the layout threads), closed when the work stops: a worker process or `convert`."""
    with PipelineResources() as resources:
        yield resources


@contextlib.contextmanager
def webhook_outbox(settings: Settings, store: Store) -> Iterator[None]:
    """While workers run, ended tasks with a callback get their webhook task (see service/webhooks.py)."""
    outbox = webhook_config(settings).outbox(store)
    outbox.start()
    try:
        yield
    finally:
        outbox.stop()


@contextlib.contextmanager
def breaker_reports(settings: Settings, store: Store, worker_id: str) -> Iterator[None]:
    """While workers run, this process's model-server breaker changes are written to the database,
    for /readyz of any API node (see service/breaker_reports.py)."""
    with reporting_breaker(settings.vlm_config(), settings.resolved_database_url, store.now, f"worker {worker_id}"):
        yield


def kind_names(settings: Settings, *, test_kinds: bool = False) -> list[str]:
    return task_registry(settings, test_kinds=test_kinds).names()


def new_worker(
    tasks: Tasks,
    settings: Settings,
    *,
    concurrency: int | None = None,
    kinds: list[str] | None = None,
    worker_id: str | None = None,
    test_kinds: bool = False,
    resources: PipelineResources | None = None,
) -> Worker:
    """A worker (not yet started) for `kinds` (None: every registered kind) with `concurrency` slots
    [default: settings]; `worker_id` is given by a supervising process; `test_kinds` registers the
    test harness's kinds too; its OCR pages share `resources` (`pipeline_resources()`; None: the
    process's default)."""
    config = settings.queue_config()
    if concurrency is not None:
        config = dataclasses.replace(config, concurrency=concurrency)
    registry = task_registry(settings, tasks.storage, resources, test_kinds=test_kinds)
    return Worker(tasks.store, registry, config, kinds=kinds, worker_id=worker_id)


def worker_command(
    concurrency: int, kinds: list[str], verbose: bool, log_format: LogFormat = "auto", test_kinds: bool = False
) -> Callable[[str], list[str]]:
    """The command line of one supervised `ocrqueue worker` child with the given worker id."""

    def command(worker_id: str) -> list[str]:
        args = [sys.executable, "-m", "ocrqueue", "worker", "--processes", "0", "--worker-id", worker_id]
        args += ["--concurrency", str(concurrency), "--log-format", log_format, *(f"--kind={kind}" for kind in kinds)]
        args += ["--test-kinds"] if test_kinds else []
        return [*args, "--verbose"] if verbose else args

    return command


def default_worker_processes() -> int:
    """One worker process per CPU this process may use (affinity mask, cgroup quota), not per CPU of the
    host: a container limited to 2 CPUs on a 64-core host starts 2."""
    return available_cpus()


def worker_environment(
    environ: Mapping[str, str], engine_slots: int, metrics: MetricsRun | None = None
) -> dict[str, str]:
    """The environment of a supervised worker: `OMP_THREAD_LIMIT` is its share of this machine's cores
    for `engine_slots` engine calls at once across all children, unless the operator set it; its
    metrics go to the run's multiprocess directory, and the metrics port stays the parent's. The
    bootstrap API key stays with the API process: workers read hostile files and need no key."""
    withheld = {METRICS_PORT_VARIABLE, BOOTSTRAP_KEY_VARIABLE}
    environment = {k: v for k, v in environ.items() if k not in withheld}
    environment.setdefault(THREAD_LIMIT_VARIABLE, str(thread_share(engine_slots)))
    return environment if metrics is None else metrics.child_environment(environment)


def supervisor(
    tasks: Tasks,
    settings: Settings,
    processes: int,
    concurrency: int,
    kinds: list[str],
    verbose: bool,
    *,
    log_format: LogFormat = "auto",
    metrics: MetricsRun | None = None,
    test_kinds: bool = False,
) -> Supervisor:
    """Worker processes under this one, each replaced when it exits or dies (see queue/supervisor.py).
    Each child runs its own webhook outbox, as any `ocrqueue worker` does, and its engines use its
    share of the cores (`OMP_THREAD_LIMIT`, unless the environment sets it). With `metrics`, the
    children's counters reach this process's /metrics (service/metrics.py)."""
    return Supervisor(
        tasks.store,
        worker_command(concurrency, kinds, verbose, log_format, test_kinds),
        processes,
        env=worker_environment(os.environ, processes * concurrency, metrics),
        crash_messages=crash_messages(),
        backoff_base_seconds=settings.backoff_base_seconds,
        backoff_cap_seconds=settings.backoff_cap_seconds,
        stop_timeout=settings.shutdown_grace_seconds + 20,
        on_exit=None if metrics is None else metrics.child_exited,
    )


def start_metrics_run(settings: Settings) -> MetricsRun:
    """The multiprocess metrics directory of a supervising process, under the data directory;
    close it when the children have stopped."""
    return MetricsRun.start(settings.data_dir / "metrics")


def supervise_until_signalled(running: Supervisor) -> None:
    """SIGTERM/SIGINT stop the supervisor, which stops its children gracefully."""

    def handle(signum: int, frame: FrameType | None) -> None:
        log.info("%s received: stopping worker processes", signal.Signals(signum).name)
        running.stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    thread = running.start()
    while thread.is_alive():
        thread.join(timeout=0.5)


def serve_metrics(settings: Settings, metrics: NodeMetrics) -> None:
    """Serve the node's metrics for Prometheus on metrics_port, when it is set."""
    if settings.metrics_port is None:
        return
    start_http_server(settings.metrics_port, registry=metrics.registry)
    log.info("metrics on :%d/metrics", settings.metrics_port)


def run_workers_until_signalled(workers: list[Worker]) -> None:
    """First SIGTERM/SIGINT: graceful stop. A second one: release running tasks at once."""
    signals_seen = 0

    def handle(signum: int, frame: FrameType | None) -> None:
        nonlocal signals_seen
        signals_seen += 1
        log.info("%s received: %s", signal.Signals(signum).name, "stopping" if signals_seen == 1 else "releasing now")
        for worker in workers:
            worker.stop(release_now=signals_seen > 1)

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    threads = [worker.start() for worker in workers]
    for thread in threads:
        while thread.is_alive():
            thread.join(timeout=0.5)
