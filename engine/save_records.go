package engine

import "sort"

// The records Save writes, one function per kind of object; load_records.go
// reads them back in the same order.

func (s *saver) saveBroker() {
	b := s.b
	s.buf = append(s.buf, snapshotMagic...)
	s.uvarint(snapshotVersion)
	c := b.cfg
	s.uvarint(c.Seed)
	s.varint(c.ConsumerTimeoutMs)
	s.varint(c.EpochMs)
	s.varint(int64(c.MaxQueuesPerVhost))
	s.varint(c.MaxMessagesPerVhost)
	s.varint(int64(c.MaxDeadLetterHops))
	s.varint(int64(c.MaxBatch))
	s.boolean(c.RecordCommands)
	s.varint(int64(b.now))
	s.uvarint(b.rng)
	s.uvarint(uint64(b.nextCon))
	s.uvarint(b.nextMsg)
	s.uvarint(b.consumerSeq)
	s.uvarint(b.bindingSerial)
	s.uvarint(b.delayedCount)
	s.tally(b.ready)
	s.tally(b.unacked)
	s.tally(b.delayed)

	for i, end := range b.ends {
		if end.walk != nil {
			s.ends[end.walk] = i
		}
	}
	for _, n := range []int{len(s.vhosts), len(s.exchanges), len(s.queues), len(s.conns), len(s.chans), len(s.consumers)} {
		s.uvarint(uint64(n))
	}
	for _, v := range s.vhosts {
		s.vhost(v)
	}
	for _, x := range s.exchanges {
		s.exchange(x)
	}
	for _, q := range s.queues {
		s.queue(q)
	}
	for _, c := range s.conns {
		s.conn(c)
	}
	for _, ch := range s.chans {
		s.channel(ch)
	}
	for _, c := range s.consumers {
		s.consumer(c)
	}

	s.timers()
	s.uvarint(uint64(len(b.ends)))
	for _, end := range b.ends {
		s.bulkEnd(end)
	}
	s.uvarint(uint64(len(b.pendingDL)))
	for _, p := range b.pendingDL {
		s.dlSource(p.deadLetterSource)
		s.msg(p.msg)
		s.str(p.reason)
	}
	s.extra(b.lastDeath)
	k := b.lastDeathKey
	s.extra(k.old)
	for _, v := range []string{k.queue, k.reason, k.exchange, k.routingKey, k.expiration} {
		s.str(v)
	}
	s.varint(int64(k.timeSec))
	s.boolean(k.hasDLRK)
	s.uvarint(uint64(b.connRefs.n))
	eachListed(&b.connRefs, func(r ConnRef) { s.uvarint(uint64(s.connIx[b.conns[r.ID]])) })
	s.uvarint(uint64(b.chanRefs.n))
	eachListed(&b.chanRefs, func(r ChannelRef) { s.uvarint(uint64(s.chanIx[b.chans[r.ID]])) })
	s.users()
	s.replyConsumers()
}

func (s *saver) vhost(v *vhost) {
	s.str(v.name)
	s.boolean(v.deleted)
	s.uvarint(v.policyGen)
	s.tally(v.ready)
	s.varint(int64(v.counts.consumers))
	s.tally(v.counts.unacked)
	s.varint(int64(v.counts.connections))
	s.varint(int64(v.counts.channels))
	users := make([]string, 0, len(v.counts.byUser))
	for u := range v.counts.byUser {
		users = append(users, u)
	}
	sort.Strings(users)
	s.uvarint(uint64(len(users)))
	for _, u := range users {
		s.str(u)
		s.varint(int64(v.counts.byUser[u].connections))
		s.varint(int64(v.counts.byUser[u].channels))
	}
	s.uvarint(uint64(v.counts.exchangeNames.n))
	eachListed(&v.counts.exchangeNames, func(n string) { s.uvarint(uint64(s.xIx[v.exchanges[n]])) })
	s.uvarint(uint64(v.counts.queueNames.n))
	eachListed(&v.counts.queueNames, func(n string) { s.uvarint(uint64(s.qIx[v.queues[n]])) })
	s.policies(v.policies)
	s.policies(v.opPolicies)
	// The policy walk under way, by its place among the pending work
	// (a finished one of a deleted vhost matters no more).
	if i, ok := s.ends[v.policyWalk]; ok && v.policyWalk != nil {
		s.uvarint(uint64(i) + 1)
	} else {
		s.uvarint(0)
	}
}

func (s *saver) policies(set map[string]*Policy) {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	s.uvarint(uint64(len(names)))
	for _, n := range names {
		p := set[n]
		s.str(p.Vhost)
		s.str(p.Name)
		s.str(p.Pattern)
		s.str(p.ApplyTo)
		s.varint(int64(p.Priority))
		s.table(p.Definition, 0)
	}
}

func (s *saver) exchange(x *exchange) {
	s.uvarint(uint64(s.vhostIx[x.vhost]))
	s.str(x.name)
	s.str(x.kind)
	s.str(x.route)
	s.boolean(x.durable)
	s.boolean(x.autoDelete)
	s.boolean(x.internal)
	s.boolean(x.deleted)
	s.table(x.args, 0)
	s.uvarint(uint64(len(x.bindings)))
	pos := make(map[*binding]int, len(x.bindings))
	for i, bd := range x.bindings {
		pos[bd] = i
		if bd.dst.q != nil {
			s.uvarint(uint64(s.qIx[bd.dst.q]) << 1)
		} else {
			s.uvarint(uint64(s.xIx[bd.dst.x])<<1 | 1)
		}
		s.str(bd.key)
		s.table(bd.args, 0)
		s.str(bd.xmatch)
		s.uvarint(bd.serial)
		s.via(bd.viaDirect)
		s.via(bd.viaAlt)
	}
	if x.route == KindTopic {
		// The order to add the bindings in so that the trie matches in
		// the order this one does: pattern by pattern, each pattern's
		// bindings in the trie's order.
		done := map[string]bool{}
		for _, bd := range x.bindings {
			if done[bd.key] {
				continue
			}
			done[bd.key] = true
			for _, o := range x.topic.Values(bd.key) {
				s.uvarint(uint64(pos[o]))
			}
		}
	}
	s.uvarint(uint64(len(x.held)))
	s.uvarint(uint64(x.heldGone))
	for _, d := range x.held {
		if d == nil {
			s.boolean(false)
			continue
		}
		s.boolean(true)
		s.msg(d.msg)
		s.varint(d.delay)
	}
}

func (s *saver) queue(q *queue) {
	s.uvarint(uint64(s.vhostIx[q.vhost]))
	s.str(q.name)
	s.boolean(q.durable)
	s.boolean(q.exclusive)
	s.boolean(q.autoDelete)
	s.connRef(q.owner)
	s.table(q.args, 0)
	s.boolean(q.quorum)
	s.boolean(q.sac)
	s.boolean(q.deleted)
	st := q.set
	for _, n := range []int64{st.ttlMs, st.expiresMs, st.maxLen, st.maxBytes, st.deliveryLimit, int64(st.maxPriority)} {
		s.varint(n)
	}
	for _, v := range []string{st.overflow, st.dlx, st.dlrk, st.policy, st.opPolicy} {
		s.str(v)
	}
	s.boolean(st.hasDLX)
	s.boolean(st.hasDLRK)
	if s.share { // the ready messages go in readySection
		s.ready = append(s.ready, copyStore(&q.ready))
	} else {
		s.readyQs = append(s.readyQs, q)
	}
	s.varint(int64(q.unacked))
	s.varint(q.unackedBytes)
	s.uvarint(q.nextSeq)
	s.varint(int64(q.returning))
	s.uvarint(uint64(len(q.consumers)))
	for _, c := range q.consumers {
		s.uvarint(uint64(s.conIx[c]))
	}
	s.boolean(q.hadConsumers)
	s.consumerRef(q.exclusiveC)
	s.consumerRef(q.active)
	s.uvarint(q.policyGen)
	s.via(q.viaDefault)
}

func (s *saver) connRef(c *connection) {
	if c == nil {
		s.uvarint(0)
		return
	}
	s.uvarint(uint64(s.connIx[c]) + 1)
}

func (s *saver) consumerRef(c *consumer) {
	if c == nil {
		s.uvarint(0)
		return
	}
	s.uvarint(uint64(s.conIx[c]) + 1)
}

func (s *saver) conn(c *connection) {
	s.uvarint(uint64(c.id))
	s.uvarint(uint64(s.vhostIx[c.vhost]))
	s.str(c.name)
	s.str(c.user)
	s.table(c.clientProps, 0)
	s.boolean(c.grants != nil)
	if g := c.grants; g != nil {
		p := g.perms
		s.str(p.Configure)
		s.str(p.Write)
		s.str(p.Read)
		s.uvarint(uint64(len(p.Topics)))
		for _, t := range p.Topics {
			s.str(t.Exchange)
			s.str(t.Write)
			s.str(t.Read)
		}
		s.boolean(p.Impersonator)
	}
	s.boolean(c.paused)
	s.boolean(s.b.conns[c.id] == c)
	nums := sortedChannelNums(c)
	s.uvarint(uint64(len(nums)))
	for _, n := range nums {
		s.uvarint(uint64(s.chanIx[c.channels[n]]))
	}
}

func (s *saver) channel(ch *channel) {
	s.uvarint(uint64(s.connIx[ch.conn]))
	s.uvarint(uint64(ch.id.Num))
	s.boolean(ch.closed)
	s.uvarint(ch.nextTag)
	s.deliveries(&ch.unacked)
	s.varint(int64(ch.unackedLive))
	s.str(ch.lastQueue)
	s.uvarint(uint64(len(ch.consumerOrder)))
	for _, c := range ch.consumerOrder {
		s.uvarint(uint64(s.conIx[c]))
	}
	s.varint(int64(ch.prefetch))
	s.varint(int64(ch.globalPrefetch))
	s.varint(int64(ch.consumerLive))
	s.boolean(ch.confirm)
	s.uvarint(ch.publishSeq)
	s.boolean(ch.tx)
	s.txPubs(ch.txPubs)
	s.txAcks(ch.txAcks)
	s.boolean(ch.commit != nil)
	if c := ch.commit; c != nil {
		s.uvarint(uint64(len(c.pubs)))
		s.uvarint(uint64(len(c.acks)))
		s.uvarint(uint64(c.next))
		s.txPubs(c.pubs[min(c.next, len(c.pubs)):])
		s.txAcks(c.acks[max(0, c.next-len(c.pubs)):])
		s.queueList(c.queues)
	}
	// An idle ack timer is not saved (see sortedTimers): the loaded
	// channel has none, which behaves the same.
	s.boolean(false)
}

func (s *saver) txPubs(ps []txPublish) {
	s.uvarint(uint64(len(ps)))
	for _, p := range ps {
		s.uvarint(uint64(s.xIx[p.x]))
		s.msg(p.msg)
		s.boolean(p.mandatory)
	}
}

func (s *saver) txAcks(as []txAck) {
	s.uvarint(uint64(len(as)))
	for i := range as {
		s.delivery(&as[i].d, nil)
		s.boolean(as[i].kind.ack)
		s.boolean(as[i].kind.requeue)
	}
}

func (s *saver) queueList(qs []*queue) {
	s.uvarint(uint64(len(qs)))
	for _, q := range qs {
		s.uvarint(uint64(s.qIx[q]))
	}
}

func (s *saver) consumer(c *consumer) {
	s.uvarint(uint64(s.chanIx[c.ch]))
	s.uvarint(uint64(s.qIx[c.q]))
	s.str(c.tag)
	s.boolean(c.noAck)
	s.boolean(c.exclusive)
	s.varint(c.priority)
	s.varint(int64(c.prefetch))
	s.varint(int64(c.unacked))
	s.table(c.args, 0)
	s.uvarint(c.seq)
}
