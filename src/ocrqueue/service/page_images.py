"""The viewer's page images: rendered once from the stored upload, then kept beside the results.

The upload is spooled to a temporary file that PDFium reads as it needs, so the process serving a
page image of a 5,000-page document never holds the document in memory.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from ocrqueue.documents import DocumentLimits, open_document
from ocrqueue.queue import Task
from ocrqueue.service.keys import page_image_key
from ocrqueue.storage import ObjectNotFoundError, Storage

PAGE_IMAGE_DPI = 100


class PageImageNotFoundError(LookupError):
    """No such page, or the upload is gone."""


def page_image(storage: Storage, task: Task, number: int, limits: DocumentLimits) -> bytes:
    """Page `number` (from 1) of an OCR task's upload as a PNG. Raises PageImageNotFoundError, or a
    DocumentError for an upload that cannot be read."""
    key = page_image_key(task.id, number)
    try:
        return storage.get(key)
    except ObjectNotFoundError:
        pass
    with tempfile.TemporaryDirectory(prefix="ocrqueue-page-") as spool:
        try:
            source = storage.download(task.payload["input"], Path(spool))
        except ObjectNotFoundError as exc:
            raise PageImageNotFoundError("the uploaded file is no longer stored") from exc
        with open_document(source, limits) as document:
            if not 1 <= number <= document.page_count:
                raise PageImageNotFoundError(f"page {number} is outside 1-{document.page_count}")
            pages = document.select([number - 1])  # the page is closed when this iterator goes
            image = next(pages).render(PAGE_IMAGE_DPI).image
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    storage.put(key, buffer.getvalue())
    return buffer.getvalue()
