"""The words of an installed Tesseract model's word list (its ``lstm-word-dawg``), taken out of the
model with Tesseract's own tools (combine_tessdata, dawg2wordlist, Debian's tesseract-ocr
package). Without the model or the tools, or when they fail, there are none.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


def model_words(tessdata: str, model: str) -> list[str]:
    """The words of ``model``'s word list as listed (each once), empty when the model or the
    tools are missing or fail."""
    traineddata = Path(tessdata) / f"{model}.traineddata"
    if not traineddata.is_file() or not shutil.which("combine_tessdata") or not shutil.which("dawg2wordlist"):
        return []
    with tempfile.TemporaryDirectory() as folder:
        dawg, unicharset, out = (Path(folder) / n for n in ("w.lstm-word-dawg", "w.lstm-unicharset", "words.txt"))
        try:
            subprocess.run(
                ["combine_tessdata", "-e", str(traineddata), str(dawg), str(unicharset)],
                check=True,
                capture_output=True,
                timeout=60,
            )
            subprocess.run(
                ["dawg2wordlist", str(unicharset), str(dawg), str(out)], check=True, capture_output=True, timeout=60
            )
            with out.open(encoding="utf-8") as lines:
                return [word for word in (ln.strip() for ln in lines) if word]
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
            return []
