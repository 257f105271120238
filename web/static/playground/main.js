// Warren's playground page. The engine runs here as WebAssembly
// (wasm/playground): the global object warren runs script lines and moves
// virtual time, and returns plain objects (see wasm/playground/bridge's
// package comment for their shapes). These modules hold no engine logic:
// the forms build script lines and run them through the same path as the
// console, and everything drawn comes from warren.snapshot(), warren.next()
// and the results of each call.
//
// The modules, by concern: session.js (the engine, the log, the calls
// shown), app.js (render, run), draw/ (each panel drawn from the
// snapshot: topology, diagram, tokens, queue cards, inspector, event log,
// timeline, clock), words.js and lines.js (script lines from forms),
// definitions.js (definitions JSON to lines), and the controls: console.js,
// forms.js, clock.js, timeline.js, importer.js, share.js. This one boots the
// engine and wires them.
import { t } from "../i18n.js";
import { say } from "./dom.js";
import { w, start, onRecord, onRestart, replayTo, commitPending } from "./session.js";
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
    const go = new Go();
    const { instance } = await WebAssembly.instantiateStreaming(fetch("/static/warren.wasm"), go.importObject);
    go.run(instance); // settles only if Go exits; warren exists once run returns
    if (!globalThis.warren) throw new Error("warren is not defined after go.run");
    start(globalThis.warren);
  } catch (e) {
    say(t("js.status.noEngine", { error: e.message }), true);
    return;
  }
  for (const b of document.querySelectorAll(".playground button")) b.disabled = false;
  wireImport();
  wireConsole();
  wireForms();
  wireClock();
  wireTimeline();
  wireShare();
  const lines = sharedLines();
  if (lines && replayTo(lines, lines.length)) say(t("js.status.readyShared", { n: lines.length }));
  else if (!lines) say(t("js.status.ready"));
  render();
  announceReady(lines);
  document.body.dataset.ready = "true";
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
    run: (line) => run(line),
    replay: (lines) => {
      const ok = replayTo(lines, lines.length);
      render();
      return ok;
    },
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

boot();
