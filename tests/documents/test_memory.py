"""Memory stays flat whatever the page count: a 1,000-page PDF through `ocrqueue convert` and through
an `ocrqueue worker` process (each peak under the bound, and less than 50 MB higher at the last page
than at page 50); and a scanned PDF read by OCR with the largest models a slot holds.
The 5,000-page and 300-page scanned runs are in bench/memory.py."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from generate import CHINESE, MIXED, PdfBuilder, born_digital_pdf, figure_page, text_page
from PIL import Image
from support.rss import convert_memory, worker_memory

TEXT_BOUND_MB = 400
# Issue "big documents": 600 MB. The poster is English, read with eng (ocr/accents.py); Tesseract's
# Latin script model needs more on its huge lines (639-736 MB in six runs, against 514-531 MB).
OCR_BOUND_MB = 600
RESOURCES = Path(__file__).resolve().parents[1] / "resources"
FLAT_MB = 50


@pytest.fixture(scope="module")
def thousand_pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long") / "long.pdf"
    path.write_bytes(born_digital_pdf(1000))
    return path


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}


def test_a_thousand_page_pdf_through_convert_stays_flat(thousand_pages: Path, tmp_path: Path) -> None:
    run = convert_memory(thousand_pages, tmp_path / "out", _env(), "--mode", "text")
    assert run.pages == 1000
    assert run.peak_mb < TEXT_BOUND_MB and run.growth_mb < FLAT_MB, run
    assert (tmp_path / "out" / "long" / "long.json").stat().st_size > 10_000_000


def test_a_poster_sized_page_is_read_within_the_bound(tmp_path: Path) -> None:
    """OCRmyPDF's poster.pdf, one 25 x 50 inch page: 1.2 GB in `convert` when rendered at 200 dpi."""
    run = convert_memory(RESOURCES / "poster.pdf", tmp_path / "out", _env())
    assert run.pages == 1 and run.peak_mb < OCR_BOUND_MB, run
    document = json.loads((tmp_path / "out" / "poster" / "poster.json").read_text())
    assert any("instead of 200" in w for w in document["pages"][0]["warnings"]), document["pages"][0]["warnings"]


def test_a_thousand_page_pdf_through_a_worker_stays_flat(thousand_pages: Path, tmp_path: Path) -> None:
    run = worker_memory(thousand_pages, tmp_path, _env(), {"mode": "text"})
    assert run.pages == 1000
    assert run.peak_mb < TEXT_BOUND_MB and run.growth_mb < FLAT_MB, run


_PEAK = """
from pathlib import Path


def peak_mb():
    line = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024
"""

_OCR = (
    _PEAK
    + """
import sys
from ocrqueue.documents import ProcessOptions, keep_page_buffers, open_document, process_page
from ocrqueue.settings import Settings

keep_page_buffers(Settings().page_buffer_keep_mb)  # as `ocrqueue worker` does

marks, sources = [], set()
with open_document(Path(sys.argv[1])) as doc:
    for i, page in enumerate(doc.pages()):
        sources.add(process_page(page, ProcessOptions(engine="tesseract", languages=("eng", "chi_sim"))).source)
        if i % 10 == 9:
            marks.append(peak_mb())
print(" ".join(sources), *marks)
"""
)


def test_scanned_pdf_read_by_ocr_stays_under_the_memory_bound_and_flat(tmp_path: Path) -> None:
    """An OCR worker slot at its largest: Tesseract with eng+chi_sim, the first look's OSD model and
    the layout model (loaded by the figure pages), under issue 13's bound for a scan with its OCR
    models loaded (502-528 MB measured since the first look; 500 was this test's bound before it).
    The peak is reached within the first pages and does not grow after."""
    pdf = PdfBuilder()
    scans = [
        _gray_jpeg(text_page(CHINESE, cjk=True)),
        _gray_jpeg(figure_page()),
        _gray_jpeg(text_page(MIXED, cjk=True)),
    ]
    for i in range(30):
        pdf.add_page([], scans[i % 3])
    path = tmp_path / "scans.pdf"
    path.write_bytes(pdf.build())
    out = subprocess.run(
        [sys.executable, "-c", _OCR, str(path)], capture_output=True, text=True, check=True, timeout=600
    )
    source, *marks = out.stdout.split()
    first, *later = (int(v) for v in marks)
    assert source == "tesseract"
    assert max(first, *later) < OCR_BOUND_MB, f"peak RSS after every 10 pages: {marks} MB"
    assert max(later) - first <= 16, f"peak RSS after every 10 pages: {marks} MB"


def _gray_jpeg(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.convert("L").save(buf, "JPEG", quality=80)
    return buf.getvalue()
