// The event log: one item per call (its line, time, note, error and
// events), appended as calls come.
import { t } from "../../i18n.js";
import { $, el } from "../dom.js";
import { explain, codeMeaning, closedText } from "../explain.js";
import { fmtMs, lineShown } from "../format.js";
import { entries } from "../session.js";
import { errorText } from "../../scripterror.js";

const MAX_EVENTS_PER_ENTRY = 50; // events drawn per entry; the rest are counted

// drawEvents keeps the event log in step with entries. It only appends the
// entries added since the last draw (rebuilding when entries were reset or
// trimmed), and draws at most MAX_EVENTS_PER_ENTRY events per entry: a
// "publish ... count=500" line would otherwise put a thousand elements in
// the page on every redraw.
// When record trims the oldest entries, their items are removed from the
// top rather than the whole log redrawn. The scroll to the bottom waits for
// the next frame, so that it does not force a layout in the middle of render.
let drawnEntries = [];
let scrollQueued = false;
export function drawEvents() {
  const root = $("events");
  let drop = entries.length ? drawnEntries.indexOf(entries[0]) : drawnEntries.length;
  if (drop < 0) drop = drawnEntries.length; // nothing drawn is still there
  const kept = drawnEntries.length - drop;
  const fresh = kept <= entries.length && drawnEntries.slice(drop).every((e, i) => e === entries[i]) && root.children.length === drawnEntries.length;
  if (!fresh) {
    root.replaceChildren();
    drawnEntries = [];
  } else {
    for (let i = 0; i < drop; i++) root.firstElementChild.remove();
    drawnEntries = drawnEntries.slice(drop);
  }
  const add = entries.slice(drawnEntries.length);
  if (add.length === 0) return;
  root.append(...add.map(entryItem));
  drawnEntries = entries.slice();
  if (!scrollQueued) {
    scrollQueued = true;
    requestAnimationFrame(() => {
      scrollQueued = false;
      root.scrollTop = root.scrollHeight;
    });
  }
}

// amqpErrorItem shows the AMQP exception a line raised: the reply code
// and text exactly as RabbitMQ sends them, what the code means, and what
// the error closed (amqpError.closed) and that the next line reopens it.
function amqpErrorItem(r) {
  const { code, text } = r.amqpError;
  const closed = closedText(r);
  return el(
    "div",
    { class: "error", dataset: { testid: "entry-amqp-error" } },
    el("code", { class: "reply" }, `${code} ${text}`),
    codeMeaning(code),
    closed ? el("div", { class: "closed", dataset: { testid: "entry-closed" } }, closed) : null,
  );
}

// explainedParts is explain's sentence as el's children: a reply part
// ({reply, meaning}) is the reply code and text as code, then what the
// code means.
function explainedParts(why) {
  if (!Array.isArray(why)) return why;
  return why.map((p) => (typeof p === "object" ? el("span", {}, el("code", {}, p.reply), p.meaning) : p));
}

function entryItem({ result: r, note }) {
  const shown = r.events.slice(0, MAX_EVENTS_PER_ENTRY);
  const hidden = r.events.length - shown.length;
  const eventItem = (e) => {
    const why = explain(e);
    return el("li", { dataset: { testid: "event", kind: e.kind } }, el("span", { class: "kind" }, e.kind), el("code", {}, e.trace), why ? el("div", { class: "explain", dataset: { testid: "event-explain" } }, explainedParts(why)) : null);
  };
  return el(
    "li",
    { dataset: { testid: "entry" } },
    el("code", {}, r.line ? lineShown(r.line) : t("js.events.notLogged")),
    el("span", { class: "at" }, `@${fmtMs(r.now)}`),
    note ? el("div", { class: "hint" }, note) : null,
    r.error ? el("div", { class: "error", dataset: { testid: "entry-error" } }, errorText(r)) : null,
    r.amqpError ? amqpErrorItem(r) : null,
    r.events.length
      ? el(
          "ul",
          {},
          shown.map(eventItem),
          hidden > 0 ? el("li", { class: "hint" }, t("js.events.hidden", { n: hidden })) : null,
          r.eventsTruncated ? el("li", { class: "hint" }, t("js.events.truncated")) : null,
        )
      : null,
  );
}
