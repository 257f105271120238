package conn

// pushConfirm queues a publisher confirm (or nack, or tx.commit-ok). One
// that promises a message survives a restart (durable) waits until the
// command log is on disk up to the command that caused it (confirms.md:
// for persistent messages routed to durable queues, the ack means the
// message was persisted to disk), and while any of the connection's
// confirms wait, the later ones wait behind them: a later ack could carry
// multiple=true (coalesceConfirms) and so answer for a waiting one.
// Deliveries and replies never wait. Without a data directory nothing
// waits. pos is the command log's end when the event came (the backend's
// LogEnd, read under its lock), 0 for a confirm that need not wait.
//
// A held item waits in the connection's own FIFO, and the durability
// queue is handed the one method value that releases the oldest
// (releaseHeld): it runs its callbacks in the order they came, so each
// call releases the item its pushConfirm held, and no confirm allocates a
// closure (a confirm's item is a few hundred bytes).
func (c *conn) pushConfirm(it *outItem, pos uint64) {
	if c.confirmGoesNow(pos) {
		c.out.push(it)
		return
	}
	c.holdConfirm(it, pos)
}

// confirmGoesNow reports whether a confirm whose command the log holds up
// to pos (0: it need not wait) has nothing to wait for: no data
// directory, or not durable, and no confirm held before it.
func (c *conn) confirmGoesNow(pos uint64) bool { return pos == 0 && c.heldConfirms.Load() == 0 }

// holdConfirm keeps a confirm until the log is on disk up to pos.
func (c *conn) holdConfirm(it *outItem, pos uint64) {
	c.heldMu.Lock()
	c.held.push(it)
	c.heldMu.Unlock()
	c.heldConfirms.Add(1)
	c.b.AfterDurable(pos, c.releaseHeld)
}

// releaseHeld passes the oldest held confirm to the outbox (pushConfirm).
func (c *conn) releaseHeldItem() {
	c.heldMu.Lock()
	it := c.held.pop()
	c.heldMu.Unlock()
	c.out.push(&it)
	c.heldConfirms.Add(-1)
}

// heldQueue is a FIFO of confirms waiting for the disk. It is a slice
// with a moving head, moved down when the head has passed half of it, so
// a steady stream of held confirms reuses one array.
type heldQueue struct {
	items []outItem
	head  int
}

func (q *heldQueue) push(it *outItem) {
	if q.head > 0 && q.head >= len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, *it)
}

// pop removes and returns the oldest item; there must be one.
func (q *heldQueue) pop() outItem {
	it := q.items[q.head]
	q.items[q.head] = outItem{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return it
}
