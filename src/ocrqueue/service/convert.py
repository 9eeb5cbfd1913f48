"""Converting a file on this machine, without a queue: `ocrqueue convert`.

Pages are written as they are read (figure crops, then the JSON and Markdown through
`ResultWriter`), so memory stays flat however long the document; the searchable PDF is made
afterwards from the JSON just written, read back a page at a time."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from pathlib import Path

from ocrqueue.documents import (
    DocumentError,
    DocumentLimits,
    PipelineResources,
    ProcessOptions,
    ResultWriter,
    open_document,
    process_page,
)
from ocrqueue.documents.output.reader import iter_result_pages
from ocrqueue.documents.output.searchable_pdf import write_searchable_pdf
from ocrqueue.service.errors import InvalidInput


def _partial(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp")


def convert_file(
    source: Path,
    target: Path,
    options: ProcessOptions,
    limits: DocumentLimits,
    formats: Collection[str] = ("markdown", "json"),
    *,
    on_opened: Callable[[int], None] = lambda pages: None,
    on_page: Callable[[], None] = lambda: None,
    resources: PipelineResources | None = None,
) -> list[Path]:
    """Convert `source` into TARGET/<stem>.md, .json and .pdf (those in `formats`) with its figure
    crops beside them; returns the files written. Each result is written under a temporary name and
    renamed when complete, so a failed file leaves no half result behind. `on_opened(pages to
    read)` and `on_page()` follow the work; pages share `resources` (the layout model and threads;
    None: the process's default). Raises InvalidInput when the file cannot be read
    (damaged, encrypted, over a limit, a page selection past its pages...)."""
    stem = source.stem
    outputs = {fmt: target / f"{stem}.{'md' if fmt == 'markdown' else fmt}" for fmt in formats}
    json_path, markdown_path = _partial(target / f"{stem}.json"), _partial(target / f"{stem}.md")
    pdf_path = _partial(target / f"{stem}.pdf")
    try:
        with open_document(source, limits) as document:
            meta = dataclasses.replace(document.meta, pages=options.pages)
            wanted = options.page_indices(meta.page_count)
            on_opened(len(wanted))
            target.mkdir(parents=True, exist_ok=True)
            with (
                json_path.open("wb") as json_out,
                markdown_path.open("wb") as markdown_out,
                ResultWriter(meta, json_out, markdown_out, indent=2, expected=wanted) as writer,
            ):
                for page in document.select(wanted):
                    result = process_page(page, options, resources)
                    for name, data in result.images.items():
                        (target / name).write_bytes(data)
                    writer.add(result)
                    on_page()
        if "pdf" in outputs:
            with json_path.open("rb") as pages, pdf_path.open("wb") as pdf:
                write_searchable_pdf(source, iter_result_pages(pages), pdf, limits, options.page_selection)
        written = {"json": json_path, "markdown": markdown_path, "pdf": pdf_path}
        for fmt, final in outputs.items():
            written[fmt].replace(final)
    except DocumentError as exc:
        raise InvalidInput(exc.code, str(exc)) from exc
    finally:
        for partial in (json_path, markdown_path, pdf_path):
            partial.unlink(missing_ok=True)
    return list(outputs.values())
