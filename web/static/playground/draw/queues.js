// The cards of the topology panel: one per queue, with its effective
// arguments, counts, consumers and ready messages (each a button that
// selects it for the inspector), and one per channel with its unacked
// deliveries.
import { t, tParts, list } from "../../i18n.js";
import { el } from "../dom.js";
import { fmtMs, exchangeLabel } from "../format.js";
import { viewNow } from "../session.js";
import { isSelected, select } from "../selection.js";
import { countdownText, watchCard } from "./countdowns.js";

// argTags shows a queue's effective settings, named as RabbitMQ's
// arguments and policy keys name them where a learner types those names.
function argTags(q) {
  const e = q.effective;
  const tags = [];
  tags.push([t("js.arg.type"), q.type]);
  if (e.messageTtlMs !== null) tags.push([t("js.arg.ttl"), fmtMs(e.messageTtlMs)]);
  if (e.deadLetterExchange !== null) tags.push([t("js.arg.dlx"), exchangeLabel(e.deadLetterExchange)]);
  if (e.deadLetterRoutingKey !== null) tags.push([t("js.arg.dlrk"), e.deadLetterRoutingKey]);
  if (e.maxLength !== null) tags.push([t("js.arg.maxLength"), e.maxLength]);
  if (e.maxLengthBytes !== null) tags.push([t("js.arg.maxBytes"), e.maxLengthBytes]);
  if (e.maxLength !== null || e.maxLengthBytes !== null) tags.push([t("js.arg.overflow"), e.overflow]);
  if (e.maxPriority !== null) tags.push([t("js.arg.maxPriority"), e.maxPriority]);
  if (e.expiresMs !== null) tags.push([t("js.arg.expires"), fmtMs(e.expiresMs)]);
  if (e.deliveryLimit !== null) tags.push([t("js.arg.deliveryLimit"), e.deliveryLimit]);
  if (e.policy) tags.push([t("js.arg.policy"), e.policy]);
  if (e.operatorPolicy) tags.push([t("js.arg.operatorPolicy"), e.operatorPolicy]);
  if (q.durable) tags.push([t("js.arg.durable"), t("js.yes")]);
  return el("div", { class: "args" }, tags.map(([k, v]) => el("span", { class: "arg" }, t("js.arg", { name: k, value: v }))));
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
    // The body is the learner's data, never translated (nor by the browser).
    el("span", { class: "body", translate: "no" }, m.body.length > 40 ? `${m.body.slice(0, 40)}…` : m.body),
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
        m.priority ? el("span", { class: "tag" }, t("js.msg.priority", { n: m.priority })) : null,
        m.redelivered ? el("span", { class: "tag redelivered", dataset: { testid: "msg-redelivered" } }, t("js.msg.redeliveredTimes", { n: m.deliveries })) : null,
        m.expired ? el("span", { class: "tag warn", dataset: { testid: "msg-expired" } }, t("js.msg.expiredBehind")) : null,
        m.expiresAt !== null && !m.expired ? countdown(m.expiresAt) : null,
      ], "msg"),
    ),
  );
  const more = q.readyCount > q.ready.length ? el("li", { class: "hint" }, t("js.more", { n: q.readyCount - q.ready.length })) : null;
  const card = el(
    "div",
    { class: "card", dataset: { testid: "queue", queue: q.name } },
    el("h4", {}, tParts("js.card.queue", { name: el("span", { class: "mono" }, q.name) })),
    argTags(q),
    el(
      "div",
      { class: "counts" },
      t("js.card.counts", { ready: q.readyCount, unacked: q.unacked }),
      q.expired ? t("js.card.expired", { n: q.expired }) : "",
      q.consumers.length ? t("js.card.consumers", { list: list(q.consumers.map(consumerText)) }) : "",
    ),
    el("ol", { class: "msgs", "aria-label": t("js.card.readyLabel", { queue: q.name }) }, ready, more),
  );
  card._countdowns = countdowns;
  if (countdowns.length) watchCard(card);
  return card;
}

function consumerText(c) {
  const s = t("js.card.consumer", { tag: c.tag, channel: c.channel });
  return s + (c.prefetch ? t("js.card.prefetch", { n: c.prefetch }) : "") + (c.active ? "" : t("js.card.waiting"));
}

export function drawChannel(ch) {
  return el(
    "div",
    { class: "card", dataset: { testid: "channel", channel: ch.name } },
    el("h4", {}, tParts("js.card.channel", { name: el("span", { class: "mono" }, ch.name) })),
    el(
      "div",
      { class: "counts" },
      t("js.card.unacked", { n: ch.unackedCount }),
      ch.prefetch ? t("js.card.channelPrefetch", { n: ch.prefetch }) : "",
      ch.confirm ? t("js.card.confirms") : "",
      ch.tx ? t("js.card.tx") : "",
      ch.consumers.length ? t("js.card.channelConsumers", { list: list(ch.consumers) }) : "",
      ch.replyTo ? t("js.card.replyTo", { address: ch.replyTo, consumer: ch.replyConsumer }) : "",
    ),
    el(
      "ol",
      { class: "msgs" },
      ch.unacked.map((u) =>
        el(
          "li",
          {},
          msgButton(u, "unacked", ch.name, u.deliveryTag, t("js.card.delivery", { tag: u.deliveryTag, queue: u.queue }), [
            el("span", { class: "tag" }, u.consumerTag || "basic.get"),
            u.redelivered ? el("span", { class: "tag redelivered" }, t("js.msg.redelivered")) : null,
          ], "unacked"),
        ),
      ),
    ),
  );
}
