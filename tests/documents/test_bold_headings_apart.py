"""Bold headings at the body's size set a little apart from their paragraph, or over a paragraph
whose last line ends in a number (issue 22, thirteenth session of 2026-12-07).

InDesign and word processors put a few points between a lower heading and its text: enough for
the spacing rule to make the heading a paragraph of its own, and a one-line paragraph in the
body's size is text (the dev NCCN guidelines' "Hürthle Cell Carcinoma"). A heading straight over
its paragraph was split off only when the paragraph ended as a sentence does, and prose often
ends otherwise: in a reference number after the full stop ("... imaging.241"), "(0.8%)", a year.
Neither is a heading: a bold name over an address, a bold phrase inside a paragraph. Word
processors set their second and third levels in bold a little larger than the body (12-14 pt over
11 pt, under the 1.3 ratio of large type), more space above than below: they came back as text
too ("Permits more lax", 14 pt bold on a dev form printed by Chromium, on its clean render).

The rendered page is drawn with Pillow in DejaVu Serif; the text layer is Chromium's print of the
same sections (skipped without chromium).
"""

from __future__ import annotations

import shutil

import pytest
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.layout.blocks import stands_as_bold_heading
from ocrqueue.documents.model import Line

from .helpers import first_page_png, png_bytes, printed_by_chromium, run

FONTS = "/usr/share/fonts/truetype/dejavu/"
SIZE, PITCH = 42, 56  # 10 pt on 13.4 pt at 300 dpi
LEFT, WIDTH = 300, 1950
OPENING = (
    "Each visit begins with a short talk about how the patient has felt since the last one, and the "
    "nurse writes down any change in weight, sleep or appetite before the doctor comes in."
)
APART = "Follow-up Visits"
OVER = "Imaging After Treatment"
FOLLOW_UP = (
    "The first visit after the operation comes within six weeks, and later ones every six months for "
    "two years, then once a year as long as the blood tests stay normal and nothing new is felt in "
    "the neck. Patients who moved away may see a doctor near their home, who sends the results on."
)
IMAGING = (
    "A scan of the neck is taken six to twelve months after treatment, and again when a blood test "
    "rises, because a small return of the disease is easier to treat than a large one. Of the "
    "patients followed in the first survey, fewer than one in twenty needed a second operation "
    "between 2010 and 2014"
)
ADDRESS = ("Harbour Clinic", "12 Quay Street", "Portsmouth")
INLINE = ("Patients are told that", "the first visit", "comes after a month, and the next one after a year.")


def _wrapped(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont) -> list[str]:
    lines: list[list[str]] = [[]]
    for word in text.split():
        if lines[-1] and draw.textlength(" ".join([*lines[-1], word]), font=font) > WIDTH:
            lines.append([])
        lines[-1].append(word)
    return [" ".join(line) for line in lines]


def _page() -> bytes:
    """A letter-size page at 300 dpi in 10-pt DejaVu Serif; headings in its bold at the same size."""
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    regular = ImageFont.truetype(FONTS + "DejaVuSerif.ttf", SIZE)
    bold = ImageFont.truetype(FONTS + "DejaVuSerif-Bold.ttf", SIZE)
    y = 300

    def paragraph(text: str) -> None:
        nonlocal y
        for line in _wrapped(draw, text, regular):
            draw.text((LEFT, y), line, font=regular, fill=0)
            y += PITCH

    paragraph(OPENING)
    y += 40  # the space after a paragraph
    draw.text((LEFT, y), APART, font=bold, fill=0)
    y += PITCH + 24  # a little space under the heading, less than over it
    paragraph(FOLLOW_UP)
    y += 40
    draw.text((LEFT, y), OVER, font=bold, fill=0)
    y += PITCH  # straight over its paragraph
    paragraph(IMAGING)
    y += 40
    x = LEFT
    for part, font in zip(INLINE, (regular, bold, regular), strict=True):
        draw.text((x, y), part, font=font, fill=0)
        x += draw.textlength(part + " ", font=font)
    y += PITCH + 40
    draw.text((LEFT, y), ADDRESS[0], font=bold, fill=0)
    y += PITCH + 24
    for line in ADDRESS[1:]:
        draw.text((LEFT, y), line, font=regular, fill=0)
        y += PITCH
    return png_bytes(image.convert("RGB"), 300)


SECTION = '<p style="margin:0 0 {}pt 0"><b>{}</b></p><p style="margin:0 0 8pt 0">{}</p>'
PAGE = (
    '<html><body style="font-family:serif;font-size:10pt;line-height:1.34;margin:1in">'
    f'<p style="margin:0 0 8pt 0">{OPENING}</p>'
    + SECTION.format(5, APART, FOLLOW_UP)
    + SECTION.format(0, OVER, IMAGING)
    + f"<p>{INLINE[0]} <b>{INLINE[1]}</b> {INLINE[2]}</p>"
    + f'<p style="margin:0 0 5pt 0"><b>{ADDRESS[0]}</b></p><p>{ADDRESS[1]}<br>{ADDRESS[2]}</p>'
    + "</body></html>"
)


def _blocks(data: bytes) -> tuple[list[str], list[str]]:
    blocks = run(data).pages[0].blocks
    return [b.text for b in blocks if b.type == "title"], [b.text for b in blocks if b.type == "text"]


def _check(titles: list[str], prose: list[str]) -> None:
    assert titles == [APART, OVER], (titles, prose)
    assert any(text.startswith("The first visit after") for text in prose), prose
    assert any(text.startswith("A scan of the neck") for text in prose), prose
    assert any("the first visit comes after a month" in text for text in prose), prose
    assert any(text.startswith("Harbour Clinic") for text in prose) or "Harbour Clinic" in prose, prose


def test_bold_headings_apart_or_over_a_number_rendered() -> None:
    """Before: no title; "Follow-up Visits" a text block of its own, "Imaging After Treatment A
    scan of the neck ..." one block."""
    _check(*_blocks(_page()))


def test_bold_headings_apart_or_over_a_number_text_layer() -> None:
    """The same on the text layer (Chromium's print: its fonts name the bold face)."""
    if not shutil.which("chromium"):
        pytest.skip("no chromium (apt-get install chromium)")
    _check(*_blocks(printed_by_chromium({"page": PAGE})["page"]))


CONTRACT_HEADINGS = ("Scope of the Agreement", "Payment Terms", "Termination")
CONTRACT_PROSE = (
    "The supplier delivers the goods named in the order to the address the buyer gives, within "
    "the time agreed, and bears the risk of their loss until they are handed over. "
)
CONTRACT = (
    '<html><body style="font-family:sans-serif;font-size:11pt;line-height:1.3;margin:1in">'
    + "".join(
        f'<h3 style="font-size:{size}pt;margin:1em 0 0.5em 0">{heading}</h3>'
        f'<p style="margin:0">{CONTRACT_PROSE * 3}</p>'
        for size, heading in zip((14, 13, 14), CONTRACT_HEADINGS, strict=True)
    )
    + '<p style="margin:1.5em 0 0 0"><b>Harbour Supplies Ltd</b></p>'
    + '<p style="margin:1em 0 0 0">12 Quay Street, Portsmouth</p>'
    + '<p style="margin:1em 0 0 0;font-size:13pt"><b>Orders are binding once confirmed.</b></p>'
    + "</body></html>"
)


@pytest.mark.parametrize("path", ["text_layer", "rendered"])
def test_a_word_processors_bold_headings_a_little_larger_than_the_body(path: str) -> None:
    """Before (01cf100): no title on either path; each heading a text block of its own. On a render
    a 13 pt heading of one word without descenders measured 11.1 against the body's 10.6 (Tesseract's
    row height): the rule goes by the space round it, not by its size."""
    if not shutil.which("chromium"):
        pytest.skip("no chromium (apt-get install chromium)")
    pdf = printed_by_chromium({"page": CONTRACT})["page"]
    blocks = run(pdf if path == "text_layer" else first_page_png(pdf, 300)).pages[0].blocks
    assert [b.text for b in blocks if b.type == "title"] == list(CONTRACT_HEADINGS), [
        (b.type, b.text[:40]) for b in blocks
    ]


def _line(text: str, size: float, bold: bool) -> Line:
    return Line(text, BBox(72, 100, 400, 100 + size), 1.0, (), size, bold=bold)


@pytest.mark.parametrize(
    ("text", "size", "bold", "heading"),
    [
        ("Payment Terms", 12.5, True, True),
        ("Payment Terms", 12.5, False, False),  # not bold
        ("Orders are binding once confirmed.", 12.5, True, False),  # a sentence
        ("payment terms apply", 12.5, True, False),  # runs on in lower case
    ],
)
def test_only_a_bold_heading_line_stands_as_a_heading(text: str, size: float, bold: bool, heading: bool) -> None:
    prose = [_line(CONTRACT_PROSE, 11.0, False)]
    assert stands_as_bold_heading([_line(text, size, bold)], None, prose, 11.0) == heading


def test_a_bold_line_over_no_prose_is_no_heading() -> None:
    """A flowchart's bold boxes stand over other boxes, not over prose."""
    box = [_line("Metastatic Disease", 12.5, True)]
    assert not stands_as_bold_heading(box, None, [_line("Consider Surgery", 12.5, True)], 11.0)
    assert not stands_as_bold_heading(box, None, None, 11.0)


@pytest.mark.parametrize(("size", "heading"), [(13.5, True), (11.0, False)])
def test_a_larger_bold_heading_needs_no_space_over_it(size: float, heading: bool) -> None:
    """Chromium printed a 13.5 pt one 19 pt under the paragraph before and 20 pt over its own (dev
    made-report-chromium-1 p. 4): a bold line of the body's size so spaced is no heading, a larger
    one is. Before: neither was."""
    before = Line("sections Entitled Dedications.", BBox(72, 300, 400, 311), 1.0, (), 11.0)
    head = Line("Means a", BBox(72, 330, 150, 330 + size), 1.0, (), size, bold=True)
    after = [Line(CONTRACT_PROSE, BBox(72, 350 + size, 500, 361 + size), 1.0, (), 11.0)]
    assert stands_as_bold_heading([head], before, after, 11.0) == heading
