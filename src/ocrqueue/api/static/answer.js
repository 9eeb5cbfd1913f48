// A small, safe Markdown subset for a vision model's answers: paragraphs, fenced code, bulleted and
// numbered lists, `code`, **strong** and *emphasis*. Every node is made with createElement and
// filled with textContent; anything else (HTML, links, images, headings) shows as the text it is.

import { el } from "./dom.js";

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ITEM = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/;
const ESCAPABLE = /[!-/:-@[-`{-~]/;
const MAX_NESTING = 6;

/** Appends `source` to `parent` as text with inline code, strong and emphasis; linear in its length. */
function inline(source, parent, depth = 0) {
  const exhausted = new Set(); // closing delimiters already searched for to the end of `source`
  const closing = (delimiter, from) => {
    if (exhausted.has(delimiter)) return -1;
    const at = source.indexOf(delimiter, from);
    if (at < 0) exhausted.add(delimiter);
    return at;
  };
  let plain = "";
  const flush = () => {
    if (plain) parent.append(plain);
    plain = "";
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === "\\" && ESCAPABLE.test(source[i + 1] || "")) {
      plain += source[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      let n = 1;
      while (source[i + n] === "`") n++;
      const fence = "`".repeat(n);
      const end = closing(fence, i + n);
      if (end > i + n) {
        flush();
        parent.append(el("code", { text: source.slice(i + n, end) }));
        i = end + n;
      } else {
        plain += fence;
        i += n;
      }
      continue;
    }
    if ((c === "*" || c === "_") && depth < MAX_NESTING) {
      const delimiter = source[i + 1] === c ? c + c : c;
      const start = i + delimiter.length;
      const opens = source[start] && !/\s/.test(source[start]) && !(c === "_" && /\w/.test(source[i - 1] || ""));
      const end = opens ? closing(delimiter, start + 1) : -1;
      const closes = end > start && !/\s/.test(source[end - 1]) && !(c === "_" && /\w/.test(source[end + delimiter.length] || ""));
      if (closes) {
        flush();
        const node = el(delimiter.length === 2 ? "strong" : "em");
        inline(source.slice(start, end), node, depth + 1);
        parent.append(node);
        i = end + delimiter.length;
      } else {
        plain += delimiter;
        i += delimiter.length;
      }
      continue;
    }
    plain += c;
    i++;
  }
  flush();
  return parent;
}

/** The answer as a <div> of paragraphs, code blocks and lists. */
export function renderAnswer(source) {
  const root = el("div", { className: "answer-text" });
  const lines = String(source ?? "").replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(marker)) body.push(lines[i++]);
      i++;
      root.append(el("pre", {}, el("code", { text: body.join("\n") })));
      continue;
    }
    const first = ITEM.exec(line);
    if (first) {
      const ordered = /\d/.test(first[1]);
      const list = el(ordered ? "ol" : "ul");
      if (ordered && parseInt(first[1], 10) !== 1) list.start = parseInt(first[1], 10);
      const items = [];
      while (i < lines.length) {
        const match = ITEM.exec(lines[i]);
        if (match && /\d/.test(match[1]) === ordered) items.push([match[2]]);
        else if (items.length && lines[i].trim() && /^\s{2,}/.test(lines[i]) && !FENCE.test(lines[i])) items.at(-1).push(lines[i].trim());
        else break;
        i++;
      }
      list.append(...items.map((item) => inline(item.join("\n"), el("li"))));
      root.append(list);
      continue;
    }
    const paragraph = [];
    while (i < lines.length && lines[i].trim() && !FENCE.test(lines[i]) && !ITEM.test(lines[i])) paragraph.push(lines[i++]);
    root.append(inline(paragraph.join("\n"), el("p")));
  }
  return root;
}

/** Who answered, and whether the answer was cut short: the line shown under an answer. */
export function answerNote(answer) {
  const model = answer.model ? `Answered by ${answer.model}.` : "";
  const truncated = answer.truncated ? "The answer was cut off at the token limit." : "";
  return [model, truncated].join(" ").trim();
}
