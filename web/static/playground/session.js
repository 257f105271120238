// The session: the engine (the global warren object the wasm main puts
// up), the log of lines the timeline moves along, the calls the event log
// shows, the last snapshot, and virtual time played but not yet written to
// the log. The log (warren.log()) is the session: rewinding replays a
// prefix of it, and a share link carries it.
//
// Other modules read the exported bindings and change them only through
// the functions here. What a call's result means for the page (the console
// output, flashes, tokens) is left to the hooks registered with onRecord;
// onRestart hooks run when the event log starts over (a replay or a reset).
import { t } from "../i18n.js";
import { say } from "./dom.js";

const MAX_ENTRIES_SHOWN = 300; // event-log entries kept in the DOM

export let w = null; // the engine, once loaded
export let entries = []; // {result, note} of every call shown in the event log
export let timelineLog = []; // the log the scrubber moves along; after a rewind it still holds the lines ahead
export let snap = null; // the last snapshot drawn
export let pendingMs = 0; // virtual time played but not yet written to the log (see clock.js)

const recordHooks = [];
const restartHooks = [];
export const onRecord = (fn) => recordHooks.push(fn);
export const onRestart = (fn) => restartHooks.push(fn);

export function start(engine) {
  w = engine;
}

// refresh takes a new snapshot, for a render.
export function refresh() {
  snap = w.snapshot();
  return snap;
}

// viewNow is the time the clock shows: the engine's plus what was played.
export function viewNow() {
  return (snap ? snap.now : 0) + pendingMs;
}

// play adds virtual time played in the display (clock.js).
export function play(ms) {
  pendingMs += ms;
}

// advancePlayed writes the time played into the log as one advance, when
// a timer falls due within it, keeping the fraction of a millisecond.
export function advancePlayed() {
  const target = Math.floor(snap.now + pendingMs);
  pendingMs = snap.now + pendingMs - target;
  record(w.advanceTo(target));
}

// commitPending writes time played since the last event into the log, so
// that whatever runs next runs at the time the clock shows.
export function commitPending() {
  const ms = Math.floor(pendingMs);
  pendingMs -= ms;
  if (ms >= 1) record(w.advanceBy(ms));
}

// record keeps one call's result for the event log and hands it to the
// onRecord hooks.
export function record(r, note) {
  // The bridge documents events as never null, but a line without events
  // (advance with nothing due) has answered null: draw it as none.
  if (!Array.isArray(r.events)) r = { ...r, events: [] };
  entries.push({ result: r, note });
  for (const fn of recordHooks) fn(r, note);
  if (entries.length > MAX_ENTRIES_SHOWN) entries = entries.slice(-MAX_ENTRIES_SHOWN);
  if (r.logged) timelineLog = w.log();
}

// exec runs one line at the time the clock shows.
export function exec(line) {
  commitPending();
  record(w.exec(line));
}

// replayTo rebuilds the session from lines[0:upTo], and the event log with it.
export function replayTo(lines, upTo) {
  pendingMs = 0;
  const r = w.replay(lines, upTo);
  if (r.error) {
    say(t("js.status.replayFailed", { error: r.error }), true);
    return false;
  }
  entries = [];
  for (const res of r.results) record(res);
  for (const fn of restartHooks) fn();
  timelineLog = lines.slice();
  return true;
}

// reset starts a fresh broker at 0s with an empty log.
export function reset() {
  w.reset();
  pendingMs = 0;
  entries = [];
  timelineLog = [];
  for (const fn of restartHooks) fn();
}
