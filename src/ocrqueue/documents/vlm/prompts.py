"""GLM-OCR's task prompts, and cleaning of what a model answers to them.

GLM-OCR is trained on exactly these prompts; other vision models (GLM-4.6V-Flash, Qwen-VL, …)
follow them well enough. Answers often come wrapped in Markdown code fences or math delimiters,
which are stripped here so `EngineOutput.markup` holds bare HTML/Markdown or bare LaTeX.
"""

from __future__ import annotations

import html
import re

TEXT_PROMPT = "Text Recognition:"
TABLE_PROMPT = "Table Recognition:"
FORMULA_PROMPT = "Formula Recognition:"

# By the engines' task (engines/base.py `Task`); the model server's client knows no engine.
PROMPTS: dict[str, str] = {
    "text": TEXT_PROMPT,
    "cell": TEXT_PROMPT,
    "line": TEXT_PROMPT,
    "table": TABLE_PROMPT,
    "formula": FORMULA_PROMPT,
}

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```\s*$", re.DOTALL)
_MATH = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))
_HEADING = re.compile(r"^#{1,6}\s+")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.DOTALL | re.IGNORECASE)
_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")


def prompt_for(task: str) -> str:
    return PROMPTS[task]


def strip_fence(answer: str) -> str:
    """The inside of a Markdown code fence wrapping the whole answer, else the answer, trimmed."""
    matched = _FENCE.match(answer)
    return (matched.group(1) if matched else answer).strip()


def clean_formula(answer: str) -> str:
    """Bare LaTeX: fences and one pair of surrounding math delimiters removed."""
    latex = strip_fence(answer)
    for left, right in _MATH:
        if latex.startswith(left) and latex.endswith(right) and len(latex) > len(left) + len(right):
            return latex[len(left) : -len(right)].strip()
    return latex


def text_lines(answer: str) -> list[str]:
    """A text answer as lines: fences, Markdown heading marks and bold markers removed, blanks dropped.

    Layout decides what is a title; the model's Markdown decorations would only be escaped later.
    """
    lines = []
    for raw in strip_fence(answer).splitlines():
        line = _BOLD.sub(r"\1", _HEADING.sub("", raw.strip())).strip()
        if line:
            lines.append(line)
    return lines


def table_lines(markup: str) -> list[str]:
    """One plain-text line per table row (cells separated by spaces), from HTML or Markdown tables."""
    rows = _ROW.findall(markup)
    if rows:
        out = []
        for row in rows:
            cells = [html.unescape(_TAG.sub("", cell)).strip() for cell in _CELL.findall(row)]
            text = " ".join(cell for cell in cells if cell)
            if text:
                out.append(text)
        return out
    out = []
    for raw in markup.splitlines():
        line = raw.strip()
        if not line or set(line) <= set("|-: "):
            continue  # a Markdown table's separator row
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        text = " ".join(cell for cell in cells if cell)
        if text:
            out.append(text)
    return out
