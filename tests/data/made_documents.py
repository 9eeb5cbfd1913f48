"""Documents the evaluation makes itself with real producers: Chromium's print to PDF (Skia),
LibreOffice Writer and Calc (tagged PDF export), Ghostscript (a Chromium PDF rewritten by
pdfwrite, as a print-to-PDF driver does) and groff (a real manual page, through
PostScript and Ghostscript).

Their words come from texts every Debian system carries (the licences in /usr/share/common-licenses
and the manual pages), arranged by a seeded generator into the kinds of documents people send:
reports, letters, invoices, receipts, exam sheets, forms, newspapers, magazines, slides and
spreadsheets. The HTML is written with the structure in mind (h1/h2, p, li, table), so the tagged
PDFs that Chromium and LibreOffice export carry a structure tree that is the truth of headings,
paragraphs, lists and tables (tests/data/structure_truth.py reads it).
"""

from __future__ import annotations

import gzip
import html
import random
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

LICENCES = Path("/usr/share/common-licenses")
_PROSE_FILES = ("GPL-3", "Apache-2.0", "MPL-2.0", "GFDL-1.3", "LGPL-2.1", "Artistic", "CC0-1.0")
PRODUCERS = ("chromium", "libreoffice", "ghostscript", "calc", "groff")


class MakeError(RuntimeError):
    """A producer is missing or failed."""


def _sentences() -> list[str]:
    text = " ".join(
        (LICENCES / name).read_text(errors="replace") for name in _PROSE_FILES if (LICENCES / name).is_file()
    )
    text = re.sub(r"\s+", " ", text)
    found = [s.strip() for s in re.split(r"(?<=[.;])\s+(?=[A-Z])", text)]
    return [s for s in found if 40 <= len(s) <= 260 and not re.search(r"[<>{}_=|#*]|https?:|www\.", s)]


class _Words:
    """A seeded source of sentences, paragraphs, titles, names and amounts."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.pool = _sentences()

    def sentence(self) -> str:
        return self.rng.choice(self.pool)

    def paragraph(self, low: int = 2, high: int = 5) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(low, high)))

    def title(self, low: int = 2, high: int = 6) -> str:
        words = [w.strip(".,;:()\"'") for w in self.sentence().split()]
        words = [w for w in words if w.isalpha()]
        start = self.rng.randint(0, max(0, len(words) - high))
        chosen = words[start : start + self.rng.randint(low, high)] or ["Notes"]
        return " ".join(chosen).capitalize()

    def name(self) -> str:
        first = ("Anna", "Ben", "Carla", "David", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luis")
        last = ("Meyer", "Novak", "Olsen", "Petit", "Quinn", "Rossi", "Schmidt", "Tanaka", "Ueda", "Varga", "Weber")
        return f"{self.rng.choice(first)} {self.rng.choice(last)}"

    def amount(self) -> str:
        return f"{self.rng.randint(1, 2400)}.{self.rng.randint(0, 99):02d}"

    def date(self) -> str:
        return f"{self.rng.randint(1, 28):02d}.{self.rng.randint(1, 12):02d}.20{self.rng.randint(18, 26)}"


def _e(text: str) -> str:
    return html.escape(text, quote=False)


def _table(rows: list[list[str]], head: bool = True) -> str:
    out = ['<table border="1" cellspacing="0" cellpadding="4" width="100%">']
    for i, row in enumerate(rows):
        tag = "th" if head and i == 0 else "td"
        out.append("<tr>" + "".join(f"<{tag}>{_e(c)}</{tag}>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _page(body: str, style: str = "", lang: str = "en") -> str:
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>document</title>'
        f"<style>body{{font-family:'DejaVu Serif',serif;font-size:11pt;margin:0}} {style}</style></head>"
        f"<body>{body}</body></html>"
    )


def report(w: _Words) -> str:
    parts = [f"<h1>{_e(w.title(3, 7))}</h1>", f"<p>{_e(w.paragraph())}</p>"]
    for _ in range(w.rng.randint(6, 10)):
        parts.append(f"<h2>{_e(w.title())}</h2>")
        for _ in range(w.rng.randint(2, 4)):
            parts.append(f"<p>{_e(w.paragraph(3, 6))}</p>")
        if w.rng.random() < 0.4:
            rows = [["Item", "Count", "Share"]] + [
                [w.title(1, 3), str(w.rng.randint(1, 900)), f"{w.rng.randint(1, 99)}.{w.rng.randint(0, 9)} %"]
                for _ in range(w.rng.randint(3, 7))
            ]
            parts.append(_table(rows))
        if w.rng.random() < 0.3:
            parts.append("<ul>" + "".join(f"<li>{_e(w.sentence())}</li>" for _ in range(3)) + "</ul>")
    return _page("\n".join(parts))


def letter(w: _Words) -> str:
    sender, to = w.name(), w.name()
    parts = [
        f"<p>{_e(sender)}<br>{w.rng.randint(1, 99)} Mill Street<br>{w.rng.randint(10000, 99999)} Riverton</p>",
        f"<p>{_e(to)}<br>{w.rng.randint(1, 99)} Station Road<br>{w.rng.randint(10000, 99999)} Lakeside</p>",
        f"<p>Riverton, {w.date()}</p>",
        f"<p><b>Subject: {_e(w.title())}</b></p>",
        f"<p>Dear {_e(to)},</p>",
    ]
    parts += [f"<p>{_e(w.paragraph(3, 6))}</p>" for _ in range(w.rng.randint(3, 6))]
    parts += ["<p>Yours sincerely,</p>", f"<p>{_e(sender)}</p>"]
    return _page("\n".join(parts), "body{margin:0 1cm}")


def invoice(w: _Words) -> str:
    items = [[str(i + 1), w.title(1, 4), str(w.rng.randint(1, 20)), w.amount()] for i in range(w.rng.randint(4, 12))]
    total = sum(int(r[2]) * float(r[3]) for r in items)
    parts = [
        f"<h1>Invoice {w.rng.randint(1000, 99999)}</h1>",
        f"<p>Date: {w.date()}<br>Customer: {_e(w.name())}<br>Customer number: {w.rng.randint(10000, 99999)}</p>",
        _table([["No.", "Description", "Quantity", "Unit price"], *items]),
        f"<p>Net total: {total:.2f} EUR<br>VAT 7.7 %: {total * 0.077:.2f} EUR<br>Total: {total * 1.077:.2f} EUR</p>",
        f"<p>{_e(w.paragraph(1, 2))}</p>",
    ]
    return _page("\n".join(parts))


def receipt(w: _Words) -> str:
    rows = [[w.title(1, 2), w.amount()] for _ in range(w.rng.randint(5, 14))]
    parts = [
        f"<h1>{_e(w.title(1, 2))} Market</h1>",
        f"<p>{w.date()} {w.rng.randint(8, 20):02d}:{w.rng.randint(0, 59):02d} Till {w.rng.randint(1, 9)}</p>",
        _table(rows, head=False),
        f"<p>Total {sum(float(r[1]) for r in rows):.2f}<br>Card payment<br>Thank you for shopping with us</p>",
    ]
    return _page("\n".join(parts), "body{width:7cm;font-family:'DejaVu Sans Mono',monospace;font-size:9pt}")


def exam(w: _Words) -> str:
    parts = [
        f"<h1>Examination: {_e(w.title(2, 4))}</h1>",
        "<p>Name: ____________________ Student number: __________</p>",
        '<div style="column-count:2;column-gap:1cm">',
    ]
    for i in range(w.rng.randint(8, 16)):
        parts.append(f"<h2>Question {i + 1} ({w.rng.randint(2, 10)} points)</h2><p>{_e(w.paragraph(1, 3))}</p>")
    parts.append("</div>")
    return _page("\n".join(parts))


def form(w: _Words) -> str:
    fields = ["Surname", "Given names", "Date of birth", "Street", "Postcode", "Town", "Telephone", "E-mail"]
    rows = [[f, ""] for f in fields] + [[w.title(1, 3), ""] for _ in range(w.rng.randint(2, 6))]
    parts = [
        f"<h1>Application form {w.rng.randint(10, 99)}-{w.rng.randint(100, 999)}</h1>",
        f"<p>{_e(w.paragraph(1, 2))}</p>",
        _table([["Field", "Entry"], *rows]),
        f"<h2>{_e(w.title())}</h2><p>{_e(w.paragraph(2, 3))}</p>",
        "<p>Place, date: ____________ Signature: ____________</p>",
    ]
    return _page("\n".join(parts))


def newspaper(w: _Words) -> str:
    parts = [f"<h1>The {_e(w.title(1, 2))} Gazette</h1>", f"<p>No. {w.rng.randint(1, 300)}, {w.date()}</p>"]
    parts.append('<div style="column-count:4;column-gap:0.6cm;text-align:justify;font-size:9.5pt">')
    for _ in range(w.rng.randint(8, 14)):
        parts.append(f"<h2>{_e(w.title(3, 7))}</h2>")
        parts += [f"<p>{_e(w.paragraph(2, 4))}</p>" for _ in range(w.rng.randint(2, 4))]
    parts.append("</div>")
    return _page("\n".join(parts))


def magazine(w: _Words) -> str:
    parts = [f"<h1>{_e(w.title(3, 6))}</h1>", f"<p><i>{_e(w.sentence())}</i></p>"]
    parts.append('<div style="column-count:2;column-gap:1cm">')
    for _ in range(w.rng.randint(5, 8)):
        parts.append(f"<h2>{_e(w.title())}</h2>")
        parts += [f"<p>{_e(w.paragraph(3, 6))}</p>" for _ in range(w.rng.randint(2, 4))]
    parts.append("</div>")
    return _page("\n".join(parts), "h1{font-size:28pt}")


def slides(w: _Words) -> str:
    parts = []
    for _ in range(w.rng.randint(4, 8)):
        bullets = "".join(f"<li>{_e(w.sentence()[:90])}</li>" for _ in range(w.rng.randint(3, 5)))
        parts.append(f"<section><h1>{_e(w.title())}</h1><ul>{bullets}</ul></section>")
    style = (
        "@page{size:25.4cm 14.29cm;margin:0} section{height:14.29cm;padding:1cm 1.5cm;box-sizing:border-box;"
        "page-break-after:always;font-family:'DejaVu Sans',sans-serif;font-size:18pt} h1{font-size:30pt}"
    )
    return _page("\n".join(parts), style)


def spreadsheet(w: _Words) -> str:
    """A CSV for Calc: a header row and one row per month or item."""
    head = ["Item", "Region", "Units", "Price", "Revenue", "Margin %"]
    lines = [",".join(head)]
    for _ in range(w.rng.randint(20, 70)):
        units, price = w.rng.randint(1, 500), float(w.amount())
        lines.append(
            f'"{w.title(1, 2)}",{w.rng.choice(["North", "South", "East", "West"])},{units},{price:.2f},'
            f"{units * price:.2f},{w.rng.randint(1, 60)}.{w.rng.randint(0, 9)}"
        )
    return "\n".join(lines) + "\n"


KINDS: dict[str, Callable[[_Words], str]] = {
    "report": report,
    "letter": letter,
    "invoice": invoice,
    "receipt": receipt,
    "exam": exam,
    "form": form,
    "newspaper": newspaper,
    "magazine": magazine,
    "slides": slides,
    "spreadsheet": spreadsheet,
}


def _run(command: list[str], cwd: Path, timeout: int = 180) -> None:
    if shutil.which(command[0]) is None:
        raise MakeError(f"{command[0]} is not installed (scripts/system-deps.sh bench)")
    result = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout)
    if result.returncode != 0:
        raise MakeError(f"{' '.join(command)} failed: {result.stderr.decode(errors='replace')[-400:]}")


def chromium_pdf(source: Path, out: Path) -> None:
    _run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            source.as_uri(),
        ],
        source.parent,
    )


_TAGGED = '{"UseTaggedPDF":{"type":"boolean","value":"true"}}'


def _soffice(source: Path, out: Path, export: str, infilter: str) -> None:
    profile = source.parent / "profile"
    _run(
        [
            "soffice",
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            f"--infilter={infilter}",
            "--convert-to",
            f"pdf:{export}:{_TAGGED}",
            "--outdir",
            str(source.parent / "lo"),
            str(source),
        ],
        source.parent,
    )
    shutil.move(source.parent / "lo" / f"{source.stem}.pdf", out)


def _ghostscript(pdf: Path, out: Path) -> None:
    """Ghostscript's pdfwrite rewrites every page (fonts re-embedded, text re-encoded), as a
    print-to-PDF driver does. (Through PostScript with pdf2ps the fonts lose their Unicode maps:
    the text layer comes back as dingbats.)"""
    _run(
        ["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite", f"-sOutputFile={out}", str(pdf)],
        pdf.parent,
    )


def _groff(manual: str, out: Path, folder: Path) -> None:
    pages = sorted(Path("/usr/share/man/man1").glob(f"{manual}.1*"))
    if not pages:
        raise MakeError(f"no manual page {manual}(1) in /usr/share/man/man1")
    data = pages[0].read_bytes()
    source = folder / f"{manual}.1"
    source.write_bytes(gzip.decompress(data) if pages[0].suffix == ".gz" else data)
    postscript = folder / f"{manual}.ps"
    with postscript.open("wb") as ps:
        result = subprocess.run(["groff", "-man", "-Tps", str(source)], stdout=ps, stderr=subprocess.PIPE, timeout=120)
    if result.returncode != 0:
        raise MakeError(f"groff failed on {manual}: {result.stderr.decode(errors='replace')[-300:]}")
    _run(["ps2pdf", str(postscript), str(out)], folder)


def make(recipe: dict[str, str], out: Path) -> None:
    """Write the PDF a recipe names (``kind``, ``producer``, ``seed``; groff: ``manual``) to ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ocrqueue-made-") as tmp:
        folder = Path(tmp)
        made = folder / "made.pdf"
        producer = recipe["producer"]
        if producer == "groff":
            _groff(recipe["manual"], made, folder)
        else:
            text = KINDS[recipe["kind"]](_Words(f"22/{recipe['kind']}/{recipe['seed']}"))
            if producer == "calc":
                source = folder / "sheet.csv"
                source.write_text(text)
                _soffice(source, made, "calc_pdf_Export", "Text - txt - csv (StarCalc):44,34,76,1")
            else:
                source = folder / "document.html"
                source.write_text(text)
                if producer == "libreoffice":
                    _soffice(source, made, "writer_pdf_Export", "HTML (StarWriter)")
                elif producer in ("chromium", "ghostscript"):
                    chromium_pdf(source, made)
                    if producer == "ghostscript":
                        printed = folder / "printed.pdf"
                        _ghostscript(made, printed)
                        made = printed
                else:
                    raise MakeError(f"unknown producer {producer!r}; one of {', '.join(PRODUCERS)}")
        shutil.move(made, out)
