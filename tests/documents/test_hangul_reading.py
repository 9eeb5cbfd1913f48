"""Korean pages read with the Hangul model and the Latin model beside it: Hangul words the Latin
model takes as Latin capitals are read again with the Hangul model alone
(engines/tesseract.py, ``REREAD_STOLEN_MODELS``)."""

from __future__ import annotations

import io
import re

from data.script_pages import DPI, FONTS, MARGIN, PAGE_H, PAGE_W, script_page
from metrics import bag_of_words_f1, text_cer, tokens
from PIL import Image, ImageDraw, ImageFont

from .helpers import run

# Help-page sentences with a real Latin word, large enough that the Hangul model reads them all.
KOREAN = (
    "터미널 창에서 검색할 텍스트를 입력한 후 확인 단추를 누르십시오.",
    "대소문자를 구분하려면 검색 옵션에서 해당 항목을 선택합니다.",
    "열 이름 앞에 빼기 기호를 붙이면 역순으로 정렬됩니다.",
    "여권 등 사진이 있는 신분증을 확인하는 것이 좋습니다.",
    "서버에 접속할 때 쓸 사용자 이름을 입력하십시오.",
    "설정 파일을 만든 다음 HTML 형식으로 저장할 수 있습니다.",
    "또 해당 전자메일 주소로 키를 보낼 수 있습니다.",
    "신뢰하는 키만 표시하려면 목록에서 선택을 바꾸십시오.",
    "이 제한 설정은 검색 단위에 영향을 주지 않습니다.",
    "파일을 만들었다고 가정하고 다음 단계를 진행합니다.",
)
LATIN_WORDS = {"HTML"}


def test_hangul_words_the_latin_model_takes_as_latin_junk_are_read_again() -> None:
    """Read with ``Hangul+Latin``, "또" (also) came back as "T"; read again alone with the Hangul
    model it is Hangul, and the page's real Latin word, read with high confidence, stays."""
    image = script_page(KOREAN, "Hangul", size=46)
    png = io.BytesIO()
    image.save(png, format="PNG", dpi=(DPI, DPI))
    page = run(png.getvalue()).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    latin = [w for w in tokens(text) if re.search("[A-Za-z]", w)]
    assert set(latin) == LATIN_WORDS, text
    assert text_cer("\n".join(KOREAN), text) <= 0.01, text


# Two columns of a help page's sentences, one line of each side by side.
LEFT = (
    "검색 결과의 대소문자를 일치합니다.",
    "이 제한 설정은 검색 단어의",
    "대소문자가 일치하는 결과만 보입니다.",
    "터미널에서 전체 검색 단어와",
    "일치하는 대상을 찾습니다.",
    "리눅스 시스템에서 데비안을",
    "설치하는 방법을 확인하십시오.",
)
RIGHT = (
    "여권 등 사진이 있는 신분증을",
    "확인하는 것이 좋습니다.",
    "키를 백업할 방법을 선택하고",
    "개인 키를 표시합니다.",
    "서버에 접속할 때 쓸 사용자",
    "이름을 입력하십시오.",
    "파일을 만들었다고 가정합니다.",
)


def test_korean_words_stay_whole_when_a_line_is_cut_into_columns() -> None:
    """Tesseract returns a Korean word as syllables, which its line's text joins without a space;
    a line read across two columns is cut at the gutter and its text built again from its words,
    which put a space between every two ("결 과 의 대 소 문 자 를" for "결과의 대소문자를",
    bag-of-words F1 0.3): the engine gives each printed word as one word."""
    size = 30
    path, index = FONTS["Hangul"]
    font = ImageFont.truetype(path, size, index=index)
    image = Image.new("RGB", (PAGE_W, PAGE_H), "white")
    draw = ImageDraw.Draw(image)
    for i, (left, right) in enumerate(zip(LEFT, RIGHT, strict=True)):
        y = MARGIN + round(i * size * 1.6)
        draw.text((MARGIN, y), left, font=font, fill="black")
        draw.text((PAGE_W // 2 + 40, y), right, font=font, fill="black")
    png = io.BytesIO()
    image.save(png, format="PNG", dpi=(DPI, DPI))
    page = run(png.getvalue()).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert bag_of_words_f1("\n".join(LEFT + RIGHT), text) >= 0.9, text
    words = [w.text for block in page.blocks for line in block.lines for w in line.words]
    assert "대소문자를" in words and "시스템에서" in words, words


LIST = (
    "호스트 이름(직접 정할 수도 있습니다).",
    "도메인 이름.",
    "컴퓨터의 IP 주소.",
    "네트워크에 사용할 네트마스크.",
    "서버로 사용할 시스템.",
)


def test_bullets_the_hangul_model_reads_as_a_jamo_make_a_list() -> None:
    """The Hangul model reads a list's "•" as the jamo "ㆍ" (arae-a), a word of its own before a
    Korean word, which has no capital to show a list: the lines are list items again."""
    size = 30
    path, index = FONTS["Hangul"]
    font = ImageFont.truetype(path, size, index=index)
    image = Image.new("RGB", (PAGE_W, PAGE_H), "white")
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, MARGIN), "설치하기 전에 다음 정보를 확인하십시오:", font=font, fill="black")
    for i, item in enumerate(LIST):
        y = MARGIN + round((i + 1.5) * size * 1.7)
        draw.text((MARGIN + size, y), "•", font=font, fill="black")
        draw.text((MARGIN + round(size * 2.2), y), item, font=font, fill="black")
    png = io.BytesIO()
    image.save(png, format="PNG", dpi=(DPI, DPI))
    page = run(png.getvalue()).pages[0]
    lists = [block for block in page.blocks if block.type == "list"]
    assert len(lists) == 1 and len(lists[0].lines) == len(LIST), [b.text for b in page.blocks]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert "\u318d" not in text and "\u119e" not in text, text


# Latin words with the Korean particle printed straight after them.
PARTICLES = (
    "네트워크를 통해 접근해야 하는 경우, SSH를 설치하고 접근을 설정해야 합니다.",
    "이 경우에는 첫 번째 디스크의 MBR에 부트로더를 설치합니다.",
    "보통 DHCP를 사용할 때는 네트워크 설정을 할 필요가 없습니다.",
    "데비안 chroot 안에서 apt를 사용할 수 있습니다.",
    "키 데이터가 잘못되었습니다. UID가 없습니다.",
    "두 번째 명령이 grub을 설치합니다.",
    "라이브 시스템은 CD나 DVD같은 읽기 전용 미디어에서 부팅합니다.",
)
WITH_PARTICLE = {"SSH를", "MBR에", "DHCP를", "apt를", "UID가", "grub을"}


def test_a_korean_particle_after_a_latin_word_is_read_as_hangul() -> None:
    """The Latin model read the particle after a Latin word as a Latin letter or sign ("SSHE",
    "MBRA", "DHCPE", "UIDI", "grub&") or dropped it ("apt"), and the Hangul model alone reads the
    whole word as junk; the word's last glyph read alone with the Hangul model is the particle."""
    image = script_page(PARTICLES, "Hangul", size=30)
    png = io.BytesIO()
    image.save(png, format="PNG", dpi=(DPI, DPI))
    page = run(png.getvalue()).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    assert set(tokens(text)) >= WITH_PARTICLE, text
