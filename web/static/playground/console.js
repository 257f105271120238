// The console: a script line typed and run, with a history on ↑/↓, and
// the output of the last call. guard shows a user's mistake there too.
import { t } from "../i18n.js";
import { $ } from "./dom.js";
import { UserError } from "./words.js";
import { run } from "./app.js";

const MAX_HISTORY = 200; // console history lines
const MAX_OUTPUT_LINES = 40; // console output lines shown per call: the first and last halves

const history = [];
let historyPos = 0;

// remember adds a line to the history (the forms' lines too).
export function remember(line) {
  if (history[history.length - 1] !== line) history.push(line);
  if (history.length > MAX_HISTORY) history.shift();
  historyPos = history.length;
}

// showResult writes a call's line, note, output and error to the console.
export function showResult(r, note) {
  const out = [];
  if (r.line) out.push(`> ${r.line}`);
  if (note) out.push(note);
  if (r.output) out.push(outputShown(r.output.replace(/\n$/, "")));
  if (r.error) out.push(t("js.console.error", { error: r.error }));
  $("console-output").textContent = out.join("\n");
}

// outputShown keeps the console to the first and last MAX_OUTPUT_LINES / 2
// lines of an output: a step that expires 500 messages prints 500 trace
// lines, which the event log lists already, and laying them all out would
// cost more than the step. The last lines hold any error and the verb's
// own output.
function outputShown(text) {
  if (text.split("\n", MAX_OUTPUT_LINES + 2).length <= MAX_OUTPUT_LINES + 1) return text;
  const all = text.split("\n");
  const half = MAX_OUTPUT_LINES / 2;
  return [...all.slice(0, half), t("js.console.more", { n: all.length - MAX_OUTPUT_LINES }), ...all.slice(-half)].join("\n");
}

// guard wraps an event handler: a UserError is shown in the console; any
// other exception is a bug in this page, shown there and logged.
export function guard(fn) {
  return (...args) => {
    try {
      fn(...args);
    } catch (e) {
      $("console-output").textContent = t("js.console.error", { error: e.message });
      if (!(e instanceof UserError)) console.error(e); // a bug in this page: let it show
    }
  };
}

export function wireConsole() {
  $("console-form").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      const input = $("console-input");
      const line = input.value;
      if (line.trim() === "") return;
      remember(line);
      input.value = "";
      run(line);
    }),
  );
  $("console-input").addEventListener("keydown", (e) => {
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    historyPos = Math.max(0, Math.min(history.length, historyPos + (e.key === "ArrowUp" ? -1 : 1)));
    e.target.value = history[historyPos] ?? "";
  });
}
