"""The searchable PDF opens in Chromium's own PDF viewer (the one every Chrome user has), page count and all."""

from __future__ import annotations

import io

from data.generate import CHINESE, ENGLISH, text_page
from playwright.sync_api import Frame, Page
from support.service import Service
from support.waiting import wait_for

VIEWER_ORIGIN = "chrome-extension://"


def viewer_state(frame: Frame) -> dict[str, object]:
    """What Chromium's viewer shows: its page count, and whether it put up its "couldn't load" dialog."""
    return frame.evaluate(  # type: ignore[no-any-return]
        """() => {
            const viewer = document.querySelector('pdf-viewer');
            if (!viewer || !viewer.shadowRoot) return {pages: null, error: false};
            const root = viewer.shadowRoot;
            const selector = root.querySelector('viewer-toolbar')?.shadowRoot?.querySelector('viewer-page-selector');
            const length = selector?.shadowRoot?.querySelector('#pagelength')?.textContent ?? null;
            return {pages: length && length.trim(), error: root.querySelector('#error-dialog') !== null};
        }"""
    )


def viewer_frame(page: Page) -> Frame:
    """The viewer's frame; Playwright only learns of new frames while one of its calls runs, so this
    waits on its frame events rather than polling `page.frames`."""
    while (found := next((f for f in page.frames if f.url.startswith(VIEWER_ORIGIN)), None)) is None:
        page.wait_for_event("framenavigated", timeout=20_000)
    return found


def test_searchable_pdf_opens_in_chromiums_viewer(page: Page, service: Service) -> None:
    service.start_worker()
    tiff = _two_page_tiff()
    with service.client() as client:
        task = client.post(
            "/api/v1/tasks", files={"file": ("pages.tif", tiff, "image/tiff")}, data={"languages": "eng,chi_sim"}
        ).json()
    done = service.wait_status(task["id"], "completed")
    response = page.goto(done["result"]["pdf"])
    assert response is not None and response.status == 200
    assert response.headers["content-type"] == "application/pdf"
    viewer = viewer_frame(page)
    state = wait_for(
        lambda: ((s := viewer_state(viewer))["pages"] not in (None, "0") or s["error"]) and s,
        timeout=20,
        what="the viewer's page count",
    )
    assert state == {"pages": "2", "error": False}


def _two_page_tiff() -> bytes:
    english = text_page(ENGLISH, cjk=False).convert("L")
    chinese = text_page(CHINESE, cjk=True).convert("L")
    buffer = io.BytesIO()
    english.save(buffer, "TIFF", save_all=True, append_images=[chinese], dpi=(200, 200), compression="tiff_deflate")
    return buffer.getvalue()
