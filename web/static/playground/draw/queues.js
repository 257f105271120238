// The cards of the topology panel: one per queue, with its effective
// arguments, counts, consumers and ready messages (each a button that
// selects it for the inspector), and one per channel with its unacked
// deliveries.
import { el } from "../dom.js";
import { fmtMs } from "../format.js";
import { viewNow } from "../session.js";
import { isSelected, select } from "../selection.js";
import { countdownText, watchCard } from "./countdowns.js";

function argTags(q) {
  const e = q.effective;
  const tags = [];
  tags.push(["type", q.type]);
  if (e.messageTtlMs !== null) tags.push(["TTL", fmtMs(e.messageTtlMs)]);
  if (e.deadLetterExchange !== null) tags.push(["DLX", e.deadLetterExchange === "" ? "(default)" : e.deadLetterExchange]);
  if (e.deadLetterRoutingKey !== null) tags.push(["DL key", e.deadLetterRoutingKey]);
  if (e.maxLength !== null) tags.push(["max-length", e.maxLength]);
  if (e.maxLengthBytes !== null) tags.push(["max-bytes", e.maxLengthBytes]);
  if (e.maxLength !== null || e.maxLengthBytes !== null) tags.push(["overflow", e.overflow]);
  if (e.maxPriority !== null) tags.push(["max-priority", e.maxPriority]);
  if (e.expiresMs !== null) tags.push(["expires", fmtMs(e.expiresMs)]);
  if (e.deliveryLimit !== null) tags.push(["delivery-limit", e.deliveryLimit]);
  if (e.policy) tags.push(["policy", e.policy]);
  if (e.operatorPolicy) tags.push(["operator policy", e.operatorPolicy]);
  if (q.durable) tags.push(["durable", "yes"]);
  return el("div", { class: "args" }, tags.map(([k, v]) => el("span", { class: "arg" }, `${k}: ${v}`)));
}

function msgButton(m, kind, a, b, label, tags, testid) {
  return el(
    "button",
    {
      type: "button",
      class: `msg${m.expired ? " expired" : ""}`,
      "aria-pressed": isSelected(kind, a, b) ? "true" : "false",
      dataset: { testid, msgId: String(m.id) },
      onclick: (e) => {
        const hadFocus = document.activeElement === e.currentTarget;
        select({ kind, a, b });
        // The card was redrawn with the selection: give the new button the
        // focus the old one had, or a keyboard user is sent back to the top.
        if (hadFocus) document.querySelector(`button.msg[aria-pressed="true"][data-msg-id="${m.id}"]`)?.focus();
      },
    },
    el("span", { class: "mono" }, label),
    " ",
    m.body.length > 40 ? `${m.body.slice(0, 40)}…` : m.body,
    tags,
  );
}

export function drawQueue(q) {
  const now = viewNow();
  const countdowns = []; // {e, at, text}: see countdowns.js
  const countdown = (atMs) => {
    const text = countdownText(atMs, now);
    const e = el("span", { class: "tag", dataset: { expiresAt: String(atMs) } }, text);
    countdowns.push({ e, at: atMs, text });
    return e;
  };
  const ready = q.ready.map((m, i) =>
    el(
      "li",
      {},
      msgButton(m, "ready", q.name, m.id, `${i + 1}. #${m.id}`, [
        m.priority ? el("span", { class: "tag" }, `priority ${m.priority}`) : null,
        m.redelivered ? el("span", { class: "tag redelivered", dataset: { testid: "msg-redelivered" } }, `redelivered ×${m.deliveries}`) : null,
        m.expired ? el("span", { class: "tag warn", dataset: { testid: "msg-expired" } }, "expired, still queued behind a live head") : null,
        m.expiresAt !== null && !m.expired ? countdown(m.expiresAt) : null,
      ], "msg"),
    ),
  );
  const more = q.readyCount > q.ready.length ? el("li", { class: "hint" }, `… and ${q.readyCount - q.ready.length} more`) : null;
  const card = el(
    "div",
    { class: "card", dataset: { testid: "queue", queue: q.name } },
    el("h4", {}, "queue ", el("span", { class: "mono" }, q.name)),
    argTags(q),
    el(
      "div",
      { class: "counts" },
      `ready ${q.readyCount}, unacked ${q.unacked}`,
      q.expired ? `, expired but queued ${q.expired}` : "",
      q.consumers.length ? `, consumers: ${q.consumers.map((c) => `${c.tag} on ${c.channel}${c.prefetch ? ` (prefetch ${c.prefetch})` : ""}${c.active ? "" : " (waiting)"}`).join(", ")}` : "",
    ),
    el("ol", { class: "msgs", "aria-label": `messages ready in ${q.name}` }, ready, more),
  );
  card._countdowns = countdowns;
  if (countdowns.length) watchCard(card);
  return card;
}

export function drawChannel(ch) {
  return el(
    "div",
    { class: "card", dataset: { testid: "channel", channel: ch.name } },
    el("h4", {}, "channel ", el("span", { class: "mono" }, ch.name)),
    el(
      "div",
      { class: "counts" },
      `unacked ${ch.unackedCount}`,
      ch.prefetch ? `, prefetch ${ch.prefetch}` : "",
      ch.confirm ? ", confirms" : "",
      ch.tx ? ", tx" : "",
      ch.consumers.length ? `, consumers ${ch.consumers.join(", ")}` : "",
    ),
    el(
      "ol",
      { class: "msgs" },
      ch.unacked.map((u) =>
        el(
          "li",
          {},
          msgButton(u, "unacked", ch.name, u.deliveryTag, `tag ${u.deliveryTag} from ${u.queue}`, [
            u.consumerTag ? el("span", { class: "tag" }, u.consumerTag) : el("span", { class: "tag" }, "basic.get"),
            u.redelivered ? el("span", { class: "tag redelivered" }, "redelivered") : null,
          ], "unacked"),
        ),
      ),
    ),
  );
}
