"""Hostile and broken inputs for the upload and worker paths, each with the outcome the service owes it.

Every kind is generated here from a few lines of PDF syntax, Pillow or raw bytes (nothing binary is
committed). `hostile_corpus(folder)` writes them all and returns `Hostile` records; the expectation of
each says what a correct service does with it:

- `refused(status, code)`: the upload itself is answered with that 4xx and a JSON error code;
- `dead(*words)`: the upload is accepted, and the task ends `dead_letter` with a message holding the words;
- `completes(format)`: the file is harmless after all (a polyglot, a wrong extension, script text) and
  is processed as `format`, decided from its bytes.

The documents limits the expectations assume are `HOSTILE_LIMITS` (pass them to the service).

    python tests/data/hostile.py OUTDIR
"""

from __future__ import annotations

import io
import random
import struct
import sys
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from data.generate import HOSTILE, PdfBuilder, born_digital_pdf, decompression_bomb, encode, raw_pdf
from PIL import Image

# The service settings the expectations below are written for.
HOSTILE_LIMITS = {"max_pages": 2000, "max_upload_bytes": 8_000_000, "max_pixels_per_page": 60_000_000}
TINY_PAGES = 2000  # exactly at the page limit: must work
FRAMES = 3000  # TIFF frames: over the page limit


@dataclass(frozen=True)
class Expect:
    outcome: str  # "refused" | "dead" | "completes"
    status: int = 0
    code: str = ""
    words: tuple[str, ...] = ()
    format: str = ""


def refused(status: int, code: str) -> Expect:
    return Expect("refused", status=status, code=code)


def dead(*words: str) -> Expect:
    return Expect("dead", words=words)


def completes(fmt: str) -> Expect:
    return Expect("completes", format=fmt)


@dataclass
class Hostile:
    name: str
    filename: str
    data: bytes
    expect: Expect
    fields: dict[str, str] = field(default_factory=dict)
    """Extra form fields for the upload (e.g. mode=ocr to force rendering)."""
    about: str = ""


# --- a raw PDF writer: any objects, any trailer ------------------------------------------------------


def stream(data: bytes, extra: bytes = b"", compress: bool = True) -> bytes:
    body = zlib.compress(data, 9) if compress else data
    flt = b"/Filter /FlateDecode " if compress else b""
    return b"<< /Length %d %s%s >>\nstream\n" % (len(body), flt, extra) + body + b"\nendstream"


def _text_ops(text: str = "Hello hostile world") -> bytes:
    return b"BT /F1 12 Tf 72 720 Td (" + text.encode("latin-1") + b") Tj ET"


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _one_page(page_extra: bytes = b"", content: bytes | None = None, catalog_extra: bytes = b"") -> list[bytes]:
    """Catalog 1, Pages 2, Page 3, Font 4, Contents 5."""
    return [
        b"<< /Type /Catalog /Pages 2 0 R %s >>" % catalog_extra,
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R %s >>" % page_extra,
        _FONT,
        stream(content if content is not None else _text_ops()),
    ]


def count_lie_pdf() -> bytes:
    """One real page whose page tree claims 100,000."""
    objects = _one_page()
    objects[1] = b"<< /Type /Pages /Kids [3 0 R] /Count 100000 >>"
    return raw_pdf(objects)


def real_huge_page_tree(pages: int = 100_000) -> bytes:
    """A real, flat page tree of `pages` empty pages sharing one inherited MediaBox (about 6 MB)."""
    first_page = 3
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /MediaBox [0 0 10 10] /Count %d /Kids [%s] >>" % (pages, kids),
    ]
    objects += [b"<</Type/Page/Parent 2 0 R>>"] * pages
    return raw_pdf(objects)


def tiny_pages_pdf(pages: int) -> bytes:
    """`pages` pages of 36 x 36 pt, each with one short word in its text layer."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", _FONT]
    kids = []
    content = len(objects) + 1
    objects.append(stream(b"BT /F1 6 Tf 4 16 Td (tiny) Tj ET"))
    for _ in range(pages):
        objects.append(
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 36 36]/Resources<</Font<</F1 3 0 R>>>>/Contents %d 0 R>>" % content
        )
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Count %d /Kids [%s] >>" % (pages, b" ".join(b"%d 0 R" % k for k in kids))
    return raw_pdf(objects)


def giant_page_pdf() -> bytes:
    """One page of 200 x 200 inches (MediaBox 14400 pt, the largest PDF allows) with no text layer."""
    objects = _one_page(content=b"0 0 1 rg 10 10 100 100 re f")
    objects[2] = objects[2].replace(b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 14400 14400]")
    return raw_pdf(objects)


def zero_area_page_pdf() -> bytes:
    objects = _one_page(content=b"")
    objects[2] = objects[2].replace(b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 0 0]")
    return raw_pdf(objects)


def javascript_pdf() -> bytes:
    """OpenAction JavaScript, a Launch action and an AA dictionary: a reader must never run any of it."""
    js = b"<< /S /JavaScript /JS (app.alert('pwned'); this.exportDataObject({cName: 'x', nLaunch: 2});) >>"
    objects = _one_page(
        page_extra=b"/AA << /O 7 0 R >>",
        catalog_extra=b"/OpenAction 6 0 R /Names << /JavaScript << /Names [(x) 6 0 R] >> >>",
    )
    objects.append(js)  # 6
    objects.append(b"<< /S /Launch /F (/bin/sh) /Win << /F (cmd.exe) /P (/c calc) >> >>")  # 7
    return raw_pdf(objects)


def nested_arrays_pdf(depth: int = 100_000) -> bytes:
    """A page whose resources hold an array nested 100,000 deep (recursive parsers overflow their stack)."""
    objects = _one_page(page_extra=b"/Junk " + b"[" * depth + b"]" * depth)
    return raw_pdf(objects)


def nested_page_tree_pdf(depth: int = 5000) -> bytes:
    """A page tree 5,000 levels deep with a single page at the bottom."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(depth):
        number = 2 + level
        parent = b"/Parent %d 0 R " % (number - 1) if level else b""
        objects.append(b"<< /Type /Pages %s/Kids [%d 0 R] /Count 1 >>" % (parent, number + 1))
    leaf_parent = 1 + depth
    objects.append(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 200 200] >>" % leaf_parent)
    return raw_pdf(objects)


def cyclic_page_tree_pdf() -> bytes:
    """The page tree's kids point back at the root."""
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 2 >>"])


def empty_page_tree_pdf() -> bytes:
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"])


def content_bomb_pdf(inflated: int = 300 << 20) -> bytes:
    """A page content stream of 300 MB of spaces, compressed to about 300 KB."""
    compressor = zlib.compressobj(9)
    chunk = b" " * (1 << 20)
    body = b"".join(compressor.compress(chunk) for _ in range(inflated >> 20)) + compressor.flush()
    objects = _one_page()
    objects[4] = b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream"
    return raw_pdf(objects)


def huge_font_pdf(size: int = 4 << 20) -> bytes:
    """A TrueType font program of 4 MB of random bytes embedded (and used) on the page."""
    junk = random.Random(3).randbytes(size)
    objects = _one_page()
    objects[3] = (
        b"<< /Type /Font /Subtype /TrueType /BaseFont /Evil /FirstChar 32 /LastChar 126 "
        b"/Widths [%s] /FontDescriptor 6 0 R >>" % b" ".join([b"500"] * 95)
    )
    objects.append(
        b"<< /Type /FontDescriptor /FontName /Evil /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 "
        b"/Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>"
    )
    objects.append(stream(junk, extra=b"/Length1 %d" % size, compress=False))
    return raw_pdf(objects)


def image_bomb_pdf() -> bytes:
    """An image XObject declaring 60000 x 60000 gray pixels, drawn over the page, with 1 KB of data."""
    objects = _one_page(content=b"q 612 0 0 792 0 0 cm /Im0 Do Q")
    objects[2] = objects[2].replace(b"/Font << /F1 4 0 R >>", b"/XObject << /Im0 6 0 R >>")
    data = zlib.compress(b"\x00" * 60000 * 8, 9)
    objects.append(
        b"<< /Type /XObject /Subtype /Image /Width 60000 /Height 60000 /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"
    )
    return raw_pdf(objects)


def html_text_pdf() -> bytes:
    """A text-layer page whose words are HTML, script and Markdown syntax."""
    pdf = PdfBuilder()
    pdf.add_page(
        [
            PdfBuilder.text(72, 80, 12, HOSTILE),
            PdfBuilder.text(72, 120, 12, '<img src=x onerror="alert(2)"> [click](javascript:alert(3))'),
            PdfBuilder.text(72, 160, 12, "</textarea><iframe src=//evil.example></iframe> ![x](http://evil/x.png)"),
        ]
    )
    return pdf.build()


def _png(size: tuple[int, int] = (400, 300), text_colour: int = 0) -> bytes:
    image = Image.new("L", size, 255)
    image.paste(text_colour, (20, 20, 200, 60))
    return encode(image, "PNG")


def pdf_zip_polyglot() -> bytes:
    """A valid PDF with a ZIP archive appended (ZIP readers start from the end)."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("evil.sh", "#!/bin/sh\nrm -rf /\n")
    return born_digital_pdf(1) + archive.getvalue()


def png_pdf_polyglot() -> bytes:
    """A valid PNG with a whole PDF appended after IEND: the bytes start as PNG, so it is a PNG."""
    return _png() + born_digital_pdf(1)


def zip_with_pdf_inside() -> bytes:
    """A ZIP (starts with PK) holding a stored, uncompressed PDF whose header is within the first KiB."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("a.pdf", born_digital_pdf(1))
    return archive.getvalue()


def _jpeg_with_size(width: int, height: int) -> bytes:
    """A real small JPEG whose SOF0 header is rewritten to claim `width` x `height`."""
    data = bytearray(encode(Image.new("L", (16, 16), 128), "JPEG"))
    sof = data.find(b"\xff\xc0")
    struct.pack_into(">HH", data, sof + 5, height, width)
    return bytes(data)


def _png_with_ihdr(width: int, height: int) -> bytes:
    """A PNG whose IHDR claims `width` x `height` (with a correct CRC), over 1 KB of real data."""
    data = bytearray(_png((32, 32)))
    struct.pack_into(">II", data, 16, width, height)
    struct.pack_into(">I", data, 29, zlib.crc32(bytes(data[12:29])))
    return bytes(data)


def tiff_many_frames(frames: int = FRAMES) -> bytes:
    first = Image.new("L", (8, 8), 255)
    buf = io.BytesIO()
    first.save(buf, "TIFF", save_all=True, append_images=[Image.new("L", (8, 8), 200)] * (frames - 1))
    return buf.getvalue()


def tiff_second_frame_bomb() -> bytes:
    """Frame 1 is small; frame 2 claims 30000 x 30000 (decoded only when its page comes)."""
    buf = io.BytesIO()
    small = Image.new("1", (64, 64), 1)
    big = Image.new("1", (30000, 30000), 1)
    small.save(buf, "TIFF", save_all=True, append_images=[big], compression="group4")
    return buf.getvalue()


def truncated(data: bytes, keep: float = 0.5) -> bytes:
    return data[: max(16, int(len(data) * keep))]


def _encrypted_pdf() -> bytes:
    pdf = PdfBuilder()
    pdf.add_page([PdfBuilder.text(72, 72, 12, "secret")])
    return pdf.build(encrypt=True)


PDF = born_digital_pdf(1)
LONG_NAME = ("文档" * 150) + "\N{PILE OF POO}" * 50 + ".png"  # 354 characters, over the 255 kept
HUGE_NAME = ("文档" * 1500) + "\N{PILE OF POO}" * 500 + ".png"  # 11 KB of header: multipart refuses it


UNSUPPORTED = refused(415, "unsupported_type")


def _corpus() -> list[Hostile]:
    ocr = {"mode": "ocr"}
    return [
        Hostile("zero_bytes", "empty.pdf", b"", refused(422, "empty_file")),
        Hostile("whitespace_only", "blank.pdf", b" \n" * 100, UNSUPPORTED),
        Hostile("truncated_pdf", "truncated.pdf", born_digital_pdf(3)[:300], dead("damaged", "truncated")),
        Hostile("pdf_without_xref_tail", "cut.pdf", truncated(born_digital_pdf(3), 0.8), dead("damaged"),
                about="cut before its cross-reference table: PDFium cannot rebuild this one"),
        Hostile("corrupt_pdf", "corrupt.pdf", b"%PDF-1.7\n" + random.Random(1).randbytes(4000), dead("damaged")),
        Hostile("header_only_pdf", "header.pdf", b"%PDF-1.7\n%%EOF\n", dead("damaged")),
        Hostile("encrypted_pdf", "encrypted.pdf", _encrypted_pdf(), dead("encrypted", "password")),
        Hostile("count_lie_100k", "lie.pdf", count_lie_pdf(), dead("100,000 pages", "limit of 2,000")),
        Hostile("page_tree_100k", "huge-tree.pdf", real_huge_page_tree(), dead("100,000 pages", "limit of 2,000")),
        Hostile("tiny_pages_at_limit", "tiny.pdf", tiny_pages_pdf(TINY_PAGES), completes("pdf"), {"mode": "text"}),
        Hostile("empty_page_tree", "nopages.pdf", empty_page_tree_pdf(), dead("damaged")),
        Hostile("cyclic_page_tree", "cycle.pdf", cyclic_page_tree_pdf(), dead("damaged")),
        Hostile("nested_page_tree_5000", "deep-tree.pdf", nested_page_tree_pdf(), dead("damaged")),
        Hostile("nested_arrays_100k", "deep-arrays.pdf", nested_arrays_pdf(), completes("pdf"),
                about="PDFium stops parsing at its nesting limit; the page itself is fine"),
        Hostile("giant_page_200in", "giant.pdf", giant_page_pdf(), dead("too large to render"), ocr),
        Hostile("zero_area_page", "flat.pdf", zero_area_page_pdf(), completes("pdf"), ocr,
                about="PDFium falls back to a Letter page; it renders blank"),
        Hostile("content_stream_bomb", "zbomb.pdf", content_bomb_pdf(), completes("pdf"), {"mode": "text"}),
        Hostile("huge_embedded_font", "font.pdf", huge_font_pdf(), completes("pdf"), {"mode": "text"}),
        Hostile("image_xobject_bomb", "imgbomb.pdf", image_bomb_pdf(), completes("pdf"), ocr),
        Hostile("javascript_openaction", "js.pdf", javascript_pdf(), completes("pdf")),
        Hostile("html_script_text_layer", "xss.pdf", html_text_pdf(), completes("pdf"), {"mode": "text"}),
        Hostile("png_decompression_bomb", "bomb.png", decompression_bomb(), dead("too large")),
        Hostile("png_ihdr_lie", "lie.png", _png_with_ihdr(50_000, 50_000), dead("too large")),
        Hostile("png_zero_width", "zero.png", _png_with_ihdr(0, 10), dead("damaged")),
        Hostile("jpeg_huge_dimensions", "huge.jpg", _jpeg_with_size(65_000, 65_000), dead("too large")),
        Hostile("jpeg_over_pixel_limit", "wide.jpg", _jpeg_with_size(10_000, 9_000), dead("pixels", "limit")),
        Hostile("tiff_3000_frames", "frames.tif", tiff_many_frames(), dead("3,000 pages", "limit of 2,000")),
        Hostile("tiff_second_frame_bomb", "frames2.tif", tiff_second_frame_bomb(), dead("page 2")),
        Hostile("webp_truncated", "cut.webp", truncated(encode(Image.new("RGB", (300, 300), "red"), "WEBP"), 0.4),
                dead("damaged")),
        Hostile("bmp_truncated", "cut.bmp", truncated(encode(Image.new("RGB", (300, 300), "red"), "BMP"), 0.3),
                dead("damaged")),
        Hostile("png_truncated", "cut.png", truncated(_png(), 0.5), dead("damaged")),
        Hostile("pdf_zip_polyglot", "poly.pdf", pdf_zip_polyglot(), completes("pdf")),
        Hostile("png_pdf_polyglot", "poly.pdf", png_pdf_polyglot(), completes("png")),
        Hostile("zip_holding_pdf", "archive.zip", zip_with_pdf_inside(), completes("pdf"),
                about="a PDF header inside the first KiB is a PDF to every reader, PDFium included"),
        Hostile("png_named_pdf", "picture.pdf", _png(), completes("png")),
        Hostile("pdf_named_png", "document.png", PDF, completes("pdf")),
        Hostile("gif_named_png", "anim.png", encode(Image.new("RGB", (10, 10)), "GIF"), UNSUPPORTED),
        Hostile("html_named_pdf", "page.pdf", b"<!doctype html><script>alert(1)</script>", UNSUPPORTED),
        Hostile("docx_zip", "report.pdf", _docx(), UNSUPPORTED),
        Hostile("pdf_header_after_1kib", "late.pdf", b"\x00" * 2048 + PDF, UNSUPPORTED),
        Hostile("name_traversal", "../../../../etc/cron.d/evil.pdf", born_digital_pdf(2), completes("pdf")),
        Hostile("name_absolute_backslash", "C:\\Windows\\..\\..\\evil.pdf", _png((50, 50)), completes("png")),
        Hostile("name_nul_byte", "evil.pdf\x00.png", _png((60, 60)), completes("png")),
        Hostile("name_long_unicode", LONG_NAME, _png((70, 70)), completes("png")),
        Hostile("name_huge_unicode", HUGE_NAME, _png((80, 80)), refused(400, "bad_request")),
    ]  # fmt: skip


def _docx() -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", "<w:document/>")
    return archive.getvalue()


def hostile_corpus(folder: Path | None = None) -> list[Hostile]:
    """Every hostile kind; written into `folder` (as NAME.bin) when one is given."""
    corpus = _corpus()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for item in corpus:
            (folder / f"{item.name}.bin").write_bytes(item.data)
    return corpus


if __name__ == "__main__":
    for item in hostile_corpus(Path(sys.argv[1] if len(sys.argv) > 1 else "hostile")):
        print(f"{item.expect.outcome:10} {item.name:28} {len(item.data):>10,} bytes")
