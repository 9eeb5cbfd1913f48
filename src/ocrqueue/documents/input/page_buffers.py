"""Keep page-sized buffers for the next page instead of handing them back to the OS.

Reading a page by OCR allocates a few dozen megabytes of short-lived arrays: the grey page, its
ink mask, rule masks, the copy the engine gets. glibc's malloc serves blocks of that size with
mmap and unmaps them when they are freed, so every page faulted its memory in afresh: about
14,000 page faults and 10 ms a page on this machine (Tesseract takes ~200 ms), half of the
pipeline's own time around the engine. Served from the heap and kept when freed, the next page
reuses them. The cost is memory the process keeps: measured +15 MB peak for one OCR slot
(docs/documents.md). Each malloc arena keeps its own freed memory, and threads (worker slots, the
layout pool) get arenas of their own, so the arenas are capped too: with one per thread, a slot's
peak reached 514 MB in a busy test run against 436 MB in a quiet one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

# mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
ARENAS = 2
# glibc never serves blocks above 32 MiB from the heap of a thread's arena on its own; a 200 dpi
# A4 page is 3.9 MB grey and 11.6 MB in colour.
_MAX_HEAP_BLOCK_MB = 32


def keep_page_buffers(keep_mb: int) -> bool:
    """Let malloc keep up to ``keep_mb`` MiB of freed memory in each of at most ``ARENAS`` arenas,
    and serve blocks up to a quarter of that (at most 32 MiB) from it. 0 leaves malloc's defaults.
    False where the C library has no ``mallopt`` (not glibc) or refuses: nothing changes then but
    the speed. Call it at process start, before threads allocate."""
    if keep_mb <= 0:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        log.info("no mallopt in this C library: page buffers are not kept")
        return False
    block = min(_MAX_HEAP_BLOCK_MB, max(1, keep_mb // 4)) << 20
    return all(
        mallopt(option, value)
        for option, value in ((_M_ARENA_MAX, ARENAS), (_M_MMAP_THRESHOLD, block), (_M_TRIM_THRESHOLD, keep_mb << 20))
    )
