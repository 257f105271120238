// The console: a script line typed and run, with a history on ↑/↓, and
// the output of the last call. guard shows a user's mistake there too.
// Everything that runs lines uses guard and showResult, app.js's run
// among them, so this module takes run from its caller (wireConsole)
// rather than importing app.js back.
import * as i18n from "../i18n.js";
import { $ } from "./dom.js";
import { UserError } from "./words.js";
import { explainer } from "./explain.js";
import { scriptErrors } from "../scripterror.js";
import { lineShown } from "./format.js";

const { t } = i18n;

const MAX_HISTORY = 200; // console history lines
const MAX_OUTPUT_LINES = 40; // console output lines shown per call: the first and last halves

// lineHistory is the lines run, newest last, at most max of them, and a
// position in them that ↑ and ↓ move: back returns the line before it,
// forward the line after it or "" past the newest.
export function lineHistory(max = MAX_HISTORY) {
  const lines = [];
  let pos = 0;
  return {
    remember(line) {
      if (lines[lines.length - 1] !== line) lines.push(line);
      if (lines.length > max) lines.shift();
      pos = lines.length;
    },
    move(by) {
      pos = Math.max(0, Math.min(lines.length, pos + by));
      return lines[pos] ?? "";
    },
  };
}

const history = lineHistory();

// remember adds a line to the history (the forms' lines too).
export const remember = (line) => history.remember(line);

// SCRIPT_CLOSED_NOTE is the script's own note, in English, of what an AMQP
// error closed; withAMQPNotes says it in the reader's language instead.
const SCRIPT_CLOSED_NOTE = /^note: (channel|connection) \S+ closed\b/;

// consoleText returns {resultText} in tr's language (i18n.js).
export function consoleText(tr) {
  const { t } = tr;
  const { codeMeaning, closedText } = explainer(tr);
  const { errorText, helpText, showText, usageText } = scriptErrors(tr);

  // resultText is what the console shows of a call: its line, note,
  // output and error, the help overview and the error in tr's language.
  function resultText(r, note) {
    const out = [];
    if (r.line) out.push(`> ${lineShown(r.line)}`);
    if (note) out.push(note);
    let text = r.help ? helpText(r.help) : (r.output ?? "").replace(/\n$/, "");
    if (!r.help && !r.error && /^help\s+\S/.test(r.line ?? "")) text = usageText(text);
    if (!r.help) text = showText(text);
    if (r.amqpError) text = withAMQPNotes(text, r);
    if (text) out.push(outputShown(text));
    if (r.outputTruncated) out.push(t("js.console.cutByEngine"));
    if (r.error) out.push(t("js.console.error", { error: errorText(r) }));
    return out.join("\n");
  }

  // withAMQPNotes puts what an AMQP error means under its "error:" line (and
  // the indented lines that continue a several-line reply text), which stays
  // as RabbitMQ sends it: the reply code's meaning and what the error closed.
  // When the output was cut before the error, the error is added from the
  // result.
  function withAMQPNotes(text, r) {
    const { code, text: reply } = r.amqpError;
    const notes = [codeMeaning(code).trim(), closedText(r)].filter(Boolean).map((s) => `  ↳ ${s}`);
    const lines = text === "" ? [] : text.split("\n");
    let i = lines.findIndex((l) => l.startsWith("error: "));
    if (i < 0) return [...lines, `error: ${code} ${reply}`.replace(/\n/g, "\n  "), ...notes].join("\n");
    for (i++; i < lines.length && lines[i].startsWith("  "); i++);
    lines.splice(i, i < lines.length && SCRIPT_CLOSED_NOTE.test(lines[i]) ? 1 : 0, ...notes);
    return lines.join("\n");
  }

  // outputShown keeps the console to the first and last MAX_OUTPUT_LINES / 2
  // lines of an output, and says where it cut and how many lines it left
  // out: a step that expires 500 messages prints 500 trace lines, which the
  // event log lists already, and laying them all out would cost more than
  // the step. The last lines hold any error and the verb's own output.
  function outputShown(text) {
    if (text.split("\n", MAX_OUTPUT_LINES + 2).length <= MAX_OUTPUT_LINES + 1) return text;
    const all = text.split("\n");
    const half = MAX_OUTPUT_LINES / 2;
    const cut = t("js.console.cut", { n: all.length - MAX_OUTPUT_LINES, total: all.length, head: half, tail: half });
    return [...all.slice(0, half), cut, ...all.slice(-half)].join("\n");
  }

  return { resultText };
}

const { resultText } = consoleText(i18n);

// showResult writes a call's resultText to the console.
export function showResult(r, note) {
  $("console-output").textContent = resultText(r, note);
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

// wireConsole makes the console run a typed line with run (app.js's).
export function wireConsole(run) {
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
    e.target.value = history.move(e.key === "ArrowUp" ? -1 : 1);
  });
}
