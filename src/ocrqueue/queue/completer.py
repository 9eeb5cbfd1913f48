"""Batches task completions: one fenced statement finishes every result that is ready.

A slot hands its result over and is free for the next task at once; the lease stays held (and
heartbeated) until the completion is committed, so exactly-once commit is unchanged. Under load,
results pile up while one batch is written and go out together in the next.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ocrqueue.queue.models import JSON, CompleteResult, Lease
from ocrqueue.queue.store import Store

log = logging.getLogger(__name__)

MAX_BATCH = 500
_RETRY_PAUSE_SECONDS = 1.0


@dataclass(frozen=True)
class Completion:
    lease: Lease
    result: JSON


Finished = Callable[[Completion, CompleteResult | None], None]


class Completer:
    def __init__(self, store: Store, finished: Finished) -> None:
        self._store = store
        self._finished = finished
        self._inbox: queue.SimpleQueue[Completion | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="ocrqueue-completer", daemon=True)
        self._stop = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def submit(self, completion: Completion) -> None:
        self._inbox.put(completion)

    def stop(self, timeout: float) -> None:
        """Flush what is queued, then end the thread."""
        self._inbox.put(None)
        self._thread.join(timeout)

    def _loop(self) -> None:
        pending: list[Completion] = []
        closing = False
        while not (closing and not pending):
            if not pending:
                first = self._inbox.get()
                if first is None:
                    return
                pending.append(first)
            while len(pending) < MAX_BATCH:
                try:
                    item = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    closing = True
                    break
                pending.append(item)
            pending = self._flush(pending)
            if pending:
                self._stop.wait(_RETRY_PAUSE_SECONDS)

    def _flush(self, batch: list[Completion]) -> list[Completion]:
        """Write a batch; returns what must be tried again (the database was unreachable)."""
        try:
            outcomes = self._store.complete_many([(c.lease, c.result) for c in batch])
        except Exception:
            log.exception("completing %d task(s) failed; retrying while their leases are held", len(batch))
            return batch
        for completion in batch:
            self._finished(completion, outcomes.get(completion.lease.task_id))
        return []
