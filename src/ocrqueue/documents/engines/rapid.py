"""RapidOCR 3.x (PP-OCR models shipped inside its wheel, run with onnxruntime) as an optional engine.

Install with the ``rapidocr`` extra. The angle classifier is off: pages are already straightened
and upright text is the norm. Detected text pieces are grouped into lines (layout/rows.py). Its
models read Chinese and English together, so the requested languages only select the engine, they
do not change the model. The RapidOCR object keeps per-call state, so calls are serialised with a lock.
"""

from __future__ import annotations

import threading

import numpy as np
from PIL import Image

from ocrqueue.documents.cpus import usable_cpus
from ocrqueue.documents.engines.base import EngineOutput, RecognitionRequest
from ocrqueue.documents.errors import InvalidOptionsError
from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.rows import merge_rows
from ocrqueue.documents.model import Line


class RapidOcrEngine:
    name = "rapidocr"
    reads_regions = True
    """Its text detector misses whole lines on full scanned pages that it finds on region crops
    (bench/ocr.py scan set: CER 4.2 % whole-page against 0 % by region), and it is no faster on
    a page than on its regions."""

    def __init__(self) -> None:
        try:
            from rapidocr import RapidOCR
            from rapidocr.utils.output import RapidOCROutput
        except ImportError as exc:
            raise InvalidOptionsError(
                "the rapidocr engine is not installed (pip install 'ocrqueue[rapidocr]')"
            ) from exc
        self._output_type = RapidOCROutput
        self._ocr = RapidOCR(
            params={
                "Global.use_cls": False,
                "Global.log_level": "error",
                # Threads for the cores this process may use, not the host's (see layout/model.py).
                "EngineConfig.onnxruntime.intra_op_num_threads": usable_cpus(),
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                # By default the detector scales every image up until its short side is 736 px:
                # a table cell crop became 3000 px wide. Only scale down, and only huge pages.
                "Det.limit_type": "max",
                "Det.limit_side_len": 2400,
            }
        )
        self._lock = threading.Lock()

    def recognize(self, image: Image.Image, request: RecognitionRequest) -> EngineOutput:
        pixels = np.asarray(image.convert("RGB"))
        with self._lock:
            result = self._ocr(pixels, use_cls=False)
        if not isinstance(result, self._output_type) or result.boxes is None:
            return EngineOutput(())
        pieces = []
        for quad, text, score in zip(result.boxes, result.txts or (), result.scores or (), strict=False):
            xs, ys = [float(p[0]) for p in quad], [float(p[1]) for p in quad]
            if text.strip():
                pieces.append(Line(text.strip(), BBox(min(xs), min(ys), max(xs), max(ys)), float(score)))
        return EngineOutput(tuple(merge_rows(pieces)))
