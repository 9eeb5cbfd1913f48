"""Every task kind this installation runs, wired to its dependencies."""

from __future__ import annotations

from ocrqueue.documents import DocumentLimits, PipelineResources
from ocrqueue.documents.vlm import VlmConfig
from ocrqueue.queue import Registry
from ocrqueue.queue.harness_kinds import register_test_kinds
from ocrqueue.queue.kinds import register_builtin_kinds
from ocrqueue.queue.supervisor import CrashMessage
from ocrqueue.service.engines import ModelGate, configure_vlm, ocr_needs_model
from ocrqueue.service.ocr_task import OCR_KIND, OcrTask, ocr_crash_message
from ocrqueue.service.vision_task import VISION_KIND, VisionTask
from ocrqueue.service.webhooks import WEBHOOK_KIND, WebhookConfig
from ocrqueue.storage import Storage


def build_registry(
    storage: Storage,
    limits: DocumentLimits,
    vlm: VlmConfig | None = None,
    webhooks: WebhookConfig | None = None,
    split_pages: int = 0,
    *,
    test_kinds: bool = False,
    resources: PipelineResources | None = None,
) -> Registry:
    """With `vlm` (a model server), the `vlm` engine is registered, OCR tasks using it go through the
    model server's breaker gate, and `vision` tasks exist; without it, workers never claim them.
    With `webhooks`, `webhook` tasks (callback deliveries) exist. OCR documents of more than
    `split_pages` pages are read by child tasks of that many pages (0: never). `test_kinds` adds
    `sleep` and `parts` (queue/harness_kinds.py), which only tests and `--test-kinds` ask for. OCR
    pages share `resources` (the layout model and threads; None: the process's default)."""
    registry = register_builtin_kinds(Registry())
    if test_kinds:
        register_test_kinds(registry)
    if webhooks is not None:
        registry.register(WEBHOOK_KIND, webhooks.handler())
    client = configure_vlm(vlm)
    ocr = OcrTask(storage, limits, split_pages=split_pages, resources=resources)
    if client is None:
        registry.register(OCR_KIND, ocr)
    else:
        registry.register(OCR_KIND, ModelGate(ocr, client, ocr_needs_model))
        registry.register(VISION_KIND, ModelGate(VisionTask(storage, client, limits), client))
    return registry


def crash_messages() -> dict[str, CrashMessage]:
    """How each kind words the death of the process running it (for `Supervisor`)."""
    return {OCR_KIND: ocr_crash_message}
