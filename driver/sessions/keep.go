package sessions

import (
	"reflect"

	"warren/engine/hub"
)

// Keeper stores a session as it goes, for a driver whose memory can go
// while the session lives on: the edge's Durable Object (issue 12), which
// is evicted when idle and woken by an alarm. After each step the session
// tells it what to store; what it stored restores the session (Restore,
// hub.Restore), so nothing accepted is lost. This is the session's own
// log, the engine's command records in its entries: no second mechanism.
type Keeper interface {
	// Keep receives the entries the log gained since the last call, in
	// order, to append; the session's State when it changed (else nil);
	// and the hub's snapshot when the hub took a new one (else nil):
	// from then on the entries up to snap.Seq are not needed, and
	// snap.Entries are among those already given. The first call, at
	// the session's start, has its State and snapshot.
	Keep(entries []hub.Entry, st *hub.State, snap *hub.Snapshot)
}

// keeping is what a session last gave its Keeper.
type keeping struct {
	k       Keeper
	state   hub.State
	snapSeq uint64
	started bool
}

// keep hands the Keeper what one Ready changed.
func (s *session) keep(entries []hub.Entry) {
	kp := s.keeping
	if kp == nil || kp.k == nil {
		return
	}
	var st *hub.State
	if now := s.hub.State(); !kp.started || !reflect.DeepEqual(now, kp.state) {
		kp.state, st = now, &now
	}
	var snap *hub.Snapshot
	if seq := s.hub.SnapshotSeq(); !kp.started || seq != kp.snapSeq {
		kp.snapSeq, snap = seq, s.hub.Snapshot()
	}
	kp.started = true
	if len(entries) == 0 && st == nil && snap == nil {
		return
	}
	kp.k.Keep(entries, st, snap)
}
