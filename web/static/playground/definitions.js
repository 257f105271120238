// definitionsLines turns a RabbitMQ definitions document (rabbitmqctl
// export_definitions, GET /api/definitions) into script lines, so that an
// import enters the log like typed lines and a share link carries it. Its
// mistakes are said in the reader's language: definitionsReader makes it
// for a translator (i18n.js), so that web/jstest checks it under Node, and
// this module exports the page's.
import * as i18n from "../i18n.js";
import { UserError } from "./words.js";

// A word the script reads as itself: no quotes, spaces, =, # or @ to
// reinterpret, and not a flag the verbs know.
const IMPORT_FLAG_WORDS = new Set(["durable", "non-durable", "exclusive", "auto-delete", "internal", "passive", "sac", "no-ack", "mandatory", "persistent", "immediate", "exchange", "to"]);

function importWord(s) {
  s = String(s);
  if (/^[A-Za-z0-9_][A-Za-z0-9_.:\/-]*$/.test(s) && !IMPORT_FLAG_WORDS.has(s)) return s;
  return importQuoted(s);
}

// importQuoted quotes s as a script string: single quotes read verbatim,
// double quotes escape " and \.
function importQuoted(s) {
  s = String(s);
  if (!s.includes("'")) return `'${s}'`;
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

// definitionsReader returns {definitionsLines} in tr's language.
export function definitionsReader({ t }) {
  // importValue writes an argument value typed as the definitions type it:
  // integers and floats as numbers, booleans bare, strings quoted.
  function importValue(key, v) {
    if (typeof v === "boolean") return String(v);
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new UserError(t("js.import.err.number", { key, value: v }));
      return String(v);
    }
    if (typeof v === "string") return importQuoted(v);
    if (Array.isArray(v)) return `[${v.map((x) => (typeof x === "string" ? importQuoted(x) : importValue(key, x))).join(",")}]`;
    throw new UserError(t("js.import.err.value", { key, type: v === null ? "null" : typeof v }));
  }

  function importArgs(args, rename = {}) {
    const out = [];
    for (const [k, v] of Object.entries(args || {})) {
      if (!/^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/.test(k)) throw new UserError(t("js.import.err.name", { name: JSON.stringify(k) }));
      out.push(`${rename[k] ?? k}=${importValue(k, v)}`);
    }
    return out;
  }

  // definitionsLines returns the document's script lines and counts what it
  // imports. Items in vhosts other than / run on a channel @imp-N opened in
  // that vhost, and the others on app.
  function definitionsLines(text) {
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new UserError(t("js.import.err.json", { error: e.message }));
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new UserError(t("js.import.err.doc"));
    const list = (k) => {
      const v = doc[k] ?? [];
      if (!Array.isArray(v)) throw new UserError(t("js.import.err.list", { key: k }));
      return v;
    };
    const lines = [];
    const counts = { vhosts: 0, exchanges: 0, queues: 0, bindings: 0, policies: 0 };
    const channels = new Map();
    const on = (vhost) => {
      vhost = vhost ?? "/";
      if (vhost === "/") return "";
      if (!channels.has(vhost)) {
        const ch = `imp-${channels.size + 1}`;
        channels.set(vhost, ch);
        // open selects the channel it opens: app stays the one the
        // lines without @ run on, those of vhost /.
        lines.push(`open ${ch} vhost=${importWord(vhost)}`, "use app");
      }
      return `@${channels.get(vhost)} `;
    };
    for (const v of list("vhosts")) {
      if (!v?.name || v.name === "/") continue;
      lines.push(`vhost add ${importWord(v.name)}`);
      counts.vhosts++;
    }
    for (const x of list("exchanges")) {
      if (!x?.name || x.name.startsWith("amq.")) continue;
      const parts = [`${on(x.vhost)}declare exchange`, importWord(x.name), importWord(x.type || "direct")];
      if (x.durable) parts.push("durable");
      if (x.auto_delete) parts.push("auto-delete");
      if (x.internal) parts.push("internal");
      parts.push(...importArgs(x.arguments, { "alternate-exchange": "ae" }));
      lines.push(parts.join(" "));
      counts.exchanges++;
    }
    for (const q of list("queues")) {
      if (!q?.name) continue;
      const parts = [`${on(q.vhost)}declare queue`, importWord(q.name)];
      if (q.durable) parts.push("durable");
      if (q.auto_delete) parts.push("auto-delete");
      const args = { ...(q.arguments || {}) };
      if (q.type && q.type !== "classic" && args["x-queue-type"] === undefined) args["x-queue-type"] = q.type;
      parts.push(...importArgs(args));
      lines.push(parts.join(" "));
      counts.queues++;
    }
    for (const b of list("bindings")) {
      if (!b || !b.source) continue; // the default exchange's bindings are implicit
      let parts;
      if (b.destination_type === "exchange") parts = [`${on(b.vhost)}bind exchange`, importWord(b.destination), importWord(b.source)];
      else if (b.destination_type === "queue" || b.destination_type === undefined) parts = [`${on(b.vhost)}bind`, importWord(b.destination), importWord(b.source)];
      else throw new UserError(t("js.import.err.destType", { source: b.source, destination: b.destination, type: JSON.stringify(b.destination_type) }));
      const args = importArgs(b.arguments);
      if (b.routing_key) parts.push(importWord(b.routing_key));
      else if (args.length) parts.push('""');
      parts.push(...args);
      lines.push(parts.join(" "));
      counts.bindings++;
    }
    for (const p of list("policies")) {
      if (!p?.name) continue;
      const parts = ["set_policy"];
      if (p.vhost && p.vhost !== "/") parts.push("-p", importWord(p.vhost));
      parts.push(importQuoted(p.name), importQuoted(p.pattern ?? ""), importQuoted(JSON.stringify(p.definition ?? {})));
      if (p["apply-to"]) parts.push("--apply-to", importWord(p["apply-to"]));
      if (p.priority) parts.push("--priority", String(p.priority));
      lines.push(parts.join(" "));
      counts.policies++;
    }
    return { lines, counts };
  }

  return { definitionsLines };
}

export const { definitionsLines } = definitionsReader(i18n);
