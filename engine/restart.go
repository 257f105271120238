package engine

// Restarts: what a RabbitMQ node holds after it stops and starts again.
//
// Restart applies the rules to the broker's state as the node left it (a
// crash, or the server stopping) in one command, so that they are tested
// here and the same in the server, the playground and the lessons. The
// rules, and where they come from:
//
//   - Durable queues come back, transient ones do not: "Transient queues
//     will be deleted on node boot. They therefore will not survive a node
//     restart, by design. Messages in transient queues will also be
//     discarded" (queues.md, Durability). Exclusive queues are never
//     durable (queue.go), so they go; quorum queues are always durable
//     ("Quorum queues are always durable", quorum-queues.md).
//   - In a durable queue only persistent messages (delivery mode 2) come
//     back: "Durable queues will be recovered on node boot, including
//     messages in them published as persistent. Messages published as
//     transient will be discarded during recovery, even if they were stored
//     in durable queues" (queues.md). A quorum queue keeps them all:
//     "Messages published to the source quorum queue are persisted on disk
//     regardless of the message delivery mode" (quorum-queues.md). What
//     comes back keeps its order, its properties and headers, x-death
//     included: the message itself is kept, not a copy.
//   - Durable exchanges come back, with the bindings whose both ends are
//     durable: "Bindings inherit durability from their source and
//     destination" (exchanges.md, Binding Durability); "Bindings of durable
//     queues to durable exchanges are automatically durable and the server
//     MUST restore such bindings after a server restart" (AMQP 0-9-1
//     specification). A binding not restored was never removed, so an
//     auto-delete exchange that loses its last binding that way stays
//     (observed, RabbitMQ 3.10.8, killed and started: a durable auto-delete
//     exchange bound only to a transient queue is there, unbound). Vhosts,
//     policies and operator policies are definitions: they stay.
//   - Connections, channels and consumers are gone, and with them what a
//     channel had not finished: an open transaction's publishes and
//     acknowledgements, which only tx.commit would have performed (AMQP
//     0-9-1, tx.commit: "This method commits all message publications and
//     acknowledgments performed in the current transaction"), the
//     publisher-confirm mode, prefetch settings. No
//     client is connected any more, so none is told: no ChannelClosed,
//     ConnectionClosed or ConsumerCancelled event. A durable auto-delete
//     queue that had consumers stays until a consumer it gets after the
//     restart goes (observed, RabbitMQ 3.10.8, killed and started; a clean
//     stop closes the channels first, which deletes it: a driver that
//     stops cleanly closes its connections before it saves).
//   - Deliveries that were unacknowledged come back as if their channel had
//     closed: ready again, redelivered, a classic queue's at their original
//     positions, a quorum queue's at its head with their delivery count
//     raised (observed, RabbitMQ 3.10.8: x-delivery-count 1 after the
//     start), keeping their original expiry ("The original expiry time of a
//     message is preserved if it is requeued", ttl.md). Messages never
//     delivered come back not redelivered (observed after a clean stop;
//     after a kill RabbitMQ 3.10.8's classic queues mark every recovered
//     message redelivered, since their index cannot tell, and its quorum
//     queues do not: the engine's log tells, so it keeps the flag exact).
//   - Time goes on during the downtime: message expiries are points in
//     time (RabbitMQ stores them as timestamps), so a message whose TTL
//     ran out while the node was down expires, and is dead-lettered, when
//     it starts (observed, RabbitMQ 3.10.8: x-death's time is the start's).
//     A queue's x-expires lease starts again: "Leases of durable queues
//     restart when the server restarts" (ttl.html, Queue TTL, in the
//     rabbitmq-website's site/ttl.xml and site/ttl.md; today's docs/ttl.md
//     no longer says either way).
//   - Messages held by a delayed-message exchange all come back, persistent
//     or not, their exchange durable or not: the plugin keeps them in a
//     table "with a single disk replica on the current node. They will
//     survive a node restart. While timer(s) that triggered scheduled
//     delivery are not persisted, it will be re-initialised during plugin
//     activation on node start" (rabbitmq-delayed-message-exchange README,
//     Limitations; rabbit_delayed_message.erl writes every one to a
//     disc_copies table). One whose delay ran out while the node was down
//     is routed at the start, by the exchange record it was stored with
//     (see releaseDelayed): a transient exchange's bindings are gone.
//
// Work the engine had left for later calls (backlog.go) was decided by
// commands before the stop, so it is finished first, as a driver that
// settles sees it, but with the consumers already gone: nothing more is
// delivered once the node has stopped.
//
// The events of the restart itself: Restarted first; then Requeued (or
// Discarded) for each delivery that was unacknowledged, in channel and tag
// order; then for each vhost, in name order: Unbound for each binding not
// restored, Discarded with reason "restart" for each message of a
// transient queue and QueueDeleted for the queue, ExchangeDeleted for each
// transient exchange, and Discarded with reason "transient" for each
// transient message a durable classic queue lets go. A queue's messages
// are reported a batch per call, as a purge's are (bulkend.go); what
// expired during the downtime expires in the next AdvanceTo.

// Reasons a restart gives in Discarded and QueueDeleted events.
const (
	// ReasonRestart: the queue was transient, so it and its messages are
	// gone.
	ReasonRestart = "restart"
	// ReasonTransient: the message was published transient (not delivery
	// mode 2) to a durable classic queue, which keeps only persistent ones.
	ReasonTransient = "transient"
)

// restart applies CmdRestart (see Restart).
func (b *Broker) restart(at Time) {
	b.lastChan = nil
	// A broker replaying the durable log has no channels, and holds their
	// copies itself (durable_replay.go).
	deliveries := append(b.dropConnections(), b.heldForRestart()...)
	b.finishEnds()
	// A policy change the walk had not taken to every queue when the
	// broker stopped reaches the rest now, as finishing the walk does on
	// a broker that never stopped: a broker recovered from its durable
	// log has the change, but no walk (durable_replay.go).
	for _, name := range b.Vhosts() {
		for _, q := range b.vhosts[name].sortedQueues() {
			if q.policyGen != q.vhost.policyGen {
				q.current()
				b.flush() // its dead letters, as after a walk's visit
			}
		}
	}
	if at := min(at, MaxTime); at > b.now {
		b.now = at
	}
	b.emit(Event{Kind: EvRestarted})
	// A length limit trims a classic queue once its transient messages
	// are gone, not as each delivery comes back: what a queue holds
	// after a restart does not depend on what no restart keeps (and a
	// broker recovered from its durable log never had it, durable.go).
	b.restarting = true
	for _, d := range deliveries {
		b.restoreDelivery(d)
	}
	b.restarting = false
	for _, name := range b.Vhosts() {
		b.vhosts[name].restart()
	}
	for _, name := range b.Vhosts() {
		for _, q := range b.vhosts[name].sortedQueues() {
			if q.durable && !q.quorum {
				q.dropHeadOverflow()
			}
		}
	}
	b.flush()
}

// finishEnds finishes the work left for later calls (see the file
// comment) and disarms its continuation.
func (b *Broker) finishEnds() {
	for len(b.ends) > 0 {
		b.continueEnds()
	}
	b.timers.Remove(&b.endsTimer)
	b.flush()
}

// restartDelivery is a delivery that was unacknowledged when the broker
// stopped, with the channel that held it.
type restartDelivery struct {
	ch ChannelID
	d  delivery
}

// dropConnections forgets every connection, channel and consumer without
// an event for any of them, and returns the deliveries that were
// unacknowledged, by channel and then delivery tag; a transaction's
// buffered acknowledgements, which it never applied, follow their
// channel's other deliveries, as when a channel closes (bulkreturn.go).
func (b *Broker) dropConnections() []restartDelivery {
	var out []restartDelivery
	for _, id := range b.connIDs() {
		c := b.conns[id]
		for _, num := range sortedChannelNums(c) {
			ch := c.channels[num]
			ch.closed = true
			b.timers.Remove(&ch.ackTimer)
			ch.ackIdle = false
			for i := 0; i < ch.unacked.len(); i++ {
				if d := ch.unacked.at(i); !d.done {
					out = append(out, restartDelivery{ch: ch.id, d: *d})
				}
			}
			for _, a := range ch.txAcks {
				out = append(out, restartDelivery{ch: ch.id, d: a.d})
			}
			ch.unacked, ch.unackedLive, ch.consumerLive = unackedList{}, 0, 0
			ch.txPubs, ch.txAcks = nil, nil
			for _, con := range ch.consumerOrder {
				con.q.dropConsumers()
			}
			ch.consumers, ch.consumerOrder, ch.reply = nil, nil, nil
			delete(b.chans, ch.id)
			b.dropChannel(ch)
		}
		c.channels = map[uint16]*channel{}
		delete(b.conns, c.id)
		b.dropConnection(c)
	}
	return out
}

// dropConsumers forgets every consumer of the queue, silently: their
// channels are gone with the node. Its auto-delete rule starts again, as
// for a queue just declared.
func (q *queue) dropConsumers() {
	q.vhost.counts.consumers -= len(q.consumers)
	q.consumers, q.exclusiveC, q.active, q.hadConsumers = nil, nil, nil, false
	q.vhost.b.timers.Remove(&q.dispatchTimer)
}

// survives reports whether a copy of m in q comes back after a restart.
func survives(q *queue, m *Message) bool {
	return q.durable && (q.quorum || persistent(m))
}

// persistent reports whether m was published with delivery mode 2.
func persistent(m *Message) bool { return m.Props != nil && m.Props.DeliveryMode == 2 }

// restoreDelivery brings back an unacknowledged delivery as its channel's
// closing would (queue.requeue), or, when the copy does not survive the
// restart, ends it with Discarded.
func (b *Broker) restoreDelivery(rd restartDelivery) {
	d := rd.d
	q := d.q
	q.accountUnacked(-1, -int64(len(d.e.msg.Body)))
	if q.deleted || survives(q, d.e.msg) {
		q.requeue(d.e, rd.ch, d.tag, returnOnClose)
		return
	}
	reason := ReasonTransient
	if !q.durable {
		reason = ReasonRestart
	}
	b.emit(Event{Kind: EvDiscarded, Vhost: q.vhost.name, Channel: rd.ch, Queue: q.name, MsgID: d.e.msg.ID, Msg: d.e.msg, DeliveryTag: d.tag, Reason: reason})
}

// restart applies the restart's rules to the vhost's queues, exchanges
// and bindings.
func (v *vhost) restart() {
	queues := v.sortedQueues()
	exchanges := v.sortedExchanges()
	v.unbindTransient(exchanges)
	for _, q := range queues {
		if !q.durable {
			q.dropConsumers()
			q.dropAtRestart()
		}
	}
	for _, x := range exchanges {
		if !x.durable {
			x.dropAtRestart()
		}
	}
	for _, q := range queues {
		if q.durable {
			q.dropConsumers()
			if !q.quorum {
				q.dropTransient()
			}
			q.touchLease()
			// Armed afresh, in the queues' order: which of two queues
			// expiring at once goes first no longer depends on when
			// their timers were armed before the stop, which a broker
			// recovered from its durable log cannot know (durable.go).
			q.vhost.b.timers.Remove(&q.expiryTimer)
			q.rearmExpiry()
		}
	}
}

// unbindTransient removes every binding that is not durable, one pass
// over each exchange's bindings, in the order the exchanges are given and
// each exchange's in creation order: removing them queue by queue, as a
// deletion does, walks every exchange's bindings for every queue, 11 s for
// 50,000 exclusive queues bound to amq.topic. A binding that is not
// restored was never removed, so no auto-delete follows (see the file
// comment).
func (v *vhost) unbindTransient(exchanges []*exchange) {
	for _, x := range exchanges {
		kept := x.bindings[:0]
		for _, bd := range x.bindings {
			if x.durable && (bd.dst.q == nil || bd.dst.q.durable) && (bd.dst.x == nil || bd.dst.x.durable) {
				kept = append(kept, bd)
				continue
			}
			x.unindex(bd)
			v.b.emit(Event{Kind: EvUnbound, Vhost: v.name, Exchange: x.name, RoutingKey: bd.key,
				Detail: &EventDetail{Destination: bindDestName(bd.dst), Args: argsText(bd.args)}})
		}
		clear(x.bindings[len(kept):])
		x.bindings = kept
		x.reindexDests()
	}
}

// dropAtRestart removes a transient queue at a restart, its bindings gone
// already (unbindTransient). It is delete without what a deletion does
// before the queue goes: nothing expires or is dead-lettered, since the
// queue is gone from the moment the node stopped.
func (q *queue) dropAtRestart() {
	b := q.vhost.b
	q.deleted = true
	if q.owner != nil {
		delete(q.owner.exclusives, q.name)
	}
	q.vhost.counts.unacked.msgs -= int64(q.unacked)
	q.vhost.counts.unacked.bytes -= q.unackedBytes
	q.letGo(EvDiscarded, ReasonRestart)
	b.timers.Remove(&q.expiryTimer)
	b.timers.Remove(&q.leaseTimer)
	b.timers.Remove(&q.dispatchTimer)
	q.vhost.dropQueue(q)
	q.vhost.queueMemo.forget()
	b.emit(Event{Kind: EvQueueDeleted, Vhost: q.vhost.name, Queue: q.name, Reason: ReasonRestart})
}

// dropAtRestart removes a transient exchange at a restart, its bindings
// gone already (unbindTransient). The messages it holds, if it is a
// delayed-message exchange, stay scheduled (see the file comment and
// releaseDelayed).
func (x *exchange) dropAtRestart() {
	x.deleted = true
	x.vhost.dropExchange(x)
	x.vhost.b.emit(Event{Kind: EvExchangeDeleted, Vhost: x.vhost.name, Exchange: x.name})
}

// dropTransient lets go of the transient messages of a durable classic
// queue, keeping the persistent ones in their order: each priority level
// keeps its returned copies (by their keys) and its fresh ones. The first
// batch's Discarded events come now, the rest in later calls, as a purge's
// do (bulkend.go).
func (q *queue) dropTransient() {
	s := &q.ready
	n := 0
	s.eachInPlace(func(e *entry) {
		if !persistent(e.msg) {
			n++
		}
	})
	if n == 0 {
		return
	}
	lost := store{levels: make([]level, len(s.levels))}
	for l := range s.levels {
		lv, out := &s.levels[l], &lost.levels[l]
		s.work += lv.returns.sort()
		var kept level
		for i := 0; i < lv.returns.len(); i++ {
			r := *lv.returns.at(i)
			if persistent(r.e.msg) {
				kept.returns.push(r)
			} else {
				out.returns.push(r)
				lost.n++
				lost.bytes += int64(len(r.e.msg.Body))
			}
		}
		for i := 0; i < lv.fresh.len(); i++ {
			e := *lv.fresh.at(i)
			if persistent(e.msg) {
				kept.fresh.push(e)
			} else {
				out.fresh.push(e)
				lost.n++
				lost.bytes += int64(len(e.msg.Body))
			}
		}
		*lv = kept
	}
	s.account(-lost.n, -lost.bytes)
	b := q.vhost.b
	end := bulkEnd{vhost: q.vhost.name, queue: q.name, kind: EvDiscarded, reason: ReasonTransient}
	for i := 0; i < b.cfg.MaxBatch && lost.len() > 0; i++ {
		b.emitEnd(&end, lost.pop())
	}
	if lost.len() > 0 {
		end.held = lost
		b.holdEnd(end)
	}
}
