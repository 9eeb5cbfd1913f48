"""Lines that read as web addresses: Latin text read unsurely for its symbols, not for its script.

Tesseract reads a line of a reference list such as "https://www.latex-project.org/publications/"
right, letter for letter, at a word confidence of 0.0 to 0.3 (a typewriter face, no dictionary
word, slashes and dots; the dev scans of ltnews pp. 41 and 61). Such lines were the poor lines
that the script probes looked at on those pages (script_recheck.py: OSD on them stacked, each read
again with ``chi_sim+eng``; line_scripts.py: OSD on each repeated, and on one that OSD called Han,
readings with the models of Korean, Japanese and Chinese), about 1 s of one core on a 200-dpi scan
of p. 41 (bare Tesseract reads the whole page in 1.2 s) for answers that were always "Latin". A
line in another script read with the wrong model comes back as letters and punctuation of that
model's script, never as a scheme and "://" or "www.": a line mostly made of such addresses is no
line of another script, and is not probed.
"""

from __future__ import annotations

import re

# An address: a scheme and "://" ("https://", "ftp://"), or a host name starting "www.", up to the
# next space.
ADDRESS = re.compile(r"(?<![\w.+-])(?:[a-z][a-z0-9+.-]*://|www\.)\S+", re.IGNORECASE)
# Tesseract cuts an address at its punctuation ("https: //www. latex-project .org/news/"): spaces
# before and after ":", "/" and "." are taken out before looking for one.
CUT = re.compile(r"\s+(?=[:/.])|(?<=[:/.])\s+")
# The share of a line's characters (spaces left out) that addresses must make up.
ADDRESS_SHARE = 0.5


def reads_as_address(text: str) -> bool:
    """Whether ``ADDRESS_SHARE`` or more of ``text``'s characters (spaces left out) are in web
    addresses (``ADDRESS``), once the spaces Tesseract put into them are taken out."""
    joined = CUT.sub("", text.strip())
    chars = len("".join(joined.split()))
    if not chars:
        return False
    in_addresses = sum(len(m.group()) for m in ADDRESS.finditer(joined))
    return in_addresses >= ADDRESS_SHARE * chars
