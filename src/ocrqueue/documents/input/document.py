"""Open and validate an uploaded file, then hand out its pages one at a time."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
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
from ocrqueue.documents.input.images import ImagePage, decode_frame, image_frame_count, iter_image_pages, open_image
from ocrqueue.documents.input.limits import DocumentLimits
from ocrqueue.documents.input.pages import PageInput
from ocrqueue.documents.input.pdf import iter_pdf_pages, open_pdf, pdf_metadata, pdf_page_count
from ocrqueue.documents.input.pdfium_lock import PDFIUM_LOCK
from ocrqueue.documents.input.sniff import InputFormat, describe_unknown, sniff_format
from ocrqueue.documents.model import DocumentMeta

_SNIFF_BYTES = 4096


class Document:
    """An opened, validated input. Use as a context manager (or call close()) to free PDFium memory."""

    def __init__(
        self,
        size: int,
        fmt: InputFormat,
        limits: DocumentLimits,
        pdf: pdfium.PdfDocument | None,
        image: Image.Image | None,
        page_count: int,
        first_page: ImagePage | None = None,
    ) -> None:
        self._size = size
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
        return self.select(range(start, self.page_count))

    def select(self, indices: Iterable[int]) -> Iterator[PageInput]:
        """Yield the pages at ``indices`` (from 0, ascending), loading each only when asked."""
        wanted = list(indices)
        if any(not 0 <= i < self.page_count for i in wanted):
            raise ValueError(f"page indices must be within 0..{self.page_count - 1}")
        if self._pdf is not None:
            yield from iter_pdf_pages(self._pdf, wanted, self.limits)
        elif self._first_page is not None:
            if wanted:
                yield self._first_page
        elif self._image is not None:
            yield from iter_image_pages(self._image, wanted, self.limits)

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


def open_document(source: bytes | Path, limits: DocumentLimits | None = None) -> Document:
    """Validate ``source`` (type from magic bytes, size, page count, pixels) and open it.

    A path is read by PDFium and Pillow as they need it, never whole into memory: how a worker
    opens a spooled upload of thousands of pages. Raises a DocumentError subclass for anything
    that can never be processed.
    """
    limits = limits or DocumentLimits()
    if isinstance(source, Path):
        size = source.stat().st_size
        with source.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    else:
        size, head = len(source), source[:_SNIFF_BYTES]
    if not size:
        raise EmptyDocumentError("the file is empty")
    if size > limits.max_file_bytes:
        raise TooLargeError(f"the file is {size:,} bytes, over the limit of {limits.max_file_bytes:,} bytes")
    fmt = sniff_format(head)
    if fmt is None:
        raise UnsupportedTypeError(
            f"unsupported file type: this looks like {describe_unknown(head)}; "
            "send a PDF, PNG, JPEG, TIFF, WebP or BMP file"
        )
    if fmt is InputFormat.PDF:
        pdf = open_pdf(source)
        count = pdf_page_count(pdf)
        _check_count(count, limits, pdf)
        return Document(size, fmt, limits, pdf, None, count)
    image = open_image(source, fmt, limits)
    count = image_frame_count(image, fmt)
    _check_count(count, limits, None)
    if count == 1:
        # A single image is decoded up front, so damage is reported by open_document itself.
        first = decode_frame(image, 0, limits)
        image.close()
        return Document(size, fmt, limits, None, None, count, first)
    return Document(size, fmt, limits, None, image, count)


def count_pages(path: Path) -> int:
    """The number of pages of a PDF or frames of an image, reading no page: for checking a page
    selection when a file is submitted. Raises a DocumentError for a file that cannot be opened."""
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    fmt = sniff_format(head)
    if fmt is None:
        raise UnsupportedTypeError(f"unsupported file type: this looks like {describe_unknown(head)}")
    if fmt is InputFormat.PDF:
        pdf = open_pdf(path)
        try:
            return pdf_page_count(pdf)
        finally:
            with PDFIUM_LOCK:
                pdf.close()
    with Image.open(path) as image:
        return image_frame_count(image, fmt)


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
