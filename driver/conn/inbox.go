package conn

import (
	"sync"
	"sync/atomic"

	"warren/driver/sink"
	"warren/engine"
	"warren/engine/amqpconn"
)

// inbox is how other goroutines hand the connection's owner what only it
// may act on. The sink runs wherever the backend hands events out (under
// the server's broker lock, on whichever goroutine applied the commands
// that caused them, or on a shared session's goroutine) and never touches
// the machine: while the owner applies its own commands (begin, take) it
// keeps the connection's events here for the owner to take with the
// results; otherwise it sends the stateless ones itself (deliveries,
// returns, confirms: engine/amqpconn's EventOut needs no state) and keeps
// the others (a channel or the connection closed by someone else) here,
// waking the owner. When the commands applied are only publishes and acks,
// whose results send nothing (the machine's EventsGoNow), no reply can be
// overtaken, and the sink sends the stateless events as if none were out:
// a consumer's acks and a publisher's publishes are most of what a busy
// connection applies, and the deliveries and confirms they cause then
// skip the machine and the copies it takes on the way (inbox, pending
// outs, Ready.Out). A forced close (server shutdown, a session's end)
// waits here too.
type inbox struct {
	mu       sync.Mutex
	applying bool
	// direct: while the owner applies, the sink still sends the
	// stateless events itself, as the machine said no reply could be
	// overtaken (amqpconn's EventsGoNow: only publishes and acks are out).
	direct bool
	evs    []engine.Event
	// pos is the command log's end when the last durable confirm kept
	// here came (pushConfirm).
	pos       uint64
	forcedSet bool
	text      string
}

// begin starts the owner's Apply: the sink keeps the connection's events
// until the owner has taken them all (take with finish); with direct, only
// those that need the machine's state (see inbox.direct).
func (in *inbox) begin(direct bool) {
	in.mu.Lock()
	in.applying, in.direct = true, direct
	in.mu.Unlock()
}

// take appends the events kept to into, with the command log's end for
// their durable confirms. With finish, when there are none it ends the
// begin (done): the sink sends on its own again.
func (in *inbox) take(into []engine.Event, finish bool) (evs []engine.Event, pos uint64, done bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if finish && len(in.evs) == 0 {
		in.applying, in.direct = false, false
		return into, 0, true
	}
	into = append(into, in.evs...)
	clear(in.evs)
	in.evs = in.evs[:0]
	pos, in.pos = in.pos, 0
	return into, pos, false
}

// takeAsync appends what other goroutines left to into, and says whether
// a forced close is asked for (once), with its text.
func (in *inbox) takeAsync(into []engine.Event) (evs []engine.Event, force bool, text string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	into = append(into, in.evs...)
	clear(in.evs)
	in.evs = in.evs[:0]
	if in.forcedSet && in.text != "" {
		force, text = true, in.text
		in.text = "" // asked once; forcedSet stays
	}
	return into, force, text
}

// force asks for a forced close with text; false if one was asked for
// already (the server's shutdown and a session's end both close it).
func (in *inbox) force(text string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.forcedSet {
		return false
	}
	in.forcedSet, in.text = true, text
	return true
}

// forced reports whether a forced close was asked for; forceText is its
// text.
func (in *inbox) forced() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.forcedSet
}

func (in *inbox) forceText() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.text
}

// eventSink receives the connection's engine events from the backend.
type eventSink struct{ c *conn }

// sinkKinds are the kinds of event a connection acts on: the machine's
// (amqpconn.EventKinds), no more and no fewer (TestSinkActsOnItsKindsOnly).
// The broker hands it no other kind unless in a batch whose events of
// these kinds are all the connection's (sink.Filter).
var sinkKinds = sink.KindsOf(amqpconn.EventKinds[:]...)

// Kinds makes eventSink a sink.Filter.
func (eventSink) Kinds() sink.Kinds { return sinkKinds }

// Events takes the connection's events (see inbox). It skips the events
// of other connections, and of kinds it does not act on, which a batch
// handed over whole may hold (sink.Filter). It does not call the
// engine: back-pressure is the owner's, woken when the outbox passes its
// high-water mark.
func (s eventSink) Events(evs []engine.Event) {
	c := s.c
	id := c.connID
	c.home.inline.claim(c)
	in := &c.inbox
	wake := false
	out := c.out.pushes()
	in.mu.Lock()
	for i := range evs {
		ev := &evs[i]
		if ev.Channel.Conn != id || !sinkKinds.Has(ev.Kind) {
			continue
		}
		stateless := amqpconn.Stateless(ev.Kind)
		if in.applying && !(in.direct && stateless) {
			in.evs = append(in.evs, *ev)
			if durableConfirm(ev) {
				out.done() // see pushes
				in.pos = c.b.LogEnd()
			}
			continue
		}
		if !stateless {
			in.evs = append(in.evs, *ev)
			wake = true
			continue
		}
		s, ok := amqpconn.EventSendOf(ev, c.notifyCancel)
		if !ok {
			continue
		}
		if s.Confirm && (s.Durable || !c.confirmGoesNow(0)) {
			out.done() // it may wait for the disk: see pushes
			c.pushSend(&s, ev)
			continue
		}
		out.event(s.Channel, s.Method, ev, s.Frames)
	}
	out.done()
	in.mu.Unlock()
	if !wake && !c.pausedFlag.Load() && c.out.size() > c.cfg.OutboxHighWater {
		wake = true // the owner pauses the connection (drive.go's backlog)
		pressureWakes.Add(1)
	}
	if wake {
		c.wake.wake()
	}
}

// pressureWakes counts the sinks' wake-ups for back-pressure. A turn that
// caused one yields the processor once it is over (drive.go's turn), so
// that the consumer's owner can pause it before the publisher's next
// turn: the owner it woke would otherwise wait behind a publisher that
// streams (on a pipe, every message of a 500-message burst reached the
// stalled consumer before its owner ran).
var pressureWakes atomic.Uint64

// durableConfirm reports whether ev's confirm waits for the disk.
func durableConfirm(ev *engine.Event) bool {
	return (ev.Kind == engine.EvConfirmed && ev.Durable) || ev.Kind == engine.EvTxCommitted
}
