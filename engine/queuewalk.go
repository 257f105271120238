package engine

// Walks: a policy change, and a vhost's deletion, visiting every queue of
// the vhost.
//
// Setting or clearing a policy re-resolves every queue's settings, and
// deleting a vhost deletes every queue; with 100,000 queues one command
// did that for 50-245 ms, most of it sorting the queues by name. Now the
// walk takes the vhost's queue names as they are (a borrowed listing, in
// the order it keeps them: declaration order, a deleted queue's slot taken
// by the last one), visits a batch per call (Config.MaxBatch, a visit's
// events counting against it), and leaves the rest to the bulk-end
// continuation (bulkend.go). Work a visit leaves for later (a queue's
// messages deleted or dropped in bulk) goes before the walk goes on, so a
// driver that settles sees the events one unbounded call makes, in order.
//
// Between the batches other commands run, and must see a consistent
// broker:
//
//   - A policy change takes effect for every queue in the command: each
//     queue knows the policy generation it was resolved at, and anything
//     that touches a queue the walk has not reached yet (a command naming
//     it, a message routed to it, a delivery, a return, a death, one of its
//     timers) first applies the change to it, exactly as the walk would
//     (queue.current). Finishing the walk first would make that command pay
//     for all of it; applying on touch costs it one queue's worth. RabbitMQ
//     itself tells each queue process of a policy change by message, so
//     queues take it up one after another; here no queue is ever seen
//     acting on the old policy after the change, and management views
//     show the new settings at once.
//   - A vhost's deletion takes the vhost away in the command: its
//     connections close with 320 CONNECTION_FORCED, a connection.open to it
//     or a management command on it fails as for a vhost that does not
//     exist, and nothing can reach its queues but their own timers, which
//     wait for the walk (it deletes each queue, expiring and dead-lettering
//     nothing past its vhost's end, as one unbounded call did). Deliveries
//     the closed channels give back reach their queues before the walk
//     starts, and the delayed messages its exchanges hold end with Dropped
//     events, a batch per call after the queues; one whose delay elapses
//     meanwhile ends the same way. VhostDeleted comes last.

// queueWalk is a policy change or a vhost deletion going through a
// vhost's queues (and for a deletion, its exchanges' delayed messages),
// as a bulk end's work.
type queueWalk struct {
	v        *vhost
	deleting bool
	// queues and exchanges are the vhost's names when the walk began;
	// nq and nx count those visited, and held how far the walk is into
	// the delayed messages of the exchange it is at.
	queues, exchanges [][]string
	nq, nx, held      int
	finished          bool
}

// listed returns the i-th name of a borrowed listing, in which every
// chunk but the last is full.
func listed(names [][]string, i int) string { return names[i/listingChunk][i%listingChunk] }

// left returns 1 while the walk has work left, 0 after, for bulkEnd.left.
func (w *queueWalk) left() int {
	if w.finished {
		return 0
	}
	return 1
}

// startWalk starts w: the first batch now, unless a deletion finds other
// work waiting (deliveries its closed channels give back, which reach
// their queues first); the rest through the bulk-end continuation.
func (b *Broker) startWalk(w *queueWalk) {
	held := len(b.ends)
	if !w.deleting || held == 0 {
		for budget := b.cfg.MaxBatch; budget > 0 && !w.finished && len(b.ends) == held; {
			budget -= b.stepWalk(w)
		}
	}
	if !w.finished {
		b.holdEnd(bulkEnd{vhost: w.v.name, walk: w})
	}
}

// stepWalk visits the walk's next queue, or drops the next delayed message
// of a deleted vhost, and finishes the walk after the last unless the
// visit left work for later, which goes first. It returns what it cost:
// the events it made, and at least one.
func (b *Broker) stepWalk(w *queueWalk) int {
	events, held := b.events.len(), len(b.ends)
	b.visitNext(w)
	if len(b.ends) == held && w.visitedAll() {
		b.finishWalk(w)
	}
	return max(1, b.events.len()-events)
}

// visitNext visits the walk's next queue, or for a deletion once the
// queues are gone the next exchange's next delayed message.
func (b *Broker) visitNext(w *queueWalk) {
	v := w.v
	switch {
	case w.finished || w.superseded():
	case w.nq < w.queueCount():
		q, ok := v.queues[listed(w.queues, w.nq)]
		w.nq++
		if ok {
			if w.deleting {
				q.delete("vhost-deleted")
			} else {
				q.current()
			}
		}
	case w.deleting && w.nx < w.exchangeCount():
		x, ok := v.exchanges[listed(w.exchanges, w.nx)]
		for ok && w.held < len(x.held) && x.held[w.held] == nil {
			w.held++
		}
		if !ok || w.held == len(x.held) {
			if ok {
				x.held, x.heldGone = nil, 0
			}
			w.nx, w.held = w.nx+1, 0
			break
		}
		d := x.held[w.held]
		x.held[w.held] = nil
		w.held++
		v.dropHeld(x, d)
	}
}

// visitedAll reports whether the walk has nothing left to visit (or
// nothing left to do at all).
func (w *queueWalk) visitedAll() bool {
	return w.finished || w.superseded() || (w.nq == w.queueCount() && (!w.deleting || w.nx == w.exchangeCount()))
}

// superseded reports whether a policy walk has nothing left to do: its
// vhost is being deleted, or a later change walks the queues again.
func (w *queueWalk) superseded() bool {
	return !w.deleting && (w.v.deleted || w.v.policyWalk != w)
}

// finishWalk ends a walk that has visited everything: a deletion with
// VhostDeleted. A walk superseded just ends.
func (b *Broker) finishWalk(w *queueWalk) {
	if w.finished {
		return
	}
	w.finished = true
	if w.superseded() {
		return
	}
	if w.deleting {
		b.emit(Event{Kind: EvVhostDeleted, Vhost: w.v.name})
	} else {
		w.v.policyWalk = nil
	}
}

func (w *queueWalk) queueCount() int    { return countListed(w.queues) }
func (w *queueWalk) exchangeCount() int { return countListed(w.exchanges) }

func countListed(names [][]string) int {
	if len(names) == 0 {
		return 0
	}
	return (len(names)-1)*listingChunk + len(names[len(names)-1])
}

// heldFirst moves the bulk ends held since b.ends had held of them to the
// front, and reports whether there were any: work a walk's visit left for
// later goes before the walk goes on (see the file comment).
func (b *Broker) heldFirst(held int) bool {
	if len(b.ends) == held {
		return false
	}
	b.ends = append(append([]*bulkEnd(nil), b.ends[held:]...), b.ends[:held]...)
	return true
}

// policiesChanged starts applying the vhost's policies to its queues
// after a policy change (see the file comment).
func (v *vhost) policiesChanged() {
	v.policyGen++
	w := &queueWalk{v: v, queues: v.counts.queueNames.borrow()}
	v.policyWalk = w
	v.b.startWalk(w)
}

// current applies the vhost's policies to q if a change has not reached it
// yet: anything that touches a queue calls it first (see the file
// comment).
func (q *queue) current() {
	if q.policyGen != q.vhost.policyGen && !q.deleted && !q.vhost.deleted {
		q.applyPolicy()
	}
}

// settingsNow returns the queue's settings as a policy change not yet
// applied to it will make them, for views, which change nothing.
func (q *queue) settingsNow() queueSettings {
	if q.policyGen == q.vhost.policyGen || q.deleted || q.vhost.deleted {
		return q.set
	}
	s := q.resolveSettings()
	s.maxPriority = q.set.maxPriority
	return s
}

// startDeletion takes the vhost away and starts deleting what it holds
// (see the file comment).
func (v *vhost) startDeletion() {
	b := v.b
	v.deleted = true
	delete(b.vhosts, v.name)
	for _, id := range b.connIDs() {
		if c := b.conns[id]; c.vhost == v {
			b.closeConnection(c, ConnectionForced, "CONNECTION_FORCED - vhost '"+v.name+"' is deleted", Method{})
		}
	}
	b.startWalk(&queueWalk{v: v, deleting: true, queues: v.counts.queueNames.borrow(), exchanges: v.counts.exchangeNames.borrow()})
}
