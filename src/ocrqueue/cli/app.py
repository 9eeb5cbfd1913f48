"""Typer application: `serve`, `worker`, `db`, `tasks`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import httpx
import typer
from rich.console import Console
from rich.table import Column, Table

from ocrqueue import __version__
from ocrqueue.cli import documents, remote, server
from ocrqueue.cli.keys import keys_app
from ocrqueue.cli.runtime import (
    Announcer,
    LogFormatOption,
    TestKinds,
    children_log_format,
    configure_logging,
    refuse_unknown_kinds,
)
from ocrqueue.client import ClientError
from ocrqueue.service import ANY_TENANT, RESULT_FORMATS, Conflict, NotFound, ResultFormat, TaskStatus, TaskView
from ocrqueue.service.live import Live
from ocrqueue.service.runtime import (
    REPLACE_EXIT_CODE,
    NodeMetrics,
    breaker_reports,
    keep_page_buffers,
    new_worker,
    open_tasks,
    pipeline_resources,
    prepare_database,
    run_workers_until_signalled,
    serve_metrics,
    start_metrics_run,
    stop_with_parent,
    supervise_until_signalled,
    supervisor,
    webhook_outbox,
)
from ocrqueue.service.schema import newest_queue_revision, queue_revision
from ocrqueue.settings import Settings

T = TypeVar("T")

app = typer.Typer(
    help="ocrqueue: a self-hosted document OCR service on a durable task queue.\n\n"
    "Exit codes: 0 success, 1 a task or command failed, 2 bad usage, 3 not found.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


def _print_version(asked: bool) -> None:
    if asked:
        print(f"ocrqueue {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit.")
    ] = False,
) -> None:
    """ocrqueue: a self-hosted document OCR service on a durable task queue."""


db_app = typer.Typer(help="Database schema and maintenance.", no_args_is_help=True)
tasks_app = typer.Typer(help="Inspect and steer tasks directly in the database.", no_args_is_help=True)
app.command()(server.serve)
app.command()(documents.convert)
app.command()(documents.submit)
app.add_typer(db_app, name="db")
app.add_typer(keys_app, name="keys")
app.add_typer(tasks_app, name="tasks")
console = Console()

EXIT_FAILED = 1
EXIT_NOT_FOUND = 3

Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Log debug messages.")]
Concurrency = Annotated[
    int | None, typer.Option("--concurrency", "-c", min=1, help="Task slots per worker.", show_default="settings")
]
Kinds = Annotated[
    list[str] | None, typer.Option("--kind", "-k", help="Task kind to claim; repeat for several.", show_default="all")
]
Processes = Annotated[
    int | None,
    typer.Option(
        "--processes",
        "-p",
        min=0,
        help="Worker processes to run under this one, each replaced when it exits or crashes "
        "(0: work in this process).",
        show_default="settings.worker_processes",
    ),
]
WorkerId = Annotated[str | None, typer.Option(hidden=True, help="Given by a supervising process.")]


@app.command()
def worker(
    verbose: Verbose = False,
    concurrency: Concurrency = None,
    kinds: Kinds = None,
    processes: Processes = None,
    worker_id: WorkerId = None,
    log_format: LogFormatOption = None,
    test_kinds: TestKinds = False,
) -> None:
    """Run task slots on this machine until SIGTERM (graceful) or a second signal (release at once).

    A worker that ran max_tasks_per_process tasks or grew past max_rss_mb hands its tasks back and
    exits with status 75, for its supervisor (--processes, systemd, Docker) to start a fresh one.
    With metrics_port set, the supervising process serves the metrics of all its worker processes.
    Example: OCRQUEUE_DATABASE_URL=postgresql://ocr@db/ocr ocrqueue worker --concurrency 2 --processes 2
    """
    settings = Settings()
    as_json = configure_logging(verbose, log_format or settings.log_format)
    refuse_unknown_kinds(settings, kinds or settings.worker_kinds, test_kinds)
    announce = Announcer(as_json)
    count = settings.worker_processes if processes is None else processes
    if count > 0:
        slots = concurrency or settings.worker_concurrency
        run = start_metrics_run(settings) if settings.metrics_port is not None else None
        try:
            with open_tasks(settings) as tasks:
                supervising = supervisor(
                    tasks,
                    settings,
                    count,
                    slots,
                    kinds or settings.worker_kinds,
                    verbose,
                    log_format=children_log_format(as_json),
                    metrics=run,
                    test_kinds=test_kinds,
                )
                announce.say(f"supervising {count} worker process(es) of {slots} slot(s) each")
                serve_metrics(settings, NodeMetrics(tasks, run))
                supervise_until_signalled(supervising)
        finally:
            if run is not None:
                run.close()
        return
    if worker_id is not None:  # started by a supervisor: stop when it is gone
        stop_with_parent()
    keep_page_buffers(settings.page_buffer_keep_mb)
    with open_tasks(settings) as tasks, pipeline_resources() as resources:
        runner = new_worker(
            tasks,
            settings,
            concurrency=concurrency,
            kinds=kinds or settings.worker_kinds or None,
            worker_id=worker_id,
            test_kinds=test_kinds,
            resources=resources,
        )
        announce.say(f"worker {runner.worker_id} on {tasks.backend}, kinds: {', '.join(runner.kinds)}")
        if worker_id is None:  # a supervised child's metrics reach its supervisor's port instead
            serve_metrics(settings, NodeMetrics(tasks))
        with webhook_outbox(settings, tasks.store), breaker_reports(settings, tasks.store, runner.worker_id):
            run_workers_until_signalled([runner])
    if runner.replace_reason is not None:
        raise typer.Exit(REPLACE_EXIT_CODE)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply pending schema migrations (safe to run while workers are running).

    Example: OCRQUEUE_DATABASE_URL=postgresql://postgres@localhost/ocr ocrqueue db upgrade
    """
    settings = Settings()
    url = prepare_database(settings.model_copy(update={"auto_migrate": True}))
    console.print(f"schema at revision {queue_revision(url)} (newest {newest_queue_revision()})")


@db_app.command("current")
def db_current() -> None:
    """Print the schema revision of the database and the newest this version knows (exit 1 if behind).

    Example: ocrqueue db current
    """
    settings = Settings()
    revision = queue_revision(settings.resolved_database_url)
    console.print(f"database: {revision or 'empty'}; newest: {newest_queue_revision()}")
    if revision != newest_queue_revision():
        raise typer.Exit(EXIT_FAILED)


@db_app.command("prune")
def db_prune(
    days: Annotated[
        float | None,
        typer.Option(help="Age in days (0: every finished task).", show_default="settings.prune_after_days"),
    ] = None,
) -> None:
    """Delete finished tasks (with their history) older than the given age.

    Example: ocrqueue db prune --days 7
    """
    settings = Settings()
    with open_tasks(settings) as tasks:
        total = tasks.prune(settings.prune_after_days if days is None else days)
    console.print(f"pruned {total} task(s)")


@tasks_app.command("enqueue")
def tasks_enqueue(
    kind: Annotated[str, typer.Argument(help="Task kind, e.g. noop.")],
    payload: Annotated[str, typer.Option(help="JSON payload.")] = "{}",
    count: Annotated[int, typer.Option(min=1, help="How many identical tasks.")] = 1,
    priority: Annotated[int, typer.Option(help="Higher runs first.")] = 0,
    dedup_key: Annotated[str | None, typer.Option(help="Same key returns the same live task.")] = None,
    test_kinds: TestKinds = False,
) -> None:
    """Submit tasks of any registered kind (the OCR upload path is `ocrqueue submit`).

    `noop` checks a deployment end to end: a worker claims it and completes it at once.
    Example: ocrqueue tasks enqueue noop && ocrqueue tasks list
    """
    try:
        body = json.loads(payload)
    except json.JSONDecodeError as exc:
        console.print(f"[red]--payload is not valid JSON: {exc}[/red]")
        raise typer.Exit(2) from exc
    settings = Settings()
    refuse_unknown_kinds(settings, [kind], test_kinds)
    with open_tasks(settings) as tasks:
        submitted = tasks.enqueue(kind, body, count=count, priority=priority, dedup_key=dedup_key)
    for result in submitted:
        console.print(f"{result.task.id} {'created' if result.created else 'existing'}")


@tasks_app.command("list")
def tasks_list(
    status: Annotated[list[TaskStatus] | None, typer.Option(help="Filter by status; repeatable.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 20,
    cursor: Annotated[str | None, typer.Option(help="Continue after this task id.")] = None,
    server: remote.Server = None,
    api_key: remote.ApiKey = None,
) -> None:
    """List tasks, newest first.

    Example: ocrqueue tasks list --status dead_letter --limit 50
    """
    if (client := remote.remote_client(server, api_key)) is not None:
        with client:
            _remote(lambda: remote.tasks_list(client, [str(s) for s in status or []], limit))
        return
    with open_tasks(Settings()) as tasks:
        page = tasks.list(statuses=status, limit=limit, cursor=cursor)
    table = Table("kind", "status", "attempts", "progress", "error")
    table.columns.insert(0, Column("id", no_wrap=True, min_width=36))
    for t in page.tasks:
        progress = f"{t.progress_done}/{t.progress_total}" if t.progress_total else str(t.progress_done)
        table.add_row(t.id, t.kind, t.status, f"{t.attempts}/{t.max_attempts}", progress, t.error_message or "")
    console.print(table)
    if page.next_cursor:
        console.print(f"more: --cursor {page.next_cursor}")


@tasks_app.command("show")
def tasks_show(task_id: str, server: remote.Server = None, api_key: remote.ApiKey = None) -> None:
    """Show one task with its event history.

    Example: ocrqueue tasks show 01a2269d-108c-73d7-8d61-d464655ea577
    """
    if (client := remote.remote_client(server, api_key)) is not None:
        with client:
            _remote(lambda: remote.tasks_show(client, task_id))
        return
    try:
        with open_tasks(Settings()) as tasks:
            task = tasks.get(task_id, ANY_TENANT)
            events = tasks.events(task_id)
    except NotFound as exc:
        console.print(f"[red]no task {task_id}[/red]")
        raise typer.Exit(EXIT_NOT_FOUND) from exc
    for name, value in _shown_fields(task).items():
        console.print(f"[bold]{name}[/bold]: {value}")
    table = Table("at", "event", "attempt", "token", "worker", "detail")
    for e in events:
        table.add_row(
            e.at.isoformat(), e.type, str(e.attempt), str(e.lease_token), e.worker_id or "", json.dumps(e.detail)
        )
    console.print(table)


@tasks_app.command("cancel")
def tasks_cancel(task_id: str, server: remote.Server = None, api_key: remote.ApiKey = None) -> None:
    """Cancel a task: pending ones at once, running ones at their worker's next check.

    Example: ocrqueue tasks cancel 01a2269d-108c-73d7-8d61-d464655ea577
    """
    if (client := remote.remote_client(server, api_key)) is not None:
        with client:
            cancelled = _remote(lambda: client.cancel(task_id))
        requested = " (cancel requested)" if cancelled.data.get("cancel_requested") else ""
        console.print(f"{cancelled.id}: {cancelled.status}{requested}")
        return
    with open_tasks(Settings()) as tasks:
        try:
            task = tasks.cancel(task_id)
        except NotFound as exc:
            console.print(f"[red]no task {task_id}[/red]")
            raise typer.Exit(EXIT_NOT_FOUND) from exc
        except Conflict:
            task = tasks.get(task_id)  # already finished: nothing to cancel
    console.print(f"{task.id}: {task.status}{' (cancel requested)' if task.cancel_requested else ''}")


@tasks_app.command("retry")
def tasks_retry(task_id: str, server: remote.Server = None, api_key: remote.ApiKey = None) -> None:
    """Move a dead-lettered task back to pending with fresh attempts.

    Example: ocrqueue tasks retry 01a2269d-108c-73d7-8d61-d464655ea577
    """
    if (client := remote.remote_client(server, api_key)) is not None:
        with client:
            retried = _remote(lambda: client.retry(task_id))
        console.print(f"{retried.id}: {retried.status}")
        return
    try:
        with open_tasks(Settings()) as tasks:
            task = tasks.retry(task_id)
    except (NotFound, Conflict) as exc:
        console.print(f"[red]task {task_id} is not in dead_letter[/red]")
        raise typer.Exit(EXIT_FAILED) from exc
    console.print(f"{task.id}: {task.status}")


@tasks_app.command("result")
def tasks_result(
    task_id: str,
    format: Annotated[
        str, typer.Option("--format", "-f", help="markdown (md), json, pdf, text, html, hocr or alto.")
    ] = "markdown",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    server: remote.Server = None,
    api_key: remote.ApiKey = None,
) -> None:
    """Print (or save) a completed OCR task's Markdown, JSON, searchable PDF, text, HTML, hOCR or ALTO.

    Example: ocrqueue tasks result 01a2…-…  -f pdf -o contract.pdf
    """
    format = "markdown" if format == "md" else format
    if format not in RESULT_FORMATS:
        console.print(f"[red]--format must be one of {', '.join(RESULT_FORMATS)}[/red]")
        raise typer.Exit(2)
    if format == "pdf" and output is None:
        console.print("[red]a PDF needs --output FILE[/red]")
        raise typer.Exit(2)
    chosen: ResultFormat = format
    if (client := remote.remote_client(server, api_key)) is not None:
        with client:
            _remote(lambda: remote.tasks_result(client, task_id, chosen, output))
        return
    with open_tasks(Settings()) as tasks:
        try:
            data = tasks.result(task_id, chosen)
        except NotFound as exc:
            console.print(f"[red]no task {task_id}[/red]")
            raise typer.Exit(EXIT_NOT_FOUND) from exc
        except Conflict as exc:
            task = tasks.get(task_id)
            console.print(f"[red]task {task_id} is a {task.kind} task in {task.status}; no document result[/red]")
            raise typer.Exit(EXIT_FAILED) from exc
    if output is None:
        sys.stdout.write(data.decode())
    else:
        output.write_bytes(data)
        console.print(f"wrote {output}")


@tasks_app.command("wait")
def tasks_wait(
    task_id: str,
    timeout: Annotated[float, typer.Option(help="Seconds before giving up.")] = 600.0,
    server: remote.Server = None,
    api_key: remote.ApiKey = None,
) -> None:
    """Wait until a task reaches a terminal state; exit 0 only if it completed.

    Example: ocrqueue tasks wait 01a2269d-108c-73d7-8d61-d464655ea577 --timeout 60
    """
    if (client := remote.remote_client(server, api_key)) is not None:
        with client:
            code = _remote(lambda: remote.tasks_wait(client, task_id, timeout))
        raise typer.Exit(code)
    with open_tasks(Settings()) as tasks:  # closing the store closes its listening connection
        live = Live(tasks)
        try:
            task = live.wait([task_id], timeout)[task_id]
        finally:
            live.close()
    if task is None:
        raise typer.Exit(EXIT_NOT_FOUND)
    if not task.status.terminal:
        console.print(f"[red]{task_id} still {task.status} after {timeout}s[/red]")
        raise typer.Exit(EXIT_FAILED)
    console.print(f"{task.id}: {task.status} {task.error_message or ''}")
    if task.status is not TaskStatus.COMPLETED:
        raise typer.Exit(EXIT_FAILED)


def _shown_fields(task: TaskView) -> dict[str, object]:
    """The task as `tasks show` prints it: its fields, with the payload as stored."""
    shown = {name: getattr(task, name) for name in TaskView.__dataclass_fields__}
    shown["payload"] = shown.pop("raw_payload")
    return shown


def _remote(call: Callable[[], T]) -> T:
    """Run a request to the server, turning its failure into a message and an exit code."""
    try:
        return call()
    except (ClientError, httpx.HTTPError) as exc:
        raise remote.fail(exc) from exc


def main() -> None:
    app()


__all__ = ["app", "main"]
