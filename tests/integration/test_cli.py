"""The command line in-process (Typer's runner), on both backends, with an in-process worker."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from data.generate import ENGLISH, PdfBuilder, born_digital_pdf, encode, figure_pdf, text_page
from prometheus_client import CollectorRegistry
from support.validators import ALTO_NS, XHTML_NS, properties, valid_alto, valid_hocr
from typer.testing import CliRunner

from ocrqueue.cli import app
from ocrqueue.queue import QueueConfig, Store, TaskSpec, Worker
from ocrqueue.queue.metrics import QueueMetrics
from ocrqueue.service.kinds import build_registry
from ocrqueue.settings import Settings
from ocrqueue.storage import LocalStorage

runner = CliRunner()
TASK_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def cli_env(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(__import__("os").environ):
        if name.startswith("OCRQUEUE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OCRQUEUE_DATABASE_URL", db_url)
    monkeypatch.setenv("OCRQUEUE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path


@pytest.fixture
def worker(cli_env: Path, store: Store) -> Iterator[Worker]:
    settings = Settings()
    registry = build_registry(LocalStorage(settings.resolved_storage_dir), settings.document_limits(), test_kinds=True)
    config = QueueConfig(lease_seconds=10, heartbeat_seconds=1, reaper_seconds=1, poll_seconds=0.1)
    running = Worker(store, registry, config, metrics=QueueMetrics(CollectorRegistry()))
    running.start()
    yield running
    running.stop(release_now=True)
    running.wait_stopped(10)


def test_submit_wait_then_result_list_and_show(cli_env: Path, worker: Worker) -> None:
    pdf = cli_env / "report.pdf"
    pdf.write_bytes(born_digital_pdf(pages=2))
    submitted = runner.invoke(app, ["submit", str(pdf), "--mode", "text", "--wait"])
    assert submitted.exit_code == 0, submitted.output
    task_id = TASK_ID.search(submitted.output).group(0)  # type: ignore[union-attr]
    markdown = runner.invoke(app, ["tasks", "result", task_id])
    assert markdown.exit_code == 0 and "Supplier Invoices" in markdown.output
    saved = runner.invoke(app, ["tasks", "result", task_id, "-f", "json", "-o", str(cli_env / "out.json")])
    assert saved.exit_code == 0 and '"schema_version"' in (cli_env / "out.json").read_text()
    as_pdf = runner.invoke(app, ["tasks", "result", task_id, "-f", "pdf", "-o", str(cli_env / "out.pdf")])
    assert as_pdf.exit_code == 0, as_pdf.output
    assert "Supplier Invoices" in pdfium.PdfDocument(cli_env / "out.pdf")[0].get_textpage().get_text_range()
    listed = runner.invoke(app, ["tasks", "list", "--status", "completed"])
    assert task_id in listed.output
    shown = runner.invoke(app, ["tasks", "show", task_id])
    assert "completed" in shown.output and "claimed" in shown.output
    again = runner.invoke(app, ["submit", str(pdf), "--mode", "text"])
    assert f"{task_id} report.pdf already completed" in again.output


def test_a_failed_document_exits_non_zero_with_its_reason(cli_env: Path, worker: Worker) -> None:
    locked = PdfBuilder()
    locked.add_page([PdfBuilder.text(72, 72, 12, "secret")])
    path = cli_env / "locked.pdf"
    path.write_bytes(locked.build(encrypt=True))
    result = runner.invoke(app, ["submit", str(path), "--wait"])
    assert result.exit_code == 1
    task_id = TASK_ID.search(result.output).group(0)  # type: ignore[union-attr]
    assert runner.invoke(app, ["tasks", "result", task_id]).exit_code == 1
    assert runner.invoke(app, ["tasks", "result", "00000000-0000-7000-8000-000000000000"]).exit_code == 3


def test_convert_writes_a_searchable_pdf_of_a_scan(cli_env: Path) -> None:
    scan = cli_env / "scan.png"
    scan.write_bytes(encode(text_page(ENGLISH, cjk=False), "PNG"))
    result = runner.invoke(app, ["convert", str(scan), "-o", str(cli_env / "out"), "-f", "pdf", "--lang", "eng"])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (cli_env / "out" / "scan").iterdir())
    assert written == ["scan.pdf"]
    text = pdfium.PdfDocument(cli_env / "out" / "scan" / "scan.pdf")[0].get_textpage().get_text_range()
    assert ENGLISH[0] in " ".join(text.split())
    assert runner.invoke(app, ["convert", str(scan), "-o", str(cli_env / "x"), "-f", "docx"]).exit_code == 2


def test_db_prune_days_0_prunes_every_finished_task_with_its_files(cli_env: Path, worker: Worker) -> None:
    pdf = cli_env / "figures.pdf"
    pdf.write_bytes(figure_pdf())
    assert runner.invoke(app, ["submit", str(pdf), "--mode", "text", "--wait"]).exit_code == 0
    storage = Settings().resolved_storage_dir
    stored = {p.relative_to(storage).parts[0] for p in storage.rglob("*") if p.is_file()}
    assert stored == {"uploads", "results"}
    kept = runner.invoke(app, ["db", "prune"])
    assert kept.exit_code == 0 and "pruned 0 task(s)" in kept.output  # the default: a week
    pruned = runner.invoke(app, ["db", "prune", "--days", "0"])
    assert pruned.exit_code == 0 and "pruned 1 task(s)" in pruned.output
    assert [p for p in storage.rglob("*") if p.is_file()] == []


def test_convert_writes_markdown_json_and_reports_bad_files(cli_env: Path) -> None:
    good, bad = cli_env / "good.pdf", cli_env / "empty.pdf"
    good.write_bytes(born_digital_pdf(pages=1))
    bad.write_bytes(b"")
    result = runner.invoke(app, ["convert", str(good), str(bad), "-o", str(cli_env / "out"), "--mode", "text"])
    assert result.exit_code == 1
    assert "Supplier Invoices" in (cli_env / "out" / "good" / "good.md").read_text()
    assert (cli_env / "out" / "good" / "good.json").is_file() and not (cli_env / "out" / "empty").exists()


def test_convert_and_submit_read_only_the_pages_asked_for(cli_env: Path) -> None:
    path = cli_env / "long.pdf"
    path.write_bytes(born_digital_pdf(pages=6))
    out = cli_env / "out"
    result = runner.invoke(app, ["convert", str(path), "-o", str(out), "--mode", "text", "--pages", "5-6,2"])
    assert result.exit_code == 0, result.output
    document = json.loads((out / "long" / "long.json").read_text())
    assert document["document"]["pages"] == "2,5-6" and [p["index"] for p in document["pages"]] == [1, 4, 5]
    beyond = runner.invoke(app, ["convert", str(path), "-o", str(cli_env / "beyond"), "--pages", "7"])
    assert beyond.exit_code == 1 and "the document has 6" in beyond.output
    assert not (cli_env / "beyond").exists()
    assert runner.invoke(app, ["convert", str(path), "-o", str(out), "--pages", "1-x"]).exit_code == 2
    refused = runner.invoke(app, ["submit", str(path), "--pages", "3-9"])
    assert refused.exit_code == 1 and "the document has 6" in refused.output


def test_convert_writes_a_searchable_pdf_of_the_pages_asked_for(cli_env: Path) -> None:
    path = cli_env / "long.pdf"
    path.write_bytes(born_digital_pdf(pages=6))
    out = cli_env / "out"
    args = ["convert", str(path), "-o", str(out), "--mode", "text", "--pages", "2,5", "-f", "pdf", "-f", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    pdf = pdfium.PdfDocument(out / "long" / "long.pdf")
    assert len(pdf) == 2 and "2" in pdf[0].get_textpage().get_text_range()
    pdf.close()
    assert not (out / "long" / "long.md").exists() and not list((out / "long").glob(".*.tmp"))


@pytest.mark.parametrize(
    ("fmt", "suffix"), [("text", ".txt"), ("txt", ".txt"), ("html", ".html"), ("hocr", ".hocr"), ("alto", ".alto.xml")]
)
def test_convert_writes_text_html_hocr_and_alto(cli_env: Path, fmt: str, suffix: str) -> None:
    path = cli_env / "report.pdf"
    path.write_bytes(born_digital_pdf(pages=2))
    out = cli_env / "out"
    result = runner.invoke(app, ["convert", str(path), "-o", str(out), "--mode", "text", "-f", fmt])
    assert result.exit_code == 0, result.output
    written = out / "report" / f"report{suffix}"
    assert sorted(p.name for p in (out / "report").iterdir()) == [written.name]
    data = written.read_bytes()
    if suffix == ".txt":
        assert data.decode().count("\f") == 1 and "Supplier Invoices" in data.decode()
    elif suffix == ".html":
        assert data.startswith(b"<!DOCTYPE html>") and b"<h1>Supplier Invoices</h1>" in data
    elif suffix == ".hocr":
        hocr = valid_hocr(written)
        pages = hocr.findall(".//h:div[@class='ocr_page']", XHTML_NS)
        assert [properties(p)["image"] for p in pages] == ['"report.pdf"', '"report.pdf"']
    else:
        alto = valid_alto(data)
        assert len(alto.findall(".//a:Page", ALTO_NS)) == 2
        assert "Supplier" in [s.get("CONTENT") for s in alto.iterfind(".//a:String", ALTO_NS)]


def test_local_webhook_secret_is_made_once_and_shown_again(cli_env: Path) -> None:
    first = runner.invoke(app, ["keys", "webhook-secret"])
    assert first.exit_code == 0 and first.output.startswith("whsec_")
    assert runner.invoke(app, ["keys", "webhook-secret"]).output == first.output


def test_converted_markdown_opens_with_its_figures_on_disk(cli_env: Path) -> None:
    (cli_env / "chart.pdf").write_bytes(figure_pdf(pages=2))
    assert runner.invoke(app, ["convert", str(cli_env / "chart.pdf"), "-o", str(cli_env / "out")]).exit_code == 0
    markdown = cli_env / "out" / "chart" / "chart.md"
    links = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", markdown.read_text())
    assert len(links) == 2
    for link in links:
        assert (markdown.parent / link).read_bytes().startswith(b"\x89PNG"), link


def test_keys_create_list_revoke(cli_env: Path) -> None:
    created = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--name", "scanner"])
    assert created.exit_code == 0
    token = next(line for line in created.output.splitlines() if line.startswith("oq_"))
    assert created.output.strip().splitlines()[-1].startswith("whsec_")
    key_id = re.search(r"key ([0-9a-f]{16})", created.output).group(1)  # type: ignore[union-attr]
    listed = runner.invoke(app, ["keys", "list"])
    assert key_id in listed.output and token not in listed.output
    assert runner.invoke(app, ["keys", "revoke", key_id]).exit_code == 0
    assert runner.invoke(app, ["keys", "revoke", key_id]).exit_code == 3


def test_every_command_has_help_with_an_example(cli_env: Path) -> None:
    import typer.main

    root = typer.main.get_command(app)
    commands: list[list[str]] = []
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        if hasattr(command, "commands"):
            commands += [[name, sub] for sub in command.commands]
        else:
            commands.append([name])
    assert len(commands) >= 17
    for command in commands:
        shown = runner.invoke(app, [*command, "--help"])
        assert shown.exit_code == 0 and "Example" in shown.output, command


def test_tasks_wait_returns_when_the_task_finishes(cli_env: Path, store: Store, worker: Worker) -> None:
    task_id = store.submit(TaskSpec("sleep", {"pages": 2, "seconds_per_page": 0.2})).task.id
    waited = runner.invoke(app, ["tasks", "wait", task_id, "--timeout", "60"])
    assert waited.exit_code == 0, waited.output
    assert f"{task_id}: completed" in waited.output


def test_tasks_wait_gives_up_after_its_timeout(cli_env: Path, store: Store) -> None:
    task_id = store.submit(TaskSpec("noop")).task.id
    waited = runner.invoke(app, ["tasks", "wait", task_id, "--timeout", "0.3"])
    assert waited.exit_code != 0
    assert "still pending after 0.3s" in waited.output
    missing = runner.invoke(app, ["tasks", "wait", "01a2272f-0000-7000-8000-000000000000", "--timeout", "5"])
    assert missing.exit_code != 0 and missing.exit_code != waited.exit_code
