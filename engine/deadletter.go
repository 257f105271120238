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
	vhost   *vhost
	queue   string
	dlx     string
	dlrk    string
	hasDLRK bool
	msg     *Message
	reason  string
}

// deadLetter records that m died in q for reason. Without a dead-letter
// exchange the message simply ends (its removal event said how).
func (q *queue) deadLetter(m *Message, reason string) {
	if !q.set.hasDLX {
		return
	}
	b := q.vhost.b
	b.pendingDL = append(b.pendingDL, pendingDeadLetter{
		vhost: q.vhost, queue: q.name, dlx: q.set.dlx, dlrk: q.set.dlrk, hasDLRK: q.set.hasDLRK, msg: m, reason: reason,
	})
}

// flush republishes pending dead letters, including those their own routing
// causes (a TTL-0 dead-letter queue, say), until none are left.
func (b *Broker) flush() {
	for i := 0; i < len(b.pendingDL); i++ {
		p := b.pendingDL[i]
		b.pendingDL[i] = pendingDeadLetter{}
		b.republishDead(p)
	}
	b.pendingDL = b.pendingDL[:0]
}

func (b *Broker) republishDead(p pendingDeadLetter) {
	v := p.vhost
	if _, live := b.vhosts[v.name]; !live {
		return
	}
	x, ok := v.exchanges[p.dlx]
	if !ok {
		// "if it is missing then, the messages will be silently dropped"
		b.emit(Event{Kind: EvDropped, Vhost: v.name, Queue: p.queue, MsgID: p.msg.ID, Msg: p.msg, Reason: p.reason,
			Text: "dead-letter exchange '" + p.dlx + "' not found"})
		return
	}
	nm := b.deadLetterCopy(p)
	b.emit(Event{Kind: EvDeadLettered, Vhost: v.name, Queue: p.queue, MsgID: p.msg.ID, NewMsgID: nm.ID, Msg: nm,
		Exchange: x.name, RoutingKey: nm.RoutingKey, Reason: p.reason})
	delayed := b.delayedCount
	targets := b.route(x, nm, nm.RoutingKeys(), b.queueScratch[:0])
	b.queueScratch = targets[:0]
	for _, q := range targets {
		if p.reason != ReasonRejected && isCycle(q.name, nm.extra.deaths) {
			// "Messages in such cycles (i.e. messages that reach the same
			// queue twice) will be dropped if the entire cycle is due to
			// message expiry" — or any reason but rejection.
			b.emit(Event{Kind: EvDropped, Vhost: v.name, Queue: q.name, MsgID: nm.ID, Msg: nm, Reason: p.reason, Text: "dead-letter cycle"})
			continue
		}
		q.offer(nm)
	}
	if len(targets) == 0 && b.delayedCount == delayed {
		// (A delayed-message exchange on the way holds the message.)
		b.emit(Event{Kind: EvDropped, Vhost: v.name, Exchange: x.name, MsgID: nm.ID, Msg: nm, Reason: p.reason, Text: "unroutable"})
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
// and the death recorded in x-death.
func (b *Broker) deadLetterCopy(p pendingDeadLetter) *Message {
	m := p.msg
	blk := &deadLetterBlock{}
	nm := &blk.msg
	*nm = Message{ID: b.newMsgID(), Exchange: p.dlx, RoutingKey: m.RoutingKey, Body: m.Body, extra: &blk.extra}
	props := &blk.props
	if m.Props != nil {
		*props = *m.Props
	}
	props.Expiration = ""
	var headers Table
	if len(props.Headers) > 0 {
		headers = make(Table, len(props.Headers))
		for k, v := range props.Headers {
			headers[k] = v
		}
	}
	old := m.extra
	var oldDeaths []Death
	if old != nil && len(old.deaths) > 0 {
		oldDeaths = old.deaths
		nm.extra.firstQueue, nm.extra.firstReason, nm.extra.firstExchange = old.firstQueue, old.firstReason, old.firstExchange
	}
	// An x-death header a client (re-)published is not history: "RabbitMQ
	// 4.x will not interpret this x-death header anymore when clients
	// (re-)publish a message" (4.0.1 release notes; 3.x counted on from
	// it). The broker's own headers replace the client's.
	for _, k := range []string{"x-death", "x-first-death-queue", "x-first-death-reason", "x-first-death-exchange",
		"x-last-death-queue", "x-last-death-reason", "x-last-death-exchange"} {
		delete(headers, k)
	}
	// routing-keys: "the routing keys (including CC keys but excluding BCC
	// ones) the message was published with".
	rks := append(blk.keys[:0:1], m.RoutingKey)
	if cc, ok := headers["CC"].([]any); ok {
		for _, k := range cc {
			if s, ok := k.(string); ok {
				rks = append(rks, s)
			}
		}
	}
	death := Death{Queue: p.queue, Reason: p.reason, Count: 1, Time: Timestamp(int64(b.now) / 1000),
		Exchange: m.Exchange, RoutingKeys: rks, OriginalExpiration: m.Expiration()}
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
	if nm.extra.firstQueue == "" {
		nm.extra.firstQueue, nm.extra.firstReason, nm.extra.firstExchange = death.Queue, death.Reason, death.Exchange
	}
	nm.extra.deaths = deaths
	// "x-last-death-exchange: The exchange this message was published to
	// before this message got dead lettered the last time" (dlx.html, 4.x).
	nm.extra.lastExchange = m.Exchange
	if p.hasDLRK {
		nm.RoutingKey = p.dlrk
		delete(headers, "CC")
	} else if old != nil {
		nm.extra.keys = old.keys
	}
	if len(headers) == 0 {
		headers = nil
	}
	props.Headers = headers
	nm.Props = props
	return nm
}

// deadLetterBlock is a dead-lettered message with everything it always
// needs, allocated at once: dead-lettering a million expired messages in
// one AdvanceTo makes this a hot path.
type deadLetterBlock struct {
	msg   Message
	extra msgExtra
	props Properties
	death [1]Death  // the x-death history of a first death
	keys  [1]string // its routing-keys, when there are no CC keys
}
