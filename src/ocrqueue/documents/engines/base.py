"""The engine interface: what an engine is handed, what it answers, and what it declares it can do.

An engine is handed an image (a page region or a crop) and a request saying which languages and
which task: text, a table cell, a whole table or a formula. Classic OCR engines ignore the task; a vision
model engine (`vlm`: any OpenAI-compatible VLM, engines/vlm.py) turns it into its prompt and may answer with
markup (LaTeX for formulas, HTML for tables) besides lines. What an engine can do is data
(`EngineCapabilities`), read by the chooser (documents/ocr/engine_choice.py), never guessed from its name.
Engines are found by name through engines/registry.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from PIL import Image

from ocrqueue.documents.model import Line

# "page": a whole page, read once (engines that find lines on their own); "text": a text region;
# "cell": one table cell (short, often one line); "table": a whole table (a VLM answers with HTML
# markup); "formula": a formula (a VLM answers with LaTeX); "line": one line of text, read as it
# is (Tesseract's raw line: no layout analysis to drop it).
Task = Literal["page", "text", "cell", "table", "formula", "line"]


@dataclass(frozen=True)
class RecognitionRequest:
    languages: tuple[str, ...]
    task: Task = "text"
    dpi: int = 200


@dataclass(frozen=True)
class EngineOutput:
    """Lines with boxes in pixels of the image that was passed in; ``markup`` if the engine has any."""

    lines: tuple[Line, ...]
    markup: str | None = None


@dataclass(frozen=True)
class EngineCapabilities:
    """What an engine can do, as the chooser and the reading stages see it.

    ``scripts``: the scripts it reads (documents/scripts.py names: Latin, Han, ...). ``languages``:
    the language codes it can be asked for (Tesseract's: eng, chi_sim, Latin); empty for an engine
    that reads what it sees and ignores the languages asked (a vision model). ``word_boxes``: its
    words come with their own measured boxes. ``reads_regions``: it is handed each layout region
    as a crop with the region's task (a vision model reads a region best when it sees nothing else
    and is told what it holds) instead of the whole page once. ``reads_whole_tables``: a ruled table
    goes to it whole (task "table", answered with markup), not cell by cell. ``detects_orientation``
    and ``detects_script``: it implements ``OrientationDetector`` (Tesseract's OSD). ``needs_model_server``:
    it calls a model server, so tasks using it go through the server's breaker.
    """

    scripts: frozenset[str] = frozenset()
    languages: frozenset[str] = frozenset()
    word_boxes: bool = False
    reads_regions: bool = False
    reads_whole_tables: bool = False
    detects_orientation: bool = False
    detects_script: bool = False
    needs_model_server: bool = False


class OcrEngine(Protocol):
    """Recognise text in an image. Implementations must be safe to call from several threads.

    By default the pipeline hands an engine each page once (task "page") and splits the lines by
    layout afterwards; one whose capabilities say ``reads_regions`` is handed each layout region
    as a crop with the region's task instead.
    """

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> EngineCapabilities: ...

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput: ...


@dataclass(frozen=True)
class Orientation:
    rotation: int  # how far clockwise the image must be turned to stand upright: 0, 90, 180 or 270
    confidence: float  # the detector's; for Tesseract above about 1.5 it is rarely wrong
    script: str  # the script it saw most of (Tesseract OSD's names: Latin, Han, Japanese, Cyrillic, ...)
    script_confidence: float


@runtime_checkable
class OrientationDetector(OcrEngine, Protocol):
    """An engine that declares ``detects_orientation`` (or ``detects_script``) also tells which way
    up an image is and the script it holds; None when it sees too little text to tell."""

    def orientation(self, image: Image.Image, dpi: int) -> Orientation | None: ...
