"""The web page's "Ask about an image" against the model-server stand-in (tests/support/vlm_standin.py)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from playwright.sync_api import Page, expect
from support.service import Service, running_service
from support.vlm_standin import StandIn, running_standin

from ocrqueue.queue import Store

expect.set_options(timeout=20_000)
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
QUESTION = 'Is the **total** shown?\n\n- `first` item\n- second <img src=x onerror="window.__xss=1">'


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    with running_standin() as running:
        yield running


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path, standin: StandIn) -> Iterator[Service]:
    """The page's server with a model server configured: the stand-in."""
    standin.reset()
    with running_service(db_url, store, tmp_path, vlm_base_url=standin.base_url, vlm_model="glm-4.6v-flash") as running:
        yield running
    standin.recover()


def receipt() -> bytes:
    image = Image.new("RGB", (900, 160), "white")
    ImageDraw.Draw(image).text((30, 50), "Total amount due 88.50 EUR", font=ImageFont.truetype(FONT, 40), fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def test_asking_about_an_image_shows_the_task_live_and_its_answer_rendered_safely(
    page: Page, service: Service, standin: StandIn, snap: Callable[[str], None]
) -> None:
    page.add_init_script("window.__xss = undefined;")
    service.start_worker()
    standin.stall(60)  # the model "thinks" until the test lets it answer, so the running state can be seen
    page.goto("/")
    form = page.locator("#ask-form")
    expect(form).to_be_visible()
    expect(page.locator("#ask-unavailable")).to_be_hidden()
    page.locator("#ask-drop").evaluate(
        """(zone, bytes) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([new Uint8Array(bytes)], "receipt.png", { type: "image/png" }));
            for (const type of ["dragenter", "dragover", "drop"]) {
              zone.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
            }
        }""",
        list(receipt()),
    )
    expect(page.locator("#ask-file-name")).to_have_text("receipt.png")
    page.wait_for_function("() => document.querySelector('#ask-preview').naturalWidth === 900")
    page.fill("#ask-question", QUESTION)
    page.get_by_role("button", name="Ask", exact=True).click()

    expect(page.locator("#ask-asked")).to_have_text(QUESTION.replace("\n\n", " ").replace("\n", " "))
    expect(page.locator("#ask-badge")).to_have_text("Running")
    expect(page.locator("#ask-step")).to_have_text("asking the model")
    expect(page.locator("#ask-live")).to_have_text("Live")
    expect(page.locator("#ask-answer")).to_be_hidden()
    snap("running")
    standin.recover()

    expect(page.locator("#ask-badge")).to_have_text("Completed")
    expect(page.locator("#ask-step")).to_have_text("Answered")
    expect(page.locator("#ask-live")).to_have_text("Finished")
    answer = page.locator("#ask-answer")
    # The stand-in answers "Q: <question> A: <text it read>": the question's Markdown comes back rendered.
    expect(answer.locator("p").first).to_have_text("Q: Is the total shown?")
    expect(answer.locator("strong")).to_have_text("total")
    expect(answer.locator("li")).to_have_count(2)
    expect(answer.locator("li code")).to_have_text("first")
    expect(answer.locator("li").nth(1)).to_contain_text('second <img src=x onerror="window.__xss=1"> A: ')
    expect(answer.locator("li").nth(1)).to_contain_text("88.50")
    expect(answer).to_contain_text("Answered by glm-4.6v-flash.")
    assert answer.locator("img, script, a, [onerror]").count() == 0
    assert page.evaluate("window.__xss") is None
    # (form fields travel with CRLF line ends, as browsers send them)
    assert standin.bodies[-1]["messages"][0]["content"][1]["text"].replace("\r\n", "\n") == QUESTION
    snap("answered")

    # The task is in the list like any other, and its own view shows the answer too.
    expect(page.locator("#task-rows tr", has_text="receipt.png").locator('[data-cell="info"]')).to_have_text("Answered")
    page.get_by_role("link", name="Task details").click()
    expect(page.locator("#detail-title")).to_have_text("receipt.png")
    expect(page.locator("#detail-answer .question")).to_have_text(QUESTION.replace("\n\n", " ").replace("\n", " "))
    expect(page.locator("#detail-answer .answer-text strong")).to_have_text("total")
    expect(page.locator("#detail-actions").get_by_role("button", name="Download Markdown")).to_be_hidden()
    expect(page.locator("#result")).to_be_hidden()


def test_a_refused_question_says_why(page: Page, service: Service) -> None:
    page.goto("/")
    expect(page.locator("#ask-form")).to_be_visible()
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#ask-error")).to_have_text("Choose or drop an image first.")
    not_an_image = {"name": "notes.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4\n%%EOF\n"}
    page.set_input_files("#ask-file", not_an_image)
    page.fill("#ask-question", "What is this?")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#ask-error")).to_have_text("the file is not a PNG, JPEG, TIFF, WebP or BMP image")
    expect(page.locator("#ask-result")).to_be_hidden()
