"""bench/documents.py's ``--scan-draw``: draw 0 is the corpus's own scan (readings stay comparable
with every earlier run); another draw scans the same page from the same distribution with
another seed, so a reading's luck with one scan can be told from the page's difficulty."""

from __future__ import annotations

from data.documents_corpus import CorpusPage
from data.realpages import scan_jpeg
from PIL import Image
from support.bench_scripts import load_bench_script


def test_draw_zero_is_the_corpus_scan_and_other_draws_differ() -> None:
    bench = load_bench_script("documents")
    page = CorpusPage("report-a", 3, "report", "eng", "word", "text_layer", "dev", "x.pdf")
    assert bench.scan_seed(page, 0) == page.id
    seeds = {bench.scan_seed(page, draw) for draw in range(4)}
    assert len(seeds) == 4
    image = Image.new("RGB", (200, 120), "white")
    for x in range(20, 180, 8):
        image.paste((0, 0, 0), (x, 40, x + 4, 80))
    scans = {scan_jpeg(image, seed) for seed in seeds}
    assert len(scans) == 4
