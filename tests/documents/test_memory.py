"""Memory stays flat whatever the page count: a 1,000-page PDF in a fresh process, as a worker
would read it (one page at a time, each result dropped once made); and a scanned PDF read by OCR
with the largest models a slot holds."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from generate import CHINESE, MIXED, PdfBuilder, born_digital_pdf, figure_page, text_page
from PIL import Image

BOUND_MB = 500

_PEAK = """
from pathlib import Path


def peak_mb():
    line = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024
"""

_READ = (
    _PEAK
    + """
import sys
from ocrqueue.documents import ProcessOptions, open_document, process_page
pages = 0
with open_document(Path(sys.argv[1]).read_bytes()) as doc:
    for page in doc.pages():
        process_page(page, ProcessOptions())
        pages += 1
print(pages, peak_mb())
"""
)


def test_a_thousand_page_pdf_stays_under_the_memory_bound(tmp_path: Path) -> None:
    path = tmp_path / "long.pdf"
    path.write_bytes(born_digital_pdf(1000))
    out = subprocess.run(
        [sys.executable, "-c", _READ, str(path)], capture_output=True, text=True, check=True, timeout=600
    )
    pages, peak_mb = (int(v) for v in out.stdout.split())
    assert pages == 1000
    assert peak_mb < BOUND_MB, f"peak RSS {peak_mb} MB"


_OCR = (
    _PEAK
    + """
import sys
from ocrqueue.documents import ProcessOptions, keep_page_buffers, open_document, process_page
from ocrqueue.settings import Settings

keep_page_buffers(Settings().page_buffer_keep_mb)  # as `ocrqueue worker` does

marks, sources = [], set()
with open_document(Path(sys.argv[1]).read_bytes()) as doc:
    for i, page in enumerate(doc.pages()):
        sources.add(process_page(page, ProcessOptions(engine="tesseract", languages=("eng", "chi_sim"))).source)
        if i % 10 == 9:
            marks.append(peak_mb())
print(" ".join(sources), *marks)
"""
)


def test_scanned_pdf_read_by_ocr_stays_under_the_memory_bound_and_flat(tmp_path: Path) -> None:
    """An OCR worker slot at its largest: Tesseract with eng+chi_sim, and the layout model (loaded
    by the figure pages). The peak is reached within the first pages and does not grow after."""
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
    assert max(first, *later) < BOUND_MB, f"peak RSS after every 10 pages: {marks} MB"
    assert max(later) - first <= 16, f"peak RSS after every 10 pages: {marks} MB"


def _gray_jpeg(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.convert("L").save(buf, "JPEG", quality=80)
    return buf.getvalue()
