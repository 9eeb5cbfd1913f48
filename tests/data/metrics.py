"""Accuracy measures shared by the tests and the benchmark."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ocrqueue.documents.model import PageResult


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance with one rolling row (O(len(a) * len(b)) time, O(len(b)) memory)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _chars(text: str) -> str:
    """Compare characters only: NFKC (full-width punctuation = ASCII) and no whitespace at all,
    since engines differ in where they put spaces between CJK characters."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def cer(reference: str, hypothesis: str) -> float:
    """Character error rate: edits needed to turn the hypothesis into the reference, per reference character."""
    ref, hyp = _chars(reference), _chars(hypothesis)
    return edit_distance(ref, hyp) / max(1, len(ref))


def page_text(page: PageResult) -> str:
    """The recognised body text of a page (no tables, headers or footers), in reading order."""
    return "\n".join(b.text for b in page.blocks if b.type not in ("table", "header", "footer", "figure"))


def table_cell_accuracy(expected: list[list[str]], page: PageResult) -> float:
    """Share of expected cells whose text was recovered exactly in the right row and column."""
    tables = [b.table for b in page.blocks if b.table is not None]
    if not expected:
        return 1.0
    if not tables:
        return 0.0
    grid = tables[0].grid()
    hits = 0
    for r, row in enumerate(expected):
        for c, cell in enumerate(row):
            if r < len(grid) and c < len(grid[r]) and _chars(grid[r][c]) == _chars(cell):
                hits += 1
    return hits / sum(len(row) for row in expected)
