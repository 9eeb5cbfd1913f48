"""Markdown escaping: only what would change the Markdown's meaning gets a backslash or an entity,
and a CommonMark parser (with GitHub's tables and strikethrough) gives back exactly the text."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from ocrqueue.documents.geometry import BBox
from ocrqueue.documents.model import Block
from ocrqueue.documents.output.markdown import block_markdown, escape

PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
BOX = BBox(0, 0, 10, 10)

_line = st.text(
    alphabet=st.sampled_from("aZ09 _*#>-+=.)(`~|[]!:<>&;\\/\"'{}é漢"),
    min_size=1,
    max_size=24,
).map(str.strip)
paragraphs = st.lists(_line.filter(bool), min_size=1, max_size=4).map("\n".join)


def _rendered(markdown: str) -> str:
    return PARSER.render(markdown)


@settings(max_examples=600)
@given(paragraphs)
@example("synthesizers!")
@example("(Timing correction may be adjusted)")
@example("a\n---")
@example("a | b\n--|--")
@example("|\n:-")
@example("[x](y) and ![i](j) and [r]: /url")
@example("<div>\nx")
@example("&copy; &#35; & a")
@example("~~gone~~ ~ok")
@example("1) one\n2. two\n- three\n+ four\n* five")
@example("a  \\\nb\\")
def test_escaped_paragraph_renders_back_to_the_text(text: str) -> None:
    assert _rendered(escape(text)) == f"<p>{escapeHtml(text)}</p>\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("synthesizers!", "synthesizers!"),
        ("(Timing correction may be adjusted)", "(Timing correction may be adjusted)"),
        ("3.50 stays, a * b stays, snake_case stays", "3.50 stays, a * b stays, snake_case stays"),
        ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"),
        ("# not a heading", "\\# not a heading"),
        ("- not a list", "\\- not a list"),
        ("1. not a list", "1\\. not a list"),
        ("*em* _em_ [link](x)", "\\*em\\* \\_em\\_ [link\\](x)"),
        ("a & b &amp; c", "a & b &amp;amp; c"),
        ("run `make`", "run \\`make\\`"),
    ],
)
def test_only_meaningful_characters_are_escaped(text: str, expected: str) -> None:
    assert escape(text) == expected


@given(_line.filter(bool))
@example("0 *")
@example("*a")
def test_heading_list_and_caption_show_their_text(text: str) -> None:
    assert _rendered(block_markdown(Block("title", BOX, text, level=2))) == f"<h2>{escapeHtml(text)}</h2>\n"
    assert _rendered(block_markdown(Block("list", BOX, text))) == f"<ul>\n<li>{escapeHtml(text)}</li>\n</ul>\n"
    assert _rendered(block_markdown(Block("caption", BOX, text))) == f"<p><em>{escapeHtml(text)}</em></p>\n"
