"""The web page in a real browser (Debian's chromium through Playwright) against a real server.

Needs `apt-get install chromium` and `pip install playwright`; no Playwright browser download.
Each test gets a fresh server on its own database (SQLite and PostgreSQL, through `db_url`), a fresh
browser context, and leaves a screenshot in test-artifacts/browser/.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from support.service import Service, running_service

from ocrqueue.queue import Store

CHROMIUM = os.environ.get("OCRQUEUE_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
TIMEOUT_MS = 20_000


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One browser a module, not a session: Playwright's sync API runs an event loop in the thread
    while it is open, and every other test in the same pytest-xdist worker that prints a page with
    Chromium (tests/documents) then failed, "using Playwright Sync API inside the asyncio loop"."""
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def viewport() -> dict[str, int]:
    return {"width": 1280, "height": 800}


@pytest.fixture
def page(
    browser: Browser, service: Service, viewport: dict[str, int], request: pytest.FixtureRequest
) -> Iterator[Page]:
    """A fresh page on the service that fails the test on any JavaScript error; screenshots itself at the end."""
    context = browser.new_context(viewport=viewport, base_url=service.url)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        try:
            page.screenshot(path=str(artifact(request, "end")), full_page=True)
        finally:
            context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def artifact(request: pytest.FixtureRequest, step: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{request.node.name}-{step}").strip("_") + ".png")


@pytest.fixture
def snap(page: Page, request: pytest.FixtureRequest) -> Callable[[str], None]:
    """snap("step") saves a screenshot of the page now, next to the one every test saves at its end."""
    return lambda step: page.screenshot(path=str(artifact(request, step)), full_page=True) and None
