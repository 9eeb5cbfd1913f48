"""Logs an operator can ship: one JSON event per line, tied to the request, task and worker.

Who a line is about comes from context variables, never from each call site: the queue's worker
runtime binds the worker id and the running task (queue/logcontext.py), and the API binds the id
of the request it is answering (`bound_request_id`, from `X-Request-ID` or a new one). uvicorn's
access lines come through the same formatter with their fields split out.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Literal

from ocrqueue.queue.logcontext import current_task, current_worker_id

LogFormat = Literal["auto", "rich", "json"]
REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
_ACCESS_LOGGER = "uvicorn.access"

_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("ocrqueue_request_id", default=None)


def accepted_request_id(raw: str | None) -> str:
    """The client's request id when it is 1-128 characters of letters, digits and `._:-` (so it is
    safe in logs, headers and task events), else a new one: a hostile value is replaced, not echoed."""
    if raw is not None and _REQUEST_ID.match(raw):
        return raw
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    return _request_id.get()


@contextlib.contextmanager
def bound_request_id(request_id: str) -> Iterator[None]:
    """Lines logged inside (the handler's, uvicorn's access line) carry `request_id`."""
    token = _request_id.set(request_id)
    try:
        yield
    finally:
        _request_id.reset(token)


def use_json(log_format: LogFormat) -> bool:
    """`auto`: Rich on a terminal, JSON when stderr goes to a file, a pipe or a log collector."""
    return log_format == "json" or (log_format == "auto" and not sys.stderr.isatty())


class JsonFormatter(logging.Formatter):
    """timestamp, level, logger, message, and where known task_id, kind, tenant, worker_id, request_id;
    an access line adds client, method, path, http_version and status."""

    def format(self, record: logging.LogRecord) -> str:
        event: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        task = current_task()
        if task is not None:
            event.update(task_id=task.task_id, kind=task.kind, tenant=task.tenant, attempt=task.attempt)
        event["worker_id"] = current_worker_id()
        event["request_id"] = current_request_id()
        if record.name == _ACCESS_LOGGER and isinstance(record.args, tuple) and len(record.args) == 5:
            client, method, path, http_version, status = record.args
            event.update(client=client, method=method, path=path, http_version=http_version, status=status)
        if record.exc_info:
            event["exception"] = self.formatException(record.exc_info)
        return json.dumps({k: v for k, v in event.items() if v is not None}, ensure_ascii=False, default=str)
