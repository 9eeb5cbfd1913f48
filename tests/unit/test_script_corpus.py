"""The per-script evaluation's corpus: which documents the seeded rule draws, how they are split and
paged, what a Mallard topic's text is, and that the manifest is what the rule gives."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

# The corpus modules import each other by their own names, as bench/ scripts load them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))

from mallard import Block, topic_blocks
from sampling import Document, assign_splits
from script_sources import PAGE_LINES, SourceDocument, block_lines, draw_documents, paginate
from scriptpages import SCRIPTS_MANIFEST, load_documents, load_pages

SCRIPTS = ("Cyrillic", "Greek", "Hebrew", "Tamil", "Thai")


def _candidates(per_script: int) -> list[SourceDocument]:
    return [
        SourceDocument(f"mo-app{i}-{script[:2].lower()}", "pkg", "1", "messages", f"app{i}", script[:2].lower(), script)
        for script in SCRIPTS
        for i in range(per_script)
    ]


# The properties below are of pure functions: no time limit per example, so that a loaded
# 2-core machine cannot fail them.


@settings(deadline=None)
@given(st.integers(min_value=2, max_value=9), st.integers(min_value=2, max_value=6), st.randoms())
def test_documents_drawn_are_the_same_whatever_order_they_come_in(available: int, per_script: int, rng) -> None:
    candidates = _candidates(available)
    shuffled = list(candidates)
    rng.shuffle(shuffled)
    assert draw_documents(shuffled, per_script) == draw_documents(candidates, per_script)


@settings(deadline=None)
@given(st.integers(min_value=2, max_value=9), st.integers(min_value=2, max_value=6))
def test_every_script_is_in_both_splits_and_no_document_in_two(available: int, per_script: int) -> None:
    splits = draw_documents(_candidates(available), per_script)
    by_script: dict[str, set[str]] = {}
    for doc in _candidates(available):
        if doc.id in splits:
            by_script.setdefault(doc.script, set()).add(splits[doc.id])
    assert by_script == {script: {"dev", "test"} for script in SCRIPTS}
    assert len(splits) == len(SCRIPTS) * min(available, per_script)  # a dict: one split a document


def test_a_script_with_one_candidate_is_left_out() -> None:
    lone = SourceDocument("mo-app-ka", "pkg", "1", "messages", "app", "ka", "Georgian")
    splits = draw_documents([*_candidates(3), lone], 4)
    assert lone.id not in splits and len(splits) == 3 * len(SCRIPTS)


def test_the_seed_chooses_among_more_candidates_than_are_drawn() -> None:
    splits = draw_documents(_candidates(12), 4)
    chosen = {doc_id.split("-")[1] for doc_id in splits if doc_id.endswith("-ta")}
    assert len(chosen) == 4 and chosen != {"app0", "app1", "app2", "app3"}


_blocks = st.lists(
    st.builds(Block, st.sampled_from(["h", "p", "pre"]), st.text(alphabet="abc דה 字\n", min_size=1, max_size=900)),
    max_size=60,
)


@settings(deadline=None)
@given(_blocks, st.integers(min_value=1, max_value=5))
def test_pages_keep_the_block_order_and_fit(blocks: list[Block], pages: int) -> None:
    paged = paginate(blocks, pages)
    assert len(paged) <= pages
    flat = [b for page in paged for b in page]
    fitting = iter([b for b in blocks if block_lines(b) <= PAGE_LINES])
    assert all(any(b is other for other in fitting) for b in flat)  # a subsequence, in order
    assert all(page and sum(block_lines(b) for b in page) <= PAGE_LINES for page in paged)


def test_a_page_is_only_made_when_full() -> None:
    line = Block("p", "x" * 10)
    assert paginate([line] * 10, 3) == []
    many = [line] * 200
    assert [len(p) for p in paginate(many, 2)] == [int(PAGE_LINES // block_lines(line))] * 2


def test_a_topics_text_is_what_a_help_viewer_shows(tmp_path: Path) -> None:
    page = tmp_path / "copy.page"
    page.write_text(
        '<page xmlns="http://projectmallard.org/1.0/" id="copy"><info><desc>hidden</desc></info>'
        "<title>Копировать</title><p>Нажмите <keyseq><key>Ctrl</key><key>C</key></keyseq> или\n"
        "   выберите <guiseq><gui>Правка</gui><gui>Копировать</gui></guiseq>.<link xref='x'/></p>"
        "<steps><item><p>Один</p></item></steps><screen>ls -l\n  cd /</screen></page>"
    )
    assert topic_blocks(page) == [
        Block("h", "Копировать"),
        Block("p", "Нажмите Ctrl+C или выберите Правка ▸ Копировать."),
        Block("p", "Один"),
        Block("pre", "ls -l\n  cd /"),
    ]


def test_the_manifest_is_split_by_the_rule_with_every_script_in_both_splits() -> None:
    documents = json.loads(SCRIPTS_MANIFEST.read_text())["documents"]
    assert {d["id"]: d["split"] for d in documents} == assign_splits(
        Document(d["id"], d["script"], d.get("batch", 1)) for d in documents
    )
    scripts: dict[str, set[str]] = {}
    for d in documents:
        scripts.setdefault(d["script"], set()).add(d["split"])
    assert all(splits == {"dev", "test"} for splits in scripts.values())
    assert len(scripts.keys() - {"Latin", "Han"}) >= 12
    assert len({d["id"] for d in documents}) == len(documents)


def test_every_printed_page_is_a_page_of_its_document() -> None:
    pages = load_pages()
    assert len(pages) == sum(d.pages for d in load_documents())
    assert len({p.id for p in pages}) == len(pages)
    assert all(p.kind in ("help", "messages") and not p.ci for p in pages)
