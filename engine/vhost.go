package engine

import "sort"

// vhost is a namespace of exchanges, queues and policies.
type vhost struct {
	b         *Broker
	name      string
	exchanges map[string]*exchange
	queues    map[string]*queue
	// queueMemo remembers the default exchange's last lookup (see
	// exchange.directMemo); declaring or deleting a queue forgets it.
	queueMemo  routeMemo[*queue]
	policies   map[string]*Policy
	opPolicies map[string]*Policy
	ready      tally // ready messages in all the vhost's queues
	counts     vhostCounts
}

// predeclared lists the exchanges every vhost has, as RabbitMQ creates them.
var predeclared = []struct {
	name, kind string
	internal   bool
}{
	{"", "direct", false},
	{"amq.direct", "direct", false},
	{"amq.fanout", "fanout", false},
	{"amq.topic", "topic", false},
	{"amq.headers", "headers", false},
	{"amq.match", "headers", false},
	{"amq.rabbitmq.trace", "topic", true},
}

func (b *Broker) addVhost(name string) *vhost {
	v := &vhost{
		b:          b,
		name:       name,
		exchanges:  map[string]*exchange{},
		queues:     map[string]*queue{},
		policies:   map[string]*Policy{},
		opPolicies: map[string]*Policy{},
	}
	for _, p := range predeclared {
		x := newExchange(v, p.name, p.kind)
		x.durable = true
		x.internal = p.internal
		v.addExchange(x)
	}
	b.vhosts[name] = v
	b.emit(Event{Kind: EvVhostAdded, Vhost: name})
	return v
}

// AddVhost creates a vhost; adding an existing one is a no-op, as in
// rabbitmqctl add_vhost (observed on 3.10.8: exit status 0, no change).
func (b *Broker) AddVhost(name string) error {
	if name == "" {
		return &Error{Code: PreconditionFailed, Text: "PRECONDITION_FAILED - vhost name must not be empty"}
	}
	if p := ShortStringProblem(name); p != "" {
		return badName(Method{}, "vhost name", name, p)
	}
	if _, ok := b.vhosts[name]; ok {
		return nil
	}
	b.addVhost(name)
	return nil
}

// DeleteVhost deletes a vhost and everything in it, closing its connections
// with 320 CONNECTION_FORCED as RabbitMQ does.
func (b *Broker) DeleteVhost(name string) error {
	v, ok := b.vhosts[name]
	if !ok {
		return &Error{Code: NotFound, Text: "NOT_FOUND - vhost '" + name + "' not found"}
	}
	for _, id := range b.connIDs() {
		if c := b.conns[id]; c.vhost == v {
			b.closeConnection(c, ConnectionForced, "CONNECTION_FORCED - vhost '"+name+"' is deleted", Method{})
		}
	}
	for _, q := range v.sortedQueues() {
		q.delete("vhost-deleted")
	}
	for _, x := range v.sortedExchanges() {
		v.dropDelayed(x)
	}
	delete(b.vhosts, name)
	b.emit(Event{Kind: EvVhostDeleted, Vhost: name})
	b.flush()
	return nil
}

// Vhosts lists vhost names in sorted order.
func (b *Broker) Vhosts() []string {
	out := make([]string, 0, len(b.vhosts))
	for n := range b.vhosts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (v *vhost) sortedQueues() []*queue {
	out := make([]*queue, 0, len(v.queues))
	for _, q := range v.queues {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (v *vhost) sortedExchanges() []*exchange {
	out := make([]*exchange, 0, len(v.exchanges))
	for _, x := range v.exchanges {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (b *Broker) connIDs() []ConnID {
	ids := make([]ConnID, 0, len(b.conns))
	for id := range b.conns {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
