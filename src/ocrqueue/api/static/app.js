// ocrqueue web page: upload, live task list, result viewer. Plain ES module, no dependencies.
// All document text reaches the DOM through textContent (see markdown.js); nothing uses innerHTML.

import { renderMarkdown } from "./markdown.js";

const API = "/api/v1/tasks";
const KEY_STORAGE = "ocrqueue.apiKey";
const TERMINAL = new Set(["completed", "cancelled", "dead_letter"]);
const STATUS_LABELS = {
  pending: "Pending",
  running: "Running",
  completed: "Completed",
  cancelled: "Cancelled",
  dead_letter: "Failed",
};
const UPLOAD_CONCURRENCY = 3;

const $ = (selector, root = document) => root.querySelector(selector);
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("aria") || name === "role" || name === "for") node.setAttribute(name.replace(/^aria([A-Z])/, (m, c) => `aria-${c.toLowerCase()}`), value);
    else node[name] = value;
  }
  node.append(...children);
  return node;
};

// ---------------------------------------------------------------- API access

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let apiKey = localStorage.getItem(KEY_STORAGE) || "";

function authHeaders(extra = {}) {
  return apiKey ? { ...extra, Authorization: `Bearer ${apiKey}` } : extra;
}

async function errorFrom(response) {
  let code = "http_" + response.status;
  let message = `${response.status} ${response.statusText || "error"}`;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, code, message);
}

async function request(path, { method = "GET", signal, as = "json" } = {}) {
  const response = await fetch(path, { method, headers: authHeaders(), signal, cache: "no-store" });
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) askForKey(apiKey ? "The API key was refused. Enter a valid key." : "This server needs an API key.");
    throw error;
  }
  if (response.status === 204) return null;
  if (as === "text") return response.text();
  if (as === "blob") return response.blob();
  return response.json();
}

/**
 * Reads a server-sent event stream with fetch (so it can send the Authorization header) and calls
 * onEvent(name, data) per event. Resolves when the server ends the stream; rejects on errors.
 */
async function readEvents(path, signal, onEvent) {
  const response = await fetch(path, {
    headers: authHeaders({ Accept: "text/event-stream" }),
    signal,
    cache: "no-store",
  });
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) askForKey(apiKey ? "The API key was refused. Enter a valid key." : "This server needs an API key.");
    throw error;
  }
  if (!response.body || !response.body.getReader) throw new ApiError(0, "no_stream", "streaming is not supported");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = "message";
        const data = [];
        for (const line of frame.split("\n")) {
          if (!line || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") name = text;
          else if (field === "data") data.push(text);
        }
        if (!data.length) continue;
        let parsed;
        try {
          parsed = JSON.parse(data.join("\n"));
        } catch {
          continue;
        }
        if (onEvent(name, parsed) === false) return;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

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
    $("#key-message").textContent = apiKey ? "A key is saved in this browser. Enter a new one to replace it." : "Enter an API key if this server needs one.";
    $("#key-input").value = "";
    dialog.showModal();
  });
  $("#key-form").addEventListener("submit", (event) => {
    const key = $("#key-input").value.trim();
    if (!key) {
      event.preventDefault();
      return;
    }
    apiKey = key;
    localStorage.setItem(KEY_STORAGE, key);
    restart();
  });
  $("#key-forget").addEventListener("click", () => {
    apiKey = "";
    localStorage.removeItem(KEY_STORAGE);
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

function setLive(node, text, state) {
  node.textContent = text;
  node.dataset.state = state;
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
  if (task.status === "completed") return task.result ? `${task.result.pages} page${task.result.pages === 1 ? "" : "s"}` : "Done";
  return "Waiting for a worker";
}

function pagesText(task) {
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
  let delay = 1000;
  while (!controller.signal.aborted) {
    try {
      setLive(live, "Live", "on");
      await readEvents(`${API}/events`, controller.signal, (name, data) => {
        delay = 1000;
        if (name === "task") upsertTask(data);
        else if (name === "deleted" && data.id) removeTask(data.id);
      });
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error.status === 401) return;
      if (error.code === "no_stream") {
        setLive(live, "Live updates unavailable in this browser", "off");
        return;
      }
    }
    if (controller.signal.aborted) return;
    setLive(live, "Reconnecting…", "wait");
    await sleep(delay, controller.signal);
    delay = Math.min(delay * 2, 30000);
    try {
      await loadTasks();
    } catch {
      // the next stream attempt reports the problem
    }
  }
}

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
    } else if (action === "download-md" || action === "download-json") {
      const format = action === "download-md" ? "markdown" : "json";
      const blob = await request(`${API}/${id}/result?format=${format}`, { as: "blob" });
      const base = (task?.filename || id).replace(/\.[^.]+$/, "") || "document";
      const url = URL.createObjectURL(blob);
      const a = el("a", { href: url, download: `${base}.${format === "markdown" ? "md" : "json"}` });
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

function addFiles(files) {
  const options = {
    mode: $("#opt-mode").value,
    languages: $("#opt-languages").value.trim(),
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
    if (apiKey) xhr.setRequestHeader("Authorization", `Bearer ${apiKey}`);
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
        askForKey(apiKey ? "The API key was refused. Enter a valid key." : "This server needs an API key.");
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
  const zone = $("#drop-zone");
  for (const type of ["dragenter", "dragover"]) {
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add("dragging");
    });
  }
  for (const type of ["dragleave", "drop"]) {
    zone.addEventListener(type, () => zone.classList.remove("dragging"));
  }
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    if (event.dataTransfer?.files?.length) addFiles([...event.dataTransfer.files]);
  });
  // A file dropped beside the zone must not navigate away from the page.
  window.addEventListener("dragover", (event) => event.preventDefault());
  window.addEventListener("drop", (event) => event.preventDefault());
}

// ---------------------------------------------------------------- task detail and result viewer

const detail = { id: null, task: null, abort: null, doc: null, page: 0, images: new Map(), selected: null, links: new Map() };

function stopDetail() {
  detail.abort?.abort();
  detail.abort = null;
  const view = $("#detail-view");
  view.dataset.live = "false";
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
  fact(facts, "Pages", pagesText(task) + (task.progress.step && task.status === "running" ? ` (${task.progress.step})` : ""));
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
    button.hidden = action.startsWith("download") ? task.status !== "completed" : !allowed(task, action);
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
  if (task.status === "completed" && !detail.doc && !detail.loading) loadResult(task.id);
}

async function openDetail(id) {
  stopDetail();
  Object.assign(detail, { id, task: null, doc: null, page: 0, selected: null, loading: false });
  for (const url of detail.images.values()) URL.revokeObjectURL(url);
  detail.images.clear();
  detail.links.clear();
  $("#home-view").hidden = true;
  const view = $("#detail-view");
  view.hidden = false;
  $("#result").hidden = true;
  $("#markdown").replaceChildren();
  $("#page-boxes").replaceChildren();
  $("#page-image").removeAttribute("src");
  $("#detail-title").textContent = "Loading…";
  $("#detail-facts").replaceChildren();
  $("#detail-error").hidden = true;
  $("#history-list").replaceChildren();
  setLive($("#detail-live"), "", "off");
  try {
    const task = await request(`${API}/${id}`);
    if (detail.id !== id) return;
    upsertTask(task);
    renderDetail(task);
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
  setLive(live, "Live", "on");
  let ended = false;
  let delay = 1000;
  while (!ended && !controller.signal.aborted) {
    try {
      await readEvents(`${API}/${id}/events`, controller.signal, (name, data) => {
        delay = 1000;
        if (name === "task" || name === "end") {
          upsertTask(data);
          if (detail.id === id) renderDetail(tasks.get(id));
        }
        if (name === "deleted") {
          removeTask(id);
          ended = true;
          return false;
        }
        if (name === "end") {
          ended = true;
          return false;
        }
        return true;
      });
    } catch (error) {
      if (controller.signal.aborted || error.status === 401 || error.status === 404 || error.code === "no_stream") break;
    }
    if (!ended && !controller.signal.aborted) {
      setLive(live, "Reconnecting…", "wait");
      await sleep(delay, controller.signal);
      delay = Math.min(delay * 2, 30000);
    }
  }
  if (detail.abort !== controller) return;
  detail.abort = null;
  view.dataset.live = "false";
  if (ended && detail.id === id) {
    setLive(live, "Finished", "off");
    try {
      const task = await request(`${API}/${id}`);
      if (detail.id === id) upsertTask(task);
    } catch {
      // the list still shows the last state
    }
  } else if (!controller.signal.aborted) {
    setLive(live, "Not live", "off");
  }
}

function assetLoader(id) {
  return async (name) => {
    const path = name.startsWith("imgs/") ? name : `imgs/${name}`;
    const blob = await request(`${API}/${id}/assets/${path.split("/").map(encodeURIComponent).join("/")}`, { as: "blob" });
    return URL.createObjectURL(blob);
  };
}

async function loadResult(id) {
  detail.loading = true;
  try {
    const [markdown, doc] = await Promise.all([
      request(`${API}/${id}/result?format=markdown`, { as: "text" }),
      request(`${API}/${id}/result?format=json`),
    ]);
    if (detail.id !== id) return;
    detail.doc = doc;
    $("#result").hidden = false;
    const article = $("#markdown");
    article.replaceChildren(renderMarkdown(markdown, { loadAsset: assetLoader(id) }));
    $("#source-view").textContent = markdown;
    $("#json-view").textContent = JSON.stringify(doc, null, 2);
    linkBlocks(doc, article);
    showPage(0);
  } catch (error) {
    if (detail.id === id && error.status !== 401) notify(`Could not load the result: ${error.message}`, "error");
  } finally {
    detail.loading = false;
  }
}

const squash = (text) => (text || "").replace(/\s+/g, "").toLowerCase();

/** Pairs JSON blocks with the rendered Markdown elements (Markdown is written from the blocks, in order). */
function linkBlocks(doc, article) {
  const elements = [...article.children];
  let cursor = 0;
  doc.pages.forEach((page, p) => {
    page.blocks.forEach((block, b) => {
      const id = `p${p}-b${b}`;
      block.__id = id;
      if (block.type === "header" || block.type === "footer") return;
      const key = squash(block.latex || block.text);
      for (let k = cursor; k < Math.min(cursor + 4, elements.length); k++) {
        const node = elements[k];
        const text = squash(node.textContent);
        const hit =
          block.type === "figure"
            ? node.querySelector(".md-image") !== null
            : key && text && (text === key || text.startsWith(key.slice(0, 40)) || key.startsWith(text.slice(0, 40)));
        if (hit) {
          node.dataset.block = id;
          node.dataset.page = String(p);
          node.tabIndex = 0;
          node.classList.add("linked");
          node.setAttribute("aria-describedby", "markdown-hint");
          detail.links.set(id, node);
          cursor = k + 1;
          break;
        }
      }
    });
  });
}

function setupHint() {
  const hint = el("p", { id: "markdown-hint", className: "visually-hidden", text: "Press Enter to show this block on the page image." });
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
  const canvas = $("#page-canvas");
  canvas.style.aspectRatio = `${page.width} / ${page.height}`;
  const boxes = $("#page-boxes");
  boxes.replaceChildren(
    ...page.blocks.map((block) => {
      const [x0, y0, x1, y1] = block.bbox;
      const label = `${block.type}: ${(block.text || block.latex || "").replace(/\s+/g, " ").slice(0, 80)}`;
      const box = el("button", {
        type: "button",
        className: "box",
        title: label,
        dataset: { block: block.__id, type: block.type },
        ariaLabel: label,
        ariaPressed: String(detail.selected === block.__id),
      });
      box.style.left = `${(100 * x0) / page.width}%`;
      box.style.top = `${(100 * y0) / page.height}%`;
      box.style.width = `${(100 * Math.max(x1 - x0, 1)) / page.width}%`;
      box.style.height = `${(100 * Math.max(y1 - y0, 1)) / page.height}%`;
      if (detail.selected === block.__id) box.classList.add("selected");
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
  for (const node of document.querySelectorAll("#markdown .highlight")) node.classList.remove("highlight");
  const target = detail.links.get(blockId);
  if (target) {
    target.classList.add("highlight");
    if (scroll) target.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }
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
  $("#page-boxes").addEventListener("click", (event) => {
    const box = event.target.closest(".box");
    if (box) select(box.dataset.block);
  });
  const article = $("#markdown");
  article.addEventListener("click", (event) => {
    const node = event.target.closest("[data-block]");
    if (node && !event.target.closest("a")) selectFromText(node);
  });
  article.addEventListener("keydown", (event) => {
    const node = event.target.closest?.("[data-block]");
    if (node && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      selectFromText(node);
    }
  });
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
  setupKeyDialog();
  setupList();
  setupUpload();
  setupDetail();
  setupHint();
  updateEmpty();
  window.addEventListener("hashchange", route);
  route();
  restart({ reopen: false });
}

start();
