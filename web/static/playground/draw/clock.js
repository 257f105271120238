// The time panel: the clock, the next timer, and the countdowns in view.
import { t } from "../../i18n.js";
import { $ } from "../dom.js";
import { fmtMs } from "../format.js";
import { w, viewNow } from "../session.js";
import { drawCountdownsInView } from "./countdowns.js";
import { locked } from "../live.js";

// drawClock shows the time, and moves the expiry countdowns of the queue
// cards in view (every frame while playing).
export function drawClock() {
  const now = viewNow();
  $("clock").textContent = fmtMs(now);
  drawCountdownsInView(now);
}

// timerText says what a timer (warren.next()) will do and when; its kind
// is the engine's word (message-ttl, queue-expires, delayed-release).
export function timerText(tm) {
  const v = { queue: tm.queue, exchange: tm.exchange, channel: tm.channel, msg: tm.msgId };
  let where = "";
  if (tm.queue !== undefined) where = tm.msgId ? t("js.timer.queueMsg", v) : t("js.timer.queue", v);
  else if (tm.exchange !== undefined) where = tm.msgId ? t("js.timer.exchangeMsg", v) : t("js.timer.exchange", v);
  else if (tm.channel) where = tm.msgId ? t("js.timer.channelMsg", v) : t("js.timer.channel", v);
  else if (tm.msgId) where = t("js.timer.msg", v);
  return t("js.timer", { kind: tm.kind, where, at: fmtMs(tm.at), in: fmtMs(tm.at - viewNow()) });
}

// drawNext shows the next timer, t (warren.next() when not given).
export function drawNext(tm = w.next()) {
  $("next-timer").textContent = tm ? timerText(tm) : t("js.timer.none");
  $("step").disabled = !tm || locked(); // a read-only page of a shared session cannot step
}
