"""Pages read with no options: scripts found per page, the engine and languages chosen from them,
and pages turned upright before they are read."""

from __future__ import annotations

import importlib.util
import io

import generate
import pytest
from metrics import text_cer
from PIL import Image

from ocrqueue.documents import InvalidOptionsError, ProcessOptions
from ocrqueue.documents.engines import engine_capabilities
from ocrqueue.documents.ocr.engine_choice import choose, with_latin_model
from ocrqueue.documents.scripts import languages_for, scripts_in

from .conftest import Samples
from .helpers import run


def test_scripts_are_found_by_code_point_and_a_stray_letter_is_not_a_script() -> None:
    assert scripts_in("The queue keeps every task.") == ("Latin",)
    assert scripts_in("队列保存每一个任务\uff0c直到 worker 完成它。") == ("Han", "Latin")
    assert scripts_in("Let \u03b1 be the rate at which tasks arrive in the queue of workers.") == ("Latin",)
    assert scripts_in("") == ()
    assert languages_for(("Han", "Latin")) == ("chi_sim", "eng")
    assert languages_for(("Han", "Latin"), frozenset({"eng"})) == ("eng",)


def test_explicit_engine_and_languages_win_over_what_a_page_holds() -> None:
    assert choose(ProcessOptions(engine="tesseract", languages=("eng",)), ("Han",)) == ("tesseract", ("eng",))
    han_engine = "rapidocr" if importlib.util.find_spec("rapidocr") else "tesseract"
    # Chinese is read with English as well (its Latin runs), by the engine measured best on it.
    assert choose(ProcessOptions(), ("Han",)) == (han_engine, ("chi_sim", "eng"))
    assert choose(ProcessOptions(engine="tesseract"), ("Han", "Latin")) == ("tesseract", ("chi_sim", "eng"))


def test_latin_is_read_with_english_first_and_the_latin_model_second() -> None:
    """Latin pages, found or assumed (a blank page), are read with ``eng`` first; the Latin script
    model (installed by scripts/system-deps.sh) replaces it for a second reading, but not beside
    Chinese; named languages are kept as named, and a page with Chinese keeps ``eng``."""
    tesseract = engine_capabilities("tesseract")
    assert tesseract is not None and "Latin" in tesseract.languages
    assert choose(ProcessOptions(), ("Latin",)) == ("tesseract", ("eng",))
    assert choose(ProcessOptions(), ()) == ("tesseract", ("eng",))
    assert with_latin_model(("eng",), tesseract.languages) == ("Latin",)
    assert with_latin_model(("eng", "rus"), tesseract.languages) == ("Latin", "rus")
    assert with_latin_model(("chi_sim", "eng"), tesseract.languages) is None
    assert with_latin_model(("eng",), frozenset({"eng"})) is None
    assert choose(ProcessOptions(languages=("eng",)), ("Latin",)) == ("tesseract", ("eng",))
    assert choose(ProcessOptions(engine="tesseract"), ("Han", "Latin"))[1] == ("chi_sim", "eng")


ACCENTED = (
    "Les élèves préfèrent étudier à la bibliothèque où règne le calme.",
    "Über die Brücke gehen täglich viele Fußgänger und Radfahrer.",
    "El niño comió una piña en la mañana del año pasado.",
)


def test_accented_latin_is_read_right_with_no_options() -> None:
    """Tesseract's eng model, the only Latin one installed before, read these as "Briicke", "nifio"
    and "bibliotheque ot:"; with no options a page of French, German and Spanish comes back right."""
    image, draw = generate._page()
    font = generate._font(generate.DEJAVU, 34)
    for i, line in enumerate(ACCENTED):
        draw.text((generate.MARGIN, generate.MARGIN + 70 * i), line, font=font, fill="black")
    out = io.BytesIO()
    image.save(out, "PNG", dpi=(300, 300))
    page = run(out.getvalue()).pages[0]
    text = "\n".join(b.text for b in page.blocks)
    assert page.languages == ("Latin",)  # read with eng first, which showed it is not English
    assert text_cer("\n".join(ACCENTED), text) < 0.02
    for word in ("élèves", "bibliothèque", "Brücke", "täglich", "niño", "piña"):
        assert word in text


def test_auto_languages_cannot_be_mixed_with_named_ones() -> None:
    with pytest.raises(InvalidOptionsError):
        ProcessOptions(languages=("auto", "eng"))
    for bad in ("../eng", "Latin/x", "Latin.traineddata", "eng.traineddata", "latin", ""):
        with pytest.raises(InvalidOptionsError):
            ProcessOptions(languages=(bad,))
    assert ProcessOptions.from_dict(ProcessOptions().to_dict()) == ProcessOptions()


def test_the_latin_script_model_can_be_named() -> None:
    """Named, it is used as named: beside Chinese, or on a page whose script was not found."""
    assert choose(ProcessOptions(languages=("Latin", "chi_sim"), engine="tesseract"), ()) == (
        "tesseract",
        ("Latin", "chi_sim"),
    )
    assert choose(ProcessOptions(languages=("Latin",)), ("Latin",)) == ("tesseract", ("Latin",))


@pytest.mark.parametrize(
    ("sample", "script", "languages", "words"),
    [("english", "Latin", ("eng",), "Supplier Invoices"), ("chinese", "Han", ("eng", "chi_sim"), "")],
)
def test_a_page_with_no_options_is_read_in_its_own_script(
    samples: Samples, sample: str, script: str, languages: tuple[str, ...], words: str
) -> None:
    """An English page is read once, with eng, not again with the Latin script model."""
    page = run(samples.data(sample)).pages[0]
    expected = "\n".join(samples[sample].text)
    assert script in page.scripts
    assert set(page.languages) == set(languages)
    assert text_cer(expected, "\n".join(b.text for b in page.blocks)) < 0.05
    assert page.rotation == 0
    assert words in "\n".join(b.text for b in page.blocks)


ENGLISH_BODY = generate.ENGLISH + generate.LEFT_COLUMN + generate.RIGHT_COLUMN


JAPANESE = [
    "管理者権限で実行する場合は環境変数の値を確認してください。",
    "標準入力から読み込んだ文字列を指定された形式で出力する。",
    "設定ファイルの書式と各項目の意味を本章で説明します。",
    "複数選択問題の番号は表示する設問の番号です。",
    "既定値は変更することができます。",
]


def _english_page_with_an_abstract(abstract: list[str], face: int) -> bytes:
    """An English page (OSD calls it Latin: it reports one script a page) with lines of Chinese
    or Japanese (``face`` of the Noto CJK collection) at its foot, as a paper with an abstract in
    another language has."""
    image, draw = generate._page()
    english, cjk = generate._font(generate.DEJAVU, 30), generate._font(generate.NOTO_CJK, 34, face)
    y = generate.MARGIN
    for line in ENGLISH_BODY:
        draw.text((generate.MARGIN, y), line, font=english, fill="black")
        y += 62
    y += 60
    for line in abstract:
        draw.text((generate.MARGIN, y), line, font=cjk, fill="black")
        y += 62
    out = io.BytesIO()
    image.save(out, "PNG", dpi=(300, 300))
    return out.getvalue()


def test_a_latin_page_with_a_few_lines_of_chinese_is_read_with_both() -> None:
    """Read as English only, the Chinese lines came back as Latin garbage; a few poorly read lines
    that hold Chinese when read as such send the page to the engine for pages with Chinese."""
    page = run(_english_page_with_an_abstract(generate.CHINESE[:2], generate.NOTO_CJK_SC_INDEX)).pages[0]
    text = "\n".join(b.text for b in page.blocks)
    assert set(page.scripts) == {"Han", "Latin"}
    assert "chi_sim" in page.languages
    assert text_cer("\n".join(ENGLISH_BODY + generate.CHINESE[:2]), text) < 0.05


def test_a_latin_page_with_a_few_lines_of_japanese_is_read_with_both() -> None:
    """Japanese lines found the same way (their kanji read as Han by chi_sim) send the page to the
    engine for pages with Chinese, and its reading, Japanese by its kana, is kept: it was thrown
    away as holding no Han, and the Japanese came back as Latin garbage."""
    page = run(_english_page_with_an_abstract(JAPANESE, 0)).pages[0]
    text = "\n".join(b.text for b in page.blocks)
    assert set(page.scripts) == {"Japanese", "Latin"}
    assert text_cer("\n".join(ENGLISH_BODY + JAPANESE), text) < 0.05


def test_a_text_layer_page_records_the_scripts_of_its_characters(samples: Samples) -> None:
    page = run(samples.data("chinese_pdf")).pages[0]
    assert page.source == "text_layer"
    assert page.scripts[0] == "Han" and "Latin" in page.scripts
    assert page.languages == ("chi_sim", "eng")
    assert page.to_dict()["rotation"] == 0


@pytest.mark.parametrize("rotation", [90, 180, 270])
@pytest.mark.parametrize("sample", ["english", "chinese"])
def test_a_turned_page_is_read_upright(samples: Samples, sample: str, rotation: int) -> None:
    """The page image is turned counter-clockwise by ``rotation``; reading it must turn it back.
    Its width and height are those of the page as delivered (documents/turns.py), turned."""
    upright = Image.open(io.BytesIO(samples.data(sample)))
    turned = upright.rotate(rotation, expand=True)
    out = io.BytesIO()
    turned.save(out, "PNG", dpi=upright.info.get("dpi", (200, 200)))
    page = run(out.getvalue()).pages[0]
    assert page.rotation == rotation
    assert (page.width > page.height) == (turned.width > turned.height)
    assert text_cer("\n".join(samples[sample].text), "\n".join(b.text for b in page.blocks)) < 0.05
