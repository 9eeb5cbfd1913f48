"""Render blocks as Markdown. Document text is data: whatever Markdown or HTML would interpret
(tags, entities, emphasis, headings, list markers, links, code spans, table pipes) is escaped, so
an uploaded page that says ``<script>`` shows those characters and never injects markup. Nothing
else is escaped: people feed this text to search and language models, and "synthesizers\\!" or
"\\(Timing\\)" is noise to them. The rules follow CommonMark (plus GitHub's ``~~`` and tables)."""

from __future__ import annotations

import html
import itertools
import re
import unicodedata

from ocrqueue.documents.model import Block, PageResult, Table
from ocrqueue.documents.output.paragraphs import joined_paragraphs

# Line starts that would open a block; group 1 is the character that gets the backslash.
_BLOCK_STARTS = (
    re.compile(r"^ {0,3}(#)#{0,5}(?=[ \t]|$)"),  # ATX heading
    re.compile(r"^ {0,3}(>)"),  # block quote
    re.compile(r"^ {0,3}([-+*])(?=[ \t]|$)"),  # bullet list item
    re.compile(r"^ {0,3}\d{1,9}([.)])(?=[ \t]|$)"),  # ordered list item
    re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$"),  # thematic break
    re.compile(r"^ {0,3}(=)=*[ \t]*$"),  # setext heading underline
    re.compile(r"^ {0,3}(-)-*[ \t]*$"),
)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_DELIMITER_ROW = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-*:?[ \t]*)*$")
_BACKTICKS = re.compile(r"`+")
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _kind(ch: str) -> str:
    """ "space", "punct" or "word", as CommonMark's flanking rules see a neighbouring character
    (the line's ends count as space)."""
    if not ch or ch.isspace():
        return "space"
    if ch in _ASCII_PUNCT or unicodedata.category(ch)[0] in "PS":
        return "punct"
    return "word"


def _needs_escape(line: str, i: int, pipes: bool, brackets: bool) -> bool:
    ch = line[i]
    before, after = line[i - 1] if i else "", line[i + 1] if i + 1 < len(line) else ""
    if ch == "`":
        return True
    if ch == "\\":
        return after == "" or after in _ASCII_PUNCT  # an escape, or a hard line break at the end
    if ch == "*":  # can open or close emphasis unless it stands between spaces
        return not (_kind(before) == "space" and _kind(after) == "space")
    if ch == "_":  # within a word, or between spaces, it cannot
        return not (_kind(before) == _kind(after) and _kind(before) in ("space", "word"))
    if ch == "~":
        return "~" in (before, after)
    if ch in "[]" and brackets:
        return True
    if ch == "]":
        return after in ("(", "[", ":")  # an inline link, a reference, a definition
    if ch == "|":
        return pipes
    return False


def _escape_line(line: str, pipes: bool, brackets: bool, delimiter_row: bool = False) -> str:
    """``delimiter_row``: the line would be a table's delimiter row; its first character gets the
    backslash (a delimiter row holds only ``|``, ``:``, ``-`` and spaces), since escaping the pipes
    alone still leaves a one-column table (``|`` over ``:-``)."""
    block_start = len(line) - len(line.lstrip(" \t")) if delimiter_row else -1
    for pattern in _BLOCK_STARTS:
        match = pattern.match(line)
        if match:
            block_start = match.start(1)
            break
    out: list[str] = []
    for i, ch in enumerate(line):
        if ch == "<" and i + 1 < len(line) and (line[i + 1].isalpha() or line[i + 1] in "/!?"):
            out.append("&lt;")  # the start of a tag, a comment or an autolink
        elif ch == "&" and _ENTITY.match(line, i):
            out.append("&amp;")
        elif i == block_start or _needs_escape(line, i, pipes, brackets):
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def escape(text: str, pipes: bool = False, brackets: bool = False) -> str:
    """Document text as Markdown that shows it verbatim. ``pipes``: always escape ``|`` (table
    cells); otherwise only in a paragraph that has a line a GitHub table would take for its
    delimiter row. ``brackets``: every ``[`` and ``]`` (inside an image description)."""
    lines = text.split("\n")
    rows = [bool("|" in text and "-" in ln and _DELIMITER_ROW.match(ln)) for ln in lines]
    pipes = pipes or any(rows)
    return "\n".join(_escape_line(line, pipes, brackets, row) for line, row in zip(lines, rows, strict=True))


_CLOSING_HASHES = re.compile(r"(?:^|(?<=[ \t]))#+[ \t]*$")


def escape_heading(text: str) -> str:
    """One line of heading text; a trailing run of ``#`` would be taken for the closing sequence."""
    escaped = escape(text.replace("\n", " "))
    match = _CLOSING_HASHES.search(escaped)
    return escaped[: match.start()] + "\\" + escaped[match.start() :] if match else escaped


def _cell(text: str) -> str:
    return escape(text.replace("\n", " "), pipes=True)


def table_markdown(table: Table) -> str:
    """A pipe table when every cell is a plain single cell, otherwise an HTML table with spans."""
    if not table.has_spans and table.n_rows >= 1:
        rows = table.grid()
        lines = ["| " + " | ".join(_cell(c) for c in rows[0]) + " |", "|" + "---|" * table.n_cols]
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows[1:]]
        return "\n".join(lines)
    out = ["<table>"]
    for r in range(table.n_rows):
        out.append("<tr>")
        for cell in (c for c in table.cells if c.row == r):
            attrs = (f' rowspan="{cell.row_span}"' if cell.row_span > 1 else "") + (
                f' colspan="{cell.col_span}"' if cell.col_span > 1 else ""
            )
            out.append(f"<td{attrs}>{html.escape(cell.text)}</td>")
        out.append("</tr>")
    out.append("</table>")
    return "\n".join(out)


def _emphasis_body(escaped: str) -> str:
    """Text set between ``*`` and ``*``: a ``*`` at either end would join the delimiter run."""
    if escaped.startswith("*"):
        escaped = "\\" + escaped
    if escaped.endswith("*") and not escaped.endswith("\\*"):
        escaped = escaped[:-1] + "\\*"
    return escaped


_MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001"  # around a marker until the text is escaped


def _marked(block: Block) -> str:
    """The block's text with each superscript word (a footnote or reference marker) between
    private-use marks, found after the word it follows; escaping leaves the marks alone."""
    text, cursor = block.text, 0
    words = [w for ln in block.lines for w in ln.words]
    for before, word in itertools.pairwise(words):
        if word.role != "superscript":
            continue
        at = text.find(before.text + word.text, cursor)
        if at < 0:
            continue
        cut = at + len(before.text)
        text = text[:cut] + _MARK_OPEN + word.text + _MARK_CLOSE + text[cut + len(word.text) :]
        cursor = cut + len(word.text) + 2
    return text


def _superscripts(markdown: str) -> str:
    """Pandoc's superscript: ``reference^2^``."""
    return markdown.replace(_MARK_OPEN, "^").replace(_MARK_CLOSE, "^")


def block_markdown(block: Block) -> str:
    if block.type in ("title", "list", "caption", "text"):
        return _superscripts(_prose_markdown(block, _marked(block)))
    return _prose_markdown(block, block.text)


def _prose_markdown(block: Block, text: str) -> str:
    if block.type == "title":
        return "#" * min(6, block.level or 1) + " " + escape_heading(text)
    if block.type == "list":
        return "\n".join(_list_item(item) for item in text.split("\n"))
    if block.type == "code":
        fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(block.text)), default=0))
        return f"{fence}\n{block.text}\n{fence}"
    if block.type == "table" and block.table is not None:
        return table_markdown(block.table)
    if block.type == "formula" and block.latex:
        return f"$$\n{block.latex}\n$$"
    if block.type == "figure" and block.image:
        # Its first line (a chart's title) describes it; the rest (axis labels) is in the JSON only.
        alt = escape(block.text.split("\n", 1)[0], brackets=True) or "figure"
        return f"![{alt}]({block.image})"
    if block.type == "caption":
        return f"*{_emphasis_body(escape(text))}*"
    return escape(text)


_TASK_BOXES = {"\u2610": "[ ]", "\u2612": "[x]"}


def _list_item(item: str) -> str:
    """An item; one starting with a check box (☐, ☒) is a task list item: ``- [ ] text``."""
    box = _TASK_BOXES.get(item[:1])
    if box is not None and item[1:2] == " ":
        return f"- {box} {escape(item[2:])}"
    return f"- {escape(item)}"


def page_markdown_parts(page: PageResult, include_headers: bool = False) -> list[str]:
    """A page's blocks as Markdown paragraphs (joined by blank lines); running headers and footers
    only when asked for; a paragraph's parts in two columns one paragraph (``joined_paragraphs``)."""
    parts: list[str] = []
    for block in joined_paragraphs(page.blocks):
        if block.type in ("header", "footer") and not include_headers:
            continue
        text = block_markdown(block)
        if text.strip():
            parts.append(text)
    return parts
