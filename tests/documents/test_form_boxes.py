"""A form's ruled boxes on a rendered page: each row is cut into boxes its own way, so the grid the
rules make is mostly empty places (cells spanning several columns). It is a form, not a table:
each box's text is read as text of its own, box by box, row by row and left to right, as the text
layer reads a form's boxes. Read as one table, a tax form's boxes that spanned several rows of the
grid had their words sorted as blocks ("Attach Schedule D if If not check here Capital gain or
(loss). (Form 1040) required. required,")."""

from __future__ import annotations

from io import BytesIO

from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from .helpers import run

SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LEFT, RIGHT = 200, 2350
# Each row: its height and its boxes, as (right edge, label lines); the last box ends at RIGHT.
ROWS = [
    (170, [(RIGHT, ["Family name of the applicant"])]),
    (170, [(900, ["Given names"]), (1650, ["Date of birth"]), (RIGHT, ["Nationality"])]),
    (
        250,
        [
            (1250, ["Home address, street and number,", "town, postal code and country"]),
            (RIGHT, ["Telephone number"]),
        ],
    ),
    (170, [(700, ["Passport number"]), (1100, ["Issued on"]), (1900, ["Issued by"]), (RIGHT, ["Valid until"])]),
    (
        300,
        [
            (1450, ["Purpose of the journey, in a few words:", "business, studies, a visit to family", "or tourism"]),
            (RIGHT, ["Signature of the applicant"]),
        ],
    ),
]


def _form() -> Image.Image:
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SANS, 40)
    draw.text((LEFT, 450), "Application for a travel permit", font=ImageFont.truetype(SANS, 60), fill=0)
    y = 650
    draw.line((LEFT, y, RIGHT, y), fill=0, width=4)
    for height, boxes in ROWS:
        x = LEFT
        for right, label in boxes:
            draw.line((x, y, x, y + height), fill=0, width=4)
            for k, text in enumerate(label):
                draw.text((x + 20, y + 16 + 52 * k), text, font=font, fill=0)
            x = right
        draw.line((RIGHT, y, RIGHT, y + height), fill=0, width=4)
        y += height
        draw.line((LEFT, y, RIGHT, y), fill=0, width=4)
    return image


def _png(image: Image.Image) -> bytes:
    out = BytesIO()
    image.save(out, format="PNG", dpi=(300, 300))
    return out.getvalue()


def test_a_forms_boxes_read_box_by_box_not_as_a_table() -> None:
    expected = ["Application for a travel permit"] + [" ".join(label) for _, boxes in ROWS for _, label in boxes]
    for data in (_png(_form()), scan_jpeg(_form(), "form-boxes")):
        blocks = run(data).pages[0].blocks
        assert [b.type for b in blocks if b.type == "table"] == []
        assert [b.text for b in blocks] == expected
