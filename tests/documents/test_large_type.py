"""Sparse pages in large type: word gaps scale with the type, so the spaces between big words are
never taken for column gutters; EXIF orientation is honoured."""

from __future__ import annotations

from generate import RECEIPT_LINES, receipt_photo

from .helpers import run


def test_receipt_photo_reads_line_by_line_upright() -> None:
    page = run(receipt_photo()).pages[0]
    assert page.width > page.height  # shown as EXIF orientation 6 says, not as stored
    lines = [ln.text for b in page.blocks for ln in b.lines]
    assert lines == RECEIPT_LINES
    assert len(page.blocks) <= 2
    assert " ".join(b.text for b in page.blocks) == " ".join(RECEIPT_LINES)
