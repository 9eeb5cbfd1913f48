// The document view, built from the result JSON (docs/schema/document.schema.json): every block in
// reading order, as the element its type calls for. Document text is untrusted: it reaches the DOM
// only through textContent, and figure names only as validated asset names.

import { el } from "./dom.js";

const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,200}$/;
const MAX_SPAN = 1000;
const LANGUAGE_NAMES = {
  eng: "English",
  Latin: "Latin script: any language written in it",
  chi_sim: "Chinese, simplified",
  chi_tra: "Chinese, traditional",
  jpn: "Japanese",
  kor: "Korean",
  deu: "German",
  fra: "French",
  spa: "Spanish",
  ita: "Italian",
  por: "Portuguese",
  rus: "Russian",
  ara: "Arabic",
};

const text = (value) => (typeof value === "string" ? value : value == null ? "" : String(value));
const clamp = (value, low, high) => Math.min(high, Math.max(low, Number.isInteger(value) ? value : low));

export const blockId = (page, index) => `p${page}-b${index}`;

/** The figure's name as the server serves it under assets/imgs/, or null when it is not a plain name. */
export function assetName(image) {
  if (typeof image !== "string") return null;
  const name = image.startsWith("imgs/") ? image.slice(5) : image;
  return ASSET_NAME.test(name) ? name : null;
}

/** One line a person can read about a block, for box labels. */
export function blockLabel(block) {
  const words = text(block.latex || block.text).replace(/\s+/g, " ").trim().slice(0, 80);
  return words ? `${text(block.type)}: ${words}` : text(block.type);
}

function tableElement(block) {
  const table = el("table");
  const cells = Array.isArray(block.table?.cells) ? block.table.cells : null;
  if (cells) {
    const rows = new Map();
    for (const cell of cells) {
      const row = clamp(cell.row, 0, Number.MAX_SAFE_INTEGER);
      if (!rows.has(row)) rows.set(row, []);
      rows.get(row).push(cell);
    }
    for (const row of [...rows.keys()].sort((a, b) => a - b)) {
      const tr = el("tr");
      for (const cell of rows.get(row).sort((a, b) => clamp(a.col, 0, 1e9) - clamp(b.col, 0, 1e9))) {
        const td = el("td", { text: text(cell.text) });
        td.rowSpan = clamp(cell.row_span, 1, MAX_SPAN);
        td.colSpan = clamp(cell.col_span, 1, MAX_SPAN);
        tr.append(td);
      }
      table.append(tr);
    }
  } else {
    for (const line of text(block.text).split("\n")) {
      table.append(el("tr", {}, ...line.split("\t").map((cell) => el("td", { text: cell }))));
    }
  }
  return el("div", { className: "table-scroll" }, table);
}

function figureElement(block, figure) {
  const caption = text(block.text).replace(/\s+/g, " ").trim();
  const name = assetName(block.image);
  if (!name) return el("figure", { className: "figure" }, el("span", { className: "figure-missing", text: `[${caption || "figure"}]` }));
  const img = el("img", { alt: caption || "Figure", decoding: "async" });
  figure(name, img);
  return el("figure", { className: "figure" }, img);
}

function blockElement(block, figure) {
  const body = text(block.text);
  switch (block.type) {
    case "title":
      return el(`h${clamp(block.level, 1, 6)}`, { text: body.replace(/\s+/g, " ") });
    case "list": {
      const items = body.split("\n").filter((item) => item.trim());
      return el("ul", {}, ...items.map((item) => el("li", { text: item })));
    }
    case "table":
      return tableElement(block);
    case "code":
      return el("pre", { className: "code-block" }, el("code", { text: body }));
    case "formula":
      return block.latex
        ? el("pre", { className: "formula" }, el("code", { text: text(block.latex) }))
        : el("p", { className: "formula", text: body });
    case "figure":
      return figureElement(block, figure);
    case "caption":
      return el("p", { className: "caption", text: body });
    case "header":
    case "footer":
      return el("p", { className: "furniture", text: body });
    default:
      return el("p", { text: body });
  }
}

/** What the pipeline recorded about how a page was read: [term, value] pairs, only for fields present. */
export function pageFacts(page) {
  const facts = [];
  const source = text(page.source);
  if (source) {
    const dpi = Number.isInteger(page.dpi) ? ` at ${page.dpi} dpi` : "";
    facts.push(["Read from", source === "text_layer" ? "text layer" : `${source} OCR${dpi}`]);
  }
  if (Array.isArray(page.languages) && page.languages.length) {
    const named = page.languages.map((code) => text(code)).map((code) => (LANGUAGE_NAMES[code] ? `${code} (${LANGUAGE_NAMES[code]})` : code));
    facts.push(["Languages", named.join(", ")]);
  }
  if (Array.isArray(page.scripts) && page.scripts.length) facts.push(["Scripts", page.scripts.map(text).join(", ")]);
  if (typeof page.rotation === "number" && Number.isFinite(page.rotation)) {
    facts.push(["Rotation", page.rotation % 360 ? `turned ${page.rotation}°, read upright` : "upright"]);
  }
  if (Array.isArray(page.warnings) && page.warnings.length) facts.push(["Warnings", page.warnings.map(text).join("; ")]);
  return facts;
}

/**
 * One page as DOM: a section holding a page mark, then the page's blocks in order. Each block's
 * element carries data-block (its id, `p<page>-b<index>`), data-page and data-type.
 * `figure(name, img)` is handed every figure image to load (the page fetches it with the key).
 * Returns { section, links }: links maps a block id to its element (blocks without content have none).
 */
export function renderPage(page, p, { figure = () => {} } = {}) {
  const links = new Map();
  const noteworthy = ([term, value]) => term !== "Warnings" && !(term === "Rotation" && value === "upright");
  const summary = pageFacts(page).filter(noteworthy).map(([, value]) => value);
  const section = el(
    "section",
    { className: "doc-page", dataset: { page: String(p) }, ariaLabel: `Page ${p + 1}` },
    el("p", { className: "page-mark", text: [`Page ${p + 1}`, ...summary].join(" · ") }),
  );
  (Array.isArray(page.blocks) ? page.blocks : []).forEach((block, b) => {
    if (!block || (!text(block.text).trim() && !block.latex && block.type !== "figure" && !block.table)) return;
    const node = blockElement(block, figure);
    const id = blockId(p, b);
    node.classList.add("block");
    Object.assign(node.dataset, { block: id, page: String(p), type: text(block.type) });
    node.tabIndex = 0;
    node.setAttribute("aria-describedby", "document-hint");
    links.set(id, node);
    section.append(node);
  });
  return { section, links };
}

/** The whole document at once: { root (a fragment of page sections), links } as renderPage gives them. */
export function renderDocument(doc, options = {}) {
  const root = document.createDocumentFragment();
  const links = new Map();
  (Array.isArray(doc?.pages) ? doc.pages : []).forEach((page, p) => {
    const built = renderPage(page, p, options);
    root.append(built.section);
    for (const [id, node] of built.links) links.set(id, node);
  });
  return { root, links };
}
