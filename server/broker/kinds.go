package broker

import (
	"warren/driver/sink"
)

// attached is a connection's sink, with the kinds it wants (sink.AllKinds
// unless it is a sink.Filter).
type attached struct {
	s        sink.Sink
	kinds    sink.Kinds
	filtered bool
}

func attach(s sink.Sink) attached {
	if f, ok := s.(sink.Filter); ok {
		return attached{s: s, kinds: f.Kinds(), filtered: true}
	}
	return attached{s: s, kinds: sink.AllKinds}
}

// wantedKinds is the union of what the attached sinks want: an event of
// any other kind goes to observers only.
func (b *Broker) wantedKinds() sink.Kinds {
	var u sink.Kinds
	for _, a := range b.sinks {
		u.Add(a.kinds)
	}
	return u
}
