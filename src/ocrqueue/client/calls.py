"""What the sync and async clients share: the task model and errors, each API call as a `Call`
(built once, sent as often as the retry policy allows), and reading the server's answers."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import httpx

from ocrqueue.client.retries import RETRY_STATUSES, Attempts, Failure, RetryPolicy, parse_retry_after

ResultFormat = Literal["markdown", "json", "pdf", "text", "html", "hocr", "alto"]
TERMINAL = frozenset({"completed", "cancelled", "dead_letter"})
_SUFFIX_FORMATS: dict[str, ResultFormat] = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".pdf": "pdf"}
_SUFFIX_FORMATS |= {".txt": "text", ".html": "html", ".htm": "html", ".hocr": "hocr", ".xml": "alto"}
CHUNK = 1 << 16
RECONNECTS = 5
"""Failed reopenings in a row after which `events` raises."""


class ClientError(Exception):
    """The server refused a request: `status` is the HTTP status, `code` its stable error code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class WaitTimeout(Exception):
    """`wait` gave up before the task ended; `task` is how it was last seen."""

    def __init__(self, task: Task, timeout: float) -> None:
        super().__init__(f"task {task.id} is still {task.status} after {timeout:g}s")
        self.task = task


@dataclass(frozen=True)
class Task:
    """A task as the server shows it; `data` is the whole JSON object (events, links, answer, …)."""

    id: str
    kind: str
    status: str
    filename: str | None
    progress_done: int
    progress_total: int | None
    progress_step: str | None
    error_kind: str | None
    error_message: str | None
    data: dict[str, Any]

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Task:
        progress = data.get("progress") or {}
        error = data.get("error") or {}
        return cls(
            id=data["id"],
            kind=data["kind"],
            status=data["status"],
            filename=data.get("filename"),
            progress_done=int(progress.get("done") or 0),
            progress_total=progress.get("total"),
            progress_step=progress.get("step"),
            error_kind=error.get("kind"),
            error_message=error.get("message"),
            data=data,
        )


def format_for(path: str | Path) -> ResultFormat:
    """The result format a file name asks for by its suffix (.md, .json, .pdf, .txt, .html, .hocr;
    .xml is ALTO)."""
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIX_FORMATS:
        suffixes = ", ".join(_SUFFIX_FORMATS)
        raise ValueError(f"cannot tell the format from {str(path)!r}: use {suffixes} (.xml: ALTO), or pass format=")
    return _SUFFIX_FORMATS[suffix]


# -- calls --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Upload:
    """The file of a submit, readable from its start once per attempt: a path is opened again, a
    seekable stream rewound to where it was; a stream that cannot seek is sent once only."""

    name: str
    path: Path | None = None
    stream: IO[bytes] | None = None
    start: int | None = None

    @classmethod
    def of(cls, file: str | Path | IO[bytes], filename: str | None) -> Upload:
        if isinstance(file, str | Path):
            return cls(Path(filename or Path(file).name).name, path=Path(file))
        name = Path(filename or str(getattr(file, "name", None) or "upload")).name
        try:
            start = file.tell() if file.seekable() else None
        except OSError:
            start = None
        return cls(name, stream=file, start=start)

    @property
    def repeatable(self) -> bool:
        return self.path is not None or self.start is not None

    @contextlib.contextmanager
    def opened(self) -> Iterator[IO[bytes]]:
        if self.path is not None:
            with self.path.open("rb") as stream:
                yield stream
            return
        assert self.stream is not None
        if self.start is not None:
            self.stream.seek(self.start)
        yield self.stream


@dataclass(frozen=True)
class Call:
    """One API request, independent of the client sending it. `idempotent`: the same request twice
    does what it does once, so a lost answer may be retried."""

    method: str
    path: str
    idempotent: bool = True
    params: dict[str, Any] | None = None
    data: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    upload: Upload | None = None

    def attempts(self, policy: RetryPolicy, rng: random.Random) -> Attempts:
        """This call's attempts: a stream that cannot be rewound gets one."""
        if self.upload is not None and not self.upload.repeatable:
            policy = dataclasses.replace(policy, attempts=1)
        return Attempts(policy, self.idempotent, rng=rng)

    @contextlib.contextmanager
    def files(self) -> Iterator[dict[str, tuple[str, IO[bytes]]] | None]:
        """The multipart file of this attempt, read from its start (None without an upload)."""
        if self.upload is None:
            yield None
            return
        with self.upload.opened() as stream:
            yield {"file": (self.upload.name, stream)}


def submit_call(
    file: str | Path | IO[bytes],
    *,
    filename: str | None,
    mode: str | None,
    engine: str | None,
    languages: Sequence[str] | None,
    dpi: int | None,
    pages: str | None,
    priority: int,
    max_attempts: int | None,
    force: bool,
    callback_url: str | None,
    idempotency_key: str | None,
) -> Call:
    """A submit that makes one task however often its attempts arrive. The caller's
    `Idempotency-Key` is sent with every attempt; without one, the server's own deduplication (same
    file, options and tenant: the same task) makes a repeated attempt return the first one's task,
    and with `force` (which turns that off) a random key made here, once, is sent instead. (A key
    on every submit would replace the server's deduplication by content with a per-call one.)"""
    fields: dict[str, str] = {"priority": str(priority)}
    for name, value in (
        ("mode", mode),
        ("engine", engine),
        ("dpi", dpi),
        ("pages", pages),
        ("max_attempts", max_attempts),
    ):
        if value is not None:
            fields[name] = str(value)
    if languages:
        fields["languages"] = ",".join(languages)
    if force:
        fields["force"] = "true"
    if callback_url:
        fields["callback_url"] = callback_url
    key = idempotency_key or (f"ocrqueue-client-{uuid.uuid4()}" if force else None)
    headers = {"Idempotency-Key": key} if key else {}
    return Call("POST", "/api/v1/tasks", data=fields, headers=headers, upload=Upload.of(file, filename))


def get_call(task_id: str) -> Call:
    return Call("GET", f"/api/v1/tasks/{task_id}")


def list_call(status: Sequence[str], kind: Sequence[str], limit: int, cursor: str | None) -> Call:
    params: dict[str, Any] = {"status": list(status), "kind": list(kind), "limit": min(200, limit)}
    if cursor:
        params["cursor"] = cursor
    return Call("GET", "/api/v1/tasks", params=params)


def cancel_call(task_id: str) -> Call:
    return Call("POST", f"/api/v1/tasks/{task_id}/cancel")


def retry_call(task_id: str) -> Call:
    """Not idempotent: a second retry of a task the first one already started is refused."""
    return Call("POST", f"/api/v1/tasks/{task_id}/retry", idempotent=False)


def delete_call(task_id: str) -> Call:
    return Call("DELETE", f"/api/v1/tasks/{task_id}")


def result_call(task_id: str, format: ResultFormat) -> Call:
    return Call("GET", f"/api/v1/tasks/{task_id}/result", params={"format": format})


def events_path(task_id: str) -> str:
    return f"/api/v1/tasks/{task_id}/events"


SSE_HEADERS = {"Accept": "text/event-stream"}


# -- answers ------------------------------------------------------------------------------------


def failure_of(exc: httpx.TransportError) -> Failure | None:
    """How far a failed attempt got, or None for an error no retry can mend (bad URL, bad TLS setup)."""
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        return Failure.NOT_SENT
    if isinstance(exc, httpx.ReadError | httpx.WriteError | httpx.RemoteProtocolError | httpx.TimeoutException):
        return Failure.LOST
    return None


def retry_wait(attempts: Attempts, response: httpx.Response) -> float | None:
    """The wait before trying again after this answer, or None to keep it (a success, a refusal, or
    a retryable status with no attempt or time left)."""
    if response.status_code not in RETRY_STATUSES:
        return None
    return attempts.after(response.status_code, parse_retry_after(response.headers.get("retry-after")))


def attempt_timeout(timeout: httpx.Timeout, remaining: float) -> httpx.Timeout:
    """The client's timeouts, none longer than what is left of the call's deadline."""

    def bounded(value: float | None) -> float:
        return max(0.001, remaining if value is None else min(value, remaining))

    return httpx.Timeout(
        connect=bounded(timeout.connect),
        read=bounded(timeout.read),
        write=bounded(timeout.write),
        pool=bounded(timeout.pool),
    )


def check(response: httpx.Response) -> None:
    """Raise `ClientError` for a refusal, with the server's stable code when its JSON error body has one."""
    if response.status_code < 400:
        return
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        code, message = "http_error", response.text[:500] or response.reason_phrase
    raise ClientError(response.status_code, code, message)


def task_of(response: httpx.Response) -> Task:
    check(response)
    return Task.from_json(response.json())


def page_of(response: httpx.Response) -> tuple[list[Task], str | None]:
    """One page of a task list and the cursor of the next (None on the last)."""
    check(response)
    page = response.json()
    return [Task.from_json(task) for task in page["tasks"]], page.get("next_cursor")


@dataclass
class EventParser:
    """Server-sent event lines in; (event, data) out for each event, ("keep-alive", "") per comment."""

    event: str = "message"
    data: list[str] = field(default_factory=list)

    def feed(self, line: str) -> tuple[str, str] | None:
        if not line:
            ended = (self.event, "\n".join(self.data)) if self.data else None
            self.event, self.data = "message", []
            return ended
        if line.startswith(":"):
            return ("keep-alive", "")
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self.event = value
        elif name == "data":
            self.data.append(value)
        return None


def followed(event: str, data: str, task_id: str) -> Task | None:
    """The task an event of its stream carries (None for other events); a deletion raises."""
    if event == "deleted":
        raise ClientError(404, "task_not_found", f"task {task_id} was deleted")
    if event in ("task", "end"):
        return Task.from_json(json.loads(data))
    return None


def read_timeout_for(remaining: float | None) -> float:
    """How long `wait` listens to a quiet stream before it looks at its deadline again."""
    return 30.0 if remaining is None else max(0.1, min(30.0, remaining))


def reopenable(exc: Exception) -> bool:
    """Whether a dropped or refused event stream is worth opening again."""
    if isinstance(exc, ClientError):
        return exc.status in RETRY_STATUSES
    return isinstance(exc, httpx.TransportError) and failure_of(exc) is not None
