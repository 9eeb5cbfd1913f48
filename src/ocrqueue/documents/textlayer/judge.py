"""Decide whether a PDF text layer is good enough to use instead of OCR."""

from __future__ import annotations

from ocrqueue.documents.input.pages import TextLayer

MAX_BAD_SHARE = 0.05
# A page that is mostly a raster image and carries only a few characters is a scan with, at most,
# a page number or stamp in its text layer: it needs OCR.
SCAN_IMAGE_COVERAGE = 0.5
SCAN_MAX_CHARS = 100


def text_layer_problem(layer: TextLayer | None) -> str | None:
    """None if the layer can be used; otherwise why not, for the page's warnings."""
    if layer is None or layer.char_count == 0:
        return "page has no text layer"
    if layer.bad_char_count / layer.char_count > MAX_BAD_SHARE:
        share = 100 * layer.bad_char_count / layer.char_count
        return f"text layer has {share:.0f}% unreadable characters (broken font encoding)"
    if layer.image_coverage >= SCAN_IMAGE_COVERAGE and layer.char_count < SCAN_MAX_CHARS:
        return "page is a scanned image with almost no text layer"
    return None
