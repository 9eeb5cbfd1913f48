"""PDF input through pypdfium2: open and validate, count pages, render, read text and rules."""

from __future__ import annotations

import mmap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from ocrqueue.documents.errors import (
    CorruptDocumentError,
    EncryptedPdfError,
    PageRenderError,
    TooFewPixelsError,
    TooManyPixelsError,
)
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.limits import DocumentLimits
from ocrqueue.documents.input.pages import Raster, TextLayer
from ocrqueue.documents.input.pdf_text import read_text_layer
from ocrqueue.documents.input.pdfframe import PageFrame
from ocrqueue.documents.input.pdfgraphics import vector_rules
from ocrqueue.documents.input.pdfium_lock import PDFIUM_LOCK

# Rendering below this resolution makes OCR useless, so a page that only fits lower is refused.
_MIN_RENDER_DPI = 72


def open_pdf(source: bytes | Path) -> pdfium.PdfDocument:
    """Open ``source`` with PDFium (a path is read as needed, never whole), turning its error codes
    into messages a user understands."""
    with PDFIUM_LOCK:
        try:
            return pdfium.PdfDocument(str(source) if isinstance(source, Path) else source)
        except pdfium.PdfiumError as exc:
            code = getattr(exc, "err_code", None)
            if not _declares_encryption(source):
                # PDFium leaves its last error as it was on some failures (an empty page tree), so
                # an earlier encrypted file's code would show up here: only believe it for files
                # that declare encryption at all.
                code = None
            if code == pdfium_c.FPDF_ERR_PASSWORD:
                raise EncryptedPdfError("PDF is encrypted: it needs a password to open") from exc
            if code == pdfium_c.FPDF_ERR_SECURITY:
                raise EncryptedPdfError("PDF is encrypted with an unsupported security scheme") from exc
            raise CorruptDocumentError("PDF is damaged or truncated and could not be opened") from exc


def _declares_encryption(source: bytes | Path) -> bool:
    if isinstance(source, bytes):
        return b"/Encrypt" in source
    with source.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        return mapped.find(b"/Encrypt") >= 0


def pdf_metadata(pdf: pdfium.PdfDocument) -> dict[str, str]:
    with PDFIUM_LOCK:
        return {k: v for k, v in pdf.get_metadata_dict(skip_empty=True).items() if isinstance(v, str)}


def pdf_page_count(pdf: pdfium.PdfDocument) -> int:
    with PDFIUM_LOCK:
        return len(pdf)


def iter_pdf_pages(pdf: pdfium.PdfDocument, indices: Iterable[int], limits: DocumentLimits) -> Iterator[PdfPage]:
    """Load one page at a time and close it once the consumer asks for the next one."""
    for index in indices:
        with PDFIUM_LOCK:
            try:
                raw = pdf.get_page(index)
            except pdfium.PdfiumError as exc:
                raise PageRenderError(f"page {index + 1} could not be loaded: the PDF is damaged") from exc
        page = PdfPage(index, raw, limits)
        try:
            yield page
        finally:
            page.close()


class PageClosedError(RuntimeError):
    """A page was used after ``Document.pages()`` closed it: a caller's mistake, not a bad file
    (no ``DocumentError``: a task reading so must not end as the upload's fault)."""


@dataclass
class PdfPage:
    """A loaded PDF page (implements PageInput)."""

    _index: int
    _page: pdfium.PdfPage
    _limits: DocumentLimits
    _turn: int = 0  # clockwise degrees it is shown turned beyond its /Rotate (``turned``)

    def __post_init__(self) -> None:
        with PDFIUM_LOCK:
            crop = BBox(*self._page.get_bbox())  # left, bottom, right, top in PDF space
            self._frame = PageFrame(crop, (self._page.get_rotation() + self._turn) % 360)
            width, height = self._page.get_size()  # as displayed, i.e. rotated
        self._width, self._height = (height, width) if self._turn in (90, 270) else (width, height)

    def turned(self, turn: int) -> PdfPage:
        """The page shown turned ``turn`` degrees further clockwise (so that its text reads
        upright): its size, boxes and renderings are those of the turned page. It shares the
        loaded page, which only the page it came from closes."""
        return replace(self, _turn=(self._turn + turn) % 360)

    @property
    def index(self) -> int:
        return self._index

    @property
    def frame(self) -> PageFrame:
        """How the page's user space maps to what a reader sees (crop box and rotation)."""
        return self._frame

    @property
    def width(self) -> float:
        return float(self._width)

    @property
    def height(self) -> float:
        return float(self._height)

    def close(self) -> None:
        with PDFIUM_LOCK:
            self._page.close()

    def _loaded(self) -> pdfium.PdfPage:
        """The loaded page; an error that says so once it is closed. ``Document.pages()`` closes
        each page when asked for the next or when the iterator is dropped: ``next(doc.pages())``
        with the iterator not kept hands out a page already closed, which PDFium's binding
        reported as "expected LP_struct_fpdf_page_t__ instance instead of NoneType"."""
        if self._page.raw is None:
            raise PageClosedError(
                f"page {self._index + 1} is closed: Document.pages() closes each page when the next is "
                "asked for or the iterator is dropped; keep the iterator while the page is read"
            )
        return self._page

    def _fit_dpi(self, dpi: int) -> int:
        """Cap the DPI at the configured maximum, and lower it for oversized pages so the bitmap stays
        within the pixel budget (not below 72 dpi) and the hard pixel limit (or refuse the page)."""
        dpi = min(dpi, self._limits.render_dpi)
        area_in2 = (self.width / 72) * (self.height / 72)
        if area_in2 <= 0:
            raise TooFewPixelsError(f"page {self._index + 1} has no area ({self.width:g} x {self.height:g} points)")
        max_dpi = int((self._limits.max_pixels_per_page / area_in2) ** 0.5)
        if max_dpi < _MIN_RENDER_DPI:
            raise TooManyPixelsError(
                f"page {self._index + 1} is too large to render: even at {_MIN_RENDER_DPI} dpi "
                f"it would exceed {self._limits.max_pixels_per_page:,} pixels"
            )
        budget_dpi = max(_MIN_RENDER_DPI, int((self._limits.render_pixel_budget / area_in2) ** 0.5))
        dpi = min(dpi, max_dpi, budget_dpi)
        thinnest = min(self.width, self.height) * dpi / 72
        if thinnest < self._limits.min_page_side_pixels:
            raise TooFewPixelsError(
                f"page {self._index + 1} is {self.width:g} x {self.height:g} points: a strip thinner than "
                f"{self._limits.min_page_side_pixels} pixels at {dpi} dpi has nothing to read"
            )
        return dpi

    def render(self, dpi: int) -> Raster:
        requested, dpi = dpi, self._fit_dpi(dpi)
        scale = dpi / 72
        with PDFIUM_LOCK:
            try:
                bitmap = self._loaded().render(scale=scale, rotation=self._turn, may_draw_forms=False, draw_annots=True)
                image = bitmap.to_pil().convert("RGB")  # a copy: the bitmap can go now, under the lock
                bitmap.close()
            except pdfium.PdfiumError as exc:
                raise PageRenderError(f"page {self._index + 1} could not be rendered: {exc}") from exc
        return Raster(image, scale, requested if dpi < requested else None)

    def render_region(self, box: BBox, dpi: int) -> Image.Image:
        """Render only ``box`` (top-left points): PDFium's crop trims each side of the page."""
        x0, y0 = max(0.0, box.x0), max(0.0, box.y0)
        x1, y1 = min(self.width, box.x1), min(self.height, box.y1)
        area_in2 = max(1e-6, (x1 - x0) * (y1 - y0) / 72**2)
        dpi = min(dpi, int((min(self._limits.max_pixels_per_page, self._limits.render_pixel_budget) / area_in2) ** 0.5))
        if min(x1 - x0, y1 - y0) * dpi / 72 < 2:  # PDFium rounds each side's crop up: under 2 px may be none
            raise PageRenderError(f"page {self._index + 1}: the region {box.to_list()} to render is not on the page")
        with PDFIUM_LOCK:
            try:
                bitmap = self._loaded().render(
                    scale=dpi / 72,
                    rotation=self._turn,
                    crop=(x0, self.height - y1, self.width - x1, y0),
                    may_draw_forms=False,
                )
                image: Image.Image = bitmap.to_pil().convert("RGB")
                bitmap.close()
            except pdfium.PdfiumError as exc:
                raise PageRenderError(f"page {self._index + 1} could not be rendered: {exc}") from exc
        return image

    def text_layer(self, char_boxes: bool = False) -> TextLayer | None:
        """The page's own text. A turned page's is read with the page shown as turned: PDFium
        orders a line's characters as the page is shown, and on a page shown upside down it gave
        them backwards ("ll files, except ... ve a The package is selected ... remo")."""
        with PDFIUM_LOCK:
            page = self._loaded()
            shown = page.get_rotation()
            try:
                if self._turn:
                    page.set_rotation(self._frame.rotation)
                return read_text_layer(page, self._frame, char_boxes)
            except pdfium.PdfiumError as exc:
                raise PageRenderError(f"page {self._index + 1} text could not be read: {exc}") from exc
            finally:
                if self._turn:
                    page.set_rotation(shown)

    def rulings(self) -> list[BBox]:
        with PDFIUM_LOCK:
            return self._frame.cut(vector_rules(self._loaded(), self._frame))
