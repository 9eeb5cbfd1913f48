"""Lines that read as web addresses (ocr/address_lines.py): not probed for other scripts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ocrqueue.documents.ocr.address_lines import reads_as_address


@pytest.mark.parametrize(
    "text",
    [
        "https://www.latex-project.org/publications/",
        "https: //www. latex-project .org/publications/",  # cut at its punctuation, as Tesseract reads it
        "https: //latex-project .org/news/latex2e-news/",
        "ftp://ftp.debian.org/debian/",
        "www.ctan.org/pkg/babel",
        "git clone https://github.com/example/templates.git",
    ],
)
def test_a_line_mostly_of_web_addresses_reads_as_one(text: str) -> None:
    assert reads_as_address(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "file clsguide.tex.",
        "Available from https://www.ctan.org and distributed as part of every LaTeX distribution.",
        "ΠρνΒετ, mnp! Kak gena y BCex cerogHa?",  # Russian read with Greek+Latin
        "FASHE MIHI, w 2 oH ALE",  # Korean read with Latin
        "e.g. the www. page of the project",
    ],
)
def test_prose_and_other_scripts_read_as_latin_are_not_addresses(text: str) -> None:
    assert not reads_as_address(text)


@given(st.text(alphabet=st.characters(exclude_characters="/"), max_size=80))
def test_text_without_a_slash_or_www_is_no_address(text: str) -> None:
    if "www" not in text.lower():
        assert not reads_as_address(text)
