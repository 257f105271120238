package engine

// The timers and the work in flight, as Load reads them (see
// save_work.go).

func (l *loader) timers() {
	b := l.b
	last := l.uvarint()
	n := l.count("items")
	for range n {
		var t *timerItem
		switch l.byte1() {
		case ownQueueExpiry:
			if q := l.queueAt(); q != nil {
				t = &q.expiryTimer
			}
		case ownQueueLease:
			if q := l.queueAt(); q != nil {
				t = &q.leaseTimer
			}
		case ownQueueDispatch:
			if q := l.queueAt(); q != nil {
				t = &q.dispatchTimer
			}
		case ownAck:
			if ch := l.chanAt(); ch != nil {
				t = &ch.ackTimer
			}
		case ownDelayed:
			x := l.exchangeAt()
			i := l.uvarint()
			if x != nil && i < uint64(len(x.held)) && x.held[i] != nil {
				t = &x.held[i].timer
			}
		case ownBulkEnd:
			t = &b.endsTimer
		}
		at, seq, due := l.varint(), l.uvarint(), l.boolean()
		if l.err != nil || t == nil || t.Armed() || seq > last {
			l.fail("inconsistent")
			return
		}
		t.Value.armedDue = due
		b.timers.Restore(t, at, seq)
	}
	b.timers.RestoreLastSeq(last)
}

func (l *loader) bulkEnd() *bulkEnd {
	end := &bulkEnd{vhost: l.str(), queue: l.str(), kind: EventKind(l.byte1()), reason: l.str()}
	end.held = l.store(nil, nil)
	if l.boolean() {
		end.dl = l.dlSource()
	}
	n := l.count("items")
	for range n {
		m := l.msg()
		if l.err != nil || m == nil {
			l.fail("inconsistent")
			return end
		}
		end.dead.push(m)
	}
	end.ch = optional(l, l.chans)
	end.acked = l.deliveries()
	end.then = l.queueList()
	// Past the list's length once the dead letters have begun (bulkack.go).
	end.pos = l.int(1<<31 - 1)
	end.how = returnHow(l.int(int(returnOnClose)))
	end.autoDelete = l.queueList()
	switch l.byte1() {
	case commitNone:
	case commitCurrent:
		if end.ch == nil || end.ch.commit == nil {
			l.fail("inconsistent")
			return end
		}
		end.commit = end.ch.commit
	case commitStale:
		if end.ch == nil {
			l.fail("inconsistent")
			return end
		}
		end.commit = &txCommit{}
	default:
		l.fail("inconsistent")
	}
	if l.boolean() {
		w := &queueWalk{v: l.vhostAt(), deleting: l.boolean()}
		w.queues, w.exchanges = l.names(), l.names()
		w.nq = l.int(countListed(w.queues))
		w.nx = l.int(countListed(w.exchanges))
		w.held = l.int(l.left())
		w.finished = l.boolean()
		end.walk = w
	}
	if l.err == nil && end.ch == nil && end.acked.len() > 0 {
		l.fail("inconsistent")
	}
	return end
}

// names reads a list of names into full chunks of listingChunk, the shape
// of a borrowed listing.
func (l *loader) names() [][]string {
	n := l.count("items")
	var out [][]string
	for i := 0; i < n && l.err == nil; i++ {
		if i%listingChunk == 0 {
			out = append(out, make([]string, 0, min(listingChunk, n-i)))
		}
		out[len(out)-1] = append(out[len(out)-1], l.str())
	}
	return out
}

func (l *loader) dlSource() *deadLetterSource {
	return &deadLetterSource{vhost: l.vhostAt(), queue: l.str(), dlx: l.str(), dlrk: l.str(), hasDLRK: l.boolean()}
}
