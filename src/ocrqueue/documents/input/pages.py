"""What the pipeline needs from one input page, whatever the file type behind it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from PIL import Image

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Line


@dataclass(frozen=True)
class Raster:
    """A rendered or decoded page image and how many pixels it has per PDF point; ``lowered_from``
    is the requested DPI when the page had to be rendered coarser to respect the pixel limit."""

    image: Image.Image
    scale: float
    lowered_from: int | None = None

    @property
    def dpi(self) -> int:
        return round(self.scale * 72)


@dataclass(frozen=True)
class TextLayer:
    """Text a PDF page carries itself, with positions in points, plus what the sanity check needs."""

    lines: tuple[Line, ...]
    char_count: int
    bad_char_count: int
    image_coverage: float
    image_boxes: tuple[BBox, ...] = ()
    drawing_boxes: tuple[BBox, ...] = ()  # vector charts and diagrams
    turn: int = 0  # clockwise degrees that set most of its text upright (input/text_turn.py)


class PageInput(Protocol):
    """One page, produced lazily by Document.pages(); valid until the generator moves on."""

    @property
    def index(self) -> int: ...

    @property
    def width(self) -> float:
        """Page width in points."""

    @property
    def height(self) -> float:
        """Page height in points."""

    def render(self, dpi: int) -> Raster:
        """The page as an RGB image (a grey one for grey raster input); raster inputs come back at
        their own resolution."""

    def render_region(self, box: BBox, dpi: int) -> Image.Image:
        """Just the area ``box`` (points) as an image, e.g. to crop a figure."""

    def text_layer(self, char_boxes: bool = False) -> TextLayer | None:
        """The PDF text layer (with a box per character if asked), or None for images."""

    def rulings(self) -> list[BBox]:
        """Thin horizontal/vertical strokes drawn as vector paths (table rules), in points."""
