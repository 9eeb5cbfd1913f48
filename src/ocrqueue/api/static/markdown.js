// A small Markdown renderer that can never run script.
//
// Every node is built with document.createElement and its text set through textContent; no string is
// ever assigned to innerHTML. HTML tables (the pipeline writes them for spanning cells) are parsed with
// DOMParser into an inert document, and only table/tr/td/th with rowspan/colspan and their text are
// rebuilt. Images are shown only when their source is a plain asset name, loaded by the caller.

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", "#39": "'" };
const PUNCTUATION = "\\`*_{}[]()#+-.!|<>&$~\"'=:;,/?@^%";
const ASSET_NAME = /^(imgs\/)?[A-Za-z0-9_-][A-Za-z0-9_.-]{0,200}$/;
const SAFE_LINK = /^https?:\/\//i;

function decodeEntity(text, at) {
  const match = /^&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6}|#39);/i.exec(text.slice(at, at + 12));
  if (!match) return null;
  const name = match[1];
  let value = null;
  if (name[0] === "#") {
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) value = String.fromCodePoint(code);
  } else {
    value = ENTITIES[name.toLowerCase()] ?? null;
  }
  return value === null ? null : { value, length: match[0].length };
}

/** Plain text of a Markdown fragment: backslash escapes and entities resolved, nothing else. */
export function unescapeText(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length && PUNCTUATION.includes(text[i + 1])) {
      out += text[++i];
    } else if (ch === "&") {
      const entity = decodeEntity(text, i);
      if (entity) {
        out += entity.value;
        i += entity.length - 1;
      } else out += ch;
    } else out += ch;
  }
  return out;
}

function findClosing(text, from, marker) {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text.startsWith(marker, i)) return i;
  }
  return -1;
}

function findBracket(text, from) {
  // index of the "]" closing the "[" just before `from`, then "(" must follow.
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] === "[") depth++;
    else if (text[i] === "]") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Appends inline Markdown (emphasis, code, images, links) to `parent` as DOM nodes. */
export function renderInline(text, parent, options = {}) {
  let buffer = "";
  const flush = () => {
    if (buffer) parent.append(document.createTextNode(buffer));
    buffer = "";
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length && PUNCTUATION.includes(text[i + 1])) {
      buffer += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === "&") {
      const entity = decodeEntity(text, i);
      if (entity) {
        buffer += entity.value;
        i += entity.length;
        continue;
      }
    }
    if (ch === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i) {
        flush();
        const code = document.createElement("code");
        code.textContent = text.slice(i + 1, end);
        parent.append(code);
        i = end + 1;
        continue;
      }
    }
    if (ch === "$" && text.startsWith("$$", i)) {
      const end = text.indexOf("$$", i + 2);
      if (end > i + 2) {
        flush();
        const code = document.createElement("code");
        code.className = "formula";
        code.textContent = text.slice(i + 2, end).trim();
        parent.append(code);
        i = end + 2;
        continue;
      }
    }
    if (ch === "*" || ch === "_") {
      const marker = text.startsWith(ch + ch, i) ? ch + ch : ch;
      const inner = i + marker.length;
      const end = text[inner] && text[inner] !== " " ? findClosing(text, inner + 1, marker) : -1;
      if (end > inner) {
        flush();
        const node = document.createElement(marker.length === 2 ? "strong" : "em");
        renderInline(text.slice(inner, end), node, options);
        parent.append(node);
        i = end + marker.length;
        continue;
      }
    }
    const isImage = ch === "!" && text[i + 1] === "[";
    if (ch === "[" || isImage) {
      const open = i + (isImage ? 2 : 1);
      const close = findBracket(text, open);
      if (close > 0 && text[close + 1] === "(") {
        const end = text.indexOf(")", close + 2);
        if (end > 0) {
          flush();
          const label = text.slice(open, close);
          const target = text.slice(close + 2, end).trim().split(/\s+/)[0] || "";
          if (isImage) parent.append(renderImage(unescapeText(label), target, options));
          else parent.append(renderLink(label, target, options));
          i = end + 1;
          continue;
        }
      }
    }
    buffer += ch;
    i++;
  }
  flush();
}

function renderImage(alt, source, options) {
  const figure = document.createElement("span");
  figure.className = "md-image";
  if (ASSET_NAME.test(source) && !source.includes("..") && options.loadAsset) {
    const img = document.createElement("img");
    img.alt = alt || "figure";
    img.loading = "lazy";
    figure.append(img);
    options.loadAsset(source).then(
      (url) => {
        img.src = url;
      },
      () => {
        figure.textContent = `[${alt || "figure"}: ${source} is not available]`;
      },
    );
  } else {
    figure.textContent = `[${alt || "image"}]`;
  }
  return figure;
}

function renderLink(label, target, options) {
  const href = unescapeText(target);
  if (!SAFE_LINK.test(href)) {
    const span = document.createElement("span");
    renderInline(label, span, options);
    return span;
  }
  const a = document.createElement("a");
  a.href = href;
  a.rel = "noopener noreferrer nofollow";
  a.target = "_blank";
  renderInline(label, a, options);
  return a;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}([-*+])\s+(.*)$/;
const ORDERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

function splitRow(line) {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const cells = [];
  let current = "";
  for (let i = 0; i < row.length; i++) {
    if (row[i] === "\\" && row[i + 1] === "|") {
      current += "\\|";
      i++;
    } else if (row[i] === "|") {
      cells.push(current.trim());
      current = "";
    } else current += row[i];
  }
  cells.push(current.trim());
  return cells;
}

function clampSpan(value) {
  const n = parseInt(value || "1", 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, 1000) : 1;
}

/** Rebuilds an HTML table from markup: only table, tr, td, th, rowspan, colspan and text survive. */
export function rebuildHtmlTable(markup) {
  const inert = new DOMParser().parseFromString(markup, "text/html");
  const source = inert.querySelector("table");
  const table = document.createElement("table");
  if (!source) return null;
  for (const row of source.querySelectorAll("tr")) {
    if (row.closest("table") !== source) continue;
    const tr = document.createElement("tr");
    for (const cell of row.children) {
      const tag = cell.tagName.toLowerCase();
      if (tag !== "td" && tag !== "th") continue;
      const out = document.createElement(tag);
      if (cell.hasAttribute("rowspan")) out.rowSpan = clampSpan(cell.getAttribute("rowspan"));
      if (cell.hasAttribute("colspan")) out.colSpan = clampSpan(cell.getAttribute("colspan"));
      out.textContent = cell.textContent.trim();
      tr.append(out);
    }
    table.append(tr);
  }
  return table;
}

function startsBlock(line, next) {
  return (
    HEADING.test(line) ||
    BULLET.test(line) ||
    ORDERED.test(line) ||
    RULE.test(line) ||
    line.trim().startsWith("$$") ||
    line.trim().startsWith("```") ||
    /^\s*<table[\s>]/i.test(line) ||
    (line.trim().startsWith("|") && next !== undefined && TABLE_SEPARATOR.test(next) && next.includes("-"))
  );
}

/**
 * Renders Markdown into a DocumentFragment of block elements (h1-h6, p, ul, ol, table, pre, hr).
 * options.loadAsset(name) -> Promise<url> loads an image the document names (e.g. imgs/page1-figure1.png).
 */
export function renderMarkdown(markdown, options = {}) {
  const fragment = document.createDocumentFragment();
  const lines = String(markdown).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const trimmed = line.trim();
    if (!trimmed) {
      i++;
      continue;
    }
    if (trimmed.startsWith("```")) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith("```")) body.push(lines[i++]);
      i++;
      const pre = document.createElement("pre");
      const code = document.createElement("code");
      code.textContent = body.join("\n");
      pre.append(code);
      fragment.append(pre);
      continue;
    }
    if (trimmed.startsWith("$$")) {
      const body = [];
      let rest = trimmed.slice(2);
      while (true) {
        const end = rest.indexOf("$$");
        if (end >= 0) {
          body.push(rest.slice(0, end));
          i++;
          break;
        }
        body.push(rest);
        i++;
        if (i >= lines.length) break;
        rest = lines[i];
      }
      const pre = document.createElement("pre");
      pre.className = "formula";
      const code = document.createElement("code");
      code.textContent = body.join("\n").trim();
      pre.append(code);
      fragment.append(pre);
      continue;
    }
    if (/^\s*<table[\s>]/i.test(line)) {
      const body = [];
      while (i < lines.length) {
        body.push(lines[i]);
        if (/<\/table>/i.test(lines[i++])) break;
      }
      const table = rebuildHtmlTable(body.join("\n"));
      if (table) fragment.append(wrapTable(table));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const h = document.createElement(`h${heading[1].length}`);
      renderInline(heading[2], h, options);
      fragment.append(h);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      fragment.append(document.createElement("hr"));
      i++;
      continue;
    }
    if (trimmed.startsWith("|") && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1])) {
      const table = document.createElement("table");
      const head = document.createElement("thead");
      const headRow = document.createElement("tr");
      for (const cell of splitRow(line)) {
        const th = document.createElement("th");
        renderInline(cell, th, options);
        headRow.append(th);
      }
      head.append(headRow);
      table.append(head);
      const body = document.createElement("tbody");
      i += 2;
      while (i < lines.length && lines[i].trim().startsWith("|")) {
        const tr = document.createElement("tr");
        for (const cell of splitRow(lines[i++])) {
          const td = document.createElement("td");
          renderInline(cell, td, options);
          tr.append(td);
        }
        body.append(tr);
      }
      table.append(body);
      fragment.append(wrapTable(table));
      continue;
    }
    if (BULLET.test(line) || ORDERED.test(line)) {
      const ordered = !BULLET.test(line);
      const pattern = ordered ? ORDERED : BULLET;
      const list = document.createElement(ordered ? "ol" : "ul");
      if (ordered) {
        const start = parseInt(ORDERED.exec(line)[1], 10);
        if (start !== 1) list.start = start;
      }
      let item = null;
      let itemText = "";
      const finish = () => {
        if (item) {
          renderInline(itemText, item, options);
          list.append(item);
        }
      };
      while (i < lines.length && lines[i].trim()) {
        const match = pattern.exec(lines[i]);
        if (match) {
          finish();
          item = document.createElement("li");
          itemText = match[2];
        } else if (/^\s+/.test(lines[i]) && item) {
          itemText += " " + lines[i].trim();
        } else break;
        i++;
      }
      finish();
      fragment.append(list);
      continue;
    }
    const paragraph = [];
    while (i < lines.length && lines[i].trim() && (paragraph.length === 0 || !startsBlock(lines[i], lines[i + 1]))) {
      paragraph.push(lines[i++].trim());
    }
    const p = document.createElement("p");
    renderInline(paragraph.join(" "), p, options);
    fragment.append(p);
  }
  return fragment;
}

function wrapTable(table) {
  const wrapper = document.createElement("div");
  wrapper.className = "table-scroll";
  wrapper.append(table);
  return wrapper;
}
