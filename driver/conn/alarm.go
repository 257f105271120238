package conn

import (
	"sync"

	"warren/engine"
	"warren/engine/amqp"
)

// Alarm is the server's memory alarm, RabbitMQ's vm_memory_high_watermark
// for the messages the broker holds: ready in queues, delivered and not yet
// acknowledged, and held by delayed-message exchanges (a consumer that
// never acks holds messages as surely as a queue does). When their
// estimated memory passes HighWatermark, publishing connections are
// blocked (their next basic.publish waits, so the socket stops being read)
// and clients that announced the connection.blocked capability are told
// why; consumers keep draining, and when memory falls back under the
// watermark everyone is unblocked. Nothing is dropped. A blocked
// connection whose peer goes away (a heartbeat to it fails) ends.
type Alarm struct {
	// HighWatermark is the limit in bytes; zero disables the alarm.
	HighWatermark int64
	// PerMessageBytes is the estimated engine overhead of a held message
	// beyond its body (BENCHMARKS.md, "Engine, native": 133 bytes measured for a
	// queued one).
	PerMessageBytes int64

	// memory and disk are the two reasons to block, touched where the
	// backend hands out events (under its lock, or on a session's
	// goroutine) only.
	memory, disk bool

	mu   sync.Mutex
	on   bool
	wake chan struct{}
	// conns are the open connections of the alarm's home, which its
	// changes are told to; connsMu guards them (connections come and go
	// on their own goroutines, changes come under the backend's lock).
	connsMu sync.Mutex
	conns   map[*conn]bool
}

// add and remove make c one of the connections told of changes.
func (a *Alarm) add(c *conn) {
	a.connsMu.Lock()
	a.conns[c] = true
	a.connsMu.Unlock()
}

func (a *Alarm) remove(c *conn) {
	a.connsMu.Lock()
	delete(a.conns, c)
	a.connsMu.Unlock()
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

// Totals is the broker's totals watcher (Broker.WatchTotals): after every
// batch of events it compares the engine's message totals, kept as
// messages move, with the watermark.
func (a *Alarm) Totals(t engine.MessageTotals) {
	if a.HighWatermark <= 0 {
		return
	}
	held := t.All()
	a.memory = held.Bytes+held.Msgs*a.PerMessageBytes > a.HighWatermark
	a.update()
}

// DiskFailed is told, under the backend's lock, when the store that keeps
// the broker's state on disk starts failing to write (disk full, an I/O
// error) or its file system has less free space than the disk-free limit
// (RabbitMQ's disk alarm, disk_free_limit), and when neither holds any
// more (err nil). Meanwhile publishers are blocked with RabbitMQ's reason,
// "low on disk"; consumers keep draining.
func (a *Alarm) DiskFailed(err error) {
	a.disk = err != nil
	a.update()
}

// SetMemory sets the memory reason from outside, on the backend's owner:
// a shared session whose queues hold its bytes limit blocks its
// publishers as RabbitMQ's memory alarm would, until consumers drain it.
func (a *Alarm) SetMemory(over bool) {
	if a.memory != over {
		a.memory = over
		a.update()
	}
}

// update blocks or unblocks the publishing connections when the alarm's
// state changes, telling those that announced connection.blocked why, in
// RabbitMQ's words ("low on memory", "low on disk").
func (a *Alarm) update() {
	over := a.memory || a.disk
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
	reason := "low on memory"
	if !a.memory {
		reason = "low on disk"
	}
	a.connsMu.Lock()
	defer a.connsMu.Unlock()
	for c := range a.conns {
		if !c.notifyBlock {
			continue
		}
		if over {
			c.out.push(outItem{method: &amqp.ConnectionBlocked{Reason: reason}})
		} else {
			c.out.push(outItem{method: &amqp.ConnectionUnblocked{}})
		}
	}
}

// waitPublish blocks the caller (a connection goroutine about to process a
// publish) while the alarm is on. It reports false if gone closes first
// (the connection lost its peer while blocked, and must end rather than
// publish) or woken does (woken true: the connection has an inbox to
// take, and waits again after).
func (a *Alarm) waitPublish(gone, woken <-chan struct{}) (ok, wasWoken bool) {
	for {
		a.mu.Lock()
		on, wake := a.on, a.wake
		a.mu.Unlock()
		if !on {
			return true, false
		}
		select {
		case <-wake:
		case <-gone:
			return false, false
		case <-woken:
			return false, true
		}
	}
}
