// "Ask about an image": one image and a question to POST /api/v1/vision, the task followed live
// on its event stream, the model's answer rendered with answer.js. Offered only when the server
// has a model server configured (/readyz says so in checks.model_server).

import { $, dropZone, el, setLive, showLive, STATUS_LABELS } from "./dom.js";
import { followTask, request } from "./api.js";
import { answerNote, renderAnswer } from "./answer.js";

const VISION = "/api/v1/vision";
const ask = { file: null, preview: null, abort: null, id: null };

/** "not configured", "closed", "open: …", "half-open: …", or null when /readyz could not be read. */
async function modelServerState() {
  try {
    const response = await fetch("/readyz", { cache: "no-store" });
    const body = await response.json();
    const state = body?.checks?.model_server;
    return typeof state === "string" ? state : null;
  } catch {
    return null;
  }
}

function showAvailability(state) {
  const configured = state !== "not configured";
  $("#ask-checking").hidden = true;
  $("#ask-unavailable").hidden = configured;
  $("#ask-form").hidden = !configured;
  const down = configured && state !== null && state !== "closed";
  $("#ask-server").hidden = !down;
  $("#ask-server").textContent = down ? `The model server is not answering right now (${state}); questions wait until it is back.` : "";
  $("#ask-panel").dataset.model = state === null ? "unknown" : configured ? "configured" : "missing";
}

function chooseImage(file) {
  if (!file) return;
  ask.file = file;
  if (ask.preview) URL.revokeObjectURL(ask.preview);
  ask.preview = null;
  const preview = $("#ask-preview");
  if (file.type.startsWith("image/")) {
    ask.preview = URL.createObjectURL(file);
    preview.src = ask.preview;
    preview.alt = `The image to ask about: ${file.name}`;
    preview.hidden = false;
  } else {
    preview.removeAttribute("src");
    preview.hidden = true;
  }
  $("#ask-file-name").textContent = file.name;
  $("#ask-error").hidden = true;
}

function stepText(task) {
  if (task.status === "pending") return task.error ? `Will retry: ${task.error.message || task.error.kind}` : "Waiting for a worker";
  if (task.status === "running") return task.progress.step || "Working…";
  if (task.status === "completed") return "Answered";
  if (task.status === "cancelled") return "Cancelled";
  return `Failed: ${task.error?.message || task.error?.kind || "no reason given"}`;
}

function showTask(task) {
  if (task.id !== ask.id) return;
  const badge = $("#ask-badge");
  badge.textContent = STATUS_LABELS[task.status] || task.status;
  badge.dataset.status = task.status;
  const step = $("#ask-step");
  step.textContent = stepText(task);
  step.classList.toggle("error-text", task.status === "dead_letter");
  const answer = $("#ask-answer");
  if (task.status === "completed" && task.answer) {
    answer.replaceChildren(renderAnswer(task.answer.text), el("p", { className: "hint", text: answerNote(task.answer) }));
    answer.hidden = false;
  } else {
    answer.replaceChildren();
    answer.hidden = true;
  }
}

async function follow(task) {
  ask.abort?.abort();
  const controller = new AbortController();
  ask.abort = controller;
  ask.id = task.id;
  $("#ask-result").hidden = false;
  $("#ask-link").href = `#/task/${task.id}`;
  showTask(task);
  const live = $("#ask-live");
  const outcome = await followTask(task.id, {
    signal: controller.signal,
    onTask: showTask,
    onState: showLive(live),
  });
  if (ask.abort !== controller) return;
  ask.abort = null;
  if (outcome === "ended") setLive(live, "Finished", "off");
  else if (outcome === "deleted") setLive(live, "The task was deleted", "off");
  else if (outcome === "lost") setLive(live, "Not live", "off");
}

async function submit(event) {
  event.preventDefault();
  const question = $("#ask-question").value.trim();
  const error = $("#ask-error");
  const fail = (message) => {
    error.textContent = message;
    error.hidden = false;
  };
  if (!ask.file) return fail("Choose or drop an image first.");
  if (!question) return fail("Type a question about the image.");
  error.hidden = true;
  const form = new FormData();
  form.append("file", ask.file, ask.file.name);
  form.append("question", question);
  const button = $("#ask-submit");
  button.disabled = true;
  try {
    const response = await request(VISION, { method: "POST", body: form, as: "response" });
    const task = await response.json();
    $("#ask-asked").textContent = question;
    $("#ask-again").hidden = response.status !== 200;
    follow(task);
  } catch (failure) {
    if (failure.code === "model_not_configured") showAvailability("not configured");
    else if (failure.status !== 401) fail(failure.message);
  } finally {
    button.disabled = false;
  }
}

export function setupVision() {
  $("#ask-form").addEventListener("submit", submit);
  const input = $("#ask-file");
  input.addEventListener("change", () => {
    chooseImage(input.files[0]);
    input.value = "";
  });
  dropZone($("#ask-drop"), (files) => chooseImage(files[0]));
  modelServerState().then(showAvailability);
}
