"""Never confident garbage: a page whose script has no installed model says so, naming the
package that would read it, and so does a page read with very low confidence. End to end through
``ocrqueue convert`` in a process of its own, whose Tesseract reads a language-data folder made of
the installed models minus one (TESSDATA_PREFIX)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ocrqueue.documents.engines.tesseract import find_tessdata
from ocrqueue.documents.ocr.script_recheck import LOW_CONFIDENCE

from .test_scripts_read import page_png


def tessdata_without(folder: Path, *models: str) -> Path:
    """A language-data folder holding every installed model but ``models``."""
    folder.mkdir()
    for installed in Path(find_tessdata()).glob("*.traineddata"):
        if installed.stem not in models:
            (folder / installed.name).symlink_to(installed)
    return folder


def convert(source: Path, out: Path, tessdata: Path | None = None) -> dict[str, object]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("OCRQUEUE_")}
    env["OCRQUEUE_DATA_DIR"] = str(out.parent / "data")
    if tessdata is not None:
        env["TESSDATA_PREFIX"] = str(tessdata)
    command = [sys.executable, "-m", "ocrqueue", "convert", str(source), "-o", str(out), "-f", "json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    page: dict[str, object] = json.loads((out / source.stem / f"{source.stem}.json").read_text())["pages"][0]
    return page


def test_a_page_whose_script_has_no_model_says_which_package_reads_it(tmp_path: Path) -> None:
    source = tmp_path / "greek.png"
    source.write_bytes(page_png("Greek"))
    page = convert(source, tmp_path / "out", tessdata_without(tmp_path / "tessdata", "Greek"))
    assert "Greek text: no model installed; apt-get install tesseract-ocr-script-grek" in page["warnings"]
    # With the model (test_scripts_read.py) the same page is read with Greek and eng, no warning.
    assert page["scripts"] == ["Greek"] and set(page["languages"]) <= {"eng", "Latin"}


def test_a_page_read_with_very_low_confidence_says_so(tmp_path: Path) -> None:
    """Thai read with the Latin model only (the Thai script and language models removed, and
    OSD's look at a page of Thai gives Thai, whose missing model is named too)."""
    source = tmp_path / "thai.png"
    source.write_bytes(page_png("Thai"))
    page = convert(source, tmp_path / "out", tessdata_without(tmp_path / "tessdata", "Thai", "tha"))
    warnings = page["warnings"]
    assert isinstance(warnings, list)
    assert "Thai text: no model installed; apt-get install tesseract-ocr-script-thai" in warnings
    low = [w for w in warnings if w.startswith("read with very low confidence")]
    assert len(low) == 1 and float(low[0].split("word confidence ")[1].split(")")[0]) < LOW_CONFIDENCE


def test_a_page_whose_script_has_no_model_is_not_read_as_chinese(tmp_path: Path) -> None:
    """Hindi with the Devanagari model removed: read with the Latin model, its poor lines read as
    Chinese by the second look hold Han characters, and the page went to RapidOCR, recorded as
    Latin and Han (dev Tamil and Telugu pages did the same); it stays Devanagari, with both doubts."""
    source = tmp_path / "hindi.png"
    source.write_bytes(page_png("Devanagari"))
    page = convert(source, tmp_path / "out", tessdata_without(tmp_path / "tessdata", "Devanagari"))
    assert page["source"] == "tesseract" and page["scripts"] == ["Devanagari"]
    warnings = page["warnings"]
    assert isinstance(warnings, list)
    assert "Devanagari text: no model installed; apt-get install tesseract-ocr-script-deva" in warnings
    assert any(w.startswith("read with very low confidence") for w in warnings)
