// A shared session's history (issue 11). On a session's page, Export
// history downloads the session's whole log as a script (GET
// /api/sessions/{id}/history, its comments in the page's language) and
// says this page's state hash beside it. In the offline playground, Open
// a session history replays such a script, from a file or pasted, to the
// session's state: its lines are engine/script's history verbs, which
// apply the session's engine command records exactly, and its history
// hash lines check the state hash on the way. The lines enter the log
// like typed ones (rewind, share links and restore replay them), each
// entry's comment, who did what, is its note in the event log, and the
// panel says the state hash reached, the session's when the last line
// checked it. Reading the script is historyscript.js's.
import { t, lang } from "../i18n.js";
import { $ } from "./dom.js";
import { UserError } from "./words.js";
import { readHistory, replayedText } from "./historyscript.js";
import { w, replayTo, noteLines, onRecord } from "./session.js";
import { render } from "./app.js";
import { guard } from "./console.js";
import { isLive, sessionId } from "./live.js";
import { errorText } from "../scripterror.js";

// While a history opens, the first of its lines that failed.
let opening = null; // {seen, failed: {index, result} | null}
onRecord((r) => {
  if (!opening) return;
  if (r.error && !opening.failed) opening.failed = { index: opening.seen, result: r };
  opening.seen++;
});

function openHistory(text) {
  const status = $("history-status");
  status.classList.remove("error");
  delete status.dataset.hash;
  try {
    const { lines, numbers, notes, first } = readHistory(text);
    noteLines((line) => notes.get(line));
    opening = { seen: 0, failed: null };
    let replayed;
    try {
      replayed = replayTo(lines, lines.length);
    } finally {
      render();
    }
    const { failed } = opening;
    opening = null;
    if (!replayed) return; // the status line says why
    if (failed) throw new UserError(t("js.history.failed", { n: numbers[failed.index], error: errorText(failed.result) }));
    const h = w.hash();
    status.textContent = replayedText(lines, first, h);
    status.dataset.hash = h.hash;
  } catch (e) {
    opening = null;
    status.textContent = e.message;
    status.classList.add("error");
    if (!(e instanceof UserError)) throw e;
  }
}

// wireExport offers a session's page its history, and says the page's
// own state hash when it is taken, to compare with the script's last.
function wireExport() {
  const row = $("live-history-row");
  if (!row || !isLive()) return; // a lesson, the static export, or no session
  row.hidden = false;
  const link = $("live-history");
  link.href = `/api/sessions/${sessionId()}/history?lang=${encodeURIComponent(lang)}`;
  link.addEventListener(
    "click",
    guard(() => {
      const h = w.hash();
      if (!h.live) return; // not joined: the page replicates nothing yet
      const p = $("live-hash");
      p.textContent = t("js.history.pageHash", { seq: h.seq, hash: h.hash });
      p.dataset.hash = h.hash;
      p.hidden = false;
    }),
  );
}

export function wireHistory() {
  wireExport();
  if (!$("history-form")) return;
  if (isLive()) {
    // A session's page replicates the session: a history replays only
    // offline.
    $("history-open").hidden = true;
    return;
  }
  $("history-form").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      openHistory($("history-text").value);
    }),
  );
  $("history-file").addEventListener("change", async (e) => {
    const file = e.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    guard(openHistory)(text);
  });
}
