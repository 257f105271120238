package engine

import "sort"

// Snapshot is a read-only view of everything a UI draws. It is built fresh
// on each call and shares only immutable *Message values with the broker.
type Snapshot struct {
	Now    Time
	Vhosts []VhostView
	Timers []PendingTimer // in firing order (the first n of SnapshotLimit)
	// TimerCount is how many timers are armed, all of them.
	TimerCount int
}

// VhostView is one vhost's topology and contents.
type VhostView struct {
	Name             string
	Exchanges        []ExchangeView
	Bindings         []BindingView
	Queues           []QueueView
	Policies         []Policy
	OperatorPolicies []Policy
	Connections      []ConnectionView
}

// ExchangeView describes an exchange.
type ExchangeView struct {
	Name       string
	Type       string
	Durable    bool
	AutoDelete bool
	Internal   bool
	Args       Table
	Alternate  string
	Held       []HeldView // delayed messages waiting to be routed (the first n of SnapshotLimit)
	HeldCount  int        // all of them
}

// HeldView is a delayed message held by a delayed-message exchange.
type HeldView struct {
	Msg       *Message
	ReleaseAt Time
}

// BindingView is a binding; Destination names a queue, or an exchange when
// DestinationIsExchange.
type BindingView struct {
	Source                string
	Destination           string
	DestinationIsExchange bool
	RoutingKey            string
	// Args is a copy of the binding's arguments, except in the views
	// AppendBindings returns, where it is the binding's own table: a
	// binding's arguments never change once it is made (binding again
	// with other arguments makes another binding), so such a view may be
	// read after the call, on another goroutine while the engine goes
	// on, and must never be written.
	Args Table
}

// QueueView describes a queue with its ready messages in delivery order.
type QueueView struct {
	Name       string
	Type       string // "classic" or "quorum"
	Durable    bool
	Exclusive  bool
	AutoDelete bool
	Args       Table
	Effective  Settings
	Ready      []ReadyView // in delivery order (the first n of SnapshotLimit)
	ReadyCount int         // all of them
	ReadyBytes int64
	Unacked    int
	// UnackedBytes is the body bytes of the deliveries awaiting
	// acknowledgement (listed at their channels).
	UnackedBytes int64
	Consumers    []ConsumerView
	// Expired counts ready messages whose TTL has passed but which still
	// wait behind a live head (classic queues expire only at the head).
	Expired int
}

// Settings are a queue's effective limits after arguments and policies; -1
// means unlimited/unset.
type Settings struct {
	MessageTTLMs            int64
	ExpiresMs               int64
	MaxLength               int64
	MaxLengthBytes          int64
	Overflow                string
	DeadLetterExchange      string
	HasDeadLetterExchange   bool
	DeadLetterRoutingKey    string
	HasDeadLetterRoutingKey bool
	DeliveryLimit           int64
	MaxPriority             int
	Policy                  string
	OperatorPolicy          string
}

// ReadyView is one ready message copy.
type ReadyView struct {
	Msg         *Message
	Via         *Via // the binding that routed the copy here (shared, read-only)
	EnqueuedAt  Time
	ExpiresAt   Time // Never when it has no TTL
	Priority    uint8
	Redelivered bool
	Deliveries  int
	Expired     bool // past its TTL but not yet at the head
}

// ConsumerView describes a consumer and its credit.
type ConsumerView struct {
	Tag       string
	Channel   ChannelID
	NoAck     bool
	Exclusive bool
	Priority  int64
	Prefetch  int
	Unacked   int
	Active    bool // for single-active-consumer queues
	HasCredit bool
}

// ConnectionView describes a connection and its channels.
type ConnectionView struct {
	ID   ConnID
	Name string
	User string
	// ClientProperties are the client's, as ConnectionOpen gave them (a
	// copy; nil when there were none).
	ClientProperties Table
	Channels         []ChannelView
}

// ChannelView describes a channel's modes, limits and unacked deliveries.
type ChannelView struct {
	ID             ChannelID
	Confirm        bool
	Tx             bool
	Prefetch       int
	GlobalPrefetch int
	Consumers      []string
	// ReplyTo is the address of the channel's direct reply-to consumer
	// (amq.rabbitmq.reply-to.TOKEN, replyto.go) and ReplyConsumer its
	// tag; both are empty without one. It is no queue's consumer, so
	// Consumers leaves it out, as RabbitMQ's consumer count does.
	ReplyTo       string
	ReplyConsumer string
	Unacked       []UnackedView // oldest first (the first n of SnapshotLimit)
	UnackedCount  int           // all of them
	PendingTx     int
}

// UnackedView is one delivery awaiting acknowledgement, at its owner.
type UnackedView struct {
	DeliveryTag uint64
	Queue       string
	ConsumerTag string // "" for basic.get
	Msg         *Message
	Via         *Via // the binding that routed the copy to Queue (shared, read-only)
	DeliveredAt Time
	Redelivered bool
}

// Snapshot returns the current state, every message included.
func (b *Broker) Snapshot() Snapshot { return b.SnapshotLimit(0) }

// SnapshotLimit is Snapshot listing at most n messages (n > 0) in each
// queue, each channel's unacknowledged deliveries and each exchange's held
// messages, and at most n timers, the first in order; the counts
// (ReadyCount, UnackedCount, HeldCount, Expired, TimerCount) still cover all. A UI that shows a few messages per
// queue then pays for those, not for a queue of a million.
func (b *Broker) SnapshotLimit(n int) Snapshot {
	s := Snapshot{Now: b.now}
	s.Timers, s.TimerCount = b.TimersUntil(Never, n)
	for _, name := range b.Vhosts() {
		s.Vhosts = append(s.Vhosts, b.vhosts[name].view(n))
	}
	return s
}

// room says whether a list of have items may take one more under limit n.
func room(have, n int) bool { return n <= 0 || have < n }

func (v *vhost) view(n int) VhostView {
	b := v.b
	out := VhostView{Name: v.name, Policies: b.Policies(v.name), OperatorPolicies: b.OperatorPolicies(v.name)}
	for _, x := range v.sortedExchanges() {
		xv := x.summary()
		for _, d := range x.held {
			if d == nil {
				continue // released
			}
			if room(len(xv.Held), n) {
				xv.Held = append(xv.Held, HeldView{Msg: d.msg, ReleaseAt: Time(d.timer.At)})
			}
		}
		out.Exchanges = append(out.Exchanges, xv)
	}
	out.Bindings = v.bindingViews()
	for _, q := range v.sortedQueues() {
		out.Queues = append(out.Queues, q.view(n))
	}
	for _, id := range b.connIDs() {
		c := b.conns[id]
		if c.vhost != v {
			continue
		}
		cv := c.summary()
		for _, num := range sortedChannelNums(c) {
			cv.Channels = append(cv.Channels, c.channels[num].view(n))
		}
		out.Connections = append(out.Connections, cv)
	}
	return out
}

// summary is the queue's view without its messages (see QueueSummaries).
func (q *queue) summary() QueueView {
	typ := "classic"
	if q.quorum {
		typ = "quorum"
	}
	s := q.settingsNow()
	qv := QueueView{Name: q.name, Type: typ, Durable: q.durable, Exclusive: q.exclusive, AutoDelete: q.autoDelete, Args: q.args.Clone(),
		Effective: Settings{MessageTTLMs: s.ttlMs, ExpiresMs: s.expiresMs, MaxLength: s.maxLen, MaxLengthBytes: s.maxBytes, Overflow: s.overflow,
			DeadLetterExchange: s.dlx, HasDeadLetterExchange: s.hasDLX, DeadLetterRoutingKey: s.dlrk, HasDeadLetterRoutingKey: s.hasDLRK,
			DeliveryLimit: s.deliveryLimit, MaxPriority: s.maxPriority, Policy: s.policy, OperatorPolicy: s.opPolicy},
		ReadyCount: q.ready.len(), ReadyBytes: q.ready.bytes, Unacked: q.unacked, UnackedBytes: q.unackedBytes}
	for _, c := range q.consumers {
		qv.Consumers = append(qv.Consumers, ConsumerView{Tag: c.tag, Channel: c.ch.id, NoAck: c.noAck, Exclusive: c.exclusive, Priority: c.priority,
			Prefetch: c.prefetch, Unacked: c.unacked, Active: !q.sac || q.active == c, HasCredit: c.hasCredit()})
	}
	sort.Slice(qv.Consumers, func(i, j int) bool { return qv.Consumers[i].Tag < qv.Consumers[j].Tag })
	return qv
}

// view is the queue's summary with its first n ready messages (all for n
// <= 0) and the count of expired ones, which visits every message.
func (q *queue) view(n int) QueueView {
	now := q.vhost.b.now
	qv := q.summary()
	q.ready.each(func(e *entry) {
		exp := e.expiresAt <= now
		if exp {
			qv.Expired++
		}
		if !room(len(qv.Ready), n) {
			return
		}
		qv.Ready = append(qv.Ready, ReadyView{Msg: e.msg, Via: e.via, EnqueuedAt: e.enqueuedAt, ExpiresAt: e.expiresAt, Priority: e.priority,
			Redelivered: e.redelivered, Deliveries: int(e.deliveries), Expired: exp})
	})
	return qv
}

// summary is the exchange's view without its held messages.
func (x *exchange) summary() ExchangeView {
	return ExchangeView{Name: x.name, Type: x.kind, Durable: x.durable, AutoDelete: x.autoDelete, Internal: x.internal,
		Args: x.args.Clone(), Alternate: x.alternate(), HeldCount: len(x.held) - x.heldGone}
}

// bindingViews lists the vhost's declared bindings by source exchange
// name, each exchange's in creation order.
func (v *vhost) bindingViews() []BindingView {
	var out []BindingView
	for _, x := range v.sortedExchanges() {
		for _, bd := range x.bindings {
			out = append(out, bd.view())
		}
	}
	return out
}

// summary is the connection's view without its channels.
func (c *connection) summary() ConnectionView {
	return ConnectionView{ID: c.id, Name: c.name, User: c.user, ClientProperties: c.clientProps.Clone()}
}

// summary is the channel's view without its unacknowledged deliveries.
func (ch *channel) summary() ChannelView {
	cv := ChannelView{ID: ch.id, Confirm: ch.confirm, Tx: ch.tx, Prefetch: ch.prefetch, GlobalPrefetch: ch.globalPrefetch,
		UnackedCount: ch.unackedLive, PendingTx: len(ch.txPubs) + len(ch.txAcks)}
	for _, c := range ch.consumerOrder {
		cv.Consumers = append(cv.Consumers, c.tag)
	}
	if r := ch.reply; r != nil {
		cv.ReplyTo, cv.ReplyConsumer = replyToPrefix+r.token, r.tag
	}
	return cv
}

// view is the channel's summary with its first n unacknowledged
// deliveries (all for n <= 0).
func (ch *channel) view(n int) ChannelView {
	cv := ch.summary()
	for i := 0; i < ch.unacked.len(); i++ {
		d := ch.unacked.at(i)
		if d.done {
			continue
		}
		if !room(len(cv.Unacked), n) {
			continue
		}
		cv.Unacked = append(cv.Unacked, UnackedView{DeliveryTag: d.tag, Queue: d.q.name, ConsumerTag: d.ctag, Msg: d.e.msg, Via: d.e.via, DeliveredAt: d.atMs, Redelivered: d.e.redelivered})
	}
	return cv
}
