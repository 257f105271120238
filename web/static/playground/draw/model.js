// What the topology panel shows of a vhost, by one rule for the diagram
// and the lists alike: the default exchange always, first (every queue is
// bound to it by its own name; those implicit bindings are not drawn);
// every exchange the user declared; an amq.* exchange only when a binding,
// a dead-letter link or an alternate-exchange link involves it; and, in
// the diagram only, a link's target that does not exist, marked as such.

// shownByDefault says whether exchange name is shown whatever links to it.
const shownByDefault = (name) => !name.startsWith("amq.");

// topologyModel is vhost v's exchanges (each {name, type, routing, args,
// alternate, heldCount, isDefault, missing}), queues, bindings grouped by
// source and destination ({source, destType, dest, keys, args: the
// bindings' argument tables}), dead-letter links ({queue, exchange, key})
// and alternate-exchange links ({source, target}).
export function topologyModel(v) {
  const byName = new Map(v.exchanges.map((x) => [x.name, x]));
  const shown = new Set(v.exchanges.filter((x) => shownByDefault(x.name)).map((x) => x.name));
  shown.add("");
  const bindings = new Map(); // source, type, destination → the group
  for (const b of v.bindings) {
    if (b.source === "") continue; // the default exchange's bindings are implicit, never listed
    shown.add(b.source);
    if (b.destinationType === "exchange") shown.add(b.destination);
    const k = JSON.stringify([b.source, b.destinationType, b.destination]);
    if (!bindings.has(k)) bindings.set(k, { source: b.source, destType: b.destinationType, dest: b.destination, keys: [], args: [] });
    bindings.get(k).keys.push(b.routingKey);
    bindings.get(k).args.push(b.args);
  }
  const dlx = v.queues.filter((q) => q.effective.deadLetterExchange !== null).map((q) => ({ queue: q.name, exchange: q.effective.deadLetterExchange, key: q.effective.deadLetterRoutingKey }));
  for (const d of dlx) shown.add(d.exchange);
  const ae = [];
  for (let grown = true; grown; ) {
    grown = false;
    for (const x of v.exchanges) {
      if (!x.alternate || !shown.has(x.name) || ae.some((a) => a.source === x.name)) continue;
      ae.push({ source: x.name, target: x.alternate });
      shown.add(x.alternate);
      grown = true;
    }
  }
  const exchanges = [];
  const add = (x) => exchanges.push({ ...x, routing: routingType(x), isDefault: x.name === "", missing: false });
  add(byName.get("") ?? { name: "", type: "direct", args: {}, heldCount: 0 });
  for (const x of v.exchanges) if (x.name !== "" && shown.has(x.name)) add(x);
  for (const name of [...shown].filter((n) => !byName.has(n) && n !== "").sort()) {
    exchanges.push({ name, type: "missing", routing: "missing", args: {}, heldCount: 0, isDefault: false, missing: true });
  }
  return { exchanges, queues: v.queues, bindings: [...bindings.values()], dlx, ae };
}

// routingType is how exchange x matches bindings: its type, or for a
// delayed-message exchange the type it routes as.
function routingType(x) {
  return x.type === "x-delayed-message" && typeof x.args?.["x-delayed-type"] === "string" ? x.args["x-delayed-type"] : x.type;
}
