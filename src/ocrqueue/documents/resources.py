"""What the pages read in one process share: the layout model and the threads that find a page's
layout beside its engine.

A worker process (or `ocrqueue convert`) creates one `PipelineResources`, hands it to every
`process_page` call and closes it when it stops; a test gives its own layout model here instead of
patching modules. Library callers that pass none share `default_resources()`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import ParamSpec, TypeVar

from ocrqueue.documents.layout.detector import LayoutDetector, load_layout_model

P = ParamSpec("P")
T = TypeVar("T")

# Layout analysis (and the layout model where a page needs it) runs beside the engine reading the
# same page; Tesseract releases the GIL while it reads. More than one thread, so that one slot's
# few milliseconds of analysis never wait behind another slot's model run (the model itself is
# serialised by its own lock).
LAYOUT_THREADS = 4


class PipelineResources:
    """The layout model, loaded on the first page that needs it (a worker that never meets one
    saves ~160 MB), and the layout threads. The threads belong to the process that started them: a
    forked child inherits the pool but not its threads, and a page read there would wait forever
    for a layout that no thread computes (a ProcessPoolExecutor forking a process that had read a
    page did exactly that), so a child starts its own on first use."""

    def __init__(
        self,
        layout_model: Callable[[], LayoutDetector | None] = load_layout_model,
        layout_threads: int = LAYOUT_THREADS,
    ) -> None:
        self._load = layout_model
        self._threads = layout_threads
        self._model_lock = threading.Lock()  # held while the model loads: the threads go on meanwhile
        self._pool_lock = threading.Lock()
        self._model: LayoutDetector | None = None
        self._loaded = False
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0
        self._closed = False

    def layout_model(self) -> LayoutDetector | None:
        """The layout model, or None when it is not installed."""
        with self._model_lock:
            self._check_open()
            if not self._loaded:
                self._model = self._load()
                self._loaded = True
            return self._model

    def beside(self, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Start `work` on a layout thread, to run while the caller's engine reads."""
        with self._pool_lock:
            self._check_open()
            if self._pool is None or self._pool_pid != os.getpid():
                self._pool = ThreadPoolExecutor(max_workers=self._threads, thread_name_prefix="ocrqueue-layout")
                self._pool_pid = os.getpid()
            return self._pool.submit(work, *args, **kwargs)

    def close(self) -> None:
        """Wait for the layout threads and let the model go; the resources cannot be used after."""
        with self._model_lock, self._pool_lock:
            pool = self._pool if self._pool_pid == os.getpid() else None
            self._closed, self._pool, self._model = True, None, None
        if pool is not None:
            pool.shutdown(wait=True)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("these pipeline resources were closed")

    def __enter__(self) -> PipelineResources:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


_default: PipelineResources | None = None
_default_lock = threading.Lock()


def default_resources() -> PipelineResources:
    """The resources of `process_page` calls that bring none, created once per process and never closed."""
    global _default
    with _default_lock:
        if _default is None:
            _default = PipelineResources()
        return _default
