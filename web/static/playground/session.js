// The session: the engine (engine.js's stand-in for the global warren
// object the wasm main puts up), the log of lines the timeline moves along,
// the calls the event log shows, the last snapshot, and virtual time played
// but not yet written to the log. The log is the session: rewinding replays
// a prefix of it, a share link carries it, and after the engine dies a
// fresh one replays it. logLines is the page's copy of the engine's log
// (warren.log()), kept line by line from each result, so that it outlives
// the engine and a replay never asks the engine for its whole log again.
//
// Other modules read the exported bindings and change them only through
// the functions here. What a call's result means for the page (the console
// output, flashes, tokens) is left to the hooks registered with onRecord;
// onRestart hooks run when the event log starts over (a replay or a reset).
import { t } from "../i18n.js";
import { say } from "./dom.js";
import { alive } from "./engine.js";
import { errorText } from "../scripterror.js";

const MAX_ENTRIES_SHOWN = 300; // event-log entries kept in the DOM

export let w = null; // the engine, once loaded
export let entries = []; // {result, note} of every call shown in the event log
export let logLines = []; // the engine's log, as the results said
export let timelineLog = []; // the log the scrubber moves along; after a rewind it still holds the lines ahead
export let snap = null; // the last snapshot drawn
export let pendingMs = 0; // virtual time played but not yet written to the log (see clock.js)

// noteOf gives a replayed line its note: an opened history's comment
// saying who did what (history.js), kept across rewinds.
let noteOf = () => undefined;

// noteLines sets what gives replayed lines their notes; null for none.
export function noteLines(fn) {
  noteOf = fn ?? (() => undefined);
}

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
// that whatever runs next runs at the time the clock shows. With the engine
// dead there is nothing to write it to, and it is dropped.
export function commitPending() {
  const ms = Math.floor(pendingMs);
  pendingMs -= ms;
  if (ms >= 1 && alive()) record(w.advanceBy(ms));
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
  if (r.logged) noteLogged(r.line);
}

// noteLogged appends a line the engine logged (the result's line is the
// log's, as the bridge writes it). A line run after a rewind drops the
// lines that were ahead, as the engine's log has.
function noteLogged(line) {
  logLines.push(line);
  if (timelineLog.length === logLines.length - 1) timelineLog.push(line);
  else timelineLog = logLines.slice();
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
    say(t("js.status.replayFailed", { error: errorText(r) }), true);
    return false;
  }
  entries = [];
  logLines = [];
  timelineLog = [];
  for (const res of r.results) record(res, noteOf(res.line));
  timelineLog = lines.slice();
  for (const fn of restartHooks) fn();
  return true;
}

// reset starts a fresh broker at 0s with an empty log.
export function reset() {
  w.reset();
  noteOf = () => undefined;
  pendingMs = 0;
  entries = [];
  logLines = [];
  timelineLog = [];
  for (const fn of restartHooks) fn();
}
