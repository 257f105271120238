// render draws the page from a fresh snapshot; run runs one line and
// renders. Every module that changes the session ends with one of them.
import { exec, refresh } from "./session.js";
import { drawClock, drawNext } from "./draw/clock.js";
import { drawTopology } from "./draw/topology.js";
import { drawInspector } from "./draw/inspector.js";
import { drawEvents } from "./draw/events.js";
import { drawTimeline } from "./draw/timeline.js";
import { animateTokens } from "./draw/tokens.js";
import { isLive, sendLine } from "./live.js";

export function render() {
  refresh();
  drawNext();
  drawTopology();
  drawInspector();
  drawEvents();
  drawTimeline();
  drawClock();
  animateTokens(); // last, and only scheduled: tokens never delay the state
}

// On a shared session's page the line goes to the session instead, and
// the page renders when its entry comes back (live.js).
export function run(line) {
  if (isLive()) return sendLine(line);
  exec(line);
  render();
}
