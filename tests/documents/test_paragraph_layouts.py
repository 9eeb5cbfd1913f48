"""Paragraphs on the text layer of pages Chromium prints from HTML (issue 22's paragraph-boundary
F1): a newspaper's narrow justified columns, whose short lines spread their spaces wider than the
gutter, come back a block per paragraph.

Needs Debian's chromium and Playwright (the browser tests' pair); skipped without chromium.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import run

CHROMIUM = "/usr/bin/chromium"

# Long words among short ones in a narrow justified column leave lines of two or three words
# whose spaces are wider than the gutter.
_SHORT = "the of and to a in is it you that he was for on are with as his they be at one have this from"
_LONG = (
    "notwithstanding redistribution documentation acknowledges modifications translations "
    "incorporations permissible attribution indemnification notification requirements"
)
_VOCABULARY = [*_SHORT.split(), *_LONG.split()]
_DRAW = random.Random(22)
PARAGRAPHS = [" ".join(_DRAW.choice(_VOCABULARY) for _ in range(45)).capitalize() + "." for _ in range(10)]

GAZETTE = (
    '<html><body style="font-family:serif;margin:0.5in">'
    '<h1 style="font-size:28pt;margin:0">The Harbour Gazette</h1>'
    '<div style="column-count:4;column-gap:0.2in;font-size:9.5pt;text-align:justify">'
    + "".join(f'<p style="margin:0 0 8pt 0">{p}</p>' for p in PARAGRAPHS)
    + "</div></body></html>"
)


@pytest.fixture(scope="module")
def printed() -> Iterator[dict[str, bytes]]:
    """Each page printed to PDF by Chromium."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    out: dict[str, bytes] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        tab = browser.new_page()
        for name, html in {"gazette": GAZETTE}.items():
            tab.set_content(html)
            margin = {side: "0" for side in ("top", "bottom", "left", "right")}
            out[name] = tab.pdf(format="A4", margin=margin)
        browser.close()
    yield out


def test_justified_newspaper_columns_keep_their_paragraphs_whole(printed: dict[str, bytes]) -> None:
    """Lines of two or three long words spread their spaces wider than the 0.2 in gutter; where
    two such spaces overlapped, the column was cut there and its lines read as blocks of a word
    or two. Each paragraph is one block (a paragraph broken over two columns, two)."""
    page = run(printed["gazette"]).pages[0]
    texts = [b.text for b in page.blocks if b.type == "text"]
    assert " ".join(texts).split() == " ".join(PARAGRAPHS).split()
    assert len(texts) <= len(PARAGRAPHS) + 4  # at most one paragraph broken at each column's foot
    assert all(len(t.split()) >= 5 for t in texts)
