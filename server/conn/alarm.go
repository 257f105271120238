package conn

import (
	"sync"

	"warren/engine"
	"warren/server/amqp"
)

// Alarm is the server's memory alarm, RabbitMQ's vm_memory_high_watermark
// for queued messages: when the ready messages' estimated memory passes
// HighWatermark, publishing connections are blocked (their next
// basic.publish waits, so the socket stops being read) and clients that
// announced the connection.blocked capability are told why; consumers keep
// draining, and when memory falls back under the watermark everyone is
// unblocked. Nothing is dropped.
type Alarm struct {
	// HighWatermark is the limit in bytes; zero disables the alarm.
	HighWatermark int64
	// PerMessageBytes is the estimated engine overhead of a queued message
	// beyond its body (see BENCHMARKS.md: about 123 bytes measured).
	PerMessageBytes int64

	mu    sync.Mutex
	on    bool
	wake  chan struct{}
	conns map[*conn]bool // touched on the broker goroutine only
}

func (a *Alarm) init() {
	if a.wake == nil {
		a.wake = make(chan struct{})
		a.conns = map[*conn]bool{}
	}
	if a.PerMessageBytes == 0 {
		a.PerMessageBytes = 150
	}
}

// Events is the broker observer: after every batch of events it compares
// the engine's ready totals with the watermark.
func (a *Alarm) Events(e *engine.Broker, _ []engine.Event) {
	if a.HighWatermark <= 0 {
		return
	}
	msgs, bytes := e.ReadyTotals()
	over := bytes+msgs*a.PerMessageBytes > a.HighWatermark
	a.mu.Lock()
	changed := over != a.on
	a.on = over
	if changed && !over {
		close(a.wake)
		a.wake = make(chan struct{})
	}
	a.mu.Unlock()
	if !changed {
		return
	}
	for c := range a.conns {
		if c.caps["connection.blocked"] != true {
			continue
		}
		if over {
			c.out.push(outItem{method: &amqp.ConnectionBlocked{Reason: "low on memory"}})
		} else {
			c.out.push(outItem{method: &amqp.ConnectionUnblocked{}})
		}
	}
}

// waitPublish blocks the caller (a connection goroutine about to process a
// publish) while the alarm is on, or until done closes.
func (a *Alarm) waitPublish(done <-chan struct{}) {
	for {
		a.mu.Lock()
		on, wake := a.on, a.wake
		a.mu.Unlock()
		if !on {
			return
		}
		select {
		case <-wake:
		case <-done:
			return
		}
	}
}
