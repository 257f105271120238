// explain says in the reader's language what one engine event means. The
// event log shows it under the event's trace line, which stays as the
// engine writes it (the script's words); AMQP reply texts are quoted as
// RabbitMQ sends them, and a line explains their reply code. Explanations
// only restate the event's fields: the engine decided everything. It draws
// nothing either: explainer makes the functions for a translator (i18n.js),
// so that web/jstest checks them under Node in both languages, and this
// module exports the page's.
import * as i18n from "../i18n.js";
import { formatter, typedText } from "./format.js";

// DROP_UNROUTABLE is the cause of a dropped event for a message its
// exchange routed to no queue (engine.DropUnroutable).
const DROP_UNROUTABLE = "routed to no queue";

// REASONS are why a message was dead-lettered, as x-death's reason field
// names them.
const REASONS = {
  expired: "js.why.expired",
  rejected: "js.why.rejected",
  maxlen: "js.why.maxlen",
  delivery_limit: "js.why.deliveryLimit",
};

// QUEUE_GONE are why a queue was deleted.
const QUEUE_GONE = {
  deleted: "js.gone.deleted",
  expired: "js.gone.expired",
  "auto-delete": "js.gone.autoDelete",
  "owner-closed": "js.gone.ownerClosed",
  "vhost-deleted": "js.gone.vhostDeleted",
  restart: "js.gone.restart",
};

// CODES say what an AMQP reply code means; the reply text stays as sent.
const CODES = {
  312: "js.code.312",
  320: "js.code.320",
  403: "js.code.403",
  404: "js.code.404",
  405: "js.code.405",
  406: "js.code.406",
  501: "js.code.501",
  503: "js.code.503",
  504: "js.code.504",
  505: "js.code.505",
  530: "js.code.530",
  540: "js.code.540",
  541: "js.code.541",
};

// explainer returns {viaText, codeMeaning, closedText, explain} in tr's
// language.
export function explainer(tr) {
  const { t, tParts } = tr;
  const { fmtMs, exchangeLabel } = formatter(tr);

  // viaText says which binding routed a copy into its queue (an enqueued
  // event's via, a message's in the snapshot): the exchange, and the key,
  // pattern or arguments that matched, the arguments with their types told
  // apart as the trace writes them.
  function viaText(via) {
    const v = { exchange: via.exchange, type: via.type, key: via.key === "" ? '""' : via.key, args: via.argsText ?? typedText(via.args ?? {}) };
    let s;
    if (via.exchange === "") s = t("js.via.default", v);
    else if (via.type === "fanout") s = t("js.via.fanout", v);
    else if (via.type === "headers") s = t("js.via.headers", v);
    else s = t("js.via.key", v);
    return via.alternate ? t("js.via.alternate", { via: s }) : s;
  }

  // codeMeaning says what an AMQP reply code means, as a parenthesis to put
  // after the reply ("" for a code it does not know).
  const codeMeaning = (code) => (CODES[code] ? t(CODES[code]) : "");

  // closedText says what a line's AMQP error closed (the result's
  // amqpError.closed), naming the channel or connection from its closed
  // event, and that the next line on it opens it again; "" when the error
  // closed nothing (set_policy and the other rabbitmqctl-style commands).
  function closedText(r) {
    const closed = r.amqpError?.closed;
    if (closed !== "channel" && closed !== "connection") return "";
    const kind = `${closed}.closed`;
    const ev = r.events.find((e) => e.kind === kind && e.code && e.code !== 200);
    const name = ev?.channel ?? /^@(\S+)/.exec(r.line)?.[1] ?? "app"; // the script's default channel is app
    return t(closed === "channel" ? "js.amqp.closedChannel" : "js.amqp.closedConnection", { name });
  }

  const why = (table, key) => (table[key] ? t(table[key]) : key ?? "");

  // reply is the reply code and text exactly as RabbitMQ sends them ("404
  // NOT_FOUND - no queue 'x' in vhost '/'"), and what the code means: a
  // part of explain's list, {reply, meaning}, that the event log draws as
  // code and then the meaning (draw/events.js).
  function reply(e) {
    return { reply: `${e.code} ${e.text ?? ""}`.trim(), meaning: codeMeaning(e.code) };
  }

  // explain returns the sentence for e (a string, or a list of strings and
  // {reply, meaning} parts), or "" for a kind it does not know.
  function explain(e) {
    const v = {
      msg: e.msgId,
      new: e.newMsgId,
      queue: e.queue,
      exchange: exchangeLabel(e.exchange ?? ""),
      key: e.routingKey === "" ? '""' : e.routingKey,
      channel: e.channel,
      consumer: e.consumer,
      tag: e.deliveryTag,
      name: e.name,
      count: e.count,
      at: fmtMs(e.expiresAt ?? e.releaseAt ?? e.at ?? null),
      vhost: e.vhost,
    };
    switch (e.kind) {
      case "published":
        if (e.newMsgId) return t("js.ev.published.delayOver", v);
        if (e.exchange === "") return t("js.ev.published.default", v);
        return t("js.ev.published", v);
      case "enqueued": {
        const s = e.via ? t("js.ev.enqueued.via", { ...v, via: viaText(e.via) }) : t("js.ev.enqueued", v);
        const expiresAt = e.expiresAt ?? e.at;
        return expiresAt ? t("js.sentences", { first: s, second: t("js.ev.enqueued.ttl", v) }) : s;
      }
      case "delayed":
        return t("js.ev.delayed", v);
      case "returned":
        return tParts("js.ev.returned", { ...v, reply: reply(e) });
      case "confirmed":
        return t("js.ev.confirmed", v);
      case "nacked":
        return t("js.ev.nacked", v);
      case "delivered":
        if (!e.queue && e.consumer) return t("js.ev.delivered.direct", v); // direct reply-to: no queue
        if (!e.consumer) return t(e.redelivered ? "js.ev.got.again" : "js.ev.got", v);
        return t(e.redelivered ? "js.ev.delivered.again" : "js.ev.delivered", v);
      case "acked":
        return t("js.ev.acked", v);
      case "requeued":
        return t("js.ev.requeued", v);
      case "rejected":
        return t("js.ev.rejected", v);
      case "expired":
        return t("js.ev.expired", v);
      case "overflowed": {
        const mode = e.overflow ?? e.reason;
        if (mode === "drop-head") return t("js.ev.overflowed.dropHead", v);
        if (mode === "reject-publish-dlx") return t("js.ev.overflowed.rejectPublishDlx", v);
        return t("js.ev.overflowed.rejectPublish", v);
      }
      case "delivery-limited":
        return t("js.ev.deliveryLimited", { ...v, count: e.deliveries ?? e.count });
      case "purged":
        return t("js.ev.purged", v);
      case "discarded":
        if (e.reason === "transient") return t("js.ev.discarded.transient", v);
        return t("js.ev.discarded", { ...v, why: why(QUEUE_GONE, e.reason) });
      case "dead-lettered":
        return t("js.ev.deadLettered", { ...v, why: why(REASONS, e.reason) });
      case "dropped": {
        const cause = e.cause ?? e.text ?? "";
        if (cause === "dead-letter cycle") return t("js.ev.dropped.cycle", v);
        if (cause === "vhost deleted") return t("js.ev.dropped.vhost", v);
        if (cause === DROP_UNROUTABLE) {
          if (e.reason) return t("js.ev.dropped.dlUnroutable", v); // a dead-lettered copy
          if (e.channel) return t(e.exchange === "" ? "js.ev.dropped.unroutableDefault" : "js.ev.dropped.unroutable", v); // a publish, not mandatory
          return t("js.ev.dropped.delayUnroutable", v); // a delayed message released
        }
        if (cause.startsWith("dead-letter exchange ")) return t("js.ev.dropped.noDlx", v);
        return t("js.ev.dropped", v);
      }
      case "consumer.added":
        return t(e.noAck ? "js.ev.consumerAdded.noAck" : "js.ev.consumerAdded", v);
      case "consumer.cancelled":
        if (e.reason === "channel-closed") return t("js.ev.consumerCancelled.channel", v);
        if (e.reason === "queue-deleted") return t("js.ev.consumerCancelled.queue", v);
        return t("js.ev.consumerCancelled", v);
      case "consumer.activated":
        return t("js.ev.consumerActivated", v);
      case "exchange.declared":
        return t("js.ev.exchangeDeclared", { ...v, type: e.type ?? e.reason ?? "" });
      case "exchange.deleted":
        return t("js.ev.exchangeDeleted", v);
      case "queue.declared":
        return t("js.ev.queueDeclared", v);
      case "queue.deleted":
        return t("js.ev.queueDeleted", { ...v, why: why(QUEUE_GONE, e.reason) });
      case "bound":
      case "unbound": {
        const dest = e.destination ?? e.name;
        const toExchange = e.destinationType === "exchange";
        if (e.kind === "bound") return t(toExchange ? "js.ev.bound.exchange" : "js.ev.bound", { ...v, dest });
        return t(toExchange ? "js.ev.unbound.exchange" : "js.ev.unbound", { ...v, dest });
      }
      case "policy.set":
        return t("js.ev.policySet", v);
      case "policy.cleared":
        return t("js.ev.policyCleared", v);
      case "queue.policy": {
        const policy = e.policy ?? e.name;
        const s = policy ? t("js.ev.queuePolicy", { ...v, name: policy }) : t("js.ev.queuePolicy.none", v);
        return e.operatorPolicy ? t("js.sentences", { first: s, second: t("js.ev.queuePolicy.operator", { ...v, name: e.operatorPolicy }) }) : s;
      }
      case "vhost.added":
        return t("js.ev.vhostAdded", v);
      case "vhost.deleted":
        return t("js.ev.vhostDeleted", v);
      case "channel.closed":
        return e.code === 200 || !e.code ? t("js.ev.channelClosed", v) : tParts("js.ev.channelClosed.error", { ...v, reply: reply(e) });
      case "connection.closed":
        return e.code === 200 || !e.code ? t("js.ev.connectionClosed", v) : tParts("js.ev.connectionClosed.error", { ...v, reply: reply(e) });
      case "tx.committed":
        return t("js.ev.txCommitted", v);
      case "tx.rolledback":
        return t("js.ev.txRolledBack", v);
      case "restarted":
        return t("js.ev.restarted", v);
    }
    return "";
  }

  return { viaText, codeMeaning, closedText, explain };
}

export const { viaText, codeMeaning, closedText, explain } = explainer(i18n);
