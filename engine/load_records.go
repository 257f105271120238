package engine

import "regexp"

// The records Load reads, in the order save_records.go writes them.

func (l *loader) loadBroker() *Broker {
	b := &Broker{vhosts: map[string]*vhost{}, conns: map[ConnID]*connection{}, chans: map[ChannelID]*channel{}}
	l.b = b
	b.cfg = Config{Seed: l.uvarint(), ConsumerTimeoutMs: l.varint(), EpochMs: l.varint(), MaxQueuesPerVhost: l.sint(),
		MaxMessagesPerVhost: l.varint(), MaxDeadLetterHops: l.sint(), MaxBatch: l.sint(), RecordCommands: l.boolean()}
	if b.cfg.MaxBatch <= 0 {
		l.fail("inconsistent")
	}
	b.now = Time(l.varint())
	b.rng = l.uvarint()
	b.nextCon = ConnID(l.uvarint())
	b.nextMsg = l.uvarint()
	b.consumerSeq = l.uvarint()
	b.bindingSerial = l.uvarint()
	b.delayedCount = l.uvarint()
	b.ready, b.unacked, b.delayed = l.tally(), l.tally(), l.tally()
	b.endsTimer.Value = timerRef{kind: timerBulkEnd, armedDue: true}

	// Every object first, so that records can name any of them.
	counts := make([]int, 6)
	for i := range counts {
		counts[i] = l.count("items")
	}
	if l.err != nil {
		return nil
	}
	l.vhosts = make([]*vhost, counts[0])
	for i := range l.vhosts {
		l.vhosts[i] = &vhost{b: b, exchanges: map[string]*exchange{}, queues: map[string]*queue{}, policies: map[string]*Policy{}, opPolicies: map[string]*Policy{}}
	}
	l.exchanges = make([]*exchange, counts[1])
	for i := range l.exchanges {
		l.exchanges[i] = &exchange{direct: map[string][]*binding{}}
	}
	l.queues = make([]*queue, counts[2])
	for i := range l.queues {
		q := &queue{}
		q.expiryTimer.Value = timerRef{kind: timerQueueExpiry, q: q}
		q.leaseTimer.Value = timerRef{kind: timerQueueLease, q: q}
		q.dispatchTimer.Value = timerRef{kind: timerQueueDispatch, q: q}
		l.queues[i] = q
	}
	l.conns = make([]*connection, counts[3])
	for i := range l.conns {
		l.conns[i] = &connection{channels: map[uint16]*channel{}}
	}
	l.chans = make([]*channel, counts[4])
	for i := range l.chans {
		ch := &channel{b: b, consumers: map[string]*consumer{}}
		ch.ackTimer.Value = timerRef{kind: timerAckTimeout, ch: ch}
		l.chans[i] = ch
	}
	l.consumers = make([]*consumer, counts[5])
	for i := range l.consumers {
		l.consumers[i] = &consumer{}
	}
	l.walks = map[*vhost]int{}

	for _, v := range l.vhosts {
		l.vhost(v)
	}
	for _, x := range l.exchanges {
		l.exchange(x)
	}
	for _, q := range l.queues {
		l.queue(q)
	}
	for _, c := range l.conns {
		l.conn(c)
	}
	for _, ch := range l.chans {
		l.channel(ch)
	}
	for _, c := range l.consumers {
		l.consumer(c)
	}
	if l.err != nil {
		return nil
	}
	l.timers()
	n := l.count("items")
	for range n {
		if l.err != nil {
			return nil
		}
		b.ends = append(b.ends, l.bulkEnd())
	}
	for v, i := range l.walks {
		if i >= len(b.ends) || b.ends[i].walk == nil {
			l.fail("inconsistent")
			return nil
		}
		v.policyWalk = b.ends[i].walk
	}
	n = l.count("items")
	for range n {
		if l.err != nil {
			return nil
		}
		p := pendingDeadLetter{deadLetterSource: l.dlSource()}
		p.msg = l.msg()
		p.reason = l.str()
		if p.msg == nil {
			l.fail("inconsistent")
		}
		b.pendingDL = append(b.pendingDL, p)
	}
	b.lastDeath = l.extra()
	k := &b.lastDeathKey
	k.old = l.extra()
	k.queue, k.reason, k.exchange, k.routingKey, k.expiration = l.str(), l.str(), l.str(), l.str(), l.str()
	k.timeSec = Timestamp(l.varint())
	k.hasDLRK = l.boolean()
	n = l.count("items")
	for range n {
		c := l.connAt()
		if l.err != nil || b.conns[c.id] != c || c.listed >= 0 {
			l.fail("inconsistent")
			return nil
		}
		c.listed = b.connRefs.add(ConnRef{ID: c.id, Name: c.name, User: c.user, Vhost: c.vhost.name})
	}
	n = l.count("items")
	for range n {
		ch := l.chanAt()
		if l.err != nil || b.chans[ch.id] != ch || ch.listed >= 0 {
			l.fail("inconsistent")
			return nil
		}
		ch.listed = b.chanRefs.add(ChannelRef{ID: ch.id, Connection: ch.conn.name, User: ch.conn.user, Vhost: ch.conn.vhost.name})
	}
	if b.connRefs.n != len(b.conns) || b.chanRefs.n != len(b.chans) {
		l.fail("inconsistent")
	}
	l.users()
	l.replyConsumers()
	l.readyMessages() // last (SaveShared writes it after the hold): new sections go before it
	b.events = eventLog{}
	return b
}

func (l *loader) vhost(v *vhost) {
	b := l.b
	v.name = l.str()
	v.deleted = l.boolean()
	v.policyGen = l.uvarint()
	v.ready = l.tally()
	v.counts.consumers = l.sint()
	v.counts.unacked = l.tally()
	v.counts.connections = l.sint()
	v.counts.channels = l.sint()
	n := l.count("items")
	for range n {
		if v.counts.byUser == nil {
			v.counts.byUser = map[string]*userCounts{}
		}
		u := l.str()
		v.counts.byUser[u] = &userCounts{connections: l.sint(), channels: l.sint()}
	}
	n = l.count("items")
	for range n {
		x := l.exchangeAt()
		if l.err != nil {
			return
		}
		if _, dup := v.exchanges[x.name]; dup || x.vhost != nil {
			l.fail("inconsistent")
			return
		}
		// The name is read with the exchange's record; listing order
		// is kept by adding the names once the records are read.
		x.vhost = v
		x.listed = v.counts.exchangeNames.add("")
	}
	n = l.count("items")
	for range n {
		q := l.queueAt()
		if l.err != nil {
			return
		}
		if q.vhost != nil {
			l.fail("inconsistent")
			return
		}
		q.vhost = v
		q.listed = v.counts.queueNames.add("")
	}
	l.policies(v, v.policies)
	l.policies(v, v.opPolicies)
	if i := l.int(l.left()); i > 0 {
		l.walks[v] = i - 1
	}
	if !v.deleted {
		if _, dup := b.vhosts[v.name]; dup {
			l.fail("inconsistent")
		}
		b.vhosts[v.name] = v
	}
}

func (l *loader) policies(v *vhost, set map[string]*Policy) {
	n := l.count("items")
	for range n {
		p := &Policy{Vhost: l.str(), Name: l.str(), Pattern: l.str(), ApplyTo: l.str(), Priority: l.sint(), Definition: l.table(0)}
		if l.err != nil {
			return
		}
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			l.fail("inconsistent")
			return
		}
		p.re = re
		set[p.Name] = p
	}
}

func (l *loader) exchange(x *exchange) {
	v := l.vhostAt()
	if l.err != nil {
		return
	}
	listed := x.vhost == v
	if x.vhost != nil && !listed {
		l.fail("inconsistent")
		return
	}
	x.vhost = v
	x.name, x.kind, x.route = l.str(), l.str(), l.str()
	x.durable, x.autoDelete, x.internal, x.deleted = l.boolean(), l.boolean(), l.boolean(), l.boolean()
	x.args = l.table(0)
	if listed {
		if _, dup := v.exchanges[x.name]; dup || x.deleted {
			l.fail("inconsistent")
			return
		}
		v.exchanges[x.name] = x
		v.counts.exchangeNames.chunks[x.listed/listingChunk][x.listed%listingChunk] = x.name
	} else {
		x.listed = 0
	}
	n := l.count("items")
	bds := make([]*binding, 0, n)
	for range n {
		if l.err != nil {
			return
		}
		bd := &binding{src: x}
		if dst := l.uvarint(); dst&1 == 0 {
			bd.dst.q = at(l, l.queues, dst>>1)
		} else {
			bd.dst.x = at(l, l.exchanges, dst>>1)
		}
		bd.key = l.str()
		bd.args = l.table(0)
		bd.xmatch = l.str()
		bd.serial = l.uvarint()
		bd.viaDirect = l.via()
		bd.viaAlt = l.via()
		bds = append(bds, bd)
	}
	x.bindings = bds
	x.reindexDests()
	for _, bd := range bds {
		if x.route == KindDirect {
			x.direct[bd.key] = append(x.direct[bd.key], bd)
		}
	}
	if x.route == KindTopic {
		seen := make([]bool, len(bds))
		for range bds {
			i := l.int(len(bds) - 1)
			if l.err != nil || seen[i] {
				l.fail("inconsistent")
				return
			}
			seen[i] = true
			x.topic.Add(bds[i].key, bds[i])
		}
	}
	n = l.count("items")
	x.heldGone = l.int(n)
	for i := range n {
		if l.err != nil {
			return
		}
		if !l.boolean() {
			x.held = append(x.held, nil)
			continue
		}
		d := &delayedMsg{x: x, msg: l.msg(), delay: l.varint(), heldAt: i}
		d.timer.Value = timerRef{kind: timerDelayed, d: d}
		if d.msg == nil || d.msg.Props == nil {
			l.fail("inconsistent")
		}
		x.held = append(x.held, d)
	}
}

// at returns list[i], or fails for an index out of range.
func at[T any](l *loader, list []*T, i uint64) *T {
	if l.err != nil || i >= uint64(len(list)) {
		l.fail("inconsistent")
		return nil
	}
	return list[i]
}
