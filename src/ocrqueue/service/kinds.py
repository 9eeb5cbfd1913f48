"""Every task kind this installation runs, wired to its dependencies."""

from __future__ import annotations

from ocrqueue.documents import DocumentLimits
from ocrqueue.queue import Registry
from ocrqueue.queue.kinds import register_builtin_kinds
from ocrqueue.service.ocr_task import OCR_KIND, OcrTask
from ocrqueue.storage import Storage


def build_registry(storage: Storage, limits: DocumentLimits) -> Registry:
    registry = register_builtin_kinds(Registry())
    registry.register(OCR_KIND, OcrTask(storage, limits))
    return registry
