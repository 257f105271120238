package engine

import (
	"slices"
	"sort"
)

// Replaying the durable log (durable.go) on a broker being recovered.
//
// The records change the broker's state directly: a copy goes into or
// out of a queue's ready messages, or into or out of the broker's held
// copies, without delivering, expiring, dead-lettering or routing
// anything, since the broker that wrote them did all that and recorded
// its outcome. The held copies are those a channel held when the log was
// written; the broker has no channels (BeginDurableReplay drops them),
// so it keeps them itself, by channel and tag, until the restart puts
// them back as the channels' closing would have (restart.go).
//
// A record naming a queue the broker does not have, or a copy it does
// not hold, changes nothing, and is counted (DurableSkipped): the log
// lost records before it (a repair set damage aside), which the driver
// reports.

// durableReplay is a broker's state while it replays the durable log.
type durableReplay struct {
	held   map[heldKey]*heldCopy
	taken  entry // the copy the last Take took
	takenQ *queue
	slabs  slabs
	// order numbers the copies buffered in a transaction, which come
	// back after their channel's others in the order they were buffered.
	order int
	// skipped counts the records about copies that were not there.
	skipped int
	// ghosts are the transient delayed-message exchanges the records
	// hold messages in, by vhost and name; delayed indexes the held
	// messages by exchange and id (built at the first release): a
	// message routed through two delayed exchanges is held by both.
	ghosts  map[[2]string]*exchange
	delayed map[delayedKey]*delayedMsg
}

type delayedKey struct {
	vhost, exchange string
	id              uint64
}

type heldKey struct {
	q   *queue
	seq uint64
}

// heldCopy is a copy held by channel ch. A restart brings a channel's
// copies back by tag, then those whose acknowledgement a transaction
// buffered (buffered), in the order they were buffered (order), as a
// channel's close does.
type heldCopy struct {
	ch       ChannelID
	buffered bool
	order    int
	d        delivery
}

// BeginDurableReplay prepares a broker loaded from a snapshot for the
// durable log's records: its connections and channels go, silently, as
// at a restart, and the copies they held become the broker's held copies,
// in the order a restart would bring them back; its transient queues,
// exchanges, bindings and messages go as a restart makes them go. Settle the broker before
// saving the snapshot (HasWorkInFlight): the records go on from there.
func (b *Broker) BeginDurableReplay() {
	if b.replay != nil {
		return
	}
	r := &durableReplay{held: map[heldKey]*heldCopy{}}
	b.replay = r
	b.lastChan = nil
	// A channel's deliveries come by tag, then its buffered ones: where
	// the tags stop rising, the buffered ones begin.
	var last ChannelID
	var lastTag uint64
	buffered := false
	for _, rd := range b.dropConnections() {
		if rd.ch != last {
			last, lastTag, buffered = rd.ch, 0, false
		} else if rd.d.tag <= lastTag {
			buffered = true
		}
		lastTag = rd.d.tag
		r.order++
		r.held[heldKey{rd.d.q, rd.d.e.seq}] = &heldCopy{ch: rd.ch, buffered: buffered, order: r.order, d: rd.d}
	}
	// What no restart keeps goes now, as the restart would make it go:
	// the records name only durable things, and one may be declared
	// where a transient one of the same name was.
	for _, name := range b.Vhosts() {
		v := b.vhosts[name]
		exchanges := v.sortedExchanges()
		v.unbindTransient(exchanges)
		for _, q := range v.sortedQueues() {
			switch {
			case !q.durable:
				q.dropConsumers()
				q.dropAtRestart()
			case !q.quorum:
				q.dropTransient()
			}
		}
		for _, x := range exchanges {
			if !x.durable {
				x.dropAtRestart()
			}
		}
	}
}

// heldForRestart returns the copies the broker holds, in the order a
// restart brings them back (channel, then the channel's order), and
// forgets them.
func (b *Broker) heldForRestart() []restartDelivery {
	r := b.replay
	if r == nil {
		return nil
	}
	b.replay = nil
	hs := make([]*heldCopy, 0, len(r.held))
	for _, h := range r.held {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool {
		a, c := hs[i], hs[j]
		if a.ch != c.ch {
			if a.ch.Conn != c.ch.Conn {
				return a.ch.Conn < c.ch.Conn
			}
			return a.ch.Num < c.ch.Num
		}
		if a.buffered != c.buffered {
			return c.buffered
		}
		if a.buffered {
			return a.order < c.order
		}
		return a.d.tag < c.d.tag
	})
	out := make([]restartDelivery, len(hs))
	for i, h := range hs {
		out[i] = restartDelivery{ch: h.ch, d: h.d}
	}
	return out
}

// applyDurable applies one of the durable log's records.
func (b *Broker) applyDurable(c Command) {
	b.BeginDurableReplay()
	r := b.replay
	switch c := c.(type) {
	case CmdDurableClock:
		if c.Time > b.now {
			b.now = min(c.Time, MaxTime)
		}
	case CmdDurablePut:
		q := b.replayQueue(c.Vhost, c.Queue)
		if q == nil {
			r.skipped++
			return
		}
		e, ok := r.decodeEntry(c.Entry)
		if !ok {
			r.skipped++
			return
		}
		b.dropHeld(q, e.seq)
		s := &q.ready
		l := s.level(e.priority)
		switch c.Return {
		case 0:
			s.levels[l].fresh.push(e)
		default:
			s.levels[l].returns.push(returned{key: c.Key, e: e})
			if c.Return == 2 {
				s.returnSeq = max(s.returnSeq, c.Key)
			}
		}
		s.account(1, int64(len(e.msg.Body)))
		q.nextSeq = max(q.nextSeq, e.seq)
		b.nextMsg = max(b.nextMsg, e.msg.ID)
	case CmdDurableTake:
		r.takenQ = nil
		q := b.replayQueue(c.Vhost, c.Queue)
		if q == nil {
			r.skipped++
			return
		}
		e, ok := q.ready.removeSeq(c.Seq)
		if !ok {
			r.skipped++
			return
		}
		r.taken, r.takenQ = e, q
	case CmdDurableHold:
		q := b.replayQueue(c.Vhost, c.Queue)
		if q == nil {
			r.skipped++
			return
		}
		var e entry
		switch {
		case len(c.Entry) > 0:
			var ok bool
			if e, ok = r.decodeEntry(c.Entry); !ok {
				r.skipped++
				return
			}
			q.nextSeq = max(q.nextSeq, e.seq)
			b.nextMsg = max(b.nextMsg, e.msg.ID)
		case r.takenQ == q && r.taken.seq == c.Seq:
			e = r.taken
		default:
			r.skipped++
			return
		}
		r.takenQ, r.taken = nil, entry{}
		b.dropHeld(q, e.seq)
		q.accountUnacked(1, int64(len(e.msg.Body)))
		r.held[heldKey{q, e.seq}] = &heldCopy{ch: c.Channel, d: delivery{tag: c.Tag, q: q, e: e, atMs: b.now}}
	case CmdDurableDone:
		q := b.replayQueue(c.Vhost, c.Queue)
		if q == nil || !b.dropHeld(q, c.Seq) {
			r.skipped++
		}
	case CmdDurableBuffer:
		if q := b.replayQueue(c.Vhost, c.Queue); q != nil {
			if h := r.held[heldKey{q, c.Seq}]; h != nil {
				r.order++
				h.buffered, h.order = c.Buffered, r.order
			}
		}
	case CmdDurableQueue:
		if v := b.replayVhost(c.Vhost); v != nil && v.queues[c.Name] == nil {
			v.newQueue(c.Name, true, c.AutoDelete, c.Args, c.Quorum, nil)
		}
	case CmdDurableQueueGone:
		if q := b.replayQueue(c.Vhost, c.Name); q != nil {
			q.vhost.dropBindingsTo(dest{q: q})
			q.dropAtRestart()
		}
	case CmdDurableExchange:
		if v := b.replayVhost(c.Vhost); v != nil && v.exchanges[c.Name] == nil {
			x := newExchange(v, c.Name, c.Type)
			x.durable, x.autoDelete, x.internal, x.args, x.route = true, c.AutoDelete, c.Internal, c.Args.Clone(), c.Route
			v.addExchange(x)
		}
	case CmdDurableExchangeGone:
		v := b.replayVhost(c.Vhost)
		if v == nil {
			return
		}
		if x := v.exchanges[c.Name]; x != nil {
			for _, bd := range x.bindings {
				x.unindex(bd)
			}
			x.bindings, x.byDest = nil, nil
			x.deleted = true
			v.dropExchange(x)
			v.dropBindingsTo(dest{x: x})
		}
	case CmdDurableBind, CmdDurableUnbind:
		b.replayBinding(c)
	case CmdDurableDelay:
		b.replayDelay(c)
	case CmdDurableRelease:
		r.indexDelayed(b)
		k := delayedKey{c.Vhost, c.Exchange, c.ID}
		d := r.delayed[k]
		if d == nil {
			r.skipped++
			return
		}
		delete(r.delayed, k)
		b.timers.Remove(&d.timer)
		d.x.unhold(d)
	case CmdDurablePolicy:
		b.replayPolicy(c)
	case CmdDurableRetime:
		if q := b.replayQueue(c.Vhost, c.Queue); q != nil {
			q.policyGen = q.vhost.policyGen
			q.takeUpPolicies()
		}
	case CmdDurableVhostGone:
		if v := b.replayVhost(c.Name); v != nil {
			b.replayDropVhost(v)
		}
	}
}

// replayPolicy sets or clears a policy as CmdDurablePolicy says: the
// vhost's policies change, and its queues are behind them until their
// CmdDurableRetime records (or the restart, for those the walk had not
// reached: restart.go) bring them up to date.
func (b *Broker) replayPolicy(c CmdDurablePolicy) {
	v := b.replayVhost(c.Policy.Vhost)
	if v == nil {
		return
	}
	set := v.policies
	if c.Operator {
		set = v.opPolicies
	}
	if c.Clear {
		delete(set, c.Policy.Name)
	} else {
		p := c.Policy
		p.Definition = p.Definition.Clone()
		if b.validatePolicy(&p, c.Operator) != nil {
			// It was valid when it was set.
			b.replay.skipped++
			return
		}
		set[p.Name] = &p
	}
	v.policyGen++
}

// replayDropVhost deletes v and everything in it, silently, as
// CmdDurableVhostGone says: the copies its queues hold and those held of
// them, the messages its delayed-message exchanges hold (and the deleted
// exchange records held messages wait in), its exchanges and bindings,
// and the permissions there.
func (b *Broker) replayDropVhost(v *vhost) {
	r := b.replay
	for k := range r.held {
		if k.q.vhost == v {
			b.dropHeld(k.q, k.seq)
		}
	}
	if r.takenQ != nil && r.takenQ.vhost == v {
		r.takenQ, r.taken = nil, entry{}
	}
	for _, q := range v.sortedQueues() {
		q.dropConsumers()
		q.dropAtRestart()
	}
	exchanges := v.sortedExchanges()
	for k, x := range r.ghosts {
		if k[0] == v.name {
			exchanges = append(exchanges, x)
			delete(r.ghosts, k)
		}
	}
	for _, x := range exchanges {
		for _, d := range x.held {
			if d != nil {
				b.timers.Remove(&d.timer)
				b.delayed.add(-1, -int64(len(d.msg.Body)))
			}
		}
		x.held, x.heldGone = nil, 0
		for _, bd := range x.bindings {
			x.unindex(bd)
		}
		x.bindings, x.byDest = nil, nil
		if !x.deleted {
			x.dropAtRestart()
		}
	}
	r.delayed = nil // indexed again at the next release
	v.deleted = true
	delete(b.vhosts, v.name)
	b.dropVhostPermissions(v.name)
}

// replayDelay holds a message as CmdDurableDelay says, in the exchange
// of that name if it is the one, else in a deleted copy of the exchange
// record (a transient exchange, which a recovered broker does not have).
func (b *Broker) replayDelay(c CmdDurableDelay) {
	r := b.replay
	v, ok := b.vhosts[c.Vhost]
	if !ok {
		r.skipped++
		return
	}
	e, ok := r.decodeEntry(c.Entry)
	if !ok {
		r.skipped++
		return
	}
	x := v.exchanges[c.Exchange]
	if x == nil || x.kind != c.Type || !x.durable || !c.Durable {
		k := [2]string{c.Vhost, c.Exchange}
		x = r.ghosts[k]
		if x == nil || x.kind != c.Type || !valuesEqual(x.args, c.Args) {
			x = newExchange(v, c.Exchange, c.Type)
			x.durable, x.autoDelete, x.internal, x.args, x.route, x.deleted = c.Durable, c.AutoDelete, c.Internal, c.Args.Clone(), c.Route, true
			if r.ghosts == nil {
				r.ghosts = map[[2]string]*exchange{}
			}
			r.ghosts[k] = x
		}
	}
	b.nextMsg = max(b.nextMsg, e.msg.ID)
	b.delay(x, e.msg, c.Delay)
	if r.delayed != nil {
		r.delayed[delayedKey{c.Vhost, c.Exchange, e.msg.ID}] = x.held[len(x.held)-1]
	}
}

// indexDelayed indexes the held messages by id, once.
func (r *durableReplay) indexDelayed(b *Broker) {
	if r.delayed != nil {
		return
	}
	r.delayed = map[delayedKey]*delayedMsg{}
	for _, t := range b.timers.Items() {
		if d := t.Value.d; t.Value.kind == timerDelayed {
			r.delayed[delayedKey{d.x.vhost.name, d.x.name, d.msg.ID}] = d
		}
	}
}

func (b *Broker) replayVhost(name string) *vhost {
	if v, ok := b.vhosts[name]; ok && !v.deleted {
		return v
	}
	return nil
}

// replayBinding applies CmdDurableBind or CmdDurableUnbind: the binding
// made or removed, nothing else (an exchange the removal auto-deleted
// has a record of its own).
func (b *Broker) replayBinding(c Command) {
	var vh, src, dst, key string
	var toX, add bool
	var args Table
	switch c := c.(type) {
	case CmdDurableBind:
		vh, src, dst, toX, key, args, add = c.Vhost, c.Source, c.Destination, c.ToExchange, c.Key, c.Args, true
	case CmdDurableUnbind:
		vh, src, dst, toX, key, args = c.Vhost, c.Source, c.Destination, c.ToExchange, c.Key, c.Args
	}
	v := b.replayVhost(vh)
	if v == nil {
		return
	}
	x := v.exchanges[src]
	var d dest
	if toX {
		d.x = v.exchanges[dst]
	} else if q := v.queues[dst]; q != nil {
		d.q = q
	}
	if x == nil || (d.x == nil && d.q == nil) {
		return
	}
	bd := x.findBinding(d, key, args)
	switch {
	case add && bd == nil:
		xmatch := ""
		if x.route == KindHeaders {
			xmatch, _ = headersMatchMode(args)
		}
		b.bindingSerial++
		x.addBinding(&binding{src: x, dst: d, key: key, args: args.Clone(), xmatch: xmatch, serial: b.bindingSerial})
	case !add && bd != nil:
		x.dropBinding(bd)
	}
}

// dropBindingsTo removes every binding to d, silently and with no
// auto-delete: a recovered broker is told of those by their records.
func (v *vhost) dropBindingsTo(d dest) {
	for _, x := range v.exchanges {
		for _, bd := range slices.Clone(x.byDest[d]) {
			x.dropBinding(bd)
		}
	}
}

// dropBinding takes bd out of x, with no event and no auto-delete.
func (x *exchange) dropBinding(bd *binding) {
	x.takeBinding(bd)
	x.unindex(bd)
}

// dropHeld forgets the held copy of q with arrival number seq, if any,
// and reports whether there was one.
func (b *Broker) dropHeld(q *queue, seq uint64) bool {
	r := b.replay
	k := heldKey{q, seq}
	h, ok := r.held[k]
	if ok {
		delete(r.held, k)
		q.accountUnacked(-1, -int64(len(h.d.e.msg.Body)))
	}
	return ok
}

// DurableSkipped is the number of durable records about message copies
// the broker being recovered did not have. It is 0 but for a log whose
// records were lost (a repair gave up some): the driver says so.
func (b *Broker) DurableSkipped() int {
	if b.replay == nil {
		return 0
	}
	return b.replay.skipped
}

func (b *Broker) replayQueue(vhost, name string) *queue {
	v, ok := b.vhosts[vhost]
	if !ok || v.deleted {
		return nil
	}
	q := v.queues[name]
	if q == nil || q.deleted || !q.durable {
		return nil
	}
	return q
}

// decodeEntry reads a copy as durableLog.entryBytes wrote it.
func (r *durableReplay) decodeEntry(data []byte) (entry, bool) {
	l := &loader{decoder: decoder{src: data, form: formSnapshot}}
	l.slabs = r.slabs
	defer func() { r.slabs = l.slabs }()
	flags := l.byte1()
	m := l.slabs.message()
	m.ID = l.uvarint()
	m.Exchange = l.str()
	m.RoutingKey = l.str()
	m.Props = l.props()
	if n := l.int(l.left() + 1); n > 0 {
		m.Body = l.slabs.bodyCopy(l.raw(n - 1))
	}
	m.extra = l.extra()
	e := entry{msg: m, via: l.via(), seq: l.uvarint(), enqueuedAt: Time(l.varint())}
	l.entryOptional(&e, flags)
	if l.err != nil || l.off != len(data) {
		return entry{}, false
	}
	return e, true
}

// removeSeq takes the ready copy with arrival number seq out of the
// store. A copy is taken from the head of its level but for records that
// interleave with copies the broker being recovered never had, so the
// heads are looked at first and the levels searched only then.
func (s *store) removeSeq(seq uint64) (entry, bool) {
	for l := len(s.levels) - 1; l >= 0; l-- {
		if e := s.levels[l].front(); e != nil && e.seq == seq {
			return s.popLevel(l), true
		}
	}
	for l := range s.levels {
		lv := &s.levels[l]
		found := -1
		for i := 0; i < lv.fresh.len(); i++ {
			if lv.fresh.at(i).seq == seq {
				found = i
				break
			}
		}
		if found >= 0 {
			var kept deque
			var e entry
			for i := 0; i < lv.fresh.len(); i++ {
				if i == found {
					e = *lv.fresh.at(i)
					continue
				}
				kept.push(*lv.fresh.at(i))
			}
			lv.fresh = kept
			s.account(-1, -int64(len(e.msg.Body)))
			return e, true
		}
		for i := 0; i < lv.returns.len(); i++ {
			if lv.returns.at(i).e.seq == seq {
				var kept returnHeap
				var e entry
				for j := 0; j < lv.returns.len(); j++ {
					r := *lv.returns.at(j)
					if j == i {
						e = r.e
						continue
					}
					kept.push(r)
				}
				lv.returns = kept
				s.account(-1, -int64(len(e.msg.Body)))
				return e, true
			}
		}
	}
	return entry{}, false
}
