"""bench/documents.py's real scans: a page whose text layer is no truth is read only as it is,
scored against a hand-checked transcription where it has one (``scanned``), else read for
crashes and speed only (``text_layer``)."""

from __future__ import annotations

from data.documents_corpus import CorpusPage
from support.bench_scripts import load_bench_script


def test_a_scanned_page_is_read_as_it_is_and_scored_only_with_a_transcription() -> None:
    bench = load_bench_script("documents")
    born_digital = CorpusPage("report-a", 3, "report", "eng", "word", "text_layer", "dev", "x.pdf")
    transcribed = CorpusPage("sheet", 1, "scan", "eng", "scanner", "transcription", "dev", "y.pdf")
    untranscribed = CorpusPage("photo", 1, "scan", "eng", "image", "none", "dev", "z.pdf")
    every = list(bench.VARIANTS)
    assert bench._variants_of(born_digital, every) == ["text_layer", "clean", "scan"]
    assert bench._variants_of(transcribed, every) == ["scanned"]
    assert bench._variants_of(untranscribed, every) == ["text_layer"]
    assert bench._variants_of(transcribed, ["clean", "scan"]) == []
    assert bench._variants_of(untranscribed, ["scanned"]) == []
