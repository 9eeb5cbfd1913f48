"""The calls peers' users expect, over real HTTP (uvicorn) on both backends: results as text, HTML,
hOCR and ALTO; several files in one submit; POST /api/v1/convert waiting for its task."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from data.generate import born_digital_pdf, figure_pdf
from PIL import Image
from support.service import Service, running_service
from support.validators import ALTO_NS, XHTML_NS, properties, valid_alto, valid_hocr

from ocrqueue.client import Client, format_for
from ocrqueue.queue import Store

PDF = born_digital_pdf(pages=2)
BROKEN_PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer broken"


@pytest.fixture
def service(db_url: str, store: Store, tmp_path: Path) -> Iterator[Service]:
    with running_service(db_url, store, tmp_path, max_files_per_request=3, convert_max_wait_seconds=120) as running:
        yield running


def _files(*parts: tuple[str, bytes]) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("file", (name, data, "application/pdf")) for name, data in parts]


def _stored_uploads(service: Service) -> list[Path]:
    root = service.storage.root / "uploads"
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_results_come_as_text_html_hocr_and_alto(service: Service, tmp_path: Path) -> None:
    service.start_worker()
    with service.client() as client:
        task = client.post("/api/v1/tasks", files=_files(("report.pdf", PDF)), data={"mode": "text"}).json()
        done = service.wait_status(task["id"], "completed")
        links = done["result"]
        text = client.get(links["text"])
        assert text.status_code == 200 and text.headers["content-type"] == "text/plain; charset=utf-8"
        assert text.text.count("\f") == 1 and "Supplier Invoices" in text.text
        html = client.get(links["html"])
        assert html.headers["content-type"] == "text/html; charset=utf-8"
        assert html.text.startswith("<!DOCTYPE html>") and "<title>report.pdf</title>" in html.text
        alto = client.get(links["alto"])
        assert alto.headers["content-type"] == "application/xml; charset=utf-8"
        pages = valid_alto(alto.content).findall(".//a:Page", ALTO_NS)
        assert len(pages) == 2
        hocr = client.get(links["hocr"])
        assert hocr.headers["content-type"] == "application/xhtml+xml; charset=utf-8"
        (tmp_path / "r.hocr").write_bytes(hocr.content)
        page = valid_hocr(tmp_path / "r.hocr").find(".//h:div[@class='ocr_page']", XHTML_NS)
        # The page image hOCR names is the one the API serves, and the boxes are its pixels.
        image_url = httpx.URL(str(client.base_url)).join(links["hocr"]).join(properties(page)["image"].strip('"'))
        image = Image.open(io.BytesIO(client.get(image_url).content))
        assert f"bbox 0 0 {image.width} {image.height}" in page.get("title")
        assert (float(pages[0].get("WIDTH")), float(pages[0].get("HEIGHT"))) == image.size
        absolute = client.get(f"{links['hocr']}&links=absolute").text
        assert f'image "{service.url}/api/v1/tasks/{task["id"]}/pages/1"' in absolute

        figures = client.post("/api/v1/tasks", files=_files(("chart.pdf", figure_pdf()))).json()
        figures_done = service.wait_status(figures["id"], "completed")
        html = client.get(figures_done["result"]["html"]).text
        src = html.split('<img src="', 1)[1].split('"', 1)[0]
        assert src.startswith("assets/imgs/")
        figure = client.get(httpx.URL(str(client.base_url)).join(figures_done["result"]["html"]).join(src))
        assert figure.status_code == 200 and figure.headers["content-type"].startswith("image/")
        assert client.get(links["markdown"].replace("markdown", "docx")).status_code == 422


def test_several_files_make_one_task_each_with_their_own_dedup(service: Service) -> None:
    other = born_digital_pdf(pages=1)
    with service.client() as client:
        response = client.post(
            "/api/v1/tasks", files=_files(("a.pdf", PDF), ("again.pdf", PDF), ("b.pdf", other)), data={"mode": "text"}
        )
        assert response.status_code == 202, response.text
        entries = response.json()["tasks"]
        assert [e["filename"] for e in entries] == ["a.pdf", "again.pdf", "b.pdf"]
        assert [e["created"] for e in entries] == [True, False, True]
        assert [e["same_as"] for e in entries] == [None, 0, None]
        assert entries[0]["task"]["id"] == entries[1]["task"]["id"] != entries[2]["task"]["id"]
        listed = client.get("/api/v1/tasks").json()["tasks"]
        assert sorted(t["id"] for t in listed) == sorted({e["task"]["id"] for e in entries})
        again = client.post("/api/v1/tasks", files=_files(("b.pdf", other), ("a.pdf", PDF)), data={"mode": "text"})
        assert again.status_code == 200  # both found: the same files and options
        assert [e["task"]["id"] for e in again.json()["tasks"]] == [entries[2]["task"]["id"], entries[0]["task"]["id"]]
        single = client.post("/api/v1/tasks", files=_files(("a.pdf", PDF)), data={"mode": "text"})
        assert single.status_code == 200 and single.json()["id"] == entries[0]["task"]["id"]  # one part: as before


def test_a_refused_file_or_option_refuses_the_whole_request(service: Service) -> None:
    with service.client() as client:
        empty = client.post("/api/v1/tasks", files=_files(("a.pdf", PDF), ("empty.pdf", b"")))
        assert empty.status_code == 422
        error = empty.json()["error"]
        assert error["code"] == "empty_file" and "file 2 (empty.pdf)" in error["message"]
        beyond = client.post(
            "/api/v1/tasks", files=_files(("two.pdf", PDF), ("one.pdf", born_digital_pdf(1))), data={"pages": "2"}
        )
        assert beyond.status_code == 422 and "file 2 (one.pdf)" in beyond.json()["error"]["message"]
        options = client.post("/api/v1/tasks", files=_files(("a.pdf", PDF), ("b.pdf", PDF)), data={"dpi": "5"})
        assert options.status_code == 422
        many = client.post("/api/v1/tasks", files=_files(*[(f"{n}.pdf", PDF) for n in range(4)]))
        assert many.status_code == 422 and many.json()["error"]["code"] == "too_many_files"
        assert client.get("/api/v1/tasks").json()["tasks"] == []
    assert _stored_uploads(service) == []  # the files stored before the refused one are gone again


def test_an_idempotency_key_keys_each_file_of_a_request(service: Service) -> None:
    with service.client() as client:
        files = _files(("a.pdf", PDF), ("b.pdf", born_digital_pdf(1)))
        first = client.post("/api/v1/tasks", files=files, headers={"Idempotency-Key": "batch-9"})
        assert first.status_code == 202
        ids = [e["task"]["id"] for e in first.json()["tasks"]]
        assert len(set(ids)) == 2
        retried = client.post("/api/v1/tasks", files=files, headers={"Idempotency-Key": "batch-9"})
        assert retried.status_code == 200 and [e["task"]["id"] for e in retried.json()["tasks"]] == ids


def test_convert_returns_the_result_once_the_task_completes(service: Service) -> None:
    with service.client() as client:
        answer: dict[str, httpx.Response] = {}

        def convert() -> None:
            answer["markdown"] = client.post(
                "/api/v1/convert", files=_files(("r.pdf", PDF)), data={"mode": "text", "wait": "60"}
            )

        waiting = threading.Thread(target=convert)
        waiting.start()  # no worker yet: the request waits for the task it submitted
        service.start_worker()
        waiting.join(90)
        response = answer["markdown"]
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/markdown") and "Supplier Invoices" in response.text
        task = client.get(response.headers["Location"]).json()
        assert task["status"] == "completed" and task["filename"] == "r.pdf"
        alto = client.post(
            "/api/v1/convert", params={"format": "alto"}, files=_files(("r.pdf", PDF)), data={"mode": "text"}
        )
        assert alto.status_code == 200 and alto.headers["Location"] == response.headers["Location"]  # the same task
        valid_alto(alto.content)
        pdf = client.post(
            "/api/v1/convert", params={"format": "pdf"}, files=_files(("r.pdf", PDF)), data={"mode": "text"}
        )
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")


def test_convert_answers_202_with_the_task_when_the_wait_passes(service: Service) -> None:
    with service.client() as client:
        response = client.post("/api/v1/convert", params={"wait": "0.5"}, files=_files(("r.pdf", PDF)))
        assert response.status_code == 202, response.text
        body = response.json()
        assert body["status"] == "pending" and response.headers["Location"] == f"/api/v1/tasks/{body['id']}"
        by_form = client.post("/api/v1/convert", files=_files(("r.pdf", PDF)), data={"wait": "0"})
        assert by_form.status_code == 202 and by_form.json()["id"] == body["id"]
        too_long = client.post("/api/v1/convert", params={"wait": "121"}, files=_files(("r.pdf", PDF)))
        assert too_long.status_code == 422 and too_long.json()["error"]["field"] == "wait"
        assert client.post("/api/v1/convert", files=_files(("e.pdf", b""))).json()["error"]["code"] == "empty_file"


def test_convert_answers_a_dead_lettered_task_with_its_error(service: Service) -> None:
    service.start_worker()
    with service.client() as client:
        response = client.post("/api/v1/convert", files=_files(("broken.pdf", BROKEN_PDF)), data={"wait": "60"})
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["code"] == "unreadable_document" and error["message"]
        task = client.get(response.headers["Location"]).json()
        assert task["status"] == "dead_letter" and task["error"]["message"] == error["message"]


def test_the_openapi_document_has_the_new_calls(service: Service) -> None:
    with service.client() as client:
        spec = client.get("/openapi.json").json()
    convert = spec["paths"]["/api/v1/convert"]["post"]
    assert set(convert["responses"]) >= {"200", "202", "422", "500"}
    assert "text/plain" in convert["responses"]["200"]["content"]
    formats = spec["paths"]["/api/v1/tasks/{task_id}/result"]["get"]["parameters"]
    format_schema = next(p for p in formats if p["name"] == "format")["schema"]
    assert set(format_schema["enum"]) == {"markdown", "json", "pdf", "text", "html", "hocr", "alto"}
    submit = spec["paths"]["/api/v1/tasks"]["post"]["responses"]["202"]["content"]["application/json"]["schema"]
    assert {"$ref": "#/components/schemas/BatchOut"} in submit["anyOf"]


def test_the_client_downloads_each_format_by_its_suffix(service: Service, tmp_path: Path) -> None:
    service.start_worker()
    source = tmp_path / "report.pdf"
    source.write_bytes(PDF)
    with Client(service.url) as client:
        task = client.submit(source, mode="text")
        done = client.wait(task.id, timeout=60)
        assert done.status == "completed"
        for name in ("report.txt", "report.html", "report.hocr", "report.alto.xml"):
            client.download(done.id, tmp_path / name)
        assert client.result(done.id, "text").decode() == (tmp_path / "report.txt").read_text(encoding="utf-8")
    assert "Supplier Invoices" in (tmp_path / "report.txt").read_text(encoding="utf-8")
    assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    valid_hocr(tmp_path / "report.hocr")
    valid_alto((tmp_path / "report.alto.xml").read_bytes())
    with pytest.raises(ValueError, match=r"\.hocr"):
        format_for("report.docx")
