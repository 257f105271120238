// The topology panel: per vhost, the diagram, the exchanges and bindings
// as lists, and the queue and channel cards.
import { t, tParts } from "../../i18n.js";
import { $, el, reconcile } from "../dom.js";
import { exchangeLabel } from "../format.js";
import { snap } from "../session.js";
import { selKey } from "../selection.js";
import { forgetGoneCards } from "./countdowns.js";
import { destination, drawDiagram, flashing, flashSoon } from "./diagram.js";
import { restoreFocus } from "./highlight.js";
import { topologyModel } from "./model.js";
import { drawQueue, drawChannel } from "./queues.js";

// noMessages leaves the message lists out of a vhost's JSON: the diagram
// shows only counts, so listing a message does not redraw it.
function noMessages(k, val) {
  return k === "ready" || (k === "unacked" && Array.isArray(val)) ? undefined : val;
}

// drawTopology keeps the topology panel in step with snap. The panel is a
// list of keyed parts (headings, the diagram, the exchange and binding
// lists, the card grids) and each card grid a list of keyed cards; see
// reconcile. A key is the JSON of what the part draws.
let flashDraws = 0;
export function drawTopology() {
  const root = $("topology");
  const parts = [];
  const grids = []; // [key of the grid part, cards]
  const part = (key, build) => parts.push({ key, build });
  for (const v of snap.vhosts) {
    const busy = v.queues.length || v.connections.length || v.exchanges.some((x) => x.name !== "" && !x.name.startsWith("amq."));
    if (v.name !== "/" && !busy) continue;
    const idx = snap.vhosts.indexOf(v);
    const vk = JSON.stringify([v.name, idx]);
    if (snap.vhosts.length > 1) part(`vhost${vk}`, () => el("h3", {}, t("js.topo.vhost", { name: v.name })));
    const vflash = flashing(v);
    // A diagram that flashes is always drawn anew, so that it flashes again.
    const dkey = `diagram${vk}${JSON.stringify(v, noMessages)}${vflash.length ? ++flashDraws : ""}`;
    part(dkey, () => {
      return el("div", { class: "diagram-wrap" }, drawDiagram(v, idx));
    });
    // The exchanges the diagram shows, by the same rule (model.js), less
    // a missing dead-letter or alternate exchange, which is no exchange.
    const exchanges = topologyModel(v).exchanges.filter((x) => !x.missing);
    part("h:Exchanges", () => el("h3", {}, t("js.topo.exchanges")));
    part(`exchanges${vk}${JSON.stringify(exchanges)}`, () =>
      el(
        "ul",
        { dataset: { testid: "exchanges" } },
        exchanges.map((x) =>
          x.isDefault
            ? el("li", { dataset: { testid: "exchange", exchange: "" }, title: t("js.diagram.defaultExchange") }, el("span", { class: "mono" }, exchangeLabel("")), t("js.topo.defaultExchange"))
            : el(
                "li",
                { dataset: { testid: "exchange", exchange: x.name } },
                el("span", { class: "mono" }, x.name),
                ` ${x.type}`,
                x.alternate ? t("js.topo.alternate", { name: x.alternate }) : "",
                Object.keys(x.args).length ? ` ${JSON.stringify(x.args)}` : "",
                x.heldCount ? t("js.topo.holding", { n: x.heldCount }) : "",
              ),
        ),
      ),
    );
    part("amq-hint", () => el("p", { class: "hint" }, tParts("js.topo.amqHidden", { amq: el("code", {}, "amq.*") })));
    part("h:Bindings", () => el("h3", {}, t("js.topo.bindings")));
    part(`bindings${vk}${JSON.stringify(v.bindings)}`, () =>
      v.bindings.length
        ? el(
            "ul",
            { dataset: { testid: "bindings" } },
            v.bindings.map((b) =>
              el(
                "li",
                { dataset: { testid: "binding" } },
                el("span", { class: "mono" }, `${exchangeLabel(b.source)} → `, destination(b.destinationType, b.destination)),
                b.routingKey ? t("js.topo.key", { key: b.routingKey }) : "",
                Object.keys(b.args).length ? ` ${JSON.stringify(b.args)}` : "",
              ),
            ),
          )
        : el("p", { class: "hint" }, t("js.topo.noBindings")),
    );
    part("h:Queues", () => el("h3", {}, t("js.topo.queues")));
    if (v.queues.length) {
      const key = `queues${vk}`;
      part(key, () => el("div", { class: "cards" }));
      grids.push([parts.length - 1, v.queues.map((q) => ({ key: `${JSON.stringify(q)}${selKey("ready", q.name)}`, build: () => drawQueue(q) }))]);
    } else part("no-queues", () => el("p", { class: "hint" }, t("js.topo.noQueues")));
    const channels = v.connections.flatMap((c) => c.channels);
    if (channels.length) {
      part("h:Channels", () => el("h3", {}, t("js.topo.channels")));
      part(`channels${vk}`, () => el("div", { class: "cards" }));
      grids.push([parts.length - 1, channels.map((ch) => ({ key: `${JSON.stringify(ch)}${selKey("unacked", ch.name)}`, build: () => drawChannel(ch) }))]);
    }
  }
  let changed = reconcile(root, parts);
  for (const [i, cards] of grids) if (reconcile(root.children[i], cards)) changed = true;
  if (changed) forgetGoneCards();
  restoreFocus();
  flashSoon(root);
}
