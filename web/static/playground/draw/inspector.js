// The message inspector: the selected message's fields, properties,
// headers and x-death entries.
import { $, el } from "../dom.js";
import { fmtMs, valueText } from "../format.js";
import { snap } from "../session.js";
import { selected } from "../selection.js";

function findSelected() {
  if (!selected) return null;
  for (const v of snap.vhosts) {
    if (selected.kind === "ready") {
      const q = v.queues.find((q) => q.name === selected.a);
      const m = q && q.ready.find((m) => m.id === selected.b);
      if (m) return { m, where: `ready in queue ${q.name}` };
    } else {
      for (const c of v.connections) {
        const ch = c.channels.find((ch) => ch.name === selected.a);
        const u = ch && ch.unacked.find((u) => u.deliveryTag === selected.b);
        if (u) return { m: u, where: `unacked on channel ${ch.name}, delivery tag ${u.deliveryTag}` };
      }
    }
  }
  return null;
}

function props(pairs) {
  return el("dl", { class: "props" }, pairs.filter(([, v]) => v !== undefined).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, valueText(v))]));
}

export function drawInspector() {
  const root = $("inspector");
  const found = findSelected();
  if (!found) {
    root.replaceChildren(el("p", { class: "hint" }, selected ? "That message is no longer there (consumed, expired or moved: dead-lettering makes a new message with a new id)." : "Select a message to see its properties and headers."));
    return;
  }
  const { m, where } = found;
  const headers = Object.entries(m.headers).filter(([k]) => k !== "x-death");
  const deaths = Array.isArray(m.headers["x-death"]) ? m.headers["x-death"] : [];
  root.replaceChildren(
    el("h3", { dataset: { testid: "inspected-id" } }, `Message #${m.id}`),
    el("p", {}, where),
    props([
      ["body", m.body + (m.bodyTruncated ? " …" : "")],
      ["body size", `${m.bodyBytes} bytes`],
      ["exchange", m.exchange === "" ? "(default)" : m.exchange],
      ["routing key", m.routingKey],
      ["enqueued at", m.enqueuedAt !== undefined ? fmtMs(m.enqueuedAt) : undefined],
      ["expires at", m.expiresAt !== undefined ? fmtMs(m.expiresAt) : undefined],
      ["delivered at", m.deliveredAt !== undefined ? fmtMs(m.deliveredAt) : undefined],
      ["deliveries", m.deliveries],
    ]),
    el("h3", {}, "Properties"),
    Object.keys(m.properties).length ? props(Object.entries(m.properties)) : el("p", { class: "hint" }, "none"),
    el("h3", {}, "Headers"),
    headers.length ? props(headers) : el("p", { class: "hint" }, "none"),
    el("h3", {}, "x-death (most recent first)"),
    deaths.length
      ? el(
          "ol",
          { class: "xdeath", dataset: { testid: "xdeath" } },
          deaths.map((d) =>
            el(
              "li",
              { dataset: { testid: "xdeath-entry" } },
              el("strong", { dataset: { testid: "xdeath-reason" } }, d.reason),
              ` from queue ${d.queue}, ×${d.count}, at timestamp ${d.time} (seconds of virtual time), exchange ${d.exchange === "" ? "(default)" : d.exchange}, routing keys ${valueText(d["routing-keys"])}`,
              d["original-expiration"] !== undefined ? `, original expiration ${d["original-expiration"]}ms` : "",
            ),
          ),
        )
      : el("p", { class: "hint" }, "never dead-lettered"),
  );
}
