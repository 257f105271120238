// Warren's playground page. The engine runs here as WebAssembly
// (wasm/playground): the global object warren runs script lines and moves
// virtual time, and returns plain objects (see wasm/playground/bridge's
// package comment for their shapes). This file holds no engine logic: the
// forms build script lines and run them through the same path as the
// console, and everything drawn comes from warren.snapshot(), warren.next()
// and the results of each call. The log (warren.log()) is the session:
// rewinding replays a prefix of it, and a share link carries it.

const $ = (id) => document.getElementById(id);

// Limits, so that nothing on the page grows without bound.
const MAX_ENTRIES_SHOWN = 300; // event-log entries kept in the DOM
const MAX_EVENTS_PER_ENTRY = 50; // events drawn per entry; the rest are counted
const MAX_HISTORY = 200; // console history lines
const MAX_OUTPUT_LINES = 40; // console output lines shown per call: the first and last halves
const MAX_SHARE_CHARS = 60000; // a longer share link is refused (URLs that long break in practice)

let w = null; // the engine, once loaded
const consoleHistory = [];
let historyPos = 0;
let entries = []; // {line, result} of every call shown in the event log
let timelineLog = []; // the log the scrubber moves along; after a rewind it still holds the lines ahead
let snap = null; // the last snapshot drawn
let selected = null; // {kind: "ready", queue, id} or {kind: "unacked", channel, tag}
let playing = false;
let pendingMs = 0; // virtual time played but not yet written to the log (see frame)
let lastFrameMs = 0;

// ---------- formatting ----------

function fmtMs(ms) {
  if (ms === null || ms === undefined) return "never";
  const neg = ms < 0;
  ms = Math.abs(Math.round(ms));
  let out;
  if (ms === 0) out = "0s";
  else if (ms < 1000) out = `${ms}ms`;
  else if (ms < 60000) out = `${+(ms / 1000).toFixed(3)}s`;
  else if (ms < 3600000) out = `${Math.floor(ms / 60000)}m${+((ms % 60000) / 1000).toFixed(3)}s`;
  else out = `${Math.floor(ms / 3600000)}h${Math.floor((ms % 3600000) / 60000)}m`;
  return neg ? `-${out}` : out;
}

// el builds an element: el("li", {class: "x", dataset: {testid: "y"}}, child...).
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "onclick") e.addEventListener("click", v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function valueText(v) {
  if (v === null) return "null";
  if (v === "") return '""';
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// ---------- script words ----------

// UserError is a mistake in what the user typed into a form, shown to them;
// any other exception is a bug in this page.
class UserError extends Error {}

// word quotes a value for the script language when it has to: spaces,
// quotes, #, = or emptiness. Quoting a value makes it a string, so numbers
// and durations are passed bare (see numberWord, durationWord).
function word(s) {
  s = String(s);
  if (s !== "" && /^[A-Za-z0-9_.\-:\/*@+,\[\]]+$/.test(s) && !s.startsWith("@")) return s;
  return `"${s.replace(/[\\"]/g, "\\$&")}"`;
}

function numberWord(name, s) {
  if (!/^\d+$/.test(s)) throw new UserError(`${name} must be a whole number, got "${s}"`);
  return s;
}

function durationWord(name, s) {
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d)?)+$/.test(s)) throw new UserError(`${name} must be a duration such as 5s, 250ms or 1m30s, got "${s}"`);
  return s;
}

function channelPrefix(ch) {
  ch = ch.trim();
  if (ch === "") return "";
  if (!/^[A-Za-z0-9_.\-]+$/.test(ch)) throw new UserError(`channel names are letters, digits, _ - and ., got "${ch}"`);
  return `@${ch} `;
}

// lineFor turns a submitted form into one script line.
function lineFor(form, mode) {
  const f = Object.fromEntries(new FormData(form).entries());
  const v = (k) => (f[k] ?? "").trim();
  const parts = [];
  switch (form.dataset.verb) {
    case "declare-queue": {
      parts.push("declare queue", word(v("name")));
      if (v("type")) parts.push(`type=${v("type")}`);
      if (v("ttl")) parts.push(`ttl=${durationWord("Message TTL", v("ttl"))}`);
      if (v("dlx") || v("dlrk")) parts.push(`dlx=${word(v("dlx"))}`); // blank: the default exchange
      if (v("dlrk")) parts.push(`dlrk=${word(v("dlrk"))}`);
      if (v("max-length")) parts.push(`max-length=${numberWord("Max length", v("max-length"))}`);
      if (v("overflow")) parts.push(`overflow=${v("overflow")}`);
      if (v("max-priority")) parts.push(`max-priority=${numberWord("Max priority", v("max-priority"))}`);
      if (v("expires")) parts.push(`expires=${durationWord("Queue expires", v("expires"))}`);
      break;
    }
    case "declare-exchange":
      parts.push("declare exchange", word(v("name")), v("type") || "direct");
      if (v("ae")) parts.push(`ae=${word(v("ae"))}`);
      // x-delayed-type is required by x-delayed-message, and meaningless
      // for the other types: the engine says so if it is given to them.
      if (v("type") === "x-delayed-message") parts.push(`delayed-type=${v("delayed-type") || "direct"}`);
      break;
    case "bind":
      parts.push("bind", word(v("queue")), word(v("exchange")));
      if (v("key")) parts.push(word(v("key")));
      break;
    case "set-policy": {
      // rabbitmqctl's syntax: set_policy NAME PATTERN 'JSON' --apply-to X.
      const def = v("definition");
      let parsed;
      try {
        parsed = JSON.parse(def);
      } catch (e) {
        throw new UserError(`the definition must be JSON, such as {"message-ttl":60000}: ${e.message}`);
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new UserError('the definition must be a JSON object, such as {"message-ttl":60000}');
      if (def.includes("'")) throw new UserError("the definition cannot contain a single quote");
      // An operator policy caps what applications declare (set_operator_policy).
      parts.push(f.operator ? "set_operator_policy" : "set_policy", word(v("name")), word(v("pattern")), `'${def}'`, "--apply-to", v("apply-to") || "queues");
      if (v("priority")) parts.push("--priority", numberWord("Priority", v("priority")));
      break;
    }
    case "publish": {
      parts.push("publish");
      if (v("exchange")) parts.push(word(v("exchange")));
      parts.push(word(v("key")), word(f.body ?? ""));
      if (f.persistent) parts.push("persistent");
      if (v("expiration")) parts.push(`expiration=${durationWord("Expiration", v("expiration"))}`);
      if (v("priority")) parts.push(`priority=${numberWord("Priority", v("priority"))}`);
      for (const h of v("headers").split(/\s+/).filter(Boolean)) {
        const eq = h.indexOf("=");
        if (eq < 1) throw new UserError(`headers are NAME=VALUE separated by spaces, got "${h}"`);
        parts.push(`header.${word(h.slice(0, eq))}=${word(h.slice(eq + 1))}`);
      }
      break;
    }
    case "consume":
      parts.push(channelPrefix(v("channel")) + (mode === "get" ? "get" : "consume"), word(v("queue")));
      if (mode !== "get" && v("prefetch")) parts.push(`prefetch=${numberWord("Prefetch", v("prefetch"))}`);
      if (f["no-ack"]) parts.push("no-ack");
      break;
    case "ack": {
      const tag = v("tag") || "last";
      if (!/^(\d+|last|all)$/.test(tag)) throw new UserError(`a delivery tag is a number, last or all, got "${tag}"`);
      parts.push(channelPrefix(v("channel")) + mode, tag);
      if (f.multiple && mode !== "reject") parts.push("multiple");
      if (!f.requeue && mode !== "ack") parts.push("requeue=false");
      break;
    }
    default:
      throw new Error(`unknown form ${form.dataset.verb}`);
  }
  return parts.join(" ");
}

// ---------- running lines ----------

// commitPending writes time played since the last event into the log, so
// that whatever runs next runs at the time the clock shows.
function commitPending() {
  const ms = Math.floor(pendingMs);
  pendingMs -= ms;
  if (ms >= 1) record(w.advanceBy(ms));
}

// record shows one call's result in the console and the event log.
function record(r, note) {
  // The bridge documents events as never null, but a line without events
  // (advance with nothing due) has answered null: draw it as none.
  if (!Array.isArray(r.events)) r = { ...r, events: [] };
  entries.push({ result: r, note });
  for (const e of r.events) if (FLASH_KINDS.has(e.kind) && e.queue) flashes.add(`${e.vhost}\u0000${e.queue}`);
  noteTokenEvents(r.events);
  if (entries.length > MAX_ENTRIES_SHOWN) entries = entries.slice(-MAX_ENTRIES_SHOWN);
  const out = [];
  if (r.line) out.push(`> ${r.line}`);
  if (note) out.push(note);
  if (r.output) out.push(outputShown(r.output.replace(/\n$/, "")));
  if (r.error) out.push(`error: ${r.error}`);
  $("console-output").textContent = out.join("\n");
  if (r.logged) timelineLog = w.log();
}

// outputShown keeps the console to the first and last MAX_OUTPUT_LINES / 2
// lines of an output: a step that expires 500 messages prints 500 trace
// lines, which the event log lists already, and laying them all out would
// cost more than the step. The last lines hold any error and the verb's
// own output.
function outputShown(text) {
  if (text.split("\n", MAX_OUTPUT_LINES + 2).length <= MAX_OUTPUT_LINES + 1) return text;
  const all = text.split("\n");
  const half = MAX_OUTPUT_LINES / 2;
  return [...all.slice(0, half), `… ${all.length - MAX_OUTPUT_LINES} more lines (the event log lists the events)`, ...all.slice(-half)].join("\n");
}

function run(line) {
  commitPending();
  record(w.exec(line));
  render();
}

function say(text, isError = false) {
  const s = $("status");
  s.textContent = text;
  s.classList.toggle("error", isError);
}

// replayTo rebuilds the session from lines[0:upTo], and the event log with it.
function replayTo(lines, upTo) {
  pendingMs = 0;
  const r = w.replay(lines, upTo);
  if (r.error) {
    say(`Replay failed: ${r.error}`, true);
    return false;
  }
  entries = [];
  for (const res of r.results) record(res);
  flashes = new Set(); // a replay flashes nothing
  tokenEvents = []; // and animates nothing
  timelineLog = lines.slice();
  return true;
}

// ---------- drawing ----------

function render() {
  snap = w.snapshot();
  drawNext();
  drawTopology();
  drawInspector();
  drawEvents();
  drawTimeline();
  drawClock();
  animateTokens(); // last, and only scheduled: tokens never delay the state
}

function viewNow() {
  return (snap ? snap.now : 0) + pendingMs;
}

// drawClock shows the time, and moves the expiry countdowns of the queue
// cards in view (every frame while playing). A card is drawn with its
// countdowns filled in (drawQueue); one out of view is brought up to date
// when it scrolls in (cardWatcher), so that a step with 10,000 messages
// does not rewrite hundreds of countdowns nobody sees.
function drawClock() {
  const now = viewNow();
  $("clock").textContent = fmtMs(now);
  for (const card of cardsInView) drawCountdowns(card, now);
}

function countdownText(atMs, now) {
  const left = atMs - now;
  return left > 0 ? `expires in ${fmtMs(left)}` : `TTL passed ${fmtMs(-left)} ago`;
}

// drawCountdowns writes the countdowns of one card ({e, at, text}, made by
// drawQueue) whose text changed.
function drawCountdowns(card, now) {
  for (const c of card._countdowns) {
    const text = countdownText(c.at, now);
    if (text !== c.text) c.e.textContent = c.text = text;
  }
}

// The queue cards with countdowns that are watched, and those of them in
// view. Without IntersectionObserver every watched card counts as in view.
const watchedCards = new Set();
const cardsInView = new Set();
const cardWatcher =
  typeof IntersectionObserver === "function"
    ? new IntersectionObserver((seen) => {
        for (const e of seen) {
          if (!watchedCards.has(e.target)) continue;
          if (!e.isIntersecting) cardsInView.delete(e.target);
          else if (!cardsInView.has(e.target)) {
            cardsInView.add(e.target);
            drawCountdowns(e.target, viewNow());
          }
        }
      })
    : null;

function watchCard(card) {
  watchedCards.add(card);
  if (cardWatcher) cardWatcher.observe(card);
  else cardsInView.add(card);
}

// forgetGoneCards stops watching the cards a redraw took out of the page.
function forgetGoneCards() {
  for (const card of watchedCards) {
    if (card.isConnected) continue;
    watchedCards.delete(card);
    cardsInView.delete(card);
    cardWatcher?.unobserve(card);
  }
}

function timerText(t) {
  const what = t.queue !== undefined ? `queue ${t.queue}` : t.exchange !== undefined ? `exchange ${t.exchange}` : t.channel ? `channel ${t.channel}` : "";
  const msg = t.msgId ? ` message #${t.msgId}` : "";
  return `${t.kind} (${what}${msg}) at ${fmtMs(t.at)}, in ${fmtMs(t.at - viewNow())}`;
}

function drawNext() {
  const t = w.next();
  $("next-timer").textContent = t ? timerText(t) : "none";
  $("step").disabled = !t;
}

function argTags(q) {
  const e = q.effective;
  const tags = [];
  tags.push(["type", q.type]);
  if (e.messageTtlMs !== null) tags.push(["TTL", fmtMs(e.messageTtlMs)]);
  if (e.deadLetterExchange !== null) tags.push(["DLX", e.deadLetterExchange === "" ? "(default)" : e.deadLetterExchange]);
  if (e.deadLetterRoutingKey !== null) tags.push(["DL key", e.deadLetterRoutingKey]);
  if (e.maxLength !== null) tags.push(["max-length", e.maxLength]);
  if (e.maxLengthBytes !== null) tags.push(["max-bytes", e.maxLengthBytes]);
  if (e.maxLength !== null || e.maxLengthBytes !== null) tags.push(["overflow", e.overflow]);
  if (e.maxPriority !== null) tags.push(["max-priority", e.maxPriority]);
  if (e.expiresMs !== null) tags.push(["expires", fmtMs(e.expiresMs)]);
  if (e.deliveryLimit !== null) tags.push(["delivery-limit", e.deliveryLimit]);
  if (e.policy) tags.push(["policy", e.policy]);
  if (e.operatorPolicy) tags.push(["operator policy", e.operatorPolicy]);
  if (q.durable) tags.push(["durable", "yes"]);
  return el("div", { class: "args" }, tags.map(([k, v]) => el("span", { class: "arg" }, `${k}: ${v}`)));
}

function isSelected(kind, a, b) {
  return !!selected && selected.kind === kind && selected.a === a && selected.b === b;
}

function msgButton(m, kind, a, b, label, tags, testid) {
  return el(
    "button",
    {
      type: "button",
      class: `msg${m.expired ? " expired" : ""}`,
      "aria-pressed": isSelected(kind, a, b) ? "true" : "false",
      dataset: { testid, msgId: String(m.id) },
      onclick: (e) => {
        selected = { kind, a, b };
        const hadFocus = document.activeElement === e.currentTarget;
        render();
        // The card was redrawn with the selection: give the new button the
        // focus the old one had, or a keyboard user is sent back to the top.
        if (hadFocus) document.querySelector(`button.msg[aria-pressed="true"][data-msg-id="${m.id}"]`)?.focus();
      },
    },
    el("span", { class: "mono" }, label),
    " ",
    m.body.length > 40 ? `${m.body.slice(0, 40)}…` : m.body,
    tags,
  );
}

function drawQueue(q) {
  const now = viewNow();
  const countdowns = []; // {e, at, text}: see drawCountdowns
  const countdown = (atMs) => {
    const text = countdownText(atMs, now);
    const e = el("span", { class: "tag", dataset: { expiresAt: String(atMs) } }, text);
    countdowns.push({ e, at: atMs, text });
    return e;
  };
  const ready = q.ready.map((m, i) =>
    el(
      "li",
      {},
      msgButton(m, "ready", q.name, m.id, `${i + 1}. #${m.id}`, [
        m.priority ? el("span", { class: "tag" }, `priority ${m.priority}`) : null,
        m.redelivered ? el("span", { class: "tag redelivered", dataset: { testid: "msg-redelivered" } }, `redelivered ×${m.deliveries}`) : null,
        m.expired ? el("span", { class: "tag warn", dataset: { testid: "msg-expired" } }, "expired, still queued behind a live head") : null,
        m.expiresAt !== null && !m.expired ? countdown(m.expiresAt) : null,
      ], "msg"),
    ),
  );
  const more = q.readyCount > q.ready.length ? el("li", { class: "hint" }, `… and ${q.readyCount - q.ready.length} more`) : null;
  const card = el(
    "div",
    { class: "card", dataset: { testid: "queue", queue: q.name } },
    el("h4", {}, "queue ", el("span", { class: "mono" }, q.name)),
    argTags(q),
    el(
      "div",
      { class: "counts" },
      `ready ${q.readyCount}, unacked ${q.unacked}`,
      q.expired ? `, expired but queued ${q.expired}` : "",
      q.consumers.length ? `, consumers: ${q.consumers.map((c) => `${c.tag} on ${c.channel}${c.prefetch ? ` (prefetch ${c.prefetch})` : ""}${c.active ? "" : " (waiting)"}`).join(", ")}` : "",
    ),
    el("ol", { class: "msgs", "aria-label": `messages ready in ${q.name}` }, ready, more),
  );
  card._countdowns = countdowns;
  if (countdowns.length) watchCard(card);
  return card;
}

// reconcile makes parent's children the nodes of items ({key, build}) in
// order, keeping each child whose key is unchanged at its place and
// building only the others: a step that changes one queue redraws one
// card, and the browser restyles only what was replaced. Returns whether
// anything changed.
function reconcile(parent, items) {
  const old = parent._keys || [];
  const kids = parent.children;
  let changed = false;
  items.forEach(({ key, build }, i) => {
    if (old[i] === key && kids[i]) return;
    changed = true;
    const node = build();
    if (kids[i]) parent.replaceChild(node, kids[i]);
    else parent.append(node);
  });
  while (kids.length > items.length) {
    kids[kids.length - 1].remove();
    changed = true;
  }
  parent._keys = items.map((it) => it.key);
  return changed;
}

// selKey is the part of the selection a card with messages of kind in a
// shows (which message is pressed), for the card's key.
function selKey(kind, a) {
  return selected && selected.kind === kind && selected.a === a ? String(selected.b) : "";
}

// noMessages leaves the message lists out of a vhost's JSON: the diagram
// shows only counts, so listing a message does not redraw it.
function noMessages(k, val) {
  return k === "ready" || (k === "unacked" && Array.isArray(val)) ? undefined : val;
}

function drawChannel(ch) {
  return el(
    "div",
    { class: "card", dataset: { testid: "channel", channel: ch.name } },
    el("h4", {}, "channel ", el("span", { class: "mono" }, ch.name)),
    el(
      "div",
      { class: "counts" },
      `unacked ${ch.unackedCount}`,
      ch.prefetch ? `, prefetch ${ch.prefetch}` : "",
      ch.confirm ? ", confirms" : "",
      ch.tx ? ", tx" : "",
      ch.consumers.length ? `, consumers ${ch.consumers.join(", ")}` : "",
    ),
    el(
      "ol",
      { class: "msgs" },
      ch.unacked.map((u) =>
        el(
          "li",
          {},
          msgButton(u, "unacked", ch.name, u.deliveryTag, `tag ${u.deliveryTag} from ${u.queue}`, [
            u.consumerTag ? el("span", { class: "tag" }, u.consumerTag) : el("span", { class: "tag" }, "basic.get"),
            u.redelivered ? el("span", { class: "tag redelivered" }, "redelivered") : null,
          ], "unacked"),
        ),
      ),
    ),
  );
}

// drawTopology keeps the topology panel in step with snap. The panel is a
// list of keyed parts (headings, the diagram, the exchange and binding
// lists, the card grids) and each card grid a list of keyed cards; see
// reconcile. A key is the JSON of what the part draws.
let flashDraws = 0;
function drawTopology() {
  const root = $("topology");
  const parts = [];
  const grids = []; // [key of the grid part, cards]
  const part = (key, build) => parts.push({ key, build });
  for (const v of snap.vhosts) {
    const busy = v.queues.length || v.connections.length || v.exchanges.some((x) => x.name !== "" && !x.name.startsWith("amq."));
    if (v.name !== "/" && !busy) continue;
    const idx = snap.vhosts.indexOf(v);
    const vk = JSON.stringify([v.name, idx]);
    if (snap.vhosts.length > 1) part(`vhost${vk}`, () => el("h3", {}, `vhost ${v.name}`));
    const vflash = v.queues.filter((q) => flashes.has(`${v.name}\u0000${q.name}`)).map((q) => q.name);
    // A diagram that flashes is always drawn anew, so that it flashes again.
    const dkey = `diagram${vk}${JSON.stringify(v, noMessages)}${vflash.length ? ++flashDraws : ""}`;
    part(dkey, () => {
      const diagram = drawDiagram(v, idx);
      return diagram ? el("div", { class: "diagram-wrap" }, diagram) : el("div", { hidden: true });
    });
    const exchanges = v.exchanges.filter((x) => x.name !== "" && !x.name.startsWith("amq."));
    part("h:Exchanges", () => el("h3", {}, "Exchanges"));
    part(`exchanges${vk}${JSON.stringify(exchanges)}`, () =>
      exchanges.length
        ? el(
            "ul",
            { dataset: { testid: "exchanges" } },
            exchanges.map((x) =>
              el(
                "li",
                { dataset: { testid: "exchange", exchange: x.name } },
                el("span", { class: "mono" }, x.name),
                ` ${x.type}`,
                x.alternate ? ` (alternate: ${x.alternate})` : "",
                Object.keys(x.args).length ? ` ${JSON.stringify(x.args)}` : "",
                x.heldCount ? ` holding ${x.heldCount} delayed` : "",
              ),
            ),
          )
        : el("p", { class: "hint" }, "Only the default and amq.* exchanges (not shown)."),
    );
    part("h:Bindings", () => el("h3", {}, "Bindings"));
    part(`bindings${vk}${JSON.stringify(v.bindings)}`, () =>
      v.bindings.length
        ? el(
            "ul",
            { dataset: { testid: "bindings" } },
            v.bindings.map((b) =>
              el("li", { dataset: { testid: "binding" } }, el("span", { class: "mono" }, `${b.source || "(default)"} → ${b.destinationType} ${b.destination}`), b.routingKey ? ` key ${b.routingKey}` : "", Object.keys(b.args).length ? ` ${JSON.stringify(b.args)}` : ""),
            ),
          )
        : el("p", { class: "hint" }, "No bindings besides the default exchange's."),
    );
    part("h:Queues", () => el("h3", {}, "Queues"));
    if (v.queues.length) {
      const key = `queues${vk}`;
      part(key, () => el("div", { class: "cards" }));
      grids.push([parts.length - 1, v.queues.map((q) => ({ key: `${JSON.stringify(q)}${selKey("ready", q.name)}`, build: () => drawQueue(q) }))]);
    } else part("no-queues", () => el("p", { class: "hint" }, "No queues yet: declare one with the form or the console."));
    const channels = v.connections.flatMap((c) => c.channels);
    if (channels.length) {
      part("h:Channels", () => el("h3", {}, "Channels and unacked deliveries"));
      part(`channels${vk}`, () => el("div", { class: "cards" }));
      grids.push([parts.length - 1, channels.map((ch) => ({ key: `${JSON.stringify(ch)}${selKey("unacked", ch.name)}`, build: () => drawChannel(ch) }))]);
    }
  }
  let changed = reconcile(root, parts);
  for (const [i, cards] of grids) if (reconcile(root.children[i], cards)) changed = true;
  if (changed) forgetGoneCards();
  flashSoon(root);
}

// ---------- diagram ----------

// The diagram draws one vhost's topology as inline SVG: exchanges in the
// left column, queues in the right, bindings as solid arrows labelled with
// their routing keys, dead-letter links (queue → its dead-letter exchange)
// and alternate-exchange links as dashed arrows of their own colours. The
// lists below it say the same in text, and stay the accessible alternative.

const SVGNS = "http://www.w3.org/2000/svg";
const FLASH_KINDS = new Set(["enqueued", "delivered", "dead-lettered", "expired"]);
const FLASH_MS = 600;
let flashes = new Set(); // vhost + "\u0000" + queue, for the queues the last calls touched
const diagrams = new Map(); // vhost → its last drawn diagram <svg>, with its geometry (see animateTokens)

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, String(v));
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const exchangeLabel = (name) => (name === "" ? "(default)" : name);

// diagramModel picks what the diagram shows: the exchanges the lists show,
// plus the default and amq.* exchanges when a binding, a dead-letter link
// or an alternate-exchange link involves them (the default exchange's
// implicit bindings are not drawn), and any such target that does not exist.
function diagramModel(v) {
  const byName = new Map(v.exchanges.map((x) => [x.name, x]));
  const shown = new Set(v.exchanges.filter((x) => x.name !== "" && !x.name.startsWith("amq.")).map((x) => x.name));
  const bindings = new Map(); // source, type, destination → routing keys
  for (const b of v.bindings) {
    if (b.source === "") continue; // implicit
    shown.add(b.source);
    if (b.destinationType === "exchange") shown.add(b.destination);
    const k = JSON.stringify([b.source, b.destinationType, b.destination]);
    if (!bindings.has(k)) bindings.set(k, { source: b.source, destType: b.destinationType, dest: b.destination, keys: [] });
    bindings.get(k).keys.push(b.routingKey);
  }
  const dlx = v.queues.filter((q) => q.effective.deadLetterExchange !== null).map((q) => ({ queue: q.name, exchange: q.effective.deadLetterExchange, key: q.effective.deadLetterRoutingKey }));
  for (const d of dlx) shown.add(d.exchange);
  const ae = [];
  for (let grown = true; grown; ) {
    grown = false;
    for (const x of v.exchanges) {
      if (!x.alternate || !shown.has(x.name) || ae.some((a) => a.source === x.name)) continue;
      ae.push({ source: x.name, target: x.alternate });
      if (!shown.has(x.alternate)) shown.add(x.alternate);
      grown = true;
    }
  }
  const exchanges = v.exchanges.filter((x) => shown.has(x.name));
  for (const name of [...shown].filter((n) => !byName.has(n)).sort()) exchanges.push({ name, type: "missing", missing: true });
  return { exchanges, queues: v.queues, bindings: [...bindings.values()], dlx, ae };
}

function queueArgsText(q) {
  const e = q.effective;
  const parts = [q.type];
  if (e.messageTtlMs !== null) parts.push(`TTL ${fmtMs(e.messageTtlMs)}`);
  if (e.deadLetterExchange !== null) parts.push(`DLX ${exchangeLabel(e.deadLetterExchange)}`);
  if (e.maxLength !== null) parts.push(`max-length ${e.maxLength}`);
  if (e.maxLengthBytes !== null) parts.push(`max-bytes ${e.maxLengthBytes}`);
  // Lines of at most 34 characters, which fit the box.
  const lines = [];
  for (const p of parts) {
    if (lines.length && lines[lines.length - 1].length + p.length + 3 <= 34) lines[lines.length - 1] += ` · ${p}`;
    else lines.push(clip(p, 34));
  }
  return lines;
}

function drawDiagram(v, idx) {
  const m = diagramModel(v);
  if (!m.exchanges.length && !m.queues.length) return null;
  const W = 680, PAD = 12, GAP = 14;
  const EX_X = 90, EX_W = 180, EX_H = 42, Q_W = 210, Q_X = W - Q_W - PAD;
  const boxes = new Map(); // "x:" or "q:" + name → {x, y, w, h}
  let y = PAD;
  for (const x of m.exchanges) {
    boxes.set(`x:${x.name}`, { x: EX_X, y, w: EX_W, h: EX_H });
    y += EX_H + GAP;
  }
  let exBottom = y;
  y = PAD;
  const qLines = new Map();
  for (const q of m.queues) {
    const lines = queueArgsText(q);
    qLines.set(q.name, lines);
    const h = 38 + 13 * lines.length;
    boxes.set(`q:${q.name}`, { x: Q_X, y, w: Q_W, h });
    y += h + GAP;
  }
  const LEGEND_H = 26;
  const H = Math.max(exBottom, y, 60) + LEGEND_H;
  const id = (s) => `${s}-${idx}`;

  const marker = (name, cls) =>
    svg("marker", { id: id(name), viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: cls }));
  const defs = svg("defs", {}, marker("arrow-binding", "head binding"), marker("arrow-dlx", "head dlx"), marker("arrow-ae", "head ae"));

  const edgeLabel = (x, y, text, cls = "") => svg("text", { x, y, class: `edge-label ${cls}`, "text-anchor": "middle" }, clip(text, 28));
  const links = [];
  // arrows keeps each binding and alternate-exchange arrow as what it
  // links ("x:NAME" or "q:NAME") and its cubic Bézier ([x1, y1, c1x, c1y,
  // c2x, c2y, x2, y2]), and dlxCurves each queue's dead-letter arrow, so
  // that tokens can travel along them.
  const arrows = [];
  const dlxCurves = new Map();
  const cubic = (c) => `M${c[0]},${c[1]} C${c[2]},${c[3]} ${c[4]},${c[5]} ${c[6]},${c[7]}`;
  const leftCurve = (a, b, fa, fb, off) => {
    const x1 = a.x, y1 = a.y + a.h * fa, x2 = b.x, y2 = b.y + b.h * fb;
    const c = [x1, y1, x1 - off, y1, x2 - off, y2, x2, y2];
    return { c, d: cubic(c), lx: x1 - off * 0.75, ly: (y1 + y2) / 2 };
  };
  for (const b of m.bindings) {
    const src = boxes.get(`x:${b.source}`);
    const dst = boxes.get(`${b.destType === "exchange" ? "x" : "q"}:${b.dest}`);
    if (!src || !dst) continue;
    const keys = b.keys.map((k) => (k === "" ? '""' : k)).join(", ");
    let c, d, lx, ly;
    if (b.destType === "exchange") {
      ({ c, d, lx, ly } = leftCurve(src, dst, 0.35, 0.35, Math.min(70, 30 + Math.abs(dst.y - src.y) / 6)));
    } else {
      const x1 = src.x + src.w, y1 = src.y + src.h * 0.4, x2 = dst.x, y2 = queueEntryY(dst);
      c = [x1, y1, x1 + 70, y1, x2 - 70, y2, x2, y2];
      d = cubic(c);
      lx = (x1 + x2) / 2;
      ly = (y1 + y2) / 2 - 3;
    }
    arrows.push({ from: `x:${b.source}`, to: `${b.destType === "exchange" ? "x" : "q"}:${b.dest}`, c });
    links.push(
      svg(
        "g",
        { class: "link binding", "data-testid": `diagram-binding-${b.source}-${b.dest}` },
        svg("title", {}, `binding ${b.source} → ${b.destType} ${b.dest}, key ${keys}`),
        svg("path", { d, class: "edge binding", "marker-end": `url(#${id("arrow-binding")})` }),
        edgeLabel(lx, ly, keys),
      ),
    );
  }
  for (const l of m.dlx) {
    const q = boxes.get(`q:${l.queue}`), x = boxes.get(`x:${l.exchange}`);
    if (!q || !x) continue;
    const x1 = q.x, y1 = q.y + q.h * 0.72, x2 = x.x + x.w, y2 = x.y + x.h * 0.75;
    const c = [x1, y1, x1 - 70, y1, x2 + 70, y2, x2, y2];
    dlxCurves.set(l.queue, c);
    links.push(
      svg(
        "g",
        { class: "link dlx", "data-testid": `diagram-link-dlx-${l.queue}` },
        svg("title", {}, `queue ${l.queue} dead-letters to exchange ${exchangeLabel(l.exchange)}${l.key !== null ? ` with routing key ${l.key}` : ""}`),
        svg("path", { d: cubic(c), class: "edge dlx", "stroke-dasharray": "6 4", "marker-end": `url(#${id("arrow-dlx")})` }),
        l.key !== null ? edgeLabel((x1 + x2) / 2, (y1 + y2) / 2 + 11, `key ${l.key}`, "dlx") : null,
      ),
    );
  }
  for (const a of m.ae) {
    const s = boxes.get(`x:${a.source}`), t = boxes.get(`x:${a.target}`);
    if (!s || !t) continue;
    const { c, d } = leftCurve(s, t, 0.7, 0.7, Math.min(85, 40 + Math.abs(t.y - s.y) / 6));
    arrows.push({ from: `x:${a.source}`, to: `x:${a.target}`, c });
    links.push(
      svg(
        "g",
        { class: "link ae", "data-testid": `diagram-link-ae-${a.source}` },
        svg("title", {}, `exchange ${a.source} has alternate exchange ${a.target}`),
        svg("path", { d, class: "edge ae", "stroke-dasharray": "2 4", "marker-end": `url(#${id("arrow-ae")})` }),
      ),
    );
  }

  const exGroups = m.exchanges.map((x) => {
    const b = boxes.get(`x:${x.name}`);
    return svg(
      "g",
      { class: `dx${x.missing ? " missing" : ""}`, "data-testid": `diagram-exchange-${x.name}` },
      svg("title", {}, x.missing ? `exchange ${exchangeLabel(x.name)} (not declared)` : `exchange ${exchangeLabel(x.name)}, ${x.type}`),
      svg("rect", { class: "box", x: b.x, y: b.y, width: b.w, height: b.h, rx: 5 }),
      svg("text", { class: "name", x: b.x + 8, y: b.y + 17 }, clip(exchangeLabel(x.name), 24)),
      svg("text", { class: "sub", x: b.x + 8, y: b.y + 33 }, x.missing ? "not declared" : `${x.type}${x.heldCount ? ` · holding ${x.heldCount}` : ""}`),
    );
  });
  const consumerAt = new Map(); // queue + "\u0000" + consumer tag → the centre of its circle
  const qGroups = m.queues.map((q) => {
    const b = boxes.get(`q:${q.name}`);
    const flash = flashes.has(`${v.name}\u0000${q.name}`);
    const shownConsumers = q.consumers.slice(0, 6);
    shownConsumers.forEach((c, i) => consumerAt.set(`${q.name}\u0000${c.tag}`, { x: b.x + b.w - 10 - i * 13, y: b.y + 11 }));
    return svg(
      "g",
      { class: `dq${flash ? " flash" : ""}`, "data-testid": `diagram-queue-${q.name}` },
      svg("title", {}, `queue ${q.name}: ${q.readyCount} ready, ${q.unacked} unacked${q.expired ? `, ${q.expired} expired` : ""}, ${q.consumers.length} consumers`),
      svg("rect", { class: "box", x: b.x, y: b.y, width: b.w, height: b.h, rx: 5 }),
      svg("text", { class: "name", x: b.x + 8, y: b.y + 16 }, clip(q.name, 22)),
      svg(
        "text",
        { class: "sub", x: b.x + 8, y: b.y + 31 },
        svg("tspan", { "data-testid": "diagram-ready" }, `${q.readyCount} ready`),
        q.unacked ? ` · ${q.unacked} unacked` : "",
        q.expired ? svg("tspan", { class: "expired", "data-testid": "diagram-expired" }, ` · ${q.expired} expired`) : "",
      ),
      qLines.get(q.name).map((line, i) => svg("text", { class: "args", x: b.x + 8, y: b.y + 45 + 13 * i }, line)),
      shownConsumers.map((c, i) =>
        svg("circle", { class: `consumer${c.active ? "" : " waiting"}`, cx: b.x + b.w - 10 - i * 13, cy: b.y + 11, r: 4.5, "data-testid": "diagram-consumer" }, svg("title", {}, `consumer ${c.tag} on channel ${c.channel}${c.active ? "" : " (waiting)"}`)),
      ),
      q.consumers.length > shownConsumers.length ? svg("text", { class: "sub", x: b.x + b.w - 10 - shownConsumers.length * 13, y: b.y + 15, "text-anchor": "end" }, `+${q.consumers.length - shownConsumers.length}`) : null,
    );
  });

  const ly = H - LEGEND_H / 2;
  const legendItem = (x, cls, dash, marker, text) => [
    svg("line", { x1: x, y1: ly, x2: x + 28, y2: ly, class: `edge ${cls}`, "stroke-dasharray": dash, "marker-end": `url(#${id(marker)})` }),
    svg("text", { x: x + 34, y: ly + 4, class: "sub" }, text),
  ];
  const legend = svg(
    "g",
    { class: "legend", "data-testid": "diagram-legend" },
    legendItem(PAD, "binding", null, "arrow-binding", "binding (routing key)"),
    legendItem(190, "dlx", "6 4", "arrow-dlx", "dead-letter"),
    legendItem(320, "ae", "2 4", "arrow-ae", "alternate exchange"),
    svg("circle", { class: "consumer", cx: 480, cy: ly, r: 4.5 }),
    svg("text", { x: 490, y: ly + 4, class: "sub" }, "consumer"),
  );

  const nx = m.exchanges.length, nq = m.queues.length;
  const root = svg(
    "svg",
    { class: "diagram", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": `${id("diagram-title")} ${id("diagram-desc")}`, "data-testid": "diagram", "data-vhost": v.name },
    svg("title", { id: id("diagram-title") }, `Topology diagram of vhost ${v.name}`),
    svg(
      "desc",
      { id: id("diagram-desc") },
      `${nx} exchange${nx === 1 ? "" : "s"} on the left, ${nq} queue${nq === 1 ? "" : "s"} on the right, ${m.bindings.length} binding arrows, ${m.dlx.length} dead-letter links and ${m.ae.length} alternate-exchange links. The lists below describe the same topology as text.`,
    ),
    defs,
    links,
    exGroups,
    qGroups,
    legend,
  );
  root._geometry = { boxes, arrows, dlxCurves, consumerAt, publisherX: PAD };
  diagrams.set(v.name, root);
  return root;
}

// queueEntryY is where binding arrows (and tokens) enter a queue's box.
const queueEntryY = (b) => b.y + Math.min(b.h * 0.35, 20);

// flashSoon takes the queue boxes that flash off again after FLASH_MS.
function flashSoon(root) {
  const boxes = root.querySelectorAll(".dq.flash");
  if (boxes.length) setTimeout(() => boxes.forEach((b) => b.classList.remove("flash")), FLASH_MS);
  flashes = new Set();
}

// ---------- tokens ----------

// Every call's message events are animated on the diagram as tokens: a
// small dot per message that travels the arrow an event implies (published:
// from the publisher's side into the exchange; enqueued: along the binding
// into the queue; delivered: to the consumer; dead-lettered: along the
// dead-letter arrow; returned: back out of the exchange) or fades where an
// event ends a copy (acked green, expired and purged grey, rejected,
// overflowed and dropped red). Tokens are decoration: the state is drawn
// first and at once, tokens start two frames later, and each removes itself
// when its animation ends (or with the diagram, when a later call redraws
// it). The events are only drawn, never interpreted: a token follows the
// arrows that join what the event names, or a straight line when none do.
//
// A message's events chain: each leg starts when the one before it ends
// (published, then enqueued, then delivered, then acked), up to
// MAX_TOKEN_LEGS legs. Only the first MAX_TOKEN_MESSAGES messages of a call
// (a dead-lettered copy counts as its original) get tokens, at most
// MAX_TOKENS in all; the flash of the queue boxes stands for the rest.
const TOKEN_LEG_MS = 420;
const MAX_TOKEN_LEGS = 4;
const MAX_TOKEN_MESSAGES = 8;
const MAX_TOKENS = 30;
// A call that comes less than one leg after the last animated one (playing
// at 100×, say) gets no tokens: the page would only start and cancel them.
const TOKEN_GAP_MS = TOKEN_LEG_MS;
const TOKEN_SAMPLES = 12; // points per curve a moving token's keyframes visit
const reducedMotion = globalThis.matchMedia ? matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
let tokenEvents = []; // the message events of the calls since the last render; replayTo empties it
let tokenFrame = 0; // the pending requestAnimationFrame for startTokens
let lastTokensAt = -Infinity;
let liveTokens = []; // the animations of the last batch

// noteTokenEvents keeps a call's message events for the next render's tokens.
function noteTokenEvents(events) {
  if (reducedMotion.matches) return;
  for (const e of events) if (e.msgId && TOKEN_KINDS.has(e.kind)) tokenEvents.push(e);
}

// animateTokens is render's last step: it hands the events to the frame
// after next, so that the state the call made is painted first.
function animateTokens() {
  const events = tokenEvents;
  tokenEvents = [];
  if (!events.length || reducedMotion.matches) return;
  const now = performance.now();
  if (now - lastTokensAt < TOKEN_GAP_MS) return;
  lastTokensAt = now;
  cancelAnimationFrame(tokenFrame);
  tokenFrame = requestAnimationFrame(() => (tokenFrame = requestAnimationFrame(() => startTokens(events))));
}

// TOKEN_KINDS are the events that carry a message and have a token.
const TOKEN_KINDS = new Set(["published", "enqueued", "delayed", "returned", "delivered", "acked", "requeued", "rejected", "expired", "overflowed", "delivery-limited", "purged", "discarded", "dead-lettered", "dropped"]);

// planTokens turns events (in order) into tokens: {vhost, kind, msgId,
// leg, from, to, points} for moves, {…, at} for fades. legOf remembers,
// per message and per message copy in a queue, the leg its next event
// starts at; routedVia the exchange a message was published or
// dead-lettered to.
function planTokens(events) {
  const tokens = [];
  const legOf = new Map();
  const routedVia = new Map();
  const rootOf = new Map(); // message id → the message its chain started with
  const roots = new Set();
  const geoOf = (vhost) => {
    const d = diagrams.get(vhost);
    return d && d.isConnected ? d._geometry : null;
  };
  for (const e of events) {
    const root = rootOf.get(e.msgId) ?? e.msgId;
    if (!roots.has(root)) {
      if (roots.size >= MAX_TOKEN_MESSAGES) continue;
      roots.add(root);
    }
    const g = geoOf(e.vhost);
    if (!g) continue;
    const msg = `${e.msgId}`;
    const copy = `${e.msgId}\u0000${e.queue}`;
    const leg = legOf.get(e.queue ? copy : msg) ?? legOf.get(msg) ?? 0;
    const next = (key, l = leg + 1) => legOf.set(key, l);
    const add = (t) => {
      if (leg < MAX_TOKEN_LEGS && tokens.length < MAX_TOKENS) tokens.push({ vhost: e.vhost, kind: e.kind, msgId: e.msgId, leg, ...t });
    };
    const qb = e.queue !== undefined ? g.boxes.get(`q:${e.queue}`) : null;
    const xb = e.exchange !== undefined ? g.boxes.get(`x:${e.exchange}`) : null;
    const inQueue = qb && { x: qb.x + 14, y: queueEntryY(qb) };
    const consumer = qb && (g.consumerAt.get(`${e.queue}\u0000${e.consumer}`) ?? { x: qb.x + qb.w - 6, y: qb.y + 11 });
    switch (e.kind) {
      case "published":
        routedVia.set(e.msgId, e.exchange);
        if (xb) {
          const y = xb.y + xb.h / 2;
          add({ from: "publisher", to: `x:${e.exchange}`, points: line({ x: g.publisherX, y }, { x: xb.x, y }) });
          next(msg);
        }
        break;
      case "enqueued":
        if (qb) {
          const via = routedVia.get(e.msgId);
          add({ from: via !== undefined && g.boxes.has(`x:${via}`) ? `x:${via}` : "left", to: `q:${e.queue}`, points: routePoints(g, via, e.queue) });
          next(copy);
        }
        break;
      case "delayed":
        if (xb) add({ at: { x: xb.x + xb.w / 2, y: xb.y + xb.h / 2 }, to: `x:${e.exchange}` });
        break;
      case "returned":
        if (xb) {
          const y = xb.y + xb.h / 2;
          add({ from: `x:${e.exchange}`, to: "publisher", points: line({ x: xb.x, y }, { x: g.publisherX, y }) });
        }
        break;
      case "delivered":
        if (qb) {
          add({ from: `q:${e.queue}`, to: `consumer:${e.consumer ?? ""}`, points: line(inQueue, consumer) });
          next(copy);
        }
        break;
      case "requeued":
        if (qb) {
          add({ from: `consumer:${e.consumer ?? ""}`, to: `q:${e.queue}`, points: line(consumer, inQueue) });
          next(copy);
        }
        break;
      case "acked":
      case "rejected":
        if (qb) add({ at: consumer, to: `q:${e.queue}` });
        break;
      case "dead-lettered": {
        rootOf.set(e.newMsgId, root);
        routedVia.set(e.newMsgId, e.exchange);
        const c = g.dlxCurves.get(e.queue);
        const points = c ? bezierPoints(c) : qb && xb ? line({ x: qb.x, y: qb.y + qb.h * 0.72 }, { x: xb.x + xb.w, y: xb.y + xb.h * 0.75 }) : null;
        if (points) add({ from: `q:${e.queue}`, to: `x:${e.exchange}`, points });
        legOf.set(`${e.newMsgId}`, points ? leg + 1 : leg);
        break;
      }
      case "dropped":
        // Its queue or exchange: where the message was when nothing took it.
        if (qb) add({ at: inQueue, to: `q:${e.queue}` });
        else if (xb) add({ at: { x: xb.x + xb.w - 10, y: xb.y + xb.h / 2 }, to: `x:${e.exchange}` });
        break;
      default: // expired, overflowed, delivery-limited, purged, discarded: the copy ends in its queue
        if (qb) add({ at: inQueue, to: `q:${e.queue}` });
        next(copy);
    }
  }
  return tokens;
}

// routePoints is the way into queue from exchange via: the binding arrow;
// else an exchange-to-exchange binding or alternate-exchange arrow and then
// a binding arrow; else a straight line from via's box; else (the default
// exchange, which the diagram leaves out) a short line in from the left.
function routePoints(g, via, queue) {
  const qb = g.boxes.get(`q:${queue}`);
  const end = { x: qb.x, y: queueEntryY(qb) };
  if (via === undefined || !g.boxes.has(`x:${via}`)) return line({ x: qb.x - 60, y: end.y }, end);
  const from = `x:${via}`, to = `q:${queue}`;
  const direct = g.arrows.find((a) => a.from === from && a.to === to);
  if (direct) return bezierPoints(direct.c);
  for (const a of g.arrows) {
    if (a.from !== from || !a.to.startsWith("x:")) continue;
    const onward = g.arrows.find((b) => b.from === a.to && b.to === to);
    if (onward) return [...bezierPoints(a.c), ...bezierPoints(onward.c)];
  }
  const xb = g.boxes.get(`x:${via}`);
  return line({ x: xb.x + xb.w, y: xb.y + xb.h * 0.4 }, end);
}

function bezierPoints(c) {
  const pts = [];
  for (let i = 0; i <= TOKEN_SAMPLES; i++) {
    const t = i / TOKEN_SAMPLES, u = 1 - t;
    const a = u * u * u, b = 3 * u * u * t, d = 3 * u * t * t, e = t * t * t;
    pts.push({ x: a * c[0] + b * c[2] + d * c[4] + e * c[6], y: a * c[1] + b * c[3] + d * c[5] + e * c[7] });
  }
  return pts;
}

function line(p, q) {
  return bezierPoints([p.x, p.y, p.x + (q.x - p.x) / 3, p.y + (q.y - p.y) / 3, p.x + ((q.x - p.x) * 2) / 3, p.y + ((q.y - p.y) * 2) / 3, q.x, q.y]);
}

// startTokens draws the tokens of events, replacing the last batch's.
function startTokens(events) {
  for (const a of liveTokens) a.cancel();
  liveTokens = [];
  const tokens = planTokens(events);
  if (!tokens.length) return;
  const titles = messageTitles(new Set(tokens.map((t) => t.msgId)));
  for (const t of tokens) {
    const d = diagrams.get(t.vhost);
    let layer = d.querySelector(":scope > g.tokens");
    if (!layer) d.append((layer = svg("g", { class: "tokens", "aria-hidden": "true" })));
    const node = svg(
      "g",
      { class: `token k-${t.kind}`, "data-testid": "token", "data-kind": t.kind, "data-msg-id": t.msgId, "data-from": t.from, "data-to": t.to },
      svg("title", {}, `${t.kind}: ${titles.get(t.msgId) ?? `message #${t.msgId}`}`),
      svg("circle", { r: 5 }),
    );
    layer.append(node);
    const frames = t.points
      ? t.points.map((p, i) => ({ transform: `translate(${p.x}px, ${p.y}px)`, opacity: i === 0 ? 0 : 1 }))
      : [
          { transform: `translate(${t.at.x}px, ${t.at.y}px) scale(1)`, opacity: 0 },
          { transform: `translate(${t.at.x}px, ${t.at.y}px) scale(1.3)`, opacity: 1, offset: 0.2 },
          { transform: `translate(${t.at.x}px, ${t.at.y}px) scale(2.4)`, opacity: 0 },
        ];
    const a = node.animate(frames, { duration: TOKEN_LEG_MS, delay: t.leg * TOKEN_LEG_MS, fill: "both", easing: t.points ? "ease-in-out" : "ease-out" });
    const done = () => node.remove();
    a.finished.then(done, done);
    liveTokens.push(a);
  }
}

// messageTitles names the messages that have tokens ("message #7: hello")
// from the snapshot, where it still lists them.
function messageTitles(ids) {
  const out = new Map();
  const note = (m) => {
    if (ids.has(m.id) && !out.has(m.id)) out.set(m.id, `message #${m.id}: ${clip(m.body, 40)}`);
  };
  for (const v of snap.vhosts) {
    for (const q of v.queues) q.ready.forEach(note);
    for (const c of v.connections) for (const ch of c.channels) ch.unacked.forEach(note);
  }
  return out;
}

function findSelected() {
  if (!selected) return null;
  for (const v of snap.vhosts) {
    if (selected.kind === "ready") {
      const q = v.queues.find((q) => q.name === selected.a);
      const m = q && q.ready.find((m) => m.id === selected.b);
      if (m) return { m, where: `ready in queue ${q.name}` };
    } else {
      for (const c of v.connections) {
        const ch = c.channels.find((ch) => ch.name === selected.a);
        const u = ch && ch.unacked.find((u) => u.deliveryTag === selected.b);
        if (u) return { m: u, where: `unacked on channel ${ch.name}, delivery tag ${u.deliveryTag}` };
      }
    }
  }
  return null;
}

function props(pairs) {
  return el("dl", { class: "props" }, pairs.filter(([, v]) => v !== undefined).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, valueText(v))]));
}

function drawInspector() {
  const root = $("inspector");
  const found = findSelected();
  if (!found) {
    root.replaceChildren(el("p", { class: "hint" }, selected ? "That message is no longer there (consumed, expired or moved: dead-lettering makes a new message with a new id)." : "Select a message to see its properties and headers."));
    return;
  }
  const { m, where } = found;
  const headers = Object.entries(m.headers).filter(([k]) => k !== "x-death");
  const deaths = Array.isArray(m.headers["x-death"]) ? m.headers["x-death"] : [];
  root.replaceChildren(
    el("h3", { dataset: { testid: "inspected-id" } }, `Message #${m.id}`),
    el("p", {}, where),
    props([
      ["body", m.body + (m.bodyTruncated ? " …" : "")],
      ["body size", `${m.bodyBytes} bytes`],
      ["exchange", m.exchange === "" ? "(default)" : m.exchange],
      ["routing key", m.routingKey],
      ["enqueued at", m.enqueuedAt !== undefined ? fmtMs(m.enqueuedAt) : undefined],
      ["expires at", m.expiresAt !== undefined ? fmtMs(m.expiresAt) : undefined],
      ["delivered at", m.deliveredAt !== undefined ? fmtMs(m.deliveredAt) : undefined],
      ["deliveries", m.deliveries],
    ]),
    el("h3", {}, "Properties"),
    Object.keys(m.properties).length ? props(Object.entries(m.properties)) : el("p", { class: "hint" }, "none"),
    el("h3", {}, "Headers"),
    headers.length ? props(headers) : el("p", { class: "hint" }, "none"),
    el("h3", {}, "x-death (most recent first)"),
    deaths.length
      ? el(
          "ol",
          { class: "xdeath", dataset: { testid: "xdeath" } },
          deaths.map((d) =>
            el(
              "li",
              { dataset: { testid: "xdeath-entry" } },
              el("strong", { dataset: { testid: "xdeath-reason" } }, d.reason),
              ` from queue ${d.queue}, ×${d.count}, at timestamp ${d.time} (seconds of virtual time), exchange ${d.exchange === "" ? "(default)" : d.exchange}, routing keys ${valueText(d["routing-keys"])}`,
              d["original-expiration"] !== undefined ? `, original expiration ${d["original-expiration"]}ms` : "",
            ),
          ),
        )
      : el("p", { class: "hint" }, "never dead-lettered"),
  );
}

// drawEvents keeps the event log in step with entries. It only appends the
// entries added since the last draw (rebuilding when entries were reset or
// trimmed), and draws at most MAX_EVENTS_PER_ENTRY events per entry: a
// "publish ... count=500" line would otherwise put a thousand elements in
// the page on every redraw.
// When record trims the oldest entries, their items are removed from the
// top rather than the whole log redrawn. The scroll to the bottom waits for
// the next frame, so that it does not force a layout in the middle of render.
let drawnEntries = [];
let scrollQueued = false;
function drawEvents() {
  const root = $("events");
  let drop = entries.length ? drawnEntries.indexOf(entries[0]) : drawnEntries.length;
  if (drop < 0) drop = drawnEntries.length; // nothing drawn is still there
  const kept = drawnEntries.length - drop;
  const fresh = kept <= entries.length && drawnEntries.slice(drop).every((e, i) => e === entries[i]) && root.children.length === drawnEntries.length;
  if (!fresh) {
    root.replaceChildren();
    drawnEntries = [];
  } else {
    for (let i = 0; i < drop; i++) root.firstElementChild.remove();
    drawnEntries = drawnEntries.slice(drop);
  }
  const add = entries.slice(drawnEntries.length);
  if (add.length === 0) return;
  root.append(...add.map(entryItem));
  drawnEntries = entries.slice();
  if (!scrollQueued) {
    scrollQueued = true;
    requestAnimationFrame(() => {
      scrollQueued = false;
      root.scrollTop = root.scrollHeight;
    });
  }
}

function entryItem({ result: r, note }) {
  const shown = r.events.slice(0, MAX_EVENTS_PER_ENTRY);
  const hidden = r.events.length - shown.length;
  return el(
    "li",
    { dataset: { testid: "entry" } },
    el("code", {}, r.line || "(not logged)"),
    el("span", { class: "at" }, `@${fmtMs(r.now)}`),
    note ? el("div", { class: "hint" }, note) : null,
    r.error ? el("div", { class: "error", dataset: { testid: "entry-error" } }, r.error) : null,
    r.events.length
      ? el(
          "ul",
          {},
          shown.map((e) => el("li", { dataset: { testid: "event", kind: e.kind } }, el("span", { class: "kind" }, e.kind), el("code", {}, e.trace))),
          hidden > 0 ? el("li", { class: "hint" }, `… and ${hidden} more events`) : null,
          r.eventsTruncated ? el("li", { class: "hint" }, "… more events than shown") : null,
        )
      : null,
  );
}

function drawTimeline() {
  const cur = w.log().length;
  const s = $("scrubber");
  s.max = String(timelineLog.length);
  s.value = String(cur);
  $("scrub-value").textContent = String(cur);
  $("log-length").textContent = String(timelineLog.length);
  // Keyed by line and whether it is ahead: a call appends one item.
  reconcile(
    $("log"),
    timelineLog.map((line, i) => ({ key: `${i < cur ? "" : "f"}${line}`, build: () => el("li", { class: i < cur ? "" : "future" }, el("span", { class: "mono" }, `${i + 1}. ${line}`)) })),
  );
}

// ---------- time ----------

function frame(t) {
  if (!playing) return;
  const dt = Math.min(t - lastFrameMs, 1000); // a hidden tab does not jump an hour
  lastFrameMs = t;
  pendingMs += dt * Number($("speed").value);
  // Only what happens is written to the log: time moves in the display
  // until the next timer falls due, and then the engine advances to it.
  const next = w.next();
  if (next && next.at <= snap.now + pendingMs) {
    const target = Math.floor(snap.now + pendingMs);
    pendingMs = snap.now + pendingMs - target;
    record(w.advanceTo(target));
    render();
  } else {
    drawClock();
    $("next-timer").textContent = next ? timerText(next) : "none";
  }
  requestAnimationFrame(frame);
}

function setPlaying(on) {
  playing = on;
  $("play").textContent = on ? "Pause" : "Play";
  $("play").setAttribute("aria-pressed", on ? "true" : "false");
  if (on) {
    lastFrameMs = performance.now();
    requestAnimationFrame(frame);
  } else {
    commitPending();
    render();
  }
}

// ---------- share ----------

function encodeLines(lines) {
  const bytes = new TextEncoder().encode(lines.join("\n"));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeLines(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const text = new TextDecoder().decode(bytes);
  return text === "" ? [] : text.split("\n");
}

function sharedLines() {
  const m = /^#s=([A-Za-z0-9_-]*)$/.exec(location.hash);
  if (!m) return null;
  try {
    return decodeLines(m[1]);
  } catch {
    say("The share link is damaged: its #s= part is not base64url.", true);
    return null;
  }
}

// ---------- wiring ----------

// ---------- importing definitions ----------

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

// importValue writes an argument value typed as the definitions type it:
// integers and floats as numbers, booleans bare, strings quoted.
function importValue(key, v) {
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new UserError(`argument ${key}: ${v} is not a number the script can write`);
    return String(v);
  }
  if (typeof v === "string") return importQuoted(v);
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === "string" ? importQuoted(x) : importValue(key, x))).join(",")}]`;
  throw new UserError(`argument ${key}: a ${v === null ? "null" : typeof v} value cannot be written as a script argument`);
}

function importArgs(args, rename = {}) {
  const out = [];
  for (const [k, v] of Object.entries(args || {})) {
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/.test(k)) throw new UserError(`argument name ${JSON.stringify(k)} cannot be written as a script option`);
    out.push(`${rename[k] ?? k}=${importValue(k, v)}`);
  }
  return out;
}

function importCount(n, word) {
  return `${n} ${n === 1 ? word : word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`}`;
}

// definitionsLines turns a definitions document into script lines and
// counts what it imports. Items in vhosts other than / run on a channel
// @imp-N opened in that vhost.
function definitionsLines(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UserError(`invalid JSON: ${e.message}`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new UserError("invalid definitions: the document is not a JSON object");
  const list = (k) => {
    const v = doc[k] ?? [];
    if (!Array.isArray(v)) throw new UserError(`invalid definitions: "${k}" is not a list`);
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
      lines.push(`open ${ch} vhost=${importWord(vhost)}`);
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
    else throw new UserError(`binding ${b.source} -> ${b.destination}: unknown destination_type ${JSON.stringify(b.destination_type)}`);
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
  if (channels.size) lines.push("use app");
  return { lines, counts };
}

// importDefinitions runs the document's lines one by one through run(), so
// they enter the log (and share links and rewind) like typed lines, and
// stops at the first that fails.
function importDefinitions(text) {
  const status = $("import-status");
  status.classList.remove("error");
  try {
    if (text.trim() === "") throw new UserError("nothing to import: choose a file or paste a definitions JSON");
    const { lines, counts } = definitionsLines(text);
    for (const [i, line] of lines.entries()) {
      run(line);
      const r = entries.at(-1)?.result;
      // A script error, or an AMQP exception: an "error:" line in the output.
      const failure = r?.error || /^error: .*$/m.exec(r?.output ?? "")?.[0].slice("error: ".length);
      if (failure) throw new UserError(`line ${i + 1} of ${lines.length} failed: ${line}\n${failure}`);
    }
    const what = [];
    if (counts.vhosts) what.push(importCount(counts.vhosts, "vhost"));
    what.push(importCount(counts.exchanges, "exchange"), importCount(counts.queues, "queue"), importCount(counts.bindings, "binding"), importCount(counts.policies, "policy"));
    status.textContent = `imported ${what.join(", ")}`;
  } catch (e) {
    status.textContent = `import failed: ${e.message}`;
    status.classList.add("error");
    if (!(e instanceof UserError)) throw e;
  }
}

function wireImport() {
  $("import-form").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      importDefinitions($("import-text").value);
    }),
  );
  $("import-file").addEventListener("change", async (e) => {
    const file = e.target.files?.[0];
    if (!file) return;
    $("import-text").value = await file.text();
    guard(importDefinitions)($("import-text").value);
  });
}

function guard(fn) {
  return (...args) => {
    try {
      fn(...args);
    } catch (e) {
      $("console-output").textContent = `error: ${e.message}`;
      if (!(e instanceof UserError)) console.error(e); // a bug in this page: let it show
    }
  };
}

function wire() {
  wireImport();
  $("console-form").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      const input = $("console-input");
      const line = input.value;
      if (line.trim() === "") return;
      if (consoleHistory[consoleHistory.length - 1] !== line) consoleHistory.push(line);
      if (consoleHistory.length > MAX_HISTORY) consoleHistory.shift();
      historyPos = consoleHistory.length;
      input.value = "";
      run(line);
    }),
  );
  $("console-input").addEventListener("keydown", (e) => {
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    historyPos = Math.max(0, Math.min(consoleHistory.length, historyPos + (e.key === "ArrowUp" ? -1 : 1)));
    e.target.value = consoleHistory[historyPos] ?? "";
  });
  for (const form of document.querySelectorAll("form.cmd")) {
    form.addEventListener(
      "submit",
      guard((e) => {
        e.preventDefault();
        const line = lineFor(form, e.submitter?.value);
        consoleHistory.push(line);
        historyPos = consoleHistory.length;
        run(line);
      }),
    );
  }
  $("advance-form").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      run(`advance ${durationWord("Advance by", $("advance-by").value.trim())}`);
    }),
  );
  $("step").addEventListener(
    "click",
    guard(() => {
      commitPending();
      const next = w.next();
      if (!next) return render();
      record(w.step(), `step: ${timerText(next)}`);
      render();
    }),
  );
  $("play").addEventListener("click", () => setPlaying(!playing));
  $("scrubber").addEventListener("input", () => ($("scrub-value").textContent = $("scrubber").value));
  $("rewind").addEventListener(
    "click",
    guard(() => {
      if (playing) setPlaying(false);
      if (replayTo(timelineLog, Number($("scrubber").value))) say(`Replayed ${$("scrubber").value} of ${timelineLog.length} lines.`);
      render();
    }),
  );
  $("reset").addEventListener(
    "click",
    guard(() => {
      if (playing) setPlaying(false);
      w.reset();
      pendingMs = 0;
      entries = [];
      timelineLog = [];
      selected = null;
      flashes = new Set();
      tokenEvents = [];
      window.history.replaceState(null, "", location.pathname);
      say("Reset: a fresh broker at 0s.");
      render();
    }),
  );
  $("share").addEventListener(
    "click",
    guard(() => {
      commitPending();
      const frag = `#s=${encodeLines(w.log())}`;
      if (frag.length > MAX_SHARE_CHARS) throw new UserError(`the session is too long to share as a link (${frag.length} characters); download the script instead`);
      const url = `${location.origin}${location.pathname}${frag}`;
      window.history.replaceState(null, "", frag);
      $("share-url").value = url;
      $("share-url").select();
      navigator.clipboard?.writeText(url).catch(() => {});
      render();
    }),
  );
  $("download").addEventListener(
    "click",
    guard(() => {
      commitPending();
      const blob = new Blob([w.log().map((l) => `${l}\n`).join("")], { type: "text/plain" });
      const a = el("a", { href: URL.createObjectURL(blob), download: "warren-session.txt" });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      render();
    }),
  );
}

async function boot() {
  for (const b of document.querySelectorAll(".playground button")) b.disabled = true;
  try {
    const go = new Go();
    const { instance } = await WebAssembly.instantiateStreaming(fetch("/static/warren.wasm"), go.importObject);
    go.run(instance); // settles only if Go exits; warren exists once run returns
    w = globalThis.warren;
    if (!w) throw new Error("warren is not defined after go.run");
  } catch (e) {
    say(`Could not start the engine (${e.message}). If you run Warren from source, \`make web\` builds static/warren.wasm.`, true);
    return;
  }
  for (const b of document.querySelectorAll(".playground button")) b.disabled = false;
  wire();
  const lines = sharedLines();
  if (lines && replayTo(lines, lines.length)) say(`Engine ready. Replayed ${lines.length} lines from the share link.`);
  else if (!lines) say("Engine ready. Everything runs in this page; time moves only when you move it.");
  render();
  announceReady(lines);
  document.body.dataset.ready = "true";
}

// announceReady tells other scripts on the page (static/lesson.js on a
// lesson page) that the engine runs, and hands them the few operations
// they may use, so that every line still goes through run or replayTo and
// shows in the log like a typed one. shared is the share link's lines, or
// null when the page opened without one.
function announceReady(shared) {
  const api = {
    warren: w,
    run: (line) => run(line),
    replay: (lines) => {
      const ok = replayTo(lines, lines.length);
      render();
      return ok;
    },
    say,
    shared,
  };
  globalThis.playground = api;
  document.dispatchEvent(new CustomEvent("warren:ready", { detail: api }));
}

boot();
