"""OCR pipeline benchmark: accuracy and speed per engine and sample set.

    .venv/bin/python bench/ocr.py [--engines tesseract,rapidocr] [--sets clean,scan,text_layer]

Sets (drawn by tests/data/generate.py): ``clean`` rendered pages (English, Chinese, mixed, two
columns, ruled table, table with spans, table without column rules, chart with caption), ``scan``
the first five made to look scanned, ``text_layer`` born-digital PDF pages read without OCR. Each
engine/set runs in its own subprocess so peak RSS is its own.

Prints a table, then one JSON line per engine/set with: engine, set, pages, cer (mean over pages
with known text), table_cell_accuracy, pages_per_s_1 (one worker), pages_per_s_2 (two worker
threads sharing the engine), peak_rss_mb, direct_pages_per_s (the engine alone on whole rendered
pages, or PDFium's text extraction alone for text_layer), overhead (pipeline time / engine-alone
time - 1), cpu_overhead (the same ratio of CPU seconds, all threads), and own_overhead: the
time the pipeline spends outside the engine's calls, less the time the engine-alone run spends
outside them (rendering), over the engine-alone time: the pipeline's own work, apart from how fast
the engine reads the page it is given (a straightened scan can take Tesseract longer than the
tilted original).
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/ holds queue.py (the task-queue benchmark), which would shadow the standard library's
# queue module that concurrent.futures needs: drop this script's folder from the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

from generate import Sample, generate, load_manifest  # noqa: E402
from metrics import cer, page_text, table_cell_accuracy  # noqa: E402
from PIL import Image  # noqa: E402

from ocrqueue.documents import (  # noqa: E402
    EngineOutput,
    OcrEngine,
    PageResult,
    ProcessOptions,
    RecognitionRequest,
    get_engine,
    keep_page_buffers,
    open_document,
    process_page,
)
from ocrqueue.settings import Settings  # noqa: E402

SETS = {
    "clean": ["english", "chinese", "mixed", "two_column", "table", "span_table", "unruled_table", "figure"],
    "scan": ["english_scan", "chinese_scan", "mixed_scan", "two_column_scan", "table_scan"],
    "text_layer": ["born_digital", "long_pdf"],
}
TEXT_LAYER_REPEAT = 10  # text-layer pages are fast: repeat the set to time ~300 pages
ROUNDS = 3
LANGUAGES = ("eng", "chi_sim")


def _process(data: bytes, options: ProcessOptions) -> list[PageResult]:
    with open_document(data) as doc:
        return [process_page(page, options) for page in doc.pages()]


def _peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM). Unlike ru_maxrss it does not carry over the
    parent's peak through fork and exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _timed(fn: Callable[[], int]) -> float:
    return _timed_cpu(fn)[0]


def _combined(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """Pages per second over runs of equal size (harmonic mean), and mean CPU seconds per page."""
    return len(runs) / sum(1 / rate for rate, _ in runs), sum(cpu for _, cpu in runs) / len(runs)


def _timed_cpu(fn: Callable[[], int]) -> tuple[float, float]:
    """Pages per second of wall time, and CPU seconds per page."""
    start, cpu = time.perf_counter(), time.process_time()
    pages = fn()
    return pages / (time.perf_counter() - start), (time.process_time() - cpu) / pages


class _EngineClock:
    """Wall time spent inside the engine's ``recognize`` (wrapped on the shared instance)."""

    def __init__(self, engine: OcrEngine) -> None:
        self.seconds = 0.0
        inner = engine.recognize

        def timed(image: Image.Image, request: RecognitionRequest) -> EngineOutput:
            start = time.perf_counter()
            try:
                return inner(image, request)
            finally:
                self.seconds += time.perf_counter() - start

        setattr(engine, "recognize", timed)  # noqa: B010 (an instance attribute shadows the method)


def _accuracy(
    samples: dict[str, Sample], names: list[str], results: dict[str, list[PageResult]]
) -> tuple[float | None, float | None]:
    cers, tables = [], []
    for name in names:
        sample, first = samples[name], results[name][0]
        if sample.text:
            cers.append(cer("\n".join(sample.text), page_text(first)))
        if sample.table:
            page = next((p for p in results[name] if any(b.table for b in p.blocks)), first)
            tables.append(table_cell_accuracy(sample.table, page))
    mean = lambda xs: round(sum(xs) / len(xs), 4) if xs else None  # noqa: E731
    return mean(cers), mean(tables)


def run_one(engine: str, set_name: str, folder: Path) -> dict[str, object]:
    keep_page_buffers(Settings().page_buffer_keep_mb)  # as `ocrqueue worker` does at start
    samples = load_manifest(folder)
    names = SETS[set_name]
    data = {name: (folder / samples[name].path).read_bytes() for name in names}
    options = ProcessOptions(engine=engine, languages=LANGUAGES, mode="text" if set_name == "text_layer" else "ocr")
    repeat = TEXT_LAYER_REPEAT if set_name == "text_layer" else 1
    results = {name: _process(data[name], options) for name in names}  # warm-up, and accuracy
    with ThreadPoolExecutor(2) as pool:  # warm-up: a second engine instance for the second thread
        list(pool.map(lambda n: _process(data[n], options), names))
    cer_value, table_acc = _accuracy(samples, names, results)
    pages = sum(len(r) for r in results.values()) * repeat

    def pipeline() -> int:
        return sum(len(_process(data[n], options)) for _ in range(repeat) for n in names)

    with ThreadPoolExecutor(2) as pool:
        two = _timed(lambda: sum(pool.map(lambda _: pipeline(), range(2))))

    def direct() -> int:
        count = 0
        for _ in range(repeat):
            for n in names:
                with open_document(data[n]) as doc:
                    for page in doc.pages():
                        if set_name == "text_layer":
                            page.text_layer()
                        else:
                            image = page.render(options.dpi).image
                            get_engine(engine).recognize(image, RecognitionRequest(LANGUAGES, "page", options.dpi))
                        count += 1
        return count

    # The pipeline and the engine alone take turns, ROUNDS times each, so a slow spell of the
    # machine (a shared VM here) falls on both; the rates are over all rounds.
    clock = _EngineClock(get_engine(engine)) if set_name != "text_layer" else None
    one_runs, direct_runs = [], []
    outside = {"pipeline": 0.0, "direct": 0.0}  # seconds spent outside the engine's calls
    for _ in range(ROUNDS):
        for kind, fn, runs in (("pipeline", pipeline, one_runs), ("direct", direct, direct_runs)):
            before = clock.seconds if clock else 0.0
            runs.append(_timed_cpu(fn))
            outside[kind] += pages / runs[-1][0] - ((clock.seconds - before) if clock else 0.0)
    one, one_cpu = _combined(one_runs)
    direct_rate, direct_cpu = _combined(direct_runs)
    direct_seconds = ROUNDS * pages / direct_rate
    own = round((outside["pipeline"] - outside["direct"]) / direct_seconds, 3) if clock else None
    return {
        "engine": "text_layer" if set_name == "text_layer" else engine,
        "set": set_name,
        "pages": pages,
        "cer": cer_value,
        "table_cell_accuracy": table_acc,
        "pages_per_s_1": round(one, 2),
        "pages_per_s_2": round(two, 2),
        "peak_rss_mb": _peak_rss_mb(),
        "direct_pages_per_s": round(direct_rate, 2),
        "overhead": round(direct_rate / one - 1, 3),
        "cpu_overhead": round(one_cpu / direct_cpu - 1, 3),
        "own_overhead": own,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="tesseract,rapidocr")
    parser.add_argument("--sets", default="clean,scan,text_layer")
    parser.add_argument("--one", nargs=3, metavar=("ENGINE", "SET", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], args.one[1], Path(args.one[2]))))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        jobs = [(e, s) for s in args.sets.split(",") for e in args.engines.split(",") if s != "text_layer"]
        if "text_layer" in args.sets.split(","):
            jobs.append(("tesseract", "text_layer"))
        for engine, set_name in jobs:
            out = subprocess.run(
                [sys.executable, __file__, "--one", engine, set_name, tmp], capture_output=True, text=True, check=False
            )
            if out.returncode != 0:
                print(f"{engine}/{set_name} failed:\n{out.stderr[-2000:]}", file=sys.stderr)
                continue
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = list(rows[0]) if rows else []
    print(" | ".join(keys))
    print(" | ".join("---" for _ in keys))
    for row in rows:
        print(" | ".join("" if row[k] is None else str(row[k]) for k in keys))
    print()
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
