package engine

// Queues, connections, channels, consumers, timers and pending work, as
// Load reads them (see save_records.go).

func (l *loader) queue(q *queue) {
	v := l.vhostAt()
	if l.err != nil {
		return
	}
	listed := q.vhost == v
	if q.vhost != nil && !listed {
		l.fail("inconsistent")
		return
	}
	q.vhost = v
	q.name = l.str()
	q.durable, q.exclusive, q.autoDelete = l.boolean(), l.boolean(), l.boolean()
	q.owner = optional(l, l.conns)
	q.args = l.table(0)
	q.quorum, q.sac, q.deleted = l.boolean(), l.boolean(), l.boolean()
	st := &q.set
	st.ttlMs, st.expiresMs, st.maxLen, st.maxBytes, st.deliveryLimit = l.varint(), l.varint(), l.varint(), l.varint(), l.varint()
	if st.maxPriority = int(l.varint()); st.maxPriority < 0 || st.maxPriority > 255 {
		l.fail("inconsistent")
	}
	st.overflow, st.dlx, st.dlrk, st.policy, st.opPolicy = l.str(), l.str(), l.str(), l.str(), l.str()
	st.hasDLX, st.hasDLRK = l.boolean(), l.boolean()
	if l.version < 3 {
		l.ready(q) // since version 3, in a section of their own (readyMessages)
	}
	q.unacked = l.sint()
	q.unackedBytes = l.varint()
	q.nextSeq = l.uvarint()
	q.returning = l.sint()
	n := l.count("items")
	for range n {
		q.consumers = append(q.consumers, l.consumerAt())
	}
	q.hadConsumers = l.boolean()
	q.exclusiveC = optional(l, l.consumers)
	q.active = optional(l, l.consumers)
	q.policyGen = l.uvarint()
	q.viaDefault = l.via()
	if l.err != nil {
		return
	}
	if listed {
		if _, dup := v.queues[q.name]; dup || q.deleted {
			l.fail("inconsistent")
			return
		}
		v.queues[q.name] = q
		v.counts.queueNames.chunks[q.listed/listingChunk][q.listed%listingChunk] = q.name
	} else {
		q.listed = 0
	}
	if q.owner != nil && !q.deleted {
		if q.owner.exclusives == nil {
			q.owner.exclusives = map[string]*queue{}
		}
		q.owner.exclusives[q.name] = q
	}
}

// ready reads q's ready messages, after q's record up to its policy
// settings has been read.
func (l *loader) ready(q *queue) {
	q.ready = l.store(&q.vhost.ready, &l.b.ready)
	if l.err == nil && len(q.ready.levels) != q.set.maxPriority+1 {
		l.fail("inconsistent")
	}
}

// readyMessages reads the section of the queues' ready messages
// (snapshot version 3 on), in the order of the queues' records.
func (l *loader) readyMessages() {
	if l.version < 3 {
		return
	}
	for _, q := range l.queues {
		if l.err != nil {
			return
		}
		l.ready(q)
	}
}

func (l *loader) conn(c *connection) {
	b := l.b
	c.id = ConnID(l.uvarint())
	c.vhost = l.vhostAt()
	c.name = l.str()
	c.user = l.str()
	c.clientProps = l.table(0)
	if l.boolean() {
		p := &Permissions{Configure: l.str(), Write: l.str(), Read: l.str()}
		n := l.count("items")
		for range n {
			p.Topics = append(p.Topics, TopicPermission{Exchange: l.str(), Write: l.str(), Read: l.str()})
		}
		p.Impersonator = l.boolean()
		if l.err == nil {
			c.grants = compileGrants(p, c.user, c.vhost.name)
		}
	}
	c.paused = l.boolean()
	live := l.boolean()
	n := l.count("items")
	for range n {
		ch := l.chanAt()
		if l.err != nil || ch.conn != nil {
			l.fail("inconsistent")
			return
		}
		ch.conn = c
	}
	c.listed = -1
	if live && l.err == nil {
		if _, dup := b.conns[c.id]; dup {
			l.fail("inconsistent")
		}
		b.conns[c.id] = c
	}
}

func (l *loader) channel(ch *channel) {
	b := l.b
	c := l.connAt()
	if l.err != nil {
		return
	}
	if ch.conn != nil && ch.conn != c {
		l.fail("inconsistent")
		return
	}
	owned := ch.conn == c
	ch.conn = c
	ch.id = ChannelID{Conn: c.id, Num: uint16(l.int(65535))}
	ch.closed = l.boolean()
	ch.nextTag = l.uvarint()
	ch.unacked = l.deliveries()
	ch.unackedLive = l.sint()
	ch.lastQueue = l.str()
	n := l.count("items")
	for range n {
		con := l.consumerAt()
		if l.err != nil {
			return
		}
		ch.consumerOrder = append(ch.consumerOrder, con)
	}
	ch.prefetch, ch.globalPrefetch, ch.consumerLive = l.sint(), l.sint(), l.sint()
	ch.confirm = l.boolean()
	ch.publishSeq = l.uvarint()
	ch.tx = l.boolean()
	ch.txPubs = l.txPubs()
	ch.txAcks = l.txAcks()
	if l.boolean() {
		np, na := l.count("items"), l.count("items")
		c := &txCommit{pubs: make([]txPublish, np), acks: make([]txAck, na), next: l.int(np + na)}
		pubs, acks := l.txPubs(), l.txAcks()
		if l.err != nil || len(pubs) != np-min(c.next, np) || len(acks) != na-max(0, c.next-np) {
			l.fail("inconsistent")
			return
		}
		copy(c.pubs[np-len(pubs):], pubs)
		copy(c.acks[na-len(acks):], acks)
		c.queues = l.queueList()
		ch.commit = c
	}
	ch.ackIdle = l.boolean()
	ch.listed = -1
	if l.err != nil {
		return
	}
	if owned == ch.closed {
		l.fail("inconsistent")
		return
	}
	if owned {
		if _, dup := c.channels[ch.id.Num]; dup {
			l.fail("inconsistent")
			return
		}
		if _, dup := b.chans[ch.id]; dup {
			l.fail("inconsistent")
			return
		}
		c.channels[ch.id.Num] = ch
		b.chans[ch.id] = ch
	}
}

func (l *loader) txPubs() []txPublish {
	n := l.count("items")
	var out []txPublish
	for range n {
		p := txPublish{x: l.exchangeAt(), msg: l.msg(), mandatory: l.boolean()}
		if l.err != nil || p.msg == nil {
			l.fail("inconsistent")
			return nil
		}
		out = append(out, p)
	}
	return out
}

func (l *loader) txAcks() []txAck {
	n := l.count("items")
	var out []txAck
	for range n {
		tag := l.uvarint()
		var c entryCtx
		a := txAck{d: l.delivery(tag, &c)}
		a.kind.ack, a.kind.requeue = l.boolean(), l.boolean()
		if l.err != nil {
			return nil
		}
		out = append(out, a)
	}
	return out
}

func (l *loader) queueList() []*queue {
	n := l.count("items")
	var out []*queue
	for range n {
		q := l.queueAt()
		if l.err != nil {
			return nil
		}
		out = append(out, q)
	}
	return out
}

func (l *loader) consumer(c *consumer) {
	c.ch = l.chanAt()
	c.q = l.queueAt()
	c.tag = l.str()
	c.noAck, c.exclusive = l.boolean(), l.boolean()
	c.priority = l.varint()
	c.prefetch, c.unacked = l.sint(), l.sint()
	c.args = l.table(0)
	c.seq = l.uvarint()
	if l.err != nil {
		return
	}
	for _, o := range c.ch.consumerOrder {
		if o == c {
			if _, dup := c.ch.consumers[c.tag]; dup {
				l.fail("inconsistent")
			}
			c.ch.consumers[c.tag] = c
		}
	}
}
