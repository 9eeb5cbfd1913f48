"""Check boxes found in a page's ink: square frames standing alone, empty or marked."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.checkboxes import EMPTY, MARKED, Checkbox, find_checkboxes, mark_checkboxes
from ocrqueue.documents.model import Line, Word
from ocrqueue.documents.text import join_words

DPI = 300


def _frame(mask: np.ndarray, x: int, y: int, side: int, stroke: int = 3) -> None:
    mask[y : y + side, x : x + side] = True
    mask[y + stroke : y + side - stroke, x + stroke : x + side - stroke] = False


@settings(max_examples=40, deadline=None)
@given(side=st.integers(28, 85), weight=st.floats(0.05, 0.12), marked=st.booleans())
def test_a_square_frame_is_a_check_box_empty_or_marked(side: int, weight: float, marked: bool) -> None:
    """0.09 to 0.28 in a side at 300 dpi, the frame a twentieth to an eighth of the side thick."""
    stroke = max(1, round(weight * side))
    mask = np.zeros((200, 200), dtype=bool)
    _frame(mask, 50, 60, side, stroke)
    if marked:
        for i in range(side // 4, side - side // 4):
            mask[60 + i, 50 + i] = mask[60 + i, 50 + side - i] = True
    assert find_checkboxes(mask, DPI) == [Checkbox(BBox(50, 60, 50 + side, 60 + side), marked)]


def test_rings_letters_solid_squares_and_rules_are_not_check_boxes() -> None:
    mask = np.zeros((300, 600), dtype=bool)
    yy, xx = np.mgrid[0:300, 0:600]
    ring = np.hypot(xx - 60, yy - 60)
    mask |= (ring <= 25) & (ring >= 21)  # an "O"
    mask[40:90, 120:124] = True  # a "D": its stem ...
    d = np.hypot(xx - 124, yy - 65)
    mask |= (d <= 25) & (d >= 21) & (xx >= 124)  # ... and its bowl
    mask[40:80, 200:240] = True  # a solid square: a bullet
    _frame(mask, 300, 40, 200)  # a box far larger than a check box: a frame round text
    mask[200:203, 20:580] = True  # a rule
    assert find_checkboxes(mask, DPI) == []


def test_the_words_read_from_a_frame_become_one_check_box() -> None:
    box = Checkbox(BBox(100, 10, 150, 60), marked=False)
    words = (
        Word("[", BBox(98, 8, 112, 62), 0.5),
        Word("]", BBox(136, 8, 152, 62), 0.5),
        Word("Cairo", BBox(170, 15, 260, 55), 0.9),
    )
    line = Line("[ ] Cairo", BBox(98, 8, 260, 62), 0.7, words)
    (marked,) = mark_checkboxes([line], [box])
    assert marked.text == f"{EMPTY} Cairo"
    assert [(w.text, w.role) for w in marked.words] == [(EMPTY, "checkbox"), ("Cairo", None)]


def _line(*words: tuple[str, float, float]) -> Line:
    """A line of words (text, left, right) 10 to 60 pixels down."""
    placed = tuple(Word(text, BBox(x0, 10, x1, 60), 0.9) for text, x0, x1 in words)
    return Line(join_words([w.text for w in placed]), union(w.bbox for w in placed), 0.9, placed)


def test_a_word_beside_a_frame_or_of_letters_is_left_alone() -> None:
    box = Checkbox(BBox(100, 10, 150, 60), marked=True)
    line = _line(("Box", 100, 150), ("X", 200, 240))
    assert mark_checkboxes([line], [box]) == (line,)
    assert mark_checkboxes([_line(("X", 105, 145))], [box])[0].text == MARKED


def test_no_box_is_put_into_a_line_of_chinese_or_japanese() -> None:
    """因 is a square frame round 大: one the engine left out of a Japanese line is no check box."""
    box = Checkbox(BBox(100, 10, 140, 50), marked=True)
    line = _line(("果", 150, 190), ("関係", 200, 280))
    assert mark_checkboxes([line], [box]) == (line,)
    assert mark_checkboxes([_line(("Cairo", 150, 260))], [box])[0].text == f"{MARKED} Cairo"
