"""A newspaper's narrow justified columns read paragraph by paragraph (issue 22): a page we make
(tests/data/made_documents.py, Chromium printing four justified columns of 9.5 pt serif) from a seed
in neither split of the evaluation, rendered at 200 dpi and read by OCR, its paragraph boundaries
scored against the structure Chromium tagged.

Two things cut its paragraphs a line or two at a time (paragraph-boundary F1 0.23-0.28): gaps
between words of neighbouring justified lines, as wide as a gutter, were taken for columns
(layout/xycut.py), and lines of three or four words fitted a fixed pitch by chance and were set
apart as monospace (layout/code.py)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from data.made_documents import make
from data.structure_metrics import Counts, boundary_counts
from data.structure_truth import page_structure

from .helpers import run

TEXT_BLOCKS = ("title", "text", "list", "caption", "code", "header", "footer")


@pytest.fixture(scope="module")
def newspaper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not shutil.which("chromium"):
        pytest.skip("no chromium (apt-get install chromium)")
    path = tmp_path_factory.mktemp("newspaper") / "newspaper.pdf"
    make({"kind": "newspaper", "producer": "chromium", "seed": "31"}, path)
    return path


def _boundaries(path: Path, page: int) -> Counts:
    image = pdfium.PdfDocument(path)[page - 1].render(scale=200 / 72, grayscale=True).to_pil()
    buffer = io.BytesIO()
    image.save(buffer, "PNG", dpi=(200, 200))
    blocks = run(buffer.getvalue()).pages[0].blocks
    truth = [b.text for b in page_structure(path, page) if b.kind != "table"]
    return boundary_counts(truth, [b.text for b in blocks if b.type in TEXT_BLOCKS])


def test_justified_columns_keep_their_paragraphs(newspaper: Path) -> None:
    counts = _boundaries(newspaper, 1) + _boundaries(newspaper, 2)
    assert counts.f1 >= 0.6, counts
