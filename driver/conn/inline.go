package conn

import "sync"

// A connection's goroutine writes what its own request queued — its
// replies and confirms, and the deliveries the request caused on any of
// the home's connections — right after the request, instead of waking
// each connection's writer for it: for a client that sends a publish or an
// ack at a time, the writer's wake-up (a futex and a second OS thread)
// cost more than the write. Only what a socket takes at once is written
// so (TCP's TryWrite); the rest, and any backlog larger than writeBatch,
// stays the writer's, so a client that does not read never holds up the
// goroutine that reads for another.

// writeInline runs do, a request to the backend, and then writes what it
// queued (see above).
func (c *conn) writeInline(do func()) {
	if tw, ok := c.t.(TryWriter); !ok || !tw.CanTryWrite() {
		do()
		return
	}
	iw := &c.home.inline
	c.out.hold()
	iw.open()
	do()
	others := iw.close(c.inlineOthers[:0])
	c.writeHeld()
	for _, o := range others {
		if o != c {
			o.writeHeld()
		}
	}
	clear(others)
	c.inlineOthers = others[:0]
}

// writeHeld writes what c's held outbox holds if the socket takes it at
// once, and hands the rest to the writer: it lets pushes wake the writer
// again and wakes it if anything is left.
func (c *conn) writeHeld() {
	wake := false
	if tw, ok := c.t.(TryWriter); ok && tw.CanTryWrite() && c.out.size() <= writeBatch && c.wmu.TryLock() {
		if !c.ws.ended {
			wake = c.drain(tw) || c.ws.ended || c.ws.closeLater
		}
		c.wmu.Unlock()
	}
	if c.out.unhold() || wake {
		c.out.signal()
	}
}

// inlineWrites is a home's record of the requests under writeInline and
// of the connections whose outboxes they filled. A connection's sink
// claims its outbox for them while one is under way (the sinks run where
// the backend applies commands); the request's goroutine takes the
// claimed ones when its turn is over and writes them. Whichever request's goroutine takes a
// claim writes it, so a claim made while any request is under way is
// always taken: claims and takes are under one mutex, and a request takes
// every claim there is when it ends.
type inlineWrites struct {
	mu       sync.Mutex
	requests int     // writeInline requests under way
	claimed  []*conn // connections whose outbox is held for one of them
}

// open counts a request under way.
func (w *inlineWrites) open() {
	w.mu.Lock()
	w.requests++
	w.mu.Unlock()
}

// close counts a request done and appends the connections claimed so far
// to into.
func (w *inlineWrites) close(into []*conn) []*conn {
	w.mu.Lock()
	w.requests--
	for _, c := range w.claimed {
		c.inlineClaimed = false
	}
	into = append(into, w.claimed...)
	clear(w.claimed)
	w.claimed = w.claimed[:0]
	w.mu.Unlock()
	return into
}

// claim holds c's outbox for a request under way, if there is one: its
// pushes then wake nobody until that request's goroutine writes them.
func (w *inlineWrites) claim(c *conn) {
	w.mu.Lock()
	if w.requests > 0 && !c.inlineClaimed {
		c.inlineClaimed = true
		c.out.hold()
		w.claimed = append(w.claimed, c)
	}
	w.mu.Unlock()
}
