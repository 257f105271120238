package engine

// The timers and the work in flight, as Save writes them: armed timers in
// firing order with their arming numbers, and the bulk ends (bulkend.go)
// with what each still has to do. load_work.go reads them back.

// Timer owners, as saved.
const (
	ownQueueExpiry byte = iota + 1
	ownQueueLease
	ownQueueDispatch
	ownAck
	ownDelayed
	ownBulkEnd
)

func (s *saver) timers() {
	ts := s.sortedTimers()
	s.uvarint(s.b.timers.LastSeq())
	s.uvarint(uint64(len(ts)))
	for _, t := range ts {
		r := t.Value
		switch r.kind {
		case timerQueueExpiry:
			s.byte1(ownQueueExpiry)
			s.uvarint(uint64(s.qIx[r.q]))
		case timerQueueLease:
			s.byte1(ownQueueLease)
			s.uvarint(uint64(s.qIx[r.q]))
		case timerQueueDispatch:
			s.byte1(ownQueueDispatch)
			s.uvarint(uint64(s.qIx[r.q]))
		case timerAckTimeout:
			s.byte1(ownAck)
			s.uvarint(uint64(s.chanIx[r.ch]))
		case timerDelayed:
			s.byte1(ownDelayed)
			s.uvarint(uint64(s.xIx[r.d.x]))
			s.uvarint(uint64(r.d.heldAt))
		case timerBulkEnd:
			s.byte1(ownBulkEnd)
		}
		s.varint(t.At)
		s.uvarint(t.Seq())
		s.boolean(r.armedDue)
	}
}

// Commit references of a bulk end.
const (
	commitNone    = 0
	commitCurrent = 1 // its channel's commit under way
	commitStale   = 2 // finished early: the end only has to notice
)

func (s *saver) bulkEnd(end *bulkEnd) {
	s.str(end.vhost)
	s.str(end.queue)
	s.byte1(byte(end.kind))
	s.str(end.reason)
	s.store(&end.held)
	s.boolean(end.dl != nil)
	if end.dl != nil {
		s.dlSource(end.dl)
	}
	s.uvarint(uint64(end.dead.len()))
	for i := 0; i < end.dead.len(); i++ {
		s.msg(*end.dead.at(i))
	}
	if end.ch == nil {
		s.uvarint(0)
	} else {
		s.uvarint(uint64(s.chanIx[end.ch]) + 1)
	}
	s.deliveries(&end.acked)
	s.queueList(end.then)
	s.uvarint(uint64(end.pos))
	s.byte1(byte(end.how))
	s.queueList(end.autoDelete)
	switch {
	case end.commit == nil:
		s.byte1(commitNone)
	case end.ch.commit == end.commit:
		s.byte1(commitCurrent)
	default:
		s.byte1(commitStale)
	}
	s.boolean(end.walk != nil)
	if w := end.walk; w != nil {
		s.uvarint(uint64(s.vhostIx[w.v]))
		s.boolean(w.deleting)
		s.names(w.queues)
		s.names(w.exchanges)
		s.uvarint(uint64(w.nq))
		s.uvarint(uint64(w.nx))
		s.uvarint(uint64(w.held))
		s.boolean(w.finished)
	}
}

func (s *saver) names(chunks [][]string) {
	s.uvarint(uint64(countListed(chunks)))
	for _, c := range chunks {
		for _, n := range c {
			s.str(n)
		}
	}
}

func (s *saver) dlSource(src *deadLetterSource) {
	s.uvarint(uint64(s.vhostIx[src.vhost]))
	s.str(src.queue)
	s.str(src.dlx)
	s.str(src.dlrk)
	s.boolean(src.hasDLRK)
}
