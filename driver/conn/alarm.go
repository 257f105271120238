package conn

import (
	"sync"
	"time"

	"warren/engine"
	"warren/engine/amqp"
)

// Alarm is the server's memory alarm, RabbitMQ's vm_memory_high_watermark
// for the messages the broker holds: ready in queues, delivered and not yet
// acknowledged, and held by delayed-message exchanges (a consumer that
// never acks holds messages as surely as a queue does), and its disk
// alarm. While one is set, a connection's next basic.publish waits, so its
// socket stops being read; consumers keep draining. Nothing is dropped. A
// blocked connection whose peer goes away (a heartbeat to it fails) ends.
//
// As RabbitMQ's reader does (rabbit_reader's throttle), a connection is
// told connection.blocked — if it announced the capability — when it
// publishes while an alarm is set, once, with the reasons set at that
// moment ("low on memory", "low on disk", both: "low on disk & memory");
// and connection.unblocked when every alarm has cleared, only if it was
// told it was blocked. A connection that does not publish hears of
// neither.
//
// The memory alarm is set as soon as the totals after a batch pass the
// watermark (Warren counts exactly, so memory never overshoots by more
// than a batch), and clears at the first of its checks, one every
// MonitorInterval from the moment it was set, at which they are back under
// it: RabbitMQ's vm_memory_monitor looks every memory_monitor_interval
// (2.5 s by default), so a flood that hovers at the watermark blocks and
// releases its publishers at most once an interval, not after every batch
// (each change is a frame to every blocked publisher and a wake-up of each).
type Alarm struct {
	// HighWatermark is the limit in bytes; zero disables the alarm.
	HighWatermark int64
	// PerMessageBytes is the estimated engine overhead of a held message
	// beyond its body (BENCHMARKS.md, "Engine, native": 133 bytes measured for a
	// queued one).
	PerMessageBytes int64
	// MonitorInterval is how often a set memory alarm looks whether it
	// may clear (RabbitMQ's memory_monitor_interval); zero is
	// DefaultMemoryMonitorInterval, negative clears it as soon as the
	// totals are under the watermark.
	MonitorInterval time.Duration

	mu sync.Mutex
	// over says the last totals were past the watermark; memory is the
	// memory alarm as set (over, or cleared at a check only); session is
	// a shared session's bytes limit (SetMemory); disk the disk alarm.
	over, memory, session, disk bool
	// checking says a check of the memory alarm is scheduled.
	checking bool
	on       bool
	wake     chan struct{}
	// changes counts the alarm's transitions (set and cleared).
	changes int
	// conns are the open connections of the alarm's home, each with
	// whether it has been told connection.blocked since the alarm last
	// cleared.
	conns map[*conn]bool
}

// DefaultMemoryMonitorInterval is RabbitMQ's memory_monitor_interval.
const DefaultMemoryMonitorInterval = 2500 * time.Millisecond

// add and remove make c one of the connections the alarm blocks.
func (a *Alarm) add(c *conn) {
	a.mu.Lock()
	a.conns[c] = false
	a.mu.Unlock()
}

func (a *Alarm) remove(c *conn) {
	a.mu.Lock()
	delete(a.conns, c)
	a.mu.Unlock()
}

func (a *Alarm) init() {
	if a.wake == nil {
		a.wake = make(chan struct{})
		a.conns = map[*conn]bool{}
	}
	if a.PerMessageBytes == 0 {
		a.PerMessageBytes = 150
	}
	if a.MonitorInterval == 0 {
		a.MonitorInterval = DefaultMemoryMonitorInterval
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
	over := held.Bytes+held.Msgs*a.PerMessageBytes > a.HighWatermark
	a.mu.Lock()
	defer a.mu.Unlock()
	a.over = over
	switch {
	case over && !a.memory:
		a.memory = true
		a.update()
		a.scheduleCheck()
	case !over && a.memory && a.MonitorInterval < 0:
		a.memory = false
		a.update()
	}
}

// scheduleCheck looks again, one MonitorInterval from now, whether the
// memory alarm may clear.
func (a *Alarm) scheduleCheck() {
	if a.checking || a.MonitorInterval < 0 {
		return
	}
	a.checking = true
	time.AfterFunc(a.MonitorInterval, a.check)
}

// check is the memory alarm's check: it clears if the last totals were
// under the watermark, and looks again an interval later if not.
func (a *Alarm) check() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.checking = false
	if !a.memory {
		return
	}
	if a.over {
		a.scheduleCheck()
		return
	}
	a.memory = false
	a.update()
}

// DiskFailed is told, under the backend's lock, when the store that keeps
// the broker's state on disk starts failing to write (disk full, an I/O
// error) or its file system has less free space than the disk-free limit
// (RabbitMQ's disk alarm, disk_free_limit), and when neither holds any
// more (err nil). Meanwhile publishers are blocked with RabbitMQ's reason,
// "low on disk"; consumers keep draining.
func (a *Alarm) DiskFailed(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.disk = err != nil
	a.update()
}

// SetMemory sets the memory reason from outside, on the backend's owner:
// a shared session whose queues hold its bytes limit blocks its
// publishers as RabbitMQ's memory alarm would, until consumers drain it.
func (a *Alarm) SetMemory(over bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.session != over {
		a.session = over
		a.update()
	}
}

// update, under a.mu, applies a change of the alarms: when the last one
// clears, the publishers waiting go on and those told connection.blocked
// are told connection.unblocked.
func (a *Alarm) update() {
	over := a.memory || a.session || a.disk
	if over == a.on {
		return
	}
	a.on = over
	a.changes++
	if over {
		return // publishers are told when they next publish (waitPublish)
	}
	close(a.wake)
	a.wake = make(chan struct{})
	for c, told := range a.conns {
		if told {
			a.conns[c] = false
			c.out.push(&outItem{method: &amqp.ConnectionUnblocked{}})
		}
	}
}

// reason is connection.blocked's reason for the alarms set, under a.mu:
// RabbitMQ's "low on " and the resources joined by " & ", in the order
// RabbitMQ 3.10.8 lists its set of them (disk before memory).
func (a *Alarm) reason() string {
	memory := a.memory || a.session
	switch {
	case memory && a.disk:
		return "low on disk & memory"
	case a.disk:
		return "low on disk"
	default:
		return "low on memory"
	}
}

// waitPublish blocks c's goroutine, about to process a publish, while an
// alarm is set, telling c connection.blocked first if it asked for such
// notices and has not been told since the alarm last cleared. It reports
// false if gone closes first (the connection lost its peer while blocked,
// and must end rather than publish) or woken does (woken true: the
// connection has an inbox to take, and waits again after).
func (a *Alarm) waitPublish(c *conn, gone, woken <-chan struct{}) (ok, wasWoken bool) {
	for {
		a.mu.Lock()
		on, wake := a.on, a.wake
		if on && c.notifyBlock {
			if told, open := a.conns[c]; open && !told {
				a.conns[c] = true
				c.out.push(&outItem{method: &amqp.ConnectionBlocked{Reason: a.reason()}})
			}
		}
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
