"""The engine interface and the registry that builds one shared instance per engine name.

An engine is handed an image (a page region or a crop) and a request saying which languages and
which task: text, a table cell, a whole table or a formula. Classic OCR engines ignore the task; a vision
model engine (`vlm`: any OpenAI-compatible VLM, engines/vlm.py) turns it into its prompt and may answer with
markup (LaTeX for formulas, HTML for tables) besides lines.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from PIL import Image

from ocrqueue.documents.errors import UnknownEngineError
from ocrqueue.documents.model import Line

# "page": a whole page, read once (engines that find lines on their own); "text": a text region;
# "cell": one table cell (short, often one line); "table": a whole table (a VLM answers with HTML
# markup); "formula": a formula (a VLM answers with LaTeX).
Task = Literal["page", "text", "cell", "table", "formula"]


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


class OcrEngine(Protocol):
    """Recognise text in an image. Implementations must be safe to call from several threads.

    By default the pipeline hands an engine each page once (task "page") and splits the lines by
    layout afterwards. An engine with a true class attribute ``reads_regions`` (a vision model,
    which reads a region best when it sees nothing else and is told what it holds) is handed each
    layout region as a crop with the region's task instead.
    """

    name: str

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput: ...


_FACTORIES: dict[str, Callable[[], OcrEngine]] = {}
_INSTANCES: dict[str, OcrEngine] = {}
_LOCK = threading.Lock()


def register_engine(name: str, factory: Callable[[], OcrEngine]) -> None:
    """Make an engine available under ``name``; the factory runs once, on first use.

    Registering a name again replaces its factory and drops the instance built by the old one."""
    with _LOCK:
        _FACTORIES[name] = factory
        _INSTANCES.pop(name, None)


def available_engines() -> list[str]:
    _register_builtins()
    return sorted(_FACTORIES)


def get_engine(name: str) -> OcrEngine:
    """The process-wide instance of engine ``name`` (created on first use)."""
    _register_builtins()
    with _LOCK:
        engine = _INSTANCES.get(name)
        if engine is None:
            factory = _FACTORIES.get(name)
            if factory is None:
                raise UnknownEngineError(f"unknown OCR engine {name!r}; available: {', '.join(sorted(_FACTORIES))}")
            engine = _INSTANCES[name] = factory()
        return engine


def _register_builtins() -> None:
    """Built-in engines are imported lazily so a missing optional package only matters when used."""
    with _LOCK:
        if "tesseract" in _FACTORIES:
            return
        _FACTORIES["tesseract"] = _tesseract
        _FACTORIES["rapidocr"] = _rapidocr


def _tesseract() -> OcrEngine:
    from ocrqueue.documents.engines.tesseract import TesseractEngine

    return TesseractEngine()


def _rapidocr() -> OcrEngine:
    from ocrqueue.documents.engines.rapid import RapidOcrEngine

    return RapidOcrEngine()
