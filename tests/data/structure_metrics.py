"""Structure measures beside CER: headings, paragraph boundaries, tables and block order.

- Headings: predicted headings matched one to one to true ones whose normalised text is at least
  ``HEADING_MATCH`` similar (rapidfuzz ratio); precision, recall and F1 from the counts.
- Paragraph boundaries: the words where a block starts (heading, paragraph, list item), in the
  truth and in the reading; the truth's words are aligned to the reading's (difflib, in order),
  and a boundary counts when the word it starts at is aligned to a word that starts a block there.
  A list block's items are blocks of their own (the truth has one per ``/LI``); a true item's label
  (its number or letter) the reading left out is stepped over. A reading's boundary is judged
  only inside the truth's text: one at a word the truth does not have (a running head or a
  printer's stamp the tags leave out as an artifact, a table's text) or before the truth's first
  word (after such a head) falls where the truth cannot say, and is not counted.
- Tables: a simplified TEDS on cell grids. The tree is table -> rows -> cells; its edit distance
  is computed with the rows aligned in order (inserting or deleting a row costs 1 plus its cells)
  and, within a pair of rows, the cells aligned in order (inserting or deleting a cell costs 1,
  renaming one its normalised Levenshtein distance). This restricted distance is never below the
  general tree edit distance (APTED), so the similarity 1 - distance / max(nodes) is never above
  the standard TEDS; 1 for equal grids, symmetric, in [0, 1]. Cell-text F1 compares the multisets
  of the cells' normalised texts, whatever their places.
- Reading order: each true block is placed in the reading at the median position of its word
  trigrams found there; Kendall's tau between the true order and those places, as (tau + 1) / 2,
  so 1 is the true order and 0 the reverse. Order-free, unlike CER: a block read whole but in the
  wrong place costs here, a misread word does not.
"""

from __future__ import annotations

import difflib
import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

HEADING_MATCH = 80.0
_LABEL = re.compile(r"\d{1,3}|[a-z]|[ivx]{1,4}")  # a list item's number or letter, as a word


@dataclass(frozen=True)
class Counts:
    """Matches, predicted and true items: precision, recall and F1 add up over pages."""

    matched: int
    predicted: int
    true: int

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.matched + other.matched, self.predicted + other.predicted, self.true + other.true)

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else (1.0 if not self.true else 0.0)

    @property
    def recall(self) -> float:
        return self.matched / self.true if self.true else (1.0 if not self.predicted else 0.0)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().lower()


def words(text: str) -> list[str]:
    return re.findall(r"\w+", norm(text))


def heading_counts(true: Sequence[str], predicted: Sequence[str]) -> Counts:
    """One-to-one matches of predicted to true headings, most similar pairs first."""
    pairs = sorted(
        ((fuzz.ratio(norm(t), norm(p)), i, j) for i, t in enumerate(true) for j, p in enumerate(predicted)),
        reverse=True,
    )
    used_true: set[int] = set()
    used_pred: set[int] = set()
    for score, i, j in pairs:
        if score < HEADING_MATCH:
            break
        if i not in used_true and j not in used_pred:
            used_true.add(i)
            used_pred.add(j)
    return Counts(len(used_true), len(predicted), len(true))


def _starts(blocks: Sequence[str]) -> tuple[list[str], set[int]]:
    """The blocks' words in a row, and the indices where a block other than the first starts."""
    out: list[str] = []
    starts: set[int] = set()
    for block in blocks:
        w = words(block)
        if w:
            if out:
                starts.add(len(out))
            out.extend(w)
    return out, starts


def boundary_counts(true: Sequence[str], predicted: Sequence[str]) -> Counts:
    """Block boundaries of the reading that fall where the truth has one."""
    true_words, true_starts = _starts(true)
    pred_words, pred_starts = _starts(predicted)
    aligned: dict[int, int] = {}
    place: dict[int, int] = {}  # a reading's word -> the truth's word it stands for
    matcher = difflib.SequenceMatcher(None, true_words, pred_words, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(j2 - j1):
            if op == "equal":
                aligned[i1 + k] = j1 + k
            if op != "insert":  # a misread word stands for the truth's; an inserted one for none
                place[j1 + k] = i1 + min(k, i2 - i1 - 1)
    # Boundaries of the reading judged: inside the truth's text (see the module's docstring).
    judged = {b for b in pred_starts if place.get(b, 0) > 0}
    matched = 0
    for i in true_starts:
        # A list item's label ("311.", "a)") is in the tagged text; a reading gives the item without
        # it (the Markdown list numbers its items itself), so an unaligned label is stepped over.
        if i not in aligned and i + 1 < len(true_words) and _LABEL.fullmatch(true_words[i]):
            i += 1
        matched += i in aligned and aligned[i] in judged
    return Counts(matched, len(judged), len(true_starts))


def _cell_cost(a: str, b: str) -> float:
    return Levenshtein.normalized_distance(norm(a), norm(b))


def _align(a: Sequence[object], b: Sequence[object], delete_a: list[float], insert_b: list[float], sub) -> float:  # type: ignore[no-untyped-def]
    prev = [0.0]
    for j in range(len(b)):
        prev.append(prev[-1] + insert_b[j])
    for i in range(len(a)):
        cur = [prev[0] + delete_a[i]]
        for j in range(len(b)):
            cur.append(min(prev[j + 1] + delete_a[i], cur[j] + insert_b[j], prev[j] + sub(a[i], b[j])))
        prev = cur
    return prev[-1]


def _row_cost(a: Sequence[str], b: Sequence[str]) -> float:
    return _align(a, b, [1.0] * len(a), [1.0] * len(b), _cell_cost)


def teds(true: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Simplified tree-edit-distance similarity of two cell grids (see the module's docstring)."""
    nodes_true = 1 + len(true) + sum(len(r) for r in true)
    nodes_pred = 1 + len(predicted) + sum(len(r) for r in predicted)
    distance = _align(
        true,
        predicted,
        [1.0 + len(r) for r in true],
        [1.0 + len(r) for r in predicted],
        _row_cost,
    )
    return max(0.0, 1.0 - distance / max(nodes_true, nodes_pred))


def cell_text_f1(true: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    t = Counter(norm(c) for row in true for c in row if norm(c))
    p = Counter(norm(c) for row in predicted for c in row if norm(c))
    return Counts(sum((t & p).values()), sum(p.values()), sum(t.values())).f1


def best_tables(
    true: Sequence[Sequence[Sequence[str]]], predicted: Sequence[Sequence[Sequence[str]]]
) -> list[tuple[float, float]]:
    """For each true table, (TEDS, cell-text F1) with the predicted table most like it (each used
    once, best pairs first); (0, 0) for a true table nothing was found for."""
    pairs = sorted(((teds(t, p), i, j) for i, t in enumerate(true) for j, p in enumerate(predicted)), reverse=True)
    chosen: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in pairs:
        if i not in chosen and j not in used:
            chosen[i] = j
            used.add(j)
    return [
        (teds(t, predicted[chosen[i]]), cell_text_f1(t, predicted[chosen[i]])) if i in chosen else (0.0, 0.0)
        for i, t in enumerate(true)
    ]


def order_score(true_blocks: Sequence[str], reading: str) -> float | None:
    """(Kendall tau + 1) / 2 of the true blocks' places in the reading; None with fewer than two
    blocks placed."""
    read = words(reading)
    first: dict[tuple[str, ...], int] = {}
    for k in range(len(read) - 2):
        first.setdefault(tuple(read[k : k + 3]), k)
    places: list[float] = []
    for block in true_blocks:
        w = words(block)
        found = [first[g] for g in (tuple(w[k : k + 3]) for k in range(len(w) - 2)) if g in first]
        if found:
            places.append(statistics.median(found))
    if len(places) < 2:
        return None
    concordant = discordant = 0
    for i in range(len(places)):
        for j in range(i + 1, len(places)):
            if places[j] > places[i]:
                concordant += 1
            elif places[j] < places[i]:
                discordant += 1
    pairs = len(places) * (len(places) - 1) / 2
    return ((concordant - discordant) / pairs + 1) / 2
