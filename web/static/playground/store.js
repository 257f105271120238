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
// allows an origin, so that the playground never fills it. A longer log,
// or one the browser refuses, is not kept: the stored copy becomes
// {v: 1, tooBig: N lines}, the page says so once, and a return to the
// page starts fresh and says why. Download keeps a session of any size.
// readSession and writeSession are that format, on any storage; the rest
// keeps this tab's.
import { t } from "../i18n.js";
import { $ } from "./dom.js";
import { logLines, onRecord, onRestart, commitPending } from "./session.js";

const KEY = "warren.playground.session";
export const MAX_STORED_CHARS = 1_000_000;

function storage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage refused by the browser's policy: nothing is kept
  }
}

// shareHash is the page's share-link fragment, or "".
const shareHash = () => (/^#s=/.test(location.hash) ? location.hash : "");

// readSession is what storage (a Web Storage, or null) kept: {lines} when
// the session is to be opened from it, {tooBig: n} when it was too large
// to keep, or null. With a share link's fragment in from, it is null
// unless the stored session continues that link.
export function readSession(storage, from) {
  let v = null;
  try {
    v = JSON.parse(storage?.getItem(KEY) ?? "null");
  } catch {
    return null; // not ours, or damaged: a fresh session
  }
  if (!v || v.v !== 1) return null;
  if (from && v.from !== from) return null;
  if (Array.isArray(v.lines) && v.lines.every((l) => typeof l === "string")) return { lines: v.lines };
  if (typeof v.tooBig === "number") return { tooBig: v.tooBig };
  return null;
}

// writeSession keeps lines in storage, made at share link from ("" for
// none): "kept", "removed" (an empty log keeps nothing), or "tooBig" when
// they are longer than MAX_STORED_CHARS or storage refused them, and only
// their count is kept, if even that.
export function writeSession(storage, lines, from) {
  try {
    if (!lines.length) {
      storage.removeItem(KEY);
      return "removed";
    }
    const value = JSON.stringify({ v: 1, lines, from });
    if (value.length <= MAX_STORED_CHARS) {
      storage.setItem(KEY, value);
      return "kept";
    }
  } catch {
    // over the quota: the same as too large
  }
  try {
    storage.setItem(KEY, JSON.stringify({ v: 1, tooBig: lines.length }));
  } catch {
    // nothing can be kept
  }
  return "tooBig";
}

// stored is what this tab kept (readSession of the page's storage).
export function stored() {
  return readSession(storage(), shareHash());
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
  let scheduled = false;
  let tooBigSaid = false;
  const save = () => {
    scheduled = false;
    const s = storage();
    if (!s) return;
    const kept = writeSession(s, logLines, shareHash());
    if (kept === "removed") return;
    if (kept === "kept") {
      tooBigSaid = false;
      return;
    }
    if (!tooBigSaid) note(t("js.store.tooBig", { max: MAX_STORED_CHARS }), false);
    tooBigSaid = true;
  };
  // schedule saves once the running call is done: a replay records every
  // line, and is saved once.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(save, 0);
  };
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
