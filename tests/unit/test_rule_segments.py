"""fill_in_blanks.find_rule_segments labels only the box round the rules: the same segments as
labelling the whole page's mask, at a fraction of the cost on a page with few rules or none."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.ocr.fill_in_blanks import MAX_LENGTH_IN, find_rule_segments

DPI = 50
rectangles = st.lists(
    st.tuples(st.integers(0, 190), st.integers(0, 140), st.integers(1, 220), st.integers(1, 6)), max_size=8
)


def whole_page_segments(mask: np.ndarray, dpi: int) -> list[BBox]:
    """The definition: every piece of the whole mask, wider than four times its height and no
    longer than ``MAX_LENGTH_IN``."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask.view(np.uint8), connectivity=8)
    found = []
    for i in range(1, count):
        x, y, w, h = (int(v) for v in stats[i, :4])
        if 4 * h <= w <= MAX_LENGTH_IN * dpi:
            found.append(BBox(x, y, x + w, y + h))
    return found


@settings(max_examples=60, deadline=None)
@given(rectangles)
def test_the_segments_are_those_of_the_whole_mask(rects: list[tuple[int, int, int, int]]) -> None:
    mask = np.zeros((150, 200), dtype=bool)
    for x, y, w, h in rects:
        mask[y : y + h, x : x + w] = True
    assert sorted(find_rule_segments(mask, [], DPI)) == sorted(whole_page_segments(mask, DPI))


def test_a_page_without_rules_has_no_segments() -> None:
    assert find_rule_segments(np.zeros((300, 200), dtype=bool), [], DPI) == []
