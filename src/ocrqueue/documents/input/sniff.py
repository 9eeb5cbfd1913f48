"""Decide the input type from its first bytes; the file name is never trusted."""

from __future__ import annotations

from enum import StrEnum


class InputFormat(StrEnum):
    PDF = "pdf"
    PNG = "png"
    JPEG = "jpeg"
    TIFF = "tiff"
    WEBP = "webp"
    BMP = "bmp"

    @property
    def media_type(self) -> str:
        return _MEDIA_TYPES[self]


_MEDIA_TYPES = {
    InputFormat.PDF: "application/pdf",
    InputFormat.PNG: "image/png",
    InputFormat.JPEG: "image/jpeg",
    InputFormat.TIFF: "image/tiff",
    InputFormat.WEBP: "image/webp",
    InputFormat.BMP: "image/bmp",
}

# PDF readers accept a header anywhere in the first KiB (some generators prepend junk), so do we.
_PDF_HEADER_WINDOW = 1024


def sniff_format(data: bytes) -> InputFormat | None:
    """Return the format whose signature ``data`` starts with, or None if it is not one we read."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return InputFormat.PNG
    if data.startswith(b"\xff\xd8\xff"):
        return InputFormat.JPEG
    if data.startswith((b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")):
        return InputFormat.TIFF
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return InputFormat.WEBP
    if data.startswith(b"BM") and len(data) >= 26:
        return InputFormat.BMP
    if b"%PDF-" in data[:_PDF_HEADER_WINDOW]:
        return InputFormat.PDF
    return None


def describe_unknown(data: bytes) -> str:
    """A short human hint about what an unsupported file looks like, for the error message."""
    head = data[:64]
    if head.startswith(b"PK\x03\x04"):
        return "a ZIP archive (e.g. DOCX, XLSX or ODT)"
    if head.startswith(b"GIF8"):
        return "a GIF image"
    if head.lstrip().lower().startswith((b"<!doctype html", b"<html")):
        return "an HTML page"
    if all(32 <= b < 127 or b in (9, 10, 13) for b in head):
        return "plain text"
    return "an unrecognised binary format"
