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
// Quorum queues behave the same: "Quorum queues dead letter expired messages
// when they reach the head of the queue" (ttl.html, Per-Message TTL and Dead
// Lettering; observed likewise on RabbitMQ 3.10.8).

// headExpired reports whether the next message to deliver has expired.
func (q *queue) headExpired() bool {
	e := q.ready.head()
	return e != nil && e.expiresAt <= q.vhost.b.now
}

// expireDue removes the expired messages at the head of the queue, one
// after another until the head is live, but at most a batch of them
// (Config.MaxBatch): with more due, the queue's expiry timer is left due,
// a continuation, and the rest go when it fires (backlog.go). Each is
// dead-lettered with reason expired (or just ends, without a DLX). It
// reports whether the head is live (or the queue empty).
func (q *queue) expireDue() bool { return q.expireUpTo(q.vhost.b.cfg.MaxBatch) }

// expireUpTo is expireDue with a limit; a negative limit is none.
func (q *queue) expireUpTo(limit int) bool {
	now := q.vhost.b.now
	live := true
	for n := 0; ; n++ {
		e := q.ready.head()
		if e == nil || e.expiresAt > now {
			break
		}
		if n == limit {
			live = false
			break
		}
		q.expired(q.ready.pop().msg)
	}
	q.rearmExpiry()
	return live
}

func (q *queue) expired(m *Message) {
	ev := q.vhost.b.emitted(EvExpired)
	ev.Vhost, ev.Queue, ev.MsgID, ev.Msg = q.vhost.name, q.name, m.ID, m
	q.deadLetter(m, ReasonExpired)
}

// nextExpiring returns the entry whose expiry the queue's timer waits for.
func (q *queue) nextExpiring() *entry {
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
		// A head already expired is left for later: a continuation.
		q.expiryTimer.Value.armedDue = e.expiresAt <= b.now
		b.timers.Reset(&q.expiryTimer, int64(e.expiresAt))
	}
}

// retime applies a changed message TTL to the messages already queued,
// counting from when each was enqueued; the caller expires what is then
// due at the head (a replay of the durable log has the records of what
// expired instead). A TTL only ever brings an expiry forward: the
// documentation says a TTL applied to an existing queue discards its
// messages, and observed RabbitMQ keeps the expiry a message got on
// arrival when the TTL is later raised or removed.
//
// It reads no message: a copy's expiry is never later than its own
// expiration allows (it was at most that on arrival and only comes
// forward), so the lower of its expiry and the queue TTL's is the lower of
// its expiry and what the message's own expiration and the queue TTL
// give together. Re-timing 400,000 copies was a walk of the messages
// themselves, several milliseconds of a policy change.
func (q *queue) retime() {
	if ttl := q.set.ttlMs; ttl >= 0 {
		if ttl == 0 && q.quorum {
			ttl = 1 // see expiryFor
		}
		q.ready.unshare()
		q.ready.eachInPlace(func(e *entry) {
			if at := e.enqueuedAt + Time(ttl); at < e.expiresAt {
				e.expiresAt = at
			}
		})
	}
}
