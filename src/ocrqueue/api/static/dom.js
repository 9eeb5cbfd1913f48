// Small DOM helpers shared by the page's modules. Text reaches the DOM only through textContent.

export const $ = (selector, root = document) => root.querySelector(selector);

/** el("a", { href, text, dataset: {...}, ariaLabel }, ...children): a node built from properties, never from HTML. */
export const el = (tag, props = {}, ...children) => {
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

/** Makes `zone` take dropped files: marked while files are dragged over it, `onFiles(files)` on a drop. */
export function dropZone(zone, onFiles) {
  for (const type of ["dragenter", "dragover"]) {
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add("dragging");
    });
  }
  for (const type of ["dragleave", "drop"]) zone.addEventListener(type, () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length) onFiles(files);
  });
}

export function setLive(node, text, state) {
  node.textContent = text;
  node.dataset.state = state;
}

/** An onState for followStream: "Live" or "Reconnecting…" in `node`. */
export const showLive = (node) => (state) =>
  state === "live" ? setLive(node, "Live", "on") : setLive(node, "Reconnecting…", "wait");

export const STATUS_LABELS = {
  pending: "Pending",
  running: "Running",
  completed: "Completed",
  cancelled: "Cancelled",
  dead_letter: "Failed",
};

export const TERMINAL = new Set(["completed", "cancelled", "dead_letter"]);
