package conn

import (
	"net"

	"warren/engine"
	"warren/server/broker"
)

// Backend is the broker a connection's commands run on: the server's own
// (*broker.Broker) or a shared session's (server/sessions). Both run
// closures one at a time (the server's under its lock, on the caller's
// goroutine; a session's on its own goroutine), and hand the connection's
// events to its sink the same way, after the closure that caused them.
type Backend interface {
	// Do runs f on the broker and returns when it has run; an error
	// means the broker has stopped and f did not run.
	Do(f func(e *engine.Broker)) error
	// DoAsync queues f like Do without waiting for it.
	DoAsync(f func(e *engine.Broker)) error
	// Attach routes connection id's events to s; Detach stops that.
	Attach(id engine.ConnID, s broker.Sink)
	Detach(id engine.ConnID)
	// LogEnd and AfterDurable hold durable confirms until the command log
	// is on disk (broker/durable.go); a broker without a disk runs f at once.
	LogEnd() uint64
	AfterDurable(pos uint64, f func())
}

// Home is where a logged-in connection lives: a broker, and what the
// connections of that broker share with each other. The server's own
// broker is one home; each shared session is another, which a Router
// hands out at login.
type Home struct {
	// Alarm blocks the home's publishers (memory, disk, a session's
	// bytes); its connections set is touched on the home's broker
	// goroutine only.
	Alarm *Alarm
	// Ended, when set, closes when the home's broker ends for good (a
	// shared session ends): its connections are closed with 320
	// CONNECTION_FORCED and EndText.
	Ended   <-chan struct{}
	EndText func() string

	// inline says which connections' frames a request's goroutine writes
	// after it (inline.go).
	inline inlineWrites
}

// NewHome returns the home of the connections of one broker, blocked by
// alarm (nil: never).
func NewHome(alarm *Alarm) *Home {
	if alarm == nil {
		alarm = &Alarm{}
	}
	alarm.init()
	return &Home{Alarm: alarm}
}

// Router sends a login that is not one of the server's users to the
// broker it belongs to: a shared session's own user and password. It
// returns the session's home and a Backend for this one connection (whose
// commands the session records as that connection's), or ok false for a
// login it does not know, which then goes to the server's users.
type Router interface {
	Route(user, pass string, remote net.Addr) (home *Home, b Backend, ok bool)
}

// An inlineBackend's DoAsync has run f by the time it returns (the
// server's broker runs it under its lock on the caller's goroutine). A
// connection then gives each batch of commands the array of the one
// before: with a backend that runs f later (a shared session's
// goroutine), f may still be reading it. With a fresh array a batch,
// amqp091-go's publish+consume (a few commands a batch) ran the GC 46
// times per 100,000 messages; with the array reused, 15.
type inlineBackend interface{ DoAsyncRunsInline() bool }

func runsInline(b Backend) bool {
	ib, ok := b.(inlineBackend)
	return ok && ib.DoAsyncRunsInline()
}

// noBroker is the Backend of a server with no broker of its own (the
// edge, where every login goes to a shared session through the Router):
// nothing runs on it, since no login reaches it.
type noBroker struct{}

func (noBroker) Do(func(e *engine.Broker)) error      { return broker.ErrStopped }
func (noBroker) DoAsync(func(e *engine.Broker)) error { return broker.ErrStopped }
func (noBroker) Attach(engine.ConnID, broker.Sink)    {}
func (noBroker) Detach(engine.ConnID)                 {}
func (noBroker) LogEnd() uint64                       { return 0 }
func (noBroker) AfterDurable(_ uint64, f func())      { f() }
