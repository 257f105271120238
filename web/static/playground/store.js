// Keeping the playground's session in this tab's storage (sessionStorage),
// so that it survives going to a lesson and back, a reload, and the engine
// dying. Only the playground page keeps one: a lesson page builds its state
// from its steps. A share link wins over the stored session, unless that
// session is the link's own continuation: the page was opened with it, or
// made it, and work went on (going back to the page brings the link's
// address back, and the work after it).
//
// The log is kept as JSON, {v: 1, lines, from}, of at most
// MAX_STORED_CHARS characters: far below the few megabytes a browser
// allows an origin, so that the playground never fills it. A longer log, or one the browser refuses, is not kept: the stored
// copy becomes {v: 1, tooBig: N lines}, the page says so once, and a
// return to the page starts fresh and says why. Download keeps a session
// of any size.
import { t } from "../i18n.js";
import { $ } from "./dom.js";
import { logLines, onRecord, onRestart, commitPending } from "./session.js";

const KEY = "warren.playground.session";
const MAX_STORED_CHARS = 1_000_000;

let scheduled = false;
let tooBigSaid = false;

function storage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage refused by the browser's policy: nothing is kept
  }
}

// shareHash is the page's share-link fragment, or "".
const shareHash = () => (/^#s=/.test(location.hash) ? location.hash : "");

// stored is what this tab kept: {lines} when the session is to be opened
// from it, {tooBig: n} when it was too large to keep, or null. With a
// share link in the address, it is null unless the stored session
// continues that link.
export function stored() {
  let v = null;
  try {
    v = JSON.parse(storage()?.getItem(KEY) ?? "null");
  } catch {
    return null; // not ours, or damaged: a fresh session
  }
  if (!v || v.v !== 1) return null;
  if (shareHash() && v.from !== shareHash()) return null;
  if (Array.isArray(v.lines) && v.lines.every((l) => typeof l === "string")) return { lines: v.lines };
  if (typeof v.tooBig === "number") return { tooBig: v.tooBig };
  return null;
}

function save() {
  scheduled = false;
  const s = storage();
  if (!s) return;
  try {
    if (!logLines.length) {
      s.removeItem(KEY);
      return;
    }
    const value = JSON.stringify({ v: 1, lines: logLines, from: shareHash() });
    if (value.length <= MAX_STORED_CHARS) {
      s.setItem(KEY, value);
      tooBigSaid = false;
      return;
    }
  } catch {
    // over the quota: the same as too large
  }
  try {
    s.setItem(KEY, JSON.stringify({ v: 1, tooBig: logLines.length }));
  } catch {
    // nothing can be kept
  }
  if (!tooBigSaid) note(t("js.store.tooBig", { max: MAX_STORED_CHARS }), false);
  tooBigSaid = true;
}

// schedule saves once the running call is done: a replay records every
// line, and is saved once.
function schedule() {
  if (scheduled) return;
  scheduled = true;
  setTimeout(save, 0);
}

// note shows text under the status line, with the Start fresh button when
// fresh is true.
export function note(text, fresh) {
  $("session-note-text").textContent = text;
  $("session-fresh").hidden = !fresh;
  $("session-note").hidden = false;
}

// keepSession saves the session after every change, and when the page is
// left: the time played then is written into the log first, as a share
// link would have it.
export function keepSession() {
  onRecord(schedule);
  onRestart(schedule);
  window.addEventListener("pagehide", () => {
    commitPending();
    save();
  });
}

// wireFresh makes Start fresh reset the playground (the Reset button's
// work) and then run fn.
export function wireFresh(fn) {
  $("session-fresh").addEventListener("click", () => {
    $("reset").click();
    $("session-note").hidden = true;
    fn();
  });
}
