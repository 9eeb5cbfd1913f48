"""Right-to-left pages printed by a real producer: Debian's Chromium (support/printed.py) prints HTML
to PDF, shaping Arabic with HarfBuzz and writing the lam-alef ligatures as one glyph each, as
browsers and office suites do. The source strings are the truth in logical order.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from support.printed import chromium_page


@dataclass(frozen=True)
class RtlPage:
    name: str
    lang: str  # HTML lang: picks the shaping (Persian letters, Hebrew)
    title: str
    paragraphs: tuple[str, ...]
    key_words: tuple[str, ...]  # must come back exactly, in logical order

    @property
    def text(self) -> str:
        return "\n".join((self.title, *self.paragraphs))


ARABIC = RtlPage(
    "arabic",
    "ar",
    "تقرير الإنتاجية السنوي",
    (
        "ارتفعت الإنتاجية في عام 2024 بنسبة 15% مقارنة بالعام السابق، ولا شك أن النظام الجديد ساعد في ذلك.",
        "يعمل الفريق الآن مع Python 3.12 ونظام Linux على الخوادم، ولا يحتاج إلى أدوات إضافية.",
        "بلغ عدد الطلبات 1250 طلبا في الربع الأول، وكانت الإنتاجية أعلى في شهر مارس من أي شهر آخر.",
        "لا تزال الإدارة تدرس خطة التوسع، وستعلن النتائج في الاجتماع القادم للمجلس.",
    ),
    ("الإنتاجية", "لا", "ولا", "2024", "15%", "Python", "3.12", "Linux", "1250", "الإدارة"),
)
PERSIAN = RtlPage(
    "persian",
    "fa",
    "گزارش فروش کالای فروشگاه",
    (
        "من می‌خواهم کالای خوب بخرم و قیمت آن 120 هزار تومان است.",
        "فروشگاه‌ها در سال 1402 بیش از 300 کالای تازه با نرم‌افزار Excel ثبت کردند.",  # noqa: RUF001
        "مشتریان می‌توانند کالاها را تا هفت روز پس بدهند، اما کالای شکسته پس گرفته نمی‌شود.",
    ),
    ("کالای", "کالاها", "1402", "300", "120", "Excel", "فروشگاه", "تومان"),
)
HEBREW = RtlPage(
    "hebrew",
    "he",
    "דוח שנתי של החברה",
    (
        "בשנת 2024 גדלו המכירות ב-12% לעומת השנה הקודמת, והצוות עבר לעבוד עם Linux.",
        "המערכת החדשה כתובה ב-Python ומטפלת ב-4500 הזמנות ביום ללא תקלות.",
        "ההנהלה תציג את התוכנית לשנה הבאה בישיבה הקרובה של הדירקטוריון.",
    ),
    ("2024", "12%", "Linux", "Python", "4500", "המכירות", "הדירקטוריון"),
)
PAGES = (ARABIC, PERSIAN, HEBREW)


def page_html(page: RtlPage) -> str:
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in page.paragraphs)
    return (
        f'<html lang="{page.lang}" dir="rtl"><head><meta charset="utf-8"><style>'
        "body{font-family:'DejaVu Sans';font-size:13pt;line-height:1.6;margin:0}"
        "h1{font-size:20pt}p{margin:0 0 14pt 0}"
        f"</style></head><body><h1>{html.escape(page.title)}</h1>{paragraphs}</body></html>"
    )


def print_pdfs(pages: tuple[RtlPage, ...], folder: Path) -> dict[str, bytes]:
    """Each page printed to an A4 PDF by Chromium (skips the test without it), kept in ``folder``."""
    out: dict[str, bytes] = {}
    with chromium_page() as tab:
        for page in pages:
            tab.set_content(page_html(page))
            data = tab.pdf(format="A4", margin={"top": "2cm", "bottom": "2cm", "left": "2cm", "right": "2cm"})
            (folder / f"{page.name}.pdf").write_bytes(data)
            out[page.name] = data
    return out
