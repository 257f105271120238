package engine

// Message expiry.
//
// RabbitMQ's classic queues expire messages only at the head: "Only when
// expired messages reach the head of a queue will they actually be discarded
// (or dead-lettered)" (ttl.html, Caveats). An expired message behind a live
// one stays queued and counted until it reaches the head. In a priority
// queue the head is the next message to deliver, so "even per-queue TTL can
// lead to expired lower-priority messages getting stuck behind non-expired
// higher priority ones" (priority.html; observed: RabbitMQ 3.10.8,
// /work/probe-dl d6).
//
// Quorum queues remove expired messages wherever they are (Warren follows
// the current documentation here; see the quorum scenario tests).

// headExpired reports whether the next message to deliver has expired.
func (q *queue) headExpired() bool {
	e := q.ready.head()
	return e != nil && e.expiresAt <= q.vhost.b.now
}

// expireDue removes every message whose expiry has come: at the head of a
// classic queue, anywhere in a quorum queue. Each is dead-lettered with
// reason expired (or just ends, without a DLX).
func (q *queue) expireDue() { q.expire(false) }

// expire does expireDue's work. A quorum queue scans all its messages only
// when its timer is due or has just fired (force).
func (q *queue) expire(force bool) {
	b := q.vhost.b
	now := b.now
	if q.quorum {
		if !force && (!q.expiryTimer.Armed() || Time(q.expiryTimer.At) > now) {
			return
		}
		var dead []*Message
		q.ready.filter(func(e *entry) bool {
			if e.expiresAt <= now {
				dead = append(dead, e.msg)
				return false
			}
			return true
		})
		for _, m := range dead {
			q.expired(m)
		}
	} else {
		for {
			e := q.ready.head()
			if e == nil || e.expiresAt > now {
				break
			}
			q.expired(q.ready.pop().msg)
		}
	}
	q.rearmExpiry()
}

func (q *queue) expired(m *Message) {
	q.vhost.b.emit(Event{Kind: EvExpired, Vhost: q.vhost.name, Queue: q.name, MsgID: m.ID, Msg: m})
	q.deadLetter(m, ReasonExpired)
}

// nextExpiring returns the entry whose expiry the queue's timer waits for.
func (q *queue) nextExpiring() *entry {
	var best *entry
	if q.quorum {
		q.ready.each(func(e *entry) {
			if e.expiresAt != Never && (best == nil || e.expiresAt < best.expiresAt) {
				best = e
			}
		})
		return best
	}
	if e := q.ready.head(); e != nil && e.expiresAt != Never {
		return e
	}
	return nil
}

// rearmExpiry points the queue's expiry timer at the next expiring entry.
func (q *queue) rearmExpiry() {
	b := q.vhost.b
	e := q.nextExpiring()
	if e == nil || q.deleted {
		b.timers.Remove(&q.expiryTimer)
		return
	}
	if !q.expiryTimer.Armed() || Time(q.expiryTimer.At) != e.expiresAt {
		b.timers.Reset(&q.expiryTimer, int64(e.expiresAt))
	}
}
