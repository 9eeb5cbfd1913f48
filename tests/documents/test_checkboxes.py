"""An answer sheet's check boxes on a rendered page: each answer a list item starting with its box,
"☐" or "☒", and a Markdown task list; the boxes' frames no longer read as brackets and bars."""

from __future__ import annotations

from io import BytesIO

from PIL import Image, ImageDraw, ImageFont
from realpages import scan_jpeg

from ocrqueue.documents.output.markdown import block_markdown

from .helpers import run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
QUESTIONS = [
    ("Question 1. What is the capital of Egypt?", ["Cayenne", "Cairo", "Chisinau", "Caracas"], 1),
    ("Question 2. Which river flows through Vienna?", ["The Danube", "The Rhine", "The Elbe"], 0),
]


def _answer_sheet() -> Image.Image:
    image = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(SERIF, 42)
    y = 300
    for question, answers, ticked in QUESTIONS:
        draw.text((250, y), question, font=font, fill=0)
        y += 90
        for k, answer in enumerate(answers):
            draw.rectangle((300, y + 4, 344, y + 48), outline=0, width=3)
            if k == ticked:
                draw.line((308, y + 12, 336, y + 40), fill=0, width=4)
                draw.line((308, y + 40, 336, y + 12), fill=0, width=4)
            draw.text((380, y), answer, font=font, fill=0)
            y += 75
        y += 80
    return image


def _png(image: Image.Image) -> bytes:
    out = BytesIO()
    image.save(out, format="PNG", dpi=(300, 300))
    return out.getvalue()


def test_answer_boxes_are_check_boxes_in_a_task_list() -> None:
    for data in (_png(_answer_sheet()), scan_jpeg(_answer_sheet(), "answer-sheet")):
        blocks = run(data).pages[0].blocks
        lists = [b for b in blocks if b.type == "list"]
        expected = [
            ("☒" if k == ticked else "☐") + " " + answer
            for _, answers, ticked in QUESTIONS
            for k, answer in enumerate(answers)
        ]
        assert [item for b in lists for item in b.text.split("\n")] == expected
        boxes = [w for b in lists for ln in b.lines for w in ln.words if w.role == "checkbox"]
        assert len(boxes) == sum(len(answers) for _, answers, _ in QUESTIONS)
        assert block_markdown(lists[0]) == "- [ ] Cayenne\n- [x] Cairo\n- [ ] Chisinau\n- [ ] Caracas"
