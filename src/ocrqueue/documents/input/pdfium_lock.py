"""PDFium is not thread-safe: every call into it, from any document, goes through this one lock."""

from __future__ import annotations

import threading

PDFIUM_LOCK = threading.RLock()
