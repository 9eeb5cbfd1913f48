"""A document task's stored results as clients fetch them: Markdown whose figure links resolve
where the figures are served, figure assets by name, page images rendered once and kept, and the
searchable PDF (made once and kept as well)."""

from __future__ import annotations

import io
import json
import re
import tempfile

from ocrqueue.documents import DocumentError, DocumentLimits, PageResult, open_document
from ocrqueue.documents.searchable_pdf import write_searchable_pdf
from ocrqueue.service.errors import InvalidInput, NotFound
from ocrqueue.service.keys import asset_key, page_image_key, result_json_key, result_pdf_key
from ocrqueue.storage import ObjectNotFoundError, Storage

ASSET_NAME = re.compile(r"^imgs/([A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,200})$")
_FIGURE_FILE = r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,200}"
# A figure is a block of its own: one line `![alt](name)`. Document text never forms one, because
# its `!`, `[` and `(` are escaped (documents/markdown.py), so only the pipeline's own links match.
_FIGURE_LINE = re.compile(rf"^(!\[(?:[^\]\\\n]|\\.)*\]\()({_FIGURE_FILE})\)$", re.MULTILINE)
PAGE_IMAGE_DPI = 100
_PDF_MAX_BYTES = 1 << 40


def link_figures(markdown: str, base: str) -> str:
    """`markdown` with each figure link `name` turned into `base + name`; `base` is where the figures
    are reachable from where the Markdown is read (e.g. `assets/imgs/` beside the result's URL)."""
    return _FIGURE_LINE.sub(lambda m: f"{m.group(1)}{base}{m.group(2)})", markdown)


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
    try:
        data = storage.get(upload)
    except ObjectNotFoundError as exc:
        raise NotFound("page_not_found", "the uploaded file is no longer stored") from exc
    try:
        with open_document(data, limits) as document:
            if not 1 <= number <= document.meta.page_count:
                raise NotFound("page_not_found", f"page {number} is outside 1-{document.meta.page_count}")
            for page in document.pages(start=number - 1):
                image = page.render(PAGE_IMAGE_DPI).image
                break
    except DocumentError as exc:
        raise InvalidInput("unreadable_document", str(exc)) from exc
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    storage.put(key, buffer.getvalue())
    return buffer.getvalue()


def searchable_pdf(storage: Storage, task_id: str, upload: str, limits: DocumentLimits) -> bytes:
    """The searchable PDF of a completed document task, made from its JSON and upload on first
    request, then kept with its other results."""
    key = result_pdf_key(task_id)
    try:
        return storage.get(key)
    except ObjectNotFoundError:
        pass
    try:
        source = storage.get(upload)
        document = json.loads(storage.get(result_json_key(task_id)))
    except ObjectNotFoundError as exc:
        raise NotFound("result_gone", f"the upload or result of task {task_id} is no longer stored") from exc
    pages = (PageResult.from_dict(page) for page in document["pages"])
    with tempfile.TemporaryFile() as spool:
        try:
            write_searchable_pdf(source, pages, spool, limits)
        except DocumentError as exc:
            raise InvalidInput("unreadable_document", str(exc)) from exc
        spool.seek(0)
        storage.put_stream(key, spool, _PDF_MAX_BYTES)
    return storage.get(key)
