"""`ocrqueue submit/tasks --server` and `ocrqueue.client` against a real `ocrqueue serve` process, from
a "machine" whose own database and storage settings lead nowhere: everything goes over HTTP."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from data.generate import ENGLISH, born_digital_pdf, encode, text_page
from support.processes import Processes

from ocrqueue.client import AsyncClient, Client, ClientError, WaitTimeout
from ocrqueue.queue import Store

pytestmark = pytest.mark.acceptance

TASK_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}")
NOWHERE = {
    # A client machine: any attempt to use a database or local storage fails loudly.
    "OCRQUEUE_DATABASE_URL": "postgresql://nobody@127.0.0.1:9/none",
    "OCRQUEUE_DATA_DIR": "/nonexistent/ocrqueue",
}


def test_submit_over_http_follows_progress_and_writes_every_format(
    store: Store, workers: Processes, tmp_path: Path
) -> None:
    _, base = workers.start_serve("--workers", "1")
    scan = tmp_path / "scan.png"
    scan.write_bytes(encode(text_page(ENGLISH, cjk=False), "PNG"))
    report = tmp_path / "report.pdf"
    report.write_bytes(born_digital_pdf(pages=2))
    out = tmp_path / "out"
    run = workers.run(
        "submit", str(scan), str(report), "--server", base, "--lang", "eng",
        "-o", str(out), "-f", "md", "-f", "json", "-f", "pdf",
        env=NOWHERE, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(set(TASK_ID.findall(run.stdout))) == 2
    assert sorted(p.name for p in out.iterdir()) == [
        "report.json", "report.md", "report.pdf", "scan.json", "scan.md", "scan.pdf",
    ]  # fmt: skip
    assert "Supplier Invoices" in (out / "report.md").read_text()
    text = pdfium.PdfDocument(out / "scan.pdf")[0].get_textpage().get_text_range()
    assert ENGLISH[0] in " ".join(text.split())
    task_id = TASK_ID.findall(run.stdout)[0]
    listed = workers.run("tasks", "list", "--server", base, env=NOWHERE)
    assert listed.returncode == 0 and task_id in listed.stdout
    shown = workers.run("tasks", "show", task_id, "--server", base, env=NOWHERE)
    assert shown.returncode == 0 and "completed" in shown.stdout and "claimed" in shown.stdout
    waited = workers.run("tasks", "wait", task_id, "--server", base, env=NOWHERE)
    assert waited.returncode == 0 and "completed" in waited.stdout
    missing = workers.run("tasks", "show", "00000000-0000-7000-8000-000000000000", "--server", base, env=NOWHERE)
    assert missing.returncode == 3


def test_the_python_client_submits_follows_downloads_and_cancels(
    store: Store, workers: Processes, tmp_path: Path
) -> None:
    _, base = workers.start_serve("--workers", "1")
    with Client(base) as client:
        task = client.submit(_pdf(tmp_path, born_digital_pdf(pages=3)), mode="text")
        seen = list(client.events(task.id))
        assert seen[-1].status == "completed" and seen[-1].progress_done == 3
        assert [u.progress_done for u in seen] == sorted(u.progress_done for u in seen)
        done = client.wait(task.id, timeout=5)
        assert done.status == "completed"
        pdf = client.download(task.id, tmp_path / "got.pdf")
        assert len(pdfium.PdfDocument(pdf)) == 3
        assert b"Supplier Invoices" in client.result(task.id, "markdown")
        again = client.submit(_pdf(tmp_path, born_digital_pdf(pages=3)), mode="text")
        assert again.id == task.id  # the same file and options: the same task
        with pytest.raises(ClientError) as refused:
            client.submit(_pdf(tmp_path, b"not a pdf"))
        assert (refused.value.status, refused.value.code) == (415, "unsupported_type")
        with pytest.raises(ClientError) as unknown:
            client.get("00000000-0000-7000-8000-000000000000")
        assert unknown.value.status == 404


def test_the_async_client_has_the_same_calls(store: Store, workers: Processes, tmp_path: Path) -> None:
    _, base = workers.start_serve("--workers", "1")
    report = _pdf(tmp_path, born_digital_pdf(pages=2))

    async def use() -> None:
        async with AsyncClient(base) as client:
            task = await client.submit(report, mode="text")
            seen = [update async for update in client.events(task.id)]
            assert seen[-1].status == "completed" and seen[-1].progress_done == 2
            assert (await client.wait(task.id, timeout=5)).status == "completed"
            assert (await client.get(task.id)).status == "completed"
            assert [t.id for t in await client.list(status=["completed"])] == [task.id]
            pdf = await client.download(task.id, tmp_path / "got.pdf")
            assert len(pdfium.PdfDocument(pdf)) == 2
            assert b"Supplier Invoices" in await client.result(task.id, "markdown")
            assert (await client.submit(report, mode="text")).id == task.id
            again = await client.submit(report, mode="text", force=True)
            assert again.id != task.id and (await client.wait(again.id, timeout=60)).status == "completed"
            await client.delete(again.id)
            with pytest.raises(ClientError) as gone:
                await client.get(again.id)
            assert gone.value.status == 404

    asyncio.run(use())


def test_waiting_on_a_queued_task_times_out_then_cancel_ends_it(
    store: Store, workers: Processes, tmp_path: Path
) -> None:
    _, base = workers.start_serve("--no-workers", name="api-only")
    with Client(base) as client:
        task = client.submit(_pdf(tmp_path, born_digital_pdf(pages=1)), mode="text")
        with pytest.raises(WaitTimeout):
            client.wait(task.id, timeout=1.5)
        assert client.cancel(task.id).status == "cancelled"
        assert client.wait(task.id, timeout=10).status == "cancelled"


def _pdf(folder: Path, data: bytes) -> Path:
    path = folder / f"upload-{len(list(folder.glob('upload-*')))}.pdf"
    path.write_bytes(data)
    return path
