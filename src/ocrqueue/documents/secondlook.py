"""A second look at a page the first look called Latin but that Tesseract read poorly: is it Chinese?

Tesseract's script detection can call a Chinese page Latin when its sample holds many Latin words
(a manual full of commands). Read as Latin, Chinese comes back as words of low confidence: when a
quarter of the lines are, and languages are auto, the page may hold Chinese. Its poorly read
lines are then read again as Chinese, each cropped on its own (``PROBE_LINES`` of them, spread
over the page); only when Chinese is found in them is the whole page read again. Reading the
whole page again to find out cost a poster (a page of display type, poorly read but Latin)
RapidOCR's model and ~500 MB on each of its large regions, for a reading that was thrown away.
The lines are read by Tesseract (chi_sim+eng), not by the engine that would read a Chinese page
(RapidOCR): loading RapidOCR's models only to answer "is there Han?" made the poster's peak
~235 MB higher, and on the evaluation pages Tesseract gives the same answer, faster.
"""

from __future__ import annotations

from PIL import Image

from ocrqueue.documents.choice import choose, tesseract
from ocrqueue.documents.engines import RecognitionRequest
from ocrqueue.documents.model import Block, Line
from ocrqueue.documents.options import AUTO, ProcessOptions
from ocrqueue.documents.scripts import scripts_in

POOR_LINE_CONFIDENCE = 0.6
POOR_LINE_SHARE = 0.25
PROBE_LINES = 12
PROBE_PAD_PX = 12  # white around a line: engines read text touching the edge badly
HAN = ("Han", "Latin")


def may_hold_han(options: ProcessOptions, scripts: tuple[str, ...], blocks: list[Block]) -> bool:
    """Languages are auto, Chinese is installed and was not found, and a quarter of the lines
    were read with low confidence (a Chinese manual page full of commands: 82 %, English pages 0-5 %)."""
    if options.languages != (AUTO,) or "Han" in scripts or "chi_sim" not in tesseract().installed:
        return False
    lines = _lines(blocks)
    return bool(lines) and len(_poor(lines)) >= POOR_LINE_SHARE * len(lines)


def han_in_poor_lines(image: Image.Image, scale: float, blocks: list[Block], options: ProcessOptions) -> bool:
    """Whether the page's poorly read lines hold Chinese when read by Tesseract with the languages a
    Chinese page gets. ``image`` is the page as read (upright and straight), ``scale`` its pixels
    per point."""
    poor = _poor(_lines(blocks))
    step = max(1, len(poor) / PROBE_LINES)
    sample = [poor[int(i * step)] for i in range(min(len(poor), PROBE_LINES))]
    _, languages = choose(options, HAN)
    engine = tesseract()
    texts: list[str] = []
    for line in sample:
        box = line.bbox.scaled(scale)
        crop = image.crop(
            (
                max(0, int(box.x0) - PROBE_PAD_PX),
                max(0, int(box.y0) - PROBE_PAD_PX),
                min(image.width, int(box.x1) + 1 + PROBE_PAD_PX),
                min(image.height, int(box.y1) + 1 + PROBE_PAD_PX),
            )
        )
        out = engine.recognize(crop, RecognitionRequest(languages, "text", round(scale * 72)))
        texts.extend(ln.text for ln in out.lines)
    return "Han" in scripts_in("".join(texts))


def _lines(blocks: list[Block]) -> list[Line]:
    return [ln for b in blocks for ln in b.lines if ln.confidence is not None]


def _poor(lines: list[Line]) -> list[Line]:
    return [ln for ln in lines if ln.confidence is not None and ln.confidence < POOR_LINE_CONFIDENCE]
