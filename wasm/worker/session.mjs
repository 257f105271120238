// A shared session at the edge: one Durable Object per session (issue 12).
// The session itself runs in Go — the worker's own wasm, started once and
// kept, in the "session" role (sessionrole, driver/sessions' Host: the
// same hub, engine and AMQP connection state machine as warren serve).
// This class holds what only JavaScript can: the WebSockets, the object's
// SQLite storage and its alarm.
//
// Pages' sockets hibernate with the object (the WebSocket Hibernation
// API): when nobody has sent anything for a while the object may leave
// memory with its pages still connected. Woken by a page's next message
// (or its alarm), it restores the session from storage, and the
// participants whose sockets are still there come back with their script
// contexts (their ids are on their sockets, serializeAttachment). AMQP
// clients' sockets do not hibernate: a connection's state lives in the
// object's memory, so the object stays awake while one is connected.
//
// Storage: meta holds the session's config (ids, name, AMQP login,
// creation), the hub's latest snapshot and its State; entries holds the
// log's entries after the snapshot, by number. Every entry is written as
// the session makes it, before anything it caused is sent (Go calls keep
// synchronously, and the object's output gate holds replies until the
// write is durable), so a woken object restores exactly what its pages
// and clients saw: snapshot + entries, hub.Restore.
import "./build/wasm_exec.js";
import { createRuntimeContext, loadModule } from "./build/runtime.mjs";
import { DurableObject } from "cloudflare:workers";

const json = (status, body) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" } });

// A page says it is still there every 20 s (engine/hub/PROTOCOL.md,
// "Still here"), a text the runtime answers without waking the object
// (auto-response) and whose time it notes. The object's alarm comes back
// every SWEEP_MS while pages are connected and lets go of one it has
// heard nothing from for PAGE_SILENT_MS: a page whose network died
// without a close leaves the session within a minute, as warren serve's
// pings make it do. The sweep restores the session only when a page
// goes (or the session's own timer is due).
const PING = '{"type":"ping"}';
const PONG = '{"type":"pong"}';
const PAGE_SILENT_MS = 45000;
const SWEEP_MS = 15000;

// partChars bounds a stored part: a row may hold 2 MB, and these texts
// are JSON of ASCII (records in base64).
const partChars = 1 << 20;

// split cuts a text into parts of at most partChars.
function split(text) {
  const parts = [];
  for (let i = 0; i < text.length; i += partChars) parts.push(text.slice(i, i + partChars));
  return parts.length ? parts : [""];
}

const gone = () => json(404, { error: "not_found", reason: "no session has this id (it may have ended)" });

// noSuchSession answers a request for an id that names no session. A
// page's WebSocket handshake is accepted and closed at once with the
// keyed reason, as warren serve does (driver/sessions, refuseUnknown): a
// browser never sees a refused handshake's status, only code 1006, and
// the page says the key in its reader's language. Anything else gets 404.
export function noSuchSession(req) {
  if (req.headers.get("Upgrade")?.toLowerCase() !== "websocket" || !new URL(req.url).pathname.startsWith("/ws/sessions/")) return gone();
  const pair = new WebSocketPair();
  pair[1].accept();
  pair[1].close(1008, "noSession: no session has this id (it may have ended)");
  return new Response(null, { status: 101, webSocket: pair[0] });
}

export class Session extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // A row holds at most 2 MB: longer values (a snapshot of many
    // messages, an entry with large publishes) are kept in parts.
    this.sql.exec("CREATE TABLE IF NOT EXISTS meta (k TEXT NOT NULL, part INTEGER NOT NULL, v TEXT NOT NULL, PRIMARY KEY (k, part))");
    this.sql.exec("CREATE TABLE IF NOT EXISTS entries (seq INTEGER NOT NULL, part INTEGER NOT NULL, v TEXT NOT NULL, PRIMARY KEY (seq, part))");
    this.binding = null; // the Go side, once started
    this.starting = null;
    // ended is set when the session ends (end): its storage is deleted,
    // tables and all, while the object may stay in memory and be asked
    // again by an id it had, which must find no session rather than fail.
    this.ended = false;
    // handles are the Go side's handles of the page sockets, by socket; a
    // socket that outlived the object's memory (hibernation) gets its
    // handle back from its attachment when the session is restored
    // (adoptAll).
    this.handles = new Map();
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
  }

  // heardAt is when a page socket last said anything: its last ping
  // (answered by the runtime), its last message, or its opening, all of
  // which outlive the object's memory.
  heardAt(ws) {
    const at = ws.deserializeAttachment() ?? {};
    return Math.max(this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0, at.heard ?? 0);
  }

  // heard notes on a page's socket that it spoke now.
  heard(ws) {
    ws.serializeAttachment({ ...(ws.deserializeAttachment() ?? {}), heard: Date.now() });
  }

  // arm sets the object's alarm to the earlier of the session's own next
  // timer (goAt, which the Go side sets through wake) and, while any page
  // is connected, the next sweep.
  async arm() {
    const goAt = this.goAt();
    const sweep = this.ctx.getWebSockets("page").length > 0 ? Date.now() + SWEEP_MS : null;
    const at = goAt === null ? sweep : sweep === null ? goAt : Math.min(goAt, sweep);
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  // goAt is when the session's own timer is due, or null: kept in
  // storage, as the alarm is shared with the sweep.
  goAt() {
    const v = this.meta("goAt");
    return v === null || v === "" ? null : Number(v);
  }

  meta(k) {
    if (this.ended) return null;
    const parts = [...this.sql.exec("SELECT v FROM meta WHERE k = ? ORDER BY part", k)].map((r) => r.v);
    return parts.length ? parts.join("") : null;
  }

  setMeta(k, v) {
    this.sql.exec("DELETE FROM meta WHERE k = ?", k);
    split(v).forEach((p, i) => this.sql.exec("INSERT INTO meta (k, part, v) VALUES (?, ?, ?)", k, i, p));
  }

  // entries returns the stored entries' texts, in order.
  entries() {
    const texts = [];
    let seq = null;
    for (const r of this.sql.exec("SELECT seq, v FROM entries ORDER BY seq, part")) {
      if (r.seq === seq) texts[texts.length - 1] += r.v;
      else texts.push(r.v);
      seq = r.seq;
    }
    return texts;
  }

  // go starts the Go side with config, and stored (null for a new
  // session); it resolves to start's reply.
  async go(config, stored) {
    const mod = await loadModule();
    const go = new Go();
    let ready;
    const readyP = new Promise((resolve) => (ready = resolve));
    const binding = {
      role: "session",
      keep: (entries, state, snapshot) => this.keep(entries, state, snapshot),
      wake: (at) => {
        this.setMeta("goAt", at === null ? "" : String(at));
        return this.arm();
      },
      ended: () => this.end(),
    };
    const instance = new WebAssembly.Instance(mod, { ...go.importObject, workers: { ready: () => ready() } });
    go.run(instance, createRuntimeContext({ env: this.env, ctx: this.ctx, binding }));
    await readyP;
    const reply = JSON.parse(binding.start(JSON.stringify(config), stored === null ? null : JSON.stringify(stored)));
    if (!reply.error) this.binding = binding;
    return reply;
  }

  // session returns the running Go side, restoring it from storage first
  // when the object's memory went; null when there is no session here.
  async session() {
    if (this.binding) return this.binding;
    const config = this.meta("config");
    if (config === null) return null;
    // The pages whose sockets hibernated with the object are still
    // there: their participants come back with the session.
    const keep = this.ctx
      .getWebSockets("page")
      .map((ws) => ws.deserializeAttachment()?.pid)
      .filter((pid) => typeof pid === "number");
    this.starting ??= this.go(JSON.parse(config), {
      snapshot: this.meta("snapshot"),
      state: this.meta("state"),
      entries: this.entries(),
      keep,
    });
    const reply = await this.starting;
    if (reply.error) throw new Error(`the session's storage does not restore: ${reply.error}`);
    this.adoptAll();
    console.log(`session ${JSON.parse(config).readOnlyId}: restored from storage, ${keep.length} page(s) kept`);
    return this.binding;
  }

  // adoptAll gives every page socket that hibernated with the object its
  // handle back as soon as the session is restored, whatever woke it (a
  // page's message, its alarm, an HTTP request): a page that only listens
  // never speaks, and waiting for it to (handle) left it deaf to every
  // entry, the TTL its alarm fired and the session's end.
  adoptAll() {
    for (const ws of this.ctx.getWebSockets("page")) {
      if (!this.handles.has(ws) && this.adopt(ws) < 0) ws.close(4000, "pageGone: the session no longer has this page: join again");
    }
  }

  // adopt gives a hibernated page socket its Go handle back: the
  // participant its attachment names, or, if it had not joined yet, the
  // socket opened afresh; -1 when neither can be.
  adopt(ws) {
    const at = ws.deserializeAttachment() ?? {};
    const h = typeof at.pid === "number" ? this.binding.pageAdopt(at.pid, ws) : this.binding.pageOpen(at.id ?? "", ws);
    if (h >= 0) this.handles.set(ws, h);
    return h;
  }

  // keep stores what the session's Keeper is given, in one transaction.
  keep(entries, state, snapshot) {
    this.ctx.storage.transactionSync(() => {
      if (snapshot !== null) {
        this.setMeta("snapshot", snapshot);
        this.sql.exec("DELETE FROM entries WHERE seq <= ?", JSON.parse(snapshot).seq);
      }
      for (const e of entries) {
        const seq = JSON.parse(e).seq;
        this.sql.exec("DELETE FROM entries WHERE seq = ?", seq);
        split(e).forEach((p, i) => this.sql.exec("INSERT INTO entries (seq, part, v) VALUES (?, ?, ?)", seq, i, p));
      }
      if (state !== null) this.setMeta("state", state);
    });
  }

  // end forgets an ended session (closed, idle): its ids answer 404, and a
  // page's socket a close with the reason (noSuchSession).
  end() {
    this.ended = true;
    this.binding = null;
    this.handles.clear(); // its pages' sockets close; none has a participant now
    this.ctx.storage.deleteAlarm();
    this.ctx.storage.deleteAll();
  }

  async alarm() {
    if (this.meta("config") === null) return;
    const now = Date.now();
    const goAt = this.goAt();
    const due = goAt !== null && goAt <= now;
    const silent = this.ctx.getWebSockets("page").filter((ws) => now - this.heardAt(ws) > PAGE_SILENT_MS);
    if (due || silent.length > 0) {
      const b = await this.session();
      if (!b) return;
      for (const ws of silent) {
        const h = this.handles.get(ws);
        this.handles.delete(ws);
        ws.close(4000, "pageGone: the session no longer has this page: join again");
        if (h !== undefined) b.pageGone(h);
      }
      if (due) {
        // Said in the worker's log, so that a test (and an operator)
        // can see the object work with nobody there.
        console.log(`session ${JSON.parse(this.meta("config")).readOnlyId}: woken by its alarm`);
        this.setMeta("goAt", "");
        b.tick(); // sets the next goAt through wake
      }
    }
    if (!this.ended) await this.arm();
  }

  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/init") return this.init(req);
    const config = this.meta("config");
    if (url.pathname.startsWith("/exists/")) return this.exists(config, url.pathname.slice("/exists/".length));
    if (config === null) return noSuchSession(req);
    const { id, readOnlyId } = JSON.parse(config);
    const b = await this.session();
    if (!b) return noSuchSession(req);
    let m;
    if ((m = /^\/ws\/sessions\/([^/]+)\/?$/.exec(url.pathname))) {
      if (m[1] !== id && m[1] !== readOnlyId) return noSuchSession(req);
      return this.page(req, b, m[1]);
    }
    if (/^\/ws\/amqp\/[^/]+\/?$/.test(url.pathname)) return this.amqp(req, b);
    if ((m = /^\/api\/sessions\/([^/]+)/.exec(url.pathname))) {
      if (m[1] !== id && m[1] !== readOnlyId) return gone();
      const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
      const res = await b.http(req.method, url.pathname + url.search, body);
      return new Response(res.body, { status: res.status, headers: res.headers });
    }
    return gone();
  }

  // exists answers the worker's question whether the id of a page's link
  // (/s/{id}) names the session here: 204 or 404. It reads the stored
  // config alone and does not start the session.
  exists(config, asked) {
    const c = config === null ? null : JSON.parse(config);
    return new Response(null, { status: c !== null && (asked === c.id || asked === c.readOnlyId) ? 204 : 404 });
  }

  // init starts a new session here (the worker's POST /api/sessions).
  async init(req) {
    if (this.meta("config") !== null) return json(409, { error: "conflict", reason: "a session already lives here" });
    const config = await req.json();
    const reply = await this.go(config, null);
    if (reply.error) {
      this.ctx.storage.deleteAll(); // what the refused start wrote
      return json(400, { error: "bad_request", reason: reply.error, key: reply.key, args: reply.args });
    }
    this.setMeta("config", JSON.stringify(config));
    return json(201, reply.created);
  }

  upgrade(req) {
    if (req.headers.get("Upgrade")?.toLowerCase() !== "websocket") return null;
    const pair = new WebSocketPair();
    pair[1].accept();
    return pair;
  }

  // page joins a page's socket to the session. Page sockets hibernate
  // with the object (the WebSocket Hibernation API): the object may sleep
  // between their messages, and its handlers below find the page again.
  async page(req, b, id) {
    if (req.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return json(426, { error: "upgrade_required", reason: "the session's page socket is a WebSocket" });
    }
    const pair = new WebSocketPair();
    const ws = pair[1];
    this.ctx.acceptWebSocket(ws, ["page"]);
    ws.serializeAttachment({ id, heard: Date.now() });
    const h = b.pageOpen(id, ws);
    if (h < 0) ws.close(1008, "noSession: no session has this id (it may have ended)");
    else this.handles.set(ws, h);
    await this.arm(); // the sweep of silent pages starts with the first
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  // handle returns the Go side's handle of a page socket: after the
  // object slept, restoring the session adopts every page back
  // (adoptAll); a socket still without one (its adoption failed) is
  // tried again; -1 when it cannot be.
  async handle(ws) {
    const h = this.handles.get(ws);
    if (h !== undefined) return h;
    if (!(await this.session())) return -1;
    return this.handles.get(ws) ?? this.adopt(ws);
  }

  async webSocketMessage(ws, msg) {
    this.heard(ws);
    const h = await this.handle(ws);
    if (h < 0) return ws.close(4000, "pageGone: the session no longer has this page: join again");
    if (typeof msg === "string") this.binding.pageMessage(h, msg);
    else ws.close(1003, "textOnly: the session protocol is JSON text messages");
  }

  async webSocketClose(ws) {
    const h = await this.handle(ws);
    if (h >= 0) this.binding.pageGone(h);
    this.handles.delete(ws);
  }

  async webSocketError(ws) {
    return this.webSocketClose(ws);
  }

  // amqp serves an AMQP client's socket in the session's broker.
  amqp(req, b) {
    const pair = this.upgrade(req);
    if (!pair) return json(426, { error: "upgrade_required", reason: "AMQP here is over WebSocket" });
    const ws = pair[1];
    ws.binaryType = "arraybuffer";
    const h = b.amqpOpen(ws, req.headers.get("CF-Connecting-IP") ?? "edge");
    ws.addEventListener("message", (e) => {
      if (typeof e.data === "string") ws.close(1003, "AMQP over WebSocket is binary messages");
      else b.amqpMessage(h, new Uint8Array(e.data));
    });
    ws.addEventListener("close", () => b.amqpGone(h));
    ws.addEventListener("error", () => b.amqpGone(h));
    // No subprotocol unless the client offered "amqp" (RECIPES: never
    // answer one it did not offer).
    const offered = (req.headers.get("Sec-WebSocket-Protocol") ?? "").split(",").map((s) => s.trim());
    const headers = offered.includes("amqp") ? { "Sec-WebSocket-Protocol": "amqp" } : {};
    return new Response(null, { status: 101, webSocket: pair[0], headers });
  }
}
