"""Converting a file on this machine, without a queue: `ocrqueue convert`.

Pages are read as the OCR task reads them (service/page_reading.py) and written as they come
(figure crops, then the JSON and Markdown through `ResultWriter`), so memory stays flat however
long the document; the searchable PDF, text, HTML, hOCR and ALTO are made afterwards from the JSON
just written, read back a page at a time."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

from ocrqueue.documents import (
    DocumentError,
    DocumentLimits,
    PipelineResources,
    ProcessOptions,
    ResultWriter,
)
from ocrqueue.documents.output.reader import iter_result_pages
from ocrqueue.documents.output.searchable_pdf import write_searchable_pdf
from ocrqueue.service.errors import InvalidInput
from ocrqueue.service.page_reading import open_selected
from ocrqueue.service.result_formats import (
    DERIVED_FORMATS,
    FORMATS,
    RESULT_FORMATS,
    Rendering,
    ResultFormat,
    derived_chunks,
)
from ocrqueue.service.results import PAGE_IMAGE_DPI


def _partial(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp")


def convert_file(
    source: Path,
    target: Path,
    options: ProcessOptions,
    limits: DocumentLimits,
    formats: Collection[ResultFormat] = ("markdown", "json"),
    *,
    on_opened: Callable[[int], None] = lambda pages: None,
    on_page: Callable[[], None] = lambda: None,
    resources: PipelineResources | None = None,
) -> list[Path]:
    """Convert `source` into TARGET/<stem>.md, .json, .pdf, .txt, .html, .hocr and .alto.xml (those
    in `formats`) with its figure crops beside them; returns the files written. Each result is
    written under a temporary name and renamed when complete, so a failed file leaves no half result
    behind. The searchable PDF, text, HTML, hOCR and ALTO are written from the JSON read back a page
    at a time (hOCR names `source` as each page's image, with `ppageno`; its and ALTO's boxes are
    pixels at PAGE_IMAGE_DPI). `on_opened(pages to read)` and `on_page()` follow the work; pages
    share `resources` (the layout model and threads; None: the process's default). Raises
    InvalidInput when the file cannot be read (damaged, encrypted, over a limit, a page selection
    past its pages...)."""
    stem = source.stem
    outputs = {fmt: target / f"{stem}{FORMATS[fmt].suffix}" for fmt in formats}
    partials = {fmt: _partial(target / f"{stem}{FORMATS[fmt].suffix}") for fmt in RESULT_FORMATS}
    json_path, markdown_path = partials["json"], partials["markdown"]
    try:
        with open_selected(source, options, limits, resources) as selected:
            page_count = len(selected.wanted)
            on_opened(page_count)
            target.mkdir(parents=True, exist_ok=True)
            with (
                json_path.open("wb") as json_out,
                markdown_path.open("wb") as markdown_out,
                ResultWriter(selected.meta, json_out, markdown_out, indent=2, expected=selected.wanted) as writer,
            ):
                for result in selected.read(lambda name, data: (target / name).write_bytes(data)):
                    writer.add(result)
                    on_page()
        if "pdf" in outputs:
            with json_path.open("rb") as pages, partials["pdf"].open("wb") as pdf:
                write_searchable_pdf(source, iter_result_pages(pages), pdf, limits, options.page_selection)
        rendering = Rendering(source.name, PAGE_IMAGE_DPI, lambda number: source.name, page_count=page_count)
        for derived in DERIVED_FORMATS:
            if derived in outputs:
                with json_path.open("rb") as pages, partials[derived].open("wb") as out:
                    for chunk in derived_chunks(derived, iter_result_pages(pages), rendering):
                        out.write(chunk)
        for fmt, final in outputs.items():
            partials[fmt].replace(final)
    except DocumentError as exc:
        raise InvalidInput(exc.code, str(exc)) from exc
    finally:
        for partial in partials.values():
            partial.unlink(missing_ok=True)
    return list(outputs.values())
