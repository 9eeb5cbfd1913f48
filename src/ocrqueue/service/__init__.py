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
from ocrqueue.service.submission import Submission
from ocrqueue.service.tasks import ANY_TENANT, TASK_ID_PATTERN, ResultFormat, Tasks
from ocrqueue.service.views import EventView, Submitted, TaskList, TaskView
from ocrqueue.service.vision_task import MAX_QUESTION_CHARS, VisionSubmission

__all__ = [
    "ANY_TENANT",
    "MAX_QUESTION_CHARS",
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
    "ocr_options",
]
