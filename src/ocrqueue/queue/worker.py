"""The worker runtime: task slots, batched claims, one heartbeat loop, the reaper, graceful stop.

Threads: the caller's thread claims (`run`), as many tasks per statement as there are free
slots; slot threads run handlers; a completer thread commits results in batches; a heartbeat
thread renews every held lease in one statement, relays lost leases and cancel requests to the
handlers, and runs the reaper on a jittered interval.
"""

from __future__ import annotations

import logging
import os
import queue
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ocrqueue.queue.backoff import backoff_delay
from ocrqueue.queue.completer import MAX_BATCH, Completer, Completion
from ocrqueue.queue.config import QueueConfig
from ocrqueue.queue.context import TaskContext
from ocrqueue.queue.errors import (
    ErrorKind,
    LeaseLost,
    TaskCancelled,
    TaskDeferred,
    TaskError,
    TransientError,
    WaitingForChildren,
    classify,
)
from ocrqueue.queue.identity import host_name, new_worker_id, pid_alive
from ocrqueue.queue.logcontext import bind_worker, running_task, thread_in_context
from ocrqueue.queue.metrics import QueueMetrics, default_metrics
from ocrqueue.queue.models import ClaimedTask, CompleteResult, FailOutcome
from ocrqueue.queue.recycle import replace_reason
from ocrqueue.queue.registry import Registry
from ocrqueue.queue.store import Store

log = logging.getLogger(__name__)

_MIN_IDLE_WAIT = 0.01
_MAX_MESSAGE = 4000
MAX_UNCOMMITTED = MAX_BATCH
"""Finished tasks awaiting their commit that a worker holds at most before it stops claiming."""


@dataclass
class _Running:
    claimed: ClaimedTask
    context: TaskContext
    started: float = field(default_factory=time.monotonic)
    handler_running: bool = False
    abandoned: bool = False
    """Given up as hung: its slot was replaced and whatever the handler does later is discarded."""


def claim_size(config: QueueConfig, busy: int, mean_run_seconds: float, held: int = 0) -> int:
    """How many tasks to claim: the idle slots, plus a prefetch while tasks take only milliseconds.

    A claim costs a round trip; when handlers finish in far less than that, slots would idle
    waiting for the next claim, so up to `prefetch` more are claimed to wait in the worker (leased
    and heartbeated). Tasks that run longer than `prefetch_below_seconds` on average are never
    prefetched, so a slow task never waits behind another on a busy worker.

    Finished tasks whose commit is still queued hold their lease too (`held` counts every lease):
    once one completer batch of them waits, the worker stops claiming until the completer catches
    up. Without that bound a worker whose commits fall behind keeps running and leasing tasks it
    cannot finish, and every lease it holds makes the next heartbeat and completion larger.
    """
    short = mean_run_seconds < config.prefetch_below_seconds
    idle = config.concurrency + (config.prefetch if short else 0) - busy
    return min(idle, max_held(config) - held)


def max_held(config: QueueConfig) -> int:
    """The most leases a worker holds: its slots, a prefetch and one batch awaiting its commit."""
    return config.concurrency + config.prefetch + MAX_UNCOMMITTED


class Worker:
    """Claims and runs tasks of the registered kinds until stopped."""

    def __init__(
        self,
        store: Store,
        registry: Registry,
        config: QueueConfig | None = None,
        *,
        kinds: Sequence[str] | None = None,
        worker_id: str | None = None,
        metrics: QueueMetrics | None = None,
    ) -> None:
        self.store = store
        self.registry = registry
        self.config = config or QueueConfig()
        self.kinds = list(kinds) if kinds else registry.names()
        unknown = [k for k in self.kinds if k not in registry]
        if unknown:
            raise ValueError(f"no handler registered for task kinds {unknown}")
        self.worker_id = worker_id or new_worker_id()
        self.metrics = metrics or default_metrics()
        self._held: dict[str, _Running] = {}
        """Tasks whose lease this worker holds: running, or finished and awaiting their commit."""
        self._busy_slots = 0
        """Tasks handed to the slots and not yet finished: running, or queued for a slot (prefetched)."""
        self._hung_slots = 0
        self._tasks_done = 0
        self.replace_reason: str | None = None
        """Set when the worker stopped itself to be replaced (max_tasks_per_process, max_rss_mb)."""
        self._mean_run_seconds = 1.0
        """Moving average of handler run time; prefetching is only for tasks far shorter than a claim."""
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._release_now = threading.Event()
        self._stopped = threading.Event()
        self._started = threading.Event()
        self._heartbeat_stop = threading.Event()
        self._inbox: queue.SimpleQueue[_Running | None] = queue.SimpleQueue()
        self._completer = Completer(store, self._completed)
        self._rng = random.Random()

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> threading.Thread:
        """Run in a background thread (embedded workers, tests); returns once registered."""
        thread = threading.Thread(target=self.run, name=f"ocrqueue-worker-{self.worker_id}", daemon=True)
        thread.start()
        self._started.wait(timeout=30)
        return thread

    def stop(self, *, release_now: bool = False) -> None:
        """Stop claiming; running tasks get the grace period, then are released."""
        self._stopping.set()
        if release_now:
            self._release_now.set()
        self._wake.set()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        return self._stopped.wait(timeout)

    @property
    def running_task_ids(self) -> list[str]:
        with self._lock:
            return list(self._held)

    def _count_claim_conflict(self, operation: str) -> None:
        if operation == "claim":
            self.metrics.claim_conflicts.inc()

    def run(self) -> None:
        bind_worker(self.worker_id)
        self.store.retry_observers.append(self._count_claim_conflict)
        self.store.add_wake_listener(self._wake.set)
        self.store.start_listening()
        self.store.register_worker(self.worker_id, host_name(), os.getpid(), self.config.concurrency, self.kinds)
        heartbeat = thread_in_context(self._heartbeat_loop, "ocrqueue-heartbeat")
        try:
            self.recover()
            heartbeat.start()
            self._completer.start()
            for number in range(self.config.concurrency):
                self._start_slot(number)
            self._started.set()
            self._claim_loop()
            self._drain()
        finally:
            self._started.set()
            self._stopping.set()
            self._completer.stop(timeout=10)
            self._heartbeat_stop.set()
            if heartbeat.is_alive():
                heartbeat.join(timeout=10)
            for _ in range(self.config.concurrency):
                self._inbox.put(None)
            self.store.remove_wake_listener(self._wake.set)
            self.store.retry_observers.remove(self._count_claim_conflict)
            try:
                self.store.stop_worker(self.worker_id)
            except Exception:
                log.exception("could not mark worker %s stopped", self.worker_id)
            self._stopped.set()

    def recover(self) -> None:
        """Before the first claim: take back tasks of dead workers on this host, then reap."""
        dead = [
            w.id
            for w in self.store.workers(host=host_name(), live_only=True)
            if w.id != self.worker_id and not pid_alive(w.pid)
        ]
        if dead:
            expired = self.store.expire_worker_leases(dead)
            log.info("recovered %d task(s) of %d dead worker(s) on this host", expired, len(dead))
        self._reap()

    # -- claiming ---------------------------------------------------------------------------
    def _free_slots(self) -> int:
        with self._lock:
            return claim_size(self.config, self._busy_slots, self._mean_run_seconds, len(self._held))

    def _claim_loop(self) -> None:
        idle_wait = _MIN_IDLE_WAIT
        while not self._stopping.is_set():
            free = self._free_slots()
            if free <= 0:
                self._wake.wait(self.config.poll_seconds)
                self._wake.clear()
                continue
            self._wake.clear()
            try:
                claimed = self.store.claim(self.worker_id, free, self.config.lease_seconds, self.kinds)
            except Exception:
                log.exception("claim failed; retrying after %.2fs", self.config.poll_seconds)
                self._stopping.wait(self.config.poll_seconds)
                continue
            if not claimed:
                self.metrics.empty_claims.inc()
                self._wake.wait(idle_wait)
                idle_wait = min(idle_wait * 2, self.config.poll_seconds)
                continue
            idle_wait = _MIN_IDLE_WAIT
            for item in claimed:
                self.metrics.claims.labels(item.task.kind).inc()
                running = _Running(item, TaskContext(self.store, item.task, item.lease))
                with self._lock:
                    self._held[item.task.id] = running
                    self._busy_slots += 1
                self._inbox.put(running)

    # -- running a task ---------------------------------------------------------------------
    def _slot_loop(self) -> None:
        while (running := self._inbox.get()) is not None:
            if not self._execute(running):
                return  # this thread's handler was given up as hung; a new slot took its place

    def _start_slot(self, number: int) -> threading.Thread:
        # Daemon threads: a handler still running after its task was released or given up must
        # not keep the process alive; its lease is gone, so nothing it does later is written.
        slot = thread_in_context(self._slot_loop, f"ocrqueue-slot-{number}")
        slot.start()
        return slot

    def _free_slot(self, run_seconds: float) -> None:
        with self._lock:
            self._busy_slots -= 1
            self._mean_run_seconds = 0.9 * self._mean_run_seconds + 0.1 * run_seconds
            self._tasks_done += 1
            done = self._tasks_done
        self._wake.set()
        self._replace_if_due(done)

    def _replace_if_due(self, tasks_done: int) -> None:
        """Stop claiming and hand running tasks back (graceful stop) once this process has run its
        share of tasks or grown past its memory limit; its supervisor starts a fresh process."""
        if self.replace_reason is not None:
            return
        reason = replace_reason(tasks_done, self.config.max_tasks_per_process, self.config.max_rss_mb)
        if reason is not None:
            self.replace_reason = reason
            log.info("worker %s stops to be replaced: %s", self.worker_id, reason)
            self.stop()

    def _forget(self, running: _Running, outcome: str) -> None:
        with self._lock:
            self._held.pop(running.claimed.task.id, None)
        self.metrics.durations.labels(running.claimed.task.kind, outcome).observe(time.monotonic() - running.started)
        self.metrics.finished.labels(running.claimed.task.kind, outcome).inc()

    def _hand_back(self, running: _Running) -> None:
        """Release a task not started yet (prefetched) by a worker that is being replaced."""
        try:
            self.metrics.released.inc(len(self.store.release(self.worker_id, [running.claimed.lease])))
        except Exception:
            log.exception("task %s: could not hand it back; it returns after lease expiry", running.claimed.task.id)
        running.context.mark_lost()
        self._forget(running, "released")
        with self._lock:
            self._busy_slots -= 1
        self._wake.set()

    def _execute(self, running: _Running) -> bool:
        """Run one task; False when it was abandoned as hung meanwhile (the slot thread retires)."""
        with running_task(running.claimed.task):
            return self._execute_task(running)

    def _execute_task(self, running: _Running) -> bool:
        task, ctx = running.claimed.task, running.context
        if self.replace_reason is not None:
            self._hand_back(running)
            return True
        began = time.monotonic()
        log.info("task %s (%s) attempt %d started", task.id, task.kind, task.attempts)
        ctx.touch()
        running.handler_running = True
        result = None
        error: Exception | None = None
        try:
            result = self.registry[task.kind].handler(ctx)
        except Exception as exc:
            error = exc
        with self._lock:
            running.handler_running = False
            if running.abandoned:
                return False
        try:
            if error is None and ctx.lost:
                error = LeaseLost(f"task {task.id}: lease lost while the handler ran")
            if error is None:
                self._completer.submit(Completion(running.claimed.lease, result))
            elif isinstance(error, LeaseLost):
                self._lease_lost(running)
            elif isinstance(error, TaskCancelled):
                self._forget(running, self._fail(running, error, cancelled=True))
            elif isinstance(error, TaskDeferred):
                self._forget(running, self._defer(running, error))
            elif isinstance(error, WaitingForChildren):
                self._forget(running, "waiting")
            else:
                self._forget(running, self._fail(running, error))
        finally:
            self._free_slot(time.monotonic() - began)
        return True

    def _completed(self, completion: Completion, outcome: CompleteResult | None) -> None:
        with self._lock:
            running = self._held.get(completion.lease.task_id)
            backlogged = len(self._held) >= max_held(self.config)
        if running is None:
            return
        bind_worker(self.worker_id)
        with running_task(running.claimed.task):
            if outcome is None:
                self._lease_lost(running)
            else:
                log.info("task %s %s", running.claimed.task.id, outcome.status)
                self._forget(running, str(outcome.status))
        if backlogged:
            self._wake.set()

    def _lease_lost(self, running: _Running) -> None:
        self.metrics.lease_losses.labels(running.claimed.task.kind).inc()
        log.warning("task %s: lease lost; result discarded", running.claimed.task.id)
        self._forget(running, "lease_lost")

    def _defer(self, running: _Running, deferred: TaskDeferred) -> str:
        lease = running.claimed.lease
        try:
            released = self.store.release(
                self.worker_id, [lease], delay_seconds=deferred.delay_seconds, reason=str(deferred)
            )
        except Exception:
            log.exception("task %s: could not defer it; it returns after lease expiry", lease.task_id)
            running.context.mark_lost()
            return "unrecorded"
        if not released:
            self.metrics.lease_losses.labels(running.claimed.task.kind).inc()
            return "lease_lost"
        self.metrics.deferrals.labels(running.claimed.task.kind).inc()
        log.info("task %s deferred for %.0fs: %s", lease.task_id, deferred.delay_seconds, deferred)
        return "deferred"

    def _fail(
        self, running: _Running, exc: Exception, *, cancelled: bool = False, kind: ErrorKind | None = None
    ) -> str:
        task, lease = running.claimed.task, running.claimed.lease
        decided = classify(exc)
        kind = ErrorKind.CANCELLED if cancelled else kind or decided.kind
        delay = backoff_delay(
            task.attempts,
            self.config.backoff_base_seconds,
            self.config.backoff_cap_seconds,
            floor=decided.retry_after,
            rng=self._rng,
        )
        # Our own error classes carry messages written for users; anything else names its type.
        message = (str(exc) if isinstance(exc, TaskError) else f"{type(exc).__name__}: {exc}")[:_MAX_MESSAGE]
        try:
            failed = self.store.fail(
                lease,
                error_kind=str(kind),
                message=message,
                retryable=decided.retryable and not cancelled,
                delay_seconds=delay,
            )
        except LeaseLost:
            self.metrics.lease_losses.labels(task.kind).inc()
            return "lease_lost"
        except Exception:
            log.exception("task %s: recording its failure failed; it returns after lease expiry", task.id)
            running.context.mark_lost()
            return "unrecorded"
        if failed.outcome is FailOutcome.RETRY:
            self.metrics.retries.labels(task.kind).inc()
            log.info("task %s attempt %d failed (%s); retry in %.1fs", task.id, task.attempts, message, delay)
        elif failed.outcome is FailOutcome.DEAD_LETTER:
            self.metrics.dead_letters.labels(task.kind).inc()
            log.warning("task %s dead-lettered after attempt %d: %s", task.id, task.attempts, message)
        return str(failed.outcome)

    # -- heartbeat and reaper ---------------------------------------------------------------
    def _heartbeat_loop(self) -> None:
        next_reap = time.monotonic() + self._reap_interval()
        while not self._heartbeat_stop.wait(self.config.heartbeat_seconds):
            self.heartbeat_once()
            if time.monotonic() >= next_reap and not self._stopping.is_set():
                self._reap()
                next_reap = time.monotonic() + self._reap_interval()

    def _abandon_stalled(self) -> None:
        """Give up handlers silent for `stall_seconds`: a hung handler must not hold its task forever.

        Its attempt fails as `stalled` (retried with backoff, dead-lettered when attempts run out), a
        new slot thread replaces the stuck one, and anything the old handler does later is
        discarded. Python cannot kill a thread, so a worker that has leaked more hung threads than
        it has slots stops itself, to be restarted clean by its supervisor.
        """
        now = time.monotonic()
        with self._lock:
            stalled = [
                r
                for r in self._held.values()
                if r.handler_running and not r.abandoned and now - r.context.last_activity > self.config.stall_seconds
            ]
            for running in stalled:
                running.abandoned = True
                running.context.mark_lost()
                self._busy_slots -= 1
                self._hung_slots += 1
            hung = self._hung_slots
        for running in stalled:
            silent = now - running.context.last_activity
            error = TransientError(
                f"the handler showed no sign of progress for {silent:.0f} s and was given up as hung"
            )
            log.error("task %s: %s", running.claimed.task.id, error)
            self._forget(running, self._fail(running, error, kind=ErrorKind.STALLED))
            self._start_slot(self.config.concurrency + hung)
        if stalled and hung > self.config.concurrency:
            log.error("%d handler threads are hung; stopping this worker so it can be restarted clean", hung)
            self.stop()
        if stalled:
            self._wake.set()

    def heartbeat_once(self) -> None:
        self._abandon_stalled()
        with self._lock:
            held = {task_id: r for task_id, r in self._held.items() if not r.context.lost}
        try:
            beat = self.store.heartbeat(
                self.worker_id, [r.claimed.lease for r in held.values()], self.config.lease_seconds
            )
        except Exception:
            log.exception("heartbeat failed; leases are renewed on the next beat if the database returns")
            return
        for task_id in beat.lost:
            held[task_id].context.mark_lost()
        for task_id in beat.cancel_requested:
            held[task_id].context.mark_cancel_requested()

    def _reap_interval(self) -> float:
        return self.config.reaper_seconds * self._rng.uniform(0.5, 1.5)

    def _reap(self) -> None:
        try:
            reaped = self.store.reap()
        except Exception:
            log.exception("reaper run failed")
            return
        for outcome, ids in (
            ("requeued", reaped.requeued),
            ("dead_lettered", reaped.dead_lettered),
            ("cancelled", reaped.cancelled),
        ):
            if ids:
                self.metrics.reaped.labels(outcome).inc(len(ids))
                log.warning("reaper: %s %d task(s) whose lease expired", outcome, len(ids))

    # -- graceful stop ----------------------------------------------------------------------
    def _drain(self) -> None:
        """Give running tasks the grace period, then hand the rest back at once."""
        deadline = time.monotonic() + self.config.shutdown_grace_seconds
        while self.running_task_ids and not self._release_now.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._wake.wait(min(remaining, 0.1))
            self._wake.clear()
        with self._lock:
            leftover = [r for r in self._held.values() if not r.context.lost]
        if not leftover:
            return
        for running in leftover:
            running.context.mark_lost()
        try:
            released = self.store.release(self.worker_id, [r.claimed.lease for r in leftover])
        except Exception:
            log.exception("could not release %d task(s); they return after lease expiry", len(leftover))
            return
        self.metrics.released.inc(len(released))
        log.info("released %d running task(s) for other workers", len(released))
