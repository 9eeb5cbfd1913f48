"""The web page end to end: upload, live list, result viewer, cancel, retry, delete, hostile text, API keys."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from data.generate import (
    CODE_AFTER,
    CODE_BEFORE,
    CODE_LINES,
    HOSTILE,
    PdfBuilder,
    born_digital_pdf,
    code_pdf,
    figure_pdf,
)
from playwright.sync_api import Page, expect
from support.service import Service
from support.validators import valid_alto, valid_hocr

expect.set_options(timeout=20_000)

REPORT = born_digital_pdf(pages=3)
Snap = Callable[[str], None]


def pdf_file(name: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "mimeType": "application/pdf", "buffer": data}


def row(page: Page, filename: str) -> Any:
    return page.locator("#task-rows tr", has=page.get_by_role("link", name=filename, exact=True))


def open_task(page: Page, filename: str) -> None:
    row(page, filename).get_by_role("link", name=filename, exact=True).click()
    expect(page.locator("#detail-title")).to_have_text(filename)


RECORD_FORM_FIELDS = """() => {
    window.__fields = [];
    const append = FormData.prototype.append;
    FormData.prototype.append = function (name, value, ...rest) {
        window.__fields.push([name, typeof value === "string" ? value : "(file)"]);
        return append.call(this, name, value, ...rest);
    };
}"""


def rendered_blocks(page: Page) -> list[tuple[str, str]]:
    """(data-block id, text) of every block element in the document view, in the order shown."""
    return page.locator("#document [data-block]").evaluate_all(
        "nodes => nodes.map((n) => [n.dataset.block, n.textContent])"
    )


def json_blocks(service: Service, task_id: str) -> list[tuple[str, str]]:
    """(id, text) of the result JSON's blocks that have something to show, in reading order."""
    with service.client() as client:
        doc = client.get(f"/api/v1/tasks/{task_id}/result", params={"format": "json"}).json()
    return [
        (f"p{p}-b{b}", block["text"].replace("\n", "").replace("\t", ""))
        for p, page in enumerate(doc["pages"])
        for b, block in enumerate(page["blocks"])
        if block["text"].strip() or block["type"] == "figure"
    ]


def test_upload_runs_to_a_result_with_blocks_in_order_linked_to_their_boxes(
    page: Page, service: Service, snap: Snap
) -> None:
    service.start_worker()
    page.goto("/")
    expect(page.locator("#live-status")).to_have_text("Live")
    # Without a model server the vision panel says how to configure one instead of offering a form.
    expect(page.locator("#ask-unavailable")).to_be_visible()
    expect(page.locator("#ask-unavailable")).to_contain_text("OCRQUEUE_VLM_BASE_URL")
    expect(page.locator("#ask-form")).to_be_hidden()
    # The language field starts at "auto", which the page sends as no languages at all (the server's default).
    expect(page.locator("#opt-languages")).to_have_value("auto")
    page.evaluate(RECORD_FORM_FIELDS)
    page.set_input_files("#file-input", [pdf_file("report.pdf", REPORT), pdf_file("chart.pdf", figure_pdf())])
    uploads = page.locator("#uploads li")
    expect(uploads).to_have_count(2)
    for item in uploads.all():
        expect(item).to_have_attribute("data-state", "done")
        expect(item.locator("progress")).to_have_js_property("value", 1)
        expect(item.locator(".upload-state")).to_contain_text("Queued")
    assert page.evaluate("window.__fields") == [["file", "(file)"], ["mode", "auto"]] * 2
    report = row(page, "report.pdf")
    expect(report.locator(".badge")).to_have_text("Completed")
    expect(report.locator('[data-cell="pages"]')).to_have_text("3 / 3")
    expect(report.locator('[data-cell="attempts"]')).to_have_text(re.compile(r"^1 / \d+$"))
    expect(row(page, "chart.pdf").locator(".badge")).to_have_text("Completed", timeout=60_000)
    snap("list")

    open_task(page, "report.pdf")
    expect(page.locator("#detail-live")).to_have_text("Finished")
    expect(page.locator("#page-label")).to_have_text("Page 1 of 3")
    page.wait_for_function("() => document.querySelector('#page-image').naturalWidth > 0")
    document = page.locator("#document")
    expect(document.locator("h1").first).to_have_text("Supplier Invoices")
    # Every block of the JSON with something to show, in the JSON's reading order, and nothing else.
    task_id = page.evaluate("location.hash").rsplit("/", 1)[1]
    expected = json_blocks(service, task_id)
    expect(document.locator("[data-block]")).to_have_count(len(expected))
    assert [(i, re.sub(r"\s", "", t)) for i, t in rendered_blocks(page)] == [
        (i, re.sub(r"\s", "", t)) for i, t in expected
    ]
    expect(page.locator("#page-facts")).to_contain_text("Read from")
    expect(page.locator("#page-facts")).to_contain_text("text layer")
    # With no languages sent, the server found them per page, and the view says what it found.
    expect(page.locator("#page-facts")).to_contain_text("Languageseng (English)")
    expect(page.locator("#page-facts")).to_contain_text("ScriptsLatin")
    expect(page.locator("#page-facts")).to_contain_text("Rotationupright")
    expect(document.locator(".page-mark").first).to_have_text("Page 1 · text layer · eng (English) · Latin")
    expect(page.locator("#page-boxes .box")).to_have_count(6)

    # The boxes are the JSON's point boxes scaled onto the rendered page image.
    title = page.locator('#page-boxes .box[data-type="title"]')
    image_box = page.locator("#page-image").bounding_box()
    title_box = title.bounding_box()
    assert image_box and title_box
    scale = image_box["width"] / 595.0
    assert abs(title_box["x"] - image_box["x"] - 73 * scale) < 3
    assert abs(title_box["y"] - image_box["y"] - 81 * scale) < 3

    title.click()
    expect(title).to_have_attribute("aria-pressed", "true")
    expect(document.locator(".highlight")).to_have_text("Supplier Invoices")
    page.locator('#page-boxes .box[data-type="list"]').click()
    expect(document.locator(".highlight")).to_have_text("firstsecond")
    expect(document.locator(".highlight li")).to_have_count(2)

    # Hovering a block outlines its box on the page image, and hovering a box marks its text.
    paragraph = document.locator('p[data-type="text"]').first
    paragraph.hover()
    outlined = page.locator(f'#page-boxes .box[data-block="{paragraph.get_attribute("data-block")}"]')
    expect(outlined).to_have_class(re.compile(r"\bhover\b"))
    assert outlined.evaluate("n => getComputedStyle(n).outlineStyle") == "solid"
    expect(page.locator("#page-boxes .box.hover")).to_have_count(1)
    title.hover()
    expect(document.locator(".block.hover")).to_have_text("Supplier Invoices")
    expect(page.locator("#page-boxes .box.hover")).to_have_count(1)
    snap("viewer")

    # Clicking text on page 3 turns to page 3 and marks its box; the table is a table of the JSON's cells.
    table = document.locator('[data-type="table"] table')
    table.click()
    expect(page.locator("#page-label")).to_have_text("Page 3 of 3")
    expect(page.locator('#page-boxes .box.selected[data-type="table"]')).to_have_count(1)
    expect(table.locator("tr")).to_have_count(4)
    expect(table.locator("tr").nth(1).locator("td")).to_have_text(["Apples", "12", "3.50"])

    page.get_by_role("tab", name="Markdown").click()
    source = page.locator("#source-view")
    expect(source).to_contain_text("# Supplier Invoices")
    assert source.evaluate("n => n.children.length") == 0, "the Markdown tab shows text, not rendered Markdown"
    expect(page.locator("#panel-document")).to_be_hidden()
    page.get_by_role("tab", name="JSON").click()
    expect(page.locator("#json-view")).to_contain_text('"schema_version": "1.0"')
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download Markdown").click()
    download = download_info.value
    assert download.suggested_filename == "report.md"
    assert "Supplier Invoices" in download.path().read_text(encoding="utf-8")
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download JSON").click()
    assert download_info.value.suggested_filename == "report.json"
    downloads = {}
    for name in ("searchable PDF", "text", "HTML", "hOCR", "ALTO XML"):
        with page.expect_download() as download_info:
            page.get_by_role("button", name=f"Download {name}").click()
        downloads[download_info.value.suggested_filename] = download_info.value.path()
    assert sorted(downloads) == ["report.alto.xml", "report.hocr", "report.html", "report.pdf", "report.txt"]
    assert downloads["report.pdf"].read_bytes().startswith(b"%PDF-")
    assert "Supplier Invoices" in downloads["report.txt"].read_text(encoding="utf-8")
    assert "<h1>Supplier Invoices</h1>" in downloads["report.html"].read_text(encoding="utf-8")
    valid_hocr(downloads["report.hocr"])
    valid_alto(downloads["report.alto.xml"].read_bytes())
    page.get_by_role("tab", name="Document").click()
    page.get_by_role("link", name="← All tasks").click()
    expect(page.locator("#task-rows tr")).to_have_count(2)

    # A figure block shows its crop, fetched from the task's assets.
    open_task(page, "chart.pdf")
    figure = page.locator('#document figure[data-type="figure"] img')
    expect(figure).to_have_count(1)
    page.wait_for_function("() => document.querySelector('#document figure img')?.naturalWidth > 0")
    assert figure.get_attribute("src", timeout=1_000).startswith("blob:")
    page.locator('#page-boxes .box[data-type="figure"]').click()
    expect(page.locator("#document .highlight img")).to_have_count(1)
    expect(document.locator('[data-type="caption"]')).to_have_text("Figure 1: Sales by quarter")


def drop_files(page: Page, files: dict[str, bytes]) -> None:
    """Drops files onto the drop zone the way a file manager does: a drop event carrying a DataTransfer."""
    page.locator("#drop-zone").evaluate(
        """(zone, files) => {
            const transfer = new DataTransfer();
            for (const [name, bytes] of Object.entries(files)) {
              transfer.items.add(new File([new Uint8Array(bytes)], name, { type: "application/pdf" }));
            }
            for (const type of ["dragenter", "dragover", "drop"]) {
              zone.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
            }
        }""",
        {name: list(data) for name, data in files.items()},
    )


def test_cancelling_a_pending_task_ends_its_live_view(page: Page, service: Service) -> None:
    page.goto("/")
    page.fill("#opt-languages", "eng, chi_sim")
    page.evaluate(RECORD_FORM_FIELDS)
    drop_files(page, {"waiting.pdf": REPORT})
    page.locator("#uploads").get_by_role("link", name="view task").click()
    expect(page.locator("#detail-status")).to_have_text("Pending")
    assert ["languages", "eng, chi_sim"] in page.evaluate("window.__fields")
    expect(page.locator("#detail-view")).to_have_attribute("data-live", "true")
    expect(page.locator("#detail-live")).to_have_text("Live")
    page.locator("#detail-actions").get_by_role("button", name="Cancel").click()
    expect(page.locator("#detail-status")).to_have_text("Cancelled")
    expect(page.locator("#detail-view")).to_have_attribute("data-live", "false")
    expect(page.locator("#detail-live")).to_have_text("Finished")
    expect(page.locator("#detail-error")).to_contain_text("Cancelled")
    expect(page.locator("#detail-actions").get_by_role("button", name="Cancel")).to_be_hidden()
    expect(page.locator("#detail-actions").get_by_role("button", name="Download Markdown")).to_be_hidden()
    page.get_by_role("link", name="← All tasks").click()
    expect(row(page, "waiting.pdf").locator(".badge")).to_have_text("Cancelled")


def test_a_dead_lettered_task_shows_why_and_can_be_retried(page: Page, service: Service) -> None:
    service.start_worker()
    page.goto("/")
    page.set_input_files("#file-input", [pdf_file("locked.pdf", PdfBuilder().build(encrypt=True))])
    locked = row(page, "locked.pdf")
    expect(locked.locator(".badge")).to_have_text("Failed")
    expect(locked.locator('[data-cell="info"]')).to_contain_text("PDF is encrypted")
    open_task(page, "locked.pdf")
    expect(page.locator("#detail-error")).to_contain_text("Failed: PDF is encrypted")
    expect(page.locator("#detail-live")).to_have_text("Finished")
    service.stop_workers()
    page.locator("#detail-actions").get_by_role("button", name="Retry").click()
    expect(page.locator("#detail-status")).to_have_text("Pending")
    expect(page.locator("#detail-view")).to_have_attribute("data-live", "true")
    expect(page.locator("#detail-error")).to_contain_text("Last attempt failed: PDF is encrypted")
    expect(page.locator("#detail-error")).to_contain_text("it will run again")
    page.get_by_role("link", name="← All tasks").click()
    page.get_by_role("button", name="Completed", exact=True).click()
    expect(locked).to_be_hidden()
    expect(page.locator("#empty-tasks")).to_have_text("No tasks with this status.")
    page.get_by_role("button", name="Pending", exact=True).click()
    expect(locked.locator(".badge")).to_have_text("Pending")


def test_delete_asks_first_then_removes_the_task(page: Page, service: Service) -> None:
    with service.client() as client:
        doomed = client.post("/api/v1/tasks", files={"file": ("doomed.pdf", REPORT, "application/pdf")}).json()
        kept = client.post("/api/v1/tasks", files={"file": ("kept.pdf", born_digital_pdf(1), "application/pdf")}).json()
    page.goto("/")
    expect(page.locator("#task-rows tr")).to_have_count(2)
    row(page, "doomed.pdf").get_by_role("button", name="Delete doomed.pdf").click()
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Keep").click()
    expect(row(page, "doomed.pdf")).to_have_count(1)
    row(page, "doomed.pdf").get_by_role("button", name="Delete doomed.pdf").click()
    dialog.get_by_role("button", name="Delete").click()
    expect(row(page, "doomed.pdf")).to_have_count(0)
    expect(page.locator("#notice")).to_contain_text("Deleted doomed.pdf")
    with service.client() as client:
        assert client.get(f"/api/v1/tasks/{doomed['id']}").status_code == 404
        assert client.get(f"/api/v1/tasks/{kept['id']}").status_code == 200


HOSTILE_LINES = [
    '<img src=x onerror="window.__xss=1">',
    "<table><tr><td><img src=x onerror=window.__xss=2>cell</td></tr></table>",
    "[click](javascript:window.__xss=3) ![x](https://example.invalid/x.png)",
]
TRAP = "window.__xss = undefined; window.__dialogs = 0;"


def test_hostile_document_text_shows_as_text_and_runs_nothing(page: Page, service: Service) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.add_init_script(TRAP)
    hostile = PdfBuilder()
    hostile.add_page([PdfBuilder.text(72, 100 + 30 * i, 11, line) for i, line in enumerate(HOSTILE_LINES)])
    service.start_worker()
    page.goto("/")
    page.set_input_files("#file-input", [pdf_file("hostile.pdf", hostile.build()), pdf_file("born.pdf", REPORT)])
    expect(row(page, "hostile.pdf").locator(".badge")).to_have_text("Completed")
    expect(row(page, "born.pdf").locator(".badge")).to_have_text("Completed")

    open_task(page, "born.pdf")
    document = page.locator("#document")
    expect(document.get_by_text(HOSTILE, exact=True)).to_have_count(1)
    page.get_by_role("link", name="← All tasks").click()
    open_task(page, "hostile.pdf")
    for line in HOSTILE_LINES:
        expect(document.get_by_text(line, exact=True)).to_have_count(1)
    assert document.locator("script, img, b, a, iframe, [onerror]").count() == 0
    page.get_by_role("tab", name="Markdown").click()
    expect(page.locator("#source-view")).to_contain_text("onerror")

    # The renderers on their own, fed hostile JSON and answers the pipeline and models would never write.
    built = page.evaluate(
        """async () => {
            const { renderDocument, renderPage, pageFacts } = await import('/document.js');
            const { renderAnswer } = await import('/answer.js');
            const page = {
              index: 0, width: 100, height: 100, dpi: null, rotation: 180,
              source: '<img src=x onerror="window.__xss=1">', warnings: ['<script>window.__xss=2</script>'],
              languages: ['eng', 'chi_sim', '<b>x</b>'], scripts: ['Latin', 'Han'],
              blocks: [
                { type: 'title', level: 99, text: '<img src=x onerror="window.__xss=3">' },
                { type: '<script>', text: '<script>window.__xss=4</script>' },
                { type: 'table', text: '', table: { n_rows: 1, n_cols: 2, cells: [
                  { row: 0, col: 0, row_span: 1e9, col_span: 2, text: '<b onclick="window.__xss=5">cell</b>' }] } },
                { type: 'figure', image: '../../etc/passwd', text: 'escape' },
                { type: 'figure', image: 'javascript:window.__xss=6', text: '' },
                { type: 'figure', image: 'imgs/page1-figure1.png', text: '<img src=x onerror=window.__xss=7>' },
                { type: 'formula', latex: '</code><script>window.__xss=8</script>', text: 'x' },
                { type: 'code', text: './configure\\n  make' },
              ],
            };
            const requested = [];
            const { root, links } = renderDocument({ pages: [page] }, { figure: (name) => requested.push(name) });
            const box = document.createElement('div');
            box.append(root);
            box.append(renderAnswer(
              '# <img src=x onerror="window.__xss=9">\\n\\n<script>window.__xss=10</script> **bold** `<i>x</i>`'
              + '\\n\\n- [a](javascript:window.__xss=11)\\n- ![b](x.png)'
              + '\\n\\n```\\n<svg onload=window.__xss=12>\\n```'));
            document.body.append(box);
            await new Promise((r) => setTimeout(r, 300));
            const tags = [...box.querySelectorAll('*')].map((n) => n.tagName.toLowerCase());
            const attrs = [...box.querySelectorAll('*')].flatMap((n) => [...n.attributes].map((a) => a.name));
            const td = box.querySelector('td');
            box.remove();
            return { tags: [...new Set(tags)].sort(), attrs: [...new Set(attrs)].sort(), requested,
                     ids: [...links.keys()], text: box.textContent, rowSpan: td.rowSpan, colSpan: td.colSpan,
                     cell: td.textContent, heading: box.querySelector('h6')?.textContent,
                     srcs: [...box.querySelectorAll('img')].map((i) => i.getAttribute('src')),
                     facts: pageFacts(page), plain: pageFacts({ source: 'tesseract', dpi: 300, warnings: [] }),
                     mark: box.querySelector('.page-mark').textContent,
                     upright: renderPage({ source: 'text_layer', rotation: 0, scripts: ['Han'], blocks: [] }, 4)
                       .section.textContent };
        }"""
    )
    allowed_tags = {"section", "p", "h6", "div", "table", "tr", "td", "figure", "img", "span", "pre", "code"}
    assert set(built["tags"]) <= allowed_tags | {"ul", "li", "strong"}, built
    allowed_attrs = {"class", "tabindex", "aria-describedby", "aria-label", "alt", "decoding", "rowspan", "colspan"}
    assert set(built["attrs"]) <= allowed_attrs | {"data-page", "data-block", "data-type"}, built
    assert built["requested"] == ["page1-figure1.png"]
    assert built["srcs"] == [None], "a figure's image is loaded by the page, never from its name"
    assert built["ids"] == [f"p0-b{b}" for b in range(8)]
    assert built["rowSpan"] == 1000 and built["colSpan"] == 2
    assert built["cell"] == '<b onclick="window.__xss=5">cell</b>'
    assert built["heading"] == '<img src=x onerror="window.__xss=3">'
    for raw in (
        "<script>window.__xss=4</script>",
        "</code><script>window.__xss=8</script>",
        "./configure\n  make",
        "<script>window.__xss=10</script>",
        "[a](javascript:window.__xss=11)",
        "<svg onload=window.__xss=12>",
    ):
        assert raw in built["text"], raw
    assert built["facts"] == [
        ["Read from", '<img src=x onerror="window.__xss=1"> OCR'],
        ["Languages", "eng (English), chi_sim (Chinese, simplified), <b>x</b>"],
        ["Scripts", "Latin, Han"],
        ["Rotation", "turned 180°, read upright"],
        ["Warnings", "<script>window.__xss=2</script>"],
    ]
    assert built["plain"] == [["Read from", "tesseract OCR at 300 dpi"]]
    assert built["mark"] == (
        'Page 1 · <img src=x onerror="window.__xss=1"> OCR · eng (English), chi_sim (Chinese, simplified), <b>x</b>'
        " · Latin, Han · turned 180°, read upright"
    )
    assert built["upright"] == "Page 5 · text layer · Han"  # an upright page's mark does not say so
    page.wait_for_timeout(200)
    assert page.evaluate("window.__xss") is None
    assert dialogs == []


def test_with_api_keys_the_page_asks_for_one_and_then_works(page: Page, service: Service, snap: Snap) -> None:
    _, token = service.keys.create("team-a")
    with service.client(token) as client:
        client.post("/api/v1/tasks", files={"file": ("earlier.pdf", REPORT, "application/pdf")})
    page.goto("/")
    dialog = page.locator("#key-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("This server needs an API key.")
    snap("asks")
    expect(page.locator("#live-status")).to_have_text("Needs an API key")
    page.fill("#key-input", "oq_not_a_key")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_contain_text("The API key was refused")
    page.fill("#key-input", token)
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_be_hidden()
    expect(row(page, "earlier.pdf").locator(".badge")).to_have_text("Pending")
    expect(page.locator("#live-status")).to_have_text("Live")
    page.set_input_files("#file-input", [pdf_file("mine.pdf", born_digital_pdf(1))])
    expect(page.locator("#uploads li .upload-state")).to_contain_text("Queued")
    expect(row(page, "mine.pdf").locator(".badge")).to_have_text("Pending")
    page.reload()
    expect(page.locator("#task-rows tr")).to_have_count(2)
    expect(dialog).to_be_hidden()
    assert page.evaluate("localStorage.getItem('ocrqueue.apiKey')") == token


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}])
def test_a_narrow_screen_gets_a_single_column_without_sideways_scrolling(
    page: Page, service: Service, snap: Snap
) -> None:
    service.start_worker()
    with service.client() as client:
        task = client.post(
            "/api/v1/tasks", files={"file": ("a-rather-long-file-name-for-a-phone.pdf", REPORT, "application/pdf")}
        ).json()
    service.wait_status(task["id"], "completed")
    page.goto("/")
    expect(page.locator("#task-rows tr .badge")).to_have_text("Completed")
    overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(overflow) <= 0
    snap("list")
    page.goto(f"/#/task/{task['id']}")
    expect(page.locator("#document h1").first).to_have_text("Supplier Invoices")
    page.wait_for_function("() => document.querySelector('#page-image').naturalWidth > 0")
    assert page.evaluate(overflow) <= 0
    image = page.locator("#page-image").bounding_box()
    text = page.locator("#document").bounding_box()
    assert image and text and text["y"] >= image["y"] + image["height"] - 1, "text goes below the page image"
    assert re.fullmatch(r"Page 1 of 3", page.locator("#page-label").inner_text())


ANSWERS = {
    "a *b* c __d__": "<p>a <em>b</em> c <strong>d</strong></p>",
    "snake_case_name and 2*3*4": "<p>snake_case_name and 2<em>3</em>4</p>",
    "`a*b*c` \\*not em\\*": "<p><code>a*b*c</code> *not em*</p>",
    "**bold *and em* inside**": "<p><strong>bold <em>and em</em> inside</strong></p>",
    "one\ntwo\n\nthree": "<p>one\ntwo</p><p>three</p>",
    "- a\n- b\n  more\n1. c": "<ul><li>a</li><li>b\nmore</li></ul><ol><li>c</li></ol>",
    "3. three\n4. four": '<ol start="3"><li>three</li><li>four</li></ol>',
    "```python\nif a < b:\n    pass\n```\nafter": "<pre><code>if a &lt; b:\n    pass</code></pre><p>after</p>",
    "# Title\n> quote\n[x](https://example.invalid)": "<p># Title\n&gt; quote\n[x](https://example.invalid)</p>",
}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_answers_render_a_safe_markdown_subset(page: Page, service: Service) -> None:
    page.goto("/")
    rendered = page.evaluate(
        """async (answers) => {
            const { renderAnswer } = await import('/answer.js');
            const out = {};
            for (const text of answers) out[text] = renderAnswer(text).innerHTML;
            // Unmatched delimiters by the thousand come back as the text they are, in one pass.
            const stars = '**a '.repeat(20000) + '*b '.repeat(20000) + 'x_y '.repeat(5000) + '`'.repeat(5000);
            out.stars = renderAnswer(stars).textContent === stars;
            return out;
        }""",
        list(ANSWERS),
    )
    assert rendered.pop("stars") is True
    assert rendered == ANSWERS


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_event_stream_reader_finds_the_same_events_wherever_the_chunks_split(page: Page, service: Service) -> None:
    """The frames of a real task stream, re-sent with CRLF line ends, cut into two chunks at every byte."""
    with service.client() as client:
        task = client.post("/api/v1/tasks", files={"file": ("split.pdf", REPORT, "application/pdf")}).json()
        client.post(f"/api/v1/tasks/{task['id']}/cancel")
        with client.stream("GET", f"/api/v1/tasks/{task['id']}/events") as response:
            stream = response.read().decode()
    assert "event: end" in stream
    page.goto("/")
    results = page.evaluate(
        """async (stream) => {
            const { readEvents } = await import('/api.js');
            const bytes = new TextEncoder().encode(stream.replace(/\\n/g, '\\r\\n') + ': comment\\r\\n\\r\\n');
            const realFetch = window.fetch;
            const read = async (chunks) => {
                window.fetch = async () => new Response(new ReadableStream({
                    start(controller) { for (const chunk of chunks) controller.enqueue(chunk); controller.close(); },
                }), { headers: { 'Content-Type': 'text/event-stream' } });
                const events = [];
                try {
                    await readEvents('/stream', new AbortController().signal, (name, data) => {
                        events.push([name, data.status]);
                    });
                } finally {
                    window.fetch = realFetch;
                }
                return JSON.stringify(events);
            };
            const whole = await read([bytes]);
            const splits = [];
            for (let at = 1; at < bytes.length; at++) splits.push(await read([bytes.slice(0, at), bytes.slice(at)]));
            return { whole, different: splits.filter((events) => events !== whole).length };
        }""",
        stream,
    )
    assert results["whole"] == '[["task","cancelled"],["end","cancelled"]]'
    assert results["different"] == 0


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_broken_stream_reconnects_with_backoff_and_a_refused_one_stops(page: Page, service: Service) -> None:
    """followStream (api.js), which the list, the task view and the vision panel all follow with."""
    page.goto("/dom.js")  # same origin, without app.js and its own streams
    results = page.evaluate(
        """async () => {
            const { followStream, followTask } = await import('/api.js');
            const frame = (name, status) => `event: ${name}\ndata: {"id": "t", "status": "${status}"}\n\n`;
            const stream = (text) => new Response(text, { headers: { 'Content-Type': 'text/event-stream' } });
            const realFetch = window.fetch;
            const realSetTimeout = window.setTimeout;
            const waits = [];
            const run = async (answers, follow) => {
                const log = [];
                window.setTimeout = (fn, ms) => (waits.push(ms), realSetTimeout(fn, 0));
                window.fetch = async (path) => {
                    log.push(['fetch', path]);
                    const answer = answers.shift();
                    if (answer instanceof Error) throw answer;
                    return answer;
                };
                try {
                    const outcome = await follow(log);
                    return { outcome, log };
                } finally {
                    window.fetch = realFetch;
                    window.setTimeout = realSetTimeout;
                }
            };
            const broken = await run(
                [new TypeError('network'), new TypeError('network'), stream(frame('task', 'running')),
                 stream(frame('end', 'completed'))],
                (log) => followStream('/s', {
                    signal: new AbortController().signal,
                    onEvent: (name, data) => (log.push([name, data.status]), name === 'end' ? 'ended' : undefined),
                    onState: (state) => log.push(['state', state]),
                    onReconnect: () => log.push(['reconnect']),
                }),
            );
            broken.waits = waits.splice(0);
            const refused = await run(
                [new Response('{"error": {"code": "not_found", "message": "no"}}', { status: 404 })],
                (log) => followTask('t', { signal: new AbortController().signal, onTask: () => log.push(['task']) }),
            );
            refused.waits = waits;
            return { broken, refused };
        }"""
    )
    broken = results["broken"]
    assert broken["outcome"] == "ended"
    assert broken["log"] == [
        ["state", "live"], ["fetch", "/s"], ["state", "reconnecting"], ["reconnect"],
        ["state", "live"], ["fetch", "/s"], ["state", "reconnecting"], ["reconnect"],
        ["state", "live"], ["fetch", "/s"], ["task", "running"], ["state", "reconnecting"], ["reconnect"],
        ["state", "live"], ["fetch", "/s"], ["end", "completed"],
    ]  # fmt: skip
    assert broken["waits"] == [1000, 2000, 1000], "the wait doubles, and an event sets it back to 1 s"
    assert results["refused"] == {"outcome": "lost", "log": [["fetch", "/api/v1/tasks/t/events"]], "waits": []}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_long_document_is_built_slice_by_slice_in_reading_order(page: Page, service: Service) -> None:
    """81 pages: the view is built 40 pages at a time (app.js) and still ends up whole and in order."""
    service.start_worker()
    with service.client() as client:
        task = client.post("/api/v1/tasks", files={"file": ("long.pdf", born_digital_pdf(81), "application/pdf")})
    task_id = task.json()["id"]
    service.wait_status(task_id, "completed")
    page.goto(f"/#/task/{task_id}")
    expect(page.locator("#document")).to_have_attribute("data-built", "true")
    expect(page.locator("#document .doc-page")).to_have_count(81)
    expected = json_blocks(service, task_id)
    assert [(i, re.sub(r"\s", "", t)) for i, t in rendered_blocks(page)] == [
        (i, re.sub(r"\s", "", t)) for i, t in expected
    ]
    page.locator('#document [data-page="80"][data-type="table"]').click()
    expect(page.locator("#page-label")).to_have_text("Page 81 of 81")
    expect(page.locator('#page-boxes .box.selected[data-type="table"]')).to_have_count(1)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_code_listing_shows_as_code_with_its_lines_and_indentation(page: Page, service: Service) -> None:
    service.start_worker()
    with service.client() as client:
        submitted = client.post("/api/v1/tasks", files={"file": ("build.pdf", code_pdf(), "application/pdf")})
    task_id = submitted.json()["id"]
    service.wait_status(task_id, "completed")
    page.goto(f"/#/task/{task_id}")
    blocks = page.locator("#document [data-block]")
    expect(blocks).to_have_count(3)
    expect(blocks.nth(0)).to_have_text(CODE_BEFORE)
    code = blocks.nth(1)
    expect(code).to_have_attribute("data-type", "code")
    assert code.evaluate("n => n.tagName") == "PRE"
    assert code.evaluate("n => n.textContent") == "\n".join(CODE_LINES)
    assert code.evaluate("n => getComputedStyle(n).whiteSpace") == "pre"
    expect(blocks.nth(2)).to_have_text(CODE_AFTER)
