"""Memory stays flat whatever the page count: a 1,000-page PDF in a fresh process, as a worker
would read it (one page at a time, each result dropped once made)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from generate import born_digital_pdf

BOUND_MB = 500

_READ = """
import sys
from pathlib import Path
from ocrqueue.documents import ProcessOptions, open_document, process_page
pages = 0
with open_document(Path(sys.argv[1]).read_bytes()) as doc:
    for page in doc.pages():
        process_page(page, ProcessOptions())
        pages += 1
peak = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM:"))
print(pages, int(peak.split()[1]) // 1024)
"""


def test_a_thousand_page_pdf_stays_under_the_memory_bound(tmp_path: Path) -> None:
    path = tmp_path / "long.pdf"
    path.write_bytes(born_digital_pdf(1000))
    out = subprocess.run(
        [sys.executable, "-c", _READ, str(path)], capture_output=True, text=True, check=True, timeout=600
    )
    pages, peak_mb = (int(v) for v in out.stdout.split())
    assert pages == 1000
    assert peak_mb < BOUND_MB, f"peak RSS {peak_mb} MB"
