package engine

// Dead-lettering.
//
// A message dies in a queue when it is rejected without requeue, expires,
// overflows the queue's length limit, or (quorum) exceeds its delivery
// limit. If the queue has a dead-letter exchange the message is republished
// there; dead-lettering is deferred to the end of the current command or
// timer (RabbitMQ also does it asynchronously), so a queue never re-enters
// itself mid-operation.

// pendingDeadLetter is a death waiting to be republished.
type pendingDeadLetter struct {
	*deadLetterSource
	msg    *Message
	reason string
}

// deadLetterSource is where a death happened and where it goes, as the
// queue's settings said at the time. Deaths in a burst (a million messages
// expiring at once) share one, which keeps the pending list small.
type deadLetterSource struct {
	vhost   *vhost
	queue   string
	dlx     string
	dlrk    string
	hasDLRK bool
}

// deadLetter records that m died in q for reason. Without a dead-letter
// exchange the message simply ends (its removal event said how).
func (q *queue) deadLetter(m *Message, reason string) {
	q.current()
	if !q.set.hasDLX {
		return
	}
	b := q.vhost.b
	src := deadLetterSource{vhost: q.vhost, queue: q.name, dlx: q.set.dlx, dlrk: q.set.dlrk, hasDLRK: q.set.hasDLRK}
	if b.lastDLSource == nil || *b.lastDLSource != src {
		b.lastDLSource = new(deadLetterSource)
		*b.lastDLSource = src
	}
	b.deadLetterFrom(b.lastDLSource, m, reason)
}

// diesTo returns where the queue's messages die to now, to
// dead-letter later what it lets go of now (queue_overflow.go), or nil
// without a dead-letter exchange.
func (q *queue) diesTo() *deadLetterSource {
	if !q.set.hasDLX {
		return nil
	}
	return &deadLetterSource{vhost: q.vhost, queue: q.name, dlx: q.set.dlx, dlrk: q.set.dlrk, hasDLRK: q.set.hasDLRK}
}

// deadLetterFrom records that m died at src for reason, to be republished
// at the next flush.
func (b *Broker) deadLetterFrom(src *deadLetterSource, m *Message, reason string) {
	b.pendingDL = append(b.pendingDL, pendingDeadLetter{deadLetterSource: src, msg: m, reason: reason})
}

// flush republishes pending dead letters, including those their own routing
// causes (a TTL-0 dead-letter queue, say), until none are left. With none
// pending, the usual case after every publish and ack, it is inlined.
func (b *Broker) flush() {
	if len(b.pendingDL) > 0 {
		b.flushPending()
	}
}

func (b *Broker) flushPending() {
	for i := 0; i < len(b.pendingDL); i++ {
		p := b.pendingDL[i]
		b.pendingDL[i] = pendingDeadLetter{}
		b.republishDead(p)
	}
	b.pendingDL = b.pendingDL[:0]
}

func (b *Broker) republishDead(p pendingDeadLetter) {
	v := p.vhost
	if v.deleted {
		return
	}
	x, ok := v.exchanges[p.dlx]
	if !ok {
		// "if it is missing then, the messages will be silently dropped"
		b.emit(Event{Kind: EvDropped, Vhost: v.name, Queue: p.queue, MsgID: p.msg.ID, Msg: p.msg, Reason: p.reason,
			Cause: "dead-letter exchange '" + p.dlx + "' not found"})
		return
	}
	nm := b.deadLetterCopy(p)
	ev := b.emitted(EvDeadLettered)
	ev.Vhost, ev.Queue, ev.MsgID, ev.NewMsgID, ev.Msg = v.name, p.queue, p.msg.ID, nm.ID, nm
	ev.Exchange, ev.RoutingKey, ev.Reason = x.name, nm.RoutingKey, p.reason
	delayed := b.delayedCount
	targets := b.route(x, nm, nm.RoutingKeys(), b.queueScratch[:0])
	b.queueScratch = targets[:0]
	for _, t := range targets {
		q := t.q
		if p.reason != ReasonRejected && isCycle(q.name, nm.extra.deaths) {
			// "Messages in such cycles (i.e. messages that reach the same
			// queue twice) will be dropped if the entire cycle is due to
			// message expiry" — or any reason but rejection.
			b.emit(Event{Kind: EvDropped, Vhost: v.name, Queue: q.name, MsgID: nm.ID, Msg: nm, Reason: p.reason, Cause: "dead-letter cycle"})
			continue
		}
		q.offer(nm, t.via)
	}
	if len(targets) == 0 && b.delayedCount == delayed {
		// (A delayed-message exchange on the way holds the message.)
		b.emit(Event{Kind: EvDropped, Vhost: v.name, Exchange: x.name, MsgID: nm.ID, Msg: nm, Reason: p.reason, Cause: DropUnroutable})
	}
}

// isCycle is rabbit_dead_letter:is_cycle/2: walking the deaths from the most
// recent, is there an earlier death in queue, with no rejection on the way?
func isCycle(queue string, deaths []Death) bool {
	for _, d := range deaths {
		if d.Reason == ReasonRejected {
			return false
		}
		if d.Queue == queue {
			return true
		}
	}
	return false
}

// deadLetterCopy builds the message as republished to the dead-letter
// exchange: new id, exchange replaced, routing key replaced by
// x-dead-letter-routing-key if set (and then CC removed), expiration removed,
// and the death recorded in x-death. Every other property is kept as it was,
// present-but-empty ones included; the headers property is present from
// now on (Message.PropertyFlags), as RabbitMQ adds it to a message that had
// none.
func (b *Broker) deadLetterCopy(p pendingDeadLetter) *Message {
	m := p.msg
	nm := &Message{ID: b.newMsgID(), Exchange: p.dlx, RoutingKey: m.RoutingKey, Body: m.Body}
	var props Properties
	if m.Props != nil {
		props = *m.Props
	}
	props.Expiration = ""
	props.Present &^= FlagExpiration // removed, not emptied
	var headers Table
	if len(props.Headers) > 0 {
		headers = make(Table, len(props.Headers))
		for k, v := range props.Headers {
			headers[k] = v
		}
	}
	// An x-death header a client (re-)published is not history: "RabbitMQ
	// 4.x will not interpret this x-death header anymore when clients
	// (re-)publish a message" (4.0.1 release notes; 3.x counted on from
	// it). The broker's own headers replace the client's.
	for _, k := range []string{"x-death", "x-first-death-queue", "x-first-death-reason", "x-first-death-exchange",
		"x-last-death-queue", "x-last-death-reason", "x-last-death-exchange"} {
		delete(headers, k)
	}
	nm.extra = b.deathHistory(p, headers)
	if p.hasDLRK {
		nm.RoutingKey = p.dlrk
		delete(headers, "CC")
	}
	if len(headers) == 0 {
		headers = nil
	}
	props.Headers = headers
	if m.Props != nil || headers != nil {
		nm.Props = new(Properties)
		*nm.Props = props
	}
	return nm
}

// deathKey is everything a dead-lettered message's history depends on
// besides CC keys.
type deathKey struct {
	old                                             *msgExtra
	queue, reason, exchange, routingKey, expiration string
	timeSec                                         Timestamp
	hasDLRK                                         bool
}

// deathHistory returns the dead-lettered copy of p.msg's extra data: its
// x-death history with this death recorded, and its CC keys unless
// x-dead-letter-routing-key replaces them. A burst of deaths (a million
// messages expiring together) records the same history again and again,
// so the last one is shared when it would be built identically: messages
// never change after routing.
func (b *Broker) deathHistory(p pendingDeadLetter, headers Table) *msgExtra {
	m := p.msg
	key := deathKey{old: m.extra, queue: p.queue, reason: p.reason, exchange: m.Exchange, routingKey: m.RoutingKey,
		expiration: m.Expiration(), timeSec: Timestamp((b.cfg.EpochMs + int64(b.now)) / 1000), hasDLRK: p.hasDLRK}
	cc, hasCC := headers["CC"].([]any)
	if !hasCC && b.lastDeath != nil && b.lastDeathKey == key {
		return b.lastDeath
	}
	blk := &deathBlock{}
	extra := &blk.extra
	old := m.extra
	var oldDeaths []Death
	if old != nil && len(old.deaths) > 0 {
		oldDeaths = old.deaths
		extra.firstQueue, extra.firstReason, extra.firstExchange = old.firstQueue, old.firstReason, old.firstExchange
	}
	// routing-keys: "the routing keys (including CC keys but excluding BCC
	// ones) the message was published with".
	rks := append(blk.keys[:0:1], m.RoutingKey)
	for _, k := range cc {
		if s, ok := k.(string); ok {
			rks = append(rks, s)
		}
	}
	death := Death{Queue: p.queue, Reason: p.reason, Count: 1, Time: key.timeSec,
		Exchange: m.Exchange, RoutingKeys: rks, OriginalExpiration: key.expiration}
	deaths := blk.death[:0:1]
	if len(oldDeaths) > 0 {
		deaths = make([]Death, 0, len(oldDeaths)+1)
	}
	found := -1
	for i, d := range oldDeaths {
		if d.Queue == p.queue && d.Reason == p.reason {
			found = i
			break
		}
	}
	if found >= 0 {
		d := oldDeaths[found]
		d.Count++
		deaths = append(deaths, d)
		deaths = append(deaths, oldDeaths[:found]...)
		deaths = append(deaths, oldDeaths[found+1:]...)
	} else {
		deaths = append(deaths, death)
		deaths = append(deaths, oldDeaths...)
	}
	if extra.firstQueue == "" {
		extra.firstQueue, extra.firstReason, extra.firstExchange = death.Queue, death.Reason, death.Exchange
	}
	extra.deaths = deaths
	// "x-last-death-exchange: The exchange this message was published to
	// before this message got dead lettered the last time" (dlx.html, 4.x).
	extra.lastExchange = m.Exchange
	if !p.hasDLRK && old != nil {
		extra.keys = old.keys
	}
	if !hasCC {
		b.lastDeathKey, b.lastDeath = key, extra
	}
	return extra
}

// deathBlock is a death history with what a first death needs, allocated
// at once.
type deathBlock struct {
	extra msgExtra
	death [1]Death  // the x-death history of a first death
	keys  [1]string // its routing-keys, when there are no CC keys
}
