// The time panel: the clock, the next timer, and the countdowns in view.
import { $ } from "../dom.js";
import { fmtMs } from "../format.js";
import { w, viewNow } from "../session.js";
import { drawCountdownsInView } from "./countdowns.js";

// drawClock shows the time, and moves the expiry countdowns of the queue
// cards in view (every frame while playing).
export function drawClock() {
  const now = viewNow();
  $("clock").textContent = fmtMs(now);
  drawCountdownsInView(now);
}

export function timerText(t) {
  const what = t.queue !== undefined ? `queue ${t.queue}` : t.exchange !== undefined ? `exchange ${t.exchange}` : t.channel ? `channel ${t.channel}` : "";
  const msg = t.msgId ? ` message #${t.msgId}` : "";
  return `${t.kind} (${what}${msg}) at ${fmtMs(t.at)}, in ${fmtMs(t.at - viewNow())}`;
}

// drawNext shows the next timer, t (warren.next() when not given).
export function drawNext(t = w.next()) {
  $("next-timer").textContent = t ? timerText(t) : "none";
  $("step").disabled = !t;
}
