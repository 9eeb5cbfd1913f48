"""A Tesseract text line's font size when its words do not stand on one baseline.

Tesseract gives each text line a row height (x-height plus ascender and descender allowance),
steadier than word boxes, and the pipeline takes it for the line's font size. But Tesseract also
makes one line of pieces that stand side by side at different heights: a form's footer with its
number at the left, its marking in the middle and "Page 3 of 4" at the right, each a few points
higher or lower. The row then spans all of them and its height is theirs together: DD Form 293's
10-pt footer came back 14 pt, 1.9 times the words' own height, above the body's size by the title
ratio, so it was read as a heading on every page instead of a running foot.

On 40 dev pages read from a simulated scan (2,113 lines of two words or more), a row's height is
1.27 times the median height of its words at the median and 1.42 at the 95th percentile; the
words' centres spread by 0.15 of their height at the median and 0.32 at the 95th. A line over
both bars is read as pieces on different baselines and sized from its words instead.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ocrqueue.documents.model import Word

MAX_ROW_PER_WORD = 1.5  # a row this many times its words' median height is suspect
MIN_SPREAD = 0.4  # when its words' centres spread this share of that height or more
ROW_PER_WORD = 1.27  # the size taken then: the median row of dev lines, over its words' height
MIN_WORD_CHARS = 2  # letters and digits; punctuation alone ("." of a leader) is too short to size by


def row_size(row_height: float, words: Sequence[Word]) -> float:
    """``row_height``, or ``ROW_PER_WORD`` times the median height of ``words`` when the row is
    over ``MAX_ROW_PER_WORD`` times that and the words' centres spread ``MIN_SPREAD`` of it."""
    sized = [w for w in words if sum(c.isalnum() for c in w.text) >= MIN_WORD_CHARS] or list(words)
    if len(sized) < 2:
        return row_height
    height = statistics.median(w.bbox.height for w in sized)
    centres = [w.bbox.cy for w in sized]
    if height <= 0 or row_height <= MAX_ROW_PER_WORD * height or max(centres) - min(centres) < MIN_SPREAD * height:
        return row_height
    return ROW_PER_WORD * height
