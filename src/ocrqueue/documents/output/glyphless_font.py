"""An invisible font for the searchable PDF's text layer, built here byte by byte.

The text layer is drawn in render mode 3 (neither filled nor stroked), so the font needs no outlines:
what matters is that every character a recogniser can produce has a code, a known advance width and
a Unicode value. Like Tesseract's and OCRmyPDF's "GlyphLessFont", it is a Type0 font with the
Identity-H encoding: a character's code is its UTF-16 code unit, every code maps to one empty glyph
of half an em (a box never painted), and the ToUnicode CMap maps every code back to itself, so copy and search give back
the text (Chinese included) in any viewer.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

FONT_NAME = "GlyphLessFont"
UNITS_PER_EM = 1000
ADVANCE = 500
"""Advance width of every glyph, in font units: a character is half as wide as the font size."""

_NUM_GLYPHS = 2


def _checksum(data: bytes) -> int:
    padded = data + b"\0" * (-len(data) % 4)
    words: tuple[int, ...] = struct.unpack(f">{len(padded) // 4}I", padded)
    return sum(words) & 0xFFFFFFFF


def _name_table() -> bytes:
    records = [(1, FONT_NAME), (2, "Regular"), (4, FONT_NAME), (6, FONT_NAME)]
    strings = b""
    entries = b""
    for name_id, text in records:
        encoded = text.encode("utf-16-be")
        entries += struct.pack(">6H", 3, 1, 0x409, name_id, len(encoded), len(strings))
        strings += encoded
    header = struct.pack(">3H", 0, len(records), 6 + 12 * len(records))
    return header + entries + strings


def _cmap_table() -> bytes:
    """One format 4 subtable mapping nothing but the required 0xFFFF end segment; the PDF maps codes
    to glyphs with CIDToGIDMap, not through this table."""
    subtable = struct.pack(">7H", 4, 24, 0, 2, 2, 0, 0) + struct.pack(">5H", 0xFFFF, 0, 0xFFFF, 1, 0)
    return struct.pack(">2H", 0, 1) + struct.pack(">2HI", 3, 1, 12) + subtable


def _box_glyph() -> bytes:
    """A rectangle one advance wide and one em tall. Never painted (render mode 3), but PDFium
    drops a one-character text object whose glyph has no extent from the text it extracts."""
    header = struct.pack(">h4h", 1, 0, 0, ADVANCE, UNITS_PER_EM)
    contour = struct.pack(">2H", 3, 0)  # the contour ends at point 3; no instructions
    flags = bytes([0x01] * 4)  # on-curve points, coordinates as 16-bit deltas
    xs = struct.pack(">4h", 0, 0, ADVANCE, 0)
    ys = struct.pack(">4h", 0, UNITS_PER_EM, 0, -UNITS_PER_EM)
    glyph = header + contour + flags + xs + ys
    return glyph + b"\0" * (-len(glyph) % 4)


def _tables() -> dict[bytes, bytes]:
    head = struct.pack(
        ">2I2I2H2q4h2H3h",
        0x00010000,  # version
        0x00010000,  # fontRevision
        0,  # checkSumAdjustment, set once the whole font is known
        0x5F0F3CF5,  # magic
        0x000B,  # flags: baseline at y=0, left sidebearing at x=0, integer scaling
        UNITS_PER_EM,
        0,  # created
        0,  # modified
        0,
        0,
        ADVANCE,
        UNITS_PER_EM,  # xMin, yMin, xMax, yMax
        0,  # macStyle
        3,  # lowestRecPPEM
        2,  # fontDirectionHint
        0,  # indexToLocFormat: short offsets
        0,  # glyphDataFormat
    )
    hhea = struct.pack(
        ">I3hH3h3h4hhH",
        0x00010000,
        UNITS_PER_EM,  # ascender
        0,  # descender
        0,  # lineGap
        ADVANCE,  # advanceWidthMax
        0,
        0,
        ADVANCE,  # minLeftSideBearing, minRightSideBearing, xMaxExtent
        1,
        0,
        0,  # caret slope rise, run, offset
        0,
        0,
        0,
        0,  # reserved
        0,  # metricDataFormat
        _NUM_GLYPHS,  # numberOfHMetrics
    )
    maxp = struct.pack(">IH13H", 0x00010000, _NUM_GLYPHS, 4, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0)
    hmtx = struct.pack(">hh", ADVANCE, 0) * _NUM_GLYPHS
    glyf = _box_glyph()
    loca = struct.pack(">3H", 0, 0, len(glyf) // 2)
    post = struct.pack(">2I2h5I", 0x00030000, 0, -100, 50, 0, 0, 0, 0, 0)
    return {
        b"cmap": _cmap_table(),
        b"glyf": glyf,
        b"head": head,
        b"hhea": hhea,
        b"hmtx": hmtx,
        b"loca": loca,
        b"maxp": maxp,
        b"name": _name_table(),
        b"post": post,
    }


def glyphless_truetype() -> bytes:
    """A valid TrueType font with two glyphs: an empty .notdef and the box every code maps to."""
    tables = _tables()
    count = len(tables)
    power = 1 << (count.bit_length() - 1)
    directory = struct.pack(">I4H", 0x00010000, count, power * 16, power.bit_length() - 1, count * 16 - power * 16)
    offset = len(directory) + 16 * count
    entries = b""
    body = b""
    for tag, data in sorted(tables.items()):
        entries += tag + struct.pack(">3I", _checksum(data), offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    font = bytearray(directory + entries + body)
    head_offset = offset + sum(len(d) + (-len(d) % 4) for t, d in sorted(tables.items()) if t < b"head")
    adjustment = (0xB1B0AFBA - _checksum(bytes(font))) & 0xFFFFFFFF
    font[head_offset + 8 : head_offset + 12] = struct.pack(">I", adjustment)
    return bytes(font)


def cid_to_gid_map() -> bytes:
    """Every 16-bit code to glyph 1 (the empty one), as the CIDToGIDMap stream wants it."""
    return b"\x00\x01" * 0x10000


def to_unicode_cmap() -> bytes:
    """Every 2-byte code to the same UTF-16 value: codes are UTF-16 code units of the text.

    Written as 256 ranges that each keep to one high byte, as the PDF spec asks of `bfrange`.
    """
    ranges = [f"<{high:02X}00> <{high:02X}FF> <{high:02X}00>" for high in range(256) if not 0xD8 <= high <= 0xDF]
    blocks = "\n".join(_bfrange_blocks(ranges, 100))
    return (
        "/CIDInit /ProcSet findresource begin\n"
        "12 dict begin\n"
        "begincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n"
        "/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n"
        f"{blocks}\n"
        "endcmap\n"
        "CMapName currentdict /CMap defineresource pop\n"
        "end\n"
        "end\n"
    ).encode("ascii")


def _bfrange_blocks(ranges: list[str], size: int) -> Iterable[str]:
    for start in range(0, len(ranges), size):
        chunk = ranges[start : start + size]
        yield f"{len(chunk)} beginbfrange\n" + "\n".join(chunk) + "\nendbfrange"


def encode_text(text: str) -> bytes:
    """The codes for `text`: one UTF-16 code unit each. Characters outside the Basic Multilingual
    Plane and lone surrogates become U+FFFD: a surrogate half has no Unicode value of its own."""
    safe = "".join(ch if ord(ch) < 0x10000 and not 0xD800 <= ord(ch) <= 0xDFFF else "\ufffd" for ch in text)
    return safe.encode("utf-16-be")
