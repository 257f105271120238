package engine

import (
	"fmt"
	"slices"
	"sort"
)

// QueueBind is queue.bind (and, with Unbind, queue.unbind).
type QueueBind struct {
	Queue      string
	Exchange   string
	RoutingKey string
	Args       Table
}

// ExchangeBind is exchange.bind: messages reaching Source are routed on to
// Destination.
type ExchangeBind struct {
	Destination string
	Source      string
	RoutingKey  string
	Args        Table
}

// bindAction is the four binding methods (m): exchange.bind and
// exchange.unbind name an exchange as the destination, queue.bind and
// queue.unbind a queue.
func (b *Broker) bindAction(id ChannelID, src, dst, key string, args Table, m Method) error {
	dstIsExchange := m == MethodExchangeBind || m == MethodExchangeUnbind
	add := m == MethodExchangeBind || m == MethodQueueBind
	ch, err := b.channelFor(id, m)
	if err != nil {
		return err
	}
	v := ch.conn.vhost
	if add {
		if p := ShortStringProblem(key); p != "" {
			return b.fail(ch, badName(m, "binding key", key, p))
		}
	}
	// rabbit_channel:binding_action_with_checks/10: write on the
	// destination, the default exchange refused, read on the source, then
	// the topic permission on the binding key, all before the destination
	// is looked up (access-control.md: "queue.bind | | | queue | exchange").
	dkind := "exchange"
	if !dstIsExchange {
		dkind = "queue"
		var e *Error
		// rabbit_channel:expand_shortcuts: with the queue name "" and
		// the routing key "", both name the channel's last declared
		// queue (amqp0-9-1.xml, queue.bind routing-key: "If the queue
		// name is empty, the server uses the last queue declared on the
		// channel. If the routing key is also empty, the server uses this
		// queue name for the value of the routing key as well").
		short := dst == "" && key == ""
		if dst, e = ch.queueName(dst, m); e != nil {
			return b.fail(ch, e)
		}
		if short {
			key = dst
		}
	}
	if e := ch.conn.permitted(accessWrite, dkind, dst, m); e != nil {
		return b.fail(ch, e)
	}
	if src == "" || (dstIsExchange && dst == "") {
		return b.fail(ch, channelErr(AccessRefused, m, "operation not permitted on the default exchange"))
	}
	if e := ch.conn.permitted(accessRead, "exchange", src, m); e != nil {
		return b.fail(ch, e)
	}
	x, ok := v.exchanges[src]
	if !ok {
		if !add {
			return nil
		}
		return b.fail(ch, channelErr(NotFound, m, "no %s", rs("exchange", src, v.name)))
	}
	if e := ch.conn.permittedTopic(ch.conn.topicGrant(x), accessRead, x, key, m); e != nil {
		return b.fail(ch, e)
	}
	var d dest
	if dstIsExchange {
		dx, ok := v.exchanges[dst]
		if !ok {
			if !add {
				return nil
			}
			return b.fail(ch, channelErr(NotFound, m, "no %s", rs("exchange", dst, v.name)))
		}
		d.x = dx
	} else {
		if q, ok := v.queues[dst]; !add && (!ok || x.findBinding(dest{q: q}, key, args) == nil) {
			// Unbinding nothing needs no exclusive access, even to
			// another connection's exclusive queue (observed, RabbitMQ
			// 3.10.8); the permissions above it does need.
			return nil
		}
		q, e := ch.lookupQueue(dst, m)
		if e != nil {
			return b.fail(ch, e)
		}
		d.q = q
	}
	xmatch := ""
	if x.route == KindHeaders {
		xm, e := headersMatchMode(args)
		if e != "" {
			return b.fail(ch, channelErr(PreconditionFailed, m, "%s", e))
		}
		xmatch = xm
	}
	if add {
		if x.findBinding(d, key, args) == nil {
			b.bindingSerial++
			bd := &binding{src: x, dst: d, key: key, args: args.Clone(), xmatch: xmatch, serial: b.bindingSerial}
			x.addBinding(bd)
			b.emit(Event{Kind: EvBound, Vhost: v.name, Channel: ch.id, Exchange: x.name, RoutingKey: key,
				Detail: &EventDetail{Destination: bindDestName(d), Args: argsText(args)}})
		}
	} else if bd := x.findBinding(d, key, args); bd != nil {
		v.removeBinding(bd)
	}
	b.flush()
	return nil
}

func bindDestName(d dest) string {
	if d.x != nil {
		return "exchange:" + d.x.name
	}
	return d.q.name
}

func argsText(args Table) string {
	if len(args) == 0 {
		return ""
	}
	return FormatTyped(args)
}

// findBinding returns the binding with this destination, key and arguments.
func (x *exchange) findBinding(d dest, key string, args Table) *binding {
	for _, bd := range x.byDest[d] {
		if bd.key == key && valuesEqual(bd.args, normTable(args)) {
			return bd
		}
	}
	return nil
}

// indexDest adds bd, x's newest binding, to x.byDest.
func (x *exchange) indexDest(bd *binding) {
	if x.byDest == nil {
		x.byDest = map[dest][]*binding{}
	}
	x.byDest[bd.dst] = append(x.byDest[bd.dst], bd)
}

// unindexDest takes bd out of x.byDest.
func (x *exchange) unindexDest(bd *binding) {
	list := x.byDest[bd.dst]
	if i := slices.Index(list, bd); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(x.byDest, bd.dst)
	} else {
		x.byDest[bd.dst] = list
	}
}

// reindexDests builds x.byDest anew from x.bindings, after they were set
// as a whole (a load, a restart's cut).
func (x *exchange) reindexDests() {
	x.byDest = nil
	for _, bd := range x.bindings {
		x.indexDest(bd)
	}
}

// takeBinding removes bd from x's lists (bindings, byDest), not from its
// routing index (unindex). The list is in creation order, so bd's place is
// found by its serial.
func (x *exchange) takeBinding(bd *binding) {
	i := sort.Search(len(x.bindings), func(i int) bool { return x.bindings[i].serial >= bd.serial })
	if i == len(x.bindings) || x.bindings[i] != bd {
		i = slices.Index(x.bindings, bd)
	}
	if i >= 0 {
		x.bindings = slices.Delete(x.bindings, i, i+1)
	}
	x.unindexDest(bd)
}

func normTable(t Table) Table {
	if t == nil {
		return Table{}
	}
	return t
}

func (x *exchange) addBinding(bd *binding) {
	if bd.args == nil {
		bd.args = Table{}
	}
	bd.viaDirect = newVia(bd, false) // made here, not on the publish path
	x.bindings = append(x.bindings, bd)
	x.indexDest(bd)
	if x.vhost.b.dlog != nil && !x.vhost.deleted && bindingDurable(bd) {
		x.vhost.b.addDurable(durableBinding(bd, true))
	}
	switch x.route {
	case KindDirect:
		x.direct[bd.key] = append(x.direct[bd.key], bd)
		x.directMemo.forget()
	case KindTopic:
		x.topic.Add(bd.key, bd)
	}
}

// removeBinding deletes a binding; an auto-delete exchange losing its last
// binding is deleted, as RabbitMQ does.
func (v *vhost) removeBinding(bd *binding) {
	x := bd.src
	x.takeBinding(bd)
	x.unindex(bd)
	if v.b.dlog != nil && !v.deleted && bindingDurable(bd) {
		v.b.addDurable(durableBinding(bd, false))
	}
	v.b.emit(Event{Kind: EvUnbound, Vhost: v.name, Exchange: x.name, RoutingKey: bd.key,
		Detail: &EventDetail{Destination: bindDestName(bd.dst), Args: argsText(bd.args)}})
	if x.autoDelete && len(x.bindings) == 0 && !x.deleted {
		x.delete()
	}
}

// unindex removes a binding from the exchange's routing index (not from
// its bindings list).
func (x *exchange) unindex(bd *binding) {
	switch x.route {
	case KindDirect:
		list := x.direct[bd.key]
		for i, o := range list {
			if o == bd {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		x.directMemo.forget()
		if len(list) == 0 {
			delete(x.direct, bd.key)
		} else {
			x.direct[bd.key] = list
		}
	case KindTopic:
		x.topic.Remove(bd.key, bd)
	}
}

// unbindDestination removes every binding whose destination is d.
func (v *vhost) unbindDestination(d dest) {
	for _, x := range v.sortedExchanges() {
		for _, bd := range slices.Clone(x.byDest[d]) {
			v.removeBinding(bd)
		}
	}
}

// headersMatchMode validates a headers binding's x-match argument.
func headersMatchMode(args Table) (string, string) {
	v, ok := args["x-match"]
	if !ok {
		return "all", ""
	}
	s, isStr := v.(string)
	if !isStr {
		return "", fmt.Sprintf("Invalid x-match field type %s (value %s); expected longstr", typeName(v), FormatValue(v))
	}
	switch s {
	case "all", "any", "all-with-x", "any-with-x":
		return s, ""
	case "":
		// Erlang prints the empty binary as <<>> (observed).
		return "", "Invalid x-match field value <<>>; expected all, any, all-with-x, or any-with-x"
	}
	return "", fmt.Sprintf("Invalid x-match field value <<\"%s\">>; expected all, any, all-with-x, or any-with-x", s)
}
