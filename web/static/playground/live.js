// A shared session (issue 11): one broker that several pages use together.
// Share live creates a session on the server (POST /api/sessions) and
// shows its two links: the session's, for editors, and its read-only one.
// A page opened at either link (/s/{id}) joins the session over
// /ws/sessions/{id} with a chosen name (the server decides the role from
// the id) and becomes a replica: its engine loads the welcome's snapshot
// (warren.liveStart) and applies every entry of the session's log in order
// (warren.liveApply), so the page draws its own broker as ever, and
// animates the events each entry's records make. Lines typed or built by
// the forms go to the session as command messages (app.js's run asks
// isLive), Step as a clock message; nothing runs locally. The page reports
// its state hash whenever an entry carries the session's; a difference is
// a bug, shown loudly. The messages are engine/hub/PROTOCOL.md's. What the
// page draws is app.js's render, handed to wireLive: app.js asks this
// module whether the page is live, so this one does not import it back.
import { t, lang } from "../i18n.js";
import { $, el, say } from "./dom.js";
import { w, record, logLines } from "./session.js";
import { guard, showResult } from "./console.js";
import { UserError } from "./words.js";
import { errorText } from "../scripterror.js";
import { showAMQPLogin } from "./liveamqp.js";
import { joinsAgain, rejoinPause } from "./rejoin.js";

const SESSION_PATH = /^\/s\/([A-Za-z0-9_-]+)\/?$/;

// The hub's error keys (engine/hub/errors.go), each said by a catalog
// entry with the error's named values; web's tests check the list against
// the hub's. The entries of idle, shutdown and closed say only the reason:
// the page puts it in its own sentence that the session is over.
const HUB_ERRORS = {
  sessionFull: "js.live.error.sessionFull",
  badName: "js.live.error.badName",
  badRole: "js.live.error.badRole",
  notJoined: "js.live.error.notJoined",
  joinedTwice: "js.live.error.joinedTwice",
  readOnly: "js.live.error.readOnly",
  rateLimited: "js.live.error.rateLimited",
  sessionRateLimited: "js.live.error.sessionRateLimited",
  sessionBytes: "js.live.error.sessionBytes",
  lineTooLong: "js.live.error.lineTooLong",
  clockNotManual: "js.live.error.clockNotManual",
  badClockMode: "js.live.error.badClockMode",
  badClockRequest: "js.live.error.badClockRequest",
  clockRange: "js.live.error.clockRange",
  badMessage: "js.live.error.badMessage",
  unknownType: "js.live.error.unknownType",
  messageSize: "js.live.error.messageSize",
  divergence: "js.live.error.divergence",
  staleHash: "js.live.error.staleHash",
  badHash: "js.live.error.badHash",
  ended: "js.live.error.ended",
  idle: "js.live.error.idle",
  shutdown: "js.live.error.shutdown",
  closed: "js.live.error.closed",
  seedTooLong: "js.live.error.seedTooLong",
  seedLine: "js.live.error.seedLine",
  tooManySessions: "js.live.error.tooManySessions",
  addrSessions: "js.live.error.addrSessions",
  addrCreateRate: "js.live.error.addrCreateRate",
  stopping: "js.live.error.stopping",
  crossSite: "js.live.error.crossSite",
  notJSON: "js.live.error.notJSON",
  noSession: "js.live.error.noSession",
  tooSlow: "js.live.error.tooSlow",
  joinFirst: "js.live.error.joinFirst",
  noJoin: "js.live.error.noJoin",
  textOnly: "js.live.error.textOnly",
  pageGone: "js.live.error.pageGone",
};

let sock = null; // the session's WebSocket, while joined or joining
let me = null; // {id, name, role} from the welcome
let lastError = null; // the session's latest error message, for the close that may follow it
let name = ""; // the name chosen, to join again with
let ended = false; // the session said it ended: nothing more comes
let refs = 0;
const pending = new Map(); // ref → the line sent, until its result or error
let applied = null; // the last entry's result, for the sender's own result
let rejoins = 0; // joins again after losing the replica, since the last entry applied
let drops = 0; // tries to join again since a joined page's socket dropped; 0 once it is back
let render = () => {}; // draws the page (app.js's render), from wireLive

const MAX_REJOINS = 3; // then a page whose replica keeps getting lost gives up and says so, rather than loop
// PING_EVERY_MS is how often a joined page says it is still there
// (engine/hub/PROTOCOL.md, "Still here"): the edge's session object lets
// go of a page it has not heard from for 45 s.
const PING_EVERY_MS = 20000;
let pinger = null; // the interval that pings, while joined

// sessionId is the session this page's path names, or null.
export const sessionId = () => SESSION_PATH.exec(location.pathname)?.[1] ?? null;

// isLive says whether the page is a shared session's: its lines go to the
// session, never to the local engine.
export const isLive = () => sessionId() !== null;

// locked says whether the page may not command the session now: not
// joined (yet, or any more) or joined read-only.
export const locked = () => isLive() && (me === null || me.role !== "editor" || sock === null);

// sendLine sends a script line to the session as a command.
export function sendLine(line) {
  send({ type: "command", line }, line);
}

// sendClock switches the session's clock mode: manual, paused or live.
function sendClock(mode) {
  send({ type: "clock", mode }, `clock ${mode}`);
}

// sendStep moves the session's (manual) clock to its next timer.
export function sendStep() {
  send({ type: "clock", step: true }, "step");
}

function send(msg, line) {
  if (ended) throw new UserError(t("js.live.isOver"));
  if (me === null || sock === null || sock.readyState !== WebSocket.OPEN) throw new UserError(t("js.live.notJoined"));
  if (me.role !== "editor") throw new UserError(t("js.live.error.readOnly", { name: me.name }));
  const ref = String(++refs);
  pending.set(ref, line);
  sock.send(JSON.stringify({ ...msg, ref }));
}

// hubErrorText says a hub error ({key, args, text, script, mismatches,
// cause}) in the page's language: a script error as the console says one
// (with a failed expect's mismatches and the error it wraps), a hub error
// from its catalog entry. The English text stands for a key the page does
// not know.
export function hubErrorText(e) {
  if (!e) return "";
  const key = Object.hasOwn(HUB_ERRORS, e.key) ? HUB_ERRORS[e.key] : null;
  const text = e.script ? errorText({ error: e.text, errorDetail: e }) : key ? t(key, e.args ?? {}) : e.text;
  return /\{\w+\}/.test(text) ? e.text : text;
}

// status says where the page stands in the session, in the panel and in
// the page's status line.
function status(text) {
  $("live-status").textContent = text;
  say(text);
}

function showError(text) {
  const p = $("live-error");
  p.textContent = text;
  p.hidden = text === "";
}

// lockControls disables what a page may not do: on every session page
// the local-only controls (Play, the timeline, share links of the local
// log) and the import of definitions, and while the page cannot command the session, the console, the
// forms and the clock too.
function lockControls() {
  const off = locked();
  const controls = document.querySelectorAll(".col-controls input, .col-controls button, .col-controls select, .col-controls textarea");
  for (const c of controls) if (c.id !== "step") c.disabled = off; // draw/clock.js's drawNext decides Step
  // Importing definitions runs many lines and reads each one's result at
  // once (importer.js), which a session answers later: not offered here.
  for (const c of document.querySelectorAll("#import-form input, #import-form textarea, #import-form button")) c.disabled = true;
  $("import-status").textContent = t("js.live.noImport");
  for (const id of ["play", "speed", "rewind", "reset", "scrubber", "share", "download"]) {
    if ($(id)) $(id).disabled = true;
  }
  $("live-readonly").hidden = !(me && me.role !== "editor");
  $("live-clock-row").hidden = me === null;
  $("live-clock").disabled = off;
}

function drawPresence(p) {
  const role = (r) => (r === "editor" ? t("js.live.role.editor") : t("js.live.role.readOnly"));
  const people = p.participants.map((x) =>
    el(
      "li",
      { dataset: { testid: "live-participant", role: x.role, you: x.id === me?.id ? "true" : null } },
      el("span", { class: "name" }, x.name),
      " ",
      el("span", { class: "hint" }, x.id === me?.id ? t("js.live.roleYou", { role: role(x.role) }) : role(x.role)),
    ),
  );
  const conns = (p.connections ?? []).map((c) =>
    el("li", { dataset: { testid: "live-connection" } }, t("js.live.connection", { client: c.client || c.id, address: c.address || "", user: c.user || "" })),
  );
  $("live-presence").replaceChildren(...people, ...conns);
}

// originNote says who or what made an entry.
function originNote(o) {
  switch (o.kind) {
    case "participant":
      return o.participant === me?.id ? t("js.live.origin.you") : t("js.live.origin.participant", { name: o.name });
    case "leave":
      return t("js.live.origin.leave", { name: o.name });
    case "amqp":
      return t("js.live.origin.amqp", { connection: o.connection });
    case "clock":
      return t("js.live.origin.clock");
    default:
      return t("js.live.origin.server");
  }
}

function reportHash(seq, hash) {
  if (sock?.readyState === WebSocket.OPEN) sock.send(JSON.stringify({ type: "hash", seq, hash }));
}

function noteReplica(r) {
  document.body.dataset.liveSeq = String(r.seq);
  document.body.dataset.liveClock = r.clock;
  $("live-clock").value = r.clock;
}

// lost is a replica that can no longer follow the log (a gap, an entry
// that does not apply): the page says so and joins again, from a fresh
// snapshot.
function lost(error) {
  console.error(`live: the replica is lost: ${error}`);
  const s = sock;
  sock = null;
  s?.close();
  if (++rejoins > MAX_REJOINS) {
    status(t("js.live.gaveUp", { error }));
    return showError(t("js.live.gaveUp", { error }));
  }
  showError(t("js.live.lost", { error }));
  join();
}

function receive(m) {
  switch (m.type) {
    case "welcome": {
      me = m.you;
      const r = w.liveStart(JSON.stringify(m.snapshot), m.clock);
      if (r.error) return lost(r.error);
      // The entries that came with the snapshot are the past: the page
      // draws their state, and animates nothing.
      record({ ...r, line: "", events: [], output: "" }, t("js.live.joinedNote", { name: me.name, seq: r.seq }));
      noteReplica(r);
      document.body.dataset.live = "joined";
      document.body.dataset.liveRole = me.role;
      drops = 0;
      clearInterval(pinger);
      pinger = setInterval(() => sock?.readyState === WebSocket.OPEN && sock.send('{"type":"ping"}'), PING_EVERY_MS);
      reportHash(r.seq, r.hash);
      const joined = t("js.live.joined", { name: me.name, role: me.role === "editor" ? t("js.live.role.editor") : t("js.live.role.readOnly") });
      status(joined);
      $("live-join").hidden = true;
      drawPresence(m.presence);
      showAMQPLogin(m.amqp ?? null);
      break;
    }
    case "entry": {
      const r = w.liveApply(JSON.stringify(m.entry));
      if (r.error) return lost(r.error);
      applied = r;
      rejoins = 0;
      record(r, originNote(m.entry.origin));
      noteReplica(r);
      if (r.hash) reportHash(r.seq, r.hash);
      if (r.diverged) {
        showError(t("js.live.diverged", { seq: r.seq, got: r.hash, want: m.entry.hash }));
        console.error(`live: diverged at entry ${r.seq}: hash ${r.hash}, the session's ${m.entry.hash}`);
      }
      break;
    }
    case "presence":
      drawPresence(m.presence);
      break;
    case "result": {
      const line = pending.get(m.ref) ?? "";
      pending.delete(m.ref);
      const res = m.result;
      // The sender sees its line as its own runner traced it, with the
      // verb's output and its errors.
      const shown = { line, output: res.output, outputTruncated: res.truncated, events: [] };
      if (res.error) shown.error = hubErrorText(res.error);
      if (res.seq && applied?.seq === res.seq && applied.amqpError) shown.amqpError = applied.amqpError;
      showResult(shown);
      break;
    }
    case "error": {
      // A hash report that raced a newer entry: the session no longer
      // keeps that entry's hash. Not a divergence; the next hashed entry
      // is compared.
      if (m.error?.key === "staleHash") break;
      lastError = m.error;
      const text = hubErrorText(m.error);
      const line = m.ref ? pending.get(m.ref) : undefined;
      if (m.ref) pending.delete(m.ref);
      if (line !== undefined) showResult({ line, error: text, events: [] });
      showError(text);
      if (m.error?.key === "divergence") console.error(`live: ${m.error.text}`);
      break;
    }
    case "pong": // the edge's answer to a ping: nothing to draw
      return;
    case "ended":
      ended = true;
      status(t("js.live.ended", { reason: hubErrorText(m.error) }));
      break;
  }
  render();
}

function join() {
  const u = new URL(`/ws/sessions/${sessionId()}`, location.href);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  const s = new WebSocket(u);
  sock = s;
  lastError = null;
  status(t("js.live.joining"));
  s.addEventListener("open", () => s.send(JSON.stringify({ type: "join", name })));
  s.addEventListener("message", (ev) => {
    if (s !== sock) return;
    try {
      receive(JSON.parse(ev.data));
    } catch (e) {
      showError(t("js.live.broken", { error: e.message }));
      console.error(e);
    }
    lockControls();
  });
  s.addEventListener("close", (ev) => {
    if (s !== sock) return;
    sock = null;
    clearInterval(pinger);
    const reason = closeReasonText(ev);
    const again = joinsAgain({ wasJoined: me !== null, drops, ended, reason: ev.reason });
    if (again) {
      // A joined page whose socket dropped joins again by itself, from a
      // fresh snapshot, after a pause that grows with each try, until it
      // is back (rejoin.js).
      me = null;
      status(t("js.live.reconnecting", { reason }));
      setTimeout(join, rejoinPause(drops++));
    } else {
      drops = 0;
      if (!ended) status(t("js.live.disconnected", { reason }));
      $("live-join-button").disabled = false; // refused (the name, a full session) or given up: the reader may join again
    }
    $("live-presence").replaceChildren(); // no longer here to see who is
    showAMQPLogin(null); // nor to hand out the session's login
    document.body.dataset.live = "closed";
    render(); // Step, among others, is locked now
    lockControls();
  });
}

// closeReasonText says why the session closed the page's socket, in the
// reader's language. The server puts the key of a hub error in front of
// its English reason ("tooSlow: too slow: …", hub.CloseReason); a refused
// join also sent the error itself just before, with the values its text
// names, so that one is used when the keys agree.
function closeReasonText(ev) {
  const m = /^(\w+): (.*)$/s.exec(ev.reason);
  if (!m) return ev.reason || t("js.live.closeCode", { code: ev.code });
  return hubErrorText(lastError?.key === m[1] ? lastError : { key: m[1], text: m[2] });
}

async function create() {
  showError("");
  let res, body;
  try {
    // The session starts where this page is: its log, replayed there.
    res = await fetch("/api/sessions", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ lines: logLines }) });
    body = await res.json().catch(() => ({}));
  } catch (e) {
    return showError(t("js.live.createFailed", { reason: e.message }));
  }
  if (!res.ok) {
    const reason = body.key ? hubErrorText({ key: body.key, args: body.args, text: body.reason }) : (body.reason ?? String(res.status));
    return showError(t("js.live.createFailed", { reason }));
  }
  const link = (path) => {
    const u = new URL(path, location.origin);
    u.searchParams.set("lang", lang);
    return u.href;
  };
  $("live-edit-url").value = link(body.link);
  $("live-read-url").value = link(body.readOnlyLink);
  $("live-open").href = link(body.link);
  $("live-links").hidden = false;
}

// wireLive wires the panel; on a session's page, it asks for a name.
// draw is app.js's render: the page draws after every message the
// session sends and when its socket closes.
export function wireLive(draw) {
  render = draw;
  if (!$("live")) return; // a lesson, or the static export: no sessions
  $("live-share").addEventListener("click", () => void create());
  if (!isLive()) return;
  $("live-create").hidden = true;
  $("live-join").hidden = false;
  $("live-name").value = localStorage.getItem("warren.live.name") ?? "";
  $("live-clock").addEventListener(
    "change",
    guard(() => {
      const mode = $("live-clock").value;
      $("live-clock").value = document.body.dataset.liveClock; // until the session's entry says it switched
      sendClock(mode);
    }),
  );
  $("live-join").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      name = $("live-name").value.trim();
      if (name === "") throw new UserError(t("js.live.nameNeeded"));
      localStorage.setItem("warren.live.name", name);
      showError("");
      $("live-join-button").disabled = true;
      join();
    }),
  );
  status(t("js.live.choose"));
  lockControls();
  $("live-name").focus();
}
