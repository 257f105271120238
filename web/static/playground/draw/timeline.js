// The timeline: the scrubber over the log and the log's lines, those
// ahead of a rewind greyed.
import { $, el, reconcile } from "../dom.js";
import { logLines, timelineLog } from "../session.js";
import { lineShown } from "../format.js";

export function drawTimeline() {
  const cur = logLines.length;
  const s = $("scrubber");
  s.max = String(timelineLog.length);
  s.value = String(cur);
  $("scrub-value").textContent = String(cur);
  $("log-length").textContent = String(timelineLog.length);
  // Keyed by line and whether it is ahead: a call appends one item.
  reconcile(
    $("log"),
    timelineLog.map((line, i) => ({ key: `${i < cur ? "" : "f"}${line}`, build: () => el("li", { class: i < cur ? "" : "future" }, el("span", { class: "mono" }, `${i + 1}. ${lineShown(line)}`)) })),
  );
}
