"""Greek kappa drawn as ϰ (as Greek TeX fonts draw it), which the Greek model reads as χ, is put
back where the model's own word list says so (engines/greek_kappa.py). The page is polytonic Greek
in the manner of the dev elhyphen-modern manual, drawn in DejaVu Serif (10 pt at 300 dpi) with
each κ set as ϰ; the words with a real χ must keep it."""

from __future__ import annotations

import io

from metrics import tokens
from PIL import Image, ImageDraw, ImageFont

from ocrqueue.documents.engines.greek_kappa import kappa_for_chi

from .helpers import run

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
LINES = (
    "Οἱ ἀντίστοιχοι κώδικες εἶναι γραμμένοι σὲ κάθε ἀρχεῖο καὶ ἔχουν κανόνες.",
    "Τὸ κείμενο χωρίζεται σὲ συλλαβὲς κατὰ τοὺς κανόνες τῆς γλώσσας.",
    "Ἡ μηχανὴ δὲν μπορεῖ νὰ διακρίνει κάποιες λέξεις καὶ ἄλλοτε ὄχι.",
    "Μεταξὺ τῶν κωδίκων ὑπάρχουν καὶ κάποιες ἐξαιρέσεις γιὰ τὴ χώρα.",
    "Ὁ κώδικας καὶ τὸ κείμενο ἔχουν δημιουργηθεῖ ἀπὸ τὸν ἴδιο χρήστη.",
    "Στοὺς κώδικες αὐτοὺς προσθέτουμε μερικοὺς ἀκόμα γιὰ κάθε περίπτωση.",
)
WITH_KAPPA = {"κώδικες", "διακρίνει", "καὶ", "κείμενο"}
WITH_CHI = {"ἀρχεῖο", "ἔχουν", "χωρίζεται", "μηχανὴ", "ὄχι", "ὑπάρχουν", "χώρα", "χρήστη"}


def greek_page(lines: tuple[str, ...] = LINES) -> bytes:
    font = ImageFont.truetype(SERIF, 42)
    image = Image.new("RGB", (2480, 3508), "white")
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((236, 300 + row * 80), line.replace("κ", "ϰ"), font=font, fill="black")
    png = io.BytesIO()
    image.save(png, format="PNG", dpi=(300, 300))
    return png.getvalue()


def test_kappa_drawn_as_varkappa_is_read_as_kappa() -> None:
    """Before: "κώδιχες", "διαχρίνει", "χαὶ", "χείμενο"."""
    page = run(greek_page()).pages[0]
    text = "\n".join(line.text for block in page.blocks for line in block.lines)
    words = set(tokens(text.replace("\u00b5", "\u03bc")))
    assert words >= WITH_KAPPA, text
    assert words >= WITH_CHI, text


def test_only_words_the_list_makes_of_kappa_change() -> None:
    words = frozenset({"κώδικες", "καὶ", "ἔχει", "χώρα", "ἔκει"})
    assert kappa_for_chi("Οἱ χώδιχες χαὶ", words) == "Οἱ κώδικες καὶ"
    assert kappa_for_chi("ἔχει χώρα", words) == "ἔχει χώρα"  # listed as read
    assert kappa_for_chi("χαλός", words) == "χαλός"  # no word with κ either
    assert kappa_for_chi("ΧΑῚ", words) == "ΚΑῚ"
    assert kappa_for_chi("(π.χ., ἀ-πό-η-χος χαὶ", words | {"κ", "κος"}) == "(π.χ., ἀ-πό-η-χος καὶ"
    assert kappa_for_chi("χαὶ", frozenset()) == "χαὶ"  # no list, no change


QUOTING_LATIN = "Τὸ TEX καὶ τὸ LaTeX γράφουν τὸν κανόνα στὸ ἀρχεῖο hyphen.tex σωστά."
LATIN_WORDS = {"TEX", "LaTeX", "hyphen.tex"}


def test_a_greek_word_read_as_latin_letters_is_read_again_with_the_greek_model() -> None:
    """Before: "Ὁ κώδικας xa τὸ κείμενο" (the ϰ of "καὶ" read by ``Greek+Latin`` as a Latin x,
    as "xal", "XA", "xol" on the dev elhyphen-modern scans); the Latin words quoted stay Latin."""
    page = run(greek_page((*LINES, QUOTING_LATIN))).pages[0]
    lines = [line.text for block in page.blocks for line in block.lines]
    latin = {w.strip(".,") for line in lines for w in line.split() if any(c.isascii() and c.isalpha() for c in w)}
    assert latin == LATIN_WORDS, lines
    assert tokens(" ".join(lines)).count("καὶ") == 5, lines
