"""keep_page_buffers: page-sized arrays freed by one page are reused by the next, not faulted in
afresh. Each case runs in a fresh interpreter: malloc's settings are process-wide."""

from __future__ import annotations

import subprocess
import sys

from ocrqueue.documents import keep_page_buffers

_PAGES = """
import resource, sys
import numpy as np
from ocrqueue.documents import keep_page_buffers

kept = keep_page_buffers(int(sys.argv[1]))

def page():
    # what reading one page allocates and frees: a colour page, grey copies, masks
    arrays = [np.ones(n << 20, dtype=np.uint8) for n in (12, 4, 4, 4, 4, 8)]
    return sum(int(a[-1]) for a in arrays)

page()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    page()
print(kept, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 10)
"""


def _faults_per_page(keep_mb: int) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", _PAGES, str(keep_mb)], capture_output=True, text=True, check=True)
    kept, faults = out.stdout.split()
    return kept, int(faults)


def test_kept_buffers_are_reused_without_page_faults() -> None:
    kept, faults = _faults_per_page(64)
    assert kept == "True"
    assert faults < 100, f"{faults} page faults per page with buffers kept"


def test_malloc_defaults_fault_each_page_in_afresh() -> None:
    """The measurement above can tell: with malloc's defaults the same pages fault thousands of times."""
    kept, faults = _faults_per_page(0)
    assert kept == "False"
    assert faults > 1000, f"only {faults} page faults per page with malloc's defaults"


def test_zero_changes_nothing() -> None:
    assert keep_page_buffers(0) is False
