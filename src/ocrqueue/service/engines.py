"""Wiring the model server into the service: the `vlm` engine, the breaker gate and its metrics.

`configure_vlm(config)` registers the `vlm` OCR engine on the process-wide client for `config` and
exposes that client's breaker and request counts to Prometheus. `ModelGate` wraps a task handler
that uses the model server and translates the client's errors into the queue's policy:

- breaker open (`ModelCircuitOpen`, before the handler starts or from inside it) -> `TaskDeferred`:
  the task comes back after the time left to the next probe, without spending an attempt;
- `ModelServerUnavailable` (unreachable, timeout, 408/429/5xx) -> `TransientError` with the
  server's Retry-After as the lower bound of the backoff;
- `ModelRequestRejected` is a `DocumentError`: the handlers turn it into a `PermanentError`.

Worker processes (here or on other machines) report their breaker's changes of state to the
database (`BreakerReporter`, `reporting_breaker`; see service/breaker_reports.py), and
`model_server_check` (/readyz) shows the worst of them and this process's own breaker.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import REGISTRY
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ocrqueue.documents import register_engine
from ocrqueue.documents.engines.vlm import VlmEngine
from ocrqueue.documents.vlm import (
    BreakerState,
    BreakerStatus,
    ModelCircuitOpen,
    ModelServerUnavailable,
    VlmClient,
    VlmConfig,
    shared_client,
    shared_clients,
)
from ocrqueue.queue import TaskContext, TaskDeferred, TransientError
from ocrqueue.queue.models import JSON
from ocrqueue.service.breaker_reports import (
    BreakerReports,
    BreakerSummary,
    describe_model_server,
    freshness_margin,
    summarize_breakers,
)
from ocrqueue.service.payloads import OcrPayload, PayloadError

VLM_ENGINE = "vlm"
_DEFER_JITTER = 0.2  # deferred tasks come back spread over +0..20% of the wait, not all at once
_REPORT_RETRY_SECONDS = 1.0

log = logging.getLogger("ocrqueue.engines")

_metrics_lock = threading.Lock()
_metrics_installed = False


def configure_vlm(config: VlmConfig | None) -> VlmClient | None:
    """Register the `vlm` engine for `config` (a no-op for None); the shared client, or None."""
    if config is None:
        return None
    client = shared_client(config)
    register_engine(VLM_ENGINE, lambda: VlmEngine(client))
    _install_metrics()
    return client


def model_server_check(config: VlmConfig | None, reports: BreakerReports, now: Callable[[], float]) -> str:
    """For /readyz: "not configured", "closed", "half-open: …" or "open: …" — the worst of this
    process's breaker and the fresh reports of the worker processes, with who reported it, e.g.
    "open: model server at … is unreachable (ConnectError: …); next probe in 2s (worker host:pid:…)".
    `now` is the database's clock. Without the database (its own check says so) only this process's."""
    if config is None:
        return "not configured"
    own = shared_client(config).status()
    try:
        found = reports.read(config.endpoint)
        at = now()
    except Exception as exc:
        log.debug("breaker reports unreadable: %s", exc)
        return own.describe()
    return describe_model_server(own, found, at, freshness_margin(config))


def model_server_breakers(
    config: VlmConfig | None, reports: BreakerReports, now: Callable[[], float]
) -> BreakerSummary | None:
    """For metrics: what `model_server_check` says, as states and counts (None: not configured).
    Without the database, this process's breaker alone."""
    if config is None:
        return None
    own = shared_client(config).status()
    try:
        found, at = reports.read(config.endpoint), now()
    except Exception as exc:
        log.debug("breaker reports unreadable: %s", exc)
        found, at = [], 0.0
    return summarize_breakers(config.endpoint, own, found, at, freshness_margin(config))


class BreakerReporter:
    """Writes this process's breaker state for one model server to the database after every change
    of state, from a thread of its own: the task that opened the breaker does not wait for the
    database, changes close together make one write (of the state at write time, so the last write
    is always the current state), and a failed write is tried again."""

    def __init__(self, client: VlmClient, reports: BreakerReports, now: Callable[[], float], reporter: str) -> None:
        self.client = client
        self.reports = reports
        self.now = now
        self.reporter = reporter
        self._changed = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.client.breaker.add_listener(self._on_change)
        self._changed.set()  # the state it starts in
        self._thread = threading.Thread(target=self._run, name="ocrqueue-breaker-reporter", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop reporting and delete this process's row: a stopped process sends no requests."""
        self.client.breaker.remove_listener(self._on_change)
        self._stop.set()
        self._changed.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        try:
            self.reports.forget(self.client.endpoint, self.reporter)
        except Exception:  # the row goes stale instead (see service/breaker_reports.py)
            log.warning("could not remove this process's model-server breaker report", exc_info=True)

    def _on_change(self, status: BreakerStatus) -> None:
        self._changed.set()

    def _run(self) -> None:
        while True:
            self._changed.wait()
            if self._stop.is_set():
                return
            self._changed.clear()
            try:
                self.reports.put(self.client.endpoint, self.reporter, self.client.status(), self.now())
            except Exception:  # the database may be restarting: write the state then current later
                log.warning("could not report the model server's breaker; retrying", exc_info=True)
                self._changed.set()
                self._stop.wait(_REPORT_RETRY_SECONDS)


@contextlib.contextmanager
def reporting_breaker(
    config: VlmConfig | None, database_url: str, now: Callable[[], float], reporter: str
) -> Iterator[None]:
    """While workers run in this process: its breaker's changes reach /readyz of every API node.
    `reporter` names the process (its worker id); `now` is the database's clock."""
    if config is None:
        yield
        return
    reports = BreakerReports(database_url)
    running = BreakerReporter(shared_client(config), reports, now, reporter)
    running.start()
    try:
        yield
    finally:
        running.stop()
        reports.close()


def deferral(exc: ModelCircuitOpen) -> TaskDeferred:
    wait = max(1.0, exc.retry_after or 0.0)
    return TaskDeferred(exc.message, delay_seconds=wait * (1 + random.uniform(0, _DEFER_JITTER)))


class ModelGate:
    """Runs `handler` only while the model server's breaker lets requests through (see module doc)."""

    def __init__(
        self,
        handler: Callable[[TaskContext], JSON],
        client: VlmClient,
        needs_model: Callable[[Any], bool] = lambda payload: True,
    ) -> None:
        self.handler = handler
        self.client = client
        self.needs_model = needs_model

    def __call__(self, ctx: TaskContext) -> JSON:
        try:
            if self.needs_model(ctx.payload):
                self.client.check_available()
            return self.handler(ctx)
        except ModelCircuitOpen as exc:
            raise deferral(exc) from exc
        except ModelServerUnavailable as exc:
            raise TransientError(exc.message, retry_after=exc.retry_after) from exc


def ocr_needs_model(payload: Any) -> bool:
    """An OCR task needs the model server when it uses the vlm engine and may OCR a page (a payload
    that does not read needs nothing: its handler dead-letters it)."""
    try:
        options = OcrPayload.from_json(payload).options
    except PayloadError:
        return False
    return options.engine == VLM_ENGINE and options.mode != "text"


class ModelServerCollector(Collector):
    """ocrqueue_model_breaker_open{endpoint}, ocrqueue_model_requests_in_flight{endpoint} and
    ocrqueue_model_requests_total{endpoint,outcome} for every model server this process talks to."""

    def collect(self) -> Iterator[Metric]:
        breaker = GaugeMetricFamily(
            "ocrqueue_model_breaker_open",
            "1 while the model server's circuit breaker is open or probing",
            labels=["endpoint"],
        )
        in_flight = GaugeMetricFamily(
            "ocrqueue_model_requests_in_flight", "Model requests in flight", labels=["endpoint"]
        )
        requests = CounterMetricFamily(
            "ocrqueue_model_requests", "Model server requests by outcome", labels=["endpoint", "outcome"]
        )
        for client in shared_clients():
            breaker.add_metric([client.endpoint], 0 if client.status().state is BreakerState.CLOSED else 1)
            in_flight.add_metric([client.endpoint], client.in_flight)
            for outcome, count in sorted(client.outcomes().items()):
                requests.add_metric([client.endpoint, outcome], count)
        yield breaker
        yield in_flight
        yield requests


def _install_metrics() -> None:
    global _metrics_installed
    with _metrics_lock:
        if not _metrics_installed:
            REGISTRY.register(ModelServerCollector())
            _metrics_installed = True
