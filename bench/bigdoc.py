"""Time to result for one big scanned PDF with one worker process against several.

    .venv/bin/python bench/bigdoc.py                  # 200 scanned pages, 1 worker process vs 2, SQLite
    .venv/bin/python bench/bigdoc.py --pages 40 --workers 2

Each run: a fresh SQLite queue and storage in a temporary directory, the document submitted once
(OCR mode), then `--workers` real `ocrqueue worker --concurrency 1` processes started together; the
time is from their start to the task's completion. `peak_rss_mb` is the largest peak (VmHWM) of any
worker process. A document of more than `--split-pages` pages (the `split_pages` setting, 16 by
default) is read by page-range child tasks that every worker process claims; `--split-pages 0`
measures one task reading the whole document (the baseline before fan-out).

"W worker processes on W free cores": by default worker process i is pinned to core i (its affinity
mask), so one worker process has one core and W have W, as on W machines of one core each; its engines
then run one thread each (documents/engines/cpus.py). `--no-pin` lets every worker process use every core: the
one-process run then already uses more than one core (Tesseract's OpenMP threads and the layout model
beside the engine), so the speed-up measures less than the spread of the work.

Prints a table, then one JSON line (last) with pages, workers, seconds_one, seconds_many, speedup,
peak_rss_mb and the machine's 1-minute load before and after.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/queue.py would shadow the standard library's queue module: drop this script's folder.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "data")]

from generate import ENGLISH, scanned_pdf, text_page  # noqa: E402
from support.rss import peak_rss_mb  # noqa: E402

from ocrqueue.documents import ProcessOptions  # noqa: E402
from ocrqueue.queue import TaskStatus, open_store  # noqa: E402
from ocrqueue.service.schema import upgrade_all  # noqa: E402
from ocrqueue.service.submission import Submission, submit_document  # noqa: E402
from ocrqueue.settings import Settings  # noqa: E402
from ocrqueue.storage import LocalStorage  # noqa: E402


def _pinned_to(core: int) -> Callable[[], None]:
    return lambda: os.sched_setaffinity(0, {core})


def time_to_result(
    document: Path, workers: int, work: Path, env: dict[str, str], cores: list[int] | None
) -> tuple[float, float]:
    """Seconds from starting `workers` worker processes to the document's result, and their peak RSS;
    worker process i runs on `cores[i]` alone when cores are given."""
    data = work / f"run-{workers}"
    data.mkdir()
    settings = Settings(data_dir=data, database_url=None, storage_dir=None, storage_url=None)
    upgrade_all(settings.resolved_database_url)
    with open_store(settings.resolved_database_url) as store:
        with document.open("rb") as stream:
            submission = Submission(document.name, ProcessOptions(mode="ocr"), force=True)
            submitted = submit_document(store, LocalStorage(settings.resolved_storage_dir), stream, submission, 1 << 40)
        environment = {**env, "OCRQUEUE_DATA_DIR": str(data)}
        logs = [(data / f"worker-{n}.log").open("wb") for n in range(workers)]
        started = time.monotonic()
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "ocrqueue", "worker", "--concurrency", "1"],
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_pinned_to(cores[n]) if cores else None,
            )
            for n, log in enumerate(logs)
        ]
        try:
            while (task := store.get(submitted.task.id)) is not None and not task.status.terminal:
                if any(p.poll() is not None for p in processes):
                    raise SystemExit(f"a worker exited: {(data / 'worker-0.log').read_text()[-2000:]}")
                time.sleep(0.05)
            seconds = time.monotonic() - started
            peak = max(peak_rss_mb(p.pid) for p in processes)
        finally:
            for process in processes:
                process.send_signal(signal.SIGKILL)
                process.wait(30)
            for log in logs:
                log.close()
        if task is None or task.status is not TaskStatus.COMPLETED:
            raise SystemExit(f"the document did not complete: {task}")
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the second run")
    parser.add_argument(
        "--split-pages", type=int, default=Settings().split_pages, help="pages per child task (0: no split)"
    )
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run worker process i on core i alone (default), or let each use every core",
    )
    args = parser.parse_args()
    usable = sorted(os.sched_getaffinity(0))
    if args.pin and args.workers > len(usable):
        raise SystemExit(f"--workers {args.workers} needs as many free cores to pin; this process may use {usable}")
    cores = usable if args.pin else None
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}
    env["OCRQUEUE_SPLIT_PAGES"] = str(args.split_pages)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ocrqueue-bigdoc-") as scratch:
        work = Path(scratch)
        document = work / f"scan-{args.pages}.pdf"
        document.write_bytes(scanned_pdf(text_page(ENGLISH, cjk=False), pages=args.pages))
        one, peak_one = time_to_result(document, 1, work, env, cores)
        many, peak_many = time_to_result(document, args.workers, work, env, cores)
    speedup = one / many
    print(f"{'worker processes':<18} {'pages':>6} {'seconds':>9} {'pages/s':>8} {'peak RSS MB':>12}")
    print(f"{1:<18} {args.pages:>6} {one:>9.1f} {args.pages / one:>8.2f} {peak_one:>12.0f}")
    print(f"{args.workers:<18} {args.pages:>6} {many:>9.1f} {args.pages / many:>8.2f} {peak_many:>12.0f}")
    print(f"speed-up {speedup:.2f} (target {args.workers / 1.3:.2f} with {args.workers} free cores)")
    result = {
        "pages": args.pages,
        "workers": args.workers,
        "split_pages": args.split_pages,
        "pinned": args.pin,
        "seconds_one": round(one, 2),
        "seconds_many": round(many, 2),
        "speedup": round(speedup, 3),
        "peak_rss_mb": round(max(peak_one, peak_many), 1),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
