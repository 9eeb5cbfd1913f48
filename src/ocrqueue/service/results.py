"""A document task's stored results as clients fetch them: Markdown whose figure links resolve
where the figures are served, figure assets by name, page images rendered once and kept, and the
searchable PDF (made once and kept as well).

Nothing here holds a whole document: uploads are spooled to temporary files that PDFium reads as it
needs, results are streamed from storage a chunk at a time, and the searchable PDF is made from
the stored JSON read a page at a time."""

from __future__ import annotations

import io
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ocrqueue.documents import DocumentError, DocumentLimits, PageSelection, open_document
from ocrqueue.documents.output.reader import iter_result_pages
from ocrqueue.documents.output.searchable_pdf import write_searchable_pdf
from ocrqueue.service.errors import InvalidInput, NotFound
from ocrqueue.service.storage_keys import asset_key, page_image_key, result_json_key, result_pdf_key
from ocrqueue.storage import ObjectNotFoundError, Storage

ASSET_NAME = re.compile(r"^imgs/([A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,200})$")
_FIGURE_FILE = r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,200}"
# A figure is a block of its own: one line `![alt](name)`. Document text never forms one, because
# its `!`, `[` and `(` are escaped (documents/output/markdown.py), so only the pipeline's own links match.
_FIGURE_LINE = re.compile(rf"^(!\[(?:[^\]\\\n]|\\.)*\]\()({_FIGURE_FILE})\)$", re.MULTILINE)
PAGE_IMAGE_DPI = 100


def link_figures(markdown: str, base: str) -> str:
    """`markdown` with each figure link `name` turned into `base + name`; `base` is where the figures
    are reachable from where the Markdown is read (e.g. `assets/imgs/` beside the result's URL)."""
    return _FIGURE_LINE.sub(lambda m: f"{m.group(1)}{base}{m.group(2)})", markdown)


def linked_markdown(chunks: Iterator[bytes], base: str) -> Iterator[bytes]:
    """`link_figures` over a Markdown streamed in chunks: a figure link is one line, so each run of
    complete lines is rewritten as it arrives (a chunk may end inside a line or a character)."""
    rest = b""
    for chunk in chunks:
        rest += chunk
        cut = rest.rfind(b"\n") + 1
        if cut:
            yield link_figures(rest[:cut].decode(), base).encode()
            rest = rest[cut:]
    if rest:
        yield link_figures(rest.decode(), base).encode()


def asset(storage: Storage, task_id: str, name: str) -> tuple[bytes, str]:
    """A figure crop: `name` is `imgs/` + the file name its block and the Markdown give."""
    matched = ASSET_NAME.match(name)
    if matched is None or ".." in name:
        raise NotFound("asset_not_found", f"no asset {name!r}")
    try:
        data = storage.get(asset_key(task_id, matched.group(1)))
    except ObjectNotFoundError as exc:
        raise NotFound("asset_not_found", f"no asset {name!r}") from exc
    return data, "image/png" if name.endswith(".png") else "image/jpeg"


def page_image(storage: Storage, task_id: str, upload: str, number: int, limits: DocumentLimits) -> bytes:
    """Page `number` (from 1) of the upload as a PNG, rendered on first request and then kept."""
    key = page_image_key(task_id, number)
    try:
        return storage.get(key)
    except ObjectNotFoundError:
        pass
    with tempfile.TemporaryDirectory(prefix="ocrqueue-page-") as spool:
        try:
            source = storage.download(upload, Path(spool))
        except ObjectNotFoundError as exc:
            raise NotFound("page_not_found", "the uploaded file is no longer stored") from exc
        try:
            with open_document(source, limits) as document:
                if not 1 <= number <= document.page_count:
                    raise NotFound("page_not_found", f"page {number} is outside 1-{document.page_count}")
                pages = document.select([number - 1])  # the page is closed when this iterator goes
                image = next(pages).render(PAGE_IMAGE_DPI).image
        except DocumentError as exc:
            raise InvalidInput("unreadable_document", str(exc)) from exc
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    storage.put(key, buffer.getvalue())
    return buffer.getvalue()


def searchable_pdf(
    storage: Storage, task_id: str, upload: str, limits: DocumentLimits, selected_pages: str | None = None
) -> str:
    """The storage key of a completed document task's searchable PDF, made from its JSON and upload
    on first request, then kept with its other results. With `selected_pages` (the task's page
    selection, e.g. "1-5,9"), it holds those pages only, as the JSON does."""
    key = result_pdf_key(task_id)
    if storage.exists(key):
        return key
    with tempfile.TemporaryDirectory(prefix="ocrqueue-pdf-") as spool:
        try:
            source = storage.download(upload, Path(spool))
            result = storage.download(result_json_key(task_id), Path(spool))
        except ObjectNotFoundError as exc:
            raise NotFound("result_gone", f"the upload or result of task {task_id} is no longer stored") from exc
        selection = None if selected_pages is None else PageSelection.parse(selected_pages)
        output = Path(spool) / "searchable.pdf"
        with result.open("rb") as pages, output.open("wb") as out:
            try:
                write_searchable_pdf(source, iter_result_pages(pages), out, limits, selection)
            except DocumentError as exc:
                raise InvalidInput("unreadable_document", str(exc)) from exc
        storage.put_file(key, output)
    return key
