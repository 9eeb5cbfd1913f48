"""A newspaper's justified column stays one column and its paragraphs whole (issue 22): a river of
spaces down a few lines no longer leaves the column cut into slices (layout/column_slices.py), and
two or three justified lines that fit a fixed pitch by chance are prose, not monospace
(layout/code.py). Both are read on a newspaper we make (tests/data/made_documents.py, Chromium
printing four justified columns of 9.5 pt serif) from seeds in neither split of the evaluation,
rendered at 200 dpi; and the rules on their own, on regions and lines as the page gives them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.code import mark_monospace
from ocrqueue.documents.layout.column_slices import rejoin_slices
from ocrqueue.documents.layout.xycut import Region
from ocrqueue.documents.model import Line, Word

from .helpers import made_newspaper, read_rendered


@pytest.fixture(scope="module")
def newspaper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_newspaper(tmp_path_factory, "32")


def test_justified_columns_read_as_whole_paragraphs(newspaper: Path) -> None:
    first, types = read_rendered(newspaper, 1)
    second, more = read_rendered(newspaper, 2)
    assert (first + second).f1 >= 0.8, (first, second)
    assert "code" not in types + more


# Cells of 1/50 in, as XY-cut gives them: a column 0-100 wide, lines 6 tall at a pitch of 8.
def test_slices_of_a_column_are_one_region() -> None:
    leaves = [
        Region(0, 0, 100, 38),  # five lines
        Region(0, 40, 45, 62),  # three lines cut at a river: left of it ...
        Region(60, 40, 100, 62),  # ... and right of it
        Region(0, 64, 100, 86),  # three lines
        Region(0, 88, 40, 94),  # the paragraph's last line, ending short
        Region(0, 104, 100, 150),  # the next paragraph, after a paragraph's gap
    ]
    assert rejoin_slices(leaves, row_gap=2, line_height=6) == [Region(0, 0, 100, 94), Region(0, 104, 100, 150)]


def test_columns_side_by_side_stay_apart() -> None:
    """Two columns under a full-width paragraph, and a table's columns, are no river."""
    columns = [Region(0, 0, 100, 30), Region(0, 32, 45, 120), Region(55, 32, 100, 120)]
    assert rejoin_slices(columns, row_gap=2, line_height=6) == columns
    table = [Region(0, 0, 100, 30), Region(0, 32, 20, 54), Region(40, 32, 70, 54), Region(0, 66, 100, 90)]
    assert rejoin_slices(table, row_gap=2, line_height=6) == table


def _line(text: str, x0: float, x1: float, y: float, mono_pitch: float | None = None) -> Line:
    """A line's words spread from x0 to x1 (justified); at ``mono_pitch`` they keep a fixed pitch."""
    words = text.split()
    if mono_pitch is not None:
        boxes, at = [], x0
        for word in words:
            boxes.append(BBox(at, y, at + len(word) * mono_pitch - 1, y + 9))
            at += (len(word) + 1) * mono_pitch
    else:
        step = (x1 - x0) / len(words)
        boxes = [BBox(x0 + i * step, y, x0 + i * step + step * 0.8, y + 9) for i in range(len(words))]
        boxes[-1] = BBox(boxes[-1].x0, y, x1, y + 9)
    made = tuple(Word(w, b) for w, b in zip(words, boxes, strict=True))
    return Line(text, BBox(x0, y, made[-1].bbox.x1, y + 9), 0.9, made)


def test_justified_lines_that_fit_a_pitch_are_prose() -> None:
    pitch = 127 / 24  # "executable work) run the" set flush over 126 pt, its 24 characters at one pitch
    lines = [
        _line("install, and (for an", 0, 126, 0),
        _line("executable work) run the", 0, 126, 11, pitch),
        _line("object code and to modify", 0, 126, 22),
    ]
    assert mark_monospace(lines[1:2])[0].monospace  # on its own it fits a pitch
    assert [ln.monospace for ln in mark_monospace(lines)] == [False, False, False]
    ragged = [lines[0], _line("x = run(the, work);", 0, 19 * pitch - 1, 11, pitch), lines[2]]
    assert [ln.monospace for ln in mark_monospace(ragged)] == [False, True, False]
