"""What a node's /metrics shows: this process, its supervised worker processes, the queue, the breaker.

Work happens in worker child processes (`ocrqueue serve`, `ocrqueue worker --processes N`), so
their counters would be invisible to a scrape of the parent. A supervising process therefore opens
a `MetricsRun`: a fresh directory for this run (`<data_dir>/metrics/<host>-<pid>`; runs of this
host whose process is gone are removed at start, and this one at exit) that every child gets as
`PROMETHEUS_MULTIPROC_DIR`. prometheus-client in a child then keeps each Counter, Histogram, Gauge
and Summary value in a file there, wherever in the child it is defined, and the parent's
`NodeMetrics` adds them up at scrape time (`MultiProcessCollector`). When a child exits its live
gauges are dropped (`mark_process_dead`); its counters stay, so totals never go backwards when a
child is replaced. A custom collector in a child reaches no scrape: what the parent can know
itself (queue depth, the breaker reports of every worker process) it collects itself, here.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

from ocrqueue.documents.vlm import BreakerState
from ocrqueue.queue.identity import host_name, pid_alive
from ocrqueue.queue.metrics import QueueDepthCollector
from ocrqueue.service.tasks import Tasks

MULTIPROC_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
_STATE_VALUE = {BreakerState.CLOSED: 0, BreakerState.HALF_OPEN: 1, BreakerState.OPEN: 2}


def run_prefix() -> str:
    """Where this host's runs begin: pids are judged only where they mean this host's processes."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", host_name()) + "-"


class MetricsRun:
    """The multiprocess directory of one supervising process and its children."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def start(cls, base: Path) -> MetricsRun:
        """A fresh, empty directory under `base`, after removing those of this host's dead runs."""
        prefix = run_prefix()
        base.mkdir(parents=True, exist_ok=True)
        for entry in base.iterdir():
            pid = entry.name.removeprefix(prefix)
            ours = entry.is_dir() and entry.name.startswith(prefix) and pid.isdigit()
            if ours and (int(pid) == os.getpid() or not pid_alive(int(pid))):
                shutil.rmtree(entry, ignore_errors=True)
        directory = base / f"{prefix}{os.getpid()}"
        directory.mkdir()
        return cls(directory)

    def child_environment(self, environment: Mapping[str, str]) -> dict[str, str]:
        return {**environment, MULTIPROC_VARIABLE: str(self.directory)}

    def child_exited(self, pid: int) -> None:
        multiprocess.mark_process_dead(pid, str(self.directory))  # type: ignore[no-untyped-call]

    def close(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def merged(families: Iterable[Metric]) -> list[Metric]:
    """Families of one name made one, values of the same sample (name and labels) added up: a
    metric module imported by the parent too (its own, unobserved copy) must not repeat a name."""
    by_name: dict[str, Metric] = {}
    samples: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], Sample]] = {}
    for family in families:
        by_name.setdefault(family.name, Metric(family.name, family.documentation, family.type, family.unit))
        seen = samples.setdefault(family.name, {})
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            earlier = seen.get(key)
            seen[key] = sample if earlier is None else sample._replace(value=earlier.value + sample.value)
    for name, family in by_name.items():
        family.samples = list(samples[name].values())
    return list(by_name.values())


class ProcessesCollector(Collector):
    """This process's own default registry (its process, GC and model-client metrics, and the queue's
    when it runs a worker itself) and, under a supervisor, every child's values from the run's files."""

    def __init__(self, run: MetricsRun | None) -> None:
        self.children = (
            None if run is None else multiprocess.MultiProcessCollector(None, str(run.directory))  # type: ignore[no-untyped-call]
        )

    def collect(self) -> Iterable[Metric]:
        own = list(REGISTRY.collect())
        if self.children is None:
            return own
        return merged([*self.children.collect(), *own])  # type: ignore[no-untyped-call]


class ModelServerBreakerCollector(Collector):
    """ocrqueue_model_server_breaker_state{endpoint}: 0 closed, 1 half-open, 2 open, the worst of this
    process's breaker and the fresh reports of every worker process (as /readyz says it), and
    ocrqueue_model_server_breakers_reported{endpoint,state}: how many worker processes report it so."""

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks

    def collect(self) -> Iterator[Metric]:
        seen = self.tasks.model_server_breakers()
        if seen is None:
            return
        worst = GaugeMetricFamily(
            "ocrqueue_model_server_breaker_state",
            "Model server circuit breaker, the worst of this node and its workers: 0 closed, 1 half-open, 2 open",
            labels=["endpoint"],
        )
        worst.add_metric([seen.endpoint], _STATE_VALUE[seen.worst])
        reported = GaugeMetricFamily(
            "ocrqueue_model_server_breakers_reported",
            "Worker processes whose fresh report says the model server's breaker is open or half-open",
            labels=["endpoint", "state"],
        )
        for state in (BreakerState.HALF_OPEN, BreakerState.OPEN):
            reported.add_metric([seen.endpoint, str(state)], seen.reported.get(state, 0))
        yield worst
        yield reported


class NodeMetrics:
    """The registry a node's /metrics (and its metrics port) serves."""

    def __init__(self, tasks: Tasks, run: MetricsRun | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(ProcessesCollector(run))
        self.registry.register(QueueDepthCollector(tasks.store))
        self.registry.register(ModelServerBreakerCollector(tasks))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
