"""The searchable PDF: the original pages with an invisible text layer placed word by word.

- A page whose own text layer was used is copied unchanged (its text is already selectable; adding
  ours would double every word).
- A PDF page that was OCR'd is copied with the invisible text drawn over it, leaving out our words
  where the page already has text (a stamped page number on a scan stays the page's own, once).
- A PDF page that was OCR'd although its own text covers most of our words (a broken layer:
  mojibake, or text hidden under a scan) is replaced by its rendering at the OCR resolution plus our
  text, so copy and search do not return its garbage next to our words.
- An image (each frame of a TIFF) becomes a page of its own size showing it; a JPEG is embedded
  as it came, other images losslessly.

The text is drawn in render mode 3 with the glyphless font (see glyphless.py), each word stretched
over its box, so selection follows the words on the image. Pages are written one at a time: they
gather in a batch that goes to a temporary file once its images pass `_BATCH_BYTES`, and the output
refers to those files, so memory holds one batch at most whatever the page count.
"""

from __future__ import annotations

import io
import itertools
import tempfile
import zlib
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

import pikepdf
from pikepdf import Dictionary, Name, Pdf
from PIL import Image

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.document import Document, open_document
from ocrqueue.documents.input.limits import DocumentLimits
from ocrqueue.documents.input.pagerange import PageSelection
from ocrqueue.documents.input.pages import PageInput
from ocrqueue.documents.input.pdf import PdfPage
from ocrqueue.documents.input.pdfframe import PageFrame
from ocrqueue.documents.input.sniff import InputFormat
from ocrqueue.documents.model import PageResult
from ocrqueue.documents.output.glyphless_font import (
    ADVANCE,
    FONT_NAME,
    UNITS_PER_EM,
    cid_to_gid_map,
    encode_text,
    glyphless_truetype,
    to_unicode_cmap,
)
from ocrqueue.documents.output.pdf_text_spans import Span, page_lines
from ocrqueue.documents.turns import blocks_upright, to_upright, turned_size

TEXT_LAYER_SOURCE = "text_layer"
_BATCH_BYTES = 32 << 20
_FONT_RESOURCE = Name("/OQGlyphLess")
_IMAGE_RESOURCE = Name("/OQPage")
_EXIF_ORIENTATION = 0x0112
_MAX_COVERED_SHARE = 0.5
"""Above this share of our words on the page's own text, its layer is taken as broken (see above)."""
_OWN_TEXT_OVERLAP = 0.3


def write_searchable_pdf(
    original: bytes | Path,
    pages: Iterable[PageResult],
    out: BinaryIO,
    limits: DocumentLimits | None = None,
    selection: PageSelection | None = None,
) -> None:
    """Write the searchable PDF of the document `original` (its bytes, or a file read as needed)
    whose page results, in page order, are `pages`; with `selection`, only the pages it names.

    Raises ValueError when the results do not match the document's pages, DocumentError when the
    document cannot be opened (it was processed before, so only a changed limit can cause that).
    """
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="ocrqueue-pdf-") as spool:
        document = stack.enter_context(open_document(original, limits))
        is_pdf = document.format is InputFormat.PDF
        source = None
        if is_pdf:
            source = stack.enter_context(
                pikepdf.open(io.BytesIO(original) if isinstance(original, bytes) else original)
            )
        # Only an image's bytes are ever looked at (a JPEG embedded as it came); a PDF stays a file.
        data = original if isinstance(original, bytes) else (b"" if is_pdf else original.read_bytes())
        output = Pdf.new()
        batches = _Batches(Path(spool), output, stack)
        results = iter(pages)
        wanted = document.pages() if selection is None else document.select(selection.indices(document.page_count))
        for page in wanted:
            result = next(results, None)
            if result is None or result.index != page.index:
                raise ValueError(f"no page result for page {page.index + 1} of {document.page_count}")
            batches.current.add(page, result, source, document, data)
            batches.flush_if_full()
        if next(results, None) is not None:
            raise ValueError(f"more page results than the document's {document.page_count} pages")
        batches.flush()
        if source is not None and Name.Title in source.docinfo:
            output.docinfo[Name.Title] = source.docinfo[Name.Title]
        output.save(out, deterministic_id=True)


class _Batches:
    """Pages gathered in memory until their images are big enough to go to a temporary file."""

    def __init__(self, spool: Path, output: Pdf, stack: ExitStack) -> None:
        self.spool = spool
        self.output = output
        self.stack = stack
        self.count = 0
        self.current = _Batch()

    def flush_if_full(self) -> None:
        if self.current.image_bytes >= _BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not len(self.current.pdf.pages):
            return
        path = self.spool / f"batch-{self.count}.pdf"
        self.count += 1
        self.current.pdf.save(path)
        self.current.pdf.close()
        written = self.stack.enter_context(pikepdf.open(path))
        for page in written.pages:
            self.output.pages.append(page)
        self.current = _Batch()


class _Batch:
    def __init__(self) -> None:
        self.pdf = Pdf.new()
        self.image_bytes = 0
        self._font: pikepdf.Object | None = None

    def add(self, page: PageInput, result: PageResult, source: Pdf | None, document: Document, data: bytes) -> None:
        if source is not None and result.source == TEXT_LAYER_SOURCE:
            self.pdf.pages.append(source.pages[page.index])
            return
        if source is not None and isinstance(page, PdfPage):
            own = _text_boxes(page)
            if not own or covered_share(result, own) <= _MAX_COVERED_SHARE:
                self._overlay(source, page, result, own)
                return
        self._image_page(page, result, document, data)

    def font(self) -> pikepdf.Object:
        if self._font is None:
            self._font = _type0_font(self.pdf)
        return self._font

    def _overlay(self, source: Pdf, page: PdfPage, result: PageResult, own_text: Sequence[BBox]) -> None:
        self.pdf.pages.append(source.pages[page.index])
        copied = self.pdf.pages[-1]
        _inherit_resources(copied)
        font = copied.add_resource(self.font(), Name.Font, _unused_font_name(copied), replace_existing=False)
        layer = page.frame.to_user_space_operator() + text_layer_operators(result, font, own_text)
        copied.contents_add(pikepdf.Stream(self.pdf, b"q\n"), prepend=True)
        copied.contents_add(pikepdf.Stream(self.pdf, b"Q\nq\n" + layer + b"Q\n"), prepend=False)

    def _image_page(self, page: PageInput, result: PageResult, document: Document, data: bytes) -> None:
        image = page.render(result.dpi or document.limits.render_dpi).image
        xobject = _image_xobject(self.pdf, image, data if _jpeg_as_is(document, image, data) else None)
        self.image_bytes += len(xobject.read_raw_bytes())
        width, height = result.width, result.height
        content = f"q {_num(width)} 0 0 {_num(height)} 0 0 cm {_IMAGE_RESOURCE} Do Q\n".encode() + text_layer_operators(
            result, _FONT_RESOURCE
        )
        page_dict = Dictionary(
            Type=Name.Page,
            MediaBox=[0, 0, _num_value(width), _num_value(height)],
            Resources=Dictionary(
                XObject=Dictionary({str(_IMAGE_RESOURCE): xobject}),
                Font=Dictionary({str(_FONT_RESOURCE): self.font()}),
            ),
            Contents=pikepdf.Stream(self.pdf, content),
        )
        self.pdf.pages.append(pikepdf.Page(page_dict))


def text_layer_operators(result: PageResult, font: Name, skip: Sequence[BBox] = ()) -> bytes:
    """Content-stream operators drawing the page's text invisibly, in a space of points with the
    origin at the bottom-left corner of the page as displayed; words on the `skip` boxes (text the
    page has itself) are left out, and so are the separators next to them. A page read turned
    (`rotation`) is drawn upright through the turn back, so its text runs along its words."""
    delivered = (result.width, result.height)
    width, height = turned_size(delivered, result.rotation)
    upright = replace(
        result, blocks=blocks_upright(result.blocks, result.rotation, delivered), width=width, height=height
    )
    skip = [to_upright(box, result.rotation, delivered) for box in skip]
    parts: list[str] = []
    for line in page_lines(upright):
        kept = [span for span in line if not _on_own_text(span, skip)]
        while kept and kept[0].text.isspace():
            kept.pop(0)
        while kept and kept[-1].text.isspace():
            kept.pop()
        parts.extend(_span_operators(span, font, upright.height) for span in kept)
    if not parts:
        return b""
    turn = PageFrame(BBox(0, 0, *delivered), result.rotation).to_user_space_operator() if result.rotation else b""
    return turn + "\n".join(["BT 3 Tr", *parts, "ET\n"]).encode("ascii")


def covered_share(result: PageResult, own_text: Sequence[BBox]) -> float:
    """The share of our words that lie on text the page already has."""
    words = [span for line in page_lines(result) for span in line if not span.text.isspace()]
    if not words:
        return 0.0
    return sum(1 for span in words if _on_own_text(span, own_text)) / len(words)


def _on_own_text(span: Span, own_text: Sequence[BBox]) -> bool:
    if span.text.isspace() or not own_text:
        return False
    area = max(span.box.area, 1e-6)
    return any(span.box.intersection(box) > _OWN_TEXT_OVERLAP * area for box in own_text)


def _span_operators(span: Span, font: Name, page_height: float) -> str:
    size = max(span.line_box.height, 1.0)
    codes = encode_text(span.drawn)
    natural = (len(codes) // 2) * size * ADVANCE / UNITS_PER_EM
    scale = min(max(100.0 * max(span.box.width, 0.0) / natural, 1.0), 10_000.0)
    baseline = page_height - span.line_box.y1
    return (
        f"{font} {_num(size)} Tf {_num(scale)} Tz 1 0 0 1 {_num(span.box.x0)} {_num(baseline)} Tm "
        f"<{codes.hex().upper()}> Tj"
    )


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _num_value(value: float) -> float:
    return round(value, 3)


def _type0_font(pdf: Pdf) -> pikepdf.Object:
    font_file = pikepdf.Stream(pdf, zlib.compress(glyphless_truetype()))
    font_file.Filter = Name.FlateDecode
    font_file.Length1 = len(glyphless_truetype())
    descriptor = Dictionary(
        Type=Name.FontDescriptor,
        FontName=Name("/" + FONT_NAME),
        Flags=5,
        FontBBox=[0, 0, ADVANCE, UNITS_PER_EM],
        ItalicAngle=0,
        Ascent=UNITS_PER_EM,
        Descent=0,
        CapHeight=UNITS_PER_EM,
        StemV=80,
        FontFile2=font_file,
    )
    gid_map = pikepdf.Stream(pdf, zlib.compress(cid_to_gid_map()))
    gid_map.Filter = Name.FlateDecode
    cid_font = Dictionary(
        Type=Name.Font,
        Subtype=Name.CIDFontType2,
        BaseFont=Name("/" + FONT_NAME),
        CIDSystemInfo=Dictionary(Registry=pikepdf.String("Adobe"), Ordering=pikepdf.String("Identity"), Supplement=0),
        FontDescriptor=pdf.make_indirect(descriptor),
        DW=ADVANCE,
        CIDToGIDMap=gid_map,
    )
    return pdf.make_indirect(
        Dictionary(
            Type=Name.Font,
            Subtype=Name.Type0,
            BaseFont=Name("/" + FONT_NAME),
            Encoding=Name("/Identity-H"),
            DescendantFonts=[pdf.make_indirect(cid_font)],
            ToUnicode=pikepdf.Stream(pdf, to_unicode_cmap()),
        )
    )


def _text_boxes(page: PdfPage) -> list[BBox]:
    """The boxes of the text the page carries itself (its lines, as displayed)."""
    layer = page.text_layer()
    return [] if layer is None else [line.bbox for line in layer.lines if line.text.strip()]


def _inherit_resources(page: pikepdf.Page) -> None:
    """A page may take its resources from the page tree above it; adding our font to an empty
    dictionary of its own would hide them, so they are copied onto the page first."""
    if Name.Resources in page.obj:
        return
    node = page.obj.get(Name.Parent)
    while node is not None:
        if Name.Resources in node:
            page.obj.Resources = Dictionary({str(key): value for key, value in node.Resources.items()})
            return
        node = node.get(Name.Parent)
    page.obj.Resources = Dictionary()


def _jpeg_as_is(document: Document, image: Image.Image, data: bytes) -> bool:
    """Whether the upload, a single JPEG shown as decoded (no EXIF turn, RGB or grey), can be
    embedded as it is: smaller than re-encoding it and without a second loss."""
    if document.format is not InputFormat.JPEG or document.page_count != 1:
        return False
    with Image.open(io.BytesIO(data)) as original:
        orientation = original.getexif().get(_EXIF_ORIENTATION, 1)
        return orientation == 1 and original.mode in ("RGB", "L") and original.size == image.size


def _image_xobject(pdf: Pdf, image: Image.Image, jpeg: bytes | None) -> pikepdf.Stream:
    if jpeg is not None:
        stream = pikepdf.Stream(pdf, jpeg)
        stream.Filter = Name.DCTDecode
        colour = Name.DeviceRGB if image.mode == "RGB" else Name.DeviceGray
    else:
        pixels = image if image.mode in ("RGB", "L") else image.convert("RGB")
        stream = pikepdf.Stream(pdf, zlib.compress(pixels.tobytes(), 6))
        stream.Filter = Name.FlateDecode
        colour = Name.DeviceRGB if pixels.mode == "RGB" else Name.DeviceGray
    stream.Type = Name.XObject
    stream.Subtype = Name.Image
    stream.Width = image.width
    stream.Height = image.height
    stream.ColorSpace = colour
    stream.BitsPerComponent = 8
    return stream


def _unused_font_name(page: pikepdf.Page) -> Name:
    """`/OQ1`, or the first `/OQn` the page's own fonts do not use: the same name on every run, so
    the same input gives the same PDF (pikepdf's `prefix=` draws a random one)."""
    resources = page.obj.get(Name.Resources, Dictionary())
    taken = set(resources.get(Name.Font, Dictionary()).keys())
    return next(Name(f"/OQ{n}") for n in itertools.count(1) if f"/OQ{n}" not in taken)
