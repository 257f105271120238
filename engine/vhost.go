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
	// policyGen counts the vhost's policy changes; a queue resolved at
	// an older one has yet to take the latest up, and policyWalk is
	// taking it to every queue (queuewalk.go).
	policyGen  uint64
	policyWalk *queueWalk
	// deleted says the vhost's deletion has begun (queuewalk.go).
	deleted bool
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

func (b *Broker) createVhost(name string) error {
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

func (b *Broker) deleteVhost(name string) error {
	v, ok := b.vhosts[name]
	if !ok {
		return &Error{Code: NotFound, Text: "NOT_FOUND - vhost '" + name + "' not found"}
	}
	if b.dlog != nil {
		// The record does the whole deletion; nothing of it that follows
		// has one (durable.go).
		b.addDurable(CmdDurableVhostGone{Name: name})
	}
	v.startDeletion()
	b.dropVhostPermissions(name)
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
