// Moving virtual time: Play (at the chosen speed), Step to the next timer
// and Advance by a duration. Only what happens is written to the log: time
// moves in the display until the next timer falls due, and then the
// engine advances to it.
import { t } from "../i18n.js";
import { $ } from "./dom.js";
import { durationWord } from "./words.js";
import { w, snap, pendingMs, play, advancePlayed, commitPending, record } from "./session.js";
import { drawClock, timerText } from "./draw/clock.js";
import { render, run } from "./app.js";
import { guard } from "./console.js";
import { EngineStopped } from "./engine.js";
import { isLive, sendStep } from "./live.js";

let playing = false;
let lastFrameMs = 0;

export const isPlaying = () => playing;

function frame(frameMs) {
  if (!playing) return;
  const dt = Math.min(frameMs - lastFrameMs, 1000); // a hidden tab does not jump an hour
  lastFrameMs = frameMs;
  play(dt * Number($("speed").value));
  try {
    const next = w.next();
    if (next && next.at <= snap.now + pendingMs) {
      advancePlayed();
      render();
    } else {
      drawClock();
      $("next-timer").textContent = next ? timerText(next) : t("js.timer.none");
    }
  } catch (e) {
    if (e instanceof EngineStopped) return; // halt stopped Play; the page says why
    throw e;
  }
  requestAnimationFrame(frame);
}

// halt stops Play without asking the engine anything: it has stopped.
export function halt() {
  playing = false;
  $("play").textContent = t("js.clock.play");
  $("play").setAttribute("aria-pressed", "false");
}

export function setPlaying(on) {
  playing = on;
  $("play").textContent = on ? t("js.clock.pause") : t("js.clock.play");
  $("play").setAttribute("aria-pressed", on ? "true" : "false");
  if (on) {
    lastFrameMs = performance.now();
    requestAnimationFrame(frame);
  } else {
    commitPending();
    render();
  }
}

export function wireClock() {
  $("advance-form").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      const by = $("advance-by");
      run(`advance ${durationWord(by.labels[0].textContent.trim(), by.value.trim())}`);
    }),
  );
  $("step").addEventListener(
    "click",
    guard(() => {
      if (isLive()) return sendStep(); // the session's clock, for every page
      commitPending();
      const next = w.next();
      if (!next) return render();
      record(w.step(), t("js.clock.stepNote", { timer: timerText(next) }));
      render();
    }),
  );
  $("play").addEventListener("click", () => setPlaying(!playing));
}
