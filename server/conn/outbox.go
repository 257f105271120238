package conn

import (
	"sync"

	"warren/engine"
	"warren/server/amqp"
)

// outItem is one thing to send: a method (with optional content) built by
// the connection, or an engine event the writer turns into frames.
type outItem struct {
	channel    uint16
	method     amqp.Method
	props      *amqp.Properties
	body       []byte
	ev         *engine.Event
	raw        []byte // pre-encoded bytes (the protocol header)
	closeAfter bool
}

// outbox is the ordered queue between the producers (the connection
// goroutine's replies, made on the broker goroutine, and the event sink)
// and the writer. Its byte count drives back-pressure.
type outbox struct {
	mu     sync.Mutex
	items  []outItem
	bytes  int
	notify chan struct{}
	closed bool
}

func newOutbox() *outbox { return &outbox{notify: make(chan struct{}, 1)} }

func (o *outbox) push(it outItem) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.items = append(o.items, it)
	o.bytes += itemSize(it)
	o.mu.Unlock()
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

// take returns everything queued.
func (o *outbox) take(dst []outItem) ([]outItem, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	dst = append(dst, o.items...)
	clear(o.items)
	o.items = o.items[:0]
	n := o.bytes
	o.bytes = 0
	return dst, n
}

func (o *outbox) size() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}

func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

func itemSize(it outItem) int {
	n := 64 + len(it.body) + len(it.raw)
	if it.ev != nil && it.ev.Msg != nil {
		n += len(it.ev.Msg.Body)
	}
	return n
}
