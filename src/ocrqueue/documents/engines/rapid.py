"""RapidOCR 3.x (PP-OCR models shipped inside its wheel, run with onnxruntime) as an optional engine.

Install with the ``rapidocr`` extra. The angle classifier is off: pages are already straightened
and upright text is the norm. Detected text pieces are grouped into lines (layout/rows.py), with
the words in them boxed from the recogniser's own character and word positions. Its
models read Chinese and English together, so the requested languages only select the engine, they
do not change the model. The RapidOCR object keeps per-call state, so calls are serialised with a lock.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
from PIL import Image

from ocrqueue.documents.engines.base import EngineCapabilities, EngineOutput, RecognitionRequest
from ocrqueue.documents.engines.cpus import usable_cpus
from ocrqueue.documents.errors import InvalidOptionsError
from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.rows import merge_rows
from ocrqueue.documents.model import Line, Word

# The scripts (and the languages, in Tesseract's codes) that the recognition models shipped inside
# the rapidocr wheel read, by model file name: PP-OCRv6's (the `ch` model) reads Chinese, Japanese
# (kana and kanji: CER 0.025 on the real Japanese pages of docs/documents.md) and English together.
REC_MODEL_READS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "PP-OCRv6_rec": (frozenset({"Han", "Japanese", "Latin"}), frozenset({"chi_sim", "chi_tra", "jpn", "eng"})),
}


@functools.cache
def shipped_capabilities() -> EngineCapabilities | None:
    """What the recognition models in the installed rapidocr package read, found without loading
    them (that costs ~235 MB); None without the package or a model it knows. Asked per page with
    Han before the engine is built, so looked up once."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        return None
    scripts: set[str] = set()
    languages: set[str] = set()
    for folder in spec.submodule_search_locations:
        for model in Path(folder, "models").glob("*_rec*.onnx"):
            for prefix, (reads, codes) in REC_MODEL_READS.items():
                if model.name.startswith(prefix):
                    scripts |= reads
                    languages |= codes
    if not scripts:
        return None
    # reads_regions: its text detector misses whole lines on full scanned pages that it finds on
    # region crops (bench/ocr.py scan set: CER 4.2 % whole-page against 0 % by region), and it is
    # no faster on a page than on its regions.
    return EngineCapabilities(
        scripts=frozenset(scripts), languages=frozenset(languages), word_boxes=True, reads_regions=True
    )


class RapidOcrEngine:
    name = "rapidocr"

    def __init__(self) -> None:
        capabilities = shipped_capabilities()
        try:
            from rapidocr import RapidOCR
            from rapidocr.utils.output import RapidOCROutput
        except ImportError as exc:
            raise InvalidOptionsError(
                "the rapidocr engine is not installed (pip install 'ocrqueue[rapidocr]')"
            ) from exc
        if capabilities is None:
            raise InvalidOptionsError("the rapidocr package holds no recognition model this engine knows")
        self.capabilities = capabilities
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
            result = self._ocr(pixels, use_cls=False, return_word_box=True)
        if not isinstance(result, self._output_type) or result.boxes is None:
            return EngineOutput(())
        pieces = []
        texts, scores = result.txts or (), result.scores or ()
        tokens = result.word_results if result.word_results and len(result.word_results) == len(texts) else None
        for i, (quad, text, score) in enumerate(zip(result.boxes, texts, scores, strict=False)):
            if text.strip():
                words = _words(text, cast(Sequence[Token], tokens[i])) if tokens is not None else ()
                pieces.append(Line(text.strip(), _box(quad), float(score), words))
        return EngineOutput(tuple(merge_rows(pieces)))


WORD_GAP_HEIGHTS = 0.5  # a gap between two characters wider than this many of their heights parts words

Token = tuple[str, float, Sequence[Sequence[float]] | None]


def _box(quad: Sequence[Sequence[float]]) -> BBox:
    xs, ys = [float(p[0]) for p in quad], [float(p[1]) for p in quad]
    return BBox(min(xs), min(ys), max(xs), max(ys))


def _words(text: str, tokens: Sequence[Token]) -> tuple[Word, ...]:
    """The piece's words with their own boxes, from the recogniser's tokens (whole words of Latin
    text, single characters of Chinese and of mixed runs): tokens join into a word until a space
    in the text or a wide gap between them (a note in the margin beside the line it annotates).
    Without tokens that match the text, the piece stays one word."""
    words: list[Word] = []
    chars: list[str] = []
    boxes: list[BBox] = []
    confidences: list[float] = []
    position = 0

    def flush() -> None:
        if chars:
            words.append(Word("".join(chars), union(boxes), min(confidences)))
            chars.clear()
            boxes.clear()
            confidences.clear()

    for token, confidence, quad in tokens:
        found = text.find(token, position)
        if not token or found < 0 or quad is None:
            return ()
        box = _box(quad)
        apart = bool(boxes) and box.x0 - boxes[-1].x1 > WORD_GAP_HEIGHTS * max(box.height, boxes[-1].height)
        if found > position or apart:  # a space (anything else fails the check below)
            flush()
        chars.append(token)
        boxes.append(box)
        confidences.append(float(confidence))
        position = found + len(token)
    flush()
    return tuple(words) if "".join(w.text for w in words) == "".join(text.split()) else ()
