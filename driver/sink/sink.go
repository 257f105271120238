// Package sink is how events leave an engine's owner for the drivers
// that act on them: each connection attaches a Sink, which may say which
// kinds of event it acts on (a Filter). It is its own package because
// both sides of that boundary need it and neither may import the other:
// the native server's owner (server/broker) calls sinks, and the AMQP
// connection (driver/conn), which runs at the edge as well, is one.
package sink

import "warren/engine"

// Sink receives events. It runs while its caller owns the engine, so it
// must not block or call back into the owner, and it is given the events
// only, never the engine: what a driver does with them (a connection
// turning deliveries into frames, pausing itself when its writer falls
// behind) it does on its own goroutine, with commands. The slice is the
// owner's and valid only during the call: a sink copies what it keeps. A
// burst of events may arrive in several calls, in order.
type Sink interface {
	Events(evs []engine.Event)
}

// Func adapts a function to Sink.
type Func func(evs []engine.Event)

// Events calls f.
func (f Func) Events(evs []engine.Event) { f(evs) }

// Kinds is a set of event kinds: a bit for each of the 256 values an
// engine.EventKind (a uint8) can take, so no kind falls outside it.
type Kinds [4]uint64

// KindsOf returns the set of ks.
func KindsOf(ks ...engine.EventKind) Kinds {
	var s Kinds
	for _, k := range ks {
		s[k>>6] |= 1 << (k & 63)
	}
	return s
}

// AllKinds holds every kind: what a sink that filters nothing wants.
var AllKinds = Kinds{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

// Has reports whether k is in s.
func (s *Kinds) Has(k engine.EventKind) bool { return s[k>>6]&(1<<(k&63)) != 0 }

// Add adds the kinds of o to s.
func (s *Kinds) Add(o Kinds) {
	for i := range s {
		s[i] |= o[i]
	}
}

// Filter is a Sink that acts on some kinds of event only: an AMQP
// connection turns deliveries, returns, confirms and closes into frames
// and has nothing to do for the rest (a publish's published and enqueued
// events, say). An owner reads Kinds once, when the sink is attached.
//
// Such a sink promises to ignore every event that is not its own
// connection's or whose kind Kinds leaves out, so the owner may hand it
// a command's whole batch of events when every event of a kind some sink
// wants belongs to that one connection. A publish, whose events are
// published (the publisher's), enqueued (no connection's) and delivered
// (the consumer's), then reaches the consumer's sink as it is, instead of
// being sorted and copied connection by connection, and the publisher's
// sink is not called for it at all (5bab91e:BENCHMARKS.md, "Events only
// where they are acted on").
type Filter interface {
	Sink
	Kinds() Kinds
}
