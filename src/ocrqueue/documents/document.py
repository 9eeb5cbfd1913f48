"""Open and validate an uploaded file, then hand out its pages one at a time."""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType

import pypdfium2 as pdfium
from PIL import Image

from ocrqueue.documents.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    TooLargeError,
    TooManyPagesError,
    UnsupportedTypeError,
)
from ocrqueue.documents.images import ImagePage, decode_frame, image_frame_count, iter_image_pages, open_image
from ocrqueue.documents.limits import DocumentLimits
from ocrqueue.documents.model import DocumentMeta
from ocrqueue.documents.pages import PageInput
from ocrqueue.documents.pdf import iter_pdf_pages, open_pdf, pdf_metadata, pdf_page_count
from ocrqueue.documents.pdfium_lock import PDFIUM_LOCK
from ocrqueue.documents.sniff import InputFormat, describe_unknown, sniff_format


class Document:
    """An opened, validated input. Use as a context manager (or call close()) to free PDFium memory."""

    def __init__(
        self,
        data: bytes,
        fmt: InputFormat,
        limits: DocumentLimits,
        pdf: pdfium.PdfDocument | None,
        image: Image.Image | None,
        page_count: int,
        first_page: ImagePage | None = None,
    ) -> None:
        self._size = len(data)
        self.format = fmt
        self.limits = limits
        self._pdf = pdf
        self._image = image
        self.page_count = page_count
        self._first_page = first_page

    @property
    def meta(self) -> DocumentMeta:
        info = pdf_metadata(self._pdf) if self._pdf is not None else {}
        return DocumentMeta(
            format=self.format.value,
            media_type=self.format.media_type,
            page_count=self.page_count,
            size_bytes=self._size,
            title=info.get("Title"),
            author=info.get("Author"),
        )

    def pages(self, start: int = 0) -> Iterator[PageInput]:
        """Yield pages from index ``start`` on, loading each only when asked (resume after a crash)."""
        if not 0 <= start <= self.page_count:
            raise ValueError(f"start page {start} is outside 0..{self.page_count}")
        if self._pdf is not None:
            yield from iter_pdf_pages(self._pdf, start, self.limits)
        elif self._first_page is not None:
            if start == 0:
                yield self._first_page
        elif self._image is not None:
            yield from iter_image_pages(self._image, self.page_count, start, self.limits)

    def close(self) -> None:
        if self._pdf is not None:
            with PDFIUM_LOCK:
                self._pdf.close()
            self._pdf = None
        if self._image is not None:
            self._image.close()
            self._image = None
        self._first_page = None

    def __enter__(self) -> Document:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def open_document(data: bytes, limits: DocumentLimits | None = None) -> Document:
    """Validate ``data`` (type from magic bytes, size, page count, pixels) and open it.

    Raises a DocumentError subclass for anything that can never be processed.
    """
    limits = limits or DocumentLimits()
    if not data:
        raise EmptyDocumentError("the file is empty")
    if len(data) > limits.max_file_bytes:
        raise TooLargeError(f"the file is {len(data):,} bytes, over the limit of {limits.max_file_bytes:,} bytes")
    fmt = sniff_format(data)
    if fmt is None:
        raise UnsupportedTypeError(
            f"unsupported file type: this looks like {describe_unknown(data)}; "
            "send a PDF, PNG, JPEG, TIFF, WebP or BMP file"
        )
    if fmt is InputFormat.PDF:
        pdf = open_pdf(data)
        count = pdf_page_count(pdf)
        _check_count(count, limits, pdf)
        return Document(data, fmt, limits, pdf, None, count)
    image = open_image(data, fmt, limits)
    count = image_frame_count(image, fmt)
    _check_count(count, limits, None)
    if count == 1:
        # A single image is decoded up front, so damage is reported by open_document itself.
        first = decode_frame(image, 0, limits)
        image.close()
        return Document(data, fmt, limits, None, None, count, first)
    return Document(data, fmt, limits, None, image, count)


def _check_count(count: int, limits: DocumentLimits, pdf: pdfium.PdfDocument | None) -> None:
    problem: Exception | None = None
    if count == 0:
        problem = CorruptDocumentError("the document has no pages")
    elif count > limits.max_pages:
        problem = TooManyPagesError(f"the document has {count:,} pages, over the limit of {limits.max_pages:,}")
    if problem is not None:
        if pdf is not None:
            with PDFIUM_LOCK:
                pdf.close()
        raise problem
