package hub

import (
	"fmt"

	"warren/engine"
)

// Replica is a copy of a session's broker built from its log, as each
// participant's page keeps one: load the welcome's snapshot, then apply
// every entry in order. The page's wasm uses it, and so do the tests that
// prove a replica equals the session.
type Replica struct {
	B    *engine.Broker
	Seq  uint64
	Mode ClockMode
}

// NewReplica loads a snapshot and applies the entries that come with it.
// mode is the clock mode the welcome message gave.
func NewReplica(snap *Snapshot, mode ClockMode) (*Replica, []engine.Event, error) {
	b, err := engine.Load(snap.State)
	if err != nil {
		return nil, nil, err
	}
	r := &Replica{B: b, Seq: snap.Seq, Mode: mode}
	var evs []engine.Event
	for i := range snap.Entries {
		more, err := r.Apply(&snap.Entries[i])
		if err != nil {
			return nil, nil, err
		}
		evs = append(evs, more...)
	}
	return r, evs, nil
}

// Apply applies the next entry and returns the events it caused, which
// are the events the session's broker emitted for it. An entry out of
// order or a record that does not decode is an error: the replica can no
// longer follow, and its page rejoins.
func (r *Replica) Apply(e *Entry) ([]engine.Event, error) {
	if e.Seq != r.Seq+1 {
		return nil, fmt.Errorf("hub: entry %d after entry %d: the log has a gap", e.Seq, r.Seq)
	}
	for _, rec := range e.Records {
		c, err := engine.DecodeCommand(rec)
		if err != nil {
			return nil, fmt.Errorf("hub: entry %d: %w", e.Seq, err)
		}
		r.B.Apply(c)
	}
	// The snapshot carries the session's RecordCommands: a replica has no
	// use for the records it would log again.
	r.B.DrainCommands(func([]byte) {})
	if e.Clock != "" {
		r.Mode = e.Clock
	}
	r.Seq = e.Seq
	return r.B.DrainEvents(nil), nil
}

// Hash returns the replica's state hash, to report after an entry.
func (r *Replica) Hash() uint64 { return HashState(r.B) }
