"""A ruled table's cells read again where the page's one reading left them unsure or empty.

Read whole, Tesseract takes a ruled table's column of lone item numbers ("1" to "9", one a row)
for a line of text set top to bottom and reads it as junk ("©O CO “SN & Of wm OO Ne"), drops
lone digits from a quantity column ("1", "8", "3", "5" missing) and misreads amounts it is
unsure of ("577.58" as "5/796", "1532.23" as "1532,25"): a scanned invoice's item table came back
with 13 of its 36 number cells wrong. Such cells (a word read below ``CELL_SURE``, or ink and no
word) are read again in one request: their ink (the page's, rules left out) stacked one above
another on white paper, a strip the engine reads row by row, each lone digit among others like it
(read alone, a crop's grey paper and its edge made "12" into "2"). A cell keeps its new reading
when it is surer than the first.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from PIL import Image

from ocrqueue.documents.engines import RecognitionRequest
from ocrqueue.documents.layout.blocks import reading_sort
from ocrqueue.documents.layout.cells import words_by_cell
from ocrqueue.documents.layout.tables import TableGrid
from ocrqueue.documents.layout.xycut import Mask
from ocrqueue.documents.model import Line, TableCell, Word
from ocrqueue.documents.ocr.assemble import OcrPage
from ocrqueue.documents.text import join_words

CELL_SURE = 0.9  # a cell whose words the engine read this sure or surer keeps them
READ_SURE = 0.6  # a cell's new reading is kept only this sure or surer (a drawn mark read as junk is not)
FRINGE_IN = 0.01  # how far a scanned rule's grey fringe reaches beyond its mask
SPECK_IN = 0.01  # ink smaller than this across, both ways, is scanner noise
MIN_INK_IN = 0.03  # a cell without words holding this much ink (as a square's side) holds text
GAP_IN = 0.12  # white paper between two cells in the strip, and around it


def cells_read_again(page: OcrPage, grid: TableGrid, cells: Sequence[TableCell], words: Sequence[Word]) -> list[str]:
    """The text of each of ``cells`` (points; ``grid``'s, in its order) from ``words`` (points),
    with the unsure cells and those with ink and no words read again (module docstring)."""
    buckets = words_by_cell(cells, words)
    texts = [_text(bucket) for bucket in buckets]
    # A check box or leader the page's reading found keeps its cell as read.
    unsure = [
        i
        for i, bucket in enumerate(buckets)
        if not any(w.role for w in bucket) and (not bucket or _sureness(bucket) < CELL_SURE)
    ]
    if not unsure:
        return texts
    ink = _text_ink(page, grid)
    wanted: list[tuple[int, Mask]] = []
    for i in unsure:
        box = grid.cells[i]
        part = _inner(ink[box.y0 - grid.y0 : box.y1 - grid.y0, box.x0 - grid.x0 : box.x1 - grid.x0])
        if part is not None and np.count_nonzero(part) >= (MIN_INK_IN * page.dpi) ** 2:
            wanted.append((i, part))
    if not wanted:
        return texts
    for (i, _), read in zip(wanted, _read_strip(page, [part for _, part in wanted]), strict=True):
        if read and _sureness(read) >= READ_SURE and (not buckets[i] or _sureness(read) > _sureness(buckets[i])):
            texts[i] = _text(read)
    return texts


def _text_ink(page: OcrPage, grid: TableGrid) -> Mask:
    """The ink of the table's box less its rules, widened by their fringe on a scan, and less
    specks smaller than ``SPECK_IN`` across."""
    ink = page.ink[grid.y0 : grid.y1, grid.x0 : grid.x1]
    fringe = max(1, round(FRINGE_IN * page.dpi))
    if page.rules is not None:
        rules = np.ascontiguousarray(page.rules.mask[grid.y0 : grid.y1, grid.x0 : grid.x1]).view(np.uint8)
        ink = ink & ~cv2.dilate(rules, np.ones((2 * fringe + 1, 2 * fringe + 1), np.uint8)).view(bool)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink.view(np.uint8), connectivity=8)
    speck = max(1, round(SPECK_IN * page.dpi))
    keep = (stats[:, cv2.CC_STAT_WIDTH] >= speck) | (stats[:, cv2.CC_STAT_HEIGHT] >= speck)
    keep[0] = False
    kept: Mask = keep[labels]
    return kept


def _inner(part: Mask) -> Mask | None:
    """A cell's ink cut to the rows and columns that hold any; None if none."""
    rows, cols = np.flatnonzero(part.any(axis=1)), np.flatnonzero(part.any(axis=0))
    if not rows.size:
        return None
    return part[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def _read_strip(page: OcrPage, parts: list[Mask]) -> list[list[Word]]:
    """Each part's words, read in one request as a strip of the parts one above another."""
    gap = max(4, round(GAP_IN * page.dpi))
    width = max(p.shape[1] for p in parts) + 2 * gap
    height = sum(p.shape[0] for p in parts) + gap * (len(parts) + 1)
    strip = np.full((height, width), 255, np.uint8)
    slots: list[tuple[float, float]] = []
    y = gap
    for part in parts:
        strip[y : y + part.shape[0], gap : gap + part.shape[1]][part] = 0
        slots.append((y - gap / 2, y + part.shape[0] + gap / 2))
        y += part.shape[0] + gap
    out = page.engine.recognize(Image.fromarray(strip), RecognitionRequest(page.languages, "cell", page.dpi))
    found: list[list[Word]] = [[] for _ in parts]
    for line in reading_sort(list(out.lines)):
        for word in line.words or (Word(line.text, line.bbox, line.confidence),):
            k = next((k for k, (lo, hi) in enumerate(slots) if lo <= word.bbox.cy < hi), None)
            if k is not None and word.text.strip():
                found[k].append(word)
    return found


def _text(words: Sequence[Word]) -> str:
    """Words of one cell, which may sit on several rows, joined in reading order."""
    rows = reading_sort([Line(w.text, w.bbox) for w in words])
    return join_words([r.text for r in rows])


def _sureness(words: Sequence[Word]) -> float:
    return min(w.confidence or 0.0 for w in words)
