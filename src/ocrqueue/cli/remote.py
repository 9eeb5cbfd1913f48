"""`submit` and `tasks …` against a server over HTTP (`--server URL`), through `ocrqueue.client`:
for machines with no access to the database or the storage."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import httpx
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from ocrqueue.client import Client, ClientError, ResultFormat, Task, WaitTimeout
from ocrqueue.service import FORMATS
from ocrqueue.settings import Settings

console = Console()
EXIT_FAILED = 1
EXIT_NOT_FOUND = 3

Server = Annotated[
    str | None,
    typer.Option("--server", help="Talk to this ocrqueue server over HTTP.", show_default="settings.server_url"),
]
ApiKey = Annotated[str | None, typer.Option("--api-key", help="API key for --server.", show_default="settings.api_key")]


def remote_client(server: str | None, api_key: str | None) -> Client | None:
    """A client when a server is given (option or OCRQUEUE_SERVER_URL), else None: work locally."""
    settings = Settings()
    url = server or settings.server_url
    if not url:
        return None
    return Client(url, api_key or settings.api_key)


def fail(exc: Exception) -> typer.Exit:
    """Print why a request failed and return the exit to raise (3 for not found)."""
    if isinstance(exc, ClientError):
        console.print(f"[red]{exc.message} ({exc.code})[/red]")
        return typer.Exit(EXIT_NOT_FOUND if exc.status == 404 else EXIT_FAILED)
    console.print(f"[red]cannot reach the server: {exc}[/red]")
    return typer.Exit(EXIT_FAILED)


def submit_remote(
    client: Client,
    files: Sequence[Path],
    *,
    wait: bool,
    output: Path | None,
    formats: Sequence[ResultFormat],
    mode: str,
    engine: str | None,
    languages: Sequence[str] | None,
    dpi: int | None,
    pages: str | None,
    priority: int,
    force: bool,
    callback_url: str | None,
) -> int:
    """Submit each file; with --wait or --output follow them live (SSE) and write results; the exit code."""
    submitted: dict[str, Path] = {}
    failures = 0
    for path in files:
        try:
            task = client.submit(
                path,
                mode=mode,  # type: ignore[arg-type]
                engine=engine,
                languages=languages,
                dpi=dpi,
                pages=pages,
                priority=priority,
                force=force,
                callback_url=callback_url,
            )
        except (ClientError, httpx.HTTPError) as exc:
            console.print(f"[red]{path.name}: {exc}[/red]")
            failures += 1
            continue
        submitted[task.id] = path
        console.print(f"{task.id} {path.name} {'queued' if task.status == 'pending' else task.status}")
    if not (wait or output) or not submitted:
        return EXIT_FAILED if failures else 0
    finished = _follow(client, submitted)
    for task_id, ended in finished.items():
        if ended is None or ended.status != "completed":
            failures += 1
        elif output is not None:
            failures += _write_results(client, ended, submitted[task_id], output, formats)
    return EXIT_FAILED if failures else 0


def _follow(client: Client, submitted: dict[str, Path]) -> dict[str, Task | None]:
    """One Rich bar per task, moved by its event stream (one thread each); the tasks as they ended."""
    finished: dict[str, Task | None] = {}
    progress = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )

    def follow(task_id: str, bar: TaskID) -> None:
        name = submitted[task_id].name
        last: Task | None = None
        try:
            for last in client.events(task_id):
                progress.update(bar, completed=last.progress_done, total=last.progress_total)
        except (ClientError, httpx.HTTPError) as exc:
            progress.update(bar, description=f"[red]{name}: {exc}")
            last = None
        if last is not None and last.status != "completed":
            progress.update(bar, description=f"[red]{name}: {last.status} {last.error_message or ''}")
        finished[task_id] = last

    with progress:
        threads = [
            threading.Thread(target=follow, args=(task_id, progress.add_task(path.name, total=None)), daemon=True)
            for task_id, path in submitted.items()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return finished


def _write_results(client: Client, task: Task, source: Path, output: Path, formats: Sequence[ResultFormat]) -> int:
    output.mkdir(parents=True, exist_ok=True)
    failures = 0
    for fmt in formats:
        target = output / f"{source.stem}{FORMATS[fmt].suffix}"
        try:
            client.download(task.id, target, fmt)
        except (ClientError, httpx.HTTPError) as exc:
            console.print(f"[red]{source.name}: {fmt}: {exc}[/red]")
            failures += 1
            continue
        console.print(f"wrote {target}")
    return failures


def tasks_list(client: Client, statuses: Sequence[str], limit: int) -> None:
    table = Table("id", "kind", "status", "progress", "error")
    for t in client.list(status=statuses, limit=limit):
        progress = f"{t.progress_done}/{t.progress_total}" if t.progress_total else str(t.progress_done)
        table.add_row(t.id, t.kind, t.status, progress, t.error_message or "")
    console.print(table)


def tasks_show(client: Client, task_id: str) -> None:
    task = client.get(task_id)
    for name, value in task.data.items():
        if name != "events":
            console.print(f"[bold]{name}[/bold]: {json.dumps(value) if isinstance(value, dict | list) else value}")
    table = Table("at", "event", "attempt", "worker", "detail")
    for e in task.data.get("events") or []:
        table.add_row(e["at"], e["type"], str(e["attempt"]), e.get("worker_id") or "", json.dumps(e["detail"]))
    console.print(table)


def tasks_result(client: Client, task_id: str, fmt: ResultFormat, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(client.result(task_id, fmt).decode())
        return
    client.download(task_id, output, fmt)
    console.print(f"wrote {output}")


def tasks_wait(client: Client, task_id: str, timeout: float) -> int:
    try:
        task = client.wait(task_id, timeout)
    except WaitTimeout as exc:
        console.print(f"[red]{task_id} still {exc.task.status} after {timeout}s[/red]")
        return EXIT_FAILED
    console.print(f"{task.id}: {task.status} {task.error_message or ''}")
    return 0 if task.status == "completed" else EXIT_FAILED
