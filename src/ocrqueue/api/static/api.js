// HTTP API access for the page: JSON requests, server-sent event streams read with fetch, the API key.

export const API = "/api/v1/tasks";
const KEY_STORAGE = "ocrqueue.apiKey";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let apiKey = localStorage.getItem(KEY_STORAGE) || "";
let unauthorized = () => {};

export const currentKey = () => apiKey;

export function saveKey(key) {
  apiKey = key;
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
}

/** Called with a message whenever the server answers 401 (the page then asks for a key). */
export function onUnauthorized(handler) {
  unauthorized = handler;
}

export function refused() {
  unauthorized(apiKey ? "The API key was refused. Enter a valid key." : "This server needs an API key.");
}

export function authHeaders(extra = {}) {
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

/** The ApiError for a refused request; a 401 asks for a key as well. */
async function failure(response) {
  const error = await errorFrom(response);
  if (response.status === 401) refused();
  return error;
}

/** fetch with the key; the body parsed `as` json, text or blob; an ApiError (with the API's message) otherwise. */
export async function request(path, { method = "GET", signal, as = "json", body } = {}) {
  const response = await fetch(path, { method, headers: authHeaders(), signal, cache: "no-store", body });
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  if (as === "text") return response.text();
  if (as === "blob") return response.blob();
  if (as === "response") return response;
  return response.json();
}

/**
 * Reads a server-sent event stream with fetch (so it can send the Authorization header) and calls
 * onEvent(name, data) per event. Resolves when the server ends the stream or onEvent returns false.
 */
export async function readEvents(path, signal, onEvent) {
  const response = await fetch(path, {
    headers: authHeaders({ Accept: "text/event-stream" }),
    signal,
    cache: "no-store",
  });
  if (!response.ok) throw await failure(response);
  if (!response.body || !response.body.getReader) throw new ApiError(0, "no_stream", "streaming is not supported");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let carry = ""; // a CR at the end of a chunk may be the first half of a CRLF
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      let text = carry + decoder.decode(value, { stream: true });
      carry = text.endsWith("\r") ? "\r" : "";
      if (carry) text = text.slice(0, -1);
      buffer += text.replace(/\r\n?/g, "\n");
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

/**
 * Reads the event stream at `path`, reconnecting with a backoff of 1 s doubling to 30 s (back to
 * 1 s once an event arrives), until onEvent(name, data) returns something other than undefined,
 * which it resolves to. Calls onState("live" | "reconnecting") as the stream comes and goes and
 * awaits onReconnect() after each wait. Resolves to "stopped" when the signal aborts, "lost" on
 * 401 or 404, "unsupported" when this browser cannot stream.
 */
export async function followStream(path, { signal, onEvent, onState = () => {}, onReconnect = () => {} }) {
  let delay = 1000;
  while (!signal.aborted) {
    let outcome;
    try {
      onState("live");
      await readEvents(path, signal, (name, data) => {
        delay = 1000;
        outcome = onEvent(name, data);
        return outcome === undefined;
      });
    } catch (error) {
      if (signal.aborted) return "stopped";
      if (error.code === "no_stream") return "unsupported";
      if (error.status === 401 || error.status === 404) return "lost";
    }
    if (outcome !== undefined) return outcome;
    if (signal.aborted) break;
    onState("reconnecting");
    await sleep(delay, signal);
    delay = Math.min(delay * 2, 30000);
    if (!signal.aborted) await onReconnect();
  }
  return "stopped";
}

/**
 * Follows one task's event stream until the server says `end` (a terminal state) or `deleted`.
 * Calls onTask(task) on every `task`/`end` event. Resolves to "ended", "deleted", "stopped"
 * (aborted) or "lost" (401, 404, no streaming in this browser).
 */
export async function followTask(id, { signal, onTask, onState }) {
  const outcome = await followStream(`${API}/${id}/events`, {
    signal,
    onState,
    onEvent: (name, data) => {
      if (name === "task" || name === "end") onTask(data);
      if (name === "end") return "ended";
      if (name === "deleted") return "deleted";
      return undefined;
    },
  });
  return outcome === "unsupported" ? "lost" : outcome;
}
