"""The chaos run: real `ocrqueue` processes drain real documents through the HTTP API while a seeded
driver kills, pauses and restarts them (and the database), then everything is checked.

Checked afterwards: every task completed (or dead-lettered for a planted bad file, with its reason);
every result equals a clean local run of the pipeline on the same bytes and options; every page
checkpoint was written while its lease token was held (per the event history and the database
clock); no two leases of a task overlapped and no task completed twice; no submit was doubled.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
from data.generate import ENGLISH, LEFT_COLUMN, RIGHT_COLUMN, PdfBuilder, _encrypted, scanned, text_page
from PIL import Image
from support.postgres import Cluster
from support.proc_history import _LEASE_ENDS, history_problems
from support.processes import Processes, WorkerProcess
from support.results import without_timings
from support.server import free_port
from support.vlm_standin import StandIn

from ocrqueue.documents import DocumentError, DocumentLimits, ProcessOptions, assemble, open_document, process_page
from ocrqueue.documents.vlm import VlmConfig
from ocrqueue.queue import Event, EventType, Store, TaskStatus
from ocrqueue.queue.drivers.rows import to_datetime
from ocrqueue.queue.urls import parse_database_url
from ocrqueue.service.engines import configure_vlm

CHAOS_ENV: dict[str, str] = {
    "OCRQUEUE_LEASE_SECONDS": "3",
    "OCRQUEUE_HEARTBEAT_SECONDS": "0.5",
    "OCRQUEUE_REAPER_SECONDS": "0.5",
    "OCRQUEUE_POLL_SECONDS": "0.2",
    "OCRQUEUE_SHUTDOWN_GRACE_SECONDS": "1",
    # Every kill and pause costs the tasks it hits an attempt (an expired lease is a failed attempt);
    # a long document can be hit several times in a run built to hit it, so allow more than the default.
    "OCRQUEUE_MAX_ATTEMPTS": "12",
    "OCRQUEUE_SUBMIT_RATE_PER_MINUTE": "100000",
    "OCRQUEUE_DEFAULT_LANGUAGES": '["eng"]',
    "OCRQUEUE_RENDER_DPI": "200",
}
BURST = 6  # model-server answers turned into 503s per burst (the breaker opens after 5 failures)
OPTIONS = {"mode": "auto", "engine": "tesseract", "languages": ["eng"], "dpi": 200}


# --- documents ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    name: str
    data: bytes
    pages: int
    scanned_pages: int
    bad: str = ""  # for a planted bad file: a word its dead-letter message must contain
    options: dict[str, Any] = field(default_factory=lambda: dict(OPTIONS))
    scan_at: frozenset[int] = frozenset()  # which pages are scans (OCR'd)


def _process_family(pid: int) -> set[int]:
    """`pid` and its children, from /proc: the processes whose tasks die with it."""
    family = {pid}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                family.add(int(stat.parent.name))
    return family


def _text_page_ops(doc: int, page: int) -> list[str]:
    ops = [
        PdfBuilder.text(72, 30, 9, f"Chaos document {doc}, page {page + 1}"),
        PdfBuilder.text(290, 800, 9, str(page + 1)),
    ]
    if page % 2 == 0:
        ops.append(PdfBuilder.text(72, 80, 20, f"Report {doc}-{page}", font="F2"))
        ops += [PdfBuilder.text(72, 130 + i * 18, 11, line) for i, line in enumerate(ENGLISH)]
    else:
        ops += [PdfBuilder.text(72, 130 + i * 18, 11, line) for i, line in enumerate(LEFT_COLUMN)]
        ops += [PdfBuilder.text(320, 130 + i * 18, 11, line) for i, line in enumerate(RIGHT_COLUMN)]
    return ops


def _scan_images(count: int) -> list[Image.Image]:
    titles = ["Supplier Invoices", "Delivery Notes", "Payment Terms", "Accounts Team"]
    return [text_page(ENGLISH[i % 3 : i % 3 + 3], cjk=False, title=titles[i % len(titles)]) for i in range(count)]


def make_documents(
    count: int, max_pages: int, scan_share: float, seed: int, vlm: int = 0, big_pages: int = 0
) -> list[Doc]:
    """`count` unique documents (the first line of each names it, so no two deduplicate):
    mostly text-layer PDFs of 1..`max_pages` pages, some pages scans; a few scanned JPEGs; three
    planted bad files (truncated, encrypted, a decompression bomb); `vlm` scanned PDFs of 1-3
    pages for the `vlm` engine (a model server), spread evenly through the run; and, with
    `big_pages`, one document of that many pages (one in fifty a scan) a third of the way in."""
    rng = random.Random(seed)
    images = _scan_images(4)
    docs: list[Doc] = []
    bad_at = {count // 5: "truncated", count // 2: "encrypted", (4 * count) // 5: "bomb"}
    vlm_at = {(k + 1) * count // (vlm + 1) + 1 for k in range(vlm)}
    big_at = count // 3 + 1 if big_pages else -1
    for i in range(count):
        if i in bad_at:
            docs.append(_bad_document(i, bad_at[i]))
            continue
        if i == big_at:
            docs.append(_big_document(i, big_pages, images, seed))
            continue
        if i in vlm_at:
            pdf = PdfBuilder()
            pages = rng.randint(1, 3)
            for page in range(pages):
                jpeg = scanned(images[rng.randrange(len(images))], seed=seed + i * 100 + page)
                pdf.add_page([PdfBuilder.text(290, 810, 8, str(page + 1))], jpeg=jpeg)
            options = {**OPTIONS, "engine": "vlm"}
            docs.append(
                Doc(f"vlm-{i:04d}.pdf", pdf.build(), pages, pages, options=options, scan_at=frozenset(range(pages)))
            )
            continue
        if rng.random() < 0.06:  # a photographed page: one JPEG, all OCR
            jpeg = scanned(images[i % len(images)], seed=seed * 1000 + i)
            docs.append(Doc(f"scan-{i:04d}.jpg", jpeg, 1, 1, scan_at=frozenset({0})))
            continue
        pages = min(max_pages, 1 + int(rng.paretovariate(1.1)) - 1 + rng.randrange(3))
        if rng.random() < 0.12:
            pages = rng.randint(max(1, max_pages // 2), max_pages)  # some long ones
        pdf = PdfBuilder()
        scans: set[int] = set()
        for page in range(pages):
            if rng.random() < scan_share:
                jpeg = scanned(images[rng.randrange(len(images))], seed=seed + i * 100 + page)
                pdf.add_page([PdfBuilder.text(290, 810, 8, str(page + 1))], jpeg=jpeg)
                scans.add(page)
            else:
                pdf.add_page(_text_page_ops(i, page))
        docs.append(Doc(f"doc-{i:04d}.pdf", pdf.build(), pages, len(scans), scan_at=frozenset(scans)))
    return docs


def _big_document(i: int, pages: int, images: list[Image.Image], seed: int) -> Doc:
    """A long document: a worker killed while reading it must lose at most the page in progress."""
    pdf = PdfBuilder()
    scans = set(range(7, pages, 50))
    for page in range(pages):
        if page in scans:
            jpeg = scanned(images[page % len(images)], seed=seed + i * 100 + page)
            pdf.add_page([PdfBuilder.text(290, 810, 8, str(page + 1))], jpeg=jpeg)
        else:
            pdf.add_page(_text_page_ops(i, page))
    return Doc(f"big-{i:04d}.pdf", pdf.build(), pages, len(scans), scan_at=frozenset(scans))


def _bad_document(i: int, what: str) -> Doc:
    if what == "truncated":
        pdf = PdfBuilder()
        pdf.add_page(_text_page_ops(i, 0))
        return Doc(f"bad-{i:04d}-truncated.pdf", pdf.build()[:300], 1, 0, "truncated")
    if what == "encrypted":
        return Doc(f"bad-{i:04d}-encrypted.pdf", _encrypted(), 1, 0, "encrypt")
    buf = io.BytesIO()
    Image.new("1", (20000, 20000), 1).save(buf, "PNG")
    return Doc(f"bad-{i:04d}-bomb.png", buf.getvalue(), 1, 0, "pixels")


def _configure_vlm(base_url: str | None) -> None:
    if base_url:
        configure_vlm(VlmConfig(base_url=base_url))


def clean_result(data: bytes, raw_options: dict[str, Any]) -> dict[str, Any] | str:
    """The result of a clean local run (what `ocrqueue convert` computes) without its measured stage
    timings, or the error message."""
    options = ProcessOptions.from_dict(raw_options)
    try:
        with open_document(data, DocumentLimits()) as document:
            pages = [process_page(page, options) for page in document.pages()]
            return without_timings(assemble(document.meta, pages).to_dict())
    except DocumentError as exc:
        return f"{type(exc).__name__}: {exc}"


# --- processes --------------------------------------------------------------------------------------


def wait_until(condition: Callable[[], Any], timeout: float, interval: float = 0.05) -> float | None:
    """Seconds until `condition()` was truthy, or None after `timeout` (never raises)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        with contextlib.suppress(Exception):
            if condition():
                return time.monotonic() - t0
        time.sleep(interval)
    return None


@dataclass
class Fault:
    action: str
    target: str
    at: float  # seconds since the run started
    running_tasks: int = 0  # tasks the victim held
    ocr_in_flight: int = 0  # running tasks (anywhere) whose current page is a scan being OCR'd
    recovery: float | None = None  # seconds until its tasks ran elsewhere (or the service answered again)
    note: str = ""


@dataclass
class Report:
    backend: str
    documents: int
    pages: int
    scanned_pages: int
    vlm_documents: int = 0
    seconds: float = 0.0
    faults: list[Fault] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    rejected_writes: int = 0
    expired_leases: int = 0
    retries: int = 0
    reclaims: int = 0
    submit_retries: int = 0
    problems: list[str] = field(default_factory=list)

    def count(self, action: str) -> int:
        return sum(1 for f in self.faults if f.action == action)

    def table(self) -> str:
        rows = [
            ("backend", self.backend),
            ("documents / pages / scanned pages", f"{self.documents} / {self.pages} / {self.scanned_pages}"),
            ("final statuses", ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()))),
            ("wall time", f"{self.seconds:.0f} s"),
            ("worker kills (SIGKILL)", str(self.count("kill worker"))),
            ("API / serve kills (SIGKILL)", str(self.count("kill api") + self.count("kill serve"))),
            ("worker pauses past the lease (SIGSTOP)", str(self.count("pause worker"))),
            ("PostgreSQL restarts", str(self.count("restart postgresql"))),
            ("process restarts", str(sum(1 for f in self.faults if f.action.startswith("kill")))),
            (
                "model server faults (503 bursts / stalls)",
                f"{self.count('model server 503s')} / "
                f"{self.count('model server stall')}; vlm documents: {self.vlm_documents}",
            ),
            ("expired leases (lease_lost: lease expired)", str(self.expired_leases)),
            ("rejected zombie writes (lease_lost: write rejected)", str(self.rejected_writes)),
            ("retries (retried events) / re-claims (token > 1)", f"{self.retries} / {self.reclaims}"),
            ("submits retried by the client", str(self.submit_retries)),
            ("problems", str(len(self.problems))),
        ]
        width = max(len(r[0]) for r in rows)
        lines = [f"chaos run on {self.backend}", "-" * (width + 30)]
        lines += [f"{k.ljust(width)}  {v}" for k, v in rows]
        lines += [
            "",
            "fault log (t: seconds into the run; tasks: running tasks the victim held; ocr: tasks anywhere",
            "OCR-ing a scanned page at that moment; recovery: fault -> the victim's tasks running elsewhere)",
        ]
        lines.append(f"{'t':>6}  {'action':<20} {'target':<10} {'tasks':>5} {'ocr':>3} {'recovery':>9}  note")
        for f in self.faults:
            rec = f"{f.recovery:.1f} s" if f.recovery is not None else "-"
            head = f"{f.at:6.1f}  {f.action:<20} {f.target:<10} {f.running_tasks:>5} {f.ocr_in_flight:>3}"
            lines.append(f"{head} {rec:>9}  {f.note}")
        recoveries = [f.recovery for f in self.faults if f.recovery is not None and f.running_tasks]
        if recoveries:
            mean = sum(recoveries) / len(recoveries)
            lines.append(f"recovery of a victim's tasks: max {max(recoveries):.1f} s, mean {mean:.1f} s")
        for problem in self.problems[:30]:
            lines.append(f"PROBLEM: {problem}")
        return "\n".join(lines)

    def to_json(self) -> str:
        out = {k: v for k, v in self.__dict__.items() if k != "faults"}
        out["faults"] = [f.__dict__ for f in self.faults]
        return json.dumps(out)


# --- the run ----------------------------------------------------------------------------------------


class ChaosRun:
    """One chaos run. `api_role` is "serve --no-workers" plus `workers` worker processes
    (PostgreSQL), or one `serve` with embedded workers and no separate workers (SQLite)."""

    def __init__(
        self,
        workdir: Path,
        db_url: str,
        store: Store,
        docs: list[Doc],
        *,
        workers: int,
        worker_slots: int = 2,
        embedded_slots: int = 0,
        cluster: Cluster | None = None,
        seed: int = 1,
        submit_interval: float = 0.05,
        standin: StandIn | None = None,
        ocr_wait: float = 3.0,
    ) -> None:
        self.workdir = workdir
        self.db_url = db_url
        self.store = store
        self.docs = docs
        self.worker_count = workers
        self.worker_slots = worker_slots
        self.embedded_slots = embedded_slots
        self.cluster = cluster
        self.rng = random.Random(seed)
        self.submit_interval = submit_interval
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.standin = standin
        self.ocr_wait = ocr_wait
        env = dict(CHAOS_ENV)
        if standin is not None:
            env |= {
                "OCRQUEUE_VLM_BASE_URL": standin.base_url,
                "OCRQUEUE_VLM_TIMEOUT_SECONDS": "5",
                "OCRQUEUE_VLM_BREAKER_COOLDOWN_SECONDS": "3",
            }
        self.processes = Processes(workdir, db_url, env)
        self.api: WorkerProcess | None = None
        self.workers: list[WorkerProcess] = []
        self.task_ids: dict[str, str] = {}  # doc name -> task id
        self.submit_retries = 0
        self.submit_errors: list[str] = []
        self.t0 = time.monotonic()
        backend = parse_database_url(db_url).backend
        self.report = Report(backend, len(docs), sum(d.pages for d in docs), sum(d.scanned_pages for d in docs))
        self.report.vlm_documents = sum(1 for d in docs if d.options.get("engine") == "vlm")
        self._names = 0

    # processes

    def _start_api(self) -> WorkerProcess:
        self._names += 1
        args = ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        args += ["--workers", str(self.embedded_slots)] if self.embedded_slots else ["--no-workers"]
        self.api = self.processes.start(args, name=f"api-{self._names}")
        return self.api

    def _start_worker(self) -> WorkerProcess:
        worker = self.processes.start_worker(self.worker_slots, test_kinds=False)  # OCR only, as deployed
        self.workers.append(worker)
        return worker

    def _ready(self) -> bool:
        return httpx.get(f"{self.base}/readyz", timeout=2).status_code == 200

    def _now(self) -> float:
        return time.monotonic() - self.t0

    # submitting

    def _submit_all(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as client:
            for doc in self.docs:
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    try:
                        response = client.post(
                            "/api/v1/tasks",
                            files={"file": (doc.name, doc.data)},
                            data={"options": json.dumps(doc.options)},
                        )
                    except httpx.HTTPError:
                        self.submit_retries += 1
                        time.sleep(0.2)
                        continue
                    if response.status_code >= 500:
                        self.submit_retries += 1
                        time.sleep(0.2)
                        continue
                    if response.status_code not in (200, 202):
                        self.submit_errors.append(f"{doc.name}: {response.status_code} {response.text[:200]}")
                    else:
                        self.task_ids[doc.name] = response.json()["id"]
                    break
                else:
                    self.submit_errors.append(f"{doc.name}: gave up after 120 s of failed submits")
                time.sleep(self.submit_interval)

    # what is running where

    def _pid_of_worker(self) -> dict[str, int]:
        return {w.id: w.pid for w in self.store.workers(live_only=False)}

    def _running_by_pid(self) -> dict[int, list[str]]:
        pids = self._pid_of_worker()
        held: dict[int, list[str]] = {}
        page = self.store.list_tasks(statuses=[TaskStatus.RUNNING], limit=1000)
        for task in page.tasks:
            if task.worker_id in pids:
                held.setdefault(pids[task.worker_id], []).append(task.id)
        return held

    def _victim(self, candidates: list[WorkerProcess], timeout: float = 15) -> tuple[WorkerProcess, list[str]] | None:
        """A live candidate that holds running tasks right now (preferably with OCR going on)."""
        found: list[tuple[WorkerProcess, list[str]]] = []

        def look() -> bool:
            held = self._running_by_pid()
            found[:] = [(p, held[p.pid]) for p in candidates if p.alive and held.get(p.pid)]
            return bool(found)

        if wait_until(look, timeout, 0.02) is None:
            return None
        ocr = self._ocr_tasks()
        busy = [(p, held) for p, held in found if ocr & set(held)]
        return self.rng.choice(busy or found)

    def _moved(self, task_ids: list[str], old_worker_ids: set[str]) -> bool:
        for task_id in task_ids:
            task = self.store.get(task_id)
            if task is None:
                continue
            if task.status.terminal:
                continue
            if task.status is not TaskStatus.RUNNING or task.worker_id in old_worker_ids:
                return False
        return True

    def _worker_ids_of(self, pid: int) -> set[str]:
        return {w for w, p in self._pid_of_worker().items() if p == pid}

    # faults

    def kill_worker(self) -> None:
        chosen = self._victim([w for w in self.workers if w.alive])
        if chosen is None:
            self.report.faults.append(Fault("kill worker", "-", self._now(), note="no worker held a task"))
            return
        victim, _ = chosen
        ids = self._worker_ids_of(victim.pid)
        victim.kill()
        fault = Fault("kill worker", victim.name, self._now())
        held = [t for t in self._running_by_pid().get(victim.pid, [])]
        fault.running_tasks = len(held)
        # A supervisor restarts it a moment later; the others take its tasks once their leases expire
        # (or the restarted worker's start-up recovery hands them back at once).
        time.sleep(self.rng.uniform(0.5, 3.0))
        self.workers.remove(victim)
        replacement = self._start_worker()
        fault.note = f"restarted as {replacement.name}"
        recovered = wait_until(lambda: self._moved(held, ids), 60)
        fault.recovery = None if recovered is None else self._now() - fault.at
        self.report.faults.append(fault)

    def pause_worker(self) -> None:
        chosen = self._victim([w for w in self.workers if w.alive])
        if chosen is None:
            self.report.faults.append(Fault("pause worker", "-", self._now(), note="no worker held a task"))
            return
        victim, _ = chosen
        ids = self._worker_ids_of(victim.pid)
        victim.pause()
        fault = Fault("pause worker", victim.name, self._now())
        held = self._running_by_pid().get(victim.pid, [])
        fault.running_tasks = len(held)
        recovered = wait_until(lambda: self._moved(held, ids), 60)
        fault.recovery = None if recovered is None else self._now() - fault.at
        time.sleep(self.rng.uniform(0.5, 2.0))  # stay frozen a little past the takeover
        victim.resume()
        fault.note = f"resumed after {self._now() - fault.at:.1f} s"
        self.report.faults.append(fault)

    def kill_api(self, action: str = "kill api") -> None:
        assert self.api is not None
        victim = self.api
        family = _process_family(victim.pid)  # serve runs its workers as child processes
        by_pid = self._running_by_pid()
        held = [t for pid in family for t in by_pid.get(pid, [])] if self.embedded_slots else []
        ids = {w for pid in family for w in self._worker_ids_of(pid)}
        victim.kill()
        fault = Fault(action, victim.name, self._now(), running_tasks=len(held))
        time.sleep(self.rng.uniform(0.5, 2.5))
        replacement = self._start_api()
        up = wait_until(self._ready, 60)
        fault.note = f"restarted as {replacement.name}; answering after {self._now() - fault.at:.1f} s"
        if held:
            recovered = wait_until(lambda: self._moved(held, ids), 60)
            fault.recovery = None if recovered is None else self._now() - fault.at
        elif up is not None:
            fault.recovery = self._now() - fault.at
        self.report.faults.append(fault)

    def _vlm_running(self) -> int:
        vlm = {self.task_ids.get(d.name) for d in self.docs if d.options.get("engine") == "vlm"}
        running = self.store.list_tasks(statuses=[TaskStatus.RUNNING], limit=1000).tasks
        return sum(1 for t in running if t.id in vlm)

    def model_errors(self) -> None:
        standin = self.standin
        assert standin is not None
        wait_until(self._vlm_running, 3 * self.ocr_wait, 0.05)
        fault = Fault("model server 503s", "stand-in", self._now(), running_tasks=self._vlm_running())
        before = standin.completions
        standin.fail_next(BURST, 503)
        wait_until(lambda: standin.completions >= before + BURST, 5 * self.ocr_wait, 0.05)
        standin.recover()  # drops whatever failures were not asked for
        fault.note = f"{min(BURST, standin.completions - before)} model requests answered 503"
        self.report.faults.append(fault)

    def model_stall(self) -> None:
        standin = self.standin
        assert standin is not None
        wait_until(self._vlm_running, 3 * self.ocr_wait, 0.05)
        fault = Fault("model server stall", "stand-in", self._now(), running_tasks=self._vlm_running())
        before = standin.completions
        standin.stall(30)
        time.sleep(8)  # past the client's 5 s read timeout
        standin.recover()
        fault.note = f"answers held for 8 s (client timeout 5 s): {standin.completions - before} requests"
        self.report.faults.append(fault)

    def restart_postgresql(self) -> None:
        assert self.cluster is not None
        fault = Fault("restart postgresql", "cluster", self._now())
        fault.running_tasks = sum(len(v) for v in self._running_by_pid().values())
        self.cluster.stop()
        time.sleep(self.rng.uniform(1.0, 3.0))
        self.cluster.start()
        down = self._now() - fault.at
        before = self._progress()
        recovered = wait_until(lambda: self._progress() != before, 90, 0.05)
        fault.recovery = None if recovered is None else self._now() - fault.at
        fault.note = f"down {down:.1f} s; recovery = stop -> first page or task finished after the start"
        self.report.faults.append(fault)

    # progress

    def _ocr_tasks(self) -> set[str]:
        """Running tasks whose current page is a scan (being OCR'd right now)."""
        by_id = {task_id: name for name, task_id in self.task_ids.items()}
        docs = {d.name: d for d in self.docs}
        found: set[str] = set()
        with contextlib.suppress(Exception):
            for task in self.store.list_tasks(statuses=[TaskStatus.RUNNING], limit=1000).tasks:
                doc = docs.get(by_id.get(task.id, ""))
                if doc is not None and task.progress_done in doc.scan_at:
                    found.add(task.id)
        return found

    def _ocr_in_flight(self) -> int:
        return len(self._ocr_tasks())

    def _terminal(self) -> int:
        """Submitted documents that have ended. Not `counts_by_status`: that counts a big document's
        page-range children too, which ended the drain while a parent still waited for its last child."""
        return sum(1 for task in self.store.get_many(list(self.task_ids.values())) if task.status.terminal)

    def _progress(self) -> tuple[int, int]:
        running = self.store.list_tasks(statuses=[TaskStatus.RUNNING], limit=1000).tasks
        return self._terminal(), sum(t.progress_done for t in running)

    def _wait_fraction(self, fraction: float, timeout: float) -> None:
        wanted = int(fraction * len(self.docs))
        wait_until(lambda: self._terminal() >= wanted, timeout, 0.1)

    # the whole thing

    def run(self, schedule: Sequence[tuple[float, str]], drain_timeout: float) -> Report:
        """`schedule`: (fraction of documents finished, action) pairs, in order."""
        self.t0 = time.monotonic()
        try:
            self._start_api()
            for _ in range(self.worker_count):
                self._start_worker()
            if wait_until(self._ready, 60) is None:
                raise AssertionError(f"the API did not come up:\n{self.processes.logs()}")
            submitter = threading.Thread(target=self._submit_all, daemon=True)
            submitter.start()
            actions: dict[str, Callable[[], None]] = {
                "kill worker": self.kill_worker,
                "pause worker": self.pause_worker,
                "kill api": self.kill_api,
                "kill serve": lambda: self.kill_api("kill serve"),
                "restart postgresql": self.restart_postgresql,
                "model server 503s": self.model_errors,
                "model server stall": self.model_stall,
            }
            for fraction, action in schedule:
                if action in ("kill api", "kill serve") and not any(f.action == action for f in self.report.faults):
                    # the first API kill comes while documents are still being submitted
                    wait_until(lambda: len(self.task_ids) >= len(self.docs) // 3, drain_timeout)
                else:
                    self._wait_fraction(fraction, drain_timeout)
                # Strike while a scanned page is being OCR'd, if that happens within a few seconds.
                wait_until(self._ocr_in_flight, self.ocr_wait, 0.05)
                ocr = self._ocr_in_flight()
                actions[action]()
                self.report.faults[-1].ocr_in_flight = ocr
            submitter.join(timeout=drain_timeout)
            finished = wait_until(lambda: self._terminal() >= len(self.docs), drain_timeout, 0.2)
            self.report.seconds = self._now()
            if finished is None:
                self.report.problems.append(f"not every task finished within {drain_timeout} s: {self._statuses()}")
            self.check()
        finally:
            logs = self.processes.logs()
            self.processes.close()
            (self.workdir / "all-logs.txt").write_text(logs)
        return self.report

    def _statuses(self) -> dict[str, int]:
        return {str(s): n for s, n in self.store.counts_by_status().items() if n}

    # checks

    def check(self) -> None:
        report = self.report
        report.problems += self.submit_errors
        report.submit_retries = self.submit_retries
        report.statuses = self._statuses()
        if len(self.task_ids) != len(self.docs):
            report.problems.append(f"{len(self.docs) - len(self.task_ids)} documents were never submitted")
        submitted = list(self.task_ids.values())
        child_tasks = [child for task_id in submitted for child in self.store.children(task_id)]
        children = [child.id for child in child_tasks]
        for child in child_tasks:
            if not child.status.terminal:
                report.problems.append(f"child {child.id} of {child.parent_id} is still {child.status}")
        total = sum(report.statuses.values()) - len(children)  # a big document's page-range children
        if total != len(self.docs):
            report.problems.append(f"{total} tasks for {len(self.docs)} unique documents (a submit was doubled)")
        ids = submitted + children
        for tid, problems in history_problems(self.store, ids).items():
            report.problems += [f"{tid}: {p}" for p in problems]
        expected = self._clean_results()
        with httpx.Client(base_url=self.base, timeout=30) as client:
            for doc in self.docs:
                task_id = self.task_ids.get(doc.name)
                if task_id is None:
                    continue
                self._check_task(client, doc, task_id, expected[doc.name])
        report.rejected_writes = report.expired_leases = report.retries = report.reclaims = 0
        checkpoint_rows = self._checkpoint_rows()
        for task_id in ids:
            events = self.store.events(task_id)
            for event in events:
                if event.type is EventType.LEASE_LOST:
                    reason = event.detail.get("reason")
                    report.rejected_writes += reason == "write rejected"
                    report.expired_leases += reason == "lease expired"
                report.retries += event.type is EventType.RETRIED
                report.reclaims += event.type is EventType.CLAIMED and event.lease_token > 1
            report.problems += checkpoint_problems(task_id, events, checkpoint_rows.get(task_id, []))

    def _clean_results(self) -> dict[str, dict[str, Any] | str]:
        if self.standin is not None:
            self.standin.recover()
        base_url = self.standin.base_url if self.standin is not None else None
        with ProcessPoolExecutor(2, initializer=_configure_vlm, initargs=(base_url,)) as pool:
            results = pool.map(clean_result, [d.data for d in self.docs], [d.options for d in self.docs])
            return dict(zip([d.name for d in self.docs], results, strict=True))

    def _check_task(self, client: httpx.Client, doc: Doc, task_id: str, expected: dict[str, Any] | str) -> None:
        problems = self.report.problems
        body = client.get(f"/api/v1/tasks/{task_id}").json()
        if doc.bad:
            error = body.get("error") or {}
            message = json.dumps(error).lower()
            if body["status"] != "dead_letter" or doc.bad not in message:
                problems.append(
                    f"{doc.name}: expected dead_letter mentioning {doc.bad!r}, got {body['status']} {error}"
                )
            elif body["attempts"] != 1:
                problems.append(f"{doc.name}: a permanent error took {body['attempts']} attempts")
            if not isinstance(expected, str):
                problems.append(f"{doc.name}: the clean run did not fail")
            return
        if body["status"] != "completed":
            problems.append(f"{doc.name}: {body['status']} {body.get('error')}")
            return
        result = without_timings(client.get(f"/api/v1/tasks/{task_id}/result", params={"format": "json"}).json())
        if result != expected:
            problems.append(f"{doc.name}: the result differs from a clean run ({_first_difference(result, expected)})")
        # A big document's pages are read and checkpointed by its page-range children.
        readers = [task_id] + [child.id for child in self.store.children(task_id)]
        seqs = sorted(c.seq for reader in readers for c in self.store.checkpoints(reader))
        if seqs != list(range(doc.pages)):
            problems.append(f"{doc.name}: checkpoints {seqs} for {doc.pages} pages")

    def _checkpoint_rows(self) -> dict[str, list[tuple[int, int, datetime]]]:
        """task id -> (seq, lease_token, created_at by the database clock) for every checkpoint."""
        query = "SELECT task_id, seq, lease_token, created_at FROM ocrq_checkpoints"
        url = parse_database_url(self.db_url)
        rows: list[tuple[Any, ...]]
        if url.backend == "postgresql":
            with psycopg.connect(url.libpq) as conn:
                rows = list(conn.execute(query).fetchall())
        else:
            lite = sqlite3.connect(url.sqlite_path or "", timeout=30)
            try:
                rows = lite.execute(query).fetchall()
            finally:
                lite.close()
        found: dict[str, list[tuple[int, int, datetime]]] = {}
        for task_id, seq, token, created in rows:
            at = to_datetime(created)
            assert at is not None
            found.setdefault(task_id, []).append((seq, token, at))
        return found


def checkpoint_problems(task_id: str, events: list[Event], rows: list[tuple[int, int, datetime]]) -> list[str]:
    """Each checkpoint's lease token was claimed, and the checkpoint was written (database clock)
    after that claim and no later than the end of that lease (the next claim at the latest)."""
    claims = {e.lease_token: e for e in events if e.type is EventType.CLAIMED}
    ends: dict[int, Event] = {}
    for event in events:
        is_end = event.type in _LEASE_ENDS or (
            event.type is EventType.LEASE_LOST and event.detail.get("reason") == "lease expired"
        )
        if is_end and event.lease_token not in ends:
            ends[event.lease_token] = event
    problems = []
    for seq, token, at in rows:
        claim = claims.get(token)
        if claim is None:
            problems.append(f"{task_id}: checkpoint {seq} carries token {token}, which was never claimed")
            continue
        end = ends.get(token)
        later = claims.get(token + 1)
        if at < claim.at:
            problems.append(f"{task_id}: checkpoint {seq} (token {token}) written before its claim")
        if end is not None and at > end.at:
            problems.append(f"{task_id}: checkpoint {seq} (token {token}) written after that lease ended ({end.type})")
        if later is not None and at > later.at:
            problems.append(f"{task_id}: checkpoint {seq} (token {token}) written after token {token + 1} was claimed")
    return problems


def _first_difference(got: Any, want: Any, path: str = "$") -> str:
    if type(got) is not type(want):
        return f"{path}: {type(got).__name__} vs {type(want).__name__}"
    if isinstance(got, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want:
                return f"{path}.{key} missing on one side"
            if got[key] != want[key]:
                return _first_difference(got[key], want[key], f"{path}.{key}")
    if isinstance(got, list):
        if len(got) != len(want):
            return f"{path}: {len(got)} vs {len(want)} items"
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}[{i}]")
    return f"{path}: {str(got)[:80]!r} vs {str(want)[:80]!r}"


def seeded_schedule(
    seed: int, counts: dict[str, int], start: float = 0.05, end: float = 0.6
) -> list[tuple[float, str]]:
    """`counts` actions in a seeded order, at evenly spread fractions of the documents finished; one
    API kill (if any) goes first, so that it lands while documents are still being submitted."""
    rng = random.Random(seed)
    actions = [action for action, n in counts.items() for _ in range(n)]
    rng.shuffle(actions)
    first = next((a for a in actions if a in ("kill api", "kill serve")), None)
    if first is not None:
        actions.remove(first)
        actions.insert(0, first)
    step = (end - start) / max(1, len(actions) - 1)
    return [(round(start + i * step, 3), action) for i, action in enumerate(actions)]
