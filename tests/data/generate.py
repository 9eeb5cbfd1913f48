"""Generate sample inputs with known content for the documents tests and the OCR benchmark.

Nothing binary is committed: every sample is drawn here with Pillow and Debian's fonts
(fonts-dejavu-core, fonts-noto-cjk), and text-layer PDFs are written by hand (a few lines of PDF
syntax with the standard Helvetica font). Run as a script to write them into a folder:

    python tests/data/generate.py OUTDIR
"""

from __future__ import annotations

import io
import itertools
import json
import random
import sys
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DEJAVU_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
DEJAVU_MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
NOTO_CJK_SC_INDEX = 2  # the .ttc holds JP, KR, SC, TC, HK faces in this order

DPI = 200
PAGE_W, PAGE_H = 1654, 2339  # A4 at 200 dpi
MARGIN = 150

ENGLISH = [
    "Invoices must be submitted within thirty days of delivery.",
    "Each invoice lists the order number, the quantity and the unit price.",
    "Payments are made by bank transfer to the account named in the contract.",
    "Questions about an invoice go to the accounts team before the due date.",
    "Late invoices are paid in the following month without interest.",
    "The supplier keeps copies of all delivery notes for five years.",
]
CHINESE = [
    "本公司将于下月召开年度股东大会。",
    "会议将审议董事会的工作报告和财务预算。",
    "请各位股东携带身份证件按时参加会议。",
    "如有疑问请与董事会办公室联系。",
    "会议地点为北京市朝阳区建国路八十八号。",
]
MIXED = [
    "Order 2024 订单已经发货，预计三天内到达。",  # noqa: RUF001 (Chinese punctuation is the point)
    "The total amount 总金额 is 1,250 yuan.",
    "Please sign the delivery note 请在送货单上签字。",
]
LEFT_COLUMN = [
    "Alpha begins the left column here.",
    "Bravo continues the left column.",
    "Charlie writes more words on the left.",
    "Delta finishes the left column text.",
]
RIGHT_COLUMN = [
    "Echo starts the right column now.",
    "Foxtrot keeps writing on the right.",
    "Golf adds another right line here.",
    "Hotel closes the right column text.",
]
TABLE = [
    ["Item", "Quantity", "Price"],
    ["Apples", "12", "3.50"],
    ["Pears", "7", "4.20"],
    ["Plums", "30", "9.75"],
]
HOSTILE = "Use <script>alert(1)</script> & <b>bold</b> * not # a heading"


@dataclass
class Sample:
    """One generated file and what a correct reading of it contains."""

    name: str
    path: str
    kind: str
    language: str = ""
    text: list[str] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)
    pages: int = 1
    error_code: str = ""


def _font(path: str, size: int, index: int = 0) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, index=index)


def _page() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (PAGE_W, PAGE_H), "white")
    return image, ImageDraw.Draw(image)


def text_page(lines: Sequence[str], cjk: bool, title: str | None = None) -> Image.Image:
    """A page of single-column text, one sentence per line, with an optional bold title."""
    image, draw = _page()
    body = _font(NOTO_CJK, 34, NOTO_CJK_SC_INDEX) if cjk else _font(DEJAVU, 30)
    y = MARGIN
    if title:
        draw.text((MARGIN, y), title, font=_font(DEJAVU_BOLD, 52), fill="black")
        y += 120
    for line in lines:
        draw.text((MARGIN, y), line, font=body, fill="black")
        y += 62
    return image


PAGE_HEADER = "ACME Corporation internal report"
PAGE_FOOTER = "Page 7 of 12"


FORMULA = "a² + b² = c²"


def formula_page() -> Image.Image:
    """Paragraphs with a display formula centred between them, as a paper sets one."""
    image, draw = _page()
    body = _font(DEJAVU, 30)
    y = MARGIN
    for line in ENGLISH[:3]:
        draw.text((MARGIN, y), line, font=body, fill="black")
        y += 62
    formula = _font(DEJAVU, 36)
    width = draw.textlength(FORMULA, font=formula)
    draw.text(((PAGE_W - width) / 2, y + 40), FORMULA, font=formula, fill="black")
    y += 170
    for line in ENGLISH[3:]:
        draw.text((MARGIN, y), line, font=body, fill="black")
        y += 62
    return image


def two_column_page() -> Image.Image:
    """A title over two columns, with a running header and a page-number footer."""
    image, draw = _page()
    small = _font(DEJAVU, 22)
    draw.text((MARGIN, 50), PAGE_HEADER, font=small, fill="black")
    draw.text((PAGE_W // 2 - 80, PAGE_H - 90), PAGE_FOOTER, font=small, fill="black")
    draw.text((MARGIN, MARGIN), "Two Column Report", font=_font(DEJAVU_BOLD, 52), fill="black")
    body = _font(DEJAVU, 28)
    col_w = (PAGE_W - 2 * MARGIN - 100) // 2
    for col, lines in enumerate((LEFT_COLUMN, RIGHT_COLUMN)):
        x = MARGIN + col * (col_w + 100)
        for i, line in enumerate(lines):
            draw.text((x, MARGIN + 160 + i * 56), line, font=body, fill="black")
    return image


def table_page() -> Image.Image:
    """A fully ruled table with a caption line above it."""
    image, draw = _page()
    font = _font(DEJAVU, 30)
    draw.text((MARGIN, MARGIN), "Table 1: Fruit prices", font=font, fill="black")
    col_w, row_h = 360, 80
    x0, y0 = MARGIN, MARGIN + 100
    n_rows, n_cols = len(TABLE), len(TABLE[0])
    for r in range(n_rows + 1):
        draw.line([(x0, y0 + r * row_h), (x0 + n_cols * col_w, y0 + r * row_h)], fill="black", width=3)
    for c in range(n_cols + 1):
        draw.line([(x0 + c * col_w, y0), (x0 + c * col_w, y0 + n_rows * row_h)], fill="black", width=3)
    for r, row in enumerate(TABLE):
        for c, cell in enumerate(row):
            draw.text((x0 + c * col_w + 24, y0 + r * row_h + 22), cell, font=font, fill="black")
    return image


SPAN_TABLE = [["Fruit", "", "Price"], ["Apples", "red", "3.50"], ["Pears", "green", "4.20"], ["Plums", "blue", ""]]


def span_table_page() -> Image.Image:
    """A ruled table with a header cell spanning two columns and a price spanning two rows."""
    image, draw = _page()
    font = _font(DEJAVU, 30)
    col_w, row_h = 300, 80
    x0, y0 = MARGIN, MARGIN
    xs = [x0 + c * col_w for c in range(4)]
    ys = [y0 + r * row_h for r in range(5)]
    for r, y in enumerate(ys):
        # The rule between rows 2 and 3 stops before the last column (that price spans both rows).
        draw.line([(xs[0], y), (xs[2] if r == 3 else xs[3], y)], fill="black", width=3)
    for c, x in enumerate(xs):
        # The rule between columns 0 and 1 leaves out the header row ("Fruit" spans both).
        draw.line([(x, ys[1] if c == 1 else ys[0]), (x, ys[-1])], fill="black", width=3)
    for r, row in enumerate(SPAN_TABLE):
        for c, cell in enumerate(row):
            draw.text((xs[c] + 24, ys[r] + 22 + (row_h // 2 if (r, c) == (2, 2) else 0)), cell, font=font, fill="black")
    return image


def unruled_table_page() -> Image.Image:
    """A table with only horizontal rules above, below and under its header (no column rules)."""
    image, draw = _page()
    font, bold = _font(DEJAVU, 30), _font(DEJAVU_BOLD, 30)
    draw.text((MARGIN, MARGIN), ENGLISH[0], font=font, fill="black")
    draw.text((MARGIN, MARGIN + 100), "Table 2: Fruit stock", font=font, fill="black")
    top = MARGIN + 180
    for r, row in enumerate(UNRULED_TABLE):
        for c, cell in enumerate(row):
            draw.text((MARGIN + c * 360, top + r * 56), cell, font=bold if r == 0 else font, fill="black")
    for y, width in ((top - 5, 2), (top + 45, 1), (top + len(UNRULED_TABLE) * 56, 2)):
        draw.line([(MARGIN, y), (MARGIN + 1080, y)], fill="black", width=width)
    for i, line in enumerate(ENGLISH[1:]):
        draw.text((MARGIN, 900 + i * 50), line, font=font, fill="black")
    return image


UNRULED_TABLE = [*TABLE, ["Quinces", "4", "6.10"]]
FIGURE_CAPTION = "Figure 1: Sales by quarter"


def figure_page() -> Image.Image:
    """Text, a bar chart inside a frame, its caption, more text."""
    image, draw = _page()
    draw.text((MARGIN, MARGIN), "Quarterly Results", font=_font(DEJAVU_BOLD, 52), fill="black")
    body = _font(DEJAVU, 30)
    for i, line in enumerate(ENGLISH[:3]):
        draw.text((MARGIN, MARGIN + 120 + i * 50), line, font=body, fill="black")
    x0, y0 = MARGIN + 100, 550
    draw.rectangle([x0, y0, x0 + 900, y0 + 600], outline="black", width=3)
    for k, h in enumerate([300, 450, 200, 520, 380]):
        draw.rectangle([x0 + 60 + k * 160, y0 + 600 - h, x0 + 160 + k * 160, y0 + 600], fill=(60 + k * 30, 90, 160))
    draw.ellipse([x0 + 700, y0 + 40, x0 + 860, y0 + 200], fill=(200, 80, 60))
    draw.text((MARGIN + 100, y0 + 630), FIGURE_CAPTION, font=body, fill="black")
    for i, line in enumerate(ENGLISH[3:]):
        draw.text((MARGIN, 1400 + i * 50), line, font=body, fill="black")
    return image


CHART_AXIS = "Revenue"
CHART_QUARTERS = ["Q1", "Q2", "Q3", "Q4"]
DIAGRAM_WORDS = ["Worker", "Queue"]


def labelled_chart_page() -> Image.Image:
    """Text, then a bar chart with an axis name and quarter labels inside its frame and a small
    diagram of two labelled boxes joined by an arrow, then text again."""
    image, draw = _page()
    body, small = _font(DEJAVU, 30), _font(DEJAVU, 26)
    for i, line in enumerate(ENGLISH[:2]):
        draw.text((MARGIN, MARGIN + i * 50), line, font=body, fill="black")
    x0, y0 = MARGIN + 100, 400
    draw.rectangle([x0, y0, x0 + 1000, y0 + 650], outline="black", width=3)
    draw.text((x0 + 20, y0 + 20), CHART_AXIS, font=small, fill="black")
    for k, h in enumerate([250, 380, 200, 420]):
        left = x0 + 140 + k * 200
        draw.rectangle([left, y0 + 560 - h, left + 110, y0 + 560], fill=(70 + k * 30, 100, 160))
        draw.text((left + 35, y0 + 580), CHART_QUARTERS[k], font=small, fill="black")
    draw.rectangle([x0 + 120, y0 + 40, x0 + 330, y0 + 110], outline="black", width=3)
    draw.text((x0 + 150, y0 + 58), DIAGRAM_WORDS[0], font=small, fill="black")
    draw.line([x0 + 330, y0 + 75, x0 + 560, y0 + 75], fill="black", width=3)
    draw.polygon([(x0 + 560, y0 + 62), (x0 + 585, y0 + 75), (x0 + 560, y0 + 88)], fill="black")
    draw.rectangle([x0 + 590, y0 + 40, x0 + 800, y0 + 110], outline="black", width=3)
    draw.text((x0 + 630, y0 + 58), DIAGRAM_WORDS[1], font=small, fill="black")
    for i, line in enumerate(ENGLISH[2:4]):
        draw.text((MARGIN, 1200 + i * 50), line, font=body, fill="black")
    return image


RECEIPT_LINES = ["Rotated phone photo of a receipt", "Total amount due 88.50 EUR"]


def receipt_photo() -> bytes:
    """Two lines of 44-px type on a sparse page, stored turned a quarter as a phone stores a photo
    taken sideways, with EXIF orientation 6 (show turned 90 degrees clockwise)."""
    image = Image.new("RGB", (1200, 900), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(RECEIPT_LINES):
        draw.text((120, 300 + i * 80), line, font=_font(DEJAVU, 44), fill="black")
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    image.transpose(Image.Transpose.ROTATE_90).save(out, "JPEG", quality=90, exif=exif.tobytes())
    return out.getvalue()


def scanned(image: Image.Image, seed: int) -> bytes:
    """A scanned-looking JPEG copy: slight skew, blur, speckle noise and strong compression."""
    rng = random.Random(seed)
    out = image.convert("L").rotate(rng.uniform(-1.2, 1.2), resample=Image.Resampling.BICUBIC, fillcolor=255)
    out = out.filter(ImageFilter.GaussianBlur(0.7))
    pixels = out.load()
    assert pixels is not None
    for _ in range(6000):
        x, y = rng.randrange(out.width), rng.randrange(out.height)
        pixels[x, y] = rng.choice((0, 90, 170))
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=55, dpi=(DPI, DPI))
    return buf.getvalue()


def encode(image: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    image.save(buf, fmt, dpi=(DPI, DPI))
    return buf.getvalue()


# --- a minimal PDF writer for born-digital (text layer) samples -----------------------------------


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def raw_pdf(objects: Sequence[bytes], root: int = 1, trailer: bytes = b"", header: bytes = b"%PDF-1.7") -> bytes:
    """Objects numbered from 1 in order, a correct xref table, and `trailer` added to the trailer dict."""
    out = io.BytesIO()
    out.write(header + b"\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(b"trailer\n<< /Size %d /Root %d 0 R %s >>\n" % (len(objects) + 1, root, trailer))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


class PdfBuilder:
    """Just enough PDF to put Helvetica (F1, bold F2), CJK (F3) or Courier (F4) text, rules and JPEG
    images on A4 pages."""

    WIDTH, HEIGHT = 595.0, 842.0

    def __init__(self, rotate: int = 0) -> None:
        self.rotate = rotate  # /Rotate of every page: shown turned clockwise by this many degrees
        self.pages: list[tuple[str, bytes | None, tuple[float, float, float, float]]] = []

    def add_page(
        self, ops: list[str], jpeg: bytes | None = None, rect: tuple[float, float, float, float] | None = None
    ) -> None:
        """``jpeg`` (grayscale) is drawn into ``rect`` = (x, top, width, height), or over the whole page."""
        self.pages.append(("\n".join(ops), jpeg, rect or (0.0, 0.0, self.WIDTH, self.HEIGHT)))

    @staticmethod
    def text(x: float, y_top: float, size: float, text: str, font: str = "F1") -> str:
        """Text with its top-left corner near (x, y_top) in top-left point coordinates."""
        baseline = PdfBuilder.HEIGHT - y_top - size * 0.8
        return f"BT /{font} {size} Tf {x:.2f} {baseline:.2f} Td {_pdf_string(text)} Tj ET"

    @staticmethod
    def cjk_text(x: float, y_top: float, size: float, text: str) -> str:
        """Chinese in the CJK font (two-byte UCS-2 codes, as PDF writers without font embedding
        produce: Adobe's STSong-Light with the UniGB-UCS2-H CMap, no ToUnicode map), and runs of
        Latin text in between in Helvetica, switching fonts along the line as such writers do."""
        baseline = PdfBuilder.HEIGHT - y_top - size * 0.8
        runs = []
        for cjk, chars in itertools.groupby(text, key=lambda ch: ord(ch) > 0x2E7F):
            run = "".join(chars)
            shown = f"<{run.encode('utf-16-be').hex()}>" if cjk else _pdf_string(run)
            runs.append(f"/{'F3' if cjk else 'F1'} {size} Tf {shown} Tj")
        return f"BT {x:.2f} {baseline:.2f} Td {' '.join(runs)} ET"

    @staticmethod
    def line(x0: float, y0: float, x1: float, y1: float, width: float = 1.0) -> str:
        h = PdfBuilder.HEIGHT
        return f"{width} w {x0:.2f} {h - y0:.2f} m {x1:.2f} {h - y1:.2f} l S"

    def build(self, encrypt: bool = False) -> bytes:
        objects: list[bytes] = []

        def add(body: bytes) -> int:
            objects.append(body)
            return len(objects)

        catalog = add(b"")
        pages_id = add(b"")
        font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        courier = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>")
        bold = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
        cid = add(
            b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light "
            b"/CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /DW 1000 >>"
        )
        cjk = add(
            b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light-UniGB-UCS2-H "
            b"/Encoding /UniGB-UCS2-H /DescendantFonts [%d 0 R] >>" % cid
        )
        kids = []
        for i, (ops, jpeg, (ix, itop, iw, ih)) in enumerate(self.pages):
            xobjects = b""
            if jpeg is not None:
                img = Image.open(io.BytesIO(jpeg))
                head = (
                    f"<< /Type /XObject /Subtype /Image /Width {img.width} /Height {img.height} "
                    f"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length {len(jpeg)} >>"
                ).encode()
                image_id = add(head + b"\nstream\n" + jpeg + b"\nendstream")
                xobjects = f"/XObject << /Im{i} {image_id} 0 R >>".encode()
                ops = f"q {iw} 0 0 {ih} {ix} {self.HEIGHT - itop - ih} cm /Im{i} Do Q\n" + ops
            data = zlib.compress(ops.encode("latin-1"))
            content = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
            resources = b"<< /Font << /F1 %d 0 R /F2 %d 0 R /F3 %d 0 R /F4 %d 0 R >> %s >>" % (
                font,
                bold,
                cjk,
                courier,
                xobjects,
            )
            kids.append(
                add(
                    b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] /Rotate %d /Resources %s /Contents %d 0 R >>"
                    % (pages_id, self.WIDTH, self.HEIGHT, self.rotate, resources, content)
                )
            )
        objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
        objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
            b" ".join(b"%d 0 R" % k for k in kids),
            len(kids),
        )
        encrypt_ref = b""
        if encrypt:
            # A standard security handler whose user password is not empty: no reader opens it without one.
            enc = add(b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -44 >>" % (b"ab" * 32, b"cd" * 32))
            encrypt_ref = b" /Encrypt %d 0 R /ID [<%s> <%s>]" % (enc, b"01" * 16, b"01" * 16)
        return raw_pdf(objects, root=catalog, trailer=encrypt_ref.strip(), header=b"%PDF-1.4")


def _ruled_table(x0: float, y0: float) -> list[str]:
    """TABLE drawn at (x0, y0) in cells of 120 x 24 pt with a rule round every cell."""
    cw, rh = 120.0, 24.0
    ops = [PdfBuilder.line(x0, y0 + r * rh, x0 + 3 * cw, y0 + r * rh) for r in range(len(TABLE) + 1)]
    ops += [PdfBuilder.line(x0 + c * cw, y0, x0 + c * cw, y0 + len(TABLE) * rh) for c in range(4)]
    for r, row in enumerate(TABLE):
        ops += [PdfBuilder.text(x0 + c * cw + 6, y0 + r * rh + 7, 11, t) for c, t in enumerate(row)]
    return ops


def born_digital_pdf(pages: int = 3, rotate: int = 0) -> bytes:
    """Text-layer pages cycling through: title + paragraph, two columns, ruled table."""
    pdf = PdfBuilder(rotate)
    for n in range(pages):
        kind = n % 3
        ops = [PdfBuilder.text(72, 30, 9, "ACME Corporation internal report"), PdfBuilder.text(290, 800, 9, str(n + 1))]
        if kind == 0:
            ops.append(PdfBuilder.text(72, 80, 20, "Supplier Invoices", font="F2"))
            ops += [PdfBuilder.text(72, 130 + i * 18, 11, line) for i, line in enumerate(ENGLISH)]
            ops += [PdfBuilder.text(72, 260, 11, HOSTILE)]
            ops += [PdfBuilder.text(72, 290 + i * 18, 11, f"- {t}") for i, t in enumerate(("first", "second"))]
        elif kind == 1:
            ops.append(PdfBuilder.text(72, 80, 20, "Two Column Report", font="F2"))
            ops += [PdfBuilder.text(72, 130 + i * 18, 11, line) for i, line in enumerate(LEFT_COLUMN)]
            ops += [PdfBuilder.text(320, 130 + i * 18, 11, line) for i, line in enumerate(RIGHT_COLUMN)]
        else:
            ops.append(PdfBuilder.text(72, 80, 11, "Table 1: Fruit prices"))
            ops += _ruled_table(72.0, 110.0)
        pdf.add_page(ops)
    return pdf.build()


SECTION_SENTENCE = "Durable queues keep every task until a worker finishes it."
SECTION_BODY = [
    "A worker that dies loses nothing: its lease runs out and another",
    "worker takes the task over and resumes at the first unfinished page.",
]
SECTION_AFTER = ["Every write is fenced by the lease token.", "A second paragraph ends the page body."]


def section_pages_pdf(pages: int) -> bytes:
    """Pages that each begin, at the very top, with "Section N. ..." as a long line that runs on
    into its paragraph, then a page number at the foot: no running header anywhere."""
    pdf = PdfBuilder()
    for n in range(pages):
        first = f"Section {n + 1}. {SECTION_SENTENCE} In short,"
        ops = [PdfBuilder.text(72, 36 + i * 14, 11, t) for i, t in enumerate([first, *SECTION_BODY])]
        ops += [PdfBuilder.text(72, 100 + i * 14, 11, t) for i, t in enumerate(SECTION_AFTER)]
        ops.append(PdfBuilder.text(290, 810, 9, str(n + 1)))
        pdf.add_page(ops)
    return pdf.build()


CODE_BEFORE = "Build it from source with the usual two commands:"
CODE_LINES = ["./configure --prefix=/usr/local", "make", "if test -f config.log; then", "    make install", "fi"]
CODE_AFTER = "Both commands print what they do as they run."


def code_pdf() -> bytes:
    """Prose, a shell listing in Courier (with an indented line), prose again."""
    pdf = PdfBuilder()
    ops = [PdfBuilder.text(72, 80, 11, CODE_BEFORE)]
    ops += [PdfBuilder.text(86, 100 + i * 13, 10, line, font="F4") for i, line in enumerate(CODE_LINES)]
    ops.append(PdfBuilder.text(72, 100 + len(CODE_LINES) * 13 + 8, 11, CODE_AFTER))
    pdf.add_page(ops)
    return pdf.build()


def code_page() -> Image.Image:
    """The same as a rendered page: prose in DejaVu Sans, the listing in DejaVu Sans Mono."""
    image, draw = _page()
    prose, mono = _font(DEJAVU, 30), _font(DEJAVU_MONO, 30)
    draw.text((MARGIN, MARGIN), CODE_BEFORE, font=prose, fill="black")
    y = MARGIN + 70
    for line in CODE_LINES:
        draw.text((MARGIN + 40, y), line, font=mono, fill="black")
        y += 44
    draw.text((MARGIN, y + 30), CODE_AFTER, font=prose, fill="black")
    return image


CHART_TITLE = "Tasks finished per hour"
CHART_LABELS = ["Mon", "Tue", "Wed", "Thu", "Fri"]


def vector_chart_pdf() -> bytes:
    """A bar chart drawn as vector paths on the page itself (filled bars, axes, ticks) with its
    labels as text, between paragraphs; and a ruled table below, which must stay a table."""
    pdf = PdfBuilder()
    h = PdfBuilder.HEIGHT
    ops = [PdfBuilder.text(72, 80, 11, line) for line in ENGLISH[:1]]
    ops.append(PdfBuilder.text(150, 120, 10, CHART_TITLE))
    x0, base = 100.0, 330.0
    ops += [PdfBuilder.line(x0, 140, x0, base), PdfBuilder.line(x0, base, x0 + 260, base)]
    for k, value in enumerate([120, 90, 170, 60, 140]):
        left = x0 + 20 + k * 48
        ops.append(f"0.4 g {left:.2f} {h - base:.2f} 30 {value} re f 0 g")
        ops.append(PdfBuilder.line(left + 15, base, left + 15, base + 4))
        ops.append(PdfBuilder.text(left + 4, base + 8, 9, CHART_LABELS[k]))
    for tick in range(4):
        ops.append(PdfBuilder.line(x0 - 4, base - tick * 50, x0, base - tick * 50))
        ops.append(PdfBuilder.text(x0 - 24, base - tick * 50 - 5, 9, str(tick * 50)))
    ops += [PdfBuilder.text(72, 370, 11, line) for line in ENGLISH[1:2]]
    ops += _ruled_table(72.0, 420.0)
    pdf.add_page(ops)
    return pdf.build()


def chinese_pdf() -> bytes:
    """A born-digital Chinese page: an English heading, Chinese paragraphs and a mixed line."""
    pdf = PdfBuilder()
    ops = [PdfBuilder.text(72, 80, 20, "Shareholder Notice", font="F2")]
    ops += [PdfBuilder.cjk_text(72, 130 + i * 20, 12, line) for i, line in enumerate(CHINESE)]
    ops += [PdfBuilder.cjk_text(72, 250, 12, MIXED[0])]
    pdf.add_page(ops)
    return pdf.build()


def figure_pdf(pages: int = 1) -> bytes:
    """Born-digital pages with text, an embedded chart image and its caption."""
    chart = Image.new("L", (600, 400), 255)
    draw = ImageDraw.Draw(chart)
    for k, h in enumerate([200, 300, 150, 350]):
        draw.rectangle([60 + k * 130, 380 - h, 150 + k * 130, 380], fill=60 + k * 40)
    buf = io.BytesIO()
    chart.save(buf, "JPEG", quality=90)
    pdf = PdfBuilder()
    ops = [PdfBuilder.text(72, 80, 20, "Quarterly Results", font="F2")]
    ops += [PdfBuilder.text(72, 130 + i * 18, 11, line) for i, line in enumerate(ENGLISH[:3])]
    ops.append(PdfBuilder.text(72, 440, 11, FIGURE_CAPTION))
    ops += [PdfBuilder.text(72, 480 + i * 18, 11, line) for i, line in enumerate(ENGLISH[3:])]
    for _ in range(pages):
        pdf.add_page(ops, jpeg=buf.getvalue(), rect=(72, 200, 300, 200))
    return pdf.build()


def scanned_pdf(image: Image.Image, pages: int = 1) -> bytes:
    """Image-only PDF pages (scans of ``image``) whose only text is a small page number."""
    pdf = PdfBuilder()
    for n in range(pages):
        pdf.add_page([PdfBuilder.text(290, 810, 8, str(n + 1))], jpeg=scanned(image, seed=7 + n))
    return pdf.build()


def decompression_bomb() -> bytes:
    """A tiny PNG header promising 20000 x 20000 pixels."""
    image = Image.new("1", (20000, 20000), 1)
    return encode(image, "PNG")


def generate(out: Path) -> dict[str, Sample]:
    """Write every sample into ``out`` and return them by name (also saved as manifest.json)."""
    out.mkdir(parents=True, exist_ok=True)
    samples: dict[str, Sample] = {}

    def put(sample: Sample, data: bytes) -> None:
        (out / sample.path).write_bytes(data)
        samples[sample.name] = sample

    english = text_page(ENGLISH, cjk=False, title="Supplier Invoices")
    chinese = text_page(CHINESE, cjk=True)
    mixed = text_page(MIXED, cjk=True)
    columns = two_column_page()
    table = table_page()
    clean = {
        "english": (english, "eng", ["Supplier Invoices", *ENGLISH]),
        "chinese": (chinese, "chi_sim", CHINESE),
        "mixed": (mixed, "eng+chi_sim", MIXED),
        "two_column": (columns, "eng", ["Two Column Report", *LEFT_COLUMN, *RIGHT_COLUMN]),
        "table": (table, "eng", ["Table 1: Fruit prices"]),
    }
    for seed, (name, (image, lang, text)) in enumerate(clean.items()):
        tbl = TABLE if name == "table" else []
        put(Sample(name, f"{name}.png", "clean", lang, text, tbl), encode(image, "PNG"))
        put(Sample(f"{name}_scan", f"{name}_scan.jpg", "scan", lang, text, tbl), scanned(image, seed))

    put(
        Sample(
            "figure", "figure.png", "clean", "eng", ["Quarterly Results", *ENGLISH[:3], FIGURE_CAPTION, *ENGLISH[3:]]
        ),
        encode(figure_page(), "PNG"),
    )
    put(
        Sample(
            "unruled_table",
            "unruled_table.png",
            "clean",
            "eng",
            [ENGLISH[0], "Table 2: Fruit stock", *ENGLISH[1:]],
            UNRULED_TABLE,
        ),
        encode(unruled_table_page(), "PNG"),
    )
    put(Sample("span_table", "span_table.png", "clean", "eng", [], SPAN_TABLE), encode(span_table_page(), "PNG"))
    put(
        Sample("formula", "formula.png", "clean", "eng", [*ENGLISH[:3], FORMULA, *ENGLISH[3:]]),
        encode(formula_page(), "PNG"),
    )
    put(
        Sample("english_webp", "english.webp", "clean", "eng", ["Supplier Invoices", *ENGLISH]), encode(english, "WEBP")
    )
    put(Sample("english_bmp", "english.bmp", "clean", "eng", ["Supplier Invoices", *ENGLISH]), encode(english, "BMP"))
    tiff = io.BytesIO()
    english.convert("L").save(tiff, "TIFF", save_all=True, append_images=[chinese.convert("L")], dpi=(DPI, DPI))
    put(Sample("multipage_tiff", "pages.tif", "clean", "eng+chi_sim", pages=2), tiff.getvalue())

    put(
        # Expected text is page 1's body; the table is on page 3.
        Sample(
            "born_digital",
            "born_digital.pdf",
            "text_layer",
            "eng",
            ["Supplier Invoices", *ENGLISH, HOSTILE, "first", "second"],
            TABLE,
            3,
        ),
        born_digital_pdf(3),
    )
    put(
        Sample(
            "figure_pdf",
            "figure.pdf",
            "text_layer",
            "eng",
            ["Quarterly Results", *ENGLISH[:3], FIGURE_CAPTION, *ENGLISH[3:]],
        ),
        figure_pdf(),
    )
    put(
        Sample("chinese_pdf", "chinese.pdf", "text_layer", "chi_sim", ["Shareholder Notice", *CHINESE, MIXED[0]]),
        chinese_pdf(),
    )
    put(Sample("scanned_pdf", "scanned.pdf", "scan", "eng", ["Supplier Invoices", *ENGLISH]), scanned_pdf(english))
    put(Sample("long_pdf", "long.pdf", "text_layer", "eng", pages=30), born_digital_pdf(30))

    bad = {
        "empty": ("empty.pdf", b"", "empty"),
        "truncated_png": ("truncated.png", encode(english, "PNG")[:3000], "corrupt"),
        "truncated_pdf": ("truncated.pdf", born_digital_pdf(3)[:200], "corrupt"),
        "corrupt_pdf": (
            "corrupt.pdf",
            b"%PDF-1.7\n" + bytes(random.Random(1).randrange(256) for _ in range(4000)),
            "corrupt",
        ),
        "encrypted_pdf": ("encrypted.pdf", _encrypted(), "encrypted_pdf"),
        "unsupported_gif": ("picture.png", encode(Image.new("RGB", (10, 10)), "GIF"), "unsupported_type"),
        "unsupported_text": ("notes.pdf", b"just some plain text, not a PDF at all\n", "unsupported_type"),
        "bomb": ("bomb.png", decompression_bomb(), "too_many_pixels"),
        "too_many_pages": ("many.pdf", born_digital_pdf(12), "too_many_pages"),
    }
    for name, (path, data, code) in bad.items():
        put(Sample(name, path, "bad", error_code=code), data)

    (out / "manifest.json").write_text(json.dumps({k: asdict(v) for k, v in samples.items()}, indent=1))
    return samples


def _encrypted() -> bytes:
    pdf = PdfBuilder()
    pdf.add_page([PdfBuilder.text(72, 72, 12, "secret")])
    return pdf.build(encrypt=True)


def load_manifest(folder: Path) -> dict[str, Sample]:
    raw = json.loads((folder / "manifest.json").read_text())
    return {k: Sample(**v) for k, v in raw.items()}


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "samples")
    for sample in generate(target).values():
        print(f"{sample.kind:10} {sample.path}")
