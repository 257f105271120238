// The message inspector: the selected message's fields, properties and
// headers, and its x-death header as RabbitMQ stores it, field by field,
// each with a line that says what it means.
import { t } from "../../i18n.js";
import { $, el } from "../dom.js";
import { fmtMs, typedText, exchangeLabel } from "../format.js";
import { snap } from "../session.js";
import { selected } from "../selection.js";
import { viaText } from "../explain.js";

function findSelected() {
  if (!selected) return null;
  for (const v of snap.vhosts) {
    if (selected.kind === "ready") {
      const q = v.queues.find((q) => q.name === selected.a);
      const m = q && q.ready.find((m) => m.id === selected.b);
      if (m) return { m, where: t("js.insp.ready", { queue: q.name }) };
    } else {
      for (const c of v.connections) {
        const ch = c.channels.find((ch) => ch.name === selected.a);
        const u = ch && ch.unacked.find((u) => u.deliveryTag === selected.b);
        if (u) return { m: u, where: t("js.insp.unacked", { channel: ch.name, tag: u.deliveryTag }) };
      }
    }
  }
  return null;
}

// props lists [name, text, gloss?] rows; a row without a text is left out.
function props(rows) {
  return el(
    "dl",
    { class: "props" },
    rows.filter(([, v]) => v !== undefined).flatMap(([k, v, gloss]) => [el("dt", {}, k), el("dd", {}, v), gloss ? el("dd", { class: "gloss" }, gloss) : null]),
  );
}

// typed writes a header or property value so that its type shows: '1' is
// a string, 1 a number (format.js typedText); an empty text is ''.
const typed = (text) => el("span", { class: "mono" }, text === "" ? "''" : text);

// HEADER_GLOSSES say what the headers dead-lettering and quorum queues add
// mean.
const HEADER_GLOSSES = {
  "x-first-death-queue": "js.hdr.firstDeathQueue",
  "x-first-death-reason": "js.hdr.firstDeathReason",
  "x-first-death-exchange": "js.hdr.firstDeathExchange",
  "x-last-death-queue": "js.hdr.lastDeathQueue",
  "x-last-death-reason": "js.hdr.lastDeathReason",
  "x-last-death-exchange": "js.hdr.lastDeathExchange",
  "x-delivery-count": "js.hdr.deliveryCount",
};

// XDEATH_FIELDS are the fields of an x-death entry: each name as RabbitMQ
// stores it, its AMQP field type (rabbit_dead_letter writes count as a
// long, time as a timestamp, routing-keys as an array of longstr, the
// rest as longstr), and what it means.
const XDEATH_FIELDS = [
  ["count", "long", "js.xdeath.count"],
  ["exchange", "longstr", "js.xdeath.exchange"],
  ["queue", "longstr", "js.xdeath.queue"],
  ["reason", "longstr", "js.xdeath.reason"],
  ["routing-keys", "array", "js.xdeath.routingKeys"],
  ["time", "timestamp", "js.xdeath.time"],
  ["original-expiration", "longstr", "js.xdeath.originalExpiration"],
];

// xdeathCell is one entry's value of one field; time also reads as the
// virtual clock does.
function xdeathCell(name, d) {
  const v = d[name];
  if (v === undefined) return el("td", { class: "absent", dataset: { testid: `xdeath-${name}` } }, t("js.xdeath.absent"));
  return el(
    "td",
    { dataset: { testid: `xdeath-${name}` } },
    el("span", { class: "mono" }, typedText(v)),
    name === "time" && typeof v === "number" ? el("div", { class: "gloss" }, t("js.xdeath.timeClock", { at: fmtMs(v * 1000) })) : null,
  );
}

// xdeathTable shows the x-death header as RabbitMQ stores it: an array of
// tables, one column per entry (x-death[0] is the most recent), one row
// per field under its own name and type, and under it, across the
// columns, what the field means.
function xdeathTable(deaths) {
  return el(
    "div",
    { class: "xdeath-wrap" },
    el(
      "table",
      { class: "xdeath", dataset: { testid: "xdeath" } },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("js.xdeath.field")), deaths.map((_, i) => el("th", { scope: "col", dataset: { testid: "xdeath-entry" } }, el("code", {}, `[${i}]`))))),
      el(
        "tbody",
        {},
        XDEATH_FIELDS.flatMap(([name, type, gloss]) => [
          el("tr", { dataset: { field: name } }, el("th", { scope: "row" }, el("code", {}, name), el("div", { class: "type" }, type)), deaths.map((d) => xdeathCell(name, d))),
          el("tr", { class: "gloss-row", dataset: { glossOf: name } }, el("td", { colspan: deaths.length + 1, class: "gloss" }, t(gloss))),
        ]),
      ),
    ),
  );
}

export function drawInspector() {
  const root = $("inspector");
  const found = findSelected();
  if (!found) {
    root.replaceChildren(el("p", { class: "hint" }, selected ? t("js.insp.gone") : t("js.insp.empty")));
    return;
  }
  const { m, where } = found;
  const headers = Object.keys(m.headers).filter((k) => k !== "x-death");
  const headerText = (k) => m.headersText?.[k] ?? typedText(m.headers[k]);
  const deaths = Array.isArray(m.headers["x-death"]) ? m.headers["x-death"] : [];
  const when = (ms) => (ms !== undefined && ms !== null ? fmtMs(ms) : undefined);
  root.replaceChildren(
    el("h3", { dataset: { testid: "inspected-id" } }, t("js.insp.title", { id: m.id })),
    el("p", {}, where),
    props([
      [t("js.insp.body"), m.body === "" ? '""' : m.body + (m.bodyTruncated ? " …" : "")],
      [t("js.insp.bodySize"), t("js.insp.bytes", { n: m.bodyBytes })],
      [t("js.insp.exchange"), exchangeLabel(m.exchange)],
      [t("js.insp.routingKey"), m.routingKey === "" ? '""' : m.routingKey],
      [t("js.insp.via"), m.via ? el("span", { dataset: { testid: "insp-via" } }, viaText(m.via)) : undefined],
      [t("js.insp.enqueuedAt"), when(m.enqueuedAt)],
      [t("js.insp.expiresAt"), when(m.expiresAt)],
      [t("js.insp.deliveredAt"), when(m.deliveredAt)],
      [t("js.insp.deliveries"), m.deliveries !== undefined ? String(m.deliveries) : undefined],
    ]),
    el("h3", {}, t("js.insp.properties")),
    // Present properties only, empty and zero ones included ('' and 0).
    Object.keys(m.properties).length
      ? props(Object.entries(m.properties).map(([k, v]) => [k, el("span", { dataset: { testid: `prop-${k}` } }, typed(typedText(v)))]))
      : el("p", { class: "hint" }, t("js.insp.none")),
    el("h3", {}, t("js.insp.headers")),
    headers.length ? el("p", { class: "hint" }, t("js.insp.typesHint")) : null,
    headers.length
      ? props(headers.sort().map((k) => [k, el("span", { dataset: { testid: `header-${k}` } }, typed(headerText(k))), HEADER_GLOSSES[k] ? t(HEADER_GLOSSES[k]) : null]))
      : el("p", { class: "hint", dataset: { testid: m.headersPresent ? "headers-empty" : "headers-none" } }, t(m.headersPresent ? "js.insp.headersEmpty" : "js.insp.none")),
    el("h3", {}, "x-death"),
    ...(deaths.length ? [el("p", { class: "hint" }, t("js.xdeath.order")), xdeathTable(deaths)] : [el("p", { class: "hint" }, t("js.xdeath.never"))]),
  );
}
