// The timeline's controls: the scrubber, Rewind to a line of the log, and
// Reset to a fresh broker.
import { t } from "../i18n.js";
import { $, say } from "./dom.js";
import { timelineLog, replayTo, reset } from "./session.js";
import { clearSelection } from "./selection.js";
import { render } from "./app.js";
import { guard } from "./console.js";
import { isPlaying, setPlaying } from "./clock.js";

export function wireTimeline() {
  $("scrubber").addEventListener("input", () => ($("scrub-value").textContent = $("scrubber").value));
  $("rewind").addEventListener(
    "click",
    guard(() => {
      if (isPlaying()) setPlaying(false);
      if (replayTo(timelineLog, Number($("scrubber").value))) say(t("js.status.replayed", { n: $("scrubber").value, total: timelineLog.length }));
      render();
    }),
  );
  $("reset").addEventListener(
    "click",
    guard(() => {
      if (isPlaying()) setPlaying(false);
      reset();
      clearSelection();
      window.history.replaceState(null, "", location.pathname);
      say(t("js.status.reset"));
      render();
    }),
  );
}
