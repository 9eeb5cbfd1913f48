"""A newspaper's narrow justified columns read paragraph by paragraph (issue 22): a page we make
(tests/data/made_documents.py, Chromium printing four justified columns of 9.5 pt serif) from a seed
in neither split of the evaluation, rendered at 200 dpi and read by OCR, its paragraph boundaries
scored against the structure Chromium tagged.

Two things cut its paragraphs a line or two at a time (paragraph-boundary F1 0.23-0.28): gaps
between words of neighbouring justified lines, as wide as a gutter, were taken for columns
(layout/xycut.py), and lines of three or four words fitted a fixed pitch by chance and were set
apart as monospace (layout/code.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import made_newspaper, read_rendered


@pytest.fixture(scope="module")
def newspaper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_newspaper(tmp_path_factory, "31")


def test_justified_columns_keep_their_paragraphs(newspaper: Path) -> None:
    counts = read_rendered(newspaper, 1)[0] + read_rendered(newspaper, 2)[0]
    assert counts.f1 >= 0.6, counts
