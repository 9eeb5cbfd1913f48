"""Wiring the model server into the service: the `vlm` engine, the breaker gate and its metrics.

`configure_vlm(config)` registers the `vlm` OCR engine on the process-wide client for `config` and
exposes that client's breaker and request counts to Prometheus. `ModelGate` wraps a task handler
that uses the model server and translates the client's errors into the queue's policy:

- breaker open (`ModelCircuitOpen`, before the handler starts or from inside it) -> `TaskDeferred`:
  the task comes back after the time left to the next probe, without spending an attempt;
- `ModelServerUnavailable` (unreachable, timeout, 408/429/5xx) -> `TransientError` with the
  server's Retry-After as the lower bound of the backoff;
- `ModelRequestRejected` is a `DocumentError`: the handlers turn it into a `PermanentError`.
"""

from __future__ import annotations

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
    ModelCircuitOpen,
    ModelServerUnavailable,
    VlmClient,
    VlmConfig,
    shared_client,
    shared_clients,
)
from ocrqueue.queue import TaskContext, TaskDeferred, TransientError
from ocrqueue.queue.models import JSON
from ocrqueue.service.payloads import OcrPayload, PayloadError

VLM_ENGINE = "vlm"
_DEFER_JITTER = 0.2  # deferred tasks come back spread over +0..20% of the wait, not all at once

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


def model_server_check(config: VlmConfig | None) -> str:
    """For /readyz: "not configured", "closed", "half-open: …" or "open: …"."""
    if config is None:
        return "not configured"
    return shared_client(config).status().describe()


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
