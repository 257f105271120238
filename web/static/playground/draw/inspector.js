// The message inspector: the selected message's fields, properties and
// headers, and its x-death header as RabbitMQ stores it, field by field,
// each with a line that says what it means.
import { t } from "../../i18n.js";
import { $, el } from "../dom.js";
import { fmtMs, valueText, exchangeLabel } from "../format.js";
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

// props lists [name, value, gloss?] rows; a row without a value is left out.
function props(rows, cls = "props") {
  return el(
    "dl",
    { class: cls },
    rows.filter(([, v]) => v !== undefined).flatMap(([k, v, gloss]) => [el("dt", {}, k), el("dd", {}, valueText(v), gloss ? el("div", { class: "gloss" }, gloss) : null)]),
  );
}

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

// xdeathEntry shows one x-death entry with its fields in the order and
// under the names RabbitMQ stores them.
function xdeathEntry(d) {
  const field = (name, value, glossKey) =>
    value === undefined
      ? []
      : [el("dt", {}, el("code", {}, name)), el("dd", { dataset: { testid: `xdeath-${name}` } }, el("span", { class: "mono" }, valueText(value)), el("div", { class: "gloss" }, t(glossKey)))];
  return el(
    "li",
    { dataset: { testid: "xdeath-entry" } },
    el(
      "dl",
      { class: "props xdeath-fields" },
      field("count", d.count, "js.xdeath.count"),
      field("exchange", d.exchange, "js.xdeath.exchange"),
      field("queue", d.queue, "js.xdeath.queue"),
      [el("dt", {}, el("code", {}, "reason")), el("dd", {}, el("strong", { class: "mono", dataset: { testid: "xdeath-reason" } }, d.reason), el("div", { class: "gloss" }, t("js.xdeath.reason")))],
      field("routing-keys", d["routing-keys"], "js.xdeath.routingKeys"),
      field("time", d.time, "js.xdeath.time"),
      field("original-expiration", d["original-expiration"], "js.xdeath.originalExpiration"),
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
  const headers = Object.entries(m.headers).filter(([k]) => k !== "x-death");
  const deaths = Array.isArray(m.headers["x-death"]) ? m.headers["x-death"] : [];
  root.replaceChildren(
    el("h3", { dataset: { testid: "inspected-id" } }, t("js.insp.title", { id: m.id })),
    el("p", {}, where),
    props([
      [t("js.insp.body"), m.body + (m.bodyTruncated ? " …" : "")],
      [t("js.insp.bodySize"), t("js.insp.bytes", { n: m.bodyBytes })],
      [t("js.insp.exchange"), exchangeLabel(m.exchange)],
      [t("js.insp.routingKey"), m.routingKey],
      [t("js.insp.via"), m.via ? viaText(m.via) : undefined],
      [t("js.insp.enqueuedAt"), m.enqueuedAt !== undefined ? fmtMs(m.enqueuedAt) : undefined],
      [t("js.insp.expiresAt"), m.expiresAt !== undefined ? fmtMs(m.expiresAt) : undefined],
      [t("js.insp.deliveredAt"), m.deliveredAt !== undefined ? fmtMs(m.deliveredAt) : undefined],
      [t("js.insp.deliveries"), m.deliveries],
    ]),
    el("h3", {}, t("js.insp.properties")),
    Object.keys(m.properties).length ? props(Object.entries(m.properties)) : el("p", { class: "hint" }, t("js.insp.none")),
    el("h3", {}, t("js.insp.headers")),
    headers.length ? props(headers.map(([k, v]) => [k, v, HEADER_GLOSSES[k] ? t(HEADER_GLOSSES[k]) : null])) : el("p", { class: "hint" }, t("js.insp.none")),
    el("h3", {}, "x-death"),
    ...(deaths.length
      ? [el("p", { class: "hint" }, t("js.xdeath.order")), el("ol", { class: "xdeath", dataset: { testid: "xdeath" } }, deaths.map(xdeathEntry))]
      : [el("p", { class: "hint" }, t("js.xdeath.never"))]),
  );
}
