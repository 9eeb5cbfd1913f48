"""A page's header drawn as one form XObject — a logo and a rule across the page under the running
title — is a figure of the logo alone: boxed round the whole form, it took in the running title
set beside the logo, the links at the right and the section heading just under the rule, whose
words were read as the figure's (dev InDesign guideline pages: CER 0.218 -> 0.200, 0.173 -> 0.142)."""

from __future__ import annotations

import zlib

from .helpers import run

HEIGHT = 792.0
TITLE = "Guidelines for the Follow-up of Treated Patients"
LINKS = "Table of Contents"
HEADING = "RECURRENT DISEASE"
BODY = [
    "Patients whose marker rises after treatment are examined again with ultrasound and",
    "other imaging; those in whom nothing is found are followed as before, every six months.",
]


def _text(x: float, top: float, size: float, text: str) -> str:
    return f"BT /F1 {size} Tf {x} {HEIGHT - top - size:.1f} Td ({text}) Tj ET"


def _pdf(content: str, form: str) -> bytes:
    """One page with Helvetica as F1 and ``form`` as the form XObject Fm0 (its box the page's)."""
    page_stream, form_stream = zlib.compress(content.encode()), zlib.compress(form.encode())
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> /XObject << /Fm0 5 0 R >> >> /Contents 6 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Filter /FlateDecode /Length %d >>\nstream\n"
        % len(form_stream)
        + form_stream
        + b"\nendstream",
        b"<< /Filter /FlateDecode /Length %d >>\nstream\n" % len(page_stream) + page_stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _header_page() -> bytes:
    """A logo (a filled square with a white ring in it) and a 4-point rule across the page under
    it, drawn as one form; the running title beside the logo, links at the right, a section
    heading under the rule and a paragraph, as page text."""
    logo_top, logo_side, rule_top = 36.0, 52.0, 96.0
    form = "\n".join(
        [
            f"0 0.3 0.6 rg 36 {HEIGHT - logo_top - logo_side} {logo_side} {logo_side} re f",
            f"1 1 1 RG 3 w 50 {HEIGHT - logo_top - 40} 24 24 re S",
            f"0 0.3 0.6 rg 34 {HEIGHT - rule_top - 4} 544 4 re f",
        ]
    )
    content = "\n".join(
        [
            "q /Fm0 Do Q",
            "0 g",
            _text(110, 44, 14, TITLE),
            _text(480, 44, 10, LINKS),
            _text(36, 108, 11, HEADING),
            *(_text(36, 130 + 14 * k, 10, line) for k, line in enumerate(BODY)),
        ]
    )
    return _pdf(content, form)


def test_a_rule_across_the_page_under_a_logo_is_no_part_of_the_logos_figure() -> None:
    page = run(_header_page()).pages[0]
    assert page.source == "text_layer"
    figures = [b for b in page.blocks if b.type == "figure"]
    assert len(figures) == 1 and figures[0].bbox.x1 < 100, [(b.type, b.bbox, b.text) for b in page.blocks]
    assert figures[0].text == ""
    texts = [b.text for b in page.blocks if b.type != "figure"]
    assert TITLE in texts and LINKS in texts and HEADING in texts, texts
    assert " ".join(BODY) in texts
