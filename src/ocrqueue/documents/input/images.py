"""Raster input through Pillow: PNG, JPEG, WebP, BMP (first frame) and TIFF (every frame).

Pillow's decompression-bomb guard stays on; on top of it every frame is checked against the
configured pixel limit from its header, before any pixel is decoded.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageOps

from ocrqueue.documents.errors import CorruptDocumentError, DocumentError, TooFewPixelsError, TooManyPixelsError
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.input.limits import DocumentLimits
from ocrqueue.documents.input.pages import Raster, TextLayer
from ocrqueue.documents.input.sniff import InputFormat

# Without resolution metadata: a page-shaped image is taken to be a scan of a Letter/A4-wide page,
# anything else a screenshot at screen resolution. Layout thresholds are in inches, so a wrong
# guess of "72 dpi" for a 200 dpi scan would cut words apart as if they were columns.
_PAGE_WIDTH_IN = 8.5
_SCREEN_DPI = 96.0
# Frames kept as decoded; a bilevel one (a fax or G4 scan) becomes grey, any other mode RGB. A grey
# scan stays grey: turned into RGB it would be turned straight back into grey for OCR, two
# full-page copies for nothing.
_KEPT_MODES = ("L", "RGB")


def open_image(source: bytes | Path, fmt: InputFormat, limits: DocumentLimits) -> Image.Image:
    """Open the image header (no pixels decoded yet) and check the first frame's size."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(source if isinstance(source, Path) else io.BytesIO(source), formats=[fmt.value.upper()])
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise TooManyPixelsError(f"image is too large to decode safely ({exc})") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise CorruptDocumentError(f"{fmt.value.upper()} image is damaged and could not be read") from exc
    check_pixels(image, 0, limits)
    return image


def check_pixels(image: Image.Image, index: int, limits: DocumentLimits) -> None:
    pixels = image.width * image.height
    if pixels > limits.max_pixels_per_page:
        raise TooManyPixelsError(
            f"page {index + 1} is {image.width}x{image.height} = {pixels:,} pixels, over the limit of "
            f"{limits.max_pixels_per_page:,}"
        )
    if pixels == 0:
        raise CorruptDocumentError(f"page {index + 1} has no pixels")
    if min(image.width, image.height) < limits.min_page_side_pixels:
        raise TooFewPixelsError(
            f"page {index + 1} is {image.width}x{image.height} pixels: a strip thinner than "
            f"{limits.min_page_side_pixels} pixels has nothing to read"
        )


def image_frame_count(image: Image.Image, fmt: InputFormat) -> int:
    if fmt is not InputFormat.TIFF:
        return 1
    try:
        return int(getattr(image, "n_frames", 1))
    except (OSError, EOFError, ValueError) as exc:
        raise CorruptDocumentError("TIFF image is damaged: its page directory could not be read") from exc


def decode_frame(image: Image.Image, index: int, limits: DocumentLimits) -> ImagePage:
    """Seek to frame ``index`` and decode it fully, so damage shows up here and not mid-OCR."""
    try:
        image.seek(index)
        check_pixels(image, index, limits)
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            frame = ImageOps.exif_transpose(image)
            frame.load()
            dpi = _dpi(image, frame.width, frame.height)
            pixels = frame if frame.mode in _KEPT_MODES else frame.convert("L" if frame.mode == "1" else "RGB")
    except DocumentError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise TooManyPixelsError(f"page {index + 1} is too large to decode safely ({exc})") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise CorruptDocumentError(f"page {index + 1} could not be decoded: the image is damaged or truncated") from exc
    return ImagePage(index, pixels, 72.0 / dpi)


def iter_image_pages(image: Image.Image, indices: Iterable[int], limits: DocumentLimits) -> Iterator[ImagePage]:
    for index in indices:
        yield decode_frame(image, index, limits)


def png_bytes(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


def _dpi(image: Image.Image, width: int, height: int) -> float:
    """The image's resolution from its metadata, or a guess from its shape (see above)."""
    dpi = image.info.get("dpi")
    try:
        value = float(dpi[0]) if dpi else 0.0
    except (TypeError, ValueError, IndexError):
        value = 0.0
    if 50 <= value <= 2400:
        return value
    if 1.2 <= height / max(1, width) <= 1.6:
        return min(600.0, max(_SCREEN_DPI, width / _PAGE_WIDTH_IN))
    return _SCREEN_DPI


@dataclass
class ImagePage:
    """A decoded raster frame (implements PageInput). ``points_per_pixel`` maps pixels to points."""

    _index: int
    _image: Image.Image
    points_per_pixel: float

    @property
    def index(self) -> int:
        return self._index

    @property
    def width(self) -> float:
        return self._image.width * self.points_per_pixel

    @property
    def height(self) -> float:
        return self._image.height * self.points_per_pixel

    def render(self, dpi: int) -> Raster:
        """Raster input is recognised at its own resolution; ``dpi`` only applies to PDFs."""
        return Raster(self._image, 1.0 / self.points_per_pixel)

    def render_region(self, box: BBox, dpi: int) -> Image.Image:
        x0, y0, x1, y1 = (v / self.points_per_pixel for v in box)
        return self._image.crop((x0, y0, x1, y1))

    def text_layer(self, char_boxes: bool = False) -> TextLayer | None:
        return None

    def rulings(self) -> list[BBox]:
        return []
