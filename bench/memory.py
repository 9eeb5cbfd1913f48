"""Peak memory of big documents through `ocrqueue convert` and through an `ocrqueue worker` process.

    .venv/bin/python bench/memory.py                       # 1,000 and 5,000 text-layer pages, 300 scanned
    .venv/bin/python bench/memory.py --text 1000 --scanned 50   # shorter

Each run is a fresh process (tests/support/rss.py): `convert` through its real command line, a
worker as a real `ocrqueue worker -c 1` on a fresh SQLite queue. Its peak resident memory
(VmHWM) is read after page 50 and at the end; `growth_mb` is the difference, which must stay under
50 MB (memory flat in the page count). Targets: peak under 400 MB for text-layer documents, under
800 MB for the scan (Tesseract with its Latin script model, and the layout model, loaded).

Prints a table, then one JSON line per run and a last JSON line with every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/queue.py would shadow the standard library's queue module: drop this script's folder.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "data")]

from generate import ENGLISH, born_digital_pdf, scanned_pdf, text_page  # noqa: E402
from support.rss import MemoryRun, convert_memory, worker_memory  # noqa: E402

TEXT_BOUND_MB = 400
SCAN_BOUND_MB = 600
FLAT_MB = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default="1000,5000", help="text-layer page counts, comma-separated")
    parser.add_argument("--scanned", type=int, default=300, help="scanned pages (0: none)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    runs: list[tuple[str, MemoryRun, int]] = []
    with tempfile.TemporaryDirectory(prefix="ocrqueue-memory-") as scratch:
        work = Path(scratch)
        documents: list[tuple[str, Path, dict[str, object], int]] = []
        for count in (int(n) for n in args.text.split(",") if n):
            path = work / f"text-{count}.pdf"
            path.write_bytes(born_digital_pdf(count))
            documents.append((f"{count} text-layer pages", path, {"mode": "text"}, TEXT_BOUND_MB))
        if args.scanned:
            path = work / f"scan-{args.scanned}.pdf"
            path.write_bytes(scanned_pdf(text_page(ENGLISH, cjk=False), pages=args.scanned))
            documents.append((f"{args.scanned} scanned pages", path, {"mode": "ocr"}, SCAN_BOUND_MB))
        for label, path, options, bound in documents:
            mode = ["--mode", str(options["mode"])]
            converted = convert_memory(path, work / f"out-{path.stem}", env, *mode)
            runs.append((label, converted, bound))
            print(json.dumps({"document": label, **converted.to_dict()}), flush=True)
            worked = worker_memory(path, work / f"worker-{path.stem}", env, options)
            runs.append((label, worked, bound))
            print(json.dumps({"document": label, **worked.to_dict()}), flush=True)
    print()
    print(f"{'document':<24} {'through':<8} {'pages':>6} {'peak@50 MB':>11} {'peak MB':>8} {'growth':>7} {'s':>7}  ok")
    for label, run, bound in runs:
        ok = run.peak_mb < bound and run.growth_mb < FLAT_MB
        print(
            f"{label:<24} {run.how:<8} {run.pages:>6} {run.peak_at_50_mb:>11.0f} {run.peak_mb:>8.0f} "
            f"{run.growth_mb:>7.1f} {run.seconds:>7.1f}  {'yes' if ok else 'NO'}"
        )
    print(json.dumps({"runs": [{"document": label, **run.to_dict()} for label, run, _ in runs]}))


if __name__ == "__main__":
    main()
