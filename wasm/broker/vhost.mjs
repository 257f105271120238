// A vhost at the edge: one Durable Object per vhost (issue 29), named by
// the vhost. The vhost runs in Go — the broker worker's wasm, started
// once and kept, in the "vhost" role (vhostrole: warren serve's broker,
// users, management API and AMQP connection machine). This class holds
// what only JavaScript can: the sockets, the object's SQLite storage and
// its alarm.
//
// Storage: batches holds the broker's durable records after the
// snapshot, each row the records one write stored (vhostrole's batch, a
// batch longer than partBytes in several parts); snap the snapshot's
// parts; meta the vhost's name ("vhost") and the
// snapshot's position ("snapPos"). What the broker writes during a
// request is committed before anything it sends after it leaves the
// object (the output gate), so a confirm, or an HTTP publish's answer,
// reaches the client only once its message is stored.
//
// AMQP clients' sockets do not hibernate: a connection's state lives in
// the object's memory, so the object stays while one is connected. With
// nobody there, the object may leave memory; its alarm brings it back
// when the broker's next timer (a TTL, a delayed message, x-expires, a
// consumer timeout) is due, and the restore fires what fell due.
import "./build/wasm_exec.js";
import { createRuntimeContext, loadModule } from "./build/runtime.mjs";
import { DurableObject } from "cloudflare:workers";

// partBytes bounds a stored part: a row or value may hold 2 MB.
const partBytes = 1 << 20;

// DIRECTORY are the paths whose changes the directory (the object of
// "/") hands on to the vhosts' objects (spread).
const DIRECTORY = /^\/api\/(?:users|permissions|topic-permissions|vhosts)(?:\/|$)/;

const json = (status, body) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" } });

// parts cuts bytes into views of at most partBytes.
function parts(bytes) {
  const out = [];
  for (let i = 0; i < bytes.byteLength; i += partBytes) out.push(bytes.subarray(i, i + partBytes));
  return out.length ? out : [new Uint8Array(0)];
}

// join puts stored parts (ArrayBuffers) back together.
function join(buffers) {
  if (buffers.length === 1) return new Uint8Array(buffers[0]);
  const out = new Uint8Array(buffers.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of buffers) {
    out.set(new Uint8Array(b), at);
    at += b.byteLength;
  }
  return out;
}

// limit reads a whole-number variable (WARREN_MAX_QUEUES, ...): 0 when
// unset; a variable that is not one stops the object with a message
// saying which, rather than running without the limit asked for.
function limit(env, name) {
  const v = env[name];
  if (v === undefined || v === "") return 0;
  if (!/^[0-9]{1,15}$/.test(String(v))) throw new Error(`${name} must be a whole number of at most 15 digits, not ${JSON.stringify(v)}`);
  return Number(v);
}

export class Vhost extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.tables();
    this.binding = null; // the Go side, once started
    this.starting = null;
  }

  tables() {
    this.sql.exec("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS batches (first INTEGER NOT NULL, last INTEGER NOT NULL, part INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (first, part)) WITHOUT ROWID",
    );
    this.sql.exec("CREATE TABLE IF NOT EXISTS snap (part INTEGER PRIMARY KEY, data BLOB NOT NULL)");
  }

  meta(k) {
    const rows = [...this.sql.exec("SELECT v FROM meta WHERE k = ?", k)];
    return rows.length ? rows[0].v : null;
  }

  setMeta(k, v) {
    this.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", k, v);
  }

  // broker returns the running Go side, starting it (and restoring what
  // the storage holds) the first time; it throws when the storage does
  // not restore, saying why, and keeps the storage as it is.
  async broker() {
    if (this.binding) return this.binding;
    this.starting ??= this.go().finally(() => (this.starting = null));
    return this.starting;
  }

  async go() {
    const vhost = this.meta("vhost");
    const mod = await loadModule();
    const go = new Go();
    let ready;
    const readyP = new Promise((resolve) => (ready = resolve));
    const binding = {
      role: "vhost",
      held: () => this.held(),
      logBatches: (after, n) => this.logBatches(after, n),
      logAppend: (first, last, batch) => this.logAppend(first, last, batch),
      logSnapshot: (pos, pieces) => this.logSnapshot(pos, pieces),
      storageBytes: () => this.sql.databaseSize,
      wake: (at) => (at === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(at)),
    };
    const instance = new WebAssembly.Instance(mod, { ...go.importObject, workers: { ready: () => ready() } });
    go.run(instance, createRuntimeContext({ env: this.env, ctx: this.ctx, binding }));
    await readyP;
    const config = {
      vhost,
      // The first administrator is the directory's; a vhost's object
      // gets its users from the directory (init).
      adminUser: vhost === "/" ? (this.env.WARREN_ADMIN_USER ?? "") : "",
      adminPassword: vhost === "/" ? (this.env.WARREN_ADMIN_PASSWORD ?? "") : "",
      maxQueues: limit(this.env, "WARREN_MAX_QUEUES"),
      maxMessages: limit(this.env, "WARREN_MAX_MESSAGES"),
    };
    const reply = JSON.parse(binding.start(JSON.stringify(config)));
    if (reply.error) throw new Error(`vhost ${vhost}: the object's storage does not restore: ${reply.error}`);
    console.log(`vhost ${vhost}: started, ${this.held().logRecords} log record(s) after snapshot ${this.meta("snapPos") ?? 0}`);
    this.binding = binding;
    return binding;
  }

  // held says what the storage holds, for the broker's recovery.
  held() {
    const snap = [...this.sql.exec("SELECT data FROM snap ORDER BY part")].map((r) => r.data);
    const snapshotPos = Number(this.meta("snapPos") ?? 0);
    const [row] = [
      ...this.sql.exec(
        "SELECT max(last) AS last, coalesce(sum(CASE part WHEN 0 THEN last - first + 1 ELSE 0 END), 0) AS n, coalesce(sum(length(data)), 0) AS bytes FROM batches",
      ),
    ];
    return {
      snapshot: snap.length ? snap.map((b) => new Uint8Array(b)) : null,
      snapshotPos,
      last: row.last ?? snapshotPos,
      logRecords: row.n,
      logBytes: row.bytes,
    };
  }

  // logBatches returns up to n batches after position after, in order.
  logBatches(after, n) {
    const out = [];
    const firsts = [...this.sql.exec("SELECT first FROM batches WHERE first > ? AND part = 0 ORDER BY first LIMIT ?", after, n)];
    if (!firsts.length) return out;
    const upto = firsts[firsts.length - 1].first;
    for (const r of this.sql.exec("SELECT first, last, data FROM batches WHERE first > ? AND first <= ? ORDER BY first, part", after, upto)) {
      if (out.length && out[out.length - 1][0] === r.first) out[out.length - 1][2].push(r.data);
      else out.push([r.first, r.last, [r.data]]);
    }
    return out.map(([first, last, bufs]) => [first, last, join(bufs)]);
  }

  // logAppend writes one batch of records (a row, or a few for a batch
  // past partBytes): rows written are what the storage is billed by.
  logAppend(first, last, batch) {
    this.ctx.storage.transactionSync(() => {
      parts(batch).forEach((p, j) => this.sql.exec("INSERT INTO batches (first, last, part, data) VALUES (?, ?, ?, ?)", first, last, j, p));
    });
  }

  logSnapshot(pos, pieces) {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM snap");
      let part = 0;
      for (const piece of pieces) for (const p of parts(piece)) this.sql.exec("INSERT INTO snap (part, data) VALUES (?, ?)", part++, p);
      this.sql.exec("DELETE FROM batches WHERE last <= ?", pos);
      this.setMeta("snapPos", String(pos));
    });
  }

  async alarm() {
    if (this.meta("vhost") === null) return;
    // Said in the worker's log, so that a test (and an operator) can see
    // the object work with nobody there.
    console.log(`vhost ${this.meta("vhost")}: woken by its alarm`);
    const b = await this.broker();
    await b.tick();
  }

  async fetch(req) {
    const url = new URL(req.url);
    const vhost = req.headers.get("X-Warren-Vhost");
    if (url.pathname.startsWith("/_vhost/")) return this.internal(req, url.pathname.slice("/_vhost/".length), vhost);
    if (this.meta("vhost") === null) {
      // "/" is there from the start, as a new RabbitMQ node's is; any
      // other vhost only once the directory has made it (init).
      if (vhost !== "/") return new Response(null, { status: 404, headers: { "X-Warren-No-Vhost": "1" } });
      this.setMeta("vhost", vhost);
    }
    let b;
    try {
      b = await this.broker();
    } catch (e) {
      console.log(e.message);
      return json(503, { error: "service_unavailable", reason: e.message });
    }
    if (url.pathname.startsWith("/ws/")) return this.amqp(req, b);
    const headers = {};
    for (const [k, v] of req.headers) headers[k] = v;
    const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
    const res = await b.http(req.method, url.pathname + url.search, headers, body, req.headers.get("CF-Connecting-IP") ?? "127.0.0.1");
    if (this.meta("vhost") === "/" && req.method !== "GET" && req.method !== "HEAD" && res.status < 300 && DIRECTORY.test(url.pathname)) {
      await this.spread(b, req.method, url.pathname);
    }
    return new Response(req.method === "HEAD" ? null : res.body, { status: res.status, headers: res.headers });
  }

  // spread is the directory's part after a change it made (the object
  // of "/"): a vhost created or deleted gets its object made or its
  // storage deleted, and every other vhost's object its copy of the users
  // and permissions, before the change is answered: a deleted user's
  // connections are closed everywhere, a new user may log in to every
  // vhost they have permissions in, once the caller has the answer.
  async spread(b, method, path) {
    const m = /^\/api\/vhosts\/([^/]+)\/?$/.exec(path);
    if (m && method === "DELETE") {
      const name = decodeURIComponent(m[1]);
      await this.vhostStub(name).fetch("https://vhost/_vhost/end", { method: "POST" });
      return; // the rights in it went with it; no other vhost changed
    }
    // A vhost made, or a right in one vhost, changes that vhost's copy
    // alone; a user's change, every vhost's.
    const one = m ?? /^\/api\/(?:topic-)?permissions\/([^/]+)\//.exec(path);
    const names = one ? [decodeURIComponent(one[1])] : JSON.parse(b.vhosts());
    await Promise.all(
      names
        .filter((v) => v !== "/")
        .map(async (name) => {
          const res = await this.vhostStub(name).fetch("https://vhost/_vhost/init", { method: "POST", body: b.authCopy(name) });
          if (res.status >= 300) console.log(`vhost ${name}: the directory's change did not reach it: ${await res.text()}`);
        }),
    );
  }

  vhostStub(name) {
    return {
      fetch: (url, init) => {
        const r = new Request(url, init);
        r.headers.set("X-Warren-Vhost", name);
        return this.env.VHOSTS.get(this.env.VHOSTS.idFromName(name)).fetch(r);
      },
    };
  }

  // internal answers the directory: init makes the vhost here (if it is
  // not yet) and gives it the users and permissions of the body; end
  // deletes it, storage and all.
  async internal(req, what, vhost) {
    if (what === "init") {
      if (this.meta("vhost") === null) this.setMeta("vhost", vhost);
      let b;
      try {
        b = await this.broker();
      } catch (e) {
        return json(503, { error: "service_unavailable", reason: e.message });
      }
      const err = await b.authApply(await req.text());
      return err === null ? new Response(null, { status: 204 }) : json(500, { error: "internal_error", reason: err });
    }
    if (what === "end") {
      if (this.binding) {
        const b = this.binding;
        this.binding = null;
        await b.remove();
      }
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      console.log(`vhost ${vhost}: deleted, with its storage`);
      this.tables();
      return new Response(null, { status: 204 });
    }
    return json(404, { error: "not_found", reason: "no such internal endpoint" });
  }

  // amqp serves an AMQP client's socket in the vhost's broker.
  amqp(req, b) {
    if (req.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return json(426, { error: "upgrade_required", reason: "AMQP here is over WebSocket" });
    }
    const pair = new WebSocketPair();
    const ws = pair[1];
    ws.accept();
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
    return new Response(null, { status: 101, webSocket: pair[0], headers: offered.includes("amqp") ? { "Sec-WebSocket-Protocol": "amqp" } : {} });
  }
}
