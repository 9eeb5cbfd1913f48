"""Scans dropped on the web page with no options come back right, whatever their language.

Before languages were found per page, a Chinese scan uploaded with the defaults came back as
Latin garbage ("RS CH LRAMAC MSE"): the default was English only. Here a Chinese and an English
scan go through the page as a new user would send them (no field touched), a real worker reads
them, and the page shows their text and what was detected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from data.generate import CHINESE, ENGLISH, scanned, text_page
from data.metrics import cer
from playwright.sync_api import Page, expect
from support.service import Service

expect.set_options(timeout=60_000)

Snap = Callable[[str], None]


def jpeg(name: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "mimeType": "image/jpeg", "buffer": data}


def test_a_chinese_and_an_english_scan_with_no_options_are_read_right(page: Page, service: Service, snap: Snap) -> None:
    service.start_worker()
    page.goto("/")
    expect(page.locator("#live-status")).to_have_text("Live")
    expect(page.locator("#opt-languages")).to_have_value("auto")
    page.set_input_files(
        "#file-input",
        [
            jpeg("chinese-scan.jpg", scanned(text_page(CHINESE, cjk=True), seed=7)),
            jpeg("english-scan.jpg", scanned(text_page(ENGLISH, cjk=False, title="Supplier Invoices"), seed=8)),
        ],
    )
    for name in ("chinese-scan.jpg", "english-scan.jpg"):
        row = page.locator("#task-rows tr", has=page.get_by_role("link", name=name, exact=True))
        expect(row.locator(".badge")).to_have_text("Completed")
    snap("list")

    expectations = {
        "chinese-scan.jpg": (CHINESE, "Han", "chi_sim"),
        "english-scan.jpg": (["Supplier Invoices", *ENGLISH], "Latin", "English"),
    }
    for name, (lines, script, language) in expectations.items():
        page.goto("/")
        page.get_by_role("link", name=name, exact=True).click()
        expect(page.locator("#detail-title")).to_have_text(name)
        facts = page.locator("#page-facts")
        expect(facts).to_contain_text(script)
        expect(facts).to_contain_text(language)
        expect(facts).to_contain_text("upright")
        expect(page.locator("#document")).to_contain_text(lines[0][:4])
        shown = "".join(page.locator("#document [data-block]").evaluate_all("els => els.map(e => e.innerText)"))
        # Characters only (cer drops whitespace: engines differ in spaces between CJK characters).
        assert cer("".join(lines), shown) < 0.05, shown
        snap(name)
