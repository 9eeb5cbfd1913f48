"""OCRmyPDF's own test files (its sdist's tests/resources: skewed, rotated, JBIG2, CCITT, masks,
a 25x50-inch poster, fonts without Unicode maps, hOCR and other non-inputs) all go through
`ocrqueue convert`: each gives a result or a clear DocumentError message, never a crash.

The sdist is fetched with pip (cached in OCRQUEUE_CORPUS_CACHE, default ~/.cache/ocrqueue). The
quick files run in `make test`; `make corpus` (OCRQUEUE_CORPUS=full) runs every file.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

OCRMYPDF_VERSION = "17.13.0"  # pinned: the file list and expectations below are this release's
SLOW_FILES = {  # more than about two seconds each on a 2-core machine
    "aspect.pdf",
    "baiona.png",
    "baiona_gray.png",
    "c03-29.pdf",
    "cardinal.pdf",
    "ccitt.pdf",
    "enormous.pdf",
    "epson.pdf",
    "graph_ocred.pdf",
    "jbig2.pdf",
    "jbig2_baddevicen.pdf",
    "kcs.pdf",
    "lichtenstein.pdf",
    "linn.pdf",
    "linn.png",
    "masks.pdf",
    "multipage.pdf",
    "palette.pdf",
    "poster.pdf",
    "rotated_skew.pdf",
    "skew.pdf",
    "typewriter.png",
    "vector.pdf",
    "3small.pdf",
}
# Files no reader can turn into pages, and words the error for each must hold.
EXPECTED_ERRORS = {
    "README.rst": "unsupported file type",
    "linn.txt": "unsupported file type",
    "arabic.hocr": "unsupported file type",
    "cjk.hocr": "unsupported file type",
    "devanagari.hocr": "unsupported file type",
    "hello_world_scripts.hocr": "unsupported file type",
    "latin.hocr": "unsupported file type",
    "multilingual.hocr": "unsupported file type",
    "NotoSansCJKjp-Medium-subset.otf": "unsupported file type",
    "tagged.odt": "unsupported file type",
    "invalid.pdf": "damaged or truncated",
    "hugemono.pdf": "too large to render",
}
BATCH = 10  # files per `ocrqueue convert` process: one start-up (imports, engine) for several files
SECONDS_PER_FILE = 150
INVISIBLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")


def corpus() -> Path:
    """tests/resources of the pinned sdist, downloaded once and unpacked next to it (pytest-xdist
    workers take turns on a lock file)."""
    cache = Path(os.environ.get("OCRQUEUE_CORPUS_CACHE", Path.home() / ".cache" / "ocrqueue"))
    folder = cache / f"ocrmypdf-{OCRMYPDF_VERSION}-resources"
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.is_dir():
            _unpack(cache, folder)
    return folder


def _unpack(cache: Path, folder: Path) -> None:
    sdist = cache / f"ocrmypdf-{OCRMYPDF_VERSION}.tar.gz"
    if not sdist.exists():
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "ocrmypdf"]
        subprocess.run([*pip, f"ocrmypdf=={OCRMYPDF_VERSION}", "--dest", str(cache)], check=True, timeout=600)
    partial = cache / f"{folder.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    prefix = f"ocrmypdf-{OCRMYPDF_VERSION}/tests/resources/"
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith(prefix) and m.isfile()]
        for member in members:
            member.name = member.name[len(prefix) :]
        archive.extractall(partial, members=members, filter="data")
    partial.rename(folder)


def _files(full: bool) -> list[Path]:
    files = sorted(p for p in corpus().iterdir() if p.is_file())
    return files if full else [p for p in files if p.name not in SLOW_FILES]


def _batches(files: list[Path]) -> list[list[Path]]:
    """Groups of BATCH files, no two with the same stem (convert writes OUTPUT/<stem>/)."""
    batches: list[list[Path]] = []
    for path in files:
        home = next((b for b in batches if len(b) < BATCH and all(p.stem != path.stem for p in b)), None)
        if home is None:
            batches.append([path])
        else:
            home.append(path)
    return batches


def _convert(batch: list[Path], out: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCRQUEUE_")}
    env.update(COLUMNS="400", OCRQUEUE_DATA_DIR=str(out / "data"), PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-m", "ocrqueue", "convert", *map(str, batch), "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=SECONDS_PER_FILE * len(batch),
        check=False,
    )


def _check(batch: list[Path], out: Path, done: subprocess.CompletedProcess[str]) -> list[str]:
    """What went wrong for the files of one batch (nothing when each gave a result or its error)."""
    problems = []
    output = done.stdout + done.stderr
    if "Traceback" in output:
        problems.append(f"crash in {[p.name for p in batch]}:\n{output[-3000:]}")
    for path in batch:
        result = out / path.stem / f"{path.stem}.json"
        if path.name in EXPECTED_ERRORS:
            if not re.search(rf"{re.escape(path.name)}: [^\n]*{EXPECTED_ERRORS[path.name]}", output):
                problems.append(f"{path.name}: no clear error ({EXPECTED_ERRORS[path.name]!r}) in\n{output[-800:]}")
            continue
        if not result.exists():
            problems.append(f"{path.name}: no result; output:\n{output[-800:]}")
            continue
        document = json.loads(result.read_text(encoding="utf-8"))
        markdown = (out / path.stem / f"{path.stem}.md").read_text(encoding="utf-8")
        if len(document["pages"]) != document["document"]["page_count"] or not document["pages"]:
            problems.append(f"{path.name}: {len(document['pages'])} pages for {document['document']['page_count']}")
        if INVISIBLE.search(markdown) or INVISIBLE.search(json.dumps(document, ensure_ascii=False)):
            problems.append(f"{path.name}: control characters in the result")
    return problems


@pytest.mark.slow
@pytest.mark.timeout(SECONDS_PER_FILE * 61)
def test_every_ocrmypdf_test_file_converts_or_fails_clearly(tmp_path: Path) -> None:
    full = os.environ.get("OCRQUEUE_CORPUS") == "full"
    files = _files(full)
    assert len(files) >= (55 if full else 30)  # the sdist still ships its test files
    problems: list[str] = []
    for n, batch in enumerate(_batches(files)):
        out = tmp_path / f"batch{n}"
        problems += _check(batch, out, _convert(batch, out))
    assert not problems, "\n".join(problems)
