package conn

import (
	"sync"

	"warren/engine"
	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// outItem is one thing to send: a method built by the machine or the
// connection, or an engine event the writer turns into frames. Every
// delivery and confirm is one, written into a chunk and cleared after:
// it holds nothing more (no content of a method's own: the machine
// builds none).
type outItem struct {
	channel    uint16
	method     amqp.Method
	ev         amqpconn.EventFrames // an event to encode, when ev.Kind is not 0 (kept by value: no allocation per delivery)
	raw        []byte               // pre-encoded bytes (the protocol header)
	closeAfter bool
	skip       bool // folded into a later item by the writer (coalesceConfirms)
}

// chunkItems is how many items an outbox chunk holds.
const chunkItems = 64

// outChunk is a fixed run of items. The outbox is a queue of chunks rather
// than one growing slice: a consumer's backlog of deliveries (up to
// OutboxHighWater bytes, tens of thousands of items) then never has to be
// copied to a larger slice, and chunks are reused.
type outChunk struct {
	items [chunkItems]outItem
	n     int
}

// chunkPool holds the outboxes' empty chunks between uses, shared: a chunk
// is some 10 KB, and an outbox keeping its own (it used to keep up to
// eight) made every idle connection hold one it had used for the
// handshake (warren-bench idle-memory).
var chunkPool = sync.Pool{New: func() any { return new(outChunk) }}

// outbox is the ordered queue between the producers (the owner's sends,
// the sink's stateless events, the alarm's notices, confirms released by
// the disk) and the writer. Its byte count drives back-pressure.
type outbox struct {
	mu     sync.Mutex
	chunks []*outChunk
	bytes  int
	// inflight are the bytes the last take handed the writer, until it
	// has written them (written): they still wait for the socket, and
	// count for back-pressure.
	inflight int
	notify   chan struct{}
	closed   bool
	// held is set while the connection's own goroutine runs a request
	// and will write what it queues itself (conn.writeInline): a push
	// then does not wake the writer.
	held bool
}

func newOutbox() *outbox { return &outbox{notify: make(chan struct{}, 1)} }

// push queues a copy of *it.
func (o *outbox) push(it *outItem) {
	o.mu.Lock()
	slot := o.slot()
	if slot == nil {
		o.mu.Unlock()
		return
	}
	*slot = *it
	o.pushed(slot)
}

// pushEvent queues a method, or with frames the frames of ev (a
// delivery, return or confirm; amqpconn.EventSend), made in place.
func (o *outbox) pushEvent(ch uint16, meth amqp.Method, ev *engine.Event, frames bool) {
	p := o.pushes()
	p.event(ch, meth, ev, frames)
	p.done()
}

// pushes is a run of pushEvent's under one hold of the outbox's lock: the
// sink queues a batch of events so, a lock and an unlock a batch instead
// of one an event (pushEvent's were a third of its cost). Begin with
// outbox.pushes, end with done. Nothing that locks the outbox may run
// between, nor the backend's LogEnd or AfterDurable: the durability queue
// releases a held confirm under its own lock, pushing it here
// (releaseHeld), so a run must end before its lock is taken.
type pushes struct {
	o      *outbox
	locked bool
	n      int
}

func (o *outbox) pushes() pushes { return pushes{o: o} }

// event is pushEvent within the run.
func (p *pushes) event(ch uint16, meth amqp.Method, ev *engine.Event, frames bool) {
	o := p.o
	if !p.locked {
		o.mu.Lock()
		p.locked = true
	}
	slot := o.slot()
	if slot == nil {
		return
	}
	slot.channel, slot.method = ch, meth
	if frames {
		slot.ev = amqpconn.FramesOf(ev)
	}
	o.bytes += itemSize(slot)
	p.n++
}

// done ends the run: it unlocks the outbox and wakes the writer if
// anything was queued. A run may go on after it.
func (p *pushes) done() {
	if !p.locked {
		return
	}
	o := p.o
	held := o.held
	o.mu.Unlock()
	if p.n > 0 && !held {
		o.signal()
	}
	p.locked, p.n = false, 0
}

// slot is the next item's place, empty, under o.mu; nil once closed.
func (o *outbox) slot() *outItem {
	if o.closed {
		return nil
	}
	var last *outChunk
	if n := len(o.chunks); n > 0 && o.chunks[n-1].n < chunkItems {
		last = o.chunks[n-1]
	} else {
		last = chunkPool.Get().(*outChunk)
		o.chunks = append(o.chunks, last)
	}
	last.n++
	return &last.items[last.n-1]
}

// pushed ends a push of the item in slot: it counts its bytes, unlocks
// o.mu and wakes the writer.
func (o *outbox) pushed(slot *outItem) {
	o.bytes += itemSize(slot)
	held := o.held
	o.mu.Unlock()
	if !held {
		o.signal()
	}
}

// signal wakes the writer.
func (o *outbox) signal() {
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

// hold stops pushes from waking the writer until unhold.
func (o *outbox) hold() {
	o.mu.Lock()
	o.held = true
	o.mu.Unlock()
}

// unhold lets pushes wake the writer again, and reports whether anything
// is queued: whatever was pushed while held and not written since is then
// the writer's to send.
func (o *outbox) unhold() (queued bool) {
	o.mu.Lock()
	o.held = false
	queued = len(o.chunks) > 0
	o.mu.Unlock()
	return queued
}

// take returns every chunk queued, in order; spare is an empty slice
// whose array the outbox keeps for the chunks queued next.
func (o *outbox) take(spare []*outChunk) ([]*outChunk, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	taken := o.chunks
	o.chunks = spare[:0]
	n := o.bytes
	o.bytes = 0
	o.inflight = n
	return taken, n
}

// written says the writer has written what the last take returned.
func (o *outbox) written() {
	o.mu.Lock()
	o.inflight = 0
	o.mu.Unlock()
}

// recycle gives back chunks a take returned, once written, and returns
// the slice emptied.
func recycle(cs []*outChunk) []*outChunk {
	for i, c := range cs {
		clear(c.items[:c.n])
		c.n = 0
		chunkPool.Put(c)
		cs[i] = nil
	}
	return cs[:0]
}

// size is the bytes waiting to be written: queued, or taken by a write
// that has not finished.
func (o *outbox) size() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes + o.inflight
}

// drained says whether the outbox is closed and nothing is left to send.
func (o *outbox) drained() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed && len(o.chunks) == 0
}

func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.signal()
}

func itemSize(it *outItem) int {
	n := 64 + len(it.raw)
	if it.ev.Msg != nil {
		n += len(it.ev.Msg.Body)
	}
	return n
}
