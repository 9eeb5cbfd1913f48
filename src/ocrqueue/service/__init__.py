"""Where the queue, storage and the document pipeline meet: the only place that knows what an OCR or
vision task is. `api/` and `cli/` use what this package exports and nothing below it."""

from ocrqueue.documents import ProcessOptions
from ocrqueue.queue import TaskStatus
from ocrqueue.service.catalog import Answer
from ocrqueue.service.errors import (
    Conflict,
    InvalidInput,
    NotConfigured,
    NotFound,
    ServiceError,
    StorageFullError,
    TooLarge,
    UnsupportedInput,
)
from ocrqueue.service.options import ocr_options
from ocrqueue.service.payloads import OcrPayload, Payload, VisionPayload
from ocrqueue.service.result_formats import FORMATS, RESULT_FORMATS, ResultFormat
from ocrqueue.service.submission import Submission
from ocrqueue.service.tasks import ANY_TENANT, TASK_ID_PATTERN, Tasks
from ocrqueue.service.views import EventView, Submitted, TaskList, TaskView, WebhookView
from ocrqueue.service.vision_task import MAX_QUESTION_CHARS, VisionSubmission
from ocrqueue.service.webhook_sender import WebhookRefused, check_url
from ocrqueue.service.webhooks import LOCAL_OWNER, WebhookConfig, WebhookStore, key_owner

__all__ = [
    "ANY_TENANT",
    "FORMATS",
    "LOCAL_OWNER",
    "MAX_QUESTION_CHARS",
    "RESULT_FORMATS",
    "TASK_ID_PATTERN",
    "Answer",
    "Conflict",
    "EventView",
    "InvalidInput",
    "NotConfigured",
    "NotFound",
    "OcrPayload",
    "Payload",
    "ProcessOptions",
    "ResultFormat",
    "ServiceError",
    "StorageFullError",
    "Submission",
    "Submitted",
    "TaskList",
    "TaskStatus",
    "TaskView",
    "Tasks",
    "TooLarge",
    "UnsupportedInput",
    "VisionPayload",
    "VisionSubmission",
    "WebhookConfig",
    "WebhookRefused",
    "WebhookStore",
    "WebhookView",
    "check_url",
    "key_owner",
    "ocr_options",
]
