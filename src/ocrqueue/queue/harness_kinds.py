"""Task kinds for the test and chaos harness, never registered in production.

`sleep` fails, crashes, segfaults, hangs, leaks memory and appends to any file path on demand, and
`parts` spreads its work over child tasks: stand-ins for real work whose faults a test plants. A
worker runs them only when registered by a test or started with `--test-kinds` (see
service/kinds.py), because a payload able to kill a worker or write a file must not be accepted
from anyone on a real installation.
"""

from __future__ import annotations

import ctypes
import os
import time
from typing import Any

from ocrqueue.queue.context import TaskContext
from ocrqueue.queue.errors import PermanentError, TransientError
from ocrqueue.queue.models import JSON, TaskSpec
from ocrqueue.queue.registry import Registry

SLEEP = "sleep"
PARTS = "parts"
TEST_KINDS = (SLEEP, PARTS)
_LEAKED: list[bytearray] = []


def sleep(ctx: TaskContext) -> JSON:
    """A configurable stand-in for real work.

    Payload keys (all optional): `pages` (default 1) units of work, each checkpointed;
    `seconds_per_page` (0); `fail_attempts` (0): attempts up to this number fail with `error`
    ("transient", "permanent", "crash" = exit the process, "segfault" = die of SIGSEGV as a native
    library would, "hang" = stop heartbeating work); `leak_mb` (0): memory each run keeps for
    good, as a leaking native library would (for testing workers that replace themselves);
    `record` a file path to which each run appends "task_id attempt worker_pid" lines.
    Resumes after the last checkpointed page and returns the list of pages it produced.
    """
    payload: dict[str, Any] = ctx.payload or {}
    if record := payload.get("record"):
        _append_line(record, f"{ctx.task.id} {ctx.attempt} {os.getpid()} start")
    pages = int(payload.get("pages", 1))
    per_page = float(payload.get("seconds_per_page", 0.0))
    failing = ctx.attempt <= int(payload.get("fail_attempts", 0))
    error = str(payload.get("error", "transient"))
    done = dict(ctx.checkpoints)
    if leak_mb := int(payload.get("leak_mb", 0)):
        _LEAKED.append(bytearray(os.urandom(1 << 20)) * leak_mb)  # touched, so resident
    for page in range(pages):
        if page in done:
            continue
        ctx.raise_if_cancelled()
        if per_page:
            time.sleep(per_page)
        if failing and page == pages // 2:
            _fail(error, ctx)
        ctx.save_checkpoint(page, {"page": page, "attempt": ctx.attempt})
        done[page] = {"page": page, "attempt": ctx.attempt}
        ctx.report_progress(page + 1, pages, f"page {page + 1} of {pages}")
    if record:
        _append_line(record, f"{ctx.task.id} {ctx.attempt} {os.getpid()} done")
    return {"pages": [done[p] for p in range(pages)]}


def parts(ctx: TaskContext) -> JSON:
    """`sleep`'s work spread over child tasks: a stand-in for a big document read by many workers.

    Payload keys: `pages` (default 1), `part_pages` (default 4): more pages than that are handed to
    children of `part_pages` pages each, which any worker claims; `seconds_per_page` (0); `record`
    a file to which every page appends "task_id attempt worker_pid page" before its checkpoint and
    progress are saved, so a page seen as done is in the file even if its process dies next. Each
    page is checkpointed and resumed as in `sleep`; the parent, once every child completed, returns
    their pages in order, as one task reading them all would (`{"pages": [{"page", "attempt"}, ...]}`).
    """
    payload: dict[str, Any] = ctx.payload or {}
    if ctx.is_parent:
        return {"pages": [page for child in ctx.children() for page in child.result["pages"]]}
    pages = int(payload.get("pages", 1))
    size = max(1, int(payload.get("part_pages", 4)))
    if "first" not in payload and ctx.task.parent_id is None and pages > size:
        ctx.report_progress(0, pages, "splitting")
        ranges = [(first, min(first + size, pages)) for first in range(0, pages, size)]
        ctx.fan_out([TaskSpec(PARTS, payload | {"first": first, "last": last}) for first, last in ranges])
    first, last = int(payload.get("first", 0)), int(payload.get("last", pages))
    per_page = float(payload.get("seconds_per_page", 0.0))
    done = dict(ctx.checkpoints)
    for page in range(first, last):
        if page in done:
            continue
        ctx.raise_if_cancelled()
        if per_page:
            time.sleep(per_page)
        if record := payload.get("record"):
            _append_line(record, f"{ctx.task.id} {ctx.attempt} {os.getpid()} {page}")
        done[page] = {"page": page, "attempt": ctx.attempt}
        ctx.save_checkpoint(page, done[page])
        ctx.report_progress(len(done), last - first, f"page {page + 1} of {pages}")
    return {"pages": [done[p] for p in range(first, last)]}


def _fail(error: str, ctx: TaskContext) -> None:
    if error == "permanent":
        raise PermanentError(f"planted permanent failure on attempt {ctx.attempt}")
    if error == "crash":
        os._exit(70)
    if error == "segfault":
        ctypes.string_at(0)  # reads address 0: SIGSEGV in this thread, as a crashing native library
    if error == "hang":
        time.sleep(3600)
    raise TransientError(f"planted transient failure on attempt {ctx.attempt}")


def _append_line(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def register_test_kinds(registry: Registry) -> Registry:
    registry.register(SLEEP, sleep)
    registry.register(PARTS, parts)
    return registry
