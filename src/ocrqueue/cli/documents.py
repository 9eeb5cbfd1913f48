"""`ocrqueue convert` (local, no server) and `ocrqueue submit` (onto the queue)."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from ocrqueue.cli import remote
from ocrqueue.service import (
    RESULT_FORMATS,
    InvalidInput,
    ProcessOptions,
    ResultFormat,
    ServiceError,
    Submission,
    Tasks,
    TaskStatus,
    TaskView,
    ocr_options,
)
from ocrqueue.service.convert import convert_file
from ocrqueue.service.live import Live
from ocrqueue.service.runtime import keep_page_buffers, open_tasks, pipeline_resources
from ocrqueue.settings import Settings

console = Console()
EXIT_FAILED = 1

Files = Annotated[list[Path], typer.Argument(exists=True, dir_okay=False, readable=True, help="PDFs or images.")]
Mode = Annotated[str, typer.Option(help="auto: text layer where good, OCR elsewhere; ocr; text.")]
Engine = Annotated[
    str | None, typer.Option(help="OCR engine, or auto (per page).", show_default="settings.default_engine")
]
Languages = Annotated[
    list[str] | None,
    typer.Option("--lang", "-l", help="OCR language (repeatable), or auto (per page).", show_default="settings"),
]
Dpi = Annotated[int | None, typer.Option(help="Render resolution for OCR.", show_default="settings.render_dpi")]
Pages = Annotated[str | None, typer.Option(help="Only these pages, numbered from 1, e.g. 1-5,9.", show_default="all")]


def _options(
    settings: Settings,
    mode: str,
    engine: str | None,
    languages: list[str] | None,
    dpi: int | None,
    pages: str | None = None,
) -> ProcessOptions:
    try:
        return ocr_options(settings, mode=mode, engine=engine, languages=languages, dpi=dpi, pages=pages)
    except InvalidInput as exc:
        console.print(f"[red]{exc.message}[/red]")
        raise typer.Exit(2) from exc


def _set_total(progress: Progress, bar: TaskID, total: int) -> None:
    progress.update(bar, total=total)


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )


FORMAT_NAMES = {"md": "markdown", "txt": "text"}
FORMAT_CHOICES = "md, json, pdf (searchable PDF), text (txt), html, hocr or alto"
FORMAT_HELP = f"{FORMAT_CHOICES}; repeatable."


def _formats(given: list[str] | None) -> set[ResultFormat]:
    chosen = {FORMAT_NAMES.get(f, f) for f in (given or ["md", "json"])}
    unknown = chosen - set(RESULT_FORMATS)
    if unknown:
        console.print(f"[red]unknown --format {', '.join(sorted(unknown))}: use {FORMAT_CHOICES}[/red]")
        raise typer.Exit(2)
    return {f for f in RESULT_FORMATS if f in chosen}


def convert(
    files: Files,
    output: Annotated[Path, typer.Option("--output", "-o", file_okay=False, help="Directory for the results.")],
    mode: Mode = "auto",
    engine: Engine = None,
    languages: Languages = None,
    dpi: Dpi = None,
    pages: Pages = None,
    formats: Annotated[
        list[str] | None,
        typer.Option("--format", "-f", help=FORMAT_HELP, show_default="md and json"),
    ] = None,
) -> None:
    """Convert files locally, without a server: OUTPUT/<name>/<name>.md, .json, .pdf, .txt, .html, .hocr,
    .alto.xml and figure crops beside them.

    Pages are written as they are read, so memory stays flat however long the document.
    Example: ocrqueue convert scan.pdf photo.jpg -o out/ --lang eng --lang chi_sim -f md -f pdf --pages 1-5,9
    """
    settings = Settings()
    options = _options(settings, mode, engine, languages, dpi, pages)
    wanted = _formats(formats)
    keep_page_buffers(settings.page_buffer_keep_mb)
    failed = 0
    with _progress() as progress, pipeline_resources() as resources:
        for path in files:
            bar = progress.add_task(path.name, total=None)
            try:
                convert_file(
                    path,
                    output / path.stem,
                    options,
                    settings.document_limits(),
                    wanted,
                    on_opened=functools.partial(_set_total, progress, bar),
                    on_page=functools.partial(progress.advance, bar),
                    resources=resources,
                )
            except InvalidInput as exc:
                progress.update(bar, description=f"[red]{path.name}: {exc}[/red]")
                failed += 1
    if failed:
        raise typer.Exit(EXIT_FAILED)


def submit(
    files: Files,
    wait: Annotated[bool, typer.Option("--wait", help="Show progress until every task finishes.")] = False,
    mode: Mode = "auto",
    engine: Engine = None,
    languages: Languages = None,
    dpi: Dpi = None,
    priority: Annotated[int, typer.Option(help="Higher runs first.")] = 0,
    force: Annotated[bool, typer.Option(help="Run again even if the same file and options were submitted.")] = False,
    pages: Pages = None,
    server: remote.Server = None,
    api_key: remote.ApiKey = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", file_okay=False, help="With --server: wait, then write results here."),
    ] = None,
    formats: Annotated[
        list[str] | None,
        typer.Option("--format", "-f", help=f"With --output: {FORMAT_HELP}", show_default="md"),
    ] = None,
    callback_url: Annotated[
        str | None, typer.Option(help="With --server: POSTed a signed JSON body when each task ends.")
    ] = None,
) -> None:
    """Queue files for OCR: on a server over HTTP (--server, no database or storage needed), or
    directly on the configured database and storage (workers anywhere pick them up).

    Examples: ocrqueue submit contract.pdf --lang eng --wait |
    ocrqueue submit scan.pdf --server http://ocr:8000 --api-key oq_… -o out/ -f md -f pdf
    """
    settings = Settings()
    client = remote.remote_client(server, api_key)
    if client is not None:
        with client:
            code = remote.submit_remote(
                client,
                files,
                wait=wait,
                output=output,
                formats=sorted(_formats(formats or ["md"])),
                mode=mode,
                engine=engine,
                languages=languages,
                dpi=dpi,
                pages=pages,
                priority=priority,
                force=force,
                callback_url=callback_url,
            )
        raise typer.Exit(code)
    if output is not None or callback_url is not None:
        console.print("[red]--output and --callback-url need --server (or use `ocrqueue tasks result`)[/red]")
        raise typer.Exit(2)
    options = _options(settings, mode, engine, languages, dpi, pages)
    with open_tasks(settings) as tasks:
        task_ids = _queue(tasks, files, Submission("", options, priority=priority, force=force))
        failures = len(files) - len(task_ids)
        if wait:
            failures += _follow(tasks, task_ids)
    if failures:
        raise typer.Exit(EXIT_FAILED)


def _queue(tasks: Tasks, files: list[Path], submission: Submission) -> dict[str, str]:
    """Submit each file; the new (or existing) tasks' ids and file names."""
    task_ids: dict[str, str] = {}
    for path in files:
        with path.open("rb") as stream:
            try:
                result = tasks.submit_document(stream, dataclasses.replace(submission, filename=path.name))
            except ServiceError as exc:
                console.print(f"[red]{path.name}: {exc.message}[/red]")
                continue
        task_ids[result.task.id] = path.name
        console.print(f"{result.task.id} {path.name} {'queued' if result.created else 'already ' + result.task.status}")
    return task_ids


def _follow(tasks: Tasks, task_ids: dict[str, str]) -> int:
    """Show progress until every task finished; how many did not complete."""
    with _progress() as progress:
        bars = {task_id: progress.add_task(name, total=None) for task_id, name in task_ids.items()}

        def show(task_id: str, task: TaskView | None) -> None:
            if task is None:
                progress.update(bars[task_id], description=f"[red]{task_ids[task_id]}: deleted")
                return
            progress.update(bars[task_id], completed=task.progress_done, total=task.progress_total)
            if task.status.terminal and task.status is not TaskStatus.COMPLETED:
                description = f"[red]{task_ids[task_id]}: {task.status} {task.error_message}"
                progress.update(bars[task_id], description=description)

        live = Live(tasks)
        try:
            last = live.wait(task_ids, timeout=None, on_update=show)
        finally:
            live.close()
    return sum(1 for task in last.values() if task is None or task.status is not TaskStatus.COMPLETED)
