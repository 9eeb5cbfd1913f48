"""The issue-22 corpus: producer families from PDF metadata, seeded page draws, the split by
document, and the manifest's promises (pages, documents, producers, kinds, pinned sources)."""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict

from data.documents_corpus import (
    MIN_LETTERS,
    SPLITS,
    UNTRUSTED_FAMILIES,
    assign_splits,
    draw_pages,
    family,
    load_manifest,
    load_pages,
    transcription_files,
)

PROSE = "The board met on Monday and agreed the budget for the coming year. " * 3


def test_producer_families_from_metadata() -> None:
    assert family("Microsoft® Word 2010", "Microsoft® Word 2010") == "word"
    assert family("Mac OS X 10.3.2 Quartz PDFContext", "") == "quartz"
    assert family("Acrobat Distiller 7.0 (Windows)", "") == "distiller"
    assert family("Adobe PDF Library 9.0", "Adobe InDesign CS4 (6.0)") == "indesign"
    assert family("LibreOffice 7.4", "Writer") == "libreoffice"
    assert family("Skia/PDF m156", "Mozilla/5.0") == "chromium"
    assert family("GPL Ghostscript 10.00.0", "groff version 1.22.4") == "groff"
    assert family("itext-paulo-155 (itextpdf.sf.net-lowagie.com)", "pdftk") == "itext"
    assert family("pdfTeX-1.40.24", "LaTeX with hyperref") == "tex"
    assert family("xdvipdfmx (20211117)", "DBLaTeX-0.3.12") == "docbook"
    assert family("pikepdf 5.4.3", "ocrmypdf 13.7.1") == "ocr"
    assert family("EPSON Scan", "") == "scanner"
    assert family("img2pdf 0.2.4", "") == "image"
    assert family("", "") == "other"


def test_draws_are_seeded_per_document_and_skip_pages_without_text() -> None:
    text = {n: PROSE if n % 3 else "Figure 2" for n in range(1, 61)}
    first = draw_pages("report-a", 60, 8, text.__getitem__)
    assert first == draw_pages("report-a", 60, 8, text.__getitem__)
    assert first != draw_pages("report-b", 60, 8, text.__getitem__)
    assert len(set(first)) == 8 and all(n % 3 for n in first)
    assert sum(c.isalpha() for c in PROSE) >= MIN_LETTERS
    assert len(draw_pages("scan", 5, 8, None)) == 5


def test_documents_are_split_whole_and_each_family_reaches_both_splits() -> None:
    docs = [(f"doc{i}", "word" if i < 4 else "tex", 1) for i in range(10)]
    splits = assign_splits(docs)
    assert splits == assign_splits(reversed(docs))
    for name in ("word", "tex"):
        assert {splits[d] for d, f, _ in docs if f == name} == set(SPLITS)


def test_a_second_batch_moves_no_earlier_document_and_reaches_both_splits() -> None:
    first = [(f"doc{i}", "word", 1) for i in range(3)]
    second = [(f"new{i}", "word", 2) for i in range(4)]
    before = assign_splits(first)
    after = assign_splits(first + second)
    assert {d: after[d] for d, _, _ in first} == before
    assert {after[d] for d, _, _ in second} == set(SPLITS)


def test_the_manifest_keeps_its_promises() -> None:
    manifest = load_manifest()
    documents = manifest["documents"]
    truth = [d for d in documents if d["truth"] == "text_layer"]  # type: ignore[index, union-attr]
    assert sum(len(d["pages"]) for d in truth) >= 400
    assert len(documents) >= 60  # type: ignore[arg-type]
    assert len({d["family"] for d in truth} - {"other"}) >= 12
    kinds = Counter(d["kind"] for d in truth)
    for kind in (
        "report",
        "paper",
        "manual",
        "slides",
        "form",
        "invoice",
        "newspaper",
        "letter",
        "exam",
        "spreadsheet",
    ):
        assert kinds[kind] > 0, kind
    assert not any(d["family"] in UNTRUSTED_FAMILIES for d in truth)
    assert {d["split"] for d in documents} == set(SPLITS)  # type: ignore[union-attr]
    assert {d["id"]: d["split"] for d in documents} == assign_splits(  # type: ignore[index, union-attr]
        (d["id"], d["family"], d.get("batch", 1))
        for d in documents  # type: ignore[index, union-attr]
    )
    for source in manifest["sources"]:  # type: ignore[union-attr]
        if source["registry"] == "pypi":
            assert len(source["sha256"]) == 64 and source["version"]


def test_every_family_with_two_documents_in_a_batch_reaches_dev() -> None:
    """Batch 2 gave the families that had one document, all in ``test``, something to tune on.
    Excel has two documents, but one a batch, and a batch's first turn is ``test``: it stays
    test-only."""
    documents = load_manifest()["documents"]
    by_group: defaultdict[tuple[str, int], set[str]] = defaultdict(set)
    count: Counter[tuple[str, int]] = Counter()
    for d in documents:  # type: ignore[union-attr]
        group = (d["family"], d.get("batch", 1))  # type: ignore[index, union-attr]
        by_group[group].add(d["split"])  # type: ignore[index]
        count[group] += 1
    for group, splits in by_group.items():
        assert count[group] < 2 or "dev" in splits, group
    dev = {d["family"] for d in documents if d["split"] == "dev"}  # type: ignore[index, union-attr]
    assert {"word", "itext", "distiller", "quartz", "indesign"} <= dev
    dev_truth = {d["family"] for d in documents if d["split"] == "dev" and d["truth"] == "text_layer"}  # type: ignore[index, union-attr]
    assert {"word", "distiller", "quartz"} <= dev_truth


def test_transcriptions_are_truth_only_where_the_text_layer_is_not() -> None:
    """A transcription stands in for a text layer nobody can trust (a scan, an OCR tool's guess):
    it names only such pages of the manifest, and those pages are scored against it."""
    manifest = load_manifest()
    untrusted = {
        f"{d['id']}-p{n:03d}"
        for d in manifest["documents"]  # type: ignore[attr-defined]
        if d["truth"] == "none"
        for n in d["pages"]
    }
    files = transcription_files()
    assert files and set(files) <= untrusted
    for path in set(files.values()):
        text = path.read_text()
        assert text.strip() and text == unicodedata.normalize("NFC", text)
    assert {p.id for p in load_pages(manifest) if p.truth == "transcription"} == set(files)
