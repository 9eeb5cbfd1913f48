# ruff: noqa: RUF001 (Armenian letters that look Latin are the point)
"""Scripts Tesseract's script detection cannot see (ocr/unseen_scripts.py): an Armenian page, which
OSD calls Latin (its unicharset has no Armenian letter) and turns as it would turn Latin, is read
with the Armenian model when that is installed, and otherwise warns, naming Armenian and the
package that reads it. The sentences are Armenian translations from GTK's message catalog
(/usr/share/locale/hy/LC_MESSAGES/gtk30.mo), drawn in DejaVu Sans."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from data.script_pages import DPI, script_page

from ocrqueue.documents.engines.tesseract import find_tessdata
from ocrqueue.documents.model import LOW_CONFIDENCE_READING, PageResult

from .helpers import run
from .test_script_warnings import convert, tessdata_without
from .test_scripts_read import letters_cer

ARMENIAN = (
    "Կապույտ երանգի քանակությունը գույնի մեջ։",
    "Աշխատանքի ատրիբուտներն ստանալու համար վավերացում է անհրաժեշտ",
    "Այս փաստաթուղթը տպելու համար վավերացում է անհրաժեշտ",
    "Չի հաջողվում անցնել պանակին, քանի որ այն տեղային չէ",
    "Չհաջողվեց վերստանալ ֆայլի մասին ինֆորմացիա",
    "Նախնական դիտման ընթացքում առաջացած սխալ",
    "Բոլոր զգուշացումները դարձնել վճռորոշ",
    "Միայն լոկալ ֆայլերը կարող են ընտրվել",
    "Ընտրեք ցուցադրվող փաստաթղթերի տեսակները",
    "Հնարավոր չէ ցուցադրել պանակի պարունակությունը",
)


def armenian_png() -> bytes:
    buffer = io.BytesIO()
    script_page(ARMENIAN, "Armenian").save(buffer, format="PNG", dpi=(DPI, DPI))
    return buffer.getvalue()


def test_a_page_in_a_script_osd_cannot_see_names_it_when_its_model_is_missing(tmp_path: Path) -> None:
    source = tmp_path / "armenian.png"
    source.write_bytes(armenian_png())
    page = convert(source, tmp_path / "out", tessdata_without(tmp_path / "tessdata", "Armenian"))
    warnings = page["warnings"]
    assert isinstance(warnings, list)
    doubts = [w for w in warnings if w.startswith(LOW_CONFIDENCE_READING)]
    assert len(doubts) == 1, warnings
    assert "Armenian (tesseract-ocr-script-armn)" in doubts[0] and "all-scripts" in doubts[0]
    # A doubt: the task's events record it as a `warned` event (service/ocr_task.py).
    assert PageResult.from_dict(page).doubts == tuple(doubts)


def test_a_page_in_a_script_osd_cannot_see_is_read_with_its_model() -> None:
    if not (Path(find_tessdata()) / "Armenian.traineddata").exists():
        pytest.fail("the Armenian model is missing: scripts/system-deps.sh test")
    page = run(armenian_png()).pages[0]
    read = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert page.scripts[0] == "Armenian", read
    assert page.languages[0] == "Armenian" and page.rotation == 0
    assert letters_cer("\n".join(ARMENIAN), read) <= 0.05, read
    assert not page.warnings


def test_a_latin_page_read_poorly_whose_lines_read_well_alone_names_no_unseen_script() -> None:
    """OCRmyPDF's poster is display type read poorly as a page, but its poor lines read well alone
    with eng (0.69): it is in its own script, so its doubt is the plain low-confidence warning,
    not a list of the fourteen scripts OSD cannot see."""
    poster = Path(__file__).resolve().parents[1] / "resources" / "poster.pdf"
    page = run(poster.read_bytes()).pages[0]
    assert page.languages == ("eng",)
    (doubt,) = page.doubts
    assert doubt.startswith(LOW_CONFIDENCE_READING) and "script detection cannot tell" not in doubt, doubt
