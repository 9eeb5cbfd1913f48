"""Structure truth read from a tagged PDF: Chromium prints HTML whose structure we wrote, and the
tree PDFium reads back holds the same headings, paragraphs, list items and table cells in order."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
from data.made_documents import chromium_pdf
from data.structure_truth import TruthBlock, page_structure

HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>
<h1>Annual report of the water board</h1>
<p>The board met on Monday and agreed the budget for the coming year.</p>
<h2>Finances</h2>
<table border="1"><tr><th>Item</th><th>Amount</th></tr><tr><td>Pipes</td><td>7.7 %</td></tr></table>
<ul><li>First item</li><li>Second item</li></ul>
</body></html>"""


def test_a_tagged_pdf_gives_its_blocks_in_order(tmp_path: Path) -> None:
    source = tmp_path / "report.html"
    source.write_text(HTML)
    chromium_pdf(source, tmp_path / "report.pdf")
    assert page_structure(tmp_path / "report.pdf", 1) == [
        TruthBlock("heading", "Annual report of the water board", 1),
        TruthBlock("paragraph", "The board met on Monday and agreed the budget for the coming year."),
        TruthBlock("heading", "Finances", 2),
        TruthBlock("table", "Item Amount Pipes 7.7 %", rows=[["Item", "Amount"], ["Pipes", "7.7 %"]]),
        TruthBlock("list", "First item"),
        TruthBlock("list", "Second item"),
    ]


def test_an_untagged_pdf_has_no_structure_truth(tmp_path: Path) -> None:
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(200, 200)
    pdf.save(tmp_path / "blank.pdf")
    pdf.close()
    assert page_structure(tmp_path / "blank.pdf", 1) == []
