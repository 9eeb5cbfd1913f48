"""Visual to logical order for right-to-left lines (documents/bidi.py, input/logical_line.py)."""

# ruff: noqa: RUF001, RUF003 (Arabic and Hebrew letters are the point, not look-alikes of Latin ones)

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.documents.bidi import (
    levels,
    logical_text,
    normalise_presentation_forms,
    reorder,
    visual_is_rtl,
    visual_order,
)
from ocrqueue.documents.engines.tesseract import overreaching_cut
from ocrqueue.documents.geometry import BBox, union
from ocrqueue.documents.layout.rows import merge_rows
from ocrqueue.documents.logical_line import (
    Glyph,
    in_logical_order,
    ligatures_joined,
    logical_order,
    logical_words,
    same_visual_line,
)
from ocrqueue.documents.model import Line, Word

ARABIC_LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهوية"
PERSIAN_LETTERS = "پچژکگی"
HEBREW_LETTERS = "אבגדהוזחטיכלמנסעפצקרשת"
LATIN_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _word(alphabet: str) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=1, max_size=8)


arabic_words = st.one_of(_word(ARABIC_LETTERS), _word(PERSIAN_LETTERS), _word(ARABIC_LETTERS + "\u200c"))
hebrew_words = _word(HEBREW_LETTERS)
latin_words = _word(LATIN_LETTERS)
numbers = st.builds(
    lambda whole, part: f"{whole}.{part}" if part is not None else str(whole),
    st.integers(0, 9999),
    st.none() | st.integers(0, 99),
)


@st.composite
def rtl_lines(draw: st.DrawFn, rtl_words: st.SearchStrategy[str]) -> str:
    """A right-to-left line: right-to-left words with numbers and Latin words between them (never
    a number right beside a Latin word: "Python 3.12" and "3.12 Python" draw alike in an Arabic
    line, so the visual line cannot tell them apart), ending in a full stop or not."""
    words = [draw(rtl_words)]
    for _ in range(draw(st.integers(0, 8))):
        words.append(
            draw(st.one_of(rtl_words, numbers, latin_words))
            if words[-1][0] not in "0123456789" + LATIN_LETTERS
            else draw(rtl_words)
        )
    text = " ".join(words)
    return text + draw(st.sampled_from(["", ".", "،", "!"]))


@given(rtl_lines(arabic_words))
def test_arabic_and_persian_lines_come_back_from_visual_order(line: str) -> None:
    assert logical_text(visual_order(line, rtl=True), rtl=True) == line


@given(rtl_lines(hebrew_words))
def test_hebrew_lines_come_back_from_visual_order(line: str) -> None:
    assert logical_text(visual_order(line, rtl=True), rtl=True) == line


@given(st.lists(st.one_of(arabic_words, hebrew_words, latin_words, numbers), min_size=1, max_size=8), st.booleans())
def test_a_logical_line_draws_as_the_visual_line_it_came_from(words: list[str], rtl: bool) -> None:
    """Where the visual line is ambiguous, the logical text given back still draws exactly as
    the page does: copy it and paste it, and it looks the same."""
    visual = visual_order(" ".join(words), rtl)
    assert visual_order(logical_text(visual, rtl), rtl) == visual


def test_numbers_and_latin_inside_an_arabic_line_stay_left_to_right() -> None:
    line = "ارتفعت الإنتاجية في عام 2024 بنسبة 15% مع Python 3.12 (تقريبا)."
    visual = visual_order(line, rtl=True)
    assert "2024" in visual and "Python 3.12" in visual and "%15" in visual  # as Chromium draws it
    assert visual_is_rtl(visual)
    assert logical_text(visual) == line


def test_an_english_line_quoting_hebrew_stays_left_to_right() -> None:
    visual = visual_order("The word שלום means peace.", rtl=False)
    assert not visual_is_rtl(visual)
    assert logical_text(visual) == "The word שלום means peace."


def test_presentation_forms_become_the_letters_and_nothing_else_changes() -> None:
    # U+FEFB: the lam-alef ligature; U+FE8E: alef, final form; U+FB8F: keheh (Persian kaf).
    assert normalise_presentation_forms("\ufefb \ufe8e\ufb8f") == "لا اک"
    assert normalise_presentation_forms("ﬁ ½ می\u200cخواهم") == "ﬁ ½ می\u200cخواهم"


def _glyphs(visual_words: list[list[tuple[str, float]]]) -> list[Glyph]:
    return [
        Glyph(ch, BBox(x, 100.0, x + width, 110.0), number)
        for number, word in enumerate(visual_words)
        for ch, x, width in ((ch, x, 4.0) for ch, x in word)
    ]


def test_a_lam_alef_glyph_reads_lam_first_whatever_order_pdfium_gave() -> None:
    """The lam-alef of "لا" and "اطلاع" is one glyph whose ToUnicode gives two letters; PDFium
    gives them in either order and splits the glyph's box between them in that order (Chromium's
    PDFs: alef left; XeTeX's: lam left), so the boxes cannot order them: the shared origin can."""
    for first, second in (("ل", "ا"), ("ا", "ل")):
        ligature = [
            (Glyph(first, BBox(100.0, 100.0, 104.0, 110.0), 0), (100.0, 100.0)),
            (Glyph(second, BBox(104.0, 100.0, 108.0, 110.0), 0), (100.0, 100.0)),
        ]
        # "اطلاع" drawn right to left: ع leftmost, then the ligature, then ط, then ا.
        word = [
            (Glyph("ا", BBox(120.0, 100.0, 124.0, 110.0), 0), (120.0, 100.0)),
            (Glyph("ط", BBox(110.0, 100.0, 118.0, 110.0), 0), (110.0, 100.0)),
            *ligature,
            (Glyph("ع", BBox(90.0, 100.0, 98.0, 110.0), 0), (90.0, 100.0)),
        ]
        assert [w.text for w in logical_words(ligatures_joined(word))] == ["اطلاع"]
        assert [w.text for w in logical_words(ligatures_joined(ligature))] == ["لا"]


def test_alef_then_lam_in_two_glyphs_stays_as_drawn() -> None:
    """ "ال" (the article) is two glyphs: alef does not join the letter after it."""
    glyphs = [
        (Glyph("ا", BBox(104.0, 100.0, 108.0, 110.0), 0), (104.0, 100.0)),
        (Glyph("ل", BBox(100.0, 100.0, 104.0, 110.0), 0), (100.0, 100.0)),
    ]
    assert [w.text for w in logical_words(ligatures_joined(glyphs))] == ["ال"]


def test_words_of_a_visual_line_keep_their_boxes_and_order() -> None:
    # "کالای 12 خوب Excel" drawn right to left: Excel leftmost, then "خوب", 12, "کالای".
    excel = [(ch, 10.0 + 4 * i) for i, ch in enumerate("Excel")]
    good = [(ch, 50.0 - 4 * i) for i, ch in enumerate("خوب")]  # logical order, right to left
    twelve = [("1", 60.0), ("2", 64.0)]
    persian = [(ch, 90.0 - 4 * i) for i, ch in enumerate("کالای")]
    words = logical_words(_glyphs([persian, twelve, good, excel]), char_boxes=True)
    assert [w.text for w in words] == ["کالای", "12", "خوب", "Excel"]
    assert words[0].bbox == BBox(74.0, 100.0, 94.0, 110.0)
    assert all(len(w.chars) == len(w.text) for w in words)


def test_a_word_of_a_mark_alone_joins_the_word_it_touches() -> None:
    """Chromium draws the hamza of "پایانهٔ" as a sliver above the line that PDFium takes for a
    word of its own ("پایان هٔ" before)."""
    letters = [(ch, 90.0 - 6 * i) for i, ch in enumerate("پایان")]  # logical order, right to left
    glyphs = [Glyph(ch, BBox(x, 100.0, x + 6, 110.0), 0) for ch, x in letters]
    glyphs += [Glyph("ه", BBox(64.0, 100.0, 65.0, 102.0), 1), Glyph("\u0654", BBox(63.0, 100.0, 64.0, 102.0), 1)]
    glyphs += [Glyph(ch, BBox(x, 100.0, x + 6, 110.0), 2) for ch, x in [("ن", 50.0), ("و", 44.0)]]
    assert [w.text for w in logical_words(glyphs)] == ["پایانهٔ", "نو"]


def test_pieces_of_one_line_are_one_line_and_two_columns_are_not() -> None:
    right = [Glyph("ا", BBox(300.0, 100.0, 400.0, 110.0), 0)]
    piece = [Glyph("ه", BBox(290.0, 100.0, 292.0, 103.0), 1)]
    column = [Glyph("ب", BBox(100.0, 100.0, 250.0, 110.0), 2)]
    below = [Glyph("ت", BBox(300.0, 114.0, 400.0, 124.0), 3)]
    assert same_visual_line(right, piece)
    assert not same_visual_line(right, column)
    assert not same_visual_line(right, below)


def test_glyphs_drawn_over_each_other_sort_by_where_they_are_drawn_from() -> None:
    """XeTeX sets the "لم" of "المعالجة" with the meem reaching right under the lam: by their
    boxes' centres the meem comes first ("املعاجلة"); by their origins the lam does."""
    drawn = [  # right to left as typeset: ا ل م, each with its origin and box
        ("ا", 120.0, BBox(120.0, 100.0, 123.0, 110.0)),
        ("ل", 114.0, BBox(114.0, 100.0, 117.0, 110.0)),
        ("م", 108.0, BBox(108.0, 100.0, 125.0, 110.0)),  # wide, its centre right of the lam's
    ]
    glyphs = [(Glyph(ch, box, 0), (at, 100.0)) for ch, at, box in drawn]
    assert [w.text for w in logical_words(ligatures_joined(glyphs))] == ["الم"]


def _drawn_words(line: str, rtl: bool) -> list[Word]:
    """The words of a logical ``line`` placed where a display draws them, left to right, each
    word's text in logical order (what an engine gives once each word is put right)."""
    words = line.split(" ")
    owner = [k for k, word in enumerate(words) for k in [k] * len(word) + [-1]][:-1]
    order: list[int] = []
    for i in reorder(levels(line, rtl)):
        if owner[i] >= 0 and owner[i] not in order:
            order.append(owner[i])
    return [Word(words[k], BBox(20.0 * x, 0, 20.0 * x + 15, 10)) for x, k in enumerate(order)]


@given(st.one_of(rtl_lines(arabic_words), rtl_lines(hebrew_words)))
def test_words_of_a_right_to_left_row_come_back_in_reading_order(line: str) -> None:
    assert " ".join(w.text for w in in_logical_order(_drawn_words(line, True), rtl=True)) == line


def test_pieces_of_one_hebrew_row_merge_in_reading_order() -> None:
    """A Hebrew line the engine gave in two pieces (cut by stray marks, or by two layout regions)
    is one row read right to left; before, the pieces' words were put left to right and the
    line came back backwards."""
    line = "לדיסק שעליו אתה מנסה לשמור את הקובץ יש הגבלה, Linux 2024 ועוד."
    words = _drawn_words(line, True)
    pieces = [
        Line(" ".join(w.text for w in part), union(w.bbox for w in part), 0.9, tuple(part))
        for part in (words[:5], words[5:])
    ]
    (row,) = merge_rows(pieces)
    assert row.text == line
    english = [Word("left", BBox(0, 0, 15, 10)), Word("to", BBox(20, 0, 35, 10)), Word("right", BBox(40, 0, 55, 10))]
    (row,) = merge_rows(
        [
            Line("to right", union(w.bbox for w in english[1:]), 0.9, tuple(english[1:])),
            Line("left", english[0].bbox, 0.9, english[:1]),
        ]
    )
    assert row.text == "left to right"


def test_a_right_to_left_word_whose_box_reaches_over_the_word_before_it_keeps_its_place() -> None:
    """Tesseract's words of a right-to-left line in its reading order, each spelt as drawn, the
    last one's box (as its LSTM model gives some) running on to the right over the word read
    before it and the one before that: placed by that box, "لازم" came before "است"."""

    def word(text: str, x0: float, x1: float) -> Word:
        return Word(text[::-1], BBox(x0, 0.0, x1, 40.0), 0.9)

    words = [word("ممکن", 736, 803), word("است", 665, 717), word("لازم", 593, 811)]
    assert " ".join(w.text for w in logical_order(words)) == "ممکن لازم است"  # placed by the box as given
    cut = overreaching_cut(words)
    assert [w.bbox.x1 for w in cut] == [803, 717, 665]
    assert " ".join(w.text for w in logical_order(cut)) == "ممکن است لازم"
    # A Latin word inside the line, a word whose box lies where it should: left as they are.
    latin = [word("فایل", 1190, 1244), Word("DVI", BBox(1107, 0.0, 1260, 40.0), 0.9), word("را", 1060, 1100)]
    assert overreaching_cut(latin) == latin
