// ocrqueue web page: upload, live task list, task view with the document viewer, vision questions.
// Plain ES modules, no dependencies. Text from documents and models reaches the DOM only through
// textContent (document.js, answer.js); nothing assigns HTML.

import { $, dropZone, el, setLive, showLive, STATUS_LABELS, TERMINAL } from "./dom.js";
import { API, currentKey, followStream, followTask, onUnauthorized, refused, request, saveKey } from "./api.js";
import { blockId, blockLabel, pageFacts, renderPage } from "./document.js";
import { answerNote, renderAnswer } from "./answer.js";
import { setupVision } from "./vision.js";

const UPLOAD_CONCURRENCY = 3;
const PAGES_PER_SLICE = 40; // the document view is built this many pages at a time, the page staying responsive

// ---------------------------------------------------------------- notices and the key dialog

let noticeTimer = null;
function notify(message, kind = "info") {
  const box = $("#notice");
  box.textContent = message;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => (box.hidden = true), kind === "error" ? 10000 : 4000);
}

function askForKey(message) {
  const dialog = $("#key-dialog");
  $("#key-message").textContent = message;
  setLive($("#live-status"), "Needs an API key", "off");
  if (!dialog.open) {
    $("#key-input").value = "";
    dialog.showModal();
    $("#key-input").focus();
  }
}

function setupKeyDialog() {
  const dialog = $("#key-dialog");
  $("#key-button").addEventListener("click", () => {
    $("#key-message").textContent = currentKey() ? "A key is saved in this browser. Enter a new one to replace it." : "Enter an API key if this server needs one.";
    $("#key-input").value = "";
    dialog.showModal();
  });
  $("#key-form").addEventListener("submit", (event) => {
    const key = $("#key-input").value.trim();
    if (!key) {
      event.preventDefault();
      return;
    }
    saveKey(key);
    restart();
  });
  $("#key-forget").addEventListener("click", () => {
    saveKey("");
    dialog.close();
    notify("The API key was removed from this browser.");
    restart();
  });
  $("#key-cancel").addEventListener("click", () => dialog.close());
}

function confirmDelete(task) {
  const dialog = $("#confirm-dialog");
  $("#confirm-message").textContent = `Delete “${task.filename || task.id}” with its results and history? This cannot be undone.`;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true }));
}

// ---------------------------------------------------------------- task list

const tasks = new Map();
const rows = new Map();
let statusFilter = "";
let nextCursor = null;
let listAbort = null;

function describe(task) {
  if (task.error && task.status === "dead_letter") return task.error.message || task.error.kind;
  if (task.status === "cancelled") return task.error?.message || "Cancelled";
  if (task.cancel_requested && !TERMINAL.has(task.status)) return "Cancelling…";
  if (task.status === "running") return task.progress.step || "Working…";
  if (task.status === "pending" && task.error) return `Will retry: ${task.error.message || task.error.kind}`;
  if (task.status === "completed" && task.answer) return "Answered";
  if (task.status === "completed") return task.result ? `${task.result.pages} page${task.result.pages === 1 ? "" : "s"}` : "Done";
  return "Waiting for a worker";
}

function pagesText(task) {
  if (task.kind !== "ocr") return "–";
  const { done, total } = task.progress;
  return total ? `${done} / ${total}` : done ? String(done) : "–";
}

function buildRow(task) {
  const link = el("a", { href: `#/task/${task.id}`, className: "file" });
  const badge = el("span", { className: "badge" });
  const actions = el(
    "td",
    { className: "row-actions" },
    el("button", { type: "button", className: "button small", dataset: { action: "cancel" }, text: "Cancel" }),
    el("button", { type: "button", className: "button small", dataset: { action: "retry" }, text: "Retry" }),
    el("button", { type: "button", className: "button small danger", dataset: { action: "delete" }, text: "Delete" }),
  );
  const tr = el(
    "tr",
    { dataset: { id: task.id } },
    el("td", { dataset: { label: "File" } }, link),
    el("td", { dataset: { label: "Status" } }, badge),
    el("td", { className: "num", dataset: { label: "Pages", cell: "pages" } }),
    el("td", { className: "num", dataset: { label: "Attempts", cell: "attempts" } }),
    el("td", { className: "info", dataset: { label: "Details", cell: "info" } }),
    actions,
  );
  return tr;
}

function fillRow(tr, task) {
  const name = task.filename || task.id;
  const link = $("a.file", tr);
  link.textContent = name;
  link.title = name;
  const badge = $(".badge", tr);
  badge.textContent = STATUS_LABELS[task.status] || task.status;
  badge.dataset.status = task.status;
  tr.dataset.status = task.status;
  $('[data-cell="pages"]', tr).textContent = pagesText(task);
  $('[data-cell="attempts"]', tr).textContent = `${task.attempts} / ${task.max_attempts}`;
  const info = $('[data-cell="info"]', tr);
  info.textContent = describe(task);
  info.classList.toggle("error-text", task.status === "dead_letter");
  for (const button of tr.querySelectorAll("button[data-action]")) {
    const action = button.dataset.action;
    button.hidden = !allowed(task, action);
    button.setAttribute("aria-label", `${button.textContent} ${name}`);
  }
  tr.hidden = Boolean(statusFilter) && task.status !== statusFilter;
}

function allowed(task, action) {
  if (action === "cancel") return !TERMINAL.has(task.status) && !task.cancel_requested;
  if (action === "retry") return task.status === "dead_letter";
  if (action === "delete") return task.status !== "running";
  return true;
}

function upsertTask(task) {
  const previous = tasks.get(task.id);
  if (previous && previous.updated_at > task.updated_at) return;
  tasks.set(task.id, {
    ...previous,
    ...task,
    events: task.events ?? previous?.events,
    events_truncated: task.events_truncated ?? previous?.events_truncated,
  });
  let tr = rows.get(task.id);
  const body = $("#task-rows");
  if (!tr) {
    tr = buildRow(task);
    rows.set(task.id, tr);
    const before = [...body.children].find((other) => tasks.get(other.dataset.id).created_at < task.created_at);
    body.insertBefore(tr, before || null);
  }
  fillRow(tr, tasks.get(task.id));
  updateEmpty();
  if (detail.id === task.id) renderDetail(tasks.get(task.id));
}

function removeTask(id) {
  tasks.delete(id);
  rows.get(id)?.remove();
  rows.delete(id);
  updateEmpty();
  if (detail.id === id) {
    stopDetail();
    notify("The task was deleted.");
    location.hash = "#/";
  }
}

function updateEmpty() {
  const visible = [...rows.values()].some((tr) => !tr.hidden);
  const empty = $("#empty-tasks");
  empty.hidden = visible;
  empty.textContent = tasks.size ? "No tasks with this status." : "No tasks yet. Upload a file to start.";
  $("#task-table").hidden = !visible;
}

async function loadTasks({ more = false } = {}) {
  const params = new URLSearchParams({ limit: "100" });
  if (statusFilter) params.set("status", statusFilter);
  if (more && nextCursor) params.set("cursor", nextCursor);
  const page = await request(`${API}?${params}`);
  for (const task of page.tasks) upsertTask(task);
  nextCursor = page.next_cursor;
  $("#more-tasks").hidden = !nextCursor;
}

async function followList() {
  listAbort?.abort();
  const controller = new AbortController();
  listAbort = controller;
  const live = $("#live-status");
  const outcome = await followStream(`${API}/events`, {
    signal: controller.signal,
    onEvent: (name, data) => {
      if (name === "task") upsertTask(data);
      else if (name === "deleted" && data.id) removeTask(data.id);
    },
    onState: showLive(live),
    onReconnect: async () => {
      try {
        await loadTasks();
      } catch {
        // the next stream attempt reports the problem
      }
    },
  });
  if (outcome === "unsupported") setLive(live, "Live updates unavailable in this browser", "off");
}

/** The file name suffix of each result format the page downloads (the API's `format=`). */
const DOWNLOAD_SUFFIXES = {
  markdown: "md",
  json: "json",
  pdf: "pdf",
  text: "txt",
  html: "html",
  hocr: "hocr",
  alto: "alto.xml",
};

async function runAction(action, id) {
  const task = tasks.get(id) || (detail.task?.id === id ? detail.task : null);
  try {
    if (action === "cancel") {
      upsertTask(await request(`${API}/${id}/cancel`, { method: "POST" }));
    } else if (action === "retry") {
      upsertTask(await request(`${API}/${id}/retry`, { method: "POST" }));
      if (detail.id === id) followDetail(id);
    } else if (action === "delete") {
      if (!(await confirmDelete(task || { id }))) return;
      await request(`${API}/${id}`, { method: "DELETE" });
      removeTask(id);
      notify(`Deleted ${task?.filename || id}.`);
    } else if (action.startsWith("download-") && action.slice(9) in DOWNLOAD_SUFFIXES) {
      const format = action.slice(9);
      const blob = await request(`${API}/${id}/result?format=${format}`, { as: "blob" });
      const base = (task?.filename || id).replace(/\.[^.]+$/, "") || "document";
      const url = URL.createObjectURL(blob);
      const a = el("a", { href: url, download: `${base}.${DOWNLOAD_SUFFIXES[format]}` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    }
  } catch (error) {
    if (error.status !== 401) notify(error.message, "error");
  }
}

function setupList() {
  $("#task-rows").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (button) runAction(button.dataset.action, button.closest("tr").dataset.id);
  });
  $("#filters").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-status]");
    if (!button) return;
    statusFilter = button.dataset.status;
    for (const other of $("#filters").querySelectorAll("button")) other.setAttribute("aria-pressed", String(other === button));
    for (const [id, tr] of rows) fillRow(tr, tasks.get(id));
    updateEmpty();
    nextCursor = null;
    loadTasks().catch((error) => error.status !== 401 && notify(error.message, "error"));
  });
  $("#more-tasks").addEventListener("click", () => loadTasks({ more: true }).catch((error) => notify(error.message, "error")));
}

// ---------------------------------------------------------------- uploads

const queue = [];
let uploading = 0;

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The languages field as the API wants it: nothing for "auto" (the server's default), else the codes. */
function requestedLanguages() {
  const value = $("#opt-languages").value.trim();
  return value.toLowerCase() === "auto" ? "" : value;
}

function addFiles(files) {
  const options = {
    mode: $("#opt-mode").value,
    languages: requestedLanguages(),
    force: $("#opt-force").checked,
  };
  for (const file of files) {
    const progress = el("progress", { max: 1, value: 0 });
    progress.setAttribute("aria-label", `Upload progress of ${file.name}`);
    const state = el("span", { className: "upload-state", text: "Waiting" });
    const item = el(
      "li",
      { dataset: { state: "waiting" } },
      el("span", { className: "upload-name", text: file.name, title: file.name }),
      el("span", { className: "upload-size", text: formatSize(file.size) }),
      progress,
      state,
    );
    $("#uploads").prepend(item);
    queue.push({ file, options, item, progress, state });
  }
  pump();
}

function pump() {
  while (uploading < UPLOAD_CONCURRENCY && queue.length) {
    uploading++;
    upload(queue.shift()).finally(() => {
      uploading--;
      pump();
    });
  }
}

function upload(job) {
  const { file, options, item, progress, state } = job;
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("mode", options.mode);
  if (options.languages) form.append("languages", options.languages);
  if (options.force) form.append("force", "true");
  item.dataset.state = "uploading";
  state.textContent = "Uploading…";
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", API);
    if (currentKey()) xhr.setRequestHeader("Authorization", `Bearer ${currentKey()}`);
    xhr.responseType = "json";
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) {
        progress.value = event.loaded / event.total;
        state.textContent = `Uploading ${Math.round((100 * event.loaded) / event.total)} %`;
      }
    });
    xhr.addEventListener("load", () => {
      const body = xhr.response;
      if (xhr.status === 200 || xhr.status === 202) {
        progress.value = 1;
        item.dataset.state = "done";
        state.textContent = "";
        state.append(
          xhr.status === 202 ? "Queued — " : "Already submitted — ",
          el("a", { href: `#/task/${body.id}`, text: "view task" }),
        );
        upsertTask(body);
      } else if (xhr.status === 401) {
        item.dataset.state = "waiting";
        state.textContent = "Needs an API key";
        waitingForKey.push(job);
        refused();
      } else {
        item.dataset.state = "failed";
        state.textContent = body?.error?.message || `Upload failed (${xhr.status})`;
      }
      resolve();
    });
    xhr.addEventListener("error", () => {
      item.dataset.state = "failed";
      state.textContent = "Upload failed: the server could not be reached";
      resolve();
    });
    xhr.send(form);
  });
}

const waitingForKey = [];

function setupUpload() {
  const input = $("#file-input");
  input.addEventListener("change", () => {
    addFiles([...input.files]);
    input.value = "";
  });
  dropZone($("#drop-zone"), addFiles);
  // A file dropped beside the zone must not navigate away from the page.
  window.addEventListener("dragover", (event) => event.preventDefault());
  window.addEventListener("drop", (event) => event.preventDefault());
}

// ---------------------------------------------------------------- task detail and result viewer

const detail = {
  id: null,
  task: null,
  abort: null,
  doc: null,
  page: 0,
  images: new Map(),
  figures: new Set(),
  selected: null,
  hovered: null,
  links: new Map(),
  loading: false,
  markdown: null,
};

function stopDetail() {
  detail.abort?.abort();
  detail.abort = null;
  $("#detail-view").dataset.live = "false";
}

function fact(list, term, value) {
  if (value === null || value === undefined || value === "") return;
  list.append(el("div", {}, el("dt", { text: term }), el("dd", { text: value })));
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : null);

function renderDetail(task) {
  detail.task = task;
  $("#detail-title").textContent = task.filename || task.id;
  const badge = $("#detail-status");
  badge.textContent = STATUS_LABELS[task.status] || task.status;
  badge.dataset.status = task.status;
  const facts = $("#detail-facts");
  facts.replaceChildren();
  fact(facts, "Task", task.id);
  if (task.kind !== "ocr") fact(facts, "Kind", task.kind === "vision" ? "Question about an image" : task.kind);
  fact(facts, "Pages", task.kind === "ocr" ? pagesText(task) + (task.progress.step && task.status === "running" ? ` (${task.progress.step})` : "") : null);
  if (task.kind !== "ocr" && task.status === "running") fact(facts, "Step", task.progress.step || "Working…");
  fact(facts, "Attempts", `${task.attempts} / ${task.max_attempts}`);
  fact(facts, "Submitted", when(task.created_at));
  fact(facts, "Started", when(task.started_at));
  fact(facts, "Finished", when(task.finished_at));
  const errorBox = $("#detail-error");
  errorBox.hidden = !(task.error || task.status === "cancelled");
  errorBox.replaceChildren();
  if (task.status === "dead_letter") {
    errorBox.dataset.kind = "failed";
    errorBox.append(el("strong", { text: "Failed: " }), task.error?.message || "no reason given", el("span", { className: "kind", text: ` (${task.error?.kind || "error"})` }));
  } else if (task.status === "cancelled") {
    errorBox.dataset.kind = "cancelled";
    errorBox.append(el("strong", { text: "Cancelled." }), task.error?.message ? ` ${task.error.message}` : "");
  } else if (task.error) {
    errorBox.dataset.kind = "retrying";
    errorBox.append(el("strong", { text: "Last attempt failed: " }), task.error.message || task.error.kind, " — it will run again.");
  }
  for (const button of $("#detail-actions").querySelectorAll("button")) {
    const action = button.dataset.action;
    button.hidden = action.startsWith("download") ? !(task.status === "completed" && task.result) : !allowed(task, action);
  }
  if (task.events) {
    const history = $("#history-list");
    const older = task.events_truncated ? [el("li", { className: "older", text: "older events not shown" })] : [];
    history.replaceChildren(
      ...older,
      ...task.events.map((event) => {
        const extra = event.detail?.message || event.detail?.error || "";
        return el(
          "li",
          {},
          el("time", { dateTime: event.at, text: when(event.at) }),
          ` ${event.type.replaceAll("_", " ")} (attempt ${event.attempt})`,
          extra ? `: ${extra}` : "",
        );
      }),
    );
  }
  const answer = $("#detail-answer");
  answer.hidden = task.kind !== "vision";
  const shown = `${task.id}:${task.status}`;
  if (task.kind === "vision" && answer.dataset.shown !== shown) {
    answer.dataset.shown = shown;
    const parts = task.question ? [el("h3", { text: "Question" }), el("p", { className: "question", text: task.question })] : [];
    if (task.answer) {
      parts.push(el("h3", { text: "Answer" }), renderAnswer(task.answer.text), el("p", { className: "hint", text: answerNote(task.answer) }));
    }
    answer.replaceChildren(...parts);
  }
  if (task.status === "completed" && task.result && !detail.doc && !detail.loading) loadResult(task.id);
}

async function openDetail(id) {
  stopDetail();
  Object.assign(detail, { id, task: null, doc: null, page: 0, selected: null, hovered: null, loading: false, markdown: null });
  for (const url of detail.images.values()) URL.revokeObjectURL(url);
  for (const url of detail.figures) URL.revokeObjectURL(url);
  detail.images.clear();
  detail.figures.clear();
  detail.links.clear();
  figureObserver.disconnect();
  $("#home-view").hidden = true;
  const view = $("#detail-view");
  view.hidden = false;
  $("#result").hidden = true;
  $("#detail-answer").hidden = true;
  delete $("#detail-answer").dataset.shown;
  $("#document").replaceChildren();
  $("#page-boxes").replaceChildren();
  $("#page-facts").replaceChildren();
  $("#page-image").removeAttribute("src");
  $("#json-view").textContent = "";
  $("#source-view").textContent = "";
  $("#detail-title").textContent = "Loading…";
  $("#detail-facts").replaceChildren();
  $("#detail-error").hidden = true;
  $("#history-list").replaceChildren();
  setLive($("#detail-live"), "", "off");
  try {
    const task = await request(`${API}/${id}`);
    if (detail.id !== id) return;
    upsertTask(task); // renders the view as well, as every update of the open task does
    if (TERMINAL.has(task.status)) setLive($("#detail-live"), "Finished", "off");
    else followDetail(id);
  } catch (error) {
    if (detail.id !== id) return;
    $("#detail-title").textContent = error.status === 404 ? "Task not found" : "Could not load the task";
    if (error.status !== 401) notify(error.message, "error");
  }
}

/** Follows one task's event stream until the server says `end` (a terminal state). */
async function followDetail(id) {
  detail.abort?.abort();
  const controller = new AbortController();
  detail.abort = controller;
  const view = $("#detail-view");
  const live = $("#detail-live");
  view.dataset.live = "true";
  const outcome = await followTask(id, {
    signal: controller.signal,
    onTask: upsertTask,
    onState: showLive(live),
  });
  if (outcome === "deleted") removeTask(id);
  if (detail.abort !== controller) return;
  detail.abort = null;
  view.dataset.live = "false";
  if (outcome === "ended" && detail.id === id) {
    setLive(live, "Finished", "off");
    try {
      const task = await request(`${API}/${id}`);
      if (detail.id === id) upsertTask(task);
    } catch {
      // the list still shows the last state
    }
  } else if (outcome === "lost") {
    setLive(live, "Not live", "off");
  }
}

/** Figure crops are fetched with the key (an <img src> cannot send it) when they come near the view. */
const figureObserver = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      figureObserver.unobserve(entry.target);
      loadFigure(entry.target);
    }
  },
  { rootMargin: "600px" },
);

async function loadFigure(img) {
  const id = detail.id;
  try {
    const blob = await request(`${API}/${id}/assets/imgs/${encodeURIComponent(img.dataset.asset)}`, { as: "blob" });
    if (detail.id !== id) return;
    const url = URL.createObjectURL(blob);
    detail.figures.add(url);
    img.src = url;
  } catch (error) {
    if (detail.id === id) img.replaceWith(el("span", { className: "figure-missing", text: `[${img.alt}: ${error.message}]` }));
  }
}

async function loadResult(id) {
  detail.loading = true;
  try {
    const doc = await request(`${API}/${id}/result?format=json`);
    if (detail.id !== id) return;
    detail.doc = doc;
    $("#result").hidden = false;
    const open = document.querySelector('[role="tab"][aria-selected="true"]');
    if (open) fillTab(open);
    showPage(0);
    await buildDocument(doc);
  } catch (error) {
    if (detail.id === id && error.status !== 401) notify(`Could not load the result: ${error.message}`, "error");
  } finally {
    detail.loading = false;
  }
}

/** Builds the document view page by page, yielding between slices so a long document never freezes the page. */
async function buildDocument(doc) {
  const article = $("#document");
  article.replaceChildren();
  article.dataset.built = "false";
  const figure = (name, img) => {
    img.dataset.asset = name;
    figureObserver.observe(img);
  };
  for (let p = 0; p < doc.pages.length; p++) {
    const { section, links } = renderPage(doc.pages[p], p, { figure });
    article.append(section);
    for (const [id, node] of links) detail.links.set(id, node);
    if ((p + 1) % PAGES_PER_SLICE === 0) {
      await new Promise((resolve) => setTimeout(resolve));
      if (detail.doc !== doc) return;
    }
  }
  article.dataset.built = "true";
}

/** The JSON and Markdown tabs are filled when first opened: a long document's text is big. */
async function fillTab(tab) {
  const id = detail.id;
  if (!id || !detail.doc) return;
  if (tab.id === "tab-json" && !$("#json-view").textContent) {
    $("#json-view").textContent = JSON.stringify(detail.doc, null, 2);
  } else if (tab.id === "tab-source" && detail.markdown === null) {
    detail.markdown = "";
    try {
      const markdown = await request(`${API}/${id}/result?format=markdown`, { as: "text" });
      if (detail.id !== id) return;
      detail.markdown = markdown;
      $("#source-view").textContent = markdown;
    } catch (error) {
      detail.markdown = null;
      if (detail.id === id && error.status !== 401) notify(`Could not load the Markdown: ${error.message}`, "error");
    }
  }
}

function setupHint() {
  const hint = el("p", { id: "document-hint", className: "visually-hidden", text: "Press Enter to show this block on the page image." });
  document.body.append(hint);
}

async function showPage(index) {
  const doc = detail.doc;
  if (!doc || index < 0 || index >= doc.pages.length) return;
  detail.page = index;
  const page = doc.pages[index];
  const id = detail.id;
  $("#page-label").textContent = `Page ${index + 1} of ${doc.pages.length}`;
  $("#page-prev").disabled = index === 0;
  $("#page-next").disabled = index === doc.pages.length - 1;
  const facts = $("#page-facts");
  facts.replaceChildren();
  for (const [term, value] of pageFacts(page)) fact(facts, term, value);
  const canvas = $("#page-canvas");
  canvas.style.aspectRatio = `${page.width} / ${page.height}`;
  const boxes = $("#page-boxes");
  boxes.replaceChildren(
    ...page.blocks.map((block, b) => {
      const id = blockId(index, b);
      const [x0, y0, x1, y1] = block.bbox;
      const label = blockLabel(block);
      const box = el("button", {
        type: "button",
        className: "box",
        title: label,
        dataset: { block: id, type: block.type },
        ariaLabel: label,
        ariaPressed: String(detail.selected === id),
      });
      box.style.left = `${(100 * x0) / page.width}%`;
      box.style.top = `${(100 * y0) / page.height}%`;
      box.style.width = `${(100 * Math.max(x1 - x0, 1)) / page.width}%`;
      box.style.height = `${(100 * Math.max(y1 - y0, 1)) / page.height}%`;
      box.classList.toggle("selected", detail.selected === id);
      box.classList.toggle("hover", detail.hovered === id);
      return box;
    }),
  );
  const image = $("#page-image");
  image.alt = `Page ${index + 1} of ${detail.task?.filename || "the document"}`;
  let url = detail.images.get(index);
  if (!url) {
    image.removeAttribute("src");
    try {
      const blob = await request(`${API}/${id}/pages/${index + 1}`, { as: "blob" });
      if (detail.id !== id) return;
      url = URL.createObjectURL(blob);
      detail.images.set(index, url);
    } catch (error) {
      if (error.status !== 401) notify(`Could not load page ${index + 1}: ${error.message}`, "error");
      return;
    }
  }
  if (detail.page === index) image.src = url;
}

function select(blockId, { scroll = true } = {}) {
  detail.selected = blockId;
  for (const node of document.querySelectorAll("#page-boxes .box")) {
    const on = node.dataset.block === blockId;
    node.classList.toggle("selected", on);
    node.setAttribute("aria-pressed", String(on));
  }
  for (const node of document.querySelectorAll("#document .highlight")) node.classList.remove("highlight");
  const target = detail.links.get(blockId);
  if (target) {
    target.classList.add("highlight");
    if (scroll) target.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }
}

/** Outlines a block's box and its text together while the pointer (or focus) is on either. */
function hover(blockId) {
  if (detail.hovered === blockId) return;
  detail.hovered = blockId;
  for (const node of document.querySelectorAll("#page-boxes .box.hover, #document .block.hover")) node.classList.remove("hover");
  if (!blockId) return;
  $(`#page-boxes .box[data-block="${blockId}"]`)?.classList.add("hover");
  detail.links.get(blockId)?.classList.add("hover");
}

async function selectFromText(node) {
  const page = Number(node.dataset.page);
  if (page !== detail.page) await showPage(page);
  select(node.dataset.block, { scroll: false });
  const box = $(`#page-boxes .box[data-block="${node.dataset.block}"]`);
  box?.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function setupDetail() {
  $("#detail-actions").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (button && detail.id) runAction(button.dataset.action, detail.id);
  });
  const boxes = $("#page-boxes");
  boxes.addEventListener("click", (event) => {
    const box = event.target.closest(".box");
    if (box) select(box.dataset.block);
  });
  boxes.addEventListener("mouseover", (event) => hover(event.target.closest(".box")?.dataset.block || null));
  boxes.addEventListener("mouseleave", () => hover(null));
  const article = $("#document");
  article.addEventListener("click", (event) => {
    const node = event.target.closest("[data-block]");
    if (node) selectFromText(node);
  });
  article.addEventListener("keydown", (event) => {
    const node = event.target.closest?.("[data-block]");
    if (node && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      selectFromText(node);
    }
  });
  article.addEventListener("mouseover", (event) => hover(event.target.closest("[data-block]")?.dataset.block || null));
  article.addEventListener("mouseleave", () => hover(null));
  article.addEventListener("focusin", (event) => hover(event.target.closest("[data-block]")?.dataset.block || null));
  $("#page-prev").addEventListener("click", () => showPage(detail.page - 1));
  $("#page-next").addEventListener("click", () => showPage(detail.page + 1));
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  const activate = (tab) => {
    for (const other of tabs) {
      const on = other === tab;
      other.setAttribute("aria-selected", String(on));
      other.tabIndex = on ? 0 : -1;
      document.getElementById(other.getAttribute("aria-controls")).hidden = !on;
    }
    tab.focus();
    fillTab(tab);
  };
  for (const tab of tabs) {
    tab.addEventListener("click", () => activate(tab));
    tab.addEventListener("keydown", (event) => {
      const at = tabs.indexOf(tab);
      if (event.key === "ArrowRight") activate(tabs[(at + 1) % tabs.length]);
      else if (event.key === "ArrowLeft") activate(tabs[(at - 1 + tabs.length) % tabs.length]);
      else if (event.key === "Home") activate(tabs[0]);
      else if (event.key === "End") activate(tabs[tabs.length - 1]);
    });
  }
}

// ---------------------------------------------------------------- routing and start

function route() {
  const match = /^#\/task\/([0-9a-f-]{36})$/.exec(location.hash);
  if (match) {
    if (detail.id !== match[1]) openDetail(match[1]);
    return;
  }
  stopDetail();
  detail.id = null;
  detail.doc = null;
  $("#detail-view").hidden = true;
  $("#home-view").hidden = false;
}

function restart({ reopen = true } = {}) {
  nextCursor = null;
  loadTasks()
    .then(() => followList())
    .catch((error) => {
      if (error.status !== 401) {
        notify(error.message, "error");
        followList();
      }
    });
  if (reopen && detail.id) {
    const id = detail.id;
    detail.id = null;
    openDetail(id);
  }
  const retry = waitingForKey.splice(0);
  queue.push(...retry);
  pump();
}

function start() {
  onUnauthorized(askForKey);
  setupKeyDialog();
  setupList();
  setupUpload();
  setupVision();
  setupDetail();
  setupHint();
  updateEmpty();
  window.addEventListener("hashchange", route);
  route();
  restart({ reopen: false });
}

start();
