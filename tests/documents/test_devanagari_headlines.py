"""Devanagari's headline (the shirorekha its letters hang from) is no ruling line: painted out as
one, a long word came apart into the lower halves of its letters, which the Devanagari model read
as Latin junk or digits (layout/raster.py, ``_rules_not_headlines``). The sentences are Hindi
translations from GLib's and GTK's message catalogs (/usr/share/locale/hi/LC_MESSAGES/glib20.mo,
gtk30.mo), drawn at 11 pt on A4 at 300 dpi in the Noto font the per-script evaluation prints with
(fonts-noto-core, unpacked into the accuracy cache), with a rule drawn under the last line."""

from __future__ import annotations

import io
import re

import numpy as np
from data.realpages import scan_jpeg
from data.script_pages import pinned_noto
from metrics import text_cer
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.layout.raster import find_rules
from ocrqueue.documents.layout.straighten import deskew

from .helpers import A4_AT_300_DPI, TYPE_11PT_AT_300_DPI, run

HINDI = (
    "दस्तावेज़ का अंत अप्रत्याशित रूप से विशेषता नाम के भीतर हो गया",
    "परिवर्तन तत्काल और वैश्विक रूप से लागू होते हैं पूरे अनुप्रयोग के लिए",
    "निर्देशिका पुनरावर्ती रूप से नक़ल नहीं कर सकता है",
    "सर्वाधिक संभव कारण है कि एक अस्थाई फ़ाइल बनाया नहीं जा सकता",
    "अनुप्रयोग जानकारी में पहचानकर्ता का अभाव है",
    "संतति प्रक्रिया असामान्य रूप से बाहर निकल गया",
    "चिह्न एन्कोडिंग का आपूर्ति संस्करण को नियंत्रित नहीं कर सकता है",
    "विज़ेट बनाएँ जिसमें कोष्ठ की सामग्री को संपादित की जा सकती है",
    "मौजूदा कैश के ऊपर लिख रहा है, बावजूद कि यह अद्यतन है",
    "कोष्ठ समाहित करने में तरू दृश्य में पंक्ति को फैलाएँ या सिकोड़ें",
)
DPI = 300
SIZE = TYPE_11PT_AT_300_DPI
WIDTH, HEIGHT, MARGIN = A4_AT_300_DPI
PITCH = 100
RULE_Y = MARGIN + len(HINDI) * PITCH + 20  # a rule across the text width under the last line


def hindi_page() -> Image.Image:
    font = ImageFont.truetype(pinned_noto("NotoSansDevanagari-Regular.ttf"), SIZE, layout_engine=ImageFont.Layout.RAQM)
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(HINDI):
        draw.text((MARGIN, MARGIN + i * PITCH), line, font=font, fill="black")
    draw.rectangle((MARGIN, RULE_Y, WIDTH - MARGIN, RULE_Y + 3), fill="black")
    return image


def test_headlines_are_not_rules_and_a_rule_under_the_text_is() -> None:
    """Before: the headlines of the longest words of two lines (rows 649-651 and 849-851) were found
    as rules."""
    rules = find_rules(deskew(hindi_page(), DPI), DPI)
    rows = np.flatnonzero(rules.mask.any(axis=1))
    assert rows.size and rows.min() >= RULE_Y - 2 and rows.max() <= RULE_Y + 5, rows


def test_a_scanned_hindi_page_keeps_its_long_words() -> None:
    """Read before with the headlines painted out: CER 0.042 scanned, "एन्कोडिंग" as "yenis",
    "जानकारी" as "viieni", "पहचानकर्ता" as "५हच।नकला"; 0.005 now."""
    page = run(scan_jpeg(hindi_page(), "hindi-headlines")).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert page.scripts[0] == "Devanagari", text
    assert not re.search("[A-Za-z]", text), text
    assert text_cer("\n".join(HINDI), text) <= 0.02, text


def test_a_clean_hindi_page_keeps_its_long_words() -> None:
    """CER 0.035 before, 0.010 now."""
    png = io.BytesIO()
    hindi_page().save(png, format="PNG", dpi=(DPI, DPI))
    page = run(png.getvalue()).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert text_cer("\n".join(HINDI), text) <= 0.02, text
