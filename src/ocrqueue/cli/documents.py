"""`ocrqueue convert` (local, no server) and `ocrqueue submit` (onto the queue)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from ocrqueue.cli.runtime import open_configured_store, open_storage
from ocrqueue.documents import (
    DocumentError,
    PageRangeError,
    ProcessOptions,
    ResultWriter,
    keep_page_buffers,
    open_document,
    process_page,
)
from ocrqueue.queue import Task, TaskStatus
from ocrqueue.service.follow import TaskFollower, wait_for_tasks
from ocrqueue.service.submission import Submission, submit_document
from ocrqueue.settings import Settings
from ocrqueue.storage import TooLargeUploadError

console = Console()
EXIT_FAILED = 1

Files = Annotated[list[Path], typer.Argument(exists=True, dir_okay=False, readable=True, help="PDFs or images.")]
Mode = Annotated[str, typer.Option(help="auto: text layer where good, OCR elsewhere; ocr; text.")]
Engine = Annotated[str | None, typer.Option(help="OCR engine [default: settings.default_engine].")]
Languages = Annotated[
    list[str] | None, typer.Option("--lang", "-l", help="OCR language, repeatable [default: settings].")
]
Dpi = Annotated[int | None, typer.Option(help="Render resolution for OCR [default: settings.render_dpi].")]
Pages = Annotated[str | None, typer.Option(help="Only these pages, numbered from 1, e.g. 1-5,9 [default: all].")]


def _options(
    settings: Settings,
    mode: str,
    engine: str | None,
    languages: list[str] | None,
    dpi: int | None,
    pages: str | None = None,
) -> ProcessOptions:
    try:
        return ProcessOptions(
            mode=mode,  # type: ignore[arg-type]
            engine=engine or settings.default_engine,
            languages=tuple(languages or settings.default_languages),
            dpi=dpi or settings.render_dpi,
            pages=pages,
        )
    except DocumentError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )


def convert(
    files: Files,
    output: Annotated[Path, typer.Option("--output", "-o", file_okay=False, help="Directory for the results.")],
    mode: Mode = "auto",
    engine: Engine = None,
    languages: Languages = None,
    dpi: Dpi = None,
    pages: Pages = None,
) -> None:
    """Convert files locally, without a server: OUTPUT/<name>/<name>.md, .json and figure crops beside them.

    Pages are written as they are read, so memory stays flat however long the document.
    Example: ocrqueue convert scan.pdf photo.jpg -o out/ --lang eng --lang chi_sim --pages 1-5,9
    """
    settings = Settings()
    options = _options(settings, mode, engine, languages, dpi, pages)
    keep_page_buffers(settings.page_buffer_keep_mb)
    failed = 0
    with _progress() as progress:
        for path in files:
            bar = progress.add_task(path.name, total=None)
            try:
                _convert_one(path, output / path.stem, options, settings, progress, bar)
            except DocumentError as exc:
                progress.update(bar, description=f"[red]{path.name}: {exc}[/red]")
                failed += 1
    if failed:
        raise typer.Exit(EXIT_FAILED)


def _convert_one(
    path: Path,
    target: Path,
    options: ProcessOptions,
    settings: Settings,
    progress: Progress,
    bar: TaskID,
) -> None:
    """Read `path` page by page into TARGET/<stem>.json and .md (written under temporary names and
    renamed when complete, so a failed file leaves no half result behind)."""
    with open_document(path, settings.document_limits()) as document:
        meta = dataclasses.replace(document.meta, pages=options.pages)
        wanted = options.page_indices(meta.page_count)
        progress.update(bar, total=len(wanted))
        target.mkdir(parents=True, exist_ok=True)
        json_path, markdown_path = target / f"{path.stem}.json", target / f"{path.stem}.md"
        json_tmp, markdown_tmp = (
            json_path.with_name(f".{json_path.name}.tmp"),
            markdown_path.with_name(f".{markdown_path.name}.tmp"),
        )
        try:
            with (
                json_tmp.open("wb") as json_out,
                markdown_tmp.open("wb") as markdown_out,
                ResultWriter(meta, json_out, markdown_out, indent=2, expected=wanted) as writer,
            ):
                for page in document.select(wanted):
                    result = process_page(page, options)
                    for name, data in result.images.items():
                        (target / name).write_bytes(data)
                    writer.add(result)
                    progress.advance(bar)
            json_tmp.replace(json_path)
            markdown_tmp.replace(markdown_path)
        finally:
            json_tmp.unlink(missing_ok=True)
            markdown_tmp.unlink(missing_ok=True)


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
) -> None:
    """Queue files for OCR on the configured database and storage (workers anywhere pick them up).

    Example: ocrqueue submit contract.pdf --lang eng --wait
    """
    settings = Settings()
    options = _options(settings, mode, engine, languages, dpi, pages)
    store = open_configured_store(settings)
    storage = open_storage(settings)
    task_ids: dict[str, str] = {}
    for path in files:
        with path.open("rb") as stream:
            try:
                result = submit_document(
                    store,
                    storage,
                    stream,
                    Submission(path.name, options, priority=priority, force=force),
                    settings.max_upload_bytes,
                )
            except (TooLargeUploadError, PageRangeError) as exc:
                console.print(f"[red]{path.name}: {exc}[/red]")
                continue
        task_ids[result.task.id] = path.name
        console.print(f"{result.task.id} {path.name} {'queued' if result.created else 'already ' + result.task.status}")
    if not wait:
        raise typer.Exit(0 if len(task_ids) == len(files) else EXIT_FAILED)
    failures = len(files) - len(task_ids)
    with _progress() as progress:
        bars = {task_id: progress.add_task(name, total=None) for task_id, name in task_ids.items()}

        def show(task_id: str, task: Task | None) -> None:
            if task is None:
                progress.update(bars[task_id], description=f"[red]{task_ids[task_id]}: deleted")
                return
            progress.update(bars[task_id], completed=task.progress_done, total=task.progress_total)
            if task.status.terminal and task.status is not TaskStatus.COMPLETED:
                description = f"[red]{task_ids[task_id]}: {task.status} {task.error_message}"
                progress.update(bars[task_id], description=description)

        follower = TaskFollower(store)
        try:
            last = wait_for_tasks(follower, task_ids, timeout=None, on_update=show)
        finally:
            follower.close()
            store.close()  # and with it the store's listening connection
        failures += sum(1 for task in last.values() if task is None or task.status is not TaskStatus.COMPLETED)
    if failures:
        raise typer.Exit(EXIT_FAILED)
