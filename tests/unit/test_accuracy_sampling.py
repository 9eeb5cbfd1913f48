# ruff: noqa: RUF001 (Arabic letters are the point, not look-alikes of Latin ones)
"""The seeded sampler of the real-page evaluation: which pages it draws and how it splits documents."""

from __future__ import annotations

import json

from data.realpages import MANIFEST, load_pages
from data.sampling import SPLITS, Document, assign_splits, draw_pages, usable

RUSSIAN = "Пакет содержит справочные страницы и документацию для разработчиков. " * 8
ENGLISH = "The package holds reference pages and documentation for developers. " * 8


def _document(pages: int) -> dict[int, str]:
    """Odd pages prose in Russian, even pages nearly empty."""
    return {n: RUSSIAN if n % 2 else "Глава 3" for n in range(1, pages + 1)}


def test_the_same_seed_draws_the_same_pages() -> None:
    text = _document(40)
    first = draw_pages("maint-guide-ru", 40, 4, text.__getitem__, "Cyrillic")
    assert first == draw_pages("maint-guide-ru", 40, 4, text.__getitem__, "Cyrillic")
    assert len(first) == 4 and len(set(first)) == 4


def test_each_document_draws_its_own_pages() -> None:
    text = _document(200)
    drawn = {doc: draw_pages(doc, 200, 4, text.__getitem__, "Cyrillic") for doc in ("a", "b", "c")}
    assert len({tuple(pages) for pages in drawn.values()}) == 3


def test_near_empty_pages_are_skipped_and_fewer_drawn_when_fewer_pass() -> None:
    text = _document(7)
    drawn = draw_pages("short", 7, 10, text.__getitem__, "Cyrillic")
    assert sorted(drawn) == [1, 3, 5, 7]


def test_a_page_must_hold_the_documents_script_and_a_sound_text_layer() -> None:
    assert usable(RUSSIAN, "Cyrillic")
    assert not usable(ENGLISH, "Cyrillic")
    assert not usable("Глава 3", "Cyrillic")
    assert not usable(RUSSIAN + "\ufffd", "Cyrillic")  # a glyph the font's ToUnicode map could not name
    assert usable("Đây là một bản tóm tắt cho thấy các lệnh biên dịch gói phần mềm. " * 10, "Vietnamese")
    assert not usable(ENGLISH, "Vietnamese")


def test_a_text_layer_that_spells_the_script_with_latin_letters_is_not_drawn() -> None:
    arabic = "قال السلطان إنك تبالغين يا ابنتي أكثر من اللازم حتى الأمومة لا تغريك في هذه القاعة. " * 8
    garbled = "قال الAWlsن إنك تAbلغyن يA ابtnي أك”r من اللاEم حYt الأمwمT لا تغrيك في ه@ه الAqعT. " * 8
    assert usable(arabic, "Arabic")
    assert not usable(garbled, "Arabic")  # arabi's fonts name some Arabic glyphs with Latin letters
    glued = "يک فایلdviرا با ابزارdvipdfاست به پی دی اف تبدیل کنید و سپس آن را چاپ کنید. " + arabic
    assert usable(glued, "Arabic")  # Latin glued to Persian words now and then: a real manual's text
    korean = "memoir는 geometry 패키지와는 다른 방식의 자체 판면 설정 명령을 가지고 있다. " * 12
    assert usable(korean, "Hangul")


def test_documents_are_split_whole_with_both_splits_where_a_script_has_two() -> None:
    docs = [Document(f"ru-{i}", "Cyrillic") for i in range(4)] + [Document("th", "Thai"), Document("el-1", "Greek")]
    docs.append(Document("el-2", "Greek"))
    splits = assign_splits(docs)
    assert set(splits) == {d.id for d in docs} and set(splits.values()) <= set(SPLITS)
    assert sorted(splits[f"ru-{i}"] for i in range(4)) == ["dev", "dev", "test", "test"]
    assert {splits["el-1"], splits["el-2"]} == {"dev", "test"}
    assert splits["th"] == "test"
    assert assign_splits(reversed(docs)) == splits


def test_the_manifest_splits_every_document_by_the_rule() -> None:
    documents = json.loads(MANIFEST.read_text())["documents"]
    assert {d["id"]: d["split"] for d in documents} == assign_splits(
        Document(d["id"], d["script"], d.get("batch", 1)) for d in documents
    )
    scripts: dict[str, set[str]] = {}
    for d in documents:
        scripts.setdefault(d["script"], set()).add(d["split"])
    # Batch 2 (bench/choose_pages_batch.py) found no second Thai or Armenian document.
    assert {s for s, splits in scripts.items() if splits != {"dev", "test"}} == {"Thai", "Armenian"}
    batch_2_dev = {d["script"] for d in documents if d.get("batch") == 2 and d["split"] == "dev"}
    assert batch_2_dev == {"Arabic", "Greek", "Hangul"}


def test_the_hand_picked_pages_and_their_ci_flags_are_kept() -> None:
    pages = load_pages()
    old = [p for p in pages if p.script in ("Latin", "Han")]
    assert len(old) == 67 and all(p.kind != "sampled" for p in old)
    assert {p.id for p in old if p.ci} == {
        "r-intro-p011",
        "ltnews-p005",
        "debian-reference-zh-p024",
        "maint-guide-zh-p009",
        "fduthesis-p011",
        "latex-notes-zh-p034",
    }
    assert all(p.kind == "sampled" for p in pages if p.script not in ("Latin", "Han"))
