"""Which documents a new batch of the real-page evaluation takes, by a rule rather than by eye
(issue 21, batch 2 of bench/accuracy/pages.json).

    .venv/bin/python bench/choose_pages_batch.py    # candidates per script, the draw, and whether
                                                    # the manifest's batch is that draw (exit 1 if not)

Every PDF (``.pdf`` or ``.pdf.gz``) in the packages of ``SOURCES`` is a candidate for a script of
``SCRIPTS`` when at least ``MIN_PAGES`` of its pages pass ``sampling.usable`` for that script and
no earlier batch of the manifest holds it. Candidates are taken in order of usable pages (most
first, then by path); one sharing ``MAX_SHARED`` or more of its word 4-grams that hold a letter of
the script with a manifest document from the listed packages or a candidate taken before it is
left out (a translation, a variant or a cut-down copy of the same document would put nearly the
same page in both splits).
Per script a shuffle seeded by ``sampling.SEED`` and the script's name takes ``COUNT`` of the rest
(all when fewer are left).
The drawn documents are printed as manifest entries (``"drawn": 4``, ``"batch": BATCH``) with the
language to fill in; bench/sample_pages.py then draws their pages and splits them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data"))

import gzip  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

import pypdfium2 as pdfium  # noqa: E402
from realpages import MANIFEST  # noqa: E402
from sampling import SEED, in_script, usable  # noqa: E402

SOURCES = {
    "texlive-lang-arabic": "2022.20230122-1",
    "texlive-lang-greek": "2022.20230122-1",
    "texlive-lang-other": "2022.20230122-1",
    "texlive-lang-european": "2022.20230122-1",
    "texlive-lang-korean": "2022.20230122-1",
    "debian-refcard": "12.0",
    "installation-guide-amd64": "20230508+deb12u1",
    "debian-faq-ko": "11.1",
}
SCRIPTS = ("Arabic", "Greek", "Thai", "Armenian", "Hangul")
MIN_PAGES = 4
MAX_SHARED = 0.10
COUNT = 4
BATCH = 2


def page_texts(pdf_path: Path) -> list[str]:
    pdf = pdfium.PdfDocument(pdf_path)
    try:
        return [str(page.get_textpage().get_text_range()) for page in pdf]
    finally:
        pdf.close()


def four_grams(texts: list[str], script: str) -> set[tuple[str, ...]]:
    """The document's word 4-grams that hold a letter of ``script``: two translations of one
    manual share their code examples, not their prose."""
    words = re.findall(r"\w+", " ".join(texts))
    grams = (tuple(words[i : i + 4]) for i in range(len(words) - 3))
    return {gram for gram in grams if any(in_script(ch, script) for word in gram for ch in word)}


def unpack(package: str, version: str, root: Path) -> list[str]:
    """The package's PDFs under ``root`` (gzipped ones unpacked); their paths inside the package."""
    subprocess.run(["apt-get", "download", "-q", f"{package}={version}"], cwd=root, check=True, capture_output=True)
    (deb,) = root.glob(f"{package}_*.deb")
    tree = root / f"{package}_{version}"
    tree.mkdir()
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    pdfs = ["--wildcards", "*.pdf", "*.pdf.gz"]  # tar fails on a pattern no member matches: ignored
    subprocess.run(["tar", "-x", "-C", str(tree), *pdfs], stdin=tar.stdout, capture_output=True)
    tar.wait()
    files = []
    for path in sorted(tree.rglob("*.pdf*")):
        name = str(path.relative_to(tree))
        if name.endswith(".gz"):
            with gzip.open(path) as packed:
                path.with_suffix("").write_bytes(packed.read())
        files.append(name)
    return files


def main() -> None:
    documents = json.loads(MANIFEST.read_text())["documents"]
    in_manifest = {(d["package"], d["file"]) for d in documents if d.get("batch", 1) < BATCH}
    in_batch = {(d["package"], d["file"]) for d in documents if d.get("batch", 1) == BATCH}
    drawn: set[tuple[str, str]] = set()
    with tempfile.TemporaryDirectory(prefix="ocrqueue-batch-") as tmp:
        root = Path(tmp)
        texts: dict[tuple[str, str], list[str]] = {}
        for package, version in SOURCES.items():
            for name in unpack(package, version, root):
                texts[(package, name)] = page_texts(root / f"{package}_{version}" / name.removesuffix(".gz"))
    taken = [key for key in sorted(in_manifest) if key in texts]
    for script in SCRIPTS:
        counts = {key: sum(usable(t, script) for t in pages) for key, pages in texts.items()}
        ranked = sorted((key for key in counts if counts[key] >= MIN_PAGES), key=lambda k: (-counts[k], k))
        grams = {key: four_grams(texts[key], script) for key in {*ranked, *taken}}
        candidates = []
        for key in ranked:
            others = (grams[other] for other in taken if other != key)
            shared = max((len(grams[key] & other) / max(len(grams[key]), 1) for other in others), default=0.0)
            kept = key not in in_manifest and shared < MAX_SHARED
            verdict = "kept" if kept else "left out"
            print(f"{script:9} {counts[key]:4} usable  shared {shared:.3f}  {verdict:8} {key[1]}")
            if kept:
                candidates.append(key)
                taken.append(key)
        random.Random(f"{SEED}/{script} (batch {BATCH})").shuffle(candidates)
        for package, name in sorted(candidates[:COUNT]):
            entry = {"id": "?", "package": package, "version": SOURCES[package], "file": name, "lang": "?"}
            print(json.dumps(entry | {"script": script, "drawn": 4, "batch": BATCH}, ensure_ascii=False))
            drawn.add((package, name))
    same = drawn == in_batch
    print(f"the manifest's batch {BATCH} is {'what the rule draws' if same else 'not what the rule draws'}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
