"""Korean pages read with the Hangul model and the Latin model beside it: Hangul words the Latin
model takes as Latin capitals are read again with the Hangul model alone
(engines/tesseract.py, ``REREAD_STOLEN_MODELS``)."""

from __future__ import annotations

import io
import re

from data.script_pages import DPI, script_page
from metrics import text_cer, tokens

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
