// Warren's playground page. The engine runs here as WebAssembly
// (wasm/playground): the global object warren runs script lines and moves
// virtual time, and returns plain objects (see wasm/playground/bridge's
// package comment for their shapes). These modules hold no engine logic:
// the forms build script lines and run them through the same path as the
// console, and everything drawn comes from warren.snapshot(), warren.next()
// and the results of each call.
//
// The modules, by concern: engine.js (loading the engine, and noticing
// its death), session.js (the log, the calls shown), recovery.js
// (restoring a session after the engine died), store.js (the session kept
// in the tab's storage), firststep.js (the guided first step), app.js
// (render, run), draw/ (each panel drawn from the
// snapshot: topology, diagram, tokens, queue cards, inspector, event log,
// timeline, clock), words.js and lines.js (script lines from forms),
// definitions.js (definitions JSON to lines), and the controls: console.js,
// forms.js, clock.js, timeline.js, importer.js, share.js, live.js (a
// shared session: its page replicates the session's broker) and
// history.js (a session's history: exported, and replayed offline;
// historyscript.js reads one). This one boots the engine and wires them,
// handing run and render to the modules that call back up (console.js,
// live.js), so that no module imports one that imports it: web/jstest
// fails on an import cycle.
import { t } from "../i18n.js";
import { $, say } from "./dom.js";
import { w, start, onRecord, onRestart, replayTo, commitPending } from "./session.js";
import { engine, load, EngineStopped } from "./engine.js";
import { wireRecovery, linesText } from "./recovery.js";
import { stored, keepSession, note, wireFresh } from "./store.js";
import { showFirstStep, wireFirstStep } from "./firststep.js";
import { onSelect } from "./selection.js";
import { render, run } from "./app.js";
import { noteFlashes, clearFlashes } from "./draw/diagram.js";
import { noteTokenEvents, clearTokenEvents } from "./draw/tokens.js";
import { showResult, wireConsole } from "./console.js";
import { wireForms } from "./forms.js";
import { wireClock } from "./clock.js";
import { wireTimeline } from "./timeline.js";
import { wireImport } from "./importer.js";
import { sharedLines, fragment, wireShare } from "./share.js";
import { isLive, wireLive } from "./live.js";
import { wireHistory } from "./history.js";

onRecord((r, note) => {
  noteFlashes(r.events);
  noteTokenEvents(r.events);
  showResult(r, note);
});
onRestart(() => {
  clearFlashes(); // a replay flashes nothing
  clearTokenEvents(); // and animates nothing
});
onSelect(render);

async function boot() {
  for (const b of document.querySelectorAll(".playground button")) b.disabled = true;
  try {
    await load();
    start(engine);
  } catch (e) {
    say(t("js.status.noEngine", { error: e.message }), true);
    return;
  }
  for (const b of document.querySelectorAll(".playground button")) b.disabled = false;
  wireImport();
  wireConsole(run);
  wireForms();
  wireClock();
  wireTimeline();
  wireShare();
  wireRecovery();
  wireLive(render);
  wireHistory();
  const lines = isLive() ? null : sharedLines();
  try {
    if (!isLive()) openSession(lines); // a shared session's page waits for its join (live.js)
    render();
  } catch (e) {
    if (!(e instanceof EngineStopped)) throw e; // the restore panel says what happened
  }
  announceReady(lines);
  document.body.dataset.ready = "true";
}

// openSession opens the share link's session, else on the playground page
// the one this tab kept (store.js), else an empty one with the guided
// first step. A lesson page keeps nothing and shows no first step: its
// steps build their own state.
function openSession(shared) {
  const keeps = $("first-step") !== null; // only the playground page has it
  if (keeps) {
    keepSession();
    wireFirstStep();
    wireFresh(showFirstStep);
  }
  const kept = keeps ? stored() : null;
  if (kept?.lines) {
    if (replayTo(kept.lines, kept.lines.length)) {
      say(t("js.status.ready"));
      note(t("js.store.restored", { lines: linesText(kept.lines.length) }), true);
    }
    return;
  }
  if (shared) {
    if (replayTo(shared, shared.length)) say(t("js.status.readyShared", { n: shared.length }));
    return;
  }
  say(t("js.status.ready"));
  if (kept?.tooBig) note(t("js.store.wasTooBig", { lines: linesText(kept.tooBig) }), false);
  if (keeps) showFirstStep();
}

// announceReady tells other scripts on the page (static/lesson.js on a
// lesson page) that the engine runs, and hands them the few operations
// they may use, so that every line still goes through run or replayTo and
// shows in the log like a typed one. shared is the share link's lines, or
// null when the page opened without one; fragment() is the session as a
// share link's fragment (static/lang.js keeps it across a language switch).
function announceReady(shared) {
  const api = {
    warren: w,
    // run and replay answer whether they ran: false when the engine has
    // stopped (the restore panel says so).
    run: (line) => stopsSafely(() => (run(line), true)),
    replay: (lines) =>
      stopsSafely(() => {
        const ok = replayTo(lines, lines.length);
        render();
        return ok;
      }),
    say,
    shared,
    fragment: () => {
      commitPending();
      return fragment();
    },
  };
  globalThis.playground = api;
  document.dispatchEvent(new CustomEvent("warren:ready", { detail: api }));
}

// stopsSafely runs fn, and answers false instead of throwing when the
// engine stops.
function stopsSafely(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof EngineStopped) return false;
    throw e;
  }
}

boot();
