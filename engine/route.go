package engine

import "strings"

// target is a queue a message is routed to, and the binding that took it
// there.
type target struct {
	q   *queue
	via *Via
}

// routeStep is an exchange route has yet to visit, and whether it was
// reached through an alternate exchange.
type routeStep struct {
	x   *exchange
	alt bool
}

// route returns the queues a message reaches from exchange x, following
// exchange-to-exchange bindings and alternate exchanges as RabbitMQ's
// rabbit_exchange:route/2 does: an exchange whose own bindings match nothing
// hands the message to its alternate exchange; every exchange is visited at
// most once per message, which cuts loops; missing exchanges are skipped.
// Queues are returned once each, in the order first reached, each with the
// binding that reached it first (its Via, made once per binding, so routing
// allocates nothing). A delayed-message exchange reached with a message to
// delay holds it and routes it nowhere for now, as the plugin's route/2
// does, wherever the message comes from (a publish, an exchange-to-exchange
// binding, an alternate exchange or dead-lettering).
func (b *Broker) route(x *exchange, m *Message, keys []string, out []target) []target {
	b.routeGen++
	gen := b.routeGen
	if len(keys) == 1 && x.kind != KindDelayed {
		if out, ok := b.routeOne(x, keys[0], gen, out); ok {
			return out
		}
	}
	work := b.routeWork[:0]
	work = append(work, routeStep{x: x})
	x.visit = gen
	for i := 0; i < len(work); i++ {
		cur, alt := work[i].x, work[i].alt
		matched := false
		addQ := func(q *queue, via *Via) {
			matched = true
			if q.visit != gen {
				q.visit = gen
				out = append(out, target{q: q, via: via})
			}
		}
		addX := func(d *exchange, alt bool) {
			matched = true
			if d.visit != gen && !d.deleted {
				d.visit = gen
				work = append(work, routeStep{x: d, alt: alt})
			}
		}
		visit := func(bd *binding) {
			if bd.dst.q != nil {
				addQ(bd.dst.q, bd.via(alt))
			} else {
				addX(bd.dst.x, alt)
			}
		}
		held := false
		if cur.kind == KindDelayed {
			if ms, ok := delayOf(cur, m); ok {
				b.delay(cur, m, ms)
				held = true
			}
		}
		switch {
		case held:
		case cur.name == "":
			// The default exchange: every queue is bound by its name.
			v := cur.vhost
			for _, k := range keys {
				q, ok := v.queueMemo.get(k)
				if !ok {
					q = v.queues[k]
					v.queueMemo.set(k, q)
				}
				if q != nil {
					addQ(q, q.defaultVia())
				}
			}
		case cur.route == KindDirect:
			for _, k := range keys {
				bds, ok := cur.directMemo.get(k)
				if !ok {
					bds = cur.direct[k]
					cur.directMemo.set(k, bds)
				}
				for _, bd := range bds {
					visit(bd)
				}
			}
		case cur.route == KindFanout:
			for _, bd := range cur.bindings {
				visit(bd)
			}
		case cur.route == KindTopic:
			for _, k := range keys {
				b.topicScratch = cur.topic.Match(k, b.topicScratch[:0])
				for _, bd := range b.topicScratch {
					visit(bd)
				}
			}
		case cur.route == KindHeaders:
			h := m.Headers()
			for _, bd := range cur.bindings {
				if headersMatch(bd, h) {
					visit(bd)
				}
			}
		}
		// ae.html: the default exchange "does not support the alternate
		// exchange feature", even when a policy matches it (observed).
		if !matched && cur.name != "" {
			if ae := cur.alternate(); ae != "" {
				if ax, ok := cur.vhost.exchanges[ae]; ok {
					addX(ax, true)
				}
			}
		}
	}
	clear(work)
	b.routeWork = work[:0]
	return out
}

// headersMatch applies a headers binding: x-match all (the default) needs
// every binding argument to be present with an equal value, any needs one;
// arguments beginning with "x-" are ignored unless the mode ends in
// "-with-x". A binding argument of type void matches on presence alone.
func headersMatch(bd *binding, h Table) bool {
	withX := strings.HasSuffix(bd.xmatch, "-with-x")
	all := strings.HasPrefix(bd.xmatch, "all")
	anyMatched := false
	for k, want := range bd.args {
		if k == "x-match" || (!withX && strings.HasPrefix(k, "x-")) {
			continue
		}
		got, present := h[k]
		ok := present && (want == nil || valuesEqual(want, got))
		if all && !ok {
			return false
		}
		if ok {
			anyMatched = true
		}
	}
	if all {
		return true
	}
	return anyMatched
}

// routeOne is route's usual case without its walk: one routing key, to
// the default exchange or to a direct exchange whose bindings for the key
// all go to queues and are not empty (else the walk decides: exchanges
// to visit, or an alternate exchange). It adds what the walk would, in its
// order, and reports false, having done nothing, when it does not apply.
func (b *Broker) routeOne(x *exchange, k string, gen uint64, out []target) ([]target, bool) {
	x.visit = gen
	switch {
	case x.name == "":
		v := x.vhost
		q, ok := v.queueMemo.get(k)
		if !ok {
			q = v.queues[k]
			v.queueMemo.set(k, q)
		}
		if q != nil {
			q.visit = gen
			out = append(out, target{q: q, via: q.defaultVia()})
		}
		return out, true
	case x.route == KindDirect:
		bds, ok := x.directMemo.get(k)
		if !ok {
			bds = x.direct[k]
			x.directMemo.set(k, bds)
		}
		if len(bds) == 0 {
			return out, false
		}
		for _, bd := range bds {
			if bd.dst.q == nil {
				return out, false
			}
		}
		for _, bd := range bds {
			if q := bd.dst.q; q.visit != gen {
				q.visit = gen
				out = append(out, target{q: q, via: bd.via(false)})
			}
		}
		return out, true
	}
	return out, false
}

// routeMemo is a one-entry cache of a routing lookup by key.
type routeMemo[V any] struct {
	key   string
	val   V
	valid bool
}

func (m *routeMemo[V]) get(key string) (V, bool) {
	if m.valid && m.key == key {
		return m.val, true
	}
	var zero V
	return zero, false
}

func (m *routeMemo[V]) set(key string, v V) { m.key, m.val, m.valid = key, v, true }

func (m *routeMemo[V]) forget() { *m = routeMemo[V]{} }
