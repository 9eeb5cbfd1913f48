"""A small synchronous client for an ocrqueue server, over HTTP only (no database, no storage).

::

    from ocrqueue.client import Client

    with Client("http://ocr.example.com:8000", api_key="oq_…") as client:
        task = client.submit("scan.pdf", languages=["eng", "chi_sim"])
        for update in client.events(task.id):          # live, from the server-sent events
            print(update.status, update.progress_done, "/", update.progress_total)
        done = client.wait(task.id, timeout=600)        # or just wait
        client.download(done.id, "scan.md")             # format from the suffix: .md .json .pdf .txt .html .hocr .xml
        client.download(done.id, "scan.searchable.pdf")

Errors from the server raise `ClientError` with its HTTP status, stable error code and message.
It depends on httpx alone and imports nothing else of ocrqueue, so it runs anywhere.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

import httpx

ResultFormat = Literal["markdown", "json", "pdf", "text", "html", "hocr", "alto"]
TERMINAL = frozenset({"completed", "cancelled", "dead_letter"})
_SUFFIX_FORMATS: dict[str, ResultFormat] = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".pdf": "pdf"}
_SUFFIX_FORMATS |= {".txt": "text", ".html": "html", ".htm": "html", ".hocr": "hocr", ".xml": "alto"}
_CHUNK = 1 << 16
_RECONNECTS = 5
_RECONNECT_SECONDS = 1.0


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


class Client:
    """One connection pool to one server; use it as a context manager or call `close()`."""

    def __init__(
        self,
        server: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=server.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(timeout),
            transport=transport,
            follow_redirects=False,
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- tasks ----------------------------------------------------------------------------------

    def submit(
        self,
        file: str | Path | IO[bytes],
        *,
        filename: str | None = None,
        mode: Literal["auto", "ocr", "text"] | None = None,
        engine: str | None = None,
        languages: Sequence[str] | None = None,
        dpi: int | None = None,
        pages: str | None = None,
        priority: int = 0,
        max_attempts: int | None = None,
        force: bool = False,
        callback_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> Task:
        """Upload a PDF or image for OCR (streamed, never read whole): the new task, or the existing
        one when the server already has this file with these options (unless `force`). `pages`
        reads only those pages, numbered from 1 (e.g. "1-5,9")."""
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
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        if isinstance(file, str | Path):
            with Path(file).open("rb") as stream:
                return self._submit(stream, filename or Path(file).name, fields, headers)
        return self._submit(file, filename or str(getattr(file, "name", None) or "upload"), fields, headers)

    def _submit(self, stream: IO[bytes], name: str, fields: dict[str, str], headers: dict[str, str]) -> Task:
        response = self._http.post(
            "/api/v1/tasks", files={"file": (Path(name).name, stream)}, data=fields, headers=headers
        )
        return Task.from_json(self._json(response))

    def get(self, task_id: str) -> Task:
        return Task.from_json(self._json(self._http.get(f"/api/v1/tasks/{task_id}")))

    def list(self, status: Sequence[str] = (), kind: Sequence[str] = (), limit: int = 50) -> list[Task]:
        """The newest tasks first, up to `limit` (following the server's pages)."""
        found: list[Task] = []
        cursor: str | None = None
        while len(found) < limit:
            params: dict[str, Any] = {"status": list(status), "kind": list(kind), "limit": min(200, limit - len(found))}
            if cursor:
                params["cursor"] = cursor
            page = self._json(self._http.get("/api/v1/tasks", params=params))
            found.extend(Task.from_json(task) for task in page["tasks"])
            cursor = page.get("next_cursor")
            if not cursor:
                break
        return found

    def cancel(self, task_id: str) -> Task:
        return Task.from_json(self._json(self._http.post(f"/api/v1/tasks/{task_id}/cancel")))

    def retry(self, task_id: str) -> Task:
        return Task.from_json(self._json(self._http.post(f"/api/v1/tasks/{task_id}/retry")))

    def delete(self, task_id: str) -> None:
        self._check(self._http.delete(f"/api/v1/tasks/{task_id}"))

    # -- following ------------------------------------------------------------------------------

    def events(self, task_id: str, *, read_timeout: float = 60.0) -> Iterator[Task]:
        """The task on every change, from the server-sent events, ending with it in its terminal state.
        A dropped stream is opened again (the server sends the current state first); after
        `_RECONNECTS` failed tries in a row the transport error is raised."""
        failures = 0
        while True:
            try:
                for event, data in self._sse(f"/api/v1/tasks/{task_id}/events", read_timeout):
                    failures = 0
                    if event == "deleted":
                        raise ClientError(404, "task_not_found", f"task {task_id} was deleted")
                    if event in ("task", "end"):
                        task = Task.from_json(json.loads(data))
                        yield task
                        if event == "end" or task.terminal:
                            return
            except httpx.TransportError:
                failures += 1
                if failures > _RECONNECTS:
                    raise
                time.sleep(_RECONNECT_SECONDS)

    def _sse(self, path: str, read_timeout: float) -> Iterator[tuple[str, str]]:
        """(event, data) for each event of the stream, and ("keep-alive", "") for each comment line."""
        timeout = httpx.Timeout(self._http.timeout.connect, read=read_timeout)
        with self._http.stream("GET", path, headers={"Accept": "text/event-stream"}, timeout=timeout) as response:
            if response.status_code >= 400:
                response.read()
                self._check(response)
            event, data = "message", list[str]()
            for line in response.iter_lines():
                if not line:
                    if data:
                        yield event, "\n".join(data)
                    event, data = "message", []
                elif line.startswith(":"):
                    yield "keep-alive", ""
                else:
                    name, _, value = line.partition(":")
                    value = value.removeprefix(" ")
                    if name == "event":
                        event = value
                    elif name == "data":
                        data.append(value)

    def wait(self, task_id: str, timeout: float | None = None) -> Task:
        """Block until the task ends (told by its event stream) and return it; WaitTimeout after `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        last = self.get(task_id)
        while not last.terminal:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise WaitTimeout(last, timeout or 0.0)
            read_timeout = 30.0 if remaining is None else max(0.1, min(30.0, remaining))
            try:
                for event, data in self._sse(f"/api/v1/tasks/{task_id}/events", read_timeout):
                    if event in ("task", "end"):
                        last = Task.from_json(json.loads(data))
                    if last.terminal or (deadline is not None and time.monotonic() >= deadline):
                        break
            except httpx.ReadTimeout:
                continue  # quiet for read_timeout: the loop checks the deadline and listens again
            except httpx.TransportError:
                time.sleep(_RECONNECT_SECONDS)
                last = self.get(task_id)
        return last

    # -- results --------------------------------------------------------------------------------

    def result(self, task_id: str, format: ResultFormat = "markdown") -> bytes:
        """A completed OCR task's result in memory; use `download` for big ones."""
        response = self._http.get(f"/api/v1/tasks/{task_id}/result", params={"format": format})
        self._check(response)
        return response.content

    def download(self, task_id: str, path: str | Path, format: ResultFormat | None = None) -> Path:
        """Stream a completed OCR task's result to `path` (format from its suffix unless given);
        the file appears whole or not at all."""
        target = Path(path)
        chosen = format or format_for(target)
        partial = target.with_name(target.name + ".part")
        with self._http.stream("GET", f"/api/v1/tasks/{task_id}/result", params={"format": chosen}) as response:
            if response.status_code >= 400:
                response.read()
                self._check(response)
            with partial.open("wb") as out:
                for chunk in response.iter_bytes(_CHUNK):
                    out.write(chunk)
        partial.replace(target)
        return target

    # -- errors ---------------------------------------------------------------------------------

    def _json(self, response: httpx.Response) -> Any:
        self._check(response)
        return response.json()

    @staticmethod
    def _check(response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        try:
            error = response.json()["error"]
            code, message = str(error["code"]), str(error["message"])
        except (ValueError, KeyError, TypeError):
            code, message = "http_error", response.text[:500] or response.reason_phrase
        raise ClientError(response.status_code, code, message)
