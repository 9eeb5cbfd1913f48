"""Pages typeset by a real browser: HTML printed to PDF by Debian's Chromium through Playwright,
so the text is shaped (Thai clusters, Devanagari conjuncts, vertical CJK columns) the way real
producers shape it, and the source text is the ground truth."""

from __future__ import annotations

import html
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

CHROMIUM = os.environ.get("OCRQUEUE_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


@contextmanager
def chromium_page() -> Iterator[Page]:
    """A browser page to print with; skips the test without Chromium (scripts/system-deps.sh test)."""
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()


def printed_pdf(
    page: Page, paragraphs: Sequence[str], lang: str, font: str, vertical: bool = False, size_pt: int = 16
) -> bytes:
    """``paragraphs`` set in ``font`` on an A5 page (lines written top to bottom and columns right
    to left when ``vertical``), printed to PDF."""
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    style = (
        f"font-family:'{font}';font-size:{size_pt}pt;line-height:1.6;margin:0;"
        f"writing-mode:{'vertical-rl' if vertical else 'horizontal-tb'}"
    )
    page.set_content(f'<html lang="{lang}"><body style="{style}">{body}</body></html>')
    return page.pdf(format="A5", margin={"top": "0.6in", "bottom": "0.6in", "left": "0.6in", "right": "0.6in"})
