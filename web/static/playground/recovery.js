// What the page does when the engine dies (engine.js): the status line and
// the restore panel above the playground say so, the playground turns
// inert (nothing in it can run), and the session's log stays in the page
// (session.js) and in this tab's storage (store.js). Restore starts a
// fresh engine and replays the log, leaving out what the engine died on:
//
//   - a line it was running, or time it was moving, never reached the log:
//     the whole log is replayed;
//   - a read (a snapshot, the next timer) died on the state the log's last
//     line made: that line is left out;
//   - a replay (a rewind, a share link, a restore) died on one of its
//     lines, most likely the last: that one is left out, and a second
//     death leaves out one more.
//
// A line left out stays in the timeline, ahead of the scrubber.
import { t } from "../i18n.js";
import { $, say } from "./dom.js";
import { load, onDeath, EngineStopped } from "./engine.js";
import { logLines, timelineLog, replayTo } from "./session.js";
import { render } from "./app.js";
import { halt } from "./clock.js";

const READS = new Set(["snapshot", "next", "log"]);
const TIME = new Set(["advanceBy", "advanceTo", "step"]);

// planFor decides what to replay after death (see engine.js's onDeath)
// of a session whose log was log and whose timeline was timeline
// (session.js's logLines and timelineLog): {lines, timeline, leftOut?,
// running?}, running being what the engine was doing that never reached
// the log ({line}: running it, {time: true}: moving time, {check: true}).
export function planFor({ call }, log, timeline) {
  const name = call?.name;
  if (name === "replay") {
    const [lines, upTo] = call.args;
    const n = typeof upTo === "number" && upTo >= 0 && upTo <= lines.length ? upTo : lines.length;
    return { lines: lines.slice(0, Math.max(0, n - 1)), timeline: lines, leftOut: n > 0 ? lines[n - 1] : undefined };
  }
  if (READS.has(name) && log.length) return { lines: log.slice(0, -1), timeline, leftOut: log.at(-1) };
  const p = { lines: log.slice(), timeline };
  if (name === "exec") p.running = { line: call.args[0] };
  else if (TIME.has(name)) p.running = { time: true };
  else if (name === "check") p.running = { check: true };
  return p;
}

// runningText says what a plan's running was.
function runningText(r) {
  if (r.line !== undefined) return t("js.engine.whatLine", { line: r.line });
  return r.time ? t("js.engine.whatTime") : t("js.engine.whatCheck");
}

// linesText is "1 line", "5 lines": how many lines of log.
export function linesText(n) {
  return n === 1 ? t("js.engine.lines.one") : t("js.engine.lines.other", { n });
}

function why({ code, error }) {
  if (code !== null) return t("js.engine.whyExit", { code });
  return error ?? t("js.engine.whyGone");
}

function planText(p) {
  const lines = linesText(p.lines.length);
  if (p.leftOut !== undefined) return t("js.engine.planLast", { lines, line: p.leftOut });
  if (p.running) return t("js.engine.planRunning", { lines, what: runningText(p.running) });
  return t("js.engine.planAll", { lines });
}

function playground() {
  return document.querySelector("main.playground");
}

// stopped says the engine died, and returns what Restore is to replay.
function stopped(death) {
  halt();
  const plan = planFor(death, logLines, timelineLog);
  say(t("js.engine.stopped"), true);
  $("engine-down-text").textContent = `${t("js.engine.kept", { why: why(death), lines: linesText(logLines.length) })} ${planText(plan)}`;
  $("engine-down").hidden = false;
  $("engine-restore").disabled = false;
  playground().inert = true;
  document.body.dataset.engine = "stopped";
  $("engine-restore").focus();
  return plan;
}

function isPrefix(a, b) {
  return a.length <= b.length && a.every((line, i) => line === b[i]);
}

// restore starts a fresh engine and replays plan p.
async function restore(p) {
  $("engine-restore").disabled = true;
  say(t("js.engine.restoring"));
  try {
    await load();
  } catch (e) {
    say(t("js.engine.restoreFailed", { error: e.message }), true);
    $("engine-restore").disabled = false;
    return;
  }
  $("engine-down").hidden = true;
  playground().inert = false;
  document.body.dataset.engine = "running";
  try {
    // Keep the lines ahead of the scrubber, the one left out among them.
    const base = isPrefix(p.lines, p.timeline) ? p.timeline : p.lines;
    if (replayTo(base, p.lines.length)) {
      const lines = linesText(p.lines.length);
      if (p.leftOut !== undefined) say(t("js.engine.restoredLast", { lines, line: p.leftOut }));
      else if (p.running) say(t("js.engine.restoredRunning", { lines, what: runningText(p.running) }));
      else say(t("js.engine.restored", { lines }));
    }
    render();
  } catch (e) {
    if (!(e instanceof EngineStopped)) throw e; // it died again: stopped() offers the next plan
  }
}

export function wireRecovery() {
  document.body.dataset.engine = "running";
  let plan = null; // what Restore replays, since the last death
  onDeath((death) => (plan = stopped(death)));
  $("engine-restore").addEventListener("click", () => restore(plan));
  // A death inside a handler that is not guarded (a click that selects a
  // message and renders) ends in EngineStopped there: the panel says it.
  window.addEventListener("error", (e) => {
    if (e.error instanceof EngineStopped) e.preventDefault();
  });
}
