package broker

import "warren/engine"

// KindSet is a set of event kinds: a bit for each of the 256 values an
// engine.EventKind (a uint8) can take, so no kind falls outside it.
type KindSet [4]uint64

// KindsOf returns the set of ks.
func KindsOf(ks ...engine.EventKind) KindSet {
	var s KindSet
	for _, k := range ks {
		s[k>>6] |= 1 << (k & 63)
	}
	return s
}

// allKinds holds every kind: what a sink that filters nothing wants.
var allKinds = KindSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

// Has reports whether k is in s.
func (s *KindSet) Has(k engine.EventKind) bool { return s[k>>6]&(1<<(k&63)) != 0 }

func (s *KindSet) add(o KindSet) {
	for i := range s {
		s[i] |= o[i]
	}
}

// KindFilter is a Sink that acts on some kinds of event only: an AMQP
// connection turns deliveries, returns, confirms and closes into frames
// and has nothing to do for the rest (a publish's published and enqueued
// events, say). Kinds is read once, at Attach.
//
// Such a sink promises to ignore every event that is not its own
// connection's or whose kind Kinds leaves out, so the broker may hand it
// a command's whole batch of events when every event of a kind some sink
// wants belongs to that one connection. A publish, whose events are
// published (the publisher's), enqueued (no connection's) and delivered
// (the consumer's), then reaches the consumer's sink as it is, instead of
// being sorted and copied connection by connection, and the publisher's
// sink is not called for it at all (5bab91e:BENCHMARKS.md, "Events only where they
// are acted on").
type KindFilter interface {
	Sink
	Kinds() KindSet
}

// attached is a connection's sink, with the kinds it wants (allKinds
// unless it is a KindFilter).
type attached struct {
	s        Sink
	kinds    KindSet
	filtered bool
}

func attach(s Sink) attached {
	if f, ok := s.(KindFilter); ok {
		return attached{s: s, kinds: f.Kinds(), filtered: true}
	}
	return attached{s: s, kinds: allKinds}
}

// wantedKinds is the union of what the attached sinks want: an event of
// any other kind goes to observers only.
func (b *Broker) wantedKinds() KindSet {
	var u KindSet
	for _, a := range b.sinks {
		u.add(a.kinds)
	}
	return u
}
